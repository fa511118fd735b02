"""Writers of rendered results to Weights & Biases and MLflow, in the form each one's UI shows best.

W&B (:func:`write_wandb`) gets everything that one stage writes at one step in **one** history
row: the figures as ``wandb.Image`` (``"{stage}/{name}"``, as in TensorBoard), and beside them
the data in W&B's own charts (``"{stage}/{name}/chart"``, whose table W&B keeps as
``"{stage}/{name}/chart_table"``): a confusion matrix in its confusion-matrix chart, ROC and
PR curves in its area-under-curve chart (one line per class), any other curve in its line
chart, a per-class vector in its bar chart. Other tables (multilabel TN/FP/FN/TP, reliability
bins, a summary, the values of anything else) are ``wandb.Table`` (``"{stage}/{name}/table"``),
with a ``wandb.Histogram`` (``"{stage}/{name}/histogram"``) for a tensor that is none of the
above. The row is logged as
Lightning's ``WandbLogger.log_metrics`` logs the scalars: with ``trainer/global_step`` set to
the scalars' step, which W&B's charts use as their x axis, and without W&B's own ``step``, which
Lightning never passes: W&B counts it itself, one per row, and drops a row whose ``step`` is
behind its count, as Lightning's step is as soon as a step has logged more than one row.

MLflow (:func:`write_mlflow`) gets each image with ``key`` and ``step`` (mlflow >= 2.16), so
that its image view steps through the epochs at the steps of their metrics; an older mlflow
gets ``plots/{stage}_{name}_epoch{E}.png`` files. Tables are CSV artifacts,
``plots/{stage}_{name}_epoch{E}.csv``, and markdown texts ``.md`` beside them.

Neither package is imported here before a writer is called with a logger, which needs it.
"""

from __future__ import annotations

import csv
import inspect
import io
import re
from collections.abc import Sequence
from typing import Any

from lightning_metrics.integration.rendering import Rendering

# W&B's ids of the charts that wandb.plot.* build, and the fields each reads from its table
_AUC_CHART = "wandb/area-under-curve/v0"
_CURVE_AXES = {  # chart kind -> (x column, y column, x title, y title), columns of _curve_rows
    "roc": ("fpr", "tpr", "False positive rate", "True positive rate"),
    "pr": ("recall", "precision", "Recall", "Precision"),
}
MAX_CHART_ROWS = 10_000  # W&B's own curves resample to wandb.Table.MAX_ROWS points
MAX_TABLE_CELLS = 20_000  # a larger plain table (a matrix of hundreds of classes) is left to the image


def csv_text(rows: list) -> str:
    """CSV text of ``rows`` (header first)."""
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    return buffer.getvalue()


def variant_tag(base: str, variant: str, separator: str) -> str:
    """``base`` with a variant's suffix (``"val/confmat/normalized"``), or ``base`` itself."""
    return f"{base}{separator}{variant}" if variant else base


def _number(cell: Any) -> Any:
    """A table cell as a number when it is one (the CSV rows hold text), so W&B sorts and plots it."""
    if not isinstance(cell, str):
        return cell
    for kind in (int, float):
        try:
            return kind(cell)
        except ValueError:
            pass
    return None if cell == "" else cell


