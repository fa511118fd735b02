"""Issue 22's table: lone metrics and the 8-metric collection (update and forward), ours and torchmetrics in one
process beside a roofline, then every multiclass count metric alone at C in {10, 1000}, B in {256, 4096}.

Each figure is the median of interleaved repeats (every candidate runs once per round, so drifts of a shared
CPU hit all alike), in microseconds per call, on one thread, with default arguments (as a new user would),
timed by this thread's CPU time (``--clock cpu``, the default: time other processes take is not counted) or
by the wall clock (``--clock wall``).
Roofline: the bare statistic in plain torch (MSE: ``sum((p - t)^2)``; R2: ``sum t``, ``sum t^2``,
``sum (t - p)^2``; accuracy: one argmax and one count; the 8 count metrics: one bincount of C^2 bins).

Run: ``python benchmarks/single_metric.py [--repeats 200]``
"""

from __future__ import annotations

import argparse
import warnings

import torch
import torchmetrics
import torchmetrics.classification as tmc
import torchmetrics.regression as tmr
from _common import cpu_us, eight, interleaved, wall_us

import lightning_metrics
import lightning_metrics.classification as lmc
import lightning_metrics.regression as lmr


CLOCK_US = cpu_us  # --clock: this thread's CPU time (the default) or the wall clock


def timed(candidates: dict, repeats: int) -> dict[str, float]:
    return interleaved(candidates, repeats, clock_us=CLOCK_US)


def row(work: str, tm: float, ours: float, roof: float, unit: str = "us") -> None:
    print(f"{work:<58} {tm:>10.1f} {ours:>10.1f} {roof:>10.1f} {ours / tm:>8.2f} {ours / roof:>8.2f}  {unit}")


def lone_regression(repeats: int) -> None:
    g = torch.Generator().manual_seed(0)
    target = torch.randn(4096, generator=g)
    preds = target + 0.1 * torch.randn(4096, generator=g)
    sse = torch.zeros((), dtype=torch.float64)
    sums = torch.zeros(3)

    def mse_roof() -> None:
        sse.add_(torch.sum((preds - target) ** 2))

    def r2_roof() -> None:
        e = target - preds
        sums.add_(torch.stack([target.sum(), (target * target).sum(), (e * e).sum()]))

    for name, roof in (("MeanSquaredError", mse_roof), ("R2Score", r2_roof), ("MeanAbsoluteError", None),
                       ("ExplainedVariance", None), ("PearsonCorrCoef", None)):
        ours, theirs = getattr(lmr, name)(), getattr(tmr, name)()
        cands = {"ours": lambda: ours.update(preds, target), "tm": lambda: theirs.update(preds, target)}
        if roof is not None:
            cands["roof"] = roof
        t = timed(cands, repeats)
        row(f"{name} alone, update, B=4096", t["tm"], t["ours"], t.get("roof", float("nan")))
        torch.testing.assert_close(ours.compute().double(), theirs.compute().double(), rtol=1e-4, atol=1e-5)


