"""Routing of computed results: scalars to ``self.log``, everything else to sinks.

Lightning's ``self.log`` accepts scalars only and raises on anything else, so every value a
metric computes passes through :meth:`Router.route`, which looks at its shape:

- a scalar is logged under its key (``"val/f1"``);
- a per-class vector is logged as one scalar per class, ``"val/f1/<index>_<class>"`` (e.g.
  ``"val/recall/0_zero"``, or ``"val/f1/0"`` without class names; the index is zero-padded to
  the number of classes), so that TensorBoard, W&B and MLflow, which sort tags by name, list
  the classes in their order; the vector is also offered to the sinks (for a bar chart, say);
- a mapping is routed key by key (``"val/name/<key>"``); a vector of named scores (a metric's
  ``score_names``, e.g. DNSMOS' ``p808_mos, mos_sig, ...``) entry by entry (``"val/dnsmos/p808_mos"``);
- a matrix, a curve or anything else never reaches ``self.log``: it is offered to the sinks.

A sink is the seam for writers of non-scalars (TensorBoard images, files, other loggers): an
object with ``accepts(result, context) -> bool`` and ``write(result, context) -> None``, and
optionally ``finish(stage, context)``, called by :meth:`Router.finish` once a stage's results
are all routed (for what needs all of them, such as one summary table). Sinks
run on global rank zero only; every rank still takes part in the compute and in the scalar
logging, which keeps monitors such as ``ModelCheckpoint`` identical on all ranks. A non-scalar
that no sink accepts is kept in :attr:`Router.unrouted` and reported once, never dropped
silently.
"""

from __future__ import annotations

import enum
import numbers
import warnings
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable, Mapping, Optional, Protocol, Sequence, Union, runtime_checkable

import torch
from torch import Tensor


class ResultKind(enum.Enum):
    """What a computed value looks like, which decides where it goes."""

    SCALAR = "scalar"
    PER_CLASS = "per_class"  # a 1-D vector, one value per class or label
    MATRIX = "matrix"  # a 2-D or 3-D tensor: a confusion matrix, a stack of 2x2 matrices
    CURVE = "curve"  # a tuple/list of tensors: (fpr, tpr, thresholds), (precision, recall, thresholds)
    MAPPING = "mapping"  # a dict of results
    OTHER = "other"


def classify(value: Any, num_classes: Optional[int] = None) -> ResultKind:
    """The :class:`ResultKind` of a computed value.

    A vector is per-class only when its length is the metric's number of classes (or labels):
    a ``CatMetric``'s vector of values is not.

    >>> import torch
    >>> classify(torch.tensor(0.5)).value, classify(torch.tensor([0.1, 0.9]), num_classes=2).value
    ('scalar', 'per_class')
    >>> classify(torch.tensor([0.1, 0.9, 0.3])).value
    'other'
    >>> classify(torch.eye(3)).value, classify((torch.rand(4), torch.rand(4), torch.rand(4))).value
    ('matrix', 'curve')
    """
    if isinstance(value, numbers.Number) and not isinstance(value, bool):
        return ResultKind.SCALAR
    if isinstance(value, Tensor):
        if value.numel() == 1 and value.ndim <= 1:
            return ResultKind.SCALAR
        if value.ndim == 1 and value.numel() > 1 and value.numel() == num_classes:
            return ResultKind.PER_CLASS
        if value.ndim in (2, 3) and value.numel() > 0:
            return ResultKind.MATRIX
        return ResultKind.OTHER
    if isinstance(value, Mapping):
        return ResultKind.MAPPING
    if isinstance(value, (tuple, list)) and value and all(isinstance(v, (Tensor, list, tuple)) for v in value):
        return ResultKind.CURVE
    return ResultKind.OTHER


