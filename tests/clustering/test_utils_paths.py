"""torchmetrics' clustering helpers at their paths (``functional.clustering.utils`` and
``functional.clustering.adjusted_mutual_info_score.expected_mutual_info_score``) against
torchmetrics 1.9 as the oracle: one table of calls, run on generated labelings (hundreds of
samples, dozens of labels, arbitrary and huge ids, single-cluster and all-singleton labelings).
Values agree to 1e-6 with the same dtype, shape and layout; invalid calls raise the same type.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

import pytest
import torch
import torchmetrics.functional.clustering.utils as tm_utils

import lightning_metrics.functional.clustering.utils as lm_utils
from tests._outcomes import assert_same_outcome, outcome
from tests._seeds import keyed_generator

# ``import a.b.adjusted_mutual_info_score as m`` would give the function of that name (in both packages)
tm_ami = importlib.import_module("torchmetrics.functional.clustering.adjusted_mutual_info_score")
lm_ami = importlib.import_module("lightning_metrics.functional.clustering.adjusted_mutual_info_score")
pytestmark = pytest.mark.filterwarnings("ignore:Sparse invariant checks:UserWarning")


def _labels(key: str, n: int, k_preds: int, k_target: int, *, noise: float = 1.0) -> tuple[torch.Tensor, torch.Tensor]:
    g = keyed_generator(key)
    target = torch.randint(0, k_target, (n,), generator=g)
    preds = torch.randint(0, k_preds, (n,), generator=g)
    keep = torch.rand(n, generator=g) > noise  # correlated: keep the target's label (mod k_preds)
    return torch.where(keep, target % k_preds, preds), target


def _label_cases() -> dict[str, tuple[torch.Tensor, torch.Tensor]]:
    cases = {
        "random-500": _labels("random-500", 500, 40, 30),
        "correlated-800": _labels("correlated-800", 800, 25, 25, noise=0.3),
        "few-vs-many": _labels("few-vs-many", 400, 3, 120),
        "tiny": (torch.tensor([3, 3]), torch.tensor([1, 2])),
    }
    p, t = _labels("huge-ids", 300, 20, 15)
    cases["huge-ids"] = (p * 1_000_003 - 5_000_000_000_000, -t * 77_777)
    p, t = _labels("narrow", 300, 9, 7)
    cases["int16-int8"] = (p.to(torch.int16), t.to(torch.int8))
    cases["single-cluster"] = (torch.zeros(200, dtype=torch.long), _labels("single", 200, 2, 10)[1])
    cases["singletons"] = (torch.arange(150), _labels("singletons", 150, 2, 6)[1])
    return cases


LABELS = _label_cases()
# EMI cases stay moderate: torchmetrics loops in Python over every feasible count of every cell
EMI_LABELS = {k: LABELS[k] for k in ("few-vs-many", "tiny", "int16-int8", "single-cluster")}
EMI_LABELS["random-300"] = _labels("random-300", 300, 12, 9)


def _positive(key: str, n: int = 300) -> torch.Tensor:
    g = keyed_generator(key)
    x = torch.rand(n, generator=g) * 5 + 0.01
    x[::7] = x[3]  # ties
    return x


Call = tuple[str, Callable[[object], object]]
# (id, call(module)): the same call against torchmetrics' module and ours
CALLS: list[Call] = []
for key, (p, t) in LABELS.items():
    CALLS += [
        (f"contingency[{key}]", lambda m, p=p, t=t: m.calculate_contingency_matrix(p, t)),
        (f"contingency-eps[{key}]", lambda m, p=p, t=t: m.calculate_contingency_matrix(p, t, eps=1e-16)),
        (f"contingency-eps0.5-swapped[{key}]", lambda m, p=p, t=t: m.calculate_contingency_matrix(t, p, eps=0.5)),
        (f"contingency-eps0[{key}]", lambda m, p=p, t=t: m.calculate_contingency_matrix(p, t, eps=0.0)),
        (f"contingency-sparse[{key}]", lambda m, p=p, t=t: m.calculate_contingency_matrix(p, t, sparse=True)),
        (f"entropy-target[{key}]", lambda m, t=t: m.calculate_entropy(t)),
        (f"entropy-preds[{key}]", lambda m, p=p: m.calculate_entropy(p)),
        (f"pairs[{key}]", lambda m, p=p, t=t: m.calculate_pair_cluster_confusion_matrix(p, t)),
        (f"pairs-swapped[{key}]", lambda m, p=p, t=t: m.calculate_pair_cluster_confusion_matrix(preds=t, target=p)),
        (f"check-labels[{key}]", lambda m, p=p, t=t: m.check_cluster_labels(p, t)),
    ]
    table = lm_utils.calculate_contingency_matrix(p, t)  # (equal to torchmetrics': checked above)
    for dtype in (torch.long, torch.float32, torch.float64):
        CALLS.append((
            f"pairs-from-table-{dtype}[{key}]",
            lambda m, c=table.to(dtype): m.calculate_pair_cluster_confusion_matrix(contingency=c),
        ))
    CALLS.append((
        f"pairs-table-wins-over-preds[{key}]",
        lambda m, p=p, c=table: m.calculate_pair_cluster_confusion_matrix(preds=p, contingency=c),
    ))
for key, (p, t) in EMI_LABELS.items():
    table = lm_utils.calculate_contingency_matrix(p, t)  # (equal to torchmetrics': checked above)
    CALLS += [
        (f"emi[{key}]", lambda m, c=table, n=p.numel(): m.expected_mutual_info_score(c, n)),
        (f"emi-transposed[{key}]", lambda m, c=table.T, n=p.numel(): m.expected_mutual_info_score(c, n)),
    ]
small = lm_utils.calculate_contingency_matrix(*EMI_LABELS["random-300"])
CALLS += [
    ("emi-float32-table", lambda m, c=small.float(): m.expected_mutual_info_score(c, 300)),
    ("emi-float64-table", lambda m, c=small.double(): m.expected_mutual_info_score(c, 300)),
    ("emi-eps-table", lambda m, c=small + 1e-3: m.expected_mutual_info_score(c, 300)),
    ("emi-single-row", lambda m: m.expected_mutual_info_score(torch.tensor([[4, 5, 6]]), 15)),
    ("entropy-empty", lambda m: m.calculate_entropy(torch.zeros(0, dtype=torch.long))),
    ("entropy-floats", lambda m: m.calculate_entropy(_positive("entropy-floats").round())),
    ("entropy-single", lambda m: m.calculate_entropy(torch.full((9,), 4))),
    ("contingency-empty", lambda m: m.calculate_contingency_matrix(torch.zeros(0).long(), torch.zeros(0).long())),
]
for mean in ("min", "geometric", "arithmetic", "max", 1, 2, 3, -1, 0.5):
    x = _positive("means")
    CALLS += [
        (f"mean-{mean}", lambda m, x=x, q=mean: m.calculate_generalized_mean(x, q)),
        (f"mean-{mean}-float64", lambda m, x=x.double(), q=mean: m.calculate_generalized_mean(x, q)),
        (f"mean-{mean}-with-zero", lambda m, x=torch.cat([x, torch.zeros(1)]), q=mean: m.calculate_generalized_mean(x, q)),
    ]
for mean in ("min", "geometric", "max", "arithmetic", 2):  # integer input: torch's own dtype rules (and errors)
    prefix = "bad-" if mean in ("arithmetic", 2) else ""  # torch.mean refuses int64
    CALLS.append((f"{prefix}mean-{mean}-long", lambda m, q=mean: m.calculate_generalized_mean(torch.tensor([1, 3, 2, 2, 1]), q)))
for atol in (1e-5, 1e-3, 0.0):
    for values in ([0.5, 0.0, -1e-7], [1.0, -1e-4], [-2.0], [3.0, 4.0]):
        CALLS.append((f"nonneg-{values}-{atol}", lambda m, v=values, a=atol: m.is_nonnegative(torch.tensor(v), atol=a)))
# torchmetrics' private checks, served too
for method in ("min", "geometric", "arithmetic", "max", "bad-harmonic", "bad-None"):
    CALLS.append((f"{'bad-' if method.startswith('bad') else ''}average-method-{method}",
                  lambda m, a=method: m._validate_average_method_arg(None if a == "bad-None" else a.split("bad-")[-1])))
for name, x in {"long": torch.arange(3), "int8": torch.arange(3).to(torch.int8), "bool": torch.ones(2).bool(),
                "float": torch.zeros(3), "complex": torch.zeros(2) * 1j, "bad-2d": torch.zeros(2, 2).long()}.items():
    CALLS.append((f"{'bad-' if name.startswith('bad') else ''}discrete-{name}", lambda m, x=x: m._is_real_discrete_label(x)))
for name, (data, labels) in {
    "ok": (torch.zeros(5, 3), torch.zeros(5).long()), "float-labels": (torch.zeros(5, 3), torch.zeros(5)),
    "count-mismatch": (torch.zeros(5, 3), torch.zeros(4).long()), "bad-1d-data": (torch.zeros(5), torch.zeros(5).long()),
    "bad-int-data": (torch.zeros(5, 3).long(), torch.zeros(5).long()), "bad-2d-labels": (torch.zeros(5, 3), torch.zeros(5, 1)),
}.items():
    CALLS.append((f"{'bad-' if name.startswith('bad') else ''}intrinsic-data-{name}",
                  lambda m, d=data, lab=labels: m._validate_intrinsic_cluster_data(d, lab)))
for num_labels, num_samples in ((2, 10), (9, 10), (1, 10), (10, 10), (0, 5), (3, 2)):
    bad = "" if 1 < num_labels < num_samples else "bad-"
    CALLS.append((f"{bad}labels-to-samples-{num_labels}-{num_samples}",
                  lambda m, a=num_labels, b=num_samples: m._validate_intrinsic_labels_to_samples(a, b)))
# invalid calls: both raise, the same type (ours may be a subclass of several)
CALLS += [
    ("bad-contingency-eps-sparse", lambda m: m.calculate_contingency_matrix(torch.arange(3), torch.arange(3), 0.1, True)),
    ("bad-contingency-2d", lambda m: m.calculate_contingency_matrix(torch.zeros(2, 2).long(), torch.zeros(4).long())),
    ("bad-mean-negative", lambda m: m.calculate_generalized_mean(torch.tensor([1.0, -1.0]), "min")),
    ("bad-mean-complex", lambda m: m.calculate_generalized_mean(torch.tensor([1j]), "min")),
    ("bad-mean-name", lambda m: m.calculate_generalized_mean(torch.tensor([1.0]), "harmonic")),
    ("bad-labels-float", lambda m: m.check_cluster_labels(torch.tensor([0.0, 1.0]), torch.tensor([0, 1]))),
    ("bad-labels-2d", lambda m: m.check_cluster_labels(torch.zeros(2, 2).long(), torch.zeros(2, 2).long())),
    ("bad-labels-shapes", lambda m: m.check_cluster_labels(torch.zeros(3).long(), torch.zeros(4).long())),
    ("bad-pairs-nothing", lambda m: m.calculate_pair_cluster_confusion_matrix()),
    ("bad-pairs-everything", lambda m: m.calculate_pair_cluster_confusion_matrix(
        torch.arange(3), torch.arange(3), torch.eye(3).long())),
    ("bad-pairs-preds-only", lambda m: m.calculate_pair_cluster_confusion_matrix(preds=torch.arange(3))),
]


@pytest.mark.parametrize(("name", "call"), CALLS, ids=[c[0] for c in CALLS])
def test_matches_torchmetrics(name: str, call: Callable) -> None:
    emi = name.startswith("emi")
    theirs = outcome(lambda: call(tm_ami if emi else tm_utils))
    ours = outcome(lambda: call(lm_ami if emi else lm_utils))
    if not name.startswith("bad-"):
        assert not isinstance(theirs, Exception), f"{name}: the oracle raised {theirs!r}"
    assert_same_outcome(ours, theirs, name)


def test_expected_mutual_info_is_bitwise_torchmetrics_on_a_large_table() -> None:
    """The terms are torchmetrics' float32 values summed in its order: not merely close, equal."""
    preds, target = _labels("emi-large", 600, 30, 25)
    table = tm_utils.calculate_contingency_matrix(preds, target)
    assert lm_ami.expected_mutual_info_score(table, 600).item() == tm_ami.expected_mutual_info_score(table, 600).item()


def test_the_paths_serve_our_own_objects() -> None:
    from lightning_metrics.functional.clustering.adjusted_mutual_info_score import (
        adjusted_mutual_info_score,
        expected_mutual_info_score,
    )
    from lightning_metrics.functional.clustering.utils import (  # noqa: F401
        calculate_contingency_matrix,
        calculate_entropy,
        calculate_generalized_mean,
        calculate_pair_cluster_confusion_matrix,
        check_cluster_labels,
        is_nonnegative,
    )

    for obj in (expected_mutual_info_score, adjusted_mutual_info_score, calculate_entropy):
        assert obj.__module__.startswith("lightning_metrics."), obj
    assert sorted(lm_utils.__all__) == sorted(
        n for n, v in vars(tm_utils).items() if callable(v) and not n.startswith("_")
        and getattr(v, "__module__", "") == tm_utils.__name__
    )
