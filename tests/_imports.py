"""What a fresh interpreter has loaded after importing some of our modules: the light-import tests
of every domain ask it."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence


def heavy_modules_loaded(modules: Sequence[str], heavy: Sequence[str]) -> list[str]:
    """The ``heavy`` modules present in ``sys.modules`` of a fresh interpreter after ``import``ing
    every one of ``modules`` (an empty list when the import is light)."""
    report = f"print(','.join(m for m in {tuple(heavy)!r} if m in sys.modules))"
    code = f"import sys, {', '.join(modules)}\n{report}"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    return [m for m in out.stdout.strip().split(",") if m]
