"""Routing: scalars to the log, per-class vectors as scalars, everything else to sinks."""

from __future__ import annotations

import pytest
import torch

from lightning_metrics.integration.routing import ResultKind, RouteContext, Router, classify


@pytest.mark.parametrize(
    ("value", "num_classes", "kind"),
    [
        (torch.tensor(1.5), None, ResultKind.SCALAR),
        (torch.tensor([2.0]), None, ResultKind.SCALAR),
        (3, None, ResultKind.SCALAR),
        (torch.tensor([0.1, 0.2, 0.3]), 3, ResultKind.PER_CLASS),
        (torch.tensor([0.1, 0.2, 0.3]), None, ResultKind.OTHER),  # e.g. a CatMetric's values
        (torch.tensor([0.1, 0.2, 0.3]), 4, ResultKind.OTHER),
        (torch.zeros(3, 3), 3, ResultKind.MATRIX),
        (torch.zeros(4, 2, 2), 4, ResultKind.MATRIX),
        ((torch.rand(5), torch.rand(5), torch.rand(5)), None, ResultKind.CURVE),
        (([torch.rand(5)] * 3, [torch.rand(5)] * 3, [torch.rand(5)] * 3), 3, ResultKind.CURVE),
        ({"a": torch.tensor(1.0)}, None, ResultKind.MAPPING),
        (torch.zeros(2, 2, 2, 2), None, ResultKind.OTHER),
        (torch.zeros(0), None, ResultKind.OTHER),
        ("text", None, ResultKind.OTHER),
    ],
)
def test_classify(value, num_classes, kind) -> None:
    assert classify(value, num_classes) is kind


class _Recorder:
    def __init__(self, kinds):
        self.kinds, self.written = kinds, []

    def accepts(self, result, context):
        return result.kind in self.kinds

    def write(self, result, context):
        self.written.append((result.key + result.suffix, result.kind))


def _context(logged: dict, zero: bool = True) -> RouteContext:
    return RouteContext(log_scalar=lambda k, v, bar: logged.update({k: (float(v), bar)}), is_global_zero=zero)


def test_route_everything_somewhere() -> None:
    sink = _Recorder({ResultKind.MATRIX, ResultKind.PER_CLASS})
    router = Router(separator="/", prog_bar=["acc"], sinks=[sink])
    logged: dict = {}
    ctx = _context(logged)
    router.route_value("val", "acc", torch.tensor(0.5), ctx, dataloader_idx=1)
    router.route_value("val", "f1", torch.tensor([0.25, 0.75]), ctx, num_classes=2)
    router.route_value("val", "cm", torch.eye(2), ctx)
    with pytest.warns(UserWarning, match="'val/wrapped/y' is not a scalar"):
        router.route_value("val", "wrapped", {"x": torch.tensor(1), "y": torch.tensor([1.0, 2.0])}, ctx)
    with pytest.warns(UserWarning, match=r"'val/roc' is not a scalar \(curve\)"):
        router.route_value("val", "roc", (torch.rand(3), torch.rand(3), torch.rand(3)), ctx)
    assert logged == {
        "val/acc/dataloader_idx_1": (0.5, True),
        "val/f1/0": (0.25, False),
        "val/f1/1": (0.75, False),
        "val/wrapped/x": (1.0, False),
    }
    assert sink.written == [("val/f1", ResultKind.PER_CLASS), ("val/cm", ResultKind.MATRIX)]
    assert set(router.unrouted) == {"val/wrapped/y", "val/roc"}


def test_sinks_run_on_global_rank_zero_only() -> None:
    sink = _Recorder({ResultKind.MATRIX})
    router = Router(sinks=[sink])
    logged: dict = {}
    router.route_value("test", "cm", torch.eye(3), _context(logged, zero=False))
    router.route_value("test", "acc", torch.tensor(1.0), _context(logged, zero=False))
    assert sink.written == [] and list(logged) == ["test/acc"]


def test_class_names_label_per_class_values() -> None:
    router = Router(separator=".", class_names=["cat", "dog", "eel"])
    logged: dict = {}
    router.route_value("val", "recall", torch.tensor([1.0, 0.0, 0.5]), _context(logged))
    assert list(logged) == ["val.recall.0_cat", "val.recall.1_dog", "val.recall.2_eel"]  # sorted: class order
    with pytest.warns(UserWarning, match="has 3 names but 'val.f1' has 2 values"):
        router.route_value("val", "f1", torch.tensor([1.0, 0.0]), _context(logged), num_classes=2)
    assert "val.f1.1" in logged


def test_per_class_keys_sort_in_class_order() -> None:
    """TensorBoard, W&B and MLflow list tags by name: the per-class keys sort as the classes go."""
    names = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven"]
    logged: dict = {}
    Router(class_names=names).route_value("val", "recall", torch.linspace(0, 1, 12), _context(logged))
    assert list(logged) == sorted(logged) and [k.rsplit("_", 1)[1] for k in logged] == names
    assert list(logged)[:2] == ["val/recall/00_zero", "val/recall/01_one"]
    unnamed: dict = {}
    Router().route_value("val", "f1", torch.rand(12), _context(unnamed), num_classes=12)
    assert list(unnamed) == sorted(unnamed) == [f"val/f1/{i:02d}" for i in range(12)]