@dataclass(frozen=True)
class RoutedResult:
    """One computed value on its way out: where it came from and the key it is logged under."""

    stage: str  # "train", "val" or "test"
    name: str  # the metric's name in its collection, e.g. "f1"
    key: str  # the logged key without the dataloader suffix, e.g. "val/f1"
    value: Any
    kind: ResultKind
    dataloader_idx: Optional[int] = None  # set when the stage has several dataloaders
    # the metric that computed the value, for sinks that draw from its (merged) states
    metric: Any = field(default=None, compare=False, repr=False)
    class_names: Optional[tuple] = None  # the router's class names, for axes and tables
    # the per-class keys' last parts, one per entry, when the metric says which class each entry is
    # (detection's ``classes``): then ``class_names`` holds them too, for the figures
    class_labels: Optional[tuple] = None

    @property
    def suffix(self) -> str:
        """Lightning's ``"/dataloader_idx_N"`` suffix, or ``""`` for a single dataloader."""
        return "" if self.dataloader_idx is None else f"/dataloader_idx_{self.dataloader_idx}"


@dataclass
class RouteContext:
    """What a route needs from the run: how to log a scalar, and the trainer for sinks."""

    log_scalar: Callable[[str, Tensor, bool], None]  # (full key, value, prog_bar)
    trainer: Any = None
    pl_module: Any = None
    is_global_zero: bool = True


@runtime_checkable
class Sink(Protocol):
    """A writer of non-scalar results (images, text, files); runs on global rank zero."""

    def accepts(self, result: RoutedResult, context: RouteContext) -> bool: ...

    def write(self, result: RoutedResult, context: RouteContext) -> None: ...


ProgBar = Union[bool, Sequence[str]]


def _unlogged(result: RoutedResult, separator: str) -> Optional[str]:
    """The key of ``unlogged_results`` that ``result`` is, or lies inside: values its metric says
    are no measure to log or draw as they are (detection's class ids, its extended summary's
    per-image IoUs and precision arrays). They stay in the engine's ``results``; the metric's
    ``result_views(key, value)``, if it has one, says what to draw from them instead."""
    for part in result.name.split(separator):
        for key in getattr(result.metric, "unlogged_results", ()):
            if part == key or part.endswith(f"_{key}"):
                return key
    return None


