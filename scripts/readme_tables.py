#!/usr/bin/env python3
"""Writes the latest `roving bench` tables into docs/BENCHMARKS.md.

Only the text between `<!-- bench:start -->` and `<!-- bench:end -->` is
replaced; without those markers the tables go to bench/results/SUMMARY.md
only. Reads bench/results/*.json (written by `roving bench`).

    python3 scripts/readme_tables.py [--results DIR] [--readme FILE]
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

from roving.bench.readme import main

if __name__ == "__main__":
    sys.exit(main())
