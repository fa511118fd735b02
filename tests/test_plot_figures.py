"""What a reader sees in a figure, checked on the drawn artists (matplotlib) and pixels (raster).

The rules of issue 23: zero cells blank and normalized cells never in scientific notation, the
normalization named, values legible at card size up to 20 classes, one colour scale for a
multilabel grid, the average precision (as the metric computes it) in a PR legend and no drop at
full recall, a log false-positive axis when every ROC AUC is high, a reliability diagram whose
accuracy, confidence and counts cannot be confused, bar values with one number of decimals, and
the epoch in every logged figure's title.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from sklearn.metrics import average_precision_score, roc_auc_score  # noqa: E402

from lightning_metrics import _raster, plotting  # noqa: E402
from lightning_metrics._plot_data import color_levels  # noqa: E402
from lightning_metrics._raster_font import text_mask  # noqa: E402
from lightning_metrics.classification import (  # noqa: E402
    MulticlassAveragePrecision,
    MulticlassCalibrationError,
    MulticlassConfusionMatrix,
    MulticlassPrecisionRecallCurve,
    MulticlassROC,
)
from lightning_metrics.integration.rendering import render_result  # noqa: E402

PX_PER_POINT = 100 / 72  # the figures are drawn at 100 dpi


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _scores(n: int, c: int, seed: int, signal: float = 2.0) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    target = torch.randint(0, c, (n,), generator=g)
    logits = torch.randn(n, c, generator=g) + signal * F.one_hot(target, c)
    return logits.softmax(-1), target


def _confusion(n: int, c: int, seed: int, signal: float = 2.0) -> torch.Tensor:
    preds, target = _scores(n, c, seed, signal)
    metric = MulticlassConfusionMatrix(c)
    metric.update(preds, target)
    return metric.compute()


def find_text(image, text: str, scale: int = 2, colour=(0, 0, 0), rows: slice = slice(None)) -> bool:
    """Whether ``text`` is drawn in the font of the raster renderer, exactly, somewhere in ``image``."""
    ink = (torch.as_tensor(image)[rows] == torch.tensor(colour, dtype=torch.uint8)).all(-1).float()
    mask = text_mask(text, scale).float()
    if ink.shape[0] < mask.shape[0] or ink.shape[1] < mask.shape[1]:
        return False
    hits = F.conv2d(ink[None, None], mask[None, None])[0, 0]
    inked = F.conv2d(ink[None, None], torch.ones_like(mask)[None, None])[0, 0]
    return bool(((hits == mask.sum()) & (inked == mask.sum())).any())


# ---------------------------------------------------------- confusion matrix
@settings(max_examples=25, deadline=None)
@given(
    st.integers(2, 12),
    st.integers(0, 10_000),
    st.sampled_from(["true", "pred", "all"]),
    st.floats(0.0, 4.0),
)
def test_normalized_cells_never_print_in_scientific_notation(classes, seed, normalize, signal) -> None:
    matrix = _confusion(400, classes, seed, signal)
    matrix[0, 0] += 5000  # shares far below 0.01 next to it
    fig, ax = plotting.plot_confusion_matrix(matrix, normalize=normalize)
    texts = [t.get_text() for t in ax.texts]
    assert texts and all("e" not in t and len(t) <= 4 for t in texts), texts
    assert len(texts) == int((matrix != 0).sum())  # zero cells are blank
    plt.close(fig)


def test_normalized_matrix_says_what_it_is_normalized_over_in_both_renderers() -> None:
    matrix = torch.tensor([[996, 4, 0], [3, 90, 7], [0, 1, 0]])
    fig, ax = plotting.plot_confusion_matrix(matrix, normalize="true", title="val/cm · epoch 2")
    assert ax.get_title() == "val/cm · epoch 2\nnormalized over the true class: rows sum to 1"
    assert [t.get_text() for t in ax.texts][:2] == ["1", "<.01"]
    image = _raster.confusion_image(matrix, normalize="pred", title="val/cm · epoch 2")
    band = slice(0, 60)
    assert find_text(image, "val/cm · epoch 2", rows=band)
    assert find_text(image, "columns sum to 1", rows=band)
    assert find_text(image, "<.01", colour=(255, 255, 255)) or find_text(image, "<.01")


@pytest.mark.parametrize("classes", [3, 10, 20])
def test_values_and_names_are_sized_for_the_card(classes) -> None:
    matrix = _confusion(60 * classes, classes, seed=classes, signal=3.0) * 11  # three-digit counts
    fig, ax = plotting.plot_confusion_matrix(matrix, class_names=[f"class{i}" for i in range(classes)])
    assert ax.texts, "the values are written"
    assert min(t.get_fontsize() for t in ax.texts) * PX_PER_POINT >= 8
    labels = [t for t in ax.get_yticklabels() if t.get_text()]
    assert len(labels) == classes and min(t.get_fontsize() for t in labels) * PX_PER_POINT >= 9
    fig.canvas.draw()
    width, height = fig.canvas.get_width_height()
    assert width <= 560 and height <= 520  # the card shrinks it by at most about 1.6


def test_too_many_classes_to_annotate_are_noted_not_crammed() -> None:
    matrix = _confusion(4000, 60, seed=1)
    fig, ax = plotting.plot_confusion_matrix(matrix, title="val/cm · epoch 0")
    assert len(ax.texts) == 0 and "too many cells to write the values" in ax.get_title()
    image = _raster.confusion_image(matrix, title="val/cm · epoch 0")
    assert find_text(image, "too many cells", rows=slice(0, 80))


def test_zero_cells_are_white_and_errors_stand_out() -> None:
    matrix = torch.tensor([[300, 1, 0], [0, 250, 2], [0, 0, 280]])
    image = _raster.heatmap(matrix, values=False)
    levels = color_levels(matrix.double())
    assert torch.isnan(levels[0, 2]) and not torch.isnan(levels[0, 1])
    colours = {tuple(c) for c in _raster.colormap(levels).reshape(-1, 3).tolist()}
    assert (255, 255, 255) in colours and len(colours) == 1 + len(set(matrix[matrix != 0].tolist()))
    assert (image == torch.tensor([255, 255, 255], dtype=torch.uint8)).all(-1).sum() > 0
    fig, ax = plotting.plot_confusion_matrix(matrix, color_scale="log")
    assert type(ax.images[0].norm).__name__ == "LogNorm"
    assert ax.images[0].norm.vmin == 1 and ax.images[0].norm.vmax == 300
    masked = ax.images[0].get_array().mask
    assert masked.tolist() == (matrix == 0).tolist()  # zeros are drawn in the "bad" colour: white
    log = color_levels(matrix.double(), "log")
    assert log[0, 1] == 0 and log[0, 0] == 1 and 0.1 < log[1, 2] < 0.2  # 2 errors: visibly above 1
    row = color_levels(matrix.double(), "row")
    torch.testing.assert_close(row[1, 2], torch.tensor(2 / 252, dtype=torch.float64))
    with pytest.raises(ValueError, match="color_scale"):
        plotting.plot_confusion_matrix(matrix, color_scale="sqrt")


def test_multilabel_grid_shares_one_colour_scale_with_neg_pos_ticks() -> None:
    matrices = torch.tensor([[[5, 1], [2, 7]], [[50, 10], [20, 70]], [[0, 3], [3, 0]]])
    fig, axes = plotting.plot_confusion_matrix(
        matrices, class_names=["a", "b", "c"], title="val/ml · epoch 4"
    )
    panels = [a for a in axes.flat if a.get_visible()]
    norms = {(a.images[0].norm.vmin, a.images[0].norm.vmax) for a in panels}
    assert norms == {(0.0, 70.0)}  # the same colour means the same count in every panel
    assert all([t.get_text() for t in a.get_xticklabels()] == ["neg", "pos"] for a in panels)
    assert (
        fig._suptitle.get_text() == "val/ml · epoch 4" and len(fig.axes) == len(axes.flat) + 1
    )  # + colour bar
    image = _raster.confusion_image(matrices.double(), names=["a", "b", "c"], title="val/ml · epoch 4")
    colours = _raster.colormap(color_levels(matrices.double()))
    assert colours[0, 0, 0].tolist() == colours[1, 0, 0].tolist() or matrices[0, 0, 0] != matrices[1, 0, 0]
    assert colours[2, 0, 1].tolist() == colours[2, 1, 0].tolist()
    assert colours[1, 1, 1].tolist() == [253, 231, 37]  # the largest count of all panels: the top colour
    assert find_text(image, "neg") and find_text(image, "pos") and find_text(image, "val/ml · epoch 4")


# -------------------------------------------------------------------- curves
@pytest.mark.parametrize("thresholds", [None, 25])
def test_pr_legend_is_the_average_precision_of_the_metric_and_sklearn(thresholds) -> None:
    torchmetrics = pytest.importorskip("torchmetrics")
    preds, target = _scores(300, 4, seed=5, signal=1.5)
    curve = MulticlassPrecisionRecallCurve(4, thresholds=thresholds)
    curve.update(preds, target)
    fig, ax = plotting.plot_curves(curve.compute(), kind="pr", class_names=list("abcd"))
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    ours = MulticlassAveragePrecision(4, average=None, thresholds=thresholds)(preds, target)
    theirs = torchmetrics.classification.MulticlassAveragePrecision(4, average=None, thresholds=thresholds)(
        preds, target
    )
    assert legend == [f"{c} (AP={float(ap):.3f})" for c, ap in zip("abcd", ours)]
    torch.testing.assert_close(ours, theirs, rtol=1e-6, atol=1e-7)
    scores = plotting.curve_scores(curve.compute(), "pr")
    torch.testing.assert_close(torch.tensor(scores, dtype=torch.float64), ours.double(), rtol=1e-6, atol=1e-6)
    if thresholds is None:  # exact curves: scikit-learn's average precision
        expected = [average_precision_score((target == c).numpy(), preds[:, c].numpy()) for c in range(4)]
        assert scores == pytest.approx(expected, rel=1e-6)
    macro = MulticlassAveragePrecision(4, average="macro", thresholds=thresholds)(preds, target)
    assert ax.get_legend().get_title().get_text() == f"macro AP={float(macro):.3f}"


def test_pr_curves_stop_at_full_recall_without_a_vertical_drop() -> None:
    preds, target = _scores(200, 3, seed=2, signal=1.0)
    curve = MulticlassPrecisionRecallCurve(3)
    curve.update(preds, target)
    fig, ax = plotting.plot_curves(curve.compute(), kind="pr")
    for line in ax.get_lines():
        x = torch.tensor(line.get_xdata())
        assert (x == 1.0).sum() == 1 and x[-1] == 1.0 and (x[1:] >= x[:-1]).all()
    for x, _ in plotting.curve_lines(curve.compute(), "pr"):
        assert (x == x.max()).sum() == 1  # the raster renderer draws the same lines


def test_roc_gets_a_log_false_positive_axis_when_every_auc_is_high() -> None:
    good, target = _scores(400, 5, seed=3, signal=5.0)
    roc = MulticlassROC(5)
    roc.update(good, target)
    fig, ax = plotting.plot_curves(roc.compute(), kind="roc")
    aucs = [roc_auc_score((target == c).numpy(), good[:, c].numpy()) for c in range(5)]
    assert min(aucs) >= 0.95 and ax.get_xscale() == "log" and "log scale" in ax.get_xlabel()
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [
        f"{c} (AUC={a:.3f})" for c, a in enumerate(aucs)
    ]
    weak, target = _scores(400, 5, seed=3, signal=0.5)
    roc = MulticlassROC(5)
    roc.update(weak, target)
    assert plotting.plot_curves(roc.compute(), kind="roc")[1].get_xscale() == "linear"
    assert plotting.plot_curves(roc.compute(), kind="roc", x_scale="log")[1].get_xscale() == "log"
    for option in ("auto", "log"):
        image = _raster.curves_image(roc.compute(), "roc", title="val/roc · epoch 1", x_scale=option)
        assert find_text(image, "false positive rate (log)") == (option == "log")


# --------------------------------------------------------------- reliability
def test_reliability_diagram_draws_accuracy_confidence_gap_and_counts_apart() -> None:
    confidence = torch.tensor([0.0, 0.35, 0.55, 0.95])
    accuracy = torch.tensor([0.0, 0.7, 0.5, 0.97])  # under-confident, then over, then about right
    count = torch.tensor([0.0, 3.0, 40.0, 250.0])
    fig, ax = plotting.plot_reliability((confidence, accuracy, count), title="val/calib · epoch 0")
    bars = [p for p in ax.patches if p.get_fill()]
    gaps = [p for p in ax.patches if not p.get_fill()]
    assert [round(p.get_height(), 6) for p in bars] == [0.7, 0.5, 0.97]  # accuracy, empty bin skipped
    assert [(round(p.get_y(), 6), round(p.get_y() + p.get_height(), 6)) for p in gaps] == [
        (0.35, 0.7),
        (0.5, 0.55),
        (0.95, 0.97),
    ]  # the gap is an outline between confidence and accuracy, never a fill over the bar
    ticks = [
        line.get_ydata()[0]
        for line in ax.get_lines()
        if line.get_color() == "black" and len(line.get_ydata())
    ]
    assert ticks == pytest.approx([0.35, 0.55, 0.95])  # the mean confidence, drawn apart
    histogram = fig.axes[1]
    assert [round(p.get_height()) for p in histogram.patches] == [0, 3, 40, 250]
    assert [t.get_text() for t in histogram.texts] == ["3", "40", "250"]
    assert ax.get_title().startswith("val/calib · epoch 0 · ECE=")
    image = _raster.reliability(confidence, accuracy, count, title="val/calib · epoch 0")
    assert (
        find_text(image, "250")
        and find_text(image, "mean confidence")
        and find_text(image, "samples per bin", 1, (64, 64, 64))
    )


# --------------------------------------------------------------------- bars
def test_bar_values_share_their_decimals_and_the_chart_has_a_title() -> None:
    values = torch.tensor([0.97, 1.0, 0.5, 1.0])
    fig, ax = plotting.plot_bars(
        values, class_names=list("abcd"), title="val/recall · epoch 5", name="recall"
    )
    assert [t.get_text() for t in ax.texts] == ["0.97", "1.00", "0.50", "1.00"]
    assert ax.get_title() == "val/recall · epoch 5" and ax.get_ylabel() == "recall"
    image = _raster.bars(values, title="val/recall · epoch 5", names=list("abcd"))
    assert find_text(image, "val/recall · epoch 5") and find_text(image, "1.00") and find_text(image, "0.97")


# ---------------------------------------------------------------- the loggers
def test_every_logged_figure_is_titled_with_its_tag_and_epoch(monkeypatch) -> None:
    titles: list = []
    draw = plotting.render_image

    def spy(kind, value, **options):
        titles.append((kind, options.get("title")))
        return draw(kind, value, **options)

    monkeypatch.setattr(plotting, "render_image", spy)
    preds, target = _scores(80, 3, seed=4)
    calibration = MulticlassCalibrationError(3, n_bins=5)
    calibration.update(preds, target)
    roc = MulticlassROC(3)
    roc.update(preds, target)
    cases = [
        ("confmat", _confusion(80, 3, 4), {"normalize": "true"}),
        ("ml", torch.randint(0, 9, (3, 2, 2)), {}),
        ("roc", roc.compute(), {"metric": roc}),
        ("f1", torch.tensor([0.5, 0.75, 1.0]), {"kind": "per_class"}),
        ("calib", calibration.compute(), {"metric": calibration, "kind": "scalar"}),
    ]
    for name, value, options in cases:
        render_result("val", name, value, epoch=7, backend="raster", **options)
    assert [kind for kind, _ in titles] == [
        "confusion_matrix",
        "confusion_matrix",
        "confusion_matrix",
        "curves",
        "bars",
        "reliability",
    ]
    assert [title for _, title in titles] == [
        "val/confmat · epoch 7",
        "val/confmat/normalized · epoch 7",
        "val/ml · epoch 7",
        "val/roc · epoch 7",
        "val/f1 · epoch 7",
        "val/calib/reliability · epoch 7",
    ]
    monkeypatch.undo()
    rendering = render_result("val", "confmat", _confusion(80, 3, 4), epoch=7, backend="raster")
    assert find_text(rendering.images[0][2], "val/confmat · epoch 7", rows=slice(0, 40))
