"""The ``Metric`` base class: states, the update/compute contract, forward, merging and sync.

A metric declares its states with :meth:`Metric.add_state`; each state carries a reduction
(``sum``, ``mean``, ``max``, ``min``, ``cat``, ``None`` or a callable) that is the single
source of truth for merging two states: in ``forward``, in :meth:`Metric.merge_state` and
across processes in :mod:`lightning_metrics.distributed`.
"""

from __future__ import annotations

import warnings
from contextlib import contextmanager
from typing import Any, Callable, Generator, Hashable, Optional, Union

import torch
from torch import Tensor, nn

from lightning_metrics import distributed
from lightning_metrics.plotting import _methods as _plot_methods
from lightning_metrics._arithmetic import MetricArithmetic
from lightning_metrics import _torchscript as torchscript
from lightning_metrics._prepared import PreparedUpdates
from lightning_metrics._sample_weights import SampleWeightStates
from lightning_metrics._state_io import MetricStateIO
from lightning_metrics._states import _NAMED_REDUCTIONS, State, merge_two, reduction_kind
from lightning_metrics._wrapping import _bool_kwarg, _update_keywords, _wrap_compute, _wrap_update
from lightning_metrics.utilities.exceptions import MetricUserError

_CONSTANT_ATTRIBUTES = ("higher_is_better", "is_differentiable", "full_state_update")
# the bookkeeping that update, compute, forward and sync reassign: plain values, never parameters, buffers or
# modules, so that assigning one skips nn.Module.__setattr__'s checks (about 2 us each; forward sets a dozen)
_BOOKKEEPING = frozenset({
    "_update_count", "_is_synced", "_enable_grad", "_computed", "compute_on_cpu", "_to_sync",
    "_should_unsync", "_forward_cache", "_cache", "_in_update", "_in_compute", "_borrows_states",
    "_compute_group",
})


_UNWEIGHTED_WARNED: set[str] = set()


def _warn_unweighted(name: str) -> None:
    """Say once per class that a collection's ``sample_weight`` does not reach a member that cannot take it."""
    if name not in _UNWEIGHTED_WARNED:
        _UNWEIGHTED_WARNED.add(name)
        warnings.warn(
            f"{name}.update takes no `sample_weight`: in this collection it is updated unweighted", UserWarning,
            stacklevel=4,
        )


def jit_distributed_available() -> bool:
    """Whether a default process group is initialised (torchmetrics' name for it).

    >>> jit_distributed_available()
    False
    """
    return distributed.is_available()