@dataclass
class Router:
    """Send each computed value where it can be looked at; see the module docstring.

    >>> import torch
    >>> logged = {}
    >>> router = Router(class_names=["cat", "dog"])
    >>> context = RouteContext(log_scalar=lambda key, value, bar: logged.update({key: value.item()}))
    >>> router.route_value("val", "f1", torch.tensor([0.25, 0.75]), context, num_classes=2)
    >>> logged
    {'val/f1/0_cat': 0.25, 'val/f1/1_dog': 0.75}
    """

    separator: str = "/"
    class_names: Optional[Union[Sequence[str], Mapping[int, str]]] = None  # by index, or {class id: name}
    prog_bar: ProgBar = False
    sinks: list = field(default_factory=list)
    unrouted: dict = field(default_factory=dict)  # key -> latest value no sink accepted
    _missing: dict = field(default_factory=dict, repr=False)  # (stage, sentinel, reason) -> keys, until finish
    _warned: set = field(default_factory=set, repr=False)

    def key(self, stage: str, name: str) -> str:
        """The logged key of metric ``name`` in ``stage`` (without the dataloader suffix)."""
        return f"{stage}{self.separator}{name}"

    def route_value(
        self,
        stage: str,
        name: str,
        value: Any,
        context: RouteContext,
        dataloader_idx: Optional[int] = None,
        num_classes: Optional[int] = None,
        metric: Any = None,
        class_ids: Optional[Sequence[int]] = None,
    ) -> None:
        """Classify ``value`` and :meth:`route` it. ``num_classes`` is the metric's number of
        classes or labels, if it has one (``class_names`` count as a fallback); ``metric`` the
        metric that computed it, if known; ``class_ids`` the class of each entry of a vector whose
        entries are not classes 0..n-1 (detection's per-class results, keyed by id)."""
        if class_ids is not None and isinstance(value, Tensor) and value.ndim == 1 and len(value) == len(class_ids):
            parent = RoutedResult(stage, name, self.key(stage, name), value, ResultKind.PER_CLASS, dataloader_idx, metric)
            self._route_by_class_id(parent, name, value, list(class_ids), context)
            return
        names = _names_in_order(self.class_names)
        if num_classes is None and names is not None:
            num_classes = len(names)
        kind = classify(value, num_classes)
        result = RoutedResult(stage, name, self.key(stage, name), value, kind, dataloader_idx, metric, names)
        self.route(result, context)

    def route(self, result: RoutedResult, context: RouteContext) -> None:
        """Deliver one result: scalars to ``self.log``, the rest to the sinks (rank zero)."""
        kind = result.kind
        unlogged = _unlogged(result, self.separator)
        if unlogged is not None:
            self._route_views(result, unlogged, context)
            return
        if kind is ResultKind.SCALAR:
            if _is_missing(result.metric, result.value):
                self._note_missing(result, context)
                return
            self._log(result, result.key, result.value, context, per_class=False)
            self._to_sinks(result, context)  # a sink may draw more than the number (a reliability diagram)
            return
        parts = getattr(result.metric, "result_names", None)
        if kind is ResultKind.CURVE and parts and len(parts) == len(result.value):
            # a tuple of named values, e.g. (recall, threshold) of an operating-point metric:
            # the first is the metric's value, the others are logged beside it
            for index, (part, part_value) in enumerate(zip(parts, result.value)):
                name = result.name if index == 0 else f"{result.name}{self.separator}{part}"
                self.route_value(result.stage, name, part_value, context, result.dataloader_idx,
                                 num_classes=_num_classes(result.metric), metric=None)
            return
        scores = getattr(result.metric, "score_names", None)
        if kind is ResultKind.OTHER and scores and isinstance(result.value, Tensor) and result.value.ndim == 1 \
                and result.value.numel() == len(scores):
            # a vector of named scores (DNSMOS' p808_mos, mos_sig, ...): one scalar each, beside the metric's name
            for part, part_value in zip(scores, result.value.unbind(0)):
                self.route_value(result.stage, f"{result.name}{self.separator}{part}", part_value, context,
                                 result.dataloader_idx, metric=None)
            return
        if kind is ResultKind.MAPPING:
            per_class = getattr(result.metric, "per_class_result", None)
            found = per_class(result.value) if callable(per_class) else None
            if found is not None:  # a ClasswiseWrapper's dict: one per-class result under its own name
                vector, names = found
                labels = tuple(per_class_labels(len(vector), names))
                self.route(replace(result, value=vector, kind=ResultKind.PER_CLASS,
                                   class_names=tuple(names) if names else None, class_labels=labels), context)
                return
            ids = _class_ids(result.metric, result.value)
            for sub_name, sub_value in result.value.items():
                name = f"{result.name}{self.separator}{sub_name}"
                by_id = ids is not None and sub_name != result.metric.per_class_ids and isinstance(sub_value, Tensor)
                if by_id and sub_value.ndim == 1 and len(sub_value) == len(ids):
                    self._route_by_class_id(result, name, sub_value, ids, context)
                    continue
                self.route_value(result.stage, name, sub_value, context, result.dataloader_idx, metric=result.metric)
            return
        if kind is ResultKind.PER_CLASS:
            labels = list(result.class_labels) if result.class_labels is not None else self._labels(result)
            missing = _missing_mask(result.metric, result.value)
            for label, item, absent in zip(labels, result.value.unbind(0), missing):
                if absent:
                    self._note_missing(result, context, f"{result.key}{self.separator}{label}")
                    continue
                self._log(result, f"{result.key}{self.separator}{label}", item, context, per_class=True)
            if any(missing):  # the figures and tables show a gap, not the sentinel
                result = replace(result, value=torch.where(torch.tensor(missing), float("nan"), result.value.double()))
        self._to_sinks(result, context)

    # -------------------------------------------------------------- helpers
    def _route_by_class_id(self, parent: RoutedResult, name: str, value: Tensor, ids: list[int],
                           context: RouteContext) -> None:
        """A per-class vector whose entries are the classes ``ids`` (detection's ``classes``, which
        change from epoch to epoch): keyed and named by class id, never by position."""
        labels = tuple(self._labels_of_ids(parent, name, ids))
        result = RoutedResult(parent.stage, name, self.key(parent.stage, name), value, ResultKind.PER_CLASS,
                              parent.dataloader_idx, parent.metric, labels, labels)
        self.route(result, context)

    def _labels_of_ids(self, result: RoutedResult, name: str, ids: list[int]) -> list[str]:
        names = self.class_names
        width = len(str(max(ids, default=0)))
        out, unnamed = [], []
        for cid in ids:
            if isinstance(names, Mapping):
                label = names.get(cid, names.get(str(cid)))
            else:
                label = names[cid] if names is not None and 0 <= cid < len(names) else None
            if label is None and names is not None:
                unnamed.append(cid)
            out.append(f"{cid:0{width}d}" if label is None else f"{cid:0{width}d}_{label}")
        if unnamed:
            self._warn_once(
                ("class_names_ids", result.stage, name, tuple(unnamed)),
                f"`class_names` has no name for class id(s) {unnamed} of {self.key(result.stage, name)!r}; "
                "they are logged by id alone. Give `class_names` as a list indexed by class id or a dict "
                "{id: name}.",
            )
        return out

    def _note_missing(self, result: RoutedResult, context: RouteContext, key: Optional[str] = None) -> None:
        """A value that means "undefined" (mAP's -1) is not a number to log or draw: noted here, said
        once per run and key at the stage's :meth:`finish`, in one warning per metric."""
        sentinel = getattr(result.metric, "missing_result", None)
        reason = getattr(result.metric, "missing_result_reason", "the metric has no value for it")
        self._missing.setdefault((result.stage, sentinel, reason), []).append((key or result.key) + result.suffix)

    def _warn_missing(self, stage: str) -> None:
        for (where, sentinel, reason), keys in list(self._missing.items()):
            if where != stage:
                continue
            del self._missing[(where, sentinel, reason)]
            new = [k for k in keys if ("missing", k) not in self._warned]
            self._warned.update(("missing", k) for k in new)
            if new:
                shown = ", ".join(repr(k) for k in new[:12]) + (f" and {len(new) - 12} more" if len(new) > 12 else "")
                warnings.warn(
                    f"{shown} {'is' if len(new) == 1 else 'are'} {sentinel:g} ({reason}): left out of the logged "
                    "scalars and shown as missing (n/a) in figures whenever that happens in this run.",
                    UserWarning, stacklevel=3,
                )

    def _route_views(self, result: RoutedResult, key: str, context: RouteContext) -> None:
        views = getattr(result.metric, "result_views", None)
        if not callable(views) or not result.name.endswith(key):
            return
        for view_name, view in views(key, result.value).items():  # e.g. "bbox_precision" -> "bbox_pr_curve"
            self.route_value(result.stage, result.name[: -len(key)] + view_name, view, context, result.dataloader_idx)

    def _log(self, result: RoutedResult, key: str, value: Any, context: RouteContext, per_class: bool) -> None:
        if not isinstance(value, Tensor):
            value = torch.tensor(float(value))
        elif not value.is_floating_point():
            value = value.float()  # Lightning reduces in floating point and warns otherwise
        context.log_scalar(key + result.suffix, value.reshape(()), self._on_prog_bar(result, key, per_class))

    def _on_prog_bar(self, result: RoutedResult, key: str, per_class: bool) -> bool:
        if isinstance(self.prog_bar, bool):
            return self.prog_bar and not per_class
        return result.name in self.prog_bar or key in self.prog_bar

    def _on_prog_bar_name(self, name: str) -> bool:
        return self.prog_bar if isinstance(self.prog_bar, bool) else name in self.prog_bar

    def _labels(self, result: RoutedResult) -> list[str]:
        size = result.value.shape[0]
        names = _names_in_order(self.class_names)
        if names is not None and len(names) != size:
            self._warn_once(
                ("class_names", result.key),
                f"`class_names` has {len(names)} names but {result.key!r} has {size} values; "
                "logging it per class index instead.",
            )
        return per_class_labels(size, names)

    def finish(self, stage: str, context: RouteContext) -> None:
        """Tell the sinks that ``stage``'s results of this epoch are all routed (global rank
        zero only, as the writes): a sink with a ``finish(stage, context)`` method writes what
        needs them all, e.g. :class:`~.loggers.LoggerSink`'s summary table."""
        self._warn_missing(stage)
        if not context.is_global_zero:
            return
        for sink in self.sinks:
            finish = getattr(sink, "finish", None)
            if callable(finish):
                finish(stage, context)

    def _to_sinks(self, result: RoutedResult, context: RouteContext) -> None:
        if not context.is_global_zero:
            return
        full_key = result.key + result.suffix
        accepted = False
        for sink in self.sinks:
            if sink.accepts(result, context):
                sink.write(result, context)
                accepted = True
        if accepted:
            self.unrouted.pop(full_key, None)
        elif result.kind not in (ResultKind.PER_CLASS, ResultKind.SCALAR):  # those were logged as scalars
            self.unrouted[full_key] = result.value
            self._warn_once(
                ("unrouted", full_key),
                f"{full_key!r} is not a scalar ({result.kind.value}), so `self.log` cannot take it, and no "
                "sink accepted it; its latest value is kept in `results`.",
            )

    def _warn_once(self, token: tuple, message: str) -> None:
        if token not in self._warned:
            self._warned.add(token)
            warnings.warn(message, UserWarning, stacklevel=3)


