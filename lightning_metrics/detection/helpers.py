"""torchmetrics' ``detection.helpers``: the input helpers that custom detection metrics import.

torchmetrics' only public name here, ``CocoBackend``, drives pycocotools or faster-coco-eval;
lightning_metrics runs the COCO protocol natively and never loads either, so it is not offered
(importing it says so). Its private helpers that work on plain tensors are served with
torchmetrics' signatures and behaviour, for code written against them:

- ``_input_validator(preds, targets, iou_type, ignore_score)``: the structure of the lists of
  per-image dicts (keys, tensors, matching lengths), raising ``ValueError`` as torchmetrics;
- ``_validate_iou_type_arg(iou_type)``, ``_fix_empty_tensors(boxes)``, ``_get_classes(...)`` and
  ``_warning_on_too_many_detections(limit)``.

The helpers that run a COCO backend (``_load_coco_backend_tools``, ``_get_safe_item_values``,
``_calculate_map_with_coco``) are not served, for the same reason as ``CocoBackend``.

>>> import torch
>>> from lightning_metrics.detection.helpers import _fix_empty_tensors, _input_validator
>>> box, one = torch.tensor([[0.0, 0.0, 4.0, 4.0]]), torch.tensor([1])
>>> preds = [{"boxes": box, "scores": torch.tensor([0.9]), "labels": one}]
>>> _input_validator(preds, [{"boxes": torch.zeros(0, 4), "labels": torch.zeros(0, dtype=torch.long)}])
>>> _fix_empty_tensors(torch.tensor([])).shape
torch.Size([1, 0])
>>> from lightning_metrics.detection.helpers import CocoBackend
Traceback (most recent call last):
...
lightning_metrics._compat.NotOfferedError: lightning_metrics does not offer ...CocoBackend: it needs ...
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, Union

import torch
from torch import Tensor

from lightning_metrics import _compat
from lightning_metrics.utilities.prints import rank_zero_warn

__all__: list[str] = []  # torchmetrics' one public name here (CocoBackend) is not offered

IouType = Union[Literal["bbox", "segm"], tuple[Literal["bbox", "segm"], ...]]
_GEOMETRY = {"bbox": "boxes", "segm": "masks"}


def _validate_iou_type_arg(iou_type: IouType = "bbox") -> tuple[Literal["bbox", "segm"], ...]:
    """``iou_type`` as a tuple (a string wrapped), or a ``ValueError`` for a type other than
    ``"bbox"`` and ``"segm"``.

    >>> _validate_iou_type_arg("segm"), _validate_iou_type_arg(("bbox", "segm"))
    (('segm',), ('bbox', 'segm'))
    """
    types = (iou_type,) if isinstance(iou_type, str) else iou_type
    if any(t not in _GEOMETRY for t in types):
        raise ValueError(
            f"Argument `iou_type` must be one of ('segm', 'bbox') or a tuple of them, got {iou_type!r}"
        )
    return types  # type: ignore[return-value]


def _input_validator(
    preds: Sequence[dict[str, Tensor]],
    targets: Sequence[dict[str, Tensor]],
    iou_type: IouType = "bbox",
    ignore_score: bool = False,
) -> None:
    """Check the lists of per-image dicts of a detection metric (structure only, no value is read).

    Both sequences of the same length; every prediction with the geometry of each ``iou_type``
    (``boxes``, ``masks``), ``labels`` and, unless ``ignore_score``, ``scores``; every target with the
    geometry and ``labels``; all of them tensors whose first dimensions agree within an image.
    A ``ValueError`` names what is wrong (torchmetrics' bare ``Exception`` for an unknown
    ``iou_type`` is a ``ValueError`` here, which ``except Exception`` still catches).

    >>> import torch
    >>> _input_validator([{"boxes": torch.zeros(2, 4), "labels": torch.zeros(1), "scores": torch.zeros(2)}],
    ...                  [{"boxes": torch.zeros(0, 4), "labels": torch.zeros(0)}])
    Traceback (most recent call last):
    ...
    ValueError: Prediction 0 holds 2 boxes but 1 labels and 2 scores: one of each per object
    """
    keys = [_GEOMETRY[t] for t in _validate_iou_type_arg(iou_type)]
    for name, value in (("preds", preds), ("target", targets)):
        if not isinstance(value, Sequence):
            raise ValueError(
                f"Argument `{name}` must be a sequence (list) of dicts, got {type(value).__name__}"
            )
    if len(preds) != len(targets):
        raise ValueError(
            "Arguments `preds` and `target` must hold one dict per image each, got "
            f"{len(preds)} and {len(targets)}"
        )
    pred_keys = [*keys, "labels"] + ([] if ignore_score else ["scores"])
    for name, items, required in (("preds", preds, pred_keys), ("target", targets, [*keys, "labels"])):
        for key in required:
            if any(key not in item for item in items):
                raise ValueError(f"Every dict in `{name}` must hold the key '{key}'")
        for key in required:
            if not all(isinstance(item[key], Tensor) for item in items):
                raise ValueError(f"Every '{key}' in `{name}` must be a tensor")
    for i, item in enumerate(targets):
        for key in keys:
            if item[key].size(0) != item["labels"].size(0):
                raise ValueError(
                    f"Target {i} holds {item[key].size(0)} {key} but {item['labels'].size(0)} labels: "
                    "one per object"
                )
    if ignore_score:  # as torchmetrics: without scores, the lengths of predictions go unchecked
        return
    for i, item in enumerate(preds):
        for key in keys:
            if not item[key].size(0) == item["labels"].size(0) == item["scores"].size(0):
                raise ValueError(
                    f"Prediction {i} holds {item[key].size(0)} {key} but {item['labels'].size(0)} labels "
                    f"and {item['scores'].size(0)} scores: one of each per object"
                )


def _fix_empty_tensors(boxes: Tensor) -> Tensor:
    """An empty 1-D tensor of boxes as shape ``(1, 0)`` (as torchmetrics keeps them); others as they are.

    >>> import torch
    >>> _fix_empty_tensors(torch.zeros(0)).shape, _fix_empty_tensors(torch.zeros(0, 4)).shape
    (torch.Size([1, 0]), torch.Size([0, 4]))
    """
    if boxes.numel() == 0 and boxes.ndim == 1:
        return boxes.unsqueeze(0)
    return boxes


def _get_classes(detection_labels: list[Tensor], groundtruth_labels: list[Tensor]) -> list[int]:
    """The labels that occur in the detections or the ground truth, sorted, as Python numbers.

    >>> import torch
    >>> _get_classes([torch.tensor([3, 1])], [torch.tensor([1, 7]), torch.tensor([], dtype=torch.long)])
    [1, 3, 7]
    """
    if not detection_labels and not groundtruth_labels:
        return []
    return torch.cat([*detection_labels, *groundtruth_labels]).unique().cpu().tolist()


def _warning_on_too_many_detections(limit: int) -> None:
    """Warn (``UserWarning``, on rank zero) that an image holds more than ``limit`` detections.

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _warning_on_too_many_detections(100)
    >>> caught[0].category.__name__, "more than 100 detections" in str(caught[0].message)
    ('UserWarning', True)
    """
    rank_zero_warn(
        f"Encountered more than {limit} detections in a single image: the lowest-scored ones are left out of "
        "the evaluation, which may lower the values. Raise `max_detection_thresholds` to keep them, or set "
        "`warn_on_many_detections=False` on the metric to silence this warning.",
        UserWarning,
    )


__getattr__ = _compat.module_getattr(__name__)  # torchmetrics' names we lack here say so
