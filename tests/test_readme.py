"""README.md cannot rot: every ```python block runs, and what the bash blocks name exists.

Each Python block runs on its own in a fresh interpreter (as a reader would paste it), in a
temporary directory, with a timeout. The blocks are written to be quick (tiny data, one or two
epochs).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
BLOCK = re.compile(r"^```(\w*)\n(.*?)^```", re.DOTALL | re.MULTILINE)


def _blocks(language: str) -> list[str]:
    return [body for lang, body in BLOCK.findall(README) if lang == language]


def _heading_before(block: str) -> str:
    before = README[: README.index(block)]
    return re.findall(r"^#+ (.+)$", before, re.MULTILINE)[-1]


PYTHON_BLOCKS = _blocks("python")


def test_the_readme_has_its_code_blocks() -> None:
    assert len(PYTHON_BLOCKS) >= 5
    assert {lang for lang, _ in BLOCK.findall(README)} <= {"python", "bash"}  # nothing else is left unchecked


@pytest.mark.timeout(240)
@pytest.mark.parametrize(
    "index", range(len(PYTHON_BLOCKS)), ids=[_heading_before(b)[:40] for b in PYTHON_BLOCKS]
)
def test_python_block_runs(index: int, tmp_path: Path) -> None:
    script = tmp_path / "block.py"
    script.write_text(PYTHON_BLOCKS[index])
    env = dict(os.environ, MPLBACKEND="Agg")
    proc = subprocess.run(
        [sys.executable, str(script)],
        cwd=str(tmp_path),
        env=env,
        capture_output=True,
        text=True,
        timeout=220,
        check=False,
    )
    assert proc.returncode == 0, (
        f"README block {index}:\n{PYTHON_BLOCKS[index]}\n--- stderr\n{proc.stderr[-4000:]}"
    )
    # a `print(...)  # expected` comment in a block is checked against what it printed
    expected = [
        m.group(1)
        for m in re.finditer(r"^print\(.*\)  # (\{.*\}|\[.*\])$", PYTHON_BLOCKS[index], re.MULTILINE)
    ]
    for value in expected:
        assert value in proc.stdout, (value, proc.stdout)


def test_paths_and_make_targets_named_in_the_readme_exist() -> None:
    paths = set(re.findall(r"\b((?:examples|configs|benchmarks|tests)/[\w./-]*\w)", README))
    assert paths
    for path in paths:
        if "<" not in path and not path.startswith("lightning_logs"):
            assert (ROOT / path).exists(), path
    makefile = (ROOT / "Makefile").read_text()
    for target in set(re.findall(r"\bmake (\w[\w-]*)", README)):
        assert re.search(rf"^{target}:", makefile, re.MULTILINE), target
    assert "examples/digits.py" in re.search(r"^demo:.*\n((?:\t.*\n)+)", makefile, re.MULTILINE).group(1)
    assert "make test" in (ROOT / ".ci" / "run").read_text()
    for script in (ROOT / "benchmarks").glob("*.py"):
        assert f"benchmarks/{script.name}" in README, script.name