def per_class_labels(size: int, names: Optional[Sequence[Any]] = None) -> list[str]:
    """The last part of the per-class keys: the class index, zero-padded to the number of
    classes, then ``_`` and the class name when ``names`` has one per class. Sorted by name,
    as TensorBoard, W&B and MLflow sort tags, they come in class order.

    >>> per_class_labels(3, ["cat", "dog", "emu"]), per_class_labels(11)[9:]
    (['0_cat', '1_dog', '2_emu'], ['09', '10'])
    """
    width = len(str(max(size - 1, 0)))
    if names is not None and len(names) == size:
        return [f"{i:0{width}d}_{name}" for i, name in enumerate(names)]
    return [f"{i:0{width}d}" for i in range(size)]


def _names_in_order(names: Any) -> Optional[tuple]:
    """``class_names`` as a tuple indexed by class (a dict ``{id: name}`` gives ids 0..max, with the
    id itself where it has no name)."""
    if names is None:
        return None
    if isinstance(names, Mapping):
        ids = [int(k) for k in names]
        return tuple(names.get(i, names.get(str(i), str(i))) for i in range(max(ids) + 1)) if ids else None
    return tuple(names)


def _is_missing(metric: Any, value: Any) -> bool:
    """Whether ``value`` is the sentinel ``metric`` returns for "undefined" (``missing_result``)."""
    sentinel = getattr(metric, "missing_result", None)
    if sentinel is None:
        return False
    return float(value) == sentinel