class Metric(MetricArithmetic, MetricStateIO, PreparedUpdates, SampleWeightStates, nn.Module):
    """Base class for all metrics: declare states, accumulate in ``update``, reduce in ``compute``.

    Subclasses call :meth:`add_state` in ``__init__`` and implement ``update`` and ``compute``;
    both are wrapped automatically (update counting, gradients off outside ``forward``, the
    compute cache, distributed sync). A metric may also declare :attr:`statistic_spec` so that
    a :class:`~lightning_metrics.MetricCollection` shares its state with equal metrics.

    Example (a custom metric written as for torchmetrics):

    >>> import torch
    >>> from lightning_metrics import Metric
    >>> class MyAccuracy(Metric):
    ...     def __init__(self, **kwargs):
    ...         super().__init__(**kwargs)
    ...         self.add_state("correct", default=torch.tensor(0), dist_reduce_fx="sum")
    ...         self.add_state("total", default=torch.tensor(0), dist_reduce_fx="sum")
    ...     def update(self, preds, target):
    ...         self.correct += (preds == target).sum()
    ...         self.total += target.numel()
    ...     def compute(self):
    ...         return self.correct.float() / self.total
    >>> metric = MyAccuracy()
    >>> metric(torch.tensor([1, 0, 1]), torch.tensor([1, 1, 1]))  # batch value, also accumulated
    tensor(0.6667)
    >>> metric.update(torch.tensor([1]), torch.tensor([1]))
    >>> metric.compute()
    tensor(0.7500)
    """

    # TorchScript compiles properties unless listed here; ``__init_subclass__`` lists every property
    # of a subclass too (they read Python-only state), and ``forward`` is marked unused, so that
    # ``torch.jit.script(metric)`` works as in torchmetrics.
    __jit_unused_properties__: list[str] = ["is_differentiable"]
    __jit_ignored_attributes__: list[str] = ["device", "dtype"]
    is_differentiable: Optional[bool] = None
    higher_is_better: Optional[bool] = None
    full_state_update: Optional[bool] = None

    # States whose dtype is part of their accuracy (e.g. float64 moments): device moves apply,
    # dtype casts (``set_dtype``, ``.to(dtype)``) do not.
    exact_dtype_states: tuple[str, ...] = ()

    # Names of the parts of a tuple result, e.g. ("value", "threshold"): the Lightning
    # integration logs the first as the metric and the others beside it ("val/name/threshold").
    result_names: Optional[tuple[str, ...]] = None
    # Names of the entries of a vector result that is no per-class value, e.g. DNSMOS' four scores: the
    # Lightning integration logs each entry as a scalar ("val/dnsmos/p808_mos").
    score_names: Optional[tuple[str, ...]] = None

    # True when one update over batches concatenated along dim 0 equals one update per batch, in
    # order: the update adds per-sample sums, counts or histograms, or appends samples. The
    # Lightning engine then may coalesce small batches into one update. Metrics whose result
    # depends on how the samples were split into batches (windows over updates, per-batch values,
    # per-update resampling) keep the default, False.
    additive_update: bool = False

    # Arguments the signature leaves to ``**kwargs`` (as torchmetrics does), with their defaults:
    # ``_configure`` records them as attributes (see there).
    _keyword_arguments: dict[str, Any] = {}

    # Optional plotting hints, read by ``lightning_metrics.plotting`` (torchmetrics names).
    plot_lower_bound: Optional[float] = None
    plot_upper_bound: Optional[float] = None
    plot_legend_name: Optional[str] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.__jit_unused_properties__ = torchscript.property_names(cls)
        torchscript.resolve_annotations(cls)
        forward = cls.__dict__.get("forward")
        if forward is not None:  # forward runs Python-only code (wrappers, collections, kwargs)
            torch.jit.unused(forward)
        for name, wrap in (("update", _wrap_update), ("compute", _wrap_compute)):
            # the class's own method, or one it takes from a mixin that is not a Metric
            method = getattr(cls, name, None)
            if method is not None and method is not getattr(Metric, name) and not getattr(method, "_lm_wrapped", False):
                setattr(cls, name, wrap(method))

    def __init__(self, **kwargs: Any) -> None:
        super().__init__()
        self.compute_on_cpu = _bool_kwarg(kwargs, "compute_on_cpu", False)
        self.dist_sync_on_step = _bool_kwarg(kwargs, "dist_sync_on_step", False)
        self.process_group = kwargs.pop("process_group", None)
        self.dist_sync_fn = kwargs.pop("dist_sync_fn", None)
        if self.dist_sync_fn is not None and not callable(self.dist_sync_fn):
            raise ValueError(f"Argument `dist_sync_fn` must be callable or None, got {self.dist_sync_fn!r}")
        self.distributed_available_fn = kwargs.pop("distributed_available_fn", None) or distributed.is_available
        if not callable(self.distributed_available_fn):
            raise ValueError(
                f"Argument `distributed_available_fn` must be callable, got {self.distributed_available_fn!r}"
            )
        self.sync_on_compute = _bool_kwarg(kwargs, "sync_on_compute", True)
        self.compute_with_cache = _bool_kwarg(kwargs, "compute_with_cache", True)
        if kwargs:
            raise ValueError(
                f"{type(self).__name__} got unexpected keyword arguments: {', '.join(sorted(kwargs))}"
            )

        self._device = torch.empty(0).device
        self._dtype = torch.get_default_dtype()
        # no annotations on these empty dicts: TorchScript warns about them when scripting
        self._defaults = {}  # name -> default value (a tensor or [])
        self._persistent = {}  # name -> saved in state_dict
        self._reductions = {}  # name -> dist_reduce_fx as given
        self._reduction_kinds = {}  # name -> reduction_kind(dist_reduce_fx)

        self._update_count = 0
        self._computed: Any = None
        self._forward_cache: Any = None
        self._to_sync = self.sync_on_compute
        self._should_unsync = True
        self._enable_grad = False
        self._dtype_convert = False
        self._is_synced = False
        self._cache: Optional[dict[str, State]] = None
        self._in_update = False
        self._in_compute = False
        self._borrows_states = False  # True while its states are another metric's (a compute group)
        self._compute_group = None  # its collection's ComputeGroupToken while it shares its states

    # ------------------------------------------------------------- construction
    def _configure(self, arguments: dict[str, Any]) -> None:
        """The whole body of a metric's ``__init__``: ``self._configure(locals())``.

        A public class keeps its explicit torchmetrics signature (IDEs, ``inspect.signature`` and
        LightningCLI read it) and states only that: this step runs ``Metric.__init__`` with the
        call's ``**kwargs``, records every other argument as an attribute of the same name, then
        calls :meth:`_build`, where the family checks the arguments once and declares its states.
        Arguments that torchmetrics takes through ``**kwargs`` (``zero_division`` of the stat-score
        family, say) are declared with their defaults in the class attribute ``_keyword_arguments``
        and recorded the same way.

        >>> import torch
        >>> class Above(Metric):
        ...     def __init__(self, threshold: float = 0.5, **kwargs):
        ...         self._configure(locals())
        ...     def _build(self):
        ...         self.add_state("hits", torch.tensor(0), dist_reduce_fx="sum")
        ...     def update(self, x):
        ...         self.hits += (x > self.threshold).sum()
        ...     def compute(self):
        ...         return self.hits
        >>> metric = Above(threshold=0.2, compute_on_cpu=True)
        >>> metric.threshold, metric.compute_on_cpu
        (0.2, True)
        >>> metric(torch.tensor([0.1, 0.3, 0.9]))
        tensor(2)
        """
        arguments = {k: v for k, v in arguments.items() if k not in ("self", "__class__")}
        kwargs = dict(arguments.pop("kwargs", {}))
        for name, default in type(self)._keyword_arguments.items():
            if name not in arguments:
                arguments[name] = kwargs.pop(name, default)
        Metric.__init__(self, **kwargs)
        for name, value in arguments.items():
            setattr(self, name, value)
        self._build()

    def _build(self) -> None:
        """Check the recorded arguments and declare the states (a family's part of ``_configure``)."""

    # ------------------------------------------------------------------ states
    def add_state(
        self,
        name: str,
        default: State,
        dist_reduce_fx: Union[str, Callable, None] = None,
        persistent: bool = False,
    ) -> None:
        """Declare a state: a tensor, or an empty list that ``update`` appends tensors to.

        ``dist_reduce_fx`` says how two values of the state merge: ``"sum"``, ``"mean"``,
        ``"max"``, ``"min"``, ``"cat"``, ``None`` (stack) or a callable that receives the
        values stacked along a new leading dimension.

        >>> import torch
        >>> m = Metric.__new__(Metric); Metric.__init__(m)
        >>> m.add_state("total", torch.tensor(0.0), dist_reduce_fx="max")
        >>> m.add_state("total", torch.tensor(0.0), dist_reduce_fx="avg")
        Traceback (most recent call last):
        ...
        ValueError: Argument `dist_reduce_fx` of state 'total' must be a callable or one of ('sum', 'mean', 'max', 'min', 'cat', None), got 'avg'
        """
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"Argument `name` must be a valid identifier, got {name!r}")
        if not isinstance(default, Tensor) and not (isinstance(default, list) and len(default) == 0):
            raise ValueError(
                f"Argument `default` of state {name!r} must be a tensor or an empty list, got {default!r}"
            )
        if isinstance(dist_reduce_fx, str) and dist_reduce_fx in _NAMED_REDUCTIONS:
            fx: Any = _NAMED_REDUCTIONS[dist_reduce_fx]
        elif dist_reduce_fx is None or (callable(dist_reduce_fx) and not isinstance(dist_reduce_fx, str)):
            fx = dist_reduce_fx
        else:
            raise ValueError(
                f"Argument `dist_reduce_fx` of state {name!r} must be a callable or one of "
                f"('sum', 'mean', 'max', 'min', 'cat', None), got {dist_reduce_fx!r}"
            )
        if not isinstance(persistent, bool):
            raise ValueError(f"Argument `persistent` of state {name!r} must be a bool, got {persistent!r}")
        if name not in self._defaults and (hasattr(self, name) or name in _RESERVED_NAMES):
            raise ValueError(
                f"Argument `name`: state {name!r} clashes with an existing attribute of {type(self).__name__}"
            )
        if isinstance(default, Tensor):
            default = default.detach().contiguous()
        setattr(self, name, default.clone() if isinstance(default, Tensor) else [])
        self._defaults[name] = default.clone() if isinstance(default, Tensor) else []
        self._persistent[name] = persistent
        self._reductions[name] = fx
        self._reduction_kinds[name] = reduction_kind(fx)

    @property
    def metric_state(self) -> dict[str, State]:
        """The current value of every state, by name."""
        return {name: getattr(self, name) for name in self._defaults}

    @property
    def update_called(self) -> bool:
        """Whether ``update`` or ``forward`` ran since construction or the last ``reset``."""
        return self._update_count > 0

    @property
    def update_count(self) -> int:
        """How many times ``update`` or ``forward`` ran since construction or the last ``reset``."""
        return self._update_count

    @property
    def statistic_spec(self) -> Optional[Hashable]:
        """A hashable description of the accumulated statistic, or ``None`` (never shared).

        Metrics in a :class:`~lightning_metrics.MetricCollection` whose specs are equal share
        one state and one ``update`` per batch. A spec must capture everything that shapes the
        state (statistic kind, sizes, thresholds, input handling) and nothing that only
        ``compute`` uses (averaging, zero division).
        """
        return None

    @property
    def device(self) -> torch.device:
        """The device the states live on."""
        return self._device

    @property
    def dtype(self) -> torch.dtype:
        """The default floating dtype of the metric."""
        return self._dtype

    # ---------------------------------------------------------- the contract
    def update(self, *args: Any, **kwargs: Any) -> None:
        """Accumulate a batch into the states (implemented by subclasses)."""
        raise NotImplementedError(f"{type(self).__name__} must implement `update`")

    def compute(self) -> Any:
        """Reduce the states to the metric value (implemented by subclasses)."""
        raise NotImplementedError(f"{type(self).__name__} must implement `compute`")

    def reset(self) -> None:
        """Return every state to its default and forget the update count and caches.

        List states are emptied in place, as in torchmetrics: code holding a reference to one
        (``metric.metric_state``, a metric sharing it in a compute group) sees it emptied.
        """
        self._own_states()  # a compute-group member reset on its own leaves its group first
        self._forget_updates()
        # a metric reading another's states (a compute group member) must not empty the owner's lists
        self._reset_states_only(clear_lists=not self.__dict__.get("_borrows_states", False))

    def _forget_updates(self) -> None:
        """The part of :meth:`reset` that is not the states: update count, caches, sync flag."""
        attrs = self.__dict__  # plain attributes: skip nn.Module.__setattr__
        attrs["_update_count"] = 0
        attrs["_forward_cache"] = None
        attrs["_computed"] = None
        attrs["_cache"] = None
        attrs["_is_synced"] = False

    @torch.jit.unused
    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """Accumulate the batch and return the metric computed on this batch alone."""
        if self._is_synced:
            raise MetricUserError("The metric must not be synced during `forward`; did you forget `unsync`?")
        self._own_states()  # a compute-group member forwarded on its own leaves its group first
        if self.full_state_update or self.full_state_update is None or self.dist_sync_on_step:
            self._forward_cache = self._forward_full_state_update(*args, **kwargs)
        else:
            self._forward_cache = self._forward_reduce_state_update(*args, **kwargs)
        return self._forward_cache

    def _reset_states_only(self, clear_lists: bool = False) -> None:
        """States back to their defaults; list states are new lists unless ``clear_lists`` (in place:
        ``reset``). ``forward`` keeps the accumulated lists aside, so it must get new ones."""
        attrs = self.__dict__  # states are plain attributes: skip nn.Module.__setattr__
        for name, default in self._defaults.items():
            if isinstance(default, Tensor):  # one copy, made on the metric's device
                attrs[name] = (default.detach() if default.requires_grad else default).to(self._device, copy=True)
            elif clear_lists and isinstance(attrs.get(name), list):
                attrs[name].clear()
            else:
                attrs[name] = []
        attrs["_computed"] = None

    # ------------------------------------------------------------- merging
    def merge_state(self, incoming_state: Union[dict[str, State], "Metric"]) -> None:
        """Merge another metric's state (or a state dict) into this one, by each state's reduction.

        >>> import torch
        >>> from lightning_metrics.aggregation import SumMetric
        >>> a, b = SumMetric(), SumMetric()
        >>> a.update(1.0); b.update(2.0)
        >>> a.merge_state(b)
        >>> a.compute()
        tensor(3.)
        """
        if isinstance(incoming_state, Metric):
            if not isinstance(incoming_state, type(self)):
                raise ValueError(
                    f"Argument `incoming_state` must be a {type(self).__name__}, "
                    f"got {type(incoming_state).__name__}"
                )
            count = incoming_state._update_count
            incoming_state = incoming_state.metric_state
        elif isinstance(incoming_state, dict):
            count = 1
        else:
            raise ValueError(
                f"Argument `incoming_state` must be a dict or a Metric, got {type(incoming_state).__name__}"
            )
        if self.full_state_update or self.full_state_update is None or self.dist_sync_on_step:
            raise RuntimeError(
                f"{type(self).__name__}.merge_state is not supported with full_state_update=True or "
                "dist_sync_on_step=True; override `merge_state` for this metric."
            )
        missing = [name for name in self._defaults if name not in incoming_state]
        if missing:
            raise ValueError(f"Argument `incoming_state` lacks the states {missing}")
        self._own_states()
        self._update_count += count
        try:
            self._merge_states(incoming_state)
        except BaseException:
            self._update_count -= count
            raise
        self._computed = None

    def _merge_states(self, incoming: dict[str, State]) -> None:
        merged: dict[str, State] = {}
        for name in self._defaults:  # all or nothing: assign only once every state merged
            kind = self._reduction_kinds[name]
            current = getattr(self, name)
            if kind == "mean":  # running mean over update calls, as torchmetrics does
                total = max(self._update_count, 1)
                merged[name] = ((total - 1) * incoming[name] + current).float() / total
            else:
                merged[name] = merge_two(kind, self._reductions[name], current, incoming[name])
        for name, value in merged.items():
            setattr(self, name, value)

    # ---------------------------------------------------------------- sync
    def sync(
        self,
        dist_sync_fn: Optional[Callable] = None,
        process_group: Optional[Any] = None,
        should_sync: bool = True,
        distributed_available: Optional[Callable] = None,
    ) -> None:
        """Replace the local states by their reduction over all processes (keeps a local copy)."""
        if self._is_synced and should_sync:
            raise MetricUserError("The metric has already been synced.")
        available = distributed_available or self.distributed_available_fn
        if not should_sync or not (callable(available) and available()):
            return
        group = process_group or self.process_group
        if dist_sync_fn is None:
            # one fused exchange for this metric and every metric nested in it (wrappers, operands)
            distributed.sync_metrics(self._sync_tree(), group=group)
        else:
            self._cache = self.metric_state
            for name, value in distributed.sync_states_with(self, dist_sync_fn, group=group).items():
                setattr(self, name, value)
            self._is_synced = True

    def _sync_tree(self) -> list["Metric"]:
        """This metric and the metrics nested in it whose states are not synced yet."""
        return [m for m in self.modules() if isinstance(m, Metric) and not m._is_synced]

    def unsync(self, should_unsync: bool = True) -> None:
        """Restore the local states saved by :meth:`sync`."""
        if not should_unsync:
            return
        if not self._is_synced:
            raise MetricUserError("The metric has already been un-synced.")
        for metric in [m for m in self.modules() if isinstance(m, Metric) and m._is_synced]:
            if metric._cache is None:
                raise MetricUserError("The internal cache should exist to unsync the metric.")
            for name, value in metric._cache.items():
                setattr(metric, name, value)
            metric._is_synced = False
            metric._cache = None

    @contextmanager
    def sync_context(
        self,
        dist_sync_fn: Optional[Callable] = None,
        process_group: Optional[Any] = None,
        should_sync: bool = True,
        should_unsync: bool = True,
        distributed_available: Optional[Callable] = None,
    ) -> Generator[None, None, None]:
        """Sync on entry and restore the local states on exit."""
        self.sync(dist_sync_fn, process_group, should_sync, distributed_available)
        try:
            yield
        finally:
            self.unsync(should_unsync=self._is_synced and should_unsync)

    def __setattr__(self, name: str, value: Any) -> None:
        attrs = self.__dict__
        if name in _BOOKKEEPING:
            attrs[name] = value
            return
        defaults = attrs.get("_defaults")
        if defaults is not None and name in defaults and value.__class__ in (Tensor, list):
            # a state is a plain attribute (never a parameter, buffer or module): what nn.Module's
            # __setattr__ would end up doing, without its checks, on every update's reassignment
            attrs[name] = value
            return
        if name in _CONSTANT_ATTRIBUTES and defaults is not None:
            raise RuntimeError(f"Can't change const `{name}`.")
        super().__setattr__(name, value)

    def _filter_kwargs(self, **kwargs: Any) -> dict[str, Any]:
        """Keep the keyword arguments that this metric's ``update`` accepts."""
        if not kwargs:
            return kwargs
        accepted = _update_keywords(type(self))
        if accepted is None:
            return kwargs
        if "sample_weight" in kwargs and "sample_weight" not in accepted and kwargs["sample_weight"] is not None:
            _warn_unweighted(type(self).__name__)
        return {k: v for k, v in kwargs.items() if k in accepted}

    # torchmetrics' signature for the base class; families pick theirs from _plot_methods
    plot = _plot_methods.plot_any

    def __hash__(self) -> int:  # identity: states change, and comparisons build metrics
        return object.__hash__(self)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()" if not self._modules else super().__repr__()

    def __iter__(self) -> Any:
        raise TypeError(f"{type(self).__name__} is not iterable")


Metric.__jit_unused_properties__ = torchscript.property_names(Metric)
_RESERVED_NAMES = frozenset(dir(Metric))


from lightning_metrics.compositional import CompositionalMetric  # noqa: E402, F401  (torchmetrics has it here)
