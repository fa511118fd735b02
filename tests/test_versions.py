"""The versions claimed are the versions tested: pyproject.toml's floor is what `make test-floor` pins.

In the floor environment (``make test-floor`` sets ``LIGHTNING_METRICS_FLOOR``) the installed
versions are checked too, so a floor run that quietly resolved to newer releases fails.
"""

from __future__ import annotations

import os
import re
import sys
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: pytest brings tomli
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def _lower_bound(requirement: str) -> tuple[str, Version]:
    req = Requirement(requirement)
    bounds = [Version(s.version) for s in req.specifier if s.operator == ">="]
    assert len(bounds) == 1, f"{requirement!r}: one `>=` bound, the tested floor"
    return canonicalize_name(req.name), bounds[0]


def _floor_pins() -> dict[str, Version]:
    pins = {}
    for line in (ROOT / ".ci" / "floor.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, _, version = line.partition("==")
            pins[canonicalize_name(name)] = Version(version)
    return pins


def _claimed() -> dict[str, Version]:
    """The floor of every package a user installs: the dependencies and the `plot` extra."""
    return dict(_lower_bound(r) for r in PROJECT["dependencies"] + PROJECT["optional-dependencies"]["plot"])


def _python_floor() -> Version:
    return Version(re.fullmatch(r">=\s*([\d.]+)", PROJECT["requires-python"]).group(1))


def test_every_claimed_floor_is_pinned_in_the_floor_environment() -> None:
    pins = _floor_pins()
    assert pins.pop("pytorch-lightning") == pins["lightning"]  # the standalone package, same release
    assert pins == _claimed()


def test_the_floor_environment_uses_the_oldest_claimed_python() -> None:
    floor = _python_floor()
    makefile = (ROOT / "Makefile").read_text()
    assert f"versions/{floor}.*/bin/python3" in makefile and f"python{floor}" in makefile


@pytest.mark.skipif(not os.environ.get("LIGHTNING_METRICS_FLOOR"), reason="only in the floor environment")
def test_the_floor_environment_holds_the_floor() -> None:
    installed = {name: Version(metadata.version(name)) for name in _floor_pins()}
    assert installed == _floor_pins()
    assert Version("{}.{}".format(*sys.version_info[:2])) == _python_floor()
