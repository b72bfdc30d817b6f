"""``python -m roving``: the roving command line (see :mod:`roving.cli`)."""

import sys

from roving.cli import main

if __name__ == "__main__":
    sys.exit(main())
