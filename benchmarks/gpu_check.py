"""The accelerator check of issues 22 and 41, for a CUDA machine (well under 4 minutes); writes a JSON.

1. Every public metric of the test registry (``tests/reliability/_registry.py``), built with
   ``validate_args=False`` (and ``nan_strategy="disable"``), updates on the GPU under
   ``torch.cuda.set_sync_debug_mode("error")``: an update that syncs with the host raises. Its value
   after two batches must equal the CPU metric's on the same batches.
2. The 8-metric multiclass collection's ``update`` is captured in a CUDA graph and replayed; the replayed
   states must equal eager updates.
3. The 8-metric collection update, ours against torchmetrics, timed with CUDA events (median of
   interleaved repeats), C in {10, 1000}, B=4096.
4. ``forward`` on the device equals ``forward`` on the CPU, batch values and the accumulated value: the
   8-metric collection at C in {10, 1000}, the same without its confusion matrix at C=1000 (whose batch
   matrix is read through its summary only), and lone aggregation and regression metrics (their
   batch sums and moment rows).
5. The domains that landed since (issue 41; ``benchmarks/_gpu_sections``), each run on the CPU and on
   the device with the same inputs: time of the updates and compute on each (wall, synchronized), values
   equal, every state tensor on the device, and one update under the sync debug mode (not for text):
   ``MeanAveragePrecision`` (bbox, 500 images x 100 detections x 80 classes); MAP, MRR, NDCG and
   precision@10 in one collection with ``indexes`` (8,000 queries x 40 documents); ``WordErrorRate``
   and ``BLEUScore`` (strings on the host, counts on the device: state placement and values only);
   SSIM and PSNR on 2 batches of 16x3x256x256; MeanIoU + DiceScore on 2 batches of 8x21x256x256 (class
   indices and one-hot); a 2-epoch ``MetricsCallback`` fit with ``accelerator="gpu", devices=1``
   whose logged values per epoch equal the same fit's on the CPU.

Without a CUDA device it prints why and exits 0, writing ``{"skipped": ...}``; ``--device cpu`` runs
checks 4 and 5 with the CPU in the device's place (their plumbing, end to end; ``--scale 0.05
--section-repeats 1`` for a quick run), the CUDA-only checks 1-3 marked as not run.

Run: ``PYTHONPATH=$PWD python benchmarks/gpu_check.py [OUT.json] [--repeats 50] [--device cpu] [--scale 1]``
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import traceback
import warnings
from typing import Any, Callable

import torch
from _common import eight, interleaved
from _gpu_sections import run_sections
from _gpu_sections import to_device as _to

import lightning_metrics as lm


def no_sync_updates(device: torch.device, deadline: float) -> dict[str, Any]:
    """Check 1: every registry entry, no host sync in update, GPU value equal to the CPU value."""
    # ALWAYS_CHECKED: classes whose update reads the host by design; TEXT_KINDS: strings tokenised on the host
    from tests.reliability._registry import ENTRIES, TEXT_KINDS, assert_close, batches
    from tests.reliability.test_bad_input import ALWAYS_CHECKED

    results: dict[str, Any] = {}
    for key in sorted(ENTRIES):
        if time.monotonic() > deadline:
            results[key] = "not run: time budget spent"
            continue
        entry = ENTRIES[key]
        if entry.name in ALWAYS_CHECKED or entry.kind in TEXT_KINDS or entry.package == "wrappers":
            results[key] = "skipped: " + ALWAYS_CHECKED.get(entry.name, "host-side inputs or a wrapper")
            continue
        try:
            entry = entry.unchecked()
            data = batches(entry.kind, (6, 5), seed=0)
            cpu, gpu = entry.build(), entry.build().to(device)
            for batch in data:
                cpu.update(*batch)
            gpu_data = [_to(b, device) for b in data]
            torch.cuda.synchronize()
            torch.cuda.set_sync_debug_mode("error")
            try:
                for batch in gpu_data:
                    gpu.update(*batch)
            finally:
                torch.cuda.set_sync_debug_mode("default")
            assert_close(_to(gpu.compute(), torch.device("cpu")), cpu.compute(), rtol=1e-5, atol=1e-6, path=key)
            results[key] = "ok"
        except Exception as err:  # noqa: BLE001 - every failure is a finding of the report
            results[key] = f"FAIL: {type(err).__name__}: {str(err).splitlines()[0][:300] if str(err) else ''}"
    return results


def cuda_graph_replay(device: torch.device, num_classes: int = 10, batch: int = 4096, steps: int = 5) -> dict:
    """Check 2: capture the collection's update in a CUDA graph, replay it, compare with eager updates."""
    import lightning_metrics.classification as lmc

    g = torch.Generator(device="cpu").manual_seed(0)
    inputs = [
        (torch.randn(batch, num_classes, generator=g).to(device), torch.randint(0, num_classes, (batch,), generator=g).to(device))
        for _ in range(steps)
    ]
    graphed = lm.MetricCollection(eight(lmc, num_classes, validate_args=False)).to(device)
    eager = lm.MetricCollection(eight(lmc, num_classes, validate_args=False)).to(device)
    static_preds, static_target = inputs[0][0].clone(), inputs[0][1].clone()
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm up (allocations) outside the capture, then start from zero
        graphed.update(static_preds, static_target)
    torch.cuda.current_stream().wait_stream(side)
    graphed.reset()  # fresh states, which the capture records (a capture records kernels, it runs none)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        graphed.update(static_preds, static_target)  # count states are added to in place: replays accumulate
    for preds, target in inputs:
        static_preds.copy_(preds)
        static_target.copy_(target)
        graph.replay()
        eager.update(preds, target)
    torch.cuda.synchronize()
    states = {}
    for name in eager.keys(keep_base=True):
        for state, value in eager[name].metric_state.items():
            replayed = graphed[name].metric_state[state]
            states[f"{name}.{state}"] = bool(torch.equal(replayed, value))
    return {"num_classes": num_classes, "batch": batch, "steps": steps, "states_equal": states,
            "ok": all(states.values())}


