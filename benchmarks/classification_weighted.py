"""Update time per call with ``sample_weight`` (issue 39): count metrics weighted beside their unweighted path
and torchmetrics' unweighted one (torchmetrics takes no weights).

Rows: the 8-metric multiclass collection of ``classification_counts.py`` (accuracy, precision, recall, F1,
MCC, Jaccard, Cohen's kappa, confusion matrix: one shared confusion matrix), and lone metrics on the other
count statistics (per-class one-vs-rest counts, binary and multilabel bits, right labels and labels).
Columns: torchmetrics unweighted (``validate_args=True``, compute groups on), ours unweighted and weighted,
each with ``validate_args=False`` and ``True`` (the weighted check reads the weights back once per batch).
The candidates take turns and are timed in this thread's CPU time, so the drifts of a shared machine fall
on all of them alike. After the timing every weighted metric, given weights of 1, equals the unweighted one.

Run: ``python benchmarks/classification_weighted.py [--repeats 100] [--threads 1]``
"""

from __future__ import annotations

import argparse
import warnings
from typing import Any, Callable

import torch
import torchmetrics
import torchmetrics.classification as tmc
from _common import cpu_us, eight, interleaved

import lightning_metrics
import lightning_metrics.classification as lmc


def _cases(batch: int) -> list[tuple[str, Callable[[Any, bool], Any], tuple]]:
    """(label, make(module, validate_args), inputs) for each row."""
    g = torch.Generator().manual_seed(0)
    rows = []
    for num_classes in (10, 1000):
        logits = torch.randn(batch, num_classes, generator=g)
        target = torch.randint(0, num_classes, (batch,), generator=g)
        rows.append((
            f"8-metric collection, C={num_classes}",
            lambda m, v, c=num_classes: (lightning_metrics if m is lmc else torchmetrics).MetricCollection(
                eight(m, c, validate_args=v), **({} if m is lmc else {"compute_groups": True})),
            (logits, target),
        ))
    logits = torch.randn(batch, 1000, generator=g)
    target = torch.randint(0, 1000, (batch,), generator=g)
    rows.append(("MulticlassF1Score macro, C=1000 (one-vs-rest counts)",
                 lambda m, v: m.MulticlassF1Score(num_classes=1000, validate_args=v), (logits, target)))
    rows.append(("MulticlassAccuracy micro, C=1000 (right labels)",
                 lambda m, v: m.MulticlassAccuracy(num_classes=1000, average="micro", validate_args=v),
                 (logits, target)))
    probs = torch.rand(batch, generator=g)
    rows.append(("BinaryF1Score", lambda m, v: m.BinaryF1Score(validate_args=v),
                 (probs, torch.randint(0, 2, (batch,), generator=g))))
    ml = torch.rand(batch, 20, generator=g)
    rows.append(("MultilabelF1Score, L=20", lambda m, v: m.MultilabelF1Score(num_labels=20, validate_args=v),
                 (ml, torch.randint(0, 2, (batch, 20), generator=g))))
    return rows


def _same(a: Any, b: Any) -> None:
    ra, rb = a.compute(), b.compute()
    ra, rb = (ra, rb) if isinstance(ra, dict) else ({"": ra}, {"": rb})
    for key in ra:
        assert torch.allclose(ra[key].double(), rb[key].double(), rtol=1e-5, atol=1e-6, equal_nan=True), key


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=100)
    parser.add_argument("--batch", type=int, default=4096)
    parser.add_argument("--threads", type=int, default=1, help="torch intra-op threads (1: stable on shared CPUs)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    warnings.filterwarnings("ignore")
    print(f"torch {torch.__version__}, torchmetrics {torchmetrics.__version__}, threads {torch.get_num_threads()}, "
          f"batch {args.batch}")
    print("update time per call, CPU microseconds (median of interleaved calls); noval = validate_args=False")
    header = (f"{'case':<52} | {'tm':>8} | {'lm noval':>8} {'lm w noval':>10} | {'lm val':>8} {'lm w val':>8} | "
              f"{'w/unw noval':>11} {'tm/lm w val':>11}")
    print(header)
    print("-" * len(header))
    for label, make, inputs in _cases(args.batch):
        weight = torch.rand(inputs[1].shape[0], dtype=torch.float64, generator=torch.Generator().manual_seed(1))
        ones = torch.ones_like(weight)
        metrics = {
            "tm": make(tmc, True),
            "lm": make(lmc, False),
            "lm_w": make(lmc, False),
            "lm_val": make(lmc, True),
            "lm_w_val": make(lmc, True),
        }
        calls = {
            "tm": lambda: metrics["tm"].update(*inputs),
            "lm": lambda: metrics["lm"].update(*inputs),
            "lm_w": lambda: metrics["lm_w"].update(*inputs, sample_weight=weight),
            "lm_val": lambda: metrics["lm_val"].update(*inputs),
            "lm_w_val": lambda: metrics["lm_w_val"].update(*inputs, sample_weight=weight),
        }
        t = interleaved(calls, args.repeats, clock_us=cpu_us)
        print(f"{label:<52} | {t['tm']:>8.1f} | {t['lm']:>8.1f} {t['lm_w']:>10.1f} | {t['lm_val']:>8.1f} "
              f"{t['lm_w_val']:>8.1f} | {t['lm_w'] / t['lm']:>10.2f}x {t['tm'] / t['lm_w_val']:>10.2f}x")
        weighted, plain, theirs = make(lmc, True), make(lmc, True), make(tmc, True)
        weighted.update(*inputs, sample_weight=ones)
        plain.update(*inputs)
        theirs.update(*inputs)
        _same(weighted, plain)
        _same(weighted, theirs)


if __name__ == "__main__":
    main()
