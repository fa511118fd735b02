"""Generated inputs, metric pairs (ours, torchmetrics') and a nested comparison for the wrapper tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from torch import Tensor

import lightning_metrics as lm

BATCH_SIZES = (7, 5, 23, 16)


def regression_batches(seed: int, outputs: int = 1, sizes: tuple[int, ...] = BATCH_SIZES,
                       nan_fraction: float = 0.0) -> list[tuple[Tensor, Tensor]]:
    """``[(preds, target), ...]`` with ``target ~ N(2, 3)`` and correlated predictions."""
    gen = torch.Generator().manual_seed(seed)
    out = []
    for n in sizes:
        shape = (n,) if outputs == 1 else (n, outputs)
        target = 2 + 3 * torch.randn(shape, generator=gen)
        preds = 0.8 * target + torch.randn(shape, generator=gen)
        if nan_fraction:
            preds[torch.rand(shape, generator=gen) < nan_fraction] = float("nan")
        out.append((preds, target))
    return out


def value_batches(seed: int, sizes: tuple[int, ...] = BATCH_SIZES) -> list[Tensor]:
    gen = torch.Generator().manual_seed(seed)
    return [torch.randn(n, generator=gen) * 2 + 1 for n in sizes]


def _pair(name: str, package: str = "regression", **kwargs: Any) -> Callable[[], tuple[Any, Any]]:
    def build() -> tuple[Any, Any]:
        import torchmetrics  # lazily: the 2-process workers import this module and never need it

        ours = getattr(getattr(lm, package), name)(**kwargs)
        theirs = getattr(getattr(torchmetrics, package), name)(**kwargs)
        return ours, theirs

    build.__name__ = f"{name}{kwargs or ''}"
    return build


# scalar-valued (preds, target) metrics
SCALAR_PAIRS = {
    "mse": _pair("MeanSquaredError"),
    "rmse": _pair("MeanSquaredError", squared=False),
    "mae": _pair("MeanAbsoluteError"),
    "r2": _pair("R2Score"),
    "pearson": _pair("PearsonCorrCoef"),
    "spearman": _pair("SpearmanCorrCoef"),
    "explained_variance": _pair("ExplainedVariance"),
}

# per-output vector metrics (3 outputs)
VECTOR_PAIRS = {
    "mse3": _pair("MeanSquaredError", num_outputs=3),
    "mae3": _pair("MeanAbsoluteError", num_outputs=3),
    "r2_raw": _pair("R2Score", multioutput="raw_values"),
    "pearson3": _pair("PearsonCorrCoef", num_outputs=3),
}

# one-argument aggregation metrics
AGGREGATION_PAIRS = {
    "sum": _pair("SumMetric", "aggregation"),
    "mean": _pair("MeanMetric", "aggregation"),
    "max": _pair("MaxMetric", "aggregation"),
    "min": _pair("MinMetric", "aggregation"),
}


def classification_available() -> bool:
    """Whether the classification metrics have landed (other helpers write them)."""
    try:
        from lightning_metrics.classification import MulticlassAccuracy  # noqa: F401
    except ImportError:
        return False
    return True


def assert_same(ours: Any, theirs: Any, rtol: float = 1e-5, atol: float = 1e-6, path: str = "value") -> None:
    """Equal nested values: same keys (and order), shapes, dtypes; numbers to ``rtol``."""
    if isinstance(theirs, dict):
        assert isinstance(ours, dict), f"{path}: expected a dict, got {type(ours).__name__}"
        assert list(ours) == list(theirs), f"{path}: keys {list(ours)} != {list(theirs)}"
        for key in theirs:
            assert_same(ours[key], theirs[key], rtol, atol, f"{path}[{key!r}]")
        return
    if isinstance(theirs, (list, tuple)):
        assert isinstance(ours, (list, tuple)) and len(ours) == len(theirs), f"{path}: {ours!r} != {theirs!r}"
        for i, (a, b) in enumerate(zip(ours, theirs)):
            assert_same(a, b, rtol, atol, f"{path}[{i}]")
        return
    if isinstance(theirs, Tensor):
        assert isinstance(ours, Tensor), f"{path}: expected a tensor, got {ours!r}"
        assert ours.shape == theirs.shape, f"{path}: shape {tuple(ours.shape)} != {tuple(theirs.shape)}"
        assert ours.dtype == theirs.dtype, f"{path}: dtype {ours.dtype} != {theirs.dtype}"
        torch.testing.assert_close(ours, theirs, rtol=rtol, atol=atol, equal_nan=True, msg=lambda m: f"{path}: {m}")
        return
    if isinstance(theirs, float) and isinstance(ours, float):
        assert abs(ours - theirs) <= atol + rtol * abs(theirs), f"{path}: {ours} != {theirs}"
        return
    assert ours == theirs, f"{path}: {ours!r} != {theirs!r}"


def multiclass_batches(seed: int, num_classes: int = 3, sizes: tuple[int, ...] = BATCH_SIZES) -> list[tuple[Tensor, Tensor]]:
    """``[(probabilities (n, C), labels (n,)), ...]`` with predictions better than chance."""
    gen = torch.Generator().manual_seed(seed)
    out = []
    for n in sizes:
        target = torch.randint(0, num_classes, (n,), generator=gen)
        logits = torch.randn(n, num_classes, generator=gen) + 1.5 * torch.nn.functional.one_hot(target, num_classes)
        out.append((logits.softmax(-1), target))
    return out


def binary_batches(seed: int, outputs: int = 1, sizes: tuple[int, ...] = BATCH_SIZES) -> list[tuple[Tensor, Tensor]]:
    """``[(probabilities, 0/1 labels), ...]`` of shape ``(n,)`` or ``(n, outputs)``."""
    gen = torch.Generator().manual_seed(seed)
    out = []
    for n in sizes:
        shape = (n,) if outputs == 1 else (n, outputs)
        target = torch.randint(0, 2, shape, generator=gen)
        out.append(((torch.rand(shape, generator=gen) + target) / 2, target))
    return out


CLASSIFICATION_PAIRS = {
    "mc_acc_micro": _pair("MulticlassAccuracy", "classification", num_classes=3, average="micro"),
    "mc_f1_macro": _pair("MulticlassF1Score", "classification", num_classes=3),
    "mc_acc_none": _pair("MulticlassAccuracy", "classification", num_classes=3, average=None),
    "mc_recall_none": _pair("MulticlassRecall", "classification", num_classes=3, average=None),
    "binary_acc": _pair("BinaryAccuracy", "classification"),
}