def lone_accuracy(repeats: int) -> None:
    g = torch.Generator().manual_seed(0)
    logits = torch.randn(4096, 1000, generator=g)
    target = torch.randint(0, 1000, (4096,), generator=g)
    correct = torch.zeros((), dtype=torch.long)

    def roof() -> None:
        correct.add_((logits.max(1).indices == target).sum())

    for average in ("micro", "macro"):
        ours = lmc.MulticlassAccuracy(num_classes=1000, average=average)
        theirs = tmc.MulticlassAccuracy(num_classes=1000, average=average)
        t = timed(
            {"ours": lambda: ours.update(logits, target), "tm": lambda: theirs.update(logits, target), "roof": roof},
            max(repeats // 4, 10),
        )
        row(f"MulticlassAccuracy({average}) alone, update, C=1000, B=4096", t["tm"], t["ours"], t["roof"])


def collections(repeats: int) -> None:
    for num_classes in (10, 1000):
        g = torch.Generator().manual_seed(0)
        logits = torch.randn(4096, num_classes, generator=g)
        target = torch.randint(0, num_classes, (4096,), generator=g)
        state = torch.zeros(num_classes * num_classes, dtype=torch.long)

        def roof() -> None:
            state.add_(torch.bincount(target * num_classes + logits.max(1).indices, minlength=num_classes**2))

        ours = lightning_metrics.MetricCollection(eight(lmc, num_classes))
        theirs = torchmetrics.MetricCollection(eight(tmc, num_classes), compute_groups=True)
        reps = repeats if num_classes == 10 else max(repeats // 4, 10)
        t = timed(
            {
                "ours": lambda: ours.update(logits, target),
                "tm": lambda: theirs.update(logits, target),
                "ours_fwd": lambda: ours(logits, target),
                "tm_fwd": lambda: theirs(logits, target),
                "roof": roof,
            },
            reps,
        )
        row(f"8-metric collection update, C={num_classes}, B=4096", t["tm"], t["ours"], t["roof"])
        tm_ratio, our_ratio = t["tm_fwd"] / t["tm"], t["ours_fwd"] / t["ours"]
        print(
            f"{f'8-metric collection forward / its update, C={num_classes}, B=4096':<58} {tm_ratio:>9.2f}x "
            f"{our_ratio:>9.2f}x {1.0:>9.2f}x   (forward: tm {t['tm_fwd']:.0f} us, ours {t['ours_fwd']:.0f} us)"
        )


COUNT_METRICS = (
    "MulticlassAccuracy",
    "MulticlassPrecision",
    "MulticlassRecall",
    "MulticlassF1Score",
    "MulticlassSpecificity",
    "MulticlassStatScores",
    "MulticlassJaccardIndex",
    "MulticlassMatthewsCorrCoef",
    "MulticlassCohenKappa",
    "MulticlassConfusionMatrix",
    "MulticlassExactMatch",
    "MulticlassHammingDistance",
)


def lone_counts(repeats: int) -> None:
    print(f"\n{'count metric alone, update (defaults)':<40} {'C':>5} {'B':>5} {'tm':>9} {'ours':>9} {'roof':>9} "
          f"{'ours/tm':>8} {'ours/roof':>9}")
    for num_classes in (10, 1000):
        for batch in (256, 4096):
            g = torch.Generator().manual_seed(0)
            logits = torch.randn(batch, num_classes, generator=g)
            target = torch.randint(0, num_classes, (batch,), generator=g)
            hist = torch.zeros(3 * num_classes, dtype=torch.long)

            def roof() -> None:  # one argmax, one histogram of the target and predicted classes
                pred = logits.max(1).indices
                hist.add_(torch.bincount(torch.cat([target * 3, pred * 3 + 1]), minlength=3 * num_classes))

            reps = repeats if num_classes * batch < 1e6 else max(repeats // 4, 10)
            for name in COUNT_METRICS:
                if not hasattr(lmc, name) or not hasattr(tmc, name):
                    continue
                if name == "MulticlassExactMatch":
                    inputs = (logits.argmax(1).unsqueeze(1), target.unsqueeze(1))
                else:
                    inputs = (logits, target)
                ours, theirs = getattr(lmc, name)(num_classes=num_classes), getattr(tmc, name)(num_classes=num_classes)
                t = timed(
                    {"ours": lambda: ours.update(*inputs), "tm": lambda: theirs.update(*inputs), "roof": roof}, reps
                )
                print(f"{name:<40} {num_classes:>5} {batch:>5} {t['tm']:>9.1f} {t['ours']:>9.1f} {t['roof']:>9.1f} "
                      f"{t['ours'] / t['tm']:>8.2f} {t['ours'] / t['roof']:>9.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=200)
    parser.add_argument("--skip-counts", action="store_true", help="only issue 22's table")
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu",
                        help="cpu: this thread's CPU time (steady on a shared machine); wall: perf_counter")
    args = parser.parse_args()
    global CLOCK_US
    CLOCK_US = cpu_us if args.clock == "cpu" else wall_us
    torch.set_num_threads(1)
    warnings.filterwarnings("ignore")
    print(f"torch {torch.__version__}, torchmetrics {torchmetrics.__version__}, 1 thread, medians of interleaved repeats, "
          f"{args.clock} clock")
    print(f"{'work':<58} {'tm':>10} {'ours':>10} {'roofline':>10} {'ours/tm':>8} {'ours/roof':>8}")
    lone_regression(args.repeats * 5)
    lone_accuracy(args.repeats)
    collections(args.repeats)
    if not args.skip_counts:
        lone_counts(args.repeats)


if __name__ == "__main__":
    main()
