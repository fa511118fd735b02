"""What each metric's ``update`` receives: input specs, binding, reading a step's output.

A step's output names the metric inputs. The engine reads them once per batch into a *record*,
a flat tuple of values, and every metric (each compute group's leader, each foreign metric) has a
:class:`Binding` that picks its ``update`` arguments out of the record. Bindings are decided once,
from the metrics' ``update`` signatures, not per batch.

Where the inputs come from:

- keys of the step's output dict, by default ``("preds", "target")``: a sequence of keys is
  passed positionally (``inputs=("preds", "target", "indexes")``), a mapping from ``update``'s
  parameter names to output keys as keyword arguments
  (``inputs={"preds": "scores", "target": "relevant", "indexes": "query"}``); either one per
  stage (``{"val": ..., "test": ...}``) or per metric (``{"ndcg": (...), "acc": (...)}``);
- ``extract(outputs, batch)``, which returns a tuple (positional) or a dict (keyword arguments);
- ``update_metrics(stage, *args, **kwargs)`` in the mixin.

What a metric gets (as torchmetrics' ``MetricCollection`` does with keyword arguments): the
positional inputs its ``update`` has room for (a metric of ``update(preds, target)`` in a
collection fed ``(preds, target, indexes)`` gets the first two) and the keyword inputs it names.
A metric whose required parameters are not all supplied, positional inputs that no metric has
room for and keyword inputs that no metric names are errors, raised once when the binding is
made: they name the stage, the metric, its ``update`` signature and what was supplied.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Optional

STAGES = ("train", "val", "test")
_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
_NAMED = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)


@dataclass(frozen=True)
class KeySpec:
    """Output keys passed positionally (``positional``) and as ``(parameter, key)`` keywords.

    >>> KeySpec(("preds", "target"), (("indexes", "query"),)).keys
    ('preds', 'target', 'query')
    """

    positional: tuple[str, ...] = ()
    keywords: tuple[tuple[str, str], ...] = ()

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys([*self.positional, *(key for _, key in self.keywords)]))

    def describe(self) -> str:
        parts = [repr(k) for k in self.positional] + [f"{p}={k!r}" for p, k in self.keywords]
        return f"({', '.join(parts)})"


@dataclass(frozen=True)
class StageInputs:
    """The key specs of one stage: ``default`` for every metric not named in ``per_metric``."""

    default: KeySpec
    per_metric: tuple[tuple[str, KeySpec], ...] = ()
    # given once for every stage (``inputs={"ndcg": (...)}``): a name applies to the stages that
    # have that metric (the engine checks that each name is in some stage)
    every_stage: bool = False

    def spec_of(self, name: str) -> KeySpec:
        return dict(self.per_metric).get(name, self.default)


def parse_inputs(inputs: Any, preds_key: str, target_key: str, stages: Sequence[str]) -> dict[str, StageInputs]:
    """The :class:`StageInputs` of each stage from the ``inputs`` argument.

    >>> parse_inputs(None, "preds", "target", ("val",))["val"].default
    KeySpec(positional=('preds', 'target'), keywords=())
    >>> specs = parse_inputs({"val": ("preds", "target", "indexes")}, "preds", "target", ("train", "val"))
    >>> specs["train"].default.positional, specs["val"].default.positional
    (('preds', 'target'), ('preds', 'target', 'indexes'))
    >>> parse_inputs({"preds": "scores", "target": "y"}, "preds", "target", ("val",))["val"].default.keywords
    (('preds', 'scores'), ('target', 'y'))
    """
    fallback = StageInputs(KeySpec((preds_key, target_key)))
    if inputs is None:
        return {stage: fallback for stage in stages}
    if isinstance(inputs, Mapping) and inputs and all(not isinstance(v, str) for v in inputs.values()):
        if set(inputs) <= set(STAGES):  # per stage
            return {stage: _stage_inputs(inputs[stage], fallback) if stage in inputs else fallback for stage in stages}
        per_metric = _stage_inputs(inputs, fallback)  # per metric, for every stage that has it
        return {stage: StageInputs(per_metric.default, per_metric.per_metric, every_stage=True) for stage in stages}
    return {stage: StageInputs(_key_spec(inputs, "inputs")) for stage in stages}


def _stage_inputs(value: Any, fallback: StageInputs) -> StageInputs:
    if isinstance(value, Mapping) and value and all(not isinstance(v, str) for v in value.values()):
        per_metric = tuple((str(name), _key_spec(spec, f"inputs[{name!r}]")) for name, spec in value.items())
        return StageInputs(fallback.default, per_metric)
    return StageInputs(_key_spec(value, "inputs"))


def _key_spec(value: Any, where: str) -> KeySpec:
    if isinstance(value, Mapping):
        if not value or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
            raise TypeError(
                f"Argument `{where}` must map `update` parameter names to output keys (strings), got {value!r}"
            )
        return KeySpec((), tuple(value.items()))
    if isinstance(value, Sequence) and not isinstance(value, str) and value and all(isinstance(k, str) for k in value):
        if len(set(value)) != len(value):
            raise ValueError(f"Argument `{where}` names a key twice: {list(value)}")
        return KeySpec(tuple(value))
    raise TypeError(
        f"Argument `{where}` must be a sequence of output keys such as ('preds', 'target', 'indexes'), a mapping "
        "from `update` parameter names to output keys, or a dict of those per stage or per metric; "
        f"got {value!r}"
    )


# ------------------------------------------------------------------- binding
@dataclass(frozen=True)
class Binding:
    """Which record values a metric's ``update`` gets: ``positional`` indices, ``keywords`` (name, index).

    >>> Binding((0, 2), (("weight", 1),)).arguments(("p", "w", "t"))
    (('p', 't'), {'weight': 'w'})
    """

    positional: tuple[int, ...]
    keywords: tuple[tuple[str, int], ...] = ()

    def arguments(self, record: tuple) -> tuple[tuple, dict[str, Any]]:
        args = tuple(record[i] for i in self.positional)
        return args, {name: record[i] for name, i in self.keywords}

    def is_identity(self, size: int) -> bool:
        """Whether the metric gets the whole record, positionally and in order."""
        return not self.keywords and self.positional == tuple(range(size))


@dataclass(frozen=True)
class Supplied:
    """What a record holds: ``positional`` labels (keys or positions) and ``keywords`` (parameter names),
    each with its index in the record, and where it came from (for messages)."""

    positional: tuple[tuple[str, int], ...]
    keywords: tuple[tuple[str, int], ...]
    source: str

    def describe(self) -> str:
        parts = [label for label, _ in self.positional] + [f"{name}=..." for name, _ in self.keywords]
        return f"({', '.join(parts)})"


def supplied_by_keys(spec: KeySpec, record_keys: Sequence[str], source: str) -> Supplied:
    """What ``spec`` supplies from a record of the values of ``record_keys``."""
    index = {key: i for i, key in enumerate(record_keys)}
    return Supplied(
        tuple((repr(k), index[k]) for k in spec.positional),
        tuple((param, index[k]) for param, k in spec.keywords),
        source,
    )


def supplied_by_call(num_positional: int, keywords: Sequence[str], source: str) -> Supplied:
    """What a record of ``num_positional`` values then the ``keywords`` values supplies."""
    return Supplied(
        tuple((f"<{i}>", i) for i in range(num_positional)),
        tuple((name, num_positional + i) for i, name in enumerate(keywords)),
        source,
    )


@dataclass(frozen=True)
class UpdateSignature:
    """The parameters of a metric's ``update`` that matter for binding (``None``: any number)."""

    positional: Optional[tuple[str, ...]]  # None with *args
    named: Optional[frozenset]  # keyword-capable names; None with **kwargs
    required: tuple[str, ...]
    text: str

    @classmethod
    def of(cls, metric: Any) -> "UpdateSignature":
        target = _signature_owner(metric)
        try:
            params = list(inspect.signature(target.update).parameters.values())
        except (TypeError, ValueError):  # a builtin or C-implemented update: accept anything
            return cls(None, None, (), "update(...)")
        var_pos = any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in params)
        var_kw = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params)
        positional = tuple(p.name for p in params if p.kind in _POSITIONAL)
        required = tuple(
            p.name for p in params
            if p.default is inspect.Parameter.empty and p.kind not in (inspect.Parameter.VAR_POSITIONAL,
                                                                       inspect.Parameter.VAR_KEYWORD)
        )
        named = None if var_kw else frozenset(p.name for p in params if p.kind in _NAMED)
        owner = "" if target is metric else f" (of the wrapped {type(target).__name__})"
        plain = [p.replace(annotation=inspect.Parameter.empty) for p in params]
        text = f"update{inspect.Signature(plain)}{owner}"
        return cls(None if var_pos else positional, named, required, text)