def test_operating_point_tuples_are_logged_as_named_scalars():
    import torch

    from lightning_metrics.classification import BinaryRecallAtFixedPrecision, MulticlassRecallAtFixedPrecision
    from lightning_metrics.integration.routing import RouteContext, Router

    logged = {}
    context = RouteContext(log_scalar=lambda key, value, bar: logged.update({key: float(value)}))
    binary = BinaryRecallAtFixedPrecision(min_precision=0.5)
    binary.update(torch.tensor([0.2, 0.8, 0.6, 0.4]), torch.tensor([0, 1, 1, 0]))
    Router().route_value("val", "rafp", binary.compute(), context, metric=binary)
    recall, threshold = binary.compute()
    assert logged == {"val/rafp": float(recall), "val/rafp/threshold": float(threshold)}

    logged.clear()
    multi = MulticlassRecallAtFixedPrecision(num_classes=3, min_precision=0.5)
    multi.update(torch.softmax(torch.randn(12, 3, generator=torch.Generator().manual_seed(0)), -1),
                 torch.arange(12) % 3)
    Router(class_names=["a", "b", "c"]).route_value("val", "rafp", multi.compute(), context, metric=multi)
    assert set(logged) == {f"val/rafp/{i}_{c}" for i, c in enumerate("abc")} | {
        f"val/rafp/threshold/{i}_{c}" for i, c in enumerate("abc")
    }


# ---------------------------------------------- detection: sentinels and per-class results by id
def _detection_result(labels_seen: list[int], class_metrics: bool = True):
    """A real MeanAveragePrecision result over small boxes only (no medium or large ground truth:
    map_medium, map_large and the like are -1) with the given class labels; class 7 (if seen) has
    detections only (its per-class values are -1)."""
    from lightning_metrics.detection import MeanAveragePrecision

    metric = MeanAveragePrecision(class_metrics=class_metrics)
    g = torch.Generator().manual_seed(0)
    preds, target = [], []
    for image in range(6):
        boxes = torch.rand(4, 2, generator=g) * 60
        boxes = torch.cat([boxes, boxes + 8 + torch.rand(4, 2, generator=g) * 10], dim=1)  # small boxes
        gt_labels = torch.tensor([labels_seen[(image + i) % len(labels_seen)] for i in range(4)])
        keep = gt_labels != 7
        target.append({"boxes": boxes[keep], "labels": gt_labels[keep]})
        preds.append({"boxes": boxes + torch.rand(4, 4, generator=g), "scores": torch.rand(4, generator=g),
                      "labels": gt_labels})
    metric.update(preds, target)
    return metric, metric.compute()


def _route_detection(labels_seen, class_names, class_metrics=True):
    logged, written = {}, []
    metric, value = _detection_result(labels_seen, class_metrics)

    class _Bars:
        def accepts(self, result, context):
            return result.kind is ResultKind.PER_CLASS

        def write(self, result, context):
            written.append(result)

    router = Router(class_names=class_names, sinks=[_Bars()])
    context = RouteContext(log_scalar=lambda key, v, bar: logged.update({key: float(v)}))
    with pytest.warns(UserWarning) as caught:
        router.route_value("val", "map", value, context, metric=metric)
        router.finish("val", context)  # the stage's notes are said at its end, once per key and run
    return value, logged, written, [str(w.message) for w in caught]


def test_detection_sentinels_are_left_out_of_the_scalars_with_a_note() -> None:
    value, logged, written, messages = _route_detection([3, 5, 7], {3: "cat", 5: "dog", 7: "emu"})
    assert float(value["map_large"]) == -1 and float(value["map_medium"]) == -1
    assert not any(v == -1 for v in logged.values()), {k: v for k, v in logged.items() if v == -1}
    assert "val/map/map_large" not in logged and "val/map/map" in logged
    note = next(m for m in messages if "'val/map/map_large'" in m)
    assert "are -1 (no ground truth in that area range or class this epoch)" in note
    assert sum("no ground truth" in m for m in messages) == 1  # one note for all of them
    # class 7 has no ground truth: its per-class mAP is left out, shown as missing (NaN) in the figure
    assert "val/map/map_per_class/7_emu" not in logged and "val/map/map_per_class/3_cat" in logged
    bars = next(r for r in written if r.name == "map/map_per_class")
    assert bars.class_names == ("3_cat", "5_dog", "7_emu") and torch.isnan(bars.value[2])
    assert not torch.isnan(bars.value[:2]).any()


def test_detection_per_class_keys_follow_the_class_ids_whatever_the_classes_seen() -> None:
    """Per-class keys are the class ids the metric reports (``classes``), named from `class_names`
    (a list indexed by id or a dict); the same class keeps its key when other classes come and go."""
    names = ["bg", "a", "b", "c", "d", "e"]
    _, first, _, _ = _route_detection([1, 3, 5], names)
    _, second, _, _ = _route_detection([3, 5], names)
    assert {k for k in first if "/map_per_class/" in k} == {
        "val/map/map_per_class/1_a", "val/map/map_per_class/3_c", "val/map/map_per_class/5_e"}
    assert {k for k in second if "/map_per_class/" in k} == {"val/map/map_per_class/3_c", "val/map/map_per_class/5_e"}
    # the values are the metric's for that class id
    metric, value = _detection_result([1, 3, 5])
    ids = value["classes"].tolist()
    assert first["val/map/map_per_class/3_c"] == pytest.approx(float(value["map_per_class"][ids.index(3)]))


def test_detection_class_ids_without_a_name_warn_and_keep_their_id() -> None:
    _, logged, _, messages = _route_detection([3, 5], ["bg", "a", "b", "c"])
    assert "val/map/map_per_class/3_c" in logged and "val/map/map_per_class/5" in logged
    assert any("no name for class id(s) [5]" in m for m in messages)


def test_detection_without_class_metrics_logs_no_per_class_sentinel() -> None:
    _, logged, _, _ = _route_detection([3, 5], None, class_metrics=False)
    assert not any("per_class" in k for k in logged)
    assert "val/map/map" in logged