def _missing_mask(metric: Any, values: Tensor) -> list[bool]:
    sentinel = getattr(metric, "missing_result", None)
    if sentinel is None:
        return [False] * values.shape[0]
    return (values == sentinel).tolist()


def _class_ids(metric: Any, value: Mapping[str, Any]) -> Optional[list[int]]:
    """The class ids that the per-class entries of ``value`` belong to, when ``metric`` names the
    key that holds them (``per_class_ids = "classes"``) and it is there."""
    key = getattr(metric, "per_class_ids", None)
    ids = value.get(key) if key is not None else None
    if not isinstance(ids, Tensor) or ids.ndim != 1 or ids.numel() < 1:
        return None
    return [int(i) for i in ids.tolist()]


def _num_classes(metric: Any) -> Optional[int]:
    for attribute in ("num_classes", "num_labels"):
        value = getattr(metric, attribute, None)
        if isinstance(value, int):
            return value
    return None


def scalar_items(values: Mapping[str, Any], separator: str, prefix: str = "") -> Iterable[tuple[str, Any]]:
    """(name, value) of ``values``, with nested mappings (multitask results) flattened by ``separator``."""
    for name, value in values.items():
        if isinstance(value, Mapping):
            yield from scalar_items(value, separator, f"{prefix}{name}{separator}")
        else:
            yield f"{prefix}{name}", value


def detach_values(value: Any) -> Any:
    """``value`` (a tensor, or a dict, list or tuple of them) without its autograd history."""
    if isinstance(value, Tensor):
        return value.detach()
    if isinstance(value, dict):
        return {k: detach_values(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(detach_values(v) for v in value)
    return value
