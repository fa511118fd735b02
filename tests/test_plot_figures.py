"""What a reader sees in a figure, checked on the drawn artists and on the rendered pixels.

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

from lightning_metrics import plotting  # noqa: E402
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


@pytest.mark.parametrize(
    "normalize, says",
    [
        ("true", "normalized over the true class: rows sum to 1"),
        ("pred", "normalized over the predicted class: columns sum to 1"),
        ("all", "normalized over all samples: cells sum to 1"),
    ],
)
def test_normalized_matrix_says_what_it_is_normalized_over(normalize, says) -> None:
    matrix = torch.tensor([[996, 4, 0], [3, 90, 7], [0, 1, 0]])
    fig, ax = plotting.plot_confusion_matrix(matrix, normalize=normalize, title="val/cm · epoch 2")
    assert ax.get_title() == f"val/cm · epoch 2\n{says}"
    texts = [t.get_text() for t in ax.texts]
    assert "<.01" in texts and len(texts) == int((matrix != 0).sum())  # shares, zeros blank
    if normalize == "true":
        assert texts[:2] == ["1", "<.01"]


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
    assert ax.get_title().startswith("val/cm · epoch 0\n60 x 60")


def test_zero_cells_are_white_and_errors_stand_out() -> None:
    matrix = torch.tensor([[300, 1, 0], [0, 250, 2], [0, 0, 280]])
    fig, ax = plotting.plot_confusion_matrix(matrix)
    image = ax.images[0]
    assert image.get_array().mask.tolist() == (matrix == 0).tolist()  # zeros: the "bad" colour
    assert tuple(image.cmap.get_bad()) == (1.0, 1.0, 1.0, 1.0)  # which is white
    assert sorted(t.get_text() for t in ax.texts) == ["1", "2", "250", "280", "300"]  # and unwritten
    fig, ax = plotting.plot_confusion_matrix(matrix, color_scale="log")
    norm = ax.images[0].norm
    assert type(norm).__name__ == "LogNorm" and norm.vmin == 1 and norm.vmax == 300
    assert ax.images[0].get_array().mask.tolist() == (matrix == 0).tolist()
    assert norm(1) == 0 and norm(300) == 1 and 0.1 < norm(2) < 0.2  # 2 errors: visibly above 1
    fig, ax = plotting.plot_confusion_matrix(matrix, color_scale="row")
    shares = ax.images[0].get_array()
    assert shares[1, 2] == pytest.approx(2 / 252) and shares[0, 0] == pytest.approx(300 / 301)
    assert (ax.images[0].norm.vmin, ax.images[0].norm.vmax) == (0.0, 1.0)  # each row on its own scale
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
    assert [t.get_text() for t in panels[2].texts] == ["3", "3"]  # zero cells blank in the grid too
    top = panels[1].images[0]  # the largest count of all panels gets the top colour
    assert top.norm(70) == 1.0 and tuple(top.cmap(top.norm(70))) == tuple(top.cmap(1.0))
    assert all(a.images[0].cmap.name == panels[0].images[0].cmap.name for a in panels)


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
        assert (x == x.max()).sum() == 1  # the lines the loggers' images draw


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
    for option in ("auto", "linear", "log"):
        ax = plotting.plot_curves(roc.compute(), kind="roc", x_scale=option)[1]
        assert ax.get_xscale() == ("log" if option == "log" else "linear")
        assert ("log scale" in ax.get_xlabel()) == (option == "log")


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
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == ["accuracy", "mean confidence", "gap", "perfectly calibrated"]
    assert histogram.get_ylabel() == "samples" and histogram.get_xlabel() == "Confidence"


# --------------------------------------------------------------------- bars
def test_bar_values_share_their_decimals_and_the_chart_has_a_title() -> None:
    values = torch.tensor([0.97, 1.0, 0.5, 1.0])
    fig, ax = plotting.plot_bars(
        values, class_names=list("abcd"), title="val/recall · epoch 5", name="recall"
    )
    assert [t.get_text() for t in ax.texts] == ["0.97", "1.00", "0.50", "1.00"]
    assert ax.get_title() == "val/recall · epoch 5" and ax.get_ylabel() == "recall"
    assert [t.get_text() for t in ax.get_xticklabels()] == list("abcd")


# ---------------------------------------------------------------- the loggers
def test_every_logged_figure_is_titled_with_its_tag_and_epoch(monkeypatch) -> None:
    titles: list = []
    draw = plotting.render_image

    def spy(kind, value, **options):
        titles.append((kind, options.get("title")))
        image = draw(kind, value, **options)
        assert image.shape[0] <= 560 and image.shape[1] <= 640 and image.std() > 0  # sized for the card
        return image

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
        render_result("val", name, value, epoch=7, **options)
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
    assert plt.get_fignums() == []  # every logged figure is drawn off-screen
