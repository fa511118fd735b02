"""The sections of the accelerator check (``benchmarks/gpu_check.py``) for the domains that landed after
it (issue 41): detection, retrieval, text, image, segmentation and the Lightning callback.

Every section is a function of ``device`` that runs the same work on the CPU and on ``device`` and
compares the two; with ``device="cpu"`` it compares the CPU with itself, which is how the suite runs
them (``tests/test_gpu_check.py``, small sizes) so that they do not rot between GPU runs. A section
returns a dict of plain numbers and strings with an ``ok``.

Per metric (or collection), from :func:`device_vs_cpu`:

- ``cpu_s`` / ``device_s``: the median wall time of one run, ``update`` of every batch then
  ``compute`` (the device synchronized at each end; inputs already on their device), after one
  untimed warm-up run each, the two taking turns, and ``cpu_over_device``, the ratio of the totals (above 1: the device is faster);
- ``values_equal`` and ``max_abs_diff``: the device's value against the CPU's (float32 tolerance);
- ``states_on_device``: no state tensor of the device metric is left on another device;
- ``no_host_sync_in_update``: a fresh device metric updates once under
  ``torch.cuda.set_sync_debug_mode("error")`` (CUDA only, as check 1 of ``gpu_check.py``: data moved to
  the device first, a blocking copy counts as a sync); not for text, whose strings are on the host.

A package, not a ``benchmarks/*.py`` file (as ``_common``), so ``make bench`` does not run it as a
benchmark. Sizes are the issue's by default; ``scale`` (in ``gpu_check.py``: ``--scale``) multiplies the counts
(images, queries, sentences, samples; below one image, the pixels).
"""

from __future__ import annotations

import contextlib
import logging
import random
import statistics
import tempfile
import time
import traceback
import warnings
from typing import Any, Callable, Iterator, Optional

import torch
from torch.nn import functional as F

import lightning_metrics as lm

CPU = torch.device("cpu")
RTOL, ATOL = 1e-5, 1e-6  # float32 values computed in another order (sums, convolutions, sorts)


