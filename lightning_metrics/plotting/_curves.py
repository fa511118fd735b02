"""ROC and precision-recall curves and reliability diagrams, drawn with matplotlib.

- A precision-recall curve is drawn as the steps its average precision sums (recall rising,
  up to the first point at full recall), and its legend gives that average precision: the
  value of ``MulticlassAveragePrecision(average=None)`` and of scikit-learn, not a trapezoid.
- A ROC curve whose every AUC is at least :data:`HIGH_AUC` crowds into the top-left corner, so
  by default its false-positive axis is then logarithmic (``x_scale="auto"``).
- A reliability diagram draws accuracy as solid bars, the mean confidence as a black tick and
  the gap between them as a red outline (never a fill, which would change the colour of the
  bar it lies on), so neither can be read as the other; a histogram
  below counts the samples of each bin, so an almost empty bin is not taken for a verdict.

>>> import torch
>>> bins = (torch.tensor([0.25, 0.75]), torch.tensor([0.5, 0.5]), torch.tensor([2.0, 6.0]))
>>> fig, ax = plot_reliability(bins, title="val/calib · epoch 1")
>>> ax.get_title(), [t.get_text() for t in fig.axes[1].texts]
('val/calib · epoch 1 · ECE=0.2500', ['2', '6'])
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

import torch
from torch import Tensor

from lightning_metrics.plotting._data import _as_tensor, _labels, curve_lines, curve_scores, mean_score
from lightning_metrics.plotting._figure import points, subplots
from lightning_metrics.utilities.checks import check_choice

HIGH_AUC = 0.95  # every ROC curve at least this good: the false-positive axis goes logarithmic


def roc_log_floor(lines: Sequence[tuple[Tensor, Tensor]]) -> float:
    """The left edge of a logarithmic false-positive axis: half the smallest non-zero rate.

    >>> import torch
    >>> roc_log_floor([(torch.tensor([0.0, 0.02, 1.0]), torch.tensor([0.0, 0.9, 1.0]))])
    0.01
    """
    positive = [x[x > 0] for x, _ in lines]
    smallest = min((float(p.min()) for p in positive if p.numel()), default=2e-3)
    return max(smallest / 2, 1e-4)


def choose_x_scale(kind: Optional[str], scores: Sequence[float], x_scale: str) -> str:
    """``"log"`` or ``"linear"``: ``"auto"`` is log for ROC curves that are all above :data:`HIGH_AUC`."""
    check_choice("x_scale", x_scale, ("auto", "linear", "log"))
    if x_scale != "auto":
        return x_scale if kind == "roc" else "linear"
    finite = [s for s in scores if s == s]
    return "log" if kind == "roc" and finite and min(finite) >= HIGH_AUC else "linear"


def curve_label(kind: Optional[str]) -> str:
    return "AP" if kind == "pr" else "AUC"


def plot_curves(
    value: Any,
    kind: Optional[str] = None,
    class_names: Optional[Sequence[Any]] = None,
    ax: Any = None,
    title: Optional[str] = None,
    x_scale: str = "auto",
) -> tuple[Any, Any]:
    """ROC (``kind="roc"``), precision-recall (``"pr"``) or generic curves, one line per class.

    The legend gives each curve's average precision (PR) or area (ROC, generic), and the macro
    mean when there are several. ``x_scale``: ``"auto"`` (log false-positive rates when every
    AUC is high), ``"linear"`` or ``"log"`` (ROC only).

    >>> import torch
    >>> fpr, tpr = torch.tensor([0.0, 0.0, 1.0]), torch.tensor([0.0, 1.0, 1.0])
    >>> fig, ax = plot_curves((fpr, tpr, torch.tensor([1.0, 0.5, 0.0])), kind="roc", x_scale="linear")
    >>> [t.get_text() for t in ax.get_legend().get_texts()]
    ['AUC=1.000']
    """
    check_choice("kind", kind, ("roc", "pr", None))
    lines = curve_lines(value, kind)
    scores = curve_scores(value, kind)
    scale = choose_x_scale(kind, scores, x_scale)
    fig, ax = subplots(ax, figsize=(5.0, 4.6))
    single = len(lines) == 1
    name = curve_label(kind)
    floor = roc_log_floor(lines) if scale == "log" else 0.0
    for label, (x, y), score in zip(_labels(len(lines), class_names), lines, scores):
        text = f"{name}={score:.3f}" if single else f"{label} ({name}={score:.3f})"
        if scale == "log":
            x = x.clamp(min=floor)
        style = {"drawstyle": "steps-pre"} if kind == "pr" else {}
        ax.plot(x.tolist(), y.tolist(), linewidth=1.5, label=text, **style)
    if kind == "roc":
        chance = (
            torch.logspace(torch.log10(torch.tensor(floor)), 0, 60)
            if scale == "log"
            else torch.tensor([0.0, 1.0])
        )
        ax.plot(chance.tolist(), chance.tolist(), linestyle="--", color="grey", linewidth=0.8)
        ax.set_ylabel("True positive rate", fontsize=points(12))
        if scale == "log":
            ax.set_xscale("log")
            ax.set_xlim(floor, 1.0)
            ax.set_xlabel("False positive rate (log scale, 0 at the left edge)", fontsize=points(12))
        else:
            ax.set_xlim(-0.02, 1.02)
            ax.set_xlabel("False positive rate", fontsize=points(12))
    elif kind == "pr":
        ax.set_xlabel("Recall", fontsize=points(12))
        ax.set_ylabel("Precision", fontsize=points(12))
        ax.set_xlim(-0.02, 1.02)
    if kind is not None:
        ax.set_ylim(-0.02, 1.02)
    ax.tick_params(labelsize=points(11))
    legend_title = None if single else f"macro {name}={mean_score(scores):.3f}"
    where = {"roc": "lower right", "pr": "lower left"}.get(kind, "best")
    legend = ax.legend(
        loc=where,
        fontsize=points(10),
        title=legend_title,
        title_fontsize=points(10),
        framealpha=0.85,
        handlelength=1.2,
        labelspacing=0.25,
        borderaxespad=0.3,
    )
    legend.get_frame().set_linewidth(0.5)
    ax.grid(True, alpha=0.3)
    if title:
        ax.set_title(title, fontsize=points(13))
    return fig, ax


def expected_calibration_error(confidence: Tensor, accuracy: Tensor, count: Tensor) -> float:
    """The count-weighted mean gap between accuracy and confidence over the bins (the ECE).

    >>> import torch
    >>> expected_calibration_error(torch.tensor([0.2, 0.8]), torch.tensor([0.4, 0.8]), torch.tensor([1.0, 3.0]))
    0.05
    """
    total = count.sum()
    return float((count * (accuracy - confidence).abs()).sum() / total) if total > 0 else float("nan")


def plot_reliability(
    bins: tuple[Tensor, Tensor, Tensor], ax: Any = None, title: Optional[str] = None
) -> tuple[Any, Any]:
    """Reliability diagram: accuracy per confidence bin, its mean confidence, the gap, the counts.

    ``bins`` is ``(mean confidence, accuracy, count)`` per bin, e.g. :func:`reliability_bins`.
    A new figure has the samples per bin as a histogram below the diagram (``fig.axes[1]``);
    on a given ``ax`` the counts are written over the bars. Returns the diagram's axes.

    >>> import torch
    >>> bins = (torch.tensor([0.25, 0.75]), torch.tensor([0.5, 0.5]), torch.tensor([2.0, 2.0]))
    >>> fig, ax = plot_reliability(bins)
    >>> ax.get_title(), [t.get_text() for t in ax.get_legend().get_texts()]
    ('ECE=0.2500', ['accuracy', 'mean confidence', 'gap', 'perfectly calibrated'])
    """
    from matplotlib.patches import Patch, Rectangle

    confidence, accuracy, count = (_as_tensor(b).double().flatten() for b in bins)
    n_bins = count.numel()
    width = 1.0 / n_bins
    lefts = torch.arange(n_bins, dtype=torch.float64) * width
    used = (count > 0).tolist()
    given_ax = ax is not None
    if given_ax:
        fig, top = subplots(ax)
        below = None
    else:
        fig, (top, below) = subplots(None, 2, 1, figsize=(4.8, 5.2), height_ratios=[3, 1])
    blue, red = "tab:blue", "tab:red"
    for i in range(n_bins):
        if not used[i]:
            continue
        left, acc, conf = float(lefts[i]), float(accuracy[i]), float(confidence[i])
        top.add_patch(Rectangle((left, 0), width, acc, facecolor=blue, edgecolor="white", linewidth=0.8))
        low, high = min(acc, conf), max(acc, conf)
        # outlined, never filled: a fill over the accuracy bar would change the bar's colour
        top.add_patch(
            Rectangle(
                (left + 0.03 * width, low), 0.94 * width, high - low, fill=False, edgecolor=red, linewidth=1.6
            )
        )
        top.plot(
            [left + 0.1 * width, left + 0.9 * width],
            [conf, conf],
            color="black",
            linewidth=2.2,
            solid_capstyle="butt",
        )
        if given_ax:
            top.text(
                left + width / 2,
                high + 0.01,
                str(int(count[i])),
                ha="center",
                va="bottom",
                fontsize=points(9),
            )
    top.plot([0, 1], [0, 1], linestyle="--", color="grey", linewidth=0.9)
    top.set_xlim(0, 1)
    top.set_ylim(0, 1.02)
    top.set_ylabel("Accuracy", fontsize=points(12))
    top.tick_params(labelsize=points(11))
    handles = [
        Patch(facecolor=blue, label="accuracy"),
        top.plot([], [], color="black", linewidth=2.2, label="mean confidence")[0],
        Patch(fill=False, edgecolor=red, linewidth=1.6, label="gap"),
        top.plot([], [], linestyle="--", color="grey", label="perfectly calibrated")[0],
    ]
    top.legend(
        handles=handles,
        loc="upper left",
        fontsize=points(10),
        framealpha=0.85,
        handlelength=1.4,
        labelspacing=0.25,
    )
    ece = expected_calibration_error(confidence, accuracy, count)
    top.set_title(f"{title} · ECE={ece:.4f}" if title else f"ECE={ece:.4f}", fontsize=points(13))
    if below is not None:
        top.tick_params(labelbottom=False)
        centers = (lefts + width / 2).tolist()
        below.bar(centers, count.tolist(), width=width * 0.9, color="0.6")
        highest = float(count.max()) if n_bins else 1.0
        for x, n, on in zip(centers, count.tolist(), used):
            if on:
                below.text(x, n + 0.04 * highest, str(int(n)), ha="center", va="bottom", fontsize=points(9))
        below.set_xlim(0, 1)
        below.set_ylim(0, max(highest, 1.0) * 1.45)
        below.set_xlabel("Confidence", fontsize=points(12))
        below.set_ylabel("samples", fontsize=points(11))
        below.tick_params(labelsize=points(10))
    else:
        top.set_xlabel("Confidence", fontsize=points(12))
    return fig, top