def forward_values(device: torch.device, batch: int = 4096, steps: int = 3) -> dict:
    """Check 4: ``forward`` on ``device`` gives the batch values and the accumulated value of ``forward`` on
    the CPU (within float tolerance), for collections and lone metrics whose forward reads batch statistics."""
    import lightning_metrics.aggregation as la
    import lightning_metrics.classification as lmc
    import lightning_metrics.regression as lr

    def seven(num_classes: int) -> dict:
        metrics = eight(lmc, num_classes)
        metrics.pop("confmat")
        return metrics

    cases: dict[str, tuple[Callable[[], Any], Callable[[torch.Generator], tuple]]] = {}
    for num_classes in (10, 1000):
        def labels(g: torch.Generator, c: int = num_classes) -> tuple:
            return torch.randn(batch, c, generator=g), torch.randint(0, c, (batch,), generator=g)

        cases[f"eight, C={num_classes}"] = (lambda c=num_classes: lm.MetricCollection(eight(lmc, c)), labels)
    cases["seven (no confusion matrix), C=1000"] = (lambda: lm.MetricCollection(seven(1000)), labels)

    def pair(g: torch.Generator) -> tuple:
        x = torch.randn(batch, generator=g)
        return x.abs() + 0.1, (x + 0.1 * torch.randn(batch, generator=g)).abs() + 0.1

    for name in ("MeanSquaredError", "R2Score", "ExplainedVariance", "PearsonCorrCoef", "MeanAbsoluteError",
                 "WeightedMeanAbsolutePercentageError"):
        cases[name] = (getattr(lr, name), pair)
    for name in ("MeanMetric", "SumMetric"):
        cases[name] = (getattr(la, name), lambda g: (torch.randn(batch, generator=g),))
    results = {}
    for key, (build, make_inputs) in cases.items():
        g = torch.Generator().manual_seed(0)
        inputs = [make_inputs(g) for _ in range(steps)]
        on_cpu, on_device = build(), build().to(device)
        same = True
        for args in inputs:
            same &= _close(on_cpu(*args), on_device(*(_to(a, device) for a in args)))
        same &= _close(on_cpu.compute(), on_device.compute())
        results[key] = "ok" if same else "FAIL: values differ"
    return {"cases": results, "ok": all(v == "ok" for v in results.values())}


def _close(expected: Any, got: Any) -> bool:
    """Whether two metric values (tensors, or dicts of them) agree within float32 tolerance."""
    if isinstance(expected, dict):
        return expected.keys() == got.keys() and all(_close(expected[k], got[k]) for k in expected)
    got = got.cpu()
    if expected.dtype.is_floating_point:
        return bool(torch.allclose(expected, got.to(expected.dtype), rtol=1e-5, atol=1e-6, equal_nan=True))
    return bool(torch.equal(expected, got))


def _cuda_us(fn: Callable[[], None]) -> float:
    """Microseconds of one call, between two CUDA events."""
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    fn()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) * 1e3


