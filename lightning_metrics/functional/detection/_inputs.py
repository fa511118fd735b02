"""Detection inputs: lists of per-image dicts, checked and flattened into a few tensors per batch.

torchmetrics takes, per image, a dict of ``boxes`` ``(N, 4)``, ``scores`` ``(N,)``, ``labels``
``(N,)`` and (for masks) ``masks`` ``(N, H, W)``; targets may add ``iscrowd`` and ``area``. A batch
becomes flat tensors (all images' boxes one after the other) plus the number of objects of each
image, so a state is a handful of ``cat`` tensors whatever the number of images.

Structure checks (a list, dicts, keys, tensors, shapes, dtypes, equal lengths, masks of one size
per image) read nothing from the device and always run. Value checks (finite coordinates,
``x2 >= x1`` and ``y2 >= y1``, finite scores, 0/1 crowd flags, finite non-negative areas) read one
flag per batch back and run with ``validate_args``, before anything is kept. Messages name the
argument, the image index, the key and the value.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Optional

import torch
from torch import Tensor

from lightning_metrics.functional.detection._boxes import BOX_FORMATS, convert_boxes
from lightning_metrics.utilities.checks import check_choice, may_hold_nonfinite, raise_if_nonfinite

IOU_TYPES = ("bbox", "segm")
_GEOMETRY_KEY = {"bbox": "boxes", "segm": "masks"}


def check_iou_type(iou_type: Any) -> tuple[str, ...]:
    """``"bbox"``, ``"segm"`` or a tuple of them, as a tuple (torchmetrics' ``iou_type``).

    >>> check_iou_type("bbox"), check_iou_type(("bbox", "segm"))
    (('bbox',), ('bbox', 'segm'))
    """
    types = (iou_type,) if isinstance(iou_type, str) else iou_type
    if not isinstance(types, (tuple, list)) or not types or any(t not in IOU_TYPES for t in types):
        raise ValueError(f"Argument `iou_type` must be one of {IOU_TYPES} or a tuple of them, got {iou_type!r}")
    return tuple(types)


def check_box_format(box_format: Any) -> None:
    check_choice("box_format", box_format, BOX_FORMATS)


def check_image_lists(preds: Any, target: Any) -> None:
    """Both are sequences (lists) of dicts of the same length."""
    for name, value in (("preds", preds), ("target", target)):
        if isinstance(value, Mapping) or not isinstance(value, Sequence) or isinstance(value, (str, bytes)):
            raise ValueError(
                f"Argument `{name}` must be a list of dicts, one per image, got {type(value).__name__}"
                + (" (wrap a single image's dict in a list)" if isinstance(value, Mapping) else "")
            )
        for i, item in enumerate(value):
            if not isinstance(item, Mapping):
                raise ValueError(f"Argument `{name}[{i}]` must be a dict, got {type(item).__name__}")
    if len(preds) != len(target):
        raise ValueError(
            f"Arguments `preds` and `target` must hold one dict per image each, got {len(preds)} and {len(target)}"
        )


def _tensor(item: Mapping, name: str, i: int, key: str, required: bool = True) -> Optional[Tensor]:
    if key not in item:
        if required:
            raise ValueError(f"Argument `{name}[{i}]` lacks the key '{key}' (it has {sorted(item)})")
        return None
    value = item[key]
    if not isinstance(value, Tensor):
        raise ValueError(f"Argument `{name}[{i}]['{key}']` must be a tensor, got {type(value).__name__}")
    return value


def _boxes(item: Mapping, name: str, i: int) -> Tensor:
    boxes = _tensor(item, name, i, "boxes")
    if boxes.numel() == 0:
        return boxes.reshape(0, 4)
    if boxes.ndim != 2 or boxes.shape[1] != 4:
        raise ValueError(f"Argument `{name}[{i}]['boxes']` must have shape (N, 4), got {tuple(boxes.shape)}")
    if boxes.dtype == torch.bool or boxes.is_complex():
        raise ValueError(f"Argument `{name}[{i}]['boxes']` must hold real numbers, got {boxes.dtype}")
    return boxes


def _labels(item: Mapping, name: str, i: int) -> Tensor:
    labels = _tensor(item, name, i, "labels")
    if labels.numel() == 0:
        labels = labels.reshape(0)
    if labels.ndim != 1:
        raise ValueError(f"Argument `{name}[{i}]['labels']` must have shape (N,), got {tuple(labels.shape)}")
    if labels.is_floating_point() or labels.is_complex() or labels.dtype == torch.bool:
        raise ValueError(f"Argument `{name}[{i}]['labels']` must be an integer tensor, got {labels.dtype}")
    return labels


def _vector(item: Mapping, name: str, i: int, key: str, n: int, required: bool) -> Optional[Tensor]:
    value = _tensor(item, name, i, key, required)
    if value is None:
        return None
    if value.numel() == 0:
        value = value.reshape(0)
    if value.ndim != 1 or value.shape[0] != n:
        raise ValueError(
            f"Argument `{name}[{i}]['{key}']` must have shape ({n},), one value per object as its 'labels', "
            f"got {tuple(value.shape)}"
        )
    return value


def _masks(item: Mapping, name: str, i: int, n: int) -> Tensor:
    masks = _tensor(item, name, i, "masks")
    if masks.ndim != 3 or masks.shape[0] != n:
        if masks.numel() == 0 and n == 0:
            return masks.reshape(0, 0, 0)
        raise ValueError(
            f"Argument `{name}[{i}]['masks']` must have shape ({n}, H, W), one mask per label, "
            f"got {tuple(masks.shape)}"
        )
    if masks.is_floating_point() or masks.is_complex():
        raise ValueError(f"Argument `{name}[{i}]['masks']` must be a bool (or 0/1 integer) tensor, got {masks.dtype}")
    return masks


def flatten_batch(
    preds: Any,
    target: Any,
    iou_types: tuple[str, ...],
    box_format: str,
    validate_args: bool = True,
) -> dict[str, Any]:
    """Check ``preds`` and ``target`` and flatten them into the tensors of a detection state.

    Returns a dict: ``det_scores`` (float64), ``det_labels``, ``det_counts`` (objects per image),
    ``gt_labels``, ``gt_crowd`` (bool), ``gt_area`` (given area, 0 when absent), ``gt_counts``,
    and per geometry ``det_boxes``/``gt_boxes`` (float64 ``xywh``, converted in the input's dtype as
    torchvision does) or ``det_masks``/``gt_masks`` (lists of ``(N, H, W)`` tensors, one per image).
    """
    check_image_lists(preds, target)
    out: dict[str, list] = {k: [] for k in ("det_scores", "det_labels", "gt_labels", "gt_crowd", "gt_area")}
    det_counts, gt_counts = [], []
    boxes = {"det": [], "gt": []}
    masks = {"det": [], "gt": []}
    for i, (p, t) in enumerate(zip(preds, target)):
        p_labels, t_labels = _labels(p, "preds", i), _labels(t, "target", i)
        n, m = p_labels.shape[0], t_labels.shape[0]
        scores = _vector(p, "preds", i, "scores", n, True)
        if not scores.is_floating_point():
            raise ValueError(f"Argument `preds[{i}]['scores']` must be a floating tensor, got {scores.dtype}")
        crowd = _vector(t, "target", i, "iscrowd", m, False)
        area = _vector(t, "target", i, "area", m, False)
        if "bbox" in iou_types:
            for side, item, name, size in (("det", p, "preds", n), ("gt", t, "target", m)):
                b = _boxes(item, name, i)
                if b.shape[0] != size:
                    raise ValueError(
                        f"Argument `{name}[{i}]['boxes']` holds {b.shape[0]} boxes but 'labels' has {size} "
                        + ("and 'scores' " if side == "det" else "")
                        + "entries: one box per object"
                    )
                boxes[side].append(b)
        if "segm" in iou_types:
            p_masks, t_masks = _masks(p, "preds", i, n), _masks(t, "target", i, m)
            if n and m and p_masks.shape[1:] != t_masks.shape[1:]:
                raise ValueError(
                    f"Argument `preds[{i}]['masks']` has masks of size {tuple(p_masks.shape[1:])} but "
                    f"`target[{i}]['masks']` of size {tuple(t_masks.shape[1:])}: one image, one size"
                )
            masks["det"].append(p_masks)
            masks["gt"].append(t_masks)
        out["det_scores"].append(scores)
        out["det_labels"].append(p_labels)
        out["gt_labels"].append(t_labels)
        out["gt_crowd"].append(crowd if crowd is not None else torch.zeros_like(t_labels))
        out["gt_area"].append(area if area is not None else torch.zeros(m, device=t_labels.device))
        det_counts.append(n)
        gt_counts.append(m)
    if validate_args:
        _check_values(boxes, out["gt_crowd"], out["gt_area"], out["det_scores"], box_format)
    device = _device(preds, target)
    result: dict[str, Any] = {
        "det_scores": _cat(out["det_scores"], torch.float64, device),
        "det_labels": _cat(out["det_labels"], torch.int64, device),
        "det_counts": torch.tensor(det_counts, dtype=torch.int64, device=device),
        "gt_labels": _cat(out["gt_labels"], torch.int64, device),
        "gt_crowd": _cat(out["gt_crowd"], torch.bool, device),
        "gt_area": _cat(out["gt_area"], torch.float64, device),
        "gt_counts": torch.tensor(gt_counts, dtype=torch.int64, device=device),
        "most_detections": max(det_counts, default=0),
    }
    if "bbox" in iou_types:
        for side in ("det", "gt"):
            result[f"{side}_boxes"] = _xywh(boxes[side], box_format, device)
    if "segm" in iou_types:
        result["det_masks"], result["gt_masks"] = masks["det"], masks["gt"]
    return result


def _device(preds: Sequence, target: Sequence) -> torch.device:
    for item in (*preds, *target):
        for value in item.values():
            if isinstance(value, Tensor):
                return value.device
    return torch.device("cpu")


def _cat(parts: list[Tensor], dtype: torch.dtype, device: torch.device) -> Tensor:
    if not parts:
        return torch.zeros(0, dtype=dtype, device=device)
    return (torch.cat(parts) if len(parts) > 1 else parts[0]).to(dtype)


def _xywh(parts: list[Tensor], box_format: str, device: torch.device) -> Tensor:
    """COCO's ``xywh`` in float64, each image converted in its own dtype (torchvision's arithmetic)."""
    if not parts:
        return torch.zeros(0, 4, dtype=torch.float64, device=device)
    dtypes = {p.dtype for p in parts}
    if len(dtypes) == 1:
        return convert_boxes(torch.cat(parts), box_format, "xywh").to(torch.float64)
    return torch.cat([convert_boxes(p, box_format, "xywh").to(torch.float64) for p in parts])


def _check_values(
    boxes: dict[str, list[Tensor]],
    crowds: list[Tensor],
    areas: list[Tensor],
    scores: list[Tensor],
    box_format: str,
) -> None:
    """Finite boxes with ``x2 >= x1``, ``y2 >= y1`` (``w, h >= 0``), finite scores, 0/1 crowd flags and
    finite non-negative areas: one read per batch."""
    groups = [(name, "boxes", boxes[side], lambda b: _bad_boxes(b, box_format))
              for side, name in (("det", "preds"), ("gt", "target")) if boxes[side]]
    groups.append(("target", "iscrowd", crowds, lambda c: ~((c == 0) | (c == 1))))
    groups.append(("target", "area", areas, lambda a: ~((a >= 0) & (a < float("inf")))))  # NaN fails too
    flags = [(name, key, parts, check(torch.cat(parts))) for name, key, parts, check in groups if parts]
    # a NaN score would rank anywhere and an infinite one first: neither is a confidence
    scores_flag = may_hold_nonfinite(torch.cat(scores)) if scores else None
    questions = [bad.any() for *_, bad in flags] + ([scores_flag] if scores_flag is not None else [])
    if not questions or not bool(torch.stack(questions).any()):
        return
    if scores_flag is not None and bool(scores_flag):
        for i, image_scores in enumerate(scores):
            raise_if_nonfinite(f"preds[{i}]['scores']", image_scores)
    for name, key, parts, bad in flags:
        if not bool(bad.any()):
            continue
        first = int(bad.nonzero()[0])
        sizes = torch.tensor([p.shape[0] for p in parts])
        i = int(torch.searchsorted(torch.cumsum(sizes, 0), torch.tensor(first), right=True))
        row = first - int(sizes[:i].sum())
        value = parts[i][row].tolist()
        if key == "iscrowd":
            raise ValueError(f"Argument `{name}[{i}]['iscrowd']` must hold 0 or 1, got {value!r} at index {row}")
        if key == "area":
            raise ValueError(
                f"Argument `{name}[{i}]['area']` must hold finite non-negative areas, got {value!r} "
                f"at index {row}"
            )
        rule = "x2 >= x1 and y2 >= y1" if box_format == "xyxy" else "w >= 0 and h >= 0"
        raise ValueError(
            f"Argument `{name}[{i}]['boxes']` row {row} is {value}: boxes in {box_format!r} format must be "
            f"finite with {rule}"
        )


def check_finite_boxes(parts: dict[str, list[Tensor]]) -> None:
    """Finite coordinates in every image's boxes (``{"preds": [...], "target": [...]}``, one tensor per
    image): one host read for the batch; on failure the message names the image and the value."""
    flags = [(name, boxes, may_hold_nonfinite(torch.cat(boxes))) for name, boxes in parts.items() if boxes]
    flags = [(name, boxes, flag) for name, boxes, flag in flags if flag is not None]
    if not flags or not bool(torch.stack([flag for *_, flag in flags]).any()):
        return
    for name, boxes, _ in flags:
        for i, image_boxes in enumerate(boxes):
            raise_if_nonfinite(f"{name}[{i}]['boxes']", image_boxes)


def _bad_boxes(boxes: Tensor, box_format: str) -> Tensor:
    finite = torch.isfinite(boxes).all(-1)
    if box_format == "xyxy":
        ordered = (boxes[:, 2] >= boxes[:, 0]) & (boxes[:, 3] >= boxes[:, 1])
    else:
        ordered = (boxes[:, 2] >= 0) & (boxes[:, 3] >= 0)
    return ~(finite & ordered)
