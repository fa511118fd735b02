"""Update time per call: 8 multiclass count metrics in one collection, vs torchmetrics and a roofline.

The collection holds accuracy, precision, recall, F1, MCC, Jaccard, Cohen's kappa and the
confusion matrix of the same multiclass input. lightning_metrics shares ONE confusion-matrix state
(one bincount per batch); torchmetrics runs with compute groups on. The roofline is the bare
statistic: ``state += bincount(target * C + max(dim=1).indices)`` into an int64 (C, C) state
(``max().indices`` is argmax, faster on CPU).

Run: ``python benchmarks/classification_counts.py [--repeats 200] [--threads 1]``
"""

from __future__ import annotations

import argparse
import warnings

import torch
import torchmetrics
import torchmetrics.classification as tmc
from _common import eight, per_call_us

import lightning_metrics
import lightning_metrics.classification as lmc


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=200)
    parser.add_argument("--threads", type=int, default=1, help="torch intra-op threads (1: stable on shared CPUs)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    warnings.filterwarnings("ignore")
    print(f"torch {torch.__version__}, torchmetrics {torchmetrics.__version__}, threads {torch.get_num_threads()}")
    header = (
        f"{'C':>5} {'B':>5} | {'roofline':>9} {'lm':>9} {'lm val':>9} {'tm':>9} {'tm noval':>9} | "
        f"{'lm/roof':>7} {'tm/lm':>6} {'tm/lm val':>9}"
    )
    print("update time per call, microseconds (median); lm = validate_args=False, 'val' = validate_args=True")
    print(header)
    print("-" * len(header))
    for num_classes in (10, 100, 1000):
        for batch in (256, 4096):
            g = torch.Generator().manual_seed(0)
            logits = torch.randn(batch, num_classes, generator=g)
            target = torch.randint(0, num_classes, (batch,), generator=g)
            state = torch.zeros(num_classes, num_classes, dtype=torch.long)

            def roofline() -> None:
                labels = target * num_classes + logits.max(1).indices
                state.view(-1).add_(torch.bincount(labels, minlength=num_classes**2))

            ours = lightning_metrics.MetricCollection(eight(lmc, num_classes, validate_args=False))
            ours_val = lightning_metrics.MetricCollection(eight(lmc, num_classes, validate_args=True))
            theirs = torchmetrics.MetricCollection(eight(tmc, num_classes, validate_args=True), compute_groups=True)
            theirs_noval = torchmetrics.MetricCollection(
                eight(tmc, num_classes, validate_args=False), compute_groups=True
            )
            t_roof = per_call_us(roofline, args.repeats)
            t_ours = per_call_us(lambda: ours.update(logits, target), args.repeats)
            t_ours_val = per_call_us(lambda: ours_val.update(logits, target), args.repeats)
            t_tm = per_call_us(lambda: theirs.update(logits, target), args.repeats)
            t_tm_noval = per_call_us(lambda: theirs_noval.update(logits, target), args.repeats)
            for a, b in ((ours, theirs), (ours_val, theirs_noval)):  # same values after all those updates
                ra, rb = a.compute(), b.compute()
                for k in ra:
                    assert torch.allclose(ra[k].double(), rb[k].double(), rtol=1e-4, atol=1e-6, equal_nan=True), k
            print(
                f"{num_classes:>5} {batch:>5} | {t_roof:>9.1f} {t_ours:>9.1f} {t_ours_val:>9.1f} {t_tm:>9.1f} "
                f"{t_tm_noval:>9.1f} | {t_ours / t_roof:>7.2f} {t_tm / t_ours:>6.1f} {t_tm / t_ours_val:>9.1f}"
            )


if __name__ == "__main__":
    main()
