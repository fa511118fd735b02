"""The GPU check (``benchmarks/gpu_check.py``) runs only where a device is lent, which is rare: its
device-agnostic parts run here on the CPU, so that the script does not rot between runs. The domain
sections (``benchmarks/_gpu_sections``) run CPU against CPU at small sizes."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import _gpu_sections as sections  # noqa: E402
import gpu_check  # noqa: E402

CPU = torch.device("cpu")


@pytest.fixture(autouse=True)
def _one_thread():
    """One intra-op thread: at these tiny sizes a second one only waits (seconds on a busy machine)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def test_forward_values_check_runs_and_passes_on_the_cpu():
    report = gpu_check.forward_values(CPU, batch=256, steps=2)
    assert report["ok"], report
    assert len(report["cases"]) == 11


def test_the_check_skips_cleanly_without_cuda(tmp_path, monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(sys, "argv", ["gpu_check.py", str(tmp_path / "out.json")])
    assert gpu_check.main() == 0
    report = json.loads((tmp_path / "out.json").read_text())
    assert "skipped" in report and "--device cpu" in report["skipped"]


def _assert_timed_part(part: dict) -> None:
    assert part["ok"], part
    assert part["values_equal"] and part["states_on_device"] and part["max_abs_diff"] == 0.0
    assert set(part["cpu_s"]) == {"update", "compute", "total"} and part["cpu_over_device"] > 0


def test_detection_section_on_the_cpu():
    report = sections.detection_map(CPU, images=20, detections=20, classes=10, repeats=1)
    assert report["ok"], report
    _assert_timed_part(report["map_bbox"])
    assert report["map_bbox"]["no_host_sync_in_update"].startswith("not checked")


def test_retrieval_section_on_the_cpu():
    report = sections.retrieval_collection(CPU, queries=300, docs=10, repeats=1)
    _assert_timed_part(report["map_mrr_ndcg_p@10"])


def test_text_section_on_the_cpu():
    report = sections.text_counts(CPU, sentences=100)
    assert report["ok"], report
    for name in ("wer", "bleu"):
        _assert_timed_part(report[name])
        assert "no_host_sync_in_update" not in report[name]  # strings are read on the host: no sync check


def test_image_section_on_the_cpu():
    report = sections.image_quality(CPU, batch=2, side=48, repeats=1)
    assert report["ok"], report
    for name in ("ssim", "psnr"):
        _assert_timed_part(report[name])


def test_segmentation_section_on_the_cpu():
    report = sections.segmentation_overlap(CPU, batch=2, classes=5, side=48, repeats=1)
    assert report["ok"], report
    for name in ("index", "one-hot"):
        _assert_timed_part(report[name])


def test_callback_fit_section_on_the_cpu():
    pytest.importorskip("lightning")
    report = sections.callback_fit(CPU, samples=64)
    assert report["ok"], report
    assert report["accelerator"] == "cpu" and report["epochs_logged"] == {"cpu": 2, "device": 2}
    assert {"train/accuracy", "val/accuracy", "val/auroc", "val/f1"} <= set(report["keys"])
    first, second = report["logged"]["cpu"]
    assert first != second  # one snapshot per epoch, not the last one twice
    assert report["metric_state_devices"]["val_metrics"] == ["cpu"]


def test_the_section_helpers_see_a_difference():
    from lightning_metrics.text import WordErrorRate

    assert not sections.values_close({"a": torch.tensor([1.0, 2.0])}, {"a": torch.tensor([1.0, 2.1])})
    assert not sections.values_close({"a": torch.tensor(1.0)}, {"b": torch.tensor(1.0)})
    assert sections.max_abs_diff(torch.tensor([1.0, float("nan")]), torch.tensor([1.5, float("nan")])) == 0.5
    assert sections.values_close([{"val/f1": 0.5}], [{"val/f1": 0.5 + 1e-9}])  # logged floats: a tolerance
    assert not sections.values_close([{"val/f1": 0.5}], [{"val/f1": 0.5001}])
    assert sections.max_abs_diff([{"val/f1": 0.5}], [{"val/f1": 0.75}]) == 0.25
    metric = WordErrorRate()
    assert sections.states_on_device(metric, CPU)
    assert not sections.states_on_device(metric, torch.device("cuda"))  # only device names are compared
    assert sections.no_host_sync(lambda: None, CPU).startswith("not checked")


def test_the_script_runs_end_to_end_against_the_cpu(tmp_path, monkeypatch):
    pytest.importorskip("lightning")
    out = tmp_path / "out.json"
    argv = ["gpu_check.py", str(out), "--device", "cpu", "--scale", "0.01", "--section-repeats", "1"]
    monkeypatch.setattr(sys, "argv", argv)
    monkeypatch.setattr(gpu_check, "forward_values", lambda device: {"ok": True, "cases": {}})  # tested above
    assert gpu_check.main() == 0
    report = json.loads(out.read_text())
    assert report["no_sync_updates"] == "not run: CUDA only"
    assert report["summary"]["sections_ok"] == dict.fromkeys(
        ("detection_map", "retrieval_collection", "text_counts", "image_quality", "segmentation_overlap",
         "callback_fit"), True
    ), report
