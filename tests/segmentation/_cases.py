"""Generated segmentation batches for the tests: class maps, 0/1 masks and scores in every input format.

Every batch is built to contain the edge cases the metrics must agree on: classes absent from the
target (or from both), an all-background image, and (for masks) an image with no mask at all.
"""

from __future__ import annotations

from typing import Optional

import torch
from torch import Tensor
from torch.nn import functional as F

FORMS = ("index", "one-hot", "one-hot-bool", "one-hot-scores", "mixed-scores", "mixed-index-preds")


def class_maps(
    gen: torch.Generator, n: int, classes: int, spatial: tuple[int, ...], edge_cases: bool = True
) -> tuple[Tensor, Tensor]:
    """``(n, *spatial)`` preds and target class maps; the target never holds the last class (when
    there are several), sample 0 of the target is all background, and preds agree with the target
    on about half of the pixels."""
    target_high = classes - 1 if classes > 2 else classes
    target = torch.randint(0, target_high, (n, *spatial), generator=gen)
    noise = torch.randint(0, classes, (n, *spatial), generator=gen)
    keep = torch.rand((n, *spatial), generator=gen) < 0.5
    preds = torch.where(keep, target, noise)
    if edge_cases and n > 1:
        target[0] = 0
        preds[-1] = target[-1]  # one perfect sample
    return preds, target


def one_hot(labels: Tensor, classes: int) -> Tensor:
    return F.one_hot(labels, classes).movedim(-1, 1)


def multilabel_masks(
    gen: torch.Generator, n: int, classes: int, spatial: tuple[int, ...]
) -> tuple[Tensor, Tensor]:
    """Independent 0/1 masks per class (several classes per pixel, as in torchmetrics' examples);
    sample 0 has empty target masks."""
    preds = (torch.rand((n, classes, *spatial), generator=gen) < 0.4).long()
    target = (torch.rand((n, classes, *spatial), generator=gen) < 0.4).long()
    if n > 1:
        target[0] = 0
        if classes > 1:
            preds[1, 1] = 0  # a class absent from preds
    return preds, target


def batch(
    form: str, gen: torch.Generator, n: int, classes: int, spatial: tuple[int, ...] = (6, 7)
) -> tuple[Tensor, Tensor, str]:
    """``(preds, target, input_format)`` of one batch in ``form`` (see :data:`FORMS`)."""
    preds, target = class_maps(gen, n, classes, spatial)
    if form == "index":
        return preds, target, "index"
    if form == "one-hot":
        p, t = multilabel_masks(gen, n, classes, spatial)
        return p, t, "one-hot"
    if form == "one-hot-bool":
        return one_hot(preds, classes).bool(), one_hot(target, classes).bool(), "one-hot"
    scores = torch.randn((n, classes, *spatial), generator=gen) + 3 * one_hot(preds, classes)
    if form == "one-hot-scores":
        return scores, one_hot(target, classes), "one-hot"
    if form == "mixed-scores":
        return scores, target, "mixed"
    if form == "mixed-index-preds":
        return preds, one_hot(target, classes), "mixed"
    raise ValueError(form)


def with_void(target: Tensor, gen: torch.Generator, label: int, fraction: float = 0.25) -> Tensor:
    """``target`` with about ``fraction`` of its pixels set to ``label`` (void)."""
    void = torch.rand(target.shape, generator=gen) < fraction
    return target.masked_fill(void, label)


def split(tensor: Tensor, sizes: tuple[int, ...]) -> list[Tensor]:
    return list(torch.split(tensor, list(sizes)))


def masks_with_presence(
    gen: torch.Generator, n: int, classes: int, spatial: tuple[int, ...], missing: Optional[str] = None
) -> tuple[Tensor, Tensor]:
    """Class maps where every class is in preds and target of every sample (torchmetrics'
    Hausdorff distance raises otherwise); ``missing="pred"`` / ``"target"`` empties class 1 of
    sample 0 on that side (an infinite distance)."""
    preds, target = class_maps(gen, n, classes, spatial, edge_cases=False)
    flat_p, flat_t = preds.view(n, -1), target.view(n, -1)
    for c in range(classes):
        flat_p[:, c] = c
        flat_t[:, -1 - c] = c
    if missing is not None:
        side = flat_p if missing == "pred" else flat_t
        side[0][side[0] == 1] = 0
    return preds, target
