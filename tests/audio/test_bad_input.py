"""Bad audio batches, table-driven: NaN and infinite samples, mismatched signal shapes, wrong dtypes.
Each raises a clear error naming the argument and the value, and leaves the metric exactly as it was:
its states, its update count and ``compute()`` (:func:`tests._bad_input.assert_rejected_untouched`).

The constructor arguments and a few shape errors are in ``test_state.py``; ``BAD_BATCHES`` there and
``CASES`` here make the audio table.
"""

from __future__ import annotations

import re

import pytest
import torch

import lightning_metrics.audio as lma
import lightning_metrics.functional.audio as lmf
from tests._bad_input import assert_rejected_untouched
from tests.audio._cases import mixtures, pair

NAN, INF = float("nan"), float("inf")
PIT = {"metric_func": lmf.scale_invariant_signal_distortion_ratio}


def _batch(kind: str, seed: int) -> tuple:
    return mixtures(3, torch.float32, seed) if kind == "pit" else pair(kind, torch.float32, seed)


def _poisoned(kind: str, where: int, index: tuple, value: complex) -> tuple:
    batch = [t.clone() for t in _batch(kind, 7)]
    batch[where][index] = value
    return tuple(batch)


def _finite(name: str, value: object, index: tuple) -> str:
    shown = index[0] if len(index) == 1 else index
    value, shown = re.escape(str(value)), re.escape(str(shown))
    return rf"`{name}` must be finite \(no NaN or infinity\), got {value} at index {shown}$"


# (class, arguments, kind of the good batches, bad batch, error, message)
CASES = [
    ("SignalNoiseRatio", {}, "mono", _poisoned("mono", 0, (1, 20), NAN), ValueError, _finite("preds", NAN, (1, 20))),
    ("SignalNoiseRatio", {"zero_mean": True}, "mono", _poisoned("mono", 1, (3, 299), INF), ValueError,
     _finite("target", INF, (3, 299))),
    ("ScaleInvariantSignalNoiseRatio", {}, "mono", _poisoned("mono", 0, (0, 0), -INF), ValueError,
     _finite("preds", -INF, (0, 0))),
    ("ScaleInvariantSignalDistortionRatio", {}, "mono", _poisoned("mono", 0, (2, 100), NAN), ValueError,
     _finite("preds", NAN, (2, 100))),
    ("ScaleInvariantSignalDistortionRatio", {"zero_mean": True}, "speakers", _poisoned("speakers", 1, (2, 1, 0), NAN),
     ValueError, _finite("target", NAN, (2, 1, 0))),
    ("SignalDistortionRatio", {"filter_length": 16}, "mono", _poisoned("mono", 1, (0, 5), NAN), ValueError,
     _finite("target", NAN, (0, 5))),
    ("ComplexScaleInvariantSignalNoiseRatio", {}, "spectrogram", _poisoned("spectrogram", 0, (1, 2, 3, 0), INF),
     ValueError, _finite("preds", INF, (1, 2, 3, 0))),
    ("ComplexScaleInvariantSignalNoiseRatio", {}, "complex", _poisoned("complex", 1, (0, 4, 6), complex(NAN, 0.0)),
     ValueError, r"`target` must be finite .*nan.* at index \(0, 4, 6\)"),
    ("SourceAggregatedSignalDistortionRatio", {}, "speakers", _poisoned("speakers", 0, (1, 0, 256), NAN), ValueError,
     _finite("preds", NAN, (1, 0, 256))),
    ("PermutationInvariantTraining", PIT, "pit", _poisoned("pit", 1, (4, 2, 199), -INF), ValueError,
     _finite("target", -INF, (4, 2, 199))),
    # mismatched signal shapes
    ("ScaleInvariantSignalDistortionRatio", {}, "mono", (torch.rand(4, 300), torch.rand(4, 299)), RuntimeError,
     r"same shape.*\(4, 300\).*\(4, 299\)"),
    ("ScaleInvariantSignalNoiseRatio", {}, "mono", (torch.rand(4, 300), torch.rand(1, 300)), RuntimeError,
     r"same shape.*\(4, 300\).*\(1, 300\)"),
    ("SignalNoiseRatio", {}, "mono", (torch.rand(4, 300), torch.rand(300)), RuntimeError,
     r"same shape.*\(4, 300\).*\(300,\)"),
    ("SourceAggregatedSignalDistortionRatio", {}, "speakers", (torch.rand(3, 2, 257), torch.rand(3, 3, 257)),
     RuntimeError, r"same shape.*\(3, 2, 257\).*\(3, 3, 257\)"),
    ("ComplexScaleInvariantSignalNoiseRatio", {}, "spectrogram", (torch.rand(2, 5, 7, 2), torch.rand(2, 5, 6, 2)),
     RuntimeError, r"same shape.*\(2, 5, 7, 2\).*\(2, 5, 6, 2\)"),
    ("PermutationInvariantTraining", PIT, "pit", (torch.rand(5, 3, 200), torch.rand(5, 3, 199)), RuntimeError,
     r"same shape.*\(5, 200\).*\(5, 199\)"),  # metric_func's error, on one speaker of each
    # dtypes and types
    ("SignalNoiseRatio", {}, "mono", (torch.ones(4, 3, dtype=torch.int32), torch.ones(4, 3)), TypeError,
     "floating.*int32"),
    ("ScaleInvariantSignalDistortionRatio", {}, "mono", ([0.0, 1.0], torch.rand(2)), TypeError,
     "`preds` must be a tensor"),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-{c[5]}"[:90])
def test_bad_batch_raises_and_leaves_the_state_untouched(case: tuple) -> None:
    name, kwargs, kind, bad, error, message = case
    good = [_batch(kind, seed) for seed in range(2)]
    assert_rejected_untouched(lambda: getattr(lma, name)(**kwargs), good, bad, errors=error, match=message)


@pytest.mark.parametrize(
    "name", ["SignalNoiseRatio", "ScaleInvariantSignalDistortionRatio", "PermutationInvariantTraining"]
)
def test_validate_args_false_skips_the_finiteness_check(name: str) -> None:
    """``validate_args`` is a keyword argument here (torchmetrics' audio classes have none); PIT keeps it
    for itself instead of passing it to ``metric_func``."""
    kwargs = PIT if name == "PermutationInvariantTraining" else {}
    kind = "pit" if name == "PermutationInvariantTraining" else "mono"
    metric = getattr(lma, name)(validate_args=False, **kwargs)
    metric.update(*_poisoned(kind, 0, (0, 0, 0) if kind == "pit" else (0, 0), NAN))  # no check, no host read
    assert metric.update_count == 1 and metric.compute().isnan()
    with pytest.raises(ValueError, match="`validate_args` must be a bool, got 1"):
        getattr(lma, name)(validate_args=1, **kwargs)


def test_functions_do_not_check_finiteness() -> None:
    """A function (a training loss, often) returns NaN for a NaN sample, as torchmetrics: no host read."""
    preds, target = _poisoned("mono", 0, (1, 3), NAN)
    values = lmf.scale_invariant_signal_distortion_ratio(preds, target)
    assert values[1].isnan() and not values[0].isnan()
