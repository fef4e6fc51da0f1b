"""The ```python blocks of the project's pages (README.md, docs/), which the tests run."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON_BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def python_blocks(page: str) -> list[str]:
    """The ```python blocks of ``page`` (a path from the repository's root), in order."""
    return PYTHON_BLOCK.findall((ROOT / page).read_text())
