"""The README's Python examples run as written."""

import pathlib
import re

README = pathlib.Path(__file__).resolve().parents[2] / "README.md"


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


def test_readme_has_python_examples() -> None:
    assert python_blocks(), "README.md has no ```python examples"


def test_readme_python_examples_run() -> None:
    for block in python_blocks():
        exec(compile(block, str(README), "exec"), {})
