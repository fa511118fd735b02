"""Plotting: value shapes, drawing functions, plot()/MetricCollection.plot(), off-screen rendering."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402
from PIL import Image  # noqa: E402
from sklearn.metrics import confusion_matrix as sk_confusion_matrix  # noqa: E402
from sklearn.metrics import roc_auc_score

import lightning_metrics as lm  # noqa: E402
from lightning_metrics import plotting  # noqa: E402
from lightning_metrics.aggregation import MaxMetric, MeanMetric  # noqa: E402
from lightning_metrics.integration.loggers import png_bytes  # noqa: E402
from lightning_metrics.classification import (  # noqa: E402
    BinaryCalibrationError,
    BinaryPrecisionRecallCurve,
    BinaryROC,
    MulticlassCalibrationError,
    MulticlassConfusionMatrix,
    MulticlassF1Score,
    MulticlassROC,
    MultilabelConfusionMatrix,
)

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _scores(n: int = 60, c: int = 3, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    return torch.randn(n, c, generator=g).softmax(-1), torch.randint(0, c, (n,), generator=g)


def test_import_loads_neither_matplotlib_nor_scipy() -> None:
    code = (
        "import sys, lightning_metrics, lightning_metrics.plotting, lightning_metrics.metric\n"
        "print(sorted(m for m in ('matplotlib', 'scipy', 'PIL') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize(
    "value, kind",
    [
        (torch.tensor(0.5), "scalar"),
        (3, "scalar"),
        (torch.tensor([0.5]), "scalar"),
        (torch.tensor([0.1, 0.2]), "vector"),
        (torch.eye(3), "matrix"),
        (torch.zeros(4, 2, 2), "multilabel_matrix"),
        (torch.zeros(4, 3, 3), "other"),
        (torch.zeros(0), "other"),
        ((torch.rand(3), torch.rand(3), torch.rand(2)), "curve"),
        (([torch.rand(3)], [torch.rand(3)], [torch.rand(2)]), "curve"),
        ((torch.rand(2, 5), torch.rand(2, 5), torch.rand(5)), "curve"),
        ([torch.tensor(0.1), 0.2], "series"),
        ((torch.tensor(0.9), torch.tensor(0.3)), "series"),
        ([{"a": torch.tensor(1.0)}], "series_of_mappings"),
        ({"a": torch.tensor(1.0)}, "mapping"),
        ("text", "other"),
    ],
)
def test_value_kind(value, kind) -> None:
    assert plotting.value_kind(value) == kind


@pytest.mark.parametrize(
    "metric, name, kind",
    [
        (BinaryROC(), None, "roc"),
        (MulticlassROC(3), None, "roc"),
        (BinaryPrecisionRecallCurve(), None, "pr"),
        (None, "val/roc", "roc"),
        (None, "val/pr_curve", "pr"),
        (None, "val/auroc", None),
        (None, "lift", None),
    ],
)
def test_curve_kind(metric, name, kind) -> None:
    assert plotting.curve_kind(metric, name) == kind


@pytest.mark.parametrize("normalize", ["true", "pred", "all", None])
def test_normalize_confusion_matches_sklearn(normalize) -> None:
    _, target = _scores(80, 4, seed=1)
    preds = torch.roll(target, 3)
    matrix = torch.as_tensor(sk_confusion_matrix(target, preds, labels=range(4)))
    expected = sk_confusion_matrix(target, preds, labels=range(4), normalize=normalize)
    torch.testing.assert_close(
        plotting.normalize_confusion(matrix, normalize).double(),
        torch.as_tensor(expected).double(),
        rtol=1e-6,
        atol=1e-7,
    )


def test_normalize_confusion_rejects_unknown_mode() -> None:
    with pytest.raises(ValueError, match="normalize"):
        plotting.normalize_confusion(torch.eye(2), "rows")


def test_confusion_matrix_has_counts_in_cells_and_names_on_axes() -> None:
    matrix = torch.tensor([[5, 1, 0], [2, 7, 1], [0, 0, 9]])
    fig, ax = plotting.plot_confusion_matrix(matrix, class_names=["ant", "bee", "cow"])
    assert [t.get_text() for t in ax.texts] == [str(v) for v in matrix.flatten().tolist() if v]  # 0: blank
    assert [t.get_text() for t in ax.get_xticklabels()] == ["ant", "bee", "cow"]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["ant", "bee", "cow"]
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("Predicted", "True")
    fig, ax = plotting.plot_confusion_matrix(matrix, normalize="true")
    assert [t.get_text() for t in ax.texts][:3] == [".83", ".17", ".20"]


def test_multilabel_confusion_matrices_are_a_grid_of_2x2() -> None:
    matrices = torch.randint(0, 9, (5, 2, 2))
    fig, axes = plotting.plot_confusion_matrix(matrices, class_names=list("abcde"))
    visible = [a for a in axes.flat if a.get_visible()]
    assert [a.get_title() for a in visible] == list("abcde")
    assert [t.get_text() for t in visible[2].texts] == [str(v) for v in matrices[2].flatten().tolist() if v]
    with pytest.raises(ValueError, match="at least 5 axes"):
        plotting.plot_confusion_matrix(matrices, ax=[visible[0]])


def test_curves_one_line_per_class_with_auc_in_legend() -> None:
    preds, target = _scores(120)
    roc = MulticlassROC(3)
    roc.update(preds, target)
    fig, ax = roc.plot()
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    expected = [roc_auc_score(target == c, preds[:, c]) for c in range(3)]
    assert legend == [f"{c} (AUC={auc:.3f})" for c, auc in enumerate(expected)]
    assert ax.get_xlabel() == "False positive rate"
    binned = MulticlassROC(3, thresholds=11)
    binned.update(preds, target)
    fig, ax = plotting.plot_curves(binned.compute(), kind="roc", class_names=["ant", "bee", "cow"])
    assert [t.get_text().split(" ")[0] for t in ax.get_legend().get_texts()] == ["ant", "bee", "cow"]


def test_binary_pr_curve_puts_recall_on_x() -> None:
    preds, target = _scores(50, 2)
    metric = BinaryPrecisionRecallCurve()
    metric.update(preds[:, 1], target)
    precision, recall, _ = metric.compute()
    fig, ax = metric.plot()
    line = ax.get_lines()[0]
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("Recall", "Precision")
    # recall rising, up to the first point at full recall (the rest only adds negatives)
    full = int(torch.nonzero(recall.flip(0) == 1)[0])
    assert line.get_xdata().tolist() == pytest.approx(recall.flip(0)[: full + 1].tolist())
    assert line.get_ydata().tolist() == pytest.approx(precision.flip(0)[: full + 1].tolist())
    assert line.get_drawstyle() == "steps-pre" and ax.get_legend().get_texts()[0].get_text().startswith("AP=")


def test_plot_metric_dispatches_on_the_value() -> None:
    preds, target = _scores(60)
    confmat, f1 = MulticlassConfusionMatrix(3), MulticlassF1Score(3, average=None)
    for metric in (confmat, f1):
        metric.update(preds, target)
    fig, ax = confmat.plot()
    assert len(ax.images) == 1 and len(ax.texts) == int((confmat.compute() != 0).sum())
    fig, ax = f1.plot()
    assert len(ax.patches) == 3
    mean = MeanMetric()
    values = [mean(torch.tensor([float(i)])) for i in range(4)]
    fig, ax = mean.plot(values)
    assert ax.get_lines()[0].get_ydata().tolist() == [0.0, 1.0, 2.0, 3.0]  # batch values
    fig, ax = plotting.plot_metric(mean, val={"a": torch.tensor(1.0), "b": torch.tensor(2.0)})
    assert [t.get_text() for t in ax.get_xticklabels()] == ["a", "b"]
    multilabel = MultilabelConfusionMatrix(num_labels=4)
    multilabel.update(torch.rand(20, 4), torch.randint(0, 2, (20, 4)))
    fig, axes = multilabel.plot()
    assert sum(a.get_visible() for a in axes.flat) == 4
    with pytest.raises(ValueError, match="cannot draw a value of MeanMetric shaped"):
        mean.plot(torch.zeros(2, 2, 2, 2))


def test_scalar_plot_uses_bounds_and_direction() -> None:
    metric = BinaryCalibrationError(n_bins=4)
    metric.update(torch.rand(30), torch.randint(0, 2, (30,)))
    fig, ax = metric.plot()
    low, high = ax.get_ylim()
    assert low < 0.0 and high > 1.0 and "lower is better" in ax.get_title()


def test_reliability_bins_from_our_histogram_and_from_torchmetrics_states() -> None:
    torchmetrics = pytest.importorskip("torchmetrics")
    g = torch.Generator().manual_seed(3)
    probs, target = torch.rand(200, generator=g), torch.randint(0, 2, (200,), generator=g)
    probs[:3] = 1.0  # confidences of exactly one join the last bin
    ours, theirs = (
        BinaryCalibrationError(n_bins=5),
        torchmetrics.classification.BinaryCalibrationError(n_bins=5),
    )
    ours.update(probs, target)
    theirs.update(probs, target)
    # binary calibration (as torchmetrics): the confidence is the score, the accuracy the target
    confidence, correct = probs, target.double()
    index = (confidence * 5).long().clamp(max=4)
    count = torch.bincount(index, minlength=5).double()
    expected = (
        torch.bincount(index, confidence.double(), 5) / count,
        torch.bincount(index, correct, 5) / count,
        count,
    )
    for metric in (ours, theirs):
        bins = plotting.reliability_bins(metric)
        for got, want in zip(bins, expected):
            torch.testing.assert_close(got, torch.nan_to_num(want), rtol=1e-6, atol=1e-7)
    fig, ax = plotting.plot_reliability(plotting.reliability_bins(ours))
    assert ax.get_title().startswith("ECE=")
    assert plotting.reliability_bins(MeanMetric()) is None


def test_metric_collection_plot() -> None:
    collection = lm.MetricCollection({"mean": MeanMetric(), "max": MaxMetric()})
    values = [collection(torch.tensor([float(i), 2.0 * i])) for i in range(3)]
    separate = collection.plot()
    assert len(separate) == 2 and all(len(pair) == 2 for pair in separate)
    fig, ax = collection.plot(values, together=True)
    assert sorted(t.get_text() for t in ax.get_legend().get_texts()) == ["max", "mean"]
    assert len(collection.plot(values)) == 2
    with pytest.raises(ValueError, match="together"):
        collection.plot(together="yes")
    with pytest.raises(ValueError, match="sequence of 2 axes"):
        collection.plot(ax=[plt.subplots()[1]])


@pytest.mark.parametrize(
    "kind, value, options",
    [
        ("confusion_matrix", torch.tensor([[3, 1], [0, 4]]), {"class_names": ["a", "b"]}),
        ("confusion_matrix", torch.randint(0, 5, (3, 2, 2)), {"normalize": "true"}),
        ("bars", torch.tensor([0.2, 0.9, float("nan")]), {}),
        (
            "curves",
            (torch.tensor([0.0, 0.5, 1.0]), torch.tensor([0.0, 0.8, 1.0]), torch.tensor([1.0, 0.5])),
            {"curve_kind": "roc"},
        ),
        ("reliability", (torch.tensor([0.2, 0.7]), torch.tensor([0.3, 0.6]), torch.tensor([4.0, 6.0])), {}),
        ("scalars", [torch.tensor(0.1), torch.tensor(0.3)], {"title": "loss"}),
    ],
)
@pytest.mark.parametrize("with_pyplot_figure_open", [False, True])
def test_render_image_draws_off_screen_without_pyplot_figures(kind, value, options, with_pyplot_figure_open) -> None:
    if with_pyplot_figure_open:
        plt.figure()  # the user's current figure is neither drawn on nor replaced
    before, current = plt.get_fignums(), plt.gcf() if with_pyplot_figure_open else None
    image = plotting.render_image(kind, value, **options)
    assert image.dtype.name == "uint8" and image.ndim == 3 and image.shape[2] == 3
    assert image.shape[0] > 20 and image.shape[1] > 20 and image.std() > 0  # something drawn
    assert image.shape[0] <= 560 and image.shape[1] <= 640  # sized for TensorBoard's card
    assert plt.get_fignums() == before  # off-screen figures, never registered with pyplot
    if current is not None:
        assert plt.gcf() is current and not current.axes


def test_confusion_cells_are_viridis_with_ink_that_reads_on_them() -> None:
    fig, ax = plotting.plot_confusion_matrix(torch.tensor([[0, 9], [4, 1]]), color_scale="log")
    image = ax.images[0]
    ends = image.cmap(image.norm(np.array([1.0, 9.0])))
    assert np.allclose(ends[0][:3], np.array([68, 1, 84]) / 255, atol=0.01)  # viridis ends: 1 and 9
    assert np.allclose(ends[1][:3], np.array([253, 231, 37]) / 255, atol=0.01)
    ink = {t.get_text(): t.get_color() for t in ax.texts}
    assert ink == {"9": "black", "4": "black", "1": "white"}  # dark ink on bright cells; 0 is blank


def test_bar_heights_in_the_rendered_pixels() -> None:
    image = torch.from_numpy(plotting.render_image("bars", torch.tensor([1.0, 0.5])))
    blue = torch.tensor([31, 119, 180], dtype=torch.uint8)  # matplotlib's tab:blue
    is_blue = (image == blue).all(-1)
    columns = torch.nonzero(is_blue.sum(0) > 5).flatten()
    middle = columns.float().mean()
    left, right = columns[columns < middle], columns[columns > middle]
    heights = [is_blue[:, int(c[len(c) // 2])].sum().item() for c in (left, right)]
    assert heights[0] == pytest.approx(2 * heights[1], abs=2)


def test_png_bytes_round_trip_through_pil() -> None:
    image = plotting.render_image("confusion_matrix", torch.arange(12).reshape(3, 4))
    decoded = np.array(Image.open(io.BytesIO(png_bytes(image))).convert("RGB"))
    assert np.array_equal(decoded, image)


def test_multiclass_calibration_plot_data_sums_to_samples() -> None:
    preds, target = _scores(90)
    metric = MulticlassCalibrationError(num_classes=3, n_bins=6)
    metric.update(preds, target)
    confidence, accuracy, count = plotting.reliability_bins(metric)
    assert count.sum().item() == 90 and ((accuracy >= 0) & (accuracy <= 1)).all()
