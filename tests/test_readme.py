"""README.md cannot rot: every ```python block runs, and what the bash blocks name exists.

Each Python block runs on its own in a fresh interpreter (as a reader would paste it), in a
temporary directory, with a timeout. The blocks are written to be quick (tiny data, one or two
epochs). The pages the README links to exist, and so do theirs; the command the demo prints to
open its logs in TensorBoard works as printed, and it is the one the README gives.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shlex
import socket
import subprocess
import sys
import time
import urllib.request
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
    assert len(PYTHON_BLOCKS) >= 4
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


def test_the_first_runnable_example_is_on_the_first_screen() -> None:
    first = README.index("```python")
    assert README[:first].count("\n") < 40
    assert len(README.encode()) < 20_000  # what a newcomer reads; the rest is linked from it


def test_paths_and_make_targets_named_in_the_readme_exist() -> None:
    paths = set(re.findall(r"\b((?:examples|configs|benchmarks|tests|docs)/[\w./-]*\w)", README))
    assert paths
    for path in paths:
        if "<" not in path and not path.startswith("lightning_logs"):
            assert (ROOT / path).exists(), path
    makefile = (ROOT / "Makefile").read_text()
    for target in set(re.findall(r"\bmake (\w[\w-]*)", README)):
        assert re.search(rf"^{target}:", makefile, re.MULTILINE), target
    assert "examples/digits.py" in re.search(r"^demo:.*\n((?:\t.*\n)+)", makefile, re.MULTILINE).group(1)
    assert "make test" in (ROOT / ".ci" / "run").read_text()
    benchmarks = (ROOT / "benchmarks" / "README.md").read_text()  # the README links to it
    for script in (ROOT / "benchmarks").glob("*.py"):
        assert f"benchmarks/{script.name}" in benchmarks, script.name
    venv = ROOT / ".venv" / "bin"
    if venv.is_dir():  # `.venv/bin/...` in the bash blocks: what `make install` puts there
        for program in set(re.findall(r"^\.venv/bin/(\w+)", "".join(_blocks("bash")), re.MULTILINE)):
            assert (venv / program).exists(), program


LINKED_PAGES = [ROOT / "README.md", ROOT / "benchmarks" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


@pytest.mark.parametrize("page", LINKED_PAGES, ids=[str(p.relative_to(ROOT)) for p in LINKED_PAGES])
def test_relative_links_resolve(page: Path) -> None:
    targets = re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", page.read_text())
    assert targets or page.parent.name == "docs"
    for target in targets:
        assert (page.parent / target).exists(), f"{page.relative_to(ROOT)} links to a missing {target}"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.timeout(240)
def test_the_tensorboard_command_the_demo_prints_works_as_printed(tmp_path: Path) -> None:
    env = dict(os.environ, LM_EXAMPLE_FAST="1", MPLBACKEND="Agg")
    demo = subprocess.run([sys.executable, str(ROOT / "examples" / "digits.py"), "--logdir", "lightning_logs"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=200, check=False)
    assert demo.returncode == 0, demo.stderr[-4000:]
    printed = [line.strip() for line in demo.stdout.splitlines() if "tensorboard" in line and "--logdir" in line]
    assert len(printed) == 1, demo.stdout
    port = _free_port()
    server = subprocess.Popen(shlex.split(printed[0]) + ["--host", "127.0.0.1", "--port", str(port)], cwd=tmp_path,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        runs: list = []
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and "digits/version_0" not in runs:
            assert server.poll() is None, f"`{printed[0]}` exited {server.returncode}: {server.stderr.read()[-2000:]}"
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/data/runs", timeout=5) as response:
                    runs = json.loads(response.read().decode())
            except OSError:
                time.sleep(1)
        assert "digits/version_0" in runs, runs
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()


def test_the_readme_gives_the_command_the_demo_prints_in_the_clone(monkeypatch) -> None:
    """From the clone, `make demo` (``.venv/bin/python examples/digits.py``) prints the command the
    README tells a newcomer to paste."""
    if Path(sys.executable).parent != ROOT / ".venv" / "bin":
        pytest.skip("the tests run outside the project's .venv")
    spec = importlib.util.spec_from_file_location("digits_demo", ROOT / "examples" / "digits.py")
    digits = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(digits)
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("PATH", os.defpath)  # not activated, as after `make demo`
    command = digits.tensorboard_command("lightning_logs")
    assert command == ".venv/bin/tensorboard --logdir lightning_logs"
    assert f"`{command}`" in README
    assert "source .venv/bin/activate" in README