def to_device(value: Any, device: torch.device) -> Any:
    """``value`` (a tensor, or dicts/lists/tuples of them) with every tensor on ``device``."""
    if isinstance(value, torch.Tensor):
        return value.to(device)
    if isinstance(value, dict):
        return {k: to_device(v, device) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(to_device(v, device) for v in value)
    return value


def _snapshot(value: Any) -> Any:
    """A CPU copy of a metric value, safe from later resets."""
    if isinstance(value, torch.Tensor):
        return value.detach().cpu().clone()
    if isinstance(value, dict):
        return {k: _snapshot(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_snapshot(v) for v in value)
    return value


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def _leaves(expected: Any, got: Any, path: str = "") -> Iterator[tuple[str, Any, Any]]:
    """The pairs of leaves of two values of the same structure (a missing key gives ``None``)."""
    if isinstance(expected, dict) and isinstance(got, dict):
        for key in sorted(set(expected) | set(got), key=str):
            yield from _leaves(expected.get(key), got.get(key), f"{path}.{key}" if path else str(key))
    elif isinstance(expected, (list, tuple)) and isinstance(got, (list, tuple)) and len(expected) == len(got):
        for i, (a, b) in enumerate(zip(expected, got)):
            yield from _leaves(a, b, f"{path}[{i}]")
    else:
        yield path, expected, got


def _as_tensors(expected: Any, got: Any) -> tuple[Any, Any]:
    """Numbers as float64 tensors (logged values are floats), anything else as it is."""
    if isinstance(expected, (int, float)) and isinstance(got, (int, float)):
        return torch.tensor(expected, dtype=torch.float64), torch.tensor(got, dtype=torch.float64)
    return expected, got


def _leaf_close(expected: Any, got: Any, rtol: float, atol: float) -> bool:
    expected, got = _as_tensors(expected, got)
    if isinstance(expected, torch.Tensor) and isinstance(got, torch.Tensor):
        got = got.cpu()
        if expected.shape != got.shape:
            return False
        if expected.dtype.is_floating_point or got.dtype.is_floating_point:
            return bool(torch.allclose(expected.double(), got.double(), rtol=rtol, atol=atol, equal_nan=True))
        return bool(torch.equal(expected, got.to(expected.dtype)))
    return expected == got


def values_close(expected: Any, got: Any, rtol: float = RTOL, atol: float = ATOL) -> bool:
    """Whether two metric values (tensors, numbers, or dicts/lists of them) agree within tolerance."""
    return all(_leaf_close(a, b, rtol, atol) for _, a, b in _leaves(expected, got))


def max_abs_diff(expected: Any, got: Any) -> float:
    """The largest absolute difference between two values of the same structure (NaN against NaN: 0;
    ``inf`` where a shape, a key or a NaN differs)."""
    worst = 0.0
    for _, a, b in _leaves(expected, got):
        a, b = _as_tensors(a, b)
        if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
            worst = max(worst, 0.0 if a == b else float("inf"))
            continue
        a, b = a.double(), b.cpu().double()
        if a.shape != b.shape:
            return float("inf")
        if a.numel():
            nan_a, nan_b = torch.isnan(a), torch.isnan(b)
            if not torch.equal(nan_a, nan_b):
                return float("inf")
            diff = (a - b).abs()[~nan_a]
            worst = max(worst, float(diff.max()) if diff.numel() else 0.0)
    return worst


def _members(metric: Any) -> list[Any]:
    return list(metric.values()) if isinstance(metric, lm.MetricCollection) else [metric]


def state_devices(metric: Any) -> dict[str, str]:
    """Where each state tensor of a metric (or of each metric of a collection) lies; a list state
    gives the devices of its elements (``"empty list"`` without any)."""
    where = {}
    for i, member in enumerate(_members(metric)):
        prefix = f"{type(member).__name__}[{i}]." if isinstance(metric, lm.MetricCollection) else ""
        for name, value in member.metric_state.items():
            if isinstance(value, torch.Tensor):
                where[prefix + name] = str(value.device)
            elif isinstance(value, (list, tuple)):
                devices = sorted({str(v.device) for v in value if isinstance(v, torch.Tensor)})
                where[prefix + name] = ",".join(devices) or "empty list"
    return where


def _on(device_name: str, device: torch.device) -> bool:
    placed = torch.device(device_name)
    return placed.type == device.type and (device.index is None or placed.index in (None, device.index))


def states_on_device(metric: Any, device: torch.device) -> bool:
    """No state tensor of ``metric`` lies on another device than ``device``."""
    return all(
        where == "empty list" or all(_on(d, device) for d in where.split(","))
        for where in state_devices(metric).values()
    )


def _where_it_synced(err: BaseException) -> str:
    """The innermost ``lightning_metrics`` frame of a traceback, ``file:line in function``."""
    frames = [f for f in traceback.extract_tb(err.__traceback__) if "lightning_metrics" in f.filename]
    if not frames:
        return "outside lightning_metrics"
    frame = frames[-1]
    return f"{frame.filename.split('lightning_metrics')[-1].lstrip('/')}:{frame.lineno} in {frame.name}"


def no_host_sync(update: Callable[[], None], device: torch.device) -> str:
    """``"ok"`` when ``update()`` runs on a CUDA device under ``set_sync_debug_mode("error")``
    without syncing with the host, ``"FAIL: ..."`` (with where) when it syncs; not checked elsewhere."""
    if device.type != "cuda":
        return "not checked: not a CUDA device"
    _sync(device)
    torch.cuda.set_sync_debug_mode("error")
    try:
        update()
    except Exception as err:  # noqa: BLE001 - a sync (or any failure) is the finding
        message = str(err).splitlines()[0][:200] if str(err) else ""
        return f"FAIL: {type(err).__name__}: {message} (at {_where_it_synced(err)})"
    finally:
        torch.cuda.set_sync_debug_mode("default")
    return "ok"


def _run_once(metric: Any, batches: list[tuple], device: torch.device) -> tuple[Any, float, float]:
    """``reset``, ``update`` of every batch, ``compute``: the value and the update and compute seconds."""
    metric.reset()
    _sync(device)
    start = time.perf_counter()
    for batch in batches:
        metric.update(*batch)
    _sync(device)
    middle = time.perf_counter()
    value = metric.compute()
    _sync(device)
    return value, middle - start, time.perf_counter() - middle


def _medians(runs: list[tuple[float, float]]) -> dict[str, float]:
    if not runs:
        return {}
    return {
        "update": statistics.median(u for u, _ in runs),
        "compute": statistics.median(c for _, c in runs),
        "total": statistics.median(u + c for u, c in runs),
    }


def device_vs_cpu(
    build: Callable[[], Any],
    batches: list[tuple],
    device: torch.device,
    repeats: int = 5,
    rtol: float = RTOL,
    atol: float = ATOL,
    sync_probe: bool = True,
) -> dict[str, Any]:
    """The same metric (``build()``) over the same CPU ``batches`` (tuples of ``update``'s arguments)
    on the CPU and on ``device``: times, values, state placement and (``sync_probe``) host syncs."""
    device_batches = [to_device(b, device) for b in batches]
    on_cpu, on_device = build(), build().to(device)
    expected = _snapshot(_run_once(on_cpu, batches, CPU)[0])  # the warm-up runs give the values
    got = _snapshot(_run_once(on_device, device_batches, device)[0])
    cpu_runs, device_runs = [], []
    for _ in range(repeats):  # the two take turns: a shared machine's drifts fall on both
        cpu_runs.append(_run_once(on_cpu, batches, CPU)[1:])
        device_runs.append(_run_once(on_device, device_batches, device)[1:])
    cpu_s, device_s = _medians(cpu_runs), _medians(device_runs)
    report: dict[str, Any] = {"cpu_s": cpu_s, "device_s": device_s}
    if cpu_s and device_s:
        report["cpu_over_device"] = cpu_s["total"] / device_s["total"]
    report["values_equal"] = values_close(expected, got, rtol, atol)
    report["max_abs_diff"] = max_abs_diff(expected, got)
    report["states_on_device"] = states_on_device(on_device, device)
    if not report["states_on_device"]:
        report["state_devices"] = state_devices(on_device)
    if sync_probe:
        fresh = build().to(device)
        report["no_host_sync_in_update"] = no_host_sync(lambda: fresh.update(*device_batches[0]), device)
    report["ok"] = bool(
        report["values_equal"] and report["states_on_device"]
        and not str(report.get("no_host_sync_in_update", "")).startswith("FAIL")
    )
    return report


def _section(parts: dict[str, dict], **sizes: Any) -> dict[str, Any]:
    return {"sizes": sizes, **parts, "ok": all(part["ok"] for part in parts.values())}


def _n(count: int, scale: float) -> int:
    return max(1, round(count * scale))


def _images(batch: int, side: int, scale: float) -> dict[str, int]:
    """``batch`` images of ``side x side`` scaled by ``scale`` in pixels: the batch first, then the side."""
    images = batch * scale
    if images >= 1:
        return {"batch": round(images), "side": side}
    return {"batch": 1, "side": max(16, round(side * images**0.5))}


# ----------------------------------------------------------------------------------------- detection
def detection_map(
    device: torch.device, images: int = 500, detections: int = 100, classes: int = 80,
    images_per_batch: int = 8, repeats: int = 5,
) -> dict[str, Any]:
    """``MeanAveragePrecision`` (bbox, ``validate_args=False``) over ``images`` images (the detection
    benchmark's data: 1-14 ground truths, ``detections`` jittered boxes each), updates of 8 images."""
    from detection import make_data  # benchmarks/detection.py: the scenario of the detection issue

    from lightning_metrics.detection import MeanAveragePrecision

    preds, target = make_data(images, detections, classes, seed=0)
    batches = [(preds[i : i + images_per_batch], target[i : i + images_per_batch])
               for i in range(0, images, images_per_batch)]

    def build() -> MeanAveragePrecision:
        return MeanAveragePrecision(iou_type="bbox", validate_args=False)

    part = device_vs_cpu(build, batches, device, repeats)
    return _section({"map_bbox": part}, images=images, detections=detections, classes=classes)


# ----------------------------------------------------------------------------------------- retrieval
def retrieval_batches(queries: int, docs: int, batch_queries: int = 512, seed: int = 0) -> list[tuple]:
    """(preds, target, indexes) batches of ``queries`` queries x ``docs`` documents, shuffled across
    batches, sparse random int64 query ids, about a third of the documents relevant."""
    g = torch.Generator().manual_seed(seed)
    n = queries * docs
    relevant = torch.rand(n, generator=g) < 0.35
    preds = torch.rand(n, generator=g) + 0.3 * relevant  # informative scores, ties unlikely
    indexes = torch.randint(-(2**62), 2**62, (queries,), generator=g).repeat_interleave(docs)
    perm = torch.randperm(n, generator=g)
    preds, relevant, indexes = preds[perm], relevant[perm], indexes[perm]
    step = batch_queries * docs
    return [(preds[i : i + step], relevant[i : i + step], indexes[i : i + step]) for i in range(0, n, step)]


def retrieval_collection(device: torch.device, queries: int = 8000, docs: int = 40, repeats: int = 5) -> dict:
    """MAP, MRR, NDCG and precision@10 in one ``MetricCollection`` (``validate_args=False``), updated
    with ``indexes`` in batches of 512 queries."""
    import lightning_metrics.retrieval as lmr

    def build() -> lm.MetricCollection:
        return lm.MetricCollection({
            "map": lmr.RetrievalMAP(validate_args=False),
            "mrr": lmr.RetrievalMRR(validate_args=False),
            "ndcg": lmr.RetrievalNormalizedDCG(validate_args=False),
            "precision@10": lmr.RetrievalPrecision(top_k=10, validate_args=False),
        })

    part = device_vs_cpu(build, retrieval_batches(queries, docs), device, repeats)
    return _section({"map_mrr_ndcg_p@10": part}, queries=queries, docs_per_query=docs)


# ---------------------------------------------------------------------------------------------- text
WORDS = ("the a cat dog sat on mat ran far fast slow red blue house tree car road big small old new "
         "green under over with from into".split())


def sentence_pairs(count: int, seed: int = 0) -> tuple[list[str], list[str]]:
    """``count`` (hypothesis, reference) sentences of 4-20 words: a fifth of the words replaced, some
    dropped or added."""
    rng = random.Random(seed)
    preds, target = [], []
    for _ in range(count):
        words = [rng.choice(WORDS) for _ in range(rng.randint(4, 20))]
        hypothesis = [w if rng.random() > 0.2 else rng.choice(WORDS) for w in words if rng.random() > 0.05]
        if rng.random() < 0.3:
            hypothesis.insert(rng.randint(0, len(hypothesis)), rng.choice(WORDS))
        preds.append(" ".join(hypothesis))
        target.append(" ".join(words))
    return preds, target


def text_counts(device: torch.device, sentences: int = 2000, per_batch: int = 64) -> dict[str, Any]:
    """``WordErrorRate`` and ``BLEUScore``: strings tokenised on the host, counts kept on the device.
    After ``.to(device)`` and the updates every state tensor must be on the device, and the values
    those of the CPU; no sync check (reading strings is a host affair)."""
    from lightning_metrics.text import BLEUScore, WordErrorRate

    preds, target = sentence_pairs(sentences)
    chunks = [(preds[i : i + per_batch], target[i : i + per_batch]) for i in range(0, sentences, per_batch)]
    parts = {
        "wer": device_vs_cpu(WordErrorRate, chunks, device, repeats=1, sync_probe=False),
        "bleu": device_vs_cpu(BLEUScore, [(p, [[t] for t in ts]) for p, ts in chunks], device, repeats=1,
                              sync_probe=False),
    }
    return _section(parts, sentences=sentences)


# --------------------------------------------------------------------------------------------- image
@contextlib.contextmanager
def _no_tf32() -> Iterator[None]:
    """cuDNN convolutions in full float32: TF32 (cuDNN's default on Ampere and later) rounds the
    inputs to 10-bit mantissas, a difference of the library's setting, not of the metric."""
    before = torch.backends.cudnn.allow_tf32
    torch.backends.cudnn.allow_tf32 = False
    try:
        yield
    finally:
        torch.backends.cudnn.allow_tf32 = before


def image_quality(
    device: torch.device, batch: int = 16, side: int = 256, steps: int = 2, repeats: int = 5,
) -> dict[str, Any]:
    """``StructuralSimilarityIndexMeasure`` and ``PeakSignalNoiseRatio`` (``data_range=1``,
    ``validate_args=False``: the input check's one host read is what the sync check would catch) over
    ``steps`` batches of ``batch x 3 x side x side`` float32 images (a noisy copy as the target);
    convolutions without TF32 (see :func:`_no_tf32`)."""
    from lightning_metrics.image import PeakSignalNoiseRatio, StructuralSimilarityIndexMeasure

    g = torch.Generator().manual_seed(0)
    batches = []
    for _ in range(steps):
        preds = torch.rand(batch, 3, side, side, generator=g)
        batches.append((preds, (preds + 0.1 * torch.randn(preds.shape, generator=g)).clamp(0, 1)))
    with _no_tf32():
        parts = {
            "ssim": device_vs_cpu(lambda: StructuralSimilarityIndexMeasure(data_range=1.0, validate_args=False),
                                  batches, device, repeats, rtol=1e-4, atol=1e-5),
            "psnr": device_vs_cpu(lambda: PeakSignalNoiseRatio(data_range=1.0, validate_args=False),
                                  batches, device, repeats, rtol=1e-5, atol=1e-5),
        }
    return _section(parts, images=f"{steps} x {batch}x3x{side}x{side}")


# -------------------------------------------------------------------------------------- segmentation
def segmentation_overlap(
    device: torch.device, batch: int = 8, classes: int = 21, side: int = 256, steps: int = 2,
    repeats: int = 5,
) -> dict[str, Any]:
    """``MeanIoU`` + ``DiceScore`` in one collection (``validate_args=False``) over ``steps`` batches of
    ``batch`` class maps of ``side x side`` (70% of the pixels right): as class indices
    (``input_format="index"``) and as one-hot ``batch x classes x side x side`` masks."""
    import lightning_metrics.segmentation as lms

    g = torch.Generator().manual_seed(0)
    index_batches = []
    for _ in range(steps):
        target = torch.randint(0, classes, (batch, side, side), generator=g)
        wrong = torch.rand(target.shape, generator=g) > 0.7
        preds = torch.where(wrong, torch.randint(0, classes, target.shape, generator=g), target)
        index_batches.append((preds, target))
    one_hot_batches = [tuple(F.one_hot(x, classes).movedim(-1, 1) for x in b) for b in index_batches]

    def build(input_format: str) -> Callable[[], lm.MetricCollection]:
        return lambda: lm.MetricCollection({
            "miou": lms.MeanIoU(num_classes=classes, input_format=input_format, validate_args=False),
            "dice": lms.DiceScore(num_classes=classes, input_format=input_format, validate_args=False),
        })

    parts = {
        "index": device_vs_cpu(build("index"), index_batches, device, repeats),
        "one-hot": device_vs_cpu(build("one-hot"), one_hot_batches, device, repeats),
    }
    return _section(parts, maps=f"{steps} x {batch}x{classes}x{side}x{side}")


# ------------------------------------------------------------------------------------------ callback
@contextlib.contextmanager
def _quiet_lightning() -> Iterator[None]:
    names = ("lightning.pytorch", "pytorch_lightning", "lightning.fabric", "lightning_fabric")
    loggers = [logging.getLogger(name) for name in names]
    levels = [log.level for log in loggers]
    for log in loggers:
        log.setLevel(logging.WARNING)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        for log, level in zip(loggers, levels):
            log.setLevel(level)


def _fit_logged(
    accelerator: str, samples: int, epochs: int, seed: int,
) -> tuple[list[dict[str, float]], dict[str, list[str]], float]:
    """The values a ``MetricsCallback`` logged at each epoch of a fit of a tiny classifier on
    ``accelerator`` (read from ``trainer.callback_metrics`` once each epoch is done), the devices of
    its metrics' states per stage (seen at the end of the last train epoch), and the fit's seconds."""
    try:
        import lightning.pytorch as L
    except ImportError:
        import pytorch_lightning as L

    features, classes = 16, 4
    g = torch.Generator().manual_seed(seed)
    centers = torch.randn(classes, features, generator=g)

    def loader(n: int) -> torch.utils.data.DataLoader:
        y = torch.randint(0, classes, (n,), generator=g)
        x = centers[y] + 1.5 * torch.randn(n, features, generator=g)
        return torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=32)

    class Tiny(L.LightningModule):
        def __init__(self) -> None:
            super().__init__()
            torch.manual_seed(seed)
            self.layer = torch.nn.Linear(features, classes)

        def _step(self, batch: Any) -> dict[str, torch.Tensor]:
            x, y = batch
            logits = self.layer(x)
            return {"loss": F.cross_entropy(logits, y), "preds": logits, "target": y}

        def training_step(self, batch: Any, batch_idx: int) -> dict[str, torch.Tensor]:
            return self._step(batch)

        def validation_step(self, batch: Any, batch_idx: int) -> dict[str, torch.Tensor]:
            return self._step(batch)

        def configure_optimizers(self) -> torch.optim.Optimizer:
            return torch.optim.SGD(self.parameters(), lr=0.1)

    logged: list[dict[str, float]] = []
    placed: dict[str, list[str]] = {}  # stage -> the devices of its metrics' states, seen mid-fit

    def snapshot(trainer: Any) -> None:
        logged.append({k: float(v) for k, v in sorted(trainer.callback_metrics.items())})

    class EveryEpoch(L.Callback):  # an epoch's train values are logged after its on_train_epoch_end
        def on_train_epoch_start(self, trainer: Any, pl_module: Any) -> None:
            if trainer.current_epoch > 0:
                snapshot(trainer)

        def on_train_epoch_end(self, trainer: Any, pl_module: Any) -> None:  # mid-fit: before teardown
            for key, stage in callback.engine.store.items():
                members = [m for m in stage.modules() if isinstance(m, lm.Metric)]
                placed[key] = sorted({d for m in members for d in state_devices(m).values()} - {"empty list"})

    train, val = loader(samples), loader(max(1, samples // 2))
    callback = lm.MetricsCallback(["accuracy", "f1", "auroc"], plots=False, track_loss="sample")
    with tempfile.TemporaryDirectory() as root, _quiet_lightning():
        trainer = L.Trainer(
            accelerator=accelerator, devices=1, max_epochs=epochs, logger=False, enable_checkpointing=False,
            enable_progress_bar=False, enable_model_summary=False, num_sanity_val_steps=0,
            default_root_dir=root, callbacks=[callback, EveryEpoch()],
        )
        start = time.perf_counter()
        trainer.fit(Tiny(), train, val)
        seconds = time.perf_counter() - start
    snapshot(trainer)
    return logged, placed, seconds


def callback_fit(device: torch.device, samples: int = 512, epochs: int = 2, seed: int = 0) -> dict[str, Any]:
    """A ``MetricsCallback(["accuracy", "f1", "auroc"])`` fit of ``epochs`` epochs (a linear classifier,
    SGD) with ``accelerator="gpu", devices=1`` (``"cpu"`` for a CPU ``device``): the values logged at
    each epoch equal those of the same fit on the CPU, same seed (float tolerance: the weights are
    trained on each device)."""
    accelerator = "gpu" if device.type == "cuda" else device.type
    expected, _, cpu_seconds = _fit_logged("cpu", samples, epochs, seed)
    got, placed, device_seconds = _fit_logged(accelerator, samples, epochs, seed)
    keys_equal = [set(a) == set(b) for a, b in zip(expected, got)]
    report: dict[str, Any] = {
        "sizes": {"train_samples": samples, "epochs": epochs},
        "accelerator": accelerator,
        "fit_s": {"cpu": cpu_seconds, "device": device_seconds},
        "epochs_logged": {"cpu": len(expected), "device": len(got)},
        "keys": sorted(expected[-1]) if expected else [],
        "values_equal": len(expected) == len(got) == epochs and all(keys_equal)
        and values_close(expected, got, rtol=1e-4, atol=1e-5),
        "max_abs_diff": max_abs_diff(expected, got) if all(keys_equal) else float("inf"),
        "metric_state_devices": placed,
        "states_on_device": any(placed.values()) and all(
            _on(d, device) for devices in placed.values() for d in devices  # an unused stage has none
        ),
        "logged": {"cpu": expected, "device": got},
    }
    report["ok"] = bool(report["values_equal"] and report["keys"] and report["states_on_device"])
    return report


def sections(device: torch.device, scale: float = 1.0, repeats: int = 5) -> dict[str, Callable[[], dict]]:
    """Every section of this module at the issue's sizes times ``scale`` (``gpu_check.py``'s order),
    ``repeats`` timed runs each (text: one)."""
    return {
        "detection_map": lambda: detection_map(device, images=_n(500, scale), repeats=repeats),
        "retrieval_collection": lambda: retrieval_collection(device, queries=_n(8000, scale),
                                                             repeats=repeats),
        "text_counts": lambda: text_counts(device, sentences=_n(2000, scale)),
        "image_quality": lambda: image_quality(device, **_images(16, 256, scale), repeats=repeats),
        "segmentation_overlap": lambda: segmentation_overlap(device, **_images(8, 256, scale), repeats=repeats),
        "callback_fit": lambda: callback_fit(device, samples=_n(512, scale)),
    }


def run_sections(device: torch.device, scale: float = 1.0, repeats: int = 5, deadline: Optional[float] = None,
                 started: Optional[float] = None) -> dict[str, Any]:
    """Run :func:`sections` in turn (a failure is reported, the others still run); after ``deadline``
    (``time.monotonic()``) the rest are marked as not run."""
    started = time.monotonic() if started is None else started
    report: dict[str, Any] = {}
    for name, section in sections(device, scale, repeats).items():
        if deadline is not None and time.monotonic() > deadline:
            report[name] = {"not run": "time budget spent", "ok": False}
            continue
        try:
            report[name] = section()
        except Exception:  # noqa: BLE001 - reported, the other sections still run
            report[name] = {"error": traceback.format_exc(), "ok": False}
        print(f"{name}: done after {time.monotonic() - started:.0f} s", flush=True)
    return report