def _signature_owner(metric: Any) -> Any:
    """The metric whose ``update`` signature says what ``metric`` takes: wrappers of ours that take
    ``(*args, **kwargs)`` pass them on to their first child metric."""
    from lightning_metrics.wrappers._base import WrapperMetric

    seen = 0
    while isinstance(metric, WrapperMetric) and seen < 8:
        params = inspect.signature(metric.update).parameters.values()
        if not all(p.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD) for p in params):
            break
        children = metric._child_metrics()
        if not children:
            break
        metric, seen = children[0], seen + 1
    return metric


def bind(signature: UpdateSignature, supplied: Supplied, describe_metric: str) -> Binding:
    """The :class:`Binding` of one metric, or a ``ValueError`` that says what is missing."""
    capacity = len(supplied.positional) if signature.positional is None else len(signature.positional)
    positional = supplied.positional[:capacity]
    filled = set(signature.positional[: len(positional)]) if signature.positional is not None else set()
    keywords = tuple(
        (name, i) for name, i in supplied.keywords
        if (signature.named is None or name in signature.named) and name not in filled
    )
    filled |= {name for name, _ in keywords}
    if signature.positional is None:  # *args: nothing can be checked
        missing: list[str] = []
    else:
        missing = [name for name in signature.required if name not in filled]
    if missing:
        raise ValueError(
            f"{describe_metric} takes `{signature.text}`, but {supplied.source} supplies "
            f"{supplied.describe()}: {', '.join(repr(m) for m in missing)} "
            f"{'is' if len(missing) == 1 else 'are'} missing."
        )
    return Binding(tuple(i for _, i in positional), keywords)


