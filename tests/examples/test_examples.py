"""Each example runs end to end in its tiny mode (LM_EXAMPLE_FAST=1) and prints/writes what it says."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import pytest

from tests.examples._run import event_tags, floats, run_example, table_rows

pytestmark = pytest.mark.timeout(300)

DIGITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]


def test_digits_prints_the_final_table_and_writes_tensorboard_images(tmp_path: Path) -> None:
    out = run_example("digits.py", "--logdir", "logs", cwd=tmp_path).stdout
    rows = table_rows(out, "metric")
    expected = {"acc", "f1", "auroc", "calibration", *(f"recall/{i}_{d}" for i, d in enumerate(DIGITS))}
    assert expected <= set(rows), out
    for name in expected:
        val, test = floats(rows[name])
        assert 0.0 <= val <= 1.0 and 0.0 <= test <= 1.0, (name, rows[name])
    assert "Test confusion matrix" in out
    matrix = [
        line.split(":")[1].split() for line in out.splitlines() if line[:3].strip().rstrip(":").isdigit()
    ]
    assert len(matrix) == 10 and all(len(row) == 10 for row in matrix)
    assert sum(int(v) for row in matrix for v in row) == 128  # 2 test batches of 64
    assert "tensorboard --logdir logs" in out

    tags = event_tags(tmp_path / "logs" / "digits")
    for stage in ("val", "test"):
        assert {f"{stage}/acc", f"{stage}/f1", f"{stage}/recall/0_zero", f"{stage}/recall/9_nine"} <= tags[
            "scalars"
        ]
        for name in (
            "confmat",
            "roc",
            "pr_curve",
            "calibration",
            "recall",
        ):  # e.g. val/calibration/reliability
            assert any(t.split("/")[:2] == [stage, name] for t in tags["images"]), (
                stage,
                name,
                tags["images"],
            )
        assert any(t.startswith(f"{stage}/confmat") for t in tags["tensors"])  # the markdown table (Text tab)
    assert {"train/acc", "train/f1"} <= tags["scalars"]


def test_mixin_multilabel_shows_the_averages_and_pooled_against_batch_mean(tmp_path: Path) -> None:
    out = run_example("mixin_multilabel.py", "--logdir", "logs", cwd=tmp_path).stdout
    rows = table_rows(out, "average")
    assert set(rows) == {"micro", "macro", "weighted", "samples"}, out
    for cells in rows.values():
        assert all(0.0 <= v <= 1.0 for v in floats(cells))
    pooled = float(next(l for l in out.splitlines() if "pooled over the epoch" in l).split()[-1])
    batch_mean = float(next(l for l in out.splitlines() if "mean of per-batch values" in l).split()[-1])
    assert pooled == pytest.approx(float(rows["macro"][2]))
    assert abs(pooled - batch_mean) > 1e-3
    assert list((tmp_path / "logs" / "multilabel").glob("version_*/metrics.csv"))


def test_regression_prints_val_and_test_and_writes_the_csv(tmp_path: Path) -> None:
    out = run_example("regression.py", "--logdir", "logs", cwd=tmp_path).stdout
    rows = table_rows(out, "metric")
    assert set(rows) == {"mse", "mae", "r2", "pearson", "explained_variance"}, out
    mse, mae = floats(rows["mse"]), floats(rows["mae"])
    assert all(m >= a * a - 1e-3 for m, a in zip(mse, mae))  # MSE >= MAE^2 (Jensen)
    assert all(-1.0 <= v <= 1.0 for v in floats(rows["pearson"]))
    (csv_path,) = (tmp_path / "logs" / "diabetes").glob("version_*/metrics.csv")
    with open(csv_path) as handle:
        header = next(csv.reader(handle))
    assert {"val/mse", "val/mae", "val/r2", "val/pearson", "val/explained_variance", "test/r2"} <= set(header)


def test_custom_metric_with_a_cat_state_is_logged_by_the_callback(tmp_path: Path) -> None:
    out = run_example("custom_metric.py", "--logdir", "logs", cwd=tmp_path).stdout
    assert (
        "standalone: {'mistakes': 1.0, 'mistake_confidence_median': 0.9, 'mistake_confidence_max': 0.9}"
        in out
    )
    logged = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0].startswith("val/"):
            logged[parts[0]] = float(parts[1])
    assert {"val/acc", "val/mistakes", "val/mistake_confidence_median", "val/mistake_confidence_max"} <= set(
        logged
    )
    # the sum state agrees with accuracy over the 2 validation batches of 64
    assert logged["val/mistakes"] == pytest.approx(
        (1 - logged["val/acc"]) * 128, abs=0.01
    )  # acc printed to 4 places
    if logged["val/mistakes"]:
        assert 0 < logged["val/mistake_confidence_median"] <= logged["val/mistake_confidence_max"] <= 1
    else:
        assert math.isnan(logged["val/mistake_confidence_median"])


def test_torchmetrics_migration_gives_the_same_values_three_ways(tmp_path: Path) -> None:
    out = run_example("torchmetrics_migration.py", "--logdir", "logs", cwd=tmp_path).stdout
    assert (
        "+        from lightning_metrics.classification import MulticlassAccuracy, MulticlassF1Score" in out
    )
    assert "-        from torchmetrics.classification import MulticlassAccuracy, MulticlassF1Score" in out
    diff_lines = [
        l for l in out.split("version")[0].splitlines() if l.strip().startswith(("+ ", "- ", "+c", "-c"))
    ]
    assert len(diff_lines) == 4, diff_lines  # the class name and the import, nothing else
    rows = [
        line.split()[-2:]
        for line in out.splitlines()
        if "self.log(metric)" in line or "MetricsCallback " in line
    ]
    assert len(rows) == 3 and len({tuple(r) for r in rows}) == 1, out
    assert "All three agree." in out


def test_quickstart_prints_batch_and_epoch_values(tmp_path: Path) -> None:
    out = run_example("quickstart.py", cwd=tmp_path).stdout
    assert out.count("step ") == 5 and "epoch:" in out


def test_tensorboard_screenshots_says_what_to_install_before_any_slow_work(monkeypatch, tmp_path: Path) -> None:
    import importlib.util
    import sys

    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[2] / "examples"))
    import tensorboard_screenshots as shots

    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "selenium" else real_find_spec(name, *a))
    monkeypatch.setattr(shots, "CHROMEDRIVER", str(tmp_path / "no-chromedriver"))
    monkeypatch.setattr(shots, "run_demo", lambda *a: pytest.fail("the demo ran before the check"))
    monkeypatch.setattr(sys, "argv", ["tensorboard_screenshots.py", str(tmp_path / "out")])
    with pytest.raises(SystemExit) as raised:
        shots.main()
    message = str(raised.value.code)
    assert '[screenshots]"' in message and "pip install" in message
    assert "apt-get install -y chromium chromium-driver" in message and "no-chromedriver" in message
    assert not (tmp_path / "out").exists()


def test_other_inputs_logs_detection_text_and_retrieval_from_one_callback(tmp_path: Path) -> None:
    out = run_example("other_inputs.py", cwd=tmp_path)
    values = {line.split()[0]: float(line.split()[1]) for line in out.stdout.splitlines() if line.startswith("val/")}
    assert set(values) == {"val/map", "val/map_50", "val/wer", "val/rmap"}, out.stdout
    assert all(0.0 <= v <= 1.0 for v in values.values()), values
    assert values["val/wer"] == 0.25  # "the cat sat" against "the cat sat down": one deletion in four words
    assert "are -1 (no ground truth" in out.stderr  # the sizes and classes without ground truth, said once
