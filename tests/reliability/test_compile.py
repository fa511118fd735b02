"""``torch.compile(metric.update, fullgraph=True)`` with ``validate_args=False``: no graph break, no
recompilation after the second call over 10 updates of one shape (``torch._dynamo`` counters), and the
states equal eager updates.

The subset of the registry covered: the classification, regression and aggregation entries (about 25 s on
two cores), always including the four classes issue 22 named. Where compiling gets slow, a rotation covers a
part per run: the entries whose position in the sorted list is ``LM_COMPILE_SHARD`` modulo
``LM_COMPILE_SHARDS`` (default 1: all). Graphs are captured with the ``eager`` backend: what is checked is
the capture (graph breaks, guards), not code generation. Entries that keep list states (exact curves,
``CatMetric``, Kendall) grow a list per update, on which dynamo guards: they are skipped with that reason,
as are the few listed in ``NOT_COMPILABLE``.

Module int attributes (``_update_count``) are left unspecialised
(``torch._dynamo.config.allow_unspec_int_on_nn_module``), else every update recompiles, as it does for
torchmetrics' metrics.
"""

from __future__ import annotations

import os
import warnings

import pytest
import torch

from tests.reliability._registry import ENTRIES, Entry, assert_close, batches

dynamo = pytest.importorskip("torch._dynamo")
if not hasattr(torch, "compile"):  # pragma: no cover
    pytest.skip("torch.compile is unavailable", allow_module_level=True)

from torch._dynamo.utils import counters  # noqa: E402

if not hasattr(dynamo.config, "allow_unspec_int_on_nn_module"):  # torch before 2.5 (the floor: 2.4)
    pytest.skip(
        "this torch cannot leave a module's int attributes unspecialised: every update recompiles "
        "(torchmetrics' metrics too)",
        allow_module_level=True,
    )

NAMED = ("BinaryAUROC[thresholds=5]", "MultilabelAveragePrecision[thresholds=5]", "MulticlassCalibrationError",
         "SumMetric")
SHARDS = int(os.environ.get("LM_COMPILE_SHARDS", "1"))
SHARD = int(os.environ.get("LM_COMPILE_SHARD", "0"))
# graph capture cannot follow these updates without a guard that changes per update (documented limits)
NOT_COMPILABLE = {
    "MeanSquaredLogError": "rejects negative inputs on every update (torchmetrics' signature has no validate_args)",
    "TweedieDevianceScore": "rejects inputs outside the power's domain on every update (no validate_args)",
    "R2Score[raw_values]": "infers the number of outputs from the first 2-D batch (reads whether it saw data)",
    "RunningMean": "a window over the last updates: its position is a Python int the graph specialises on",
    "RunningSum": "a window over the last updates: its position is a Python int the graph specialises on",
}
LIST_STATES = "keeps a list state that grows by one tensor per update: dynamo guards on its length (recompiles)"


def _keys() -> list[str]:
    pool = sorted(k for k, e in ENTRIES.items() if e.package in ("classification", "regression", "aggregation"))
    picked = [k for i, k in enumerate(pool) if i % SHARDS == SHARD % SHARDS]
    return sorted(set(picked) | {k for k in NAMED if k in ENTRIES})


@pytest.mark.parametrize("key", _keys())
def test_update_compiles_without_breaks_or_recompiles(key: str) -> None:
    entry = ENTRIES[key].unchecked()
    if key in NOT_COMPILABLE or entry.name in NOT_COMPILABLE:
        pytest.skip(NOT_COMPILABLE.get(key, NOT_COMPILABLE.get(entry.name)))
    if any(isinstance(default, list) for m in entry.build().modules() for default in getattr(m, "_defaults", {}).values()):
        pytest.skip(LIST_STATES)
    with dynamo.config.patch(allow_unspec_int_on_nn_module=True):
        _check(key, entry)


def _check(key: str, entry: Entry) -> None:
    dynamo.reset()
    counters.clear()
    compiled, eager = entry.build(), entry.build()
    data = batches(entry.kind, (8,) * 10, seed=1)
    update = torch.compile(compiled.update, fullgraph=True, backend="eager")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        graphs_after_two = None
        for i, batch in enumerate(data):
            update(*batch)
            eager.update(*batch)
            if i == 1:
                graphs_after_two = counters["stats"]["unique_graphs"]
        assert counters["stats"]["unique_graphs"] == graphs_after_two, f"{key} recompiled: {dict(counters['stats'])}"
        assert not counters["graph_break"], dict(counters["graph_break"])
        for name, value in eager.metric_state.items():
            assert_close(getattr(compiled, name), value, rtol=1e-6, atol=1e-6, path=f"{key}.{name}")
        assert_close(compiled.compute(), eager.compute(), rtol=1e-6, atol=1e-6, path=key)