def check_all_used(bindings: Sequence[Binding], supplied: Supplied, where: str) -> None:
    """Raise if some supplied input reaches no metric (a typo or a wrong arity, never silently dropped)."""
    used = {i for b in bindings for i in (*b.positional, *(i for _, i in b.keywords))}
    unused = [label for label, i in (*supplied.positional, *supplied.keywords) if i not in used]
    if unused and bindings:
        raise ValueError(
            f"{where}: {supplied.source} supplies {supplied.describe()}, but no metric takes "
            f"{', '.join(unused)}; check the names and the number of inputs."
        )


def join_keys(keys: Sequence[str]) -> str:
    """``'a'``, ``'a' and 'b'``, ``'a', 'b' and 'c'``.

    >>> join_keys(["preds", "target", "indexes"])
    "'preds', 'target' and 'indexes'"
    """
    quoted = [repr(k) for k in keys]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} and {quoted[-1]}"


# ------------------------------------------------------------- the engine's reads
def describe_output(outputs: Any) -> str:
    """What a step returned, for messages."""
    if outputs is None:
        return "None (the step returned nothing)"
    if isinstance(outputs, Mapping):
        return f"a dict with keys {sorted(map(str, outputs))}"
    return f"a {type(outputs).__name__}"


def bind_keys(template: Any, stage: str, spec: StageInputs, with_loss: bool) -> tuple[tuple[str, ...], tuple]:
    """The output keys a stage reads and the layout of their records; binds ``template``'s metrics
    (a :class:`~.stage_metrics.StageMetrics`) to them, so a misfit raises now."""
    names = [n for n in template.names() if template.loss_metric is None or n != "loss"]
    unknown = [name for name, _ in spec.per_metric if name not in names]
    if unknown and not spec.every_stage:
        raise ValueError(f"Argument `inputs` names metrics {unknown} that the {stage!r} stage does not have: {names}")
    keys = tuple(dict.fromkeys(k for name in names for k in spec.spec_of(name).keys))
    layout = ("keys", len(keys), stage, with_loss)
    source = f"`inputs` (the step output's keys {join_keys(keys)})"
    template.where = f"{stage!r} metrics"
    template.plan(layout, _SuppliedByKeys(spec, keys, source))
    return keys, layout


class _SuppliedByKeys:
    """``name -> Supplied`` for a keys layout; a class, not a closure, so that a callback whose
    stages remember it still pickles (``ddp_spawn``)."""

    def __init__(self, spec: StageInputs, keys: tuple[str, ...], source: str) -> None:
        self.spec, self.keys, self.source = spec, keys, source

    def __call__(self, name: str) -> Supplied:
        return supplied_by_keys(self.spec.spec_of(name), self.keys, self.source)


def extracted_record(found: Any, with_loss: bool, owner: str) -> tuple[tuple, tuple]:
    """The record and layout of what ``extract`` returned: a tuple (positional) or a dict (keywords)."""
    if isinstance(found, Mapping):
        return tuple(found.values()), ("call", len(found), tuple(found), "`extract`", with_loss)
    if not isinstance(found, (tuple, list)):
        raise TypeError(
            f"{owner}: `extract` must return a tuple such as (preds, target) or a dict of keyword "
            f"arguments such as {{'preds': ..., 'target': ..., 'indexes': ...}}, got {type(found).__name__}"
        )
    return tuple(found), ("call", len(found), (), "`extract`", with_loss)


def missing_keys_error(owner: str, stage: str, step: str, keys: Sequence[str], outputs: Any) -> ValueError:
    wanted = "{" + ", ".join(f"{k!r}: ..." for k in keys) + "}"
    return ValueError(
        f"{owner}: the {stage!r} metrics look for the keys {join_keys(keys)} in what `{step}` returns, but it "
        f"returned {describe_output(outputs)}. Return {wanted} from the step, set `inputs` (or "
        "`preds_key`/`target_key`), or pass `extract=callable(outputs, batch) -> (preds, target)`."
    )