def _thinned(rows: list, limit: int = MAX_CHART_ROWS) -> list:
    """At most about ``limit`` curve rows, evenly spaced within each class, its end points kept."""
    if len(rows) <= limit:
        return rows
    stride = -(-len(rows) // limit)
    kept, start = [], 0
    for end in range(1, len(rows) + 1):
        if end == len(rows) or rows[end][0] != rows[start][0]:  # the rows of one class end here
            kept += rows[start:end - 1:stride] + [rows[end - 1]]
            start = end
    return kept


def _wandb_chart(wandb: Any, r: Rendering) -> Any:
    header, rows = r.table[0], r.table[1:]
    title = r.tag
    if r.chart == "confusion_matrix":  # the long table that wandb.plot.confusion_matrix builds
        data = [[row[0], column, _number(cell)] for row in rows for column, cell in zip(header[1:], row[1:])]
        table = wandb.Table(columns=["Actual", "Predicted", "nPredictions"], data=data)
        fields = {"Actual": "Actual", "Predicted": "Predicted", "nPredictions": "nPredictions"}
        return wandb.plot_table("wandb/confusion_matrix/v1", table, fields, {"title": title})
    if r.chart == "bar":
        table = wandb.Table(columns=header, data=[[row[0], *map(_number, row[1:])] for row in rows])
        fields = {"label": header[0], "value": header[1]}
        return wandb.plot_table("wandb/bar/v0", table, fields, {"title": title})
    table = wandb.Table(columns=header, data=[[row[0], *map(_number, row[1:])] for row in _thinned(rows)])
    if r.chart in _CURVE_AXES:  # the chart of wandb.plot.roc_curve / pr_curve, from our exact curve
        x, y, x_title, y_title = _CURVE_AXES[r.chart]
        strings = {"title": title, "x-axis-title": x_title, "y-axis-title": y_title}
        return wandb.plot_table(_AUC_CHART, table, {"x": x, "y": y, "class": header[0]}, strings)
    return wandb.plot_table("wandb/line/v0", table, {"x": header[1], "y": header[2], "stroke": header[0]},
                            {"title": title})


def wandb_entries(r: Rendering) -> dict[str, Any]:
    """What W&B gets of one rendering, by key (see the module doc)."""
    import wandb

    entries: dict[str, Any] = {
        variant_tag(r.tag, variant, "/"): wandb.Image(image) for variant, _, image in r.images
    }
    if r.table is not None and r.chart is not None:
        entries[f"{r.tag}/chart"] = _wandb_chart(wandb, r)
    elif r.table is not None and len(r.table) * len(r.table[0]) <= MAX_TABLE_CELLS:
        entries[f"{r.tag}/table"] = wandb.Table(
            columns=r.table[0], data=[[row[0], *map(_number, row[1:])] for row in r.table[1:]]
        )
    elif r.text is not None:  # a value that is no table, or the note that a matrix is too large for one
        entries[f"{r.tag}/text"] = wandb.Table(columns=["markdown"], data=[[r.text]])
    if r.histogram is not None:
        entries[f"{r.tag}/histogram"] = wandb.Histogram(r.histogram.numpy())
    return entries


def write_wandb(logger: Any, renderings: Sequence[Rendering], step: int) -> None:
    """Log ``renderings`` to a ``WandbLogger`` in one history row at the scalars' ``step``."""
    entries: dict[str, Any] = {}
    for r in renderings:
        entries.update(wandb_entries(r))
    if entries:
        # log_metrics adds the logger's prefix and "trainer/global_step", as for the scalars
        logger.log_metrics(entries, step=step)


def _image_key(tag: str) -> str:
    return re.sub(r"[^A-Za-z0-9_\-./ ]", "_", tag)  # the characters MLflow accepts in an image key


def write_mlflow(logger: Any, r: Rendering, step: int) -> None:
    """Log one rendering to an ``MLFlowLogger``'s run: stepped images, CSV and markdown artifacts."""
    client, run_id = logger.experiment, logger.run_id
    stepped = "key" in inspect.signature(client.log_image).parameters  # mlflow >= 2.16
    for variant, file_variant, image in r.images:
        if stepped:
            client.log_image(run_id, image, key=_image_key(variant_tag(r.tag, variant, "/")), step=step)
        else:
            name = variant_tag(r.stem, file_variant, "_")
            client.log_image(run_id, image, artifact_file=f"plots/{name}.png")
    if r.table is not None:
        client.log_text(run_id, csv_text(r.table), f"plots/{r.stem}.csv")
    if r.text is not None:
        client.log_text(run_id, r.text, f"plots/{r.stem}.md")
