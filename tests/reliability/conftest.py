"""Hypothesis profiles for the reliability fuzz tests.

``ci`` (the default) is bounded and derandomized, so CI runs the same examples every time;
``long`` explores far more (run by hand: ``HYPOTHESIS_PROFILE=long pytest tests/reliability/test_fuzz.py``).
The fuzz tests apply the profile to themselves only (:data:`FUZZ_SETTINGS`), so loading this
conftest changes nothing for the other hypothesis tests of the suite.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

_CHECKS = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]
settings.register_profile(
    "ci", max_examples=50, derandomize=True, deadline=None, suppress_health_check=_CHECKS, print_blob=True
)
settings.register_profile(
    "long", max_examples=600, derandomize=False, deadline=None, suppress_health_check=_CHECKS, print_blob=True
)


def fuzz_settings() -> settings:
    """The profile named by ``HYPOTHESIS_PROFILE`` if it is one of ours, else ``ci``."""
    name = os.environ.get("HYPOTHESIS_PROFILE", "ci")
    return settings.get_profile(name if name in ("ci", "long") else "ci")