def collection_timing(device: torch.device, repeats: int) -> list[dict]:
    """Check 3: the 8-metric collection update, ours against torchmetrics (CUDA events, interleaved)."""
    import lightning_metrics.classification as lmc

    try:
        import torchmetrics
        import torchmetrics.classification as tmc
    except ImportError:
        return [{"skipped": "torchmetrics is not installed"}]
    rows = []
    for num_classes in (10, 1000):
        g = torch.Generator(device="cpu").manual_seed(0)
        logits = torch.randn(4096, num_classes, generator=g).to(device)
        target = torch.randint(0, num_classes, (4096,), generator=g).to(device)
        state = torch.zeros(num_classes * num_classes, dtype=torch.long, device=device)
        ours = lm.MetricCollection(eight(lmc, num_classes, validate_args=False)).to(device)
        theirs = torchmetrics.MetricCollection(eight(tmc, num_classes, validate_args=False), compute_groups=True).to(device)

        def roofline() -> None:
            codes = target * num_classes + logits.argmax(1)
            state.index_put_((codes,), torch.ones_like(codes), accumulate=True)

        candidates = {"ours": lambda: ours.update(logits, target), "torchmetrics": lambda: theirs.update(logits, target),
                      "roofline": roofline}
        medians = interleaved(candidates, repeats, warmup=5, clock_us=_cuda_us)
        rows.append({"num_classes": num_classes, "batch": 4096, "median_us": medians,
                     "ours_over_torchmetrics": medians["ours"] / medians["torchmetrics"],
                     "ours_over_roofline": medians["ours"] / medians["roofline"]})
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", help="where to write the JSON of the results (default: print it only)")
    parser.add_argument("--repeats", type=int, default=50)
    parser.add_argument("--budget-s", type=float, default=120.0, help="time for the per-metric check")
    parser.add_argument("--total-budget-s", type=float, default=225.0,
                        help="the domain sections (check 5) left once this much time has passed are not run")
    parser.add_argument("--device", choices=("cuda", "cpu"), default="cuda",
                        help="cpu: checks 4 and 5 against the CPU itself (a dry run of their plumbing)")
    parser.add_argument("--scale", type=float, default=1.0, help="the domain sections' sizes times this")
    parser.add_argument("--section-repeats", type=int, default=5, help="timed runs per domain section")
    args = parser.parse_args()
    if args.device == "cuda" and not torch.cuda.is_available():
        message = ("no CUDA device: the GPU check was not run (nothing failed); "
                   "`--device cpu` runs its device-agnostic checks against the CPU")
        print(message)
        _write(args.out, {"skipped": message, "torch": torch.__version__})
        return 0
    warnings.filterwarnings("ignore")
    device = torch.device(args.device)
    cuda = device.type == "cuda"
    report: dict[str, Any] = {
        "torch": torch.__version__,
        "device": torch.cuda.get_device_name(device) if cuda else "cpu (against itself: a dry run, no device check)",
        "cpu_threads": torch.get_num_threads(),
        "scale": args.scale,
    }
    started = time.monotonic()
    cuda_only = {
        "no_sync_updates": lambda: no_sync_updates(device, started + args.budget_s),
        "cuda_graph_replay": lambda: cuda_graph_replay(device),
        "collection_update_timing": lambda: collection_timing(device, args.repeats),
    }
    for name, check in (*cuda_only.items(), ("forward_values", lambda: forward_values(device))):
        if name in cuda_only and not cuda:
            report[name] = "not run: CUDA only"
            continue
        try:
            report[name] = check()
        except Exception:  # noqa: BLE001 - reported, the other checks still run
            report[name] = {"error": traceback.format_exc()}
        print(f"{name}: done after {time.monotonic() - started:.0f} s", flush=True)
    domains = run_sections(device, args.scale, args.section_repeats, deadline=started + args.total_budget_s,
                           started=started)
    report.update(domains)
    summary: dict[str, Any] = {}
    updates = report.get("no_sync_updates", {})
    if isinstance(updates, dict):
        failed = {k: v for k, v in updates.items() if str(v).startswith("FAIL")}
        summary.update(metrics_ok=sum(v == "ok" for v in updates.values()), metrics_failed=failed)
    summary["sections_ok"] = {name: section.get("ok", False) for name, section in domains.items()}
    summary["seconds"] = time.monotonic() - started
    report["summary"] = summary
    print(json.dumps(summary, indent=2))
    print(json.dumps(report.get("collection_update_timing"), indent=2))
    _write(args.out, report)
    return 0


def _write(path: str | None, report: dict) -> None:
    if path is None:
        return
    with open(path, "w") as f:
        json.dump(report, f, indent=2, default=str)
    print(f"wrote {path}")


if __name__ == "__main__":
    sys.exit(main())
