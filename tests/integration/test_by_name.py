"""Metrics given by name: the task read from the first batch, torchmetrics' task wrappers as the oracle."""

from __future__ import annotations

import contextlib
import logging
import re
import warnings
from pathlib import Path
from typing import Any, Iterator

import lightning.pytorch as L
import pytest
import torch
import torchmetrics
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

import lightning_metrics as lm
from lightning_metrics.integration.by_name import NAMES, Inferred, TaskArguments, build_metric
from tests.integration.integration_helpers import SaveCheckpointAt, assert_close, trainer_kwargs

pytestmark = [pytest.mark.timeout(240)]

FEATURES = 6


# ------------------------------------------------------------------ inference
def _t(shape: tuple, dtype: torch.dtype) -> torch.Tensor:
    return torch.zeros(shape, dtype=dtype)


F, I, B = torch.float32, torch.int64, torch.bool
INFERENCE_CASES = [
    # preds, target, given arguments -> (task, num_classes, num_labels, num_outputs)
    ((_t((8, 5), F), _t((8,), I)), {}, ("multiclass", 5, None, 1)),
    ((_t((8, 5, 7), F), _t((8, 7), I)), {}, ("multiclass", 5, None, 1)),  # extra dimensions
    ((_t((8,), F), _t((8,), I)), {}, ("binary", None, None, 1)),
    ((_t((8,), B), _t((8,), I)), {}, ("binary", None, None, 1)),
    ((_t((8, 4), F), _t((8, 4), I)), {}, ("multilabel", None, 4, 1)),
    ((_t((8, 4, 3), F), _t((8, 4, 3), I)), {}, ("multilabel", None, 4, 1)),
    ((_t((8,), F), _t((8,), F)), {}, ("regression", None, None, 1)),
    ((_t((8, 3), F), _t((8, 3), F)), {}, ("regression", None, None, 3)),
    ((_t((8,), I), _t((8,), I)), {"num_classes": 4}, ("multiclass", 4, None, 1)),
    ((_t((8,), I), _t((8,), I)), {"task": "binary"}, ("binary", None, None, 1)),
    ((_t((8, 3), I), _t((8, 3), I)), {"num_labels": 3}, ("multilabel", None, 3, 1)),
    ((_t((8, 2), F), _t((8,), I)), {"num_classes": 2}, ("multiclass", 2, None, 1)),
    ((_t((8, 6), F), _t((8,), I)), {"task": "multiclass"}, ("multiclass", 6, None, 1)),
    ((_t((8, 6), F), _t((8, 6), I)), {"task": "multilabel"}, ("multilabel", None, 6, 1)),
]


@pytest.mark.parametrize(("tensors", "given", "expected"), INFERENCE_CASES)
def test_the_task_is_read_from_shapes_and_dtypes(tensors: tuple, given: dict, expected: tuple) -> None:
    inferred = TaskArguments(**given).infer(*tensors, ["accuracy"] if expected[0] != "regression" else ["mse"])
    assert (inferred.task, inferred.num_classes, inferred.num_labels, inferred.num_outputs) == expected


ERROR_CASES = [
    ((_t((8,), I), _t((8,), I)), {}, ["accuracy"], "pass num_classes=C"),
    ((_t((8, 3), I), _t((8, 3), I)), {}, ["accuracy"], "integer predictions are labels"),
    ((_t((8, 5), F), _t((7,), I)), {}, ["accuracy"], "the shapes fit no task"),
    ((_t((8, 5), F), _t((8, 2), I)), {}, ["accuracy"], "the shapes fit no task"),
    ((_t((8,), F), _t((8,), F)), {}, ["accuracy"], "'accuracy' is a classification metric"),
    ((_t((8, 5), F), _t((8,), I)), {}, ["accuracy", "mse"], "'mse' is a regression metric"),
    ((_t((8,), F), _t((8,), I)), {"task": "multiclass"}, ["accuracy"], "needs the number of classes"),
    ((_t((8, 3), F), _t((8, 3), I)), {}, ["categorical_accuracy"], "for one-hot rows return target.argmax(1)"),
    ((_t((8, 3), I), _t((8, 3), F)), {}, ["mse"], "regression metrics take floating preds"),
    (([1.0, 2.0], _t((2,), I)), {}, ["accuracy"], "from tensors `preds` and `target`"),
]


@pytest.mark.parametrize(("tensors", "given", "names", "message"), ERROR_CASES)
def test_ambiguous_or_unfit_inputs_raise_saying_what_to_pass(tensors: tuple, given: dict, names: list, message: str) -> None:
    with pytest.raises((ValueError, TypeError), match=re.escape(message)):
        TaskArguments(**given).for_names(names, "test").infer(*tensors, names)  # (Keras names fix their task)


MISFIT_CASES = [
    # a name that does not fit the data: the error names every misfit and the names that do fit
    ((_t((8,), F), _t((8,), F)), ["accuracy", "f1", "mse"], "'accuracy' and 'f1' are classification metrics",
     "regression", ["mse", "rmse", "mae", "r2", "pearson", "explained_variance"]),
    ((_t((8, 5), F), _t((8,), I)), ["mse", "r2"], "'mse' and 'r2' are regression metrics",
     "multiclass", ["accuracy", "f1", "auroc", "confusion_matrix", "cohen_kappa"]),
]


@pytest.mark.parametrize(("tensors", "names", "message", "task", "fitting"), MISFIT_CASES)
def test_a_misfit_name_raises_naming_the_names_that_fit(tensors: tuple, names: list, message: str, task: str,
                                                         fitting: list) -> None:
    with pytest.raises(ValueError, match=re.escape(message)) as raised:
        TaskArguments().infer(*tensors, names)
    text = str(raised.value)
    assert f"the names that fit {task} data: " in text and "lightning_metrics.integration.by_name.NAMES" in text
    suggested = text.split(f"the names that fit {task} data: ", 1)[1]
    assert all(f"{n!r}" in suggested for n in fitting), text
    for name in re.findall(r"'(\w+)'", suggested):  # every suggestion builds for the task
        build_metric(name, Inferred(task, num_classes=5 if task == "multiclass" else None), TaskArguments())


def test_a_regression_model_with_classification_names_fails_at_its_first_batch_naming_mse(tmp_path: Path) -> None:
    callback = lm.MetricsCallback(["accuracy"], stages=("train", "val"))
    with pytest.raises(ValueError, match=r"'accuracy' is a classification metric.*'mse', 'rmse', 'mae', 'r2'"):
        _fit(tmp_path, TaskModel("regression"), [callback])
    assert callback.engine.templates["train"].pending == ("accuracy",)  # nothing was built or updated


def test_arguments_are_checked_when_the_callback_is_made() -> None:
    with pytest.raises(ValueError, match="unknown metric name 'acuracy'.*did you mean 'accuracy'"):
        lm.MetricsCallback(["acuracy"])
    with pytest.raises(ValueError, match=r"Argument `metrics\['acc'\]`: unknown metric name 'acuracy'"):
        lm.MetricsCallback({"acc": "acuracy"})
    with pytest.raises(ValueError, match="Argument `task` must be one of"):
        lm.MetricsCallback(["accuracy"], task="multi-class")
    with pytest.raises(ValueError, match="Argument `num_classes` must be an int of at least 2"):
        lm.MetricsCallback(["accuracy"], num_classes=1)
    with pytest.raises(ValueError, match="Argument `threshold` must be a float in"):
        lm.MetricsCallback(["accuracy"], threshold=2)
    with pytest.raises(ValueError, match="no metric is given by name"):
        lm.MetricsCallback({"acc": lm.classification.BinaryAccuracy()}, task="binary")
    with pytest.raises(ValueError, match="need different tasks.*'binary_accuracy' is binary"):
        lm.MetricsCallback(["binary_accuracy", "sparse_categorical_accuracy"])
    with pytest.raises(ValueError, match="has no multilabel form"):
        lm.MetricsCallback(["cohen_kappa"], task="multilabel", num_labels=3)


# --------------------------------------------------- every name vs torchmetrics
def _data(task: str, n: int = 60, size: int = 4, seed: int = 0, outputs: int = 1) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    if task == "binary":
        return torch.rand(n, generator=g), torch.randint(0, 2, (n,), generator=g)
    if task == "multiclass":
        return torch.randn(n, size, generator=g).softmax(-1), torch.randint(0, size, (n,), generator=g)
    if task == "multilabel":
        return torch.rand(n, size, generator=g), torch.randint(0, 2, (n, size), generator=g)
    shape = (n, outputs) if outputs > 1 else (n,)
    # float64: torchmetrics accumulates in the input dtype, our moments in float64 (float32 inputs differ by ~1e-6)
    target = torch.rand(shape, generator=g, dtype=torch.float64) + 0.5  # positive: percentage and log errors exist
    return (target + 0.3 * torch.randn(shape, generator=g, dtype=torch.float64)).abs(), target


def _oracle(name: str, inferred: Inferred) -> Any:
    entry = NAMES[name]
    fixed = {k: v for k, v in entry.fixed if k != "task"}
    if entry.domain == "regression":
        return getattr(torchmetrics.regression, entry.cls)(**fixed)
    sizes = {"num_classes": inferred.num_classes, "num_labels": inferred.num_labels}
    wrapper = getattr(torchmetrics, entry.cls, None) or getattr(torchmetrics.classification, entry.cls)
    return wrapper(task=inferred.task, **{k: v for k, v in sizes.items() if v}, **fixed)


def _close(ours: Any, theirs: Any, key: str) -> None:
    if isinstance(theirs, (tuple, list)):
        assert isinstance(ours, (tuple, list)) and len(ours) == len(theirs), key
        for i, (a, b) in enumerate(zip(ours, theirs)):
            _close(a, b, f"{key}[{i}]")
    else:
        assert_close(ours, theirs, key)


NAME_TASKS = [
    (name, task)
    for name, entry in sorted(NAMES.items())
    for task in (("regression",) if entry.domain == "regression" else (entry.task,) if entry.task else
                 tuple(getattr(lm.classification, entry.cls)._tasks))
]


@pytest.mark.parametrize(("name", "task"), NAME_TASKS)
def test_every_name_builds_what_torchmetrics_task_wrapper_computes(name: str, task: str) -> None:
    # cosine similarity compares rows: (N, D) data; the others take (N,) and, where they can, (N, D)
    outputs = 3 if name == "cosine_similarity" else 1
    preds, target = _data(task, size=6 if "top_k" in name else 4, outputs=outputs)
    inferred = TaskArguments().for_names([name], "test").infer(preds, target, [name])
    assert inferred.task == task
    ours, theirs = build_metric(name, inferred, TaskArguments()), _oracle(name, inferred)
    assert type(ours).__name__ == type(theirs).__name__
    for half in (slice(0, 30), slice(30, None)):
        ours.update(preds[half], target[half])
        theirs.update(preds[half], target[half])
    _close(ours.compute(), theirs.compute(), name)


# -------------------------------------------------------------- real fits
def _dataset(task: str, n: int, seed: int) -> TensorDataset:
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, FEATURES, generator=g)
    if task == "binary":
        y = (x[:, 0] + 0.5 * torch.randn(n, generator=g) > 0).long()
    elif task == "multiclass":
        y = torch.randint(0, 5, (n,), generator=g)
    elif task == "multilabel":
        y = (x[:, :3] + torch.randn(n, 3, generator=g) > 0).long()
    else:
        y = x[:, 0] * 2 + 0.3 * torch.randn(n, generator=g)
    return TensorDataset(x, y)


class TaskModel(L.LightningModule):
    """Scores for binary (N,), multiclass (N, 5), multilabel (N, 3) or regression (N,) data; records them."""

    OUT = {"binary": 1, "multiclass": 5, "multilabel": 3, "regression": 1}

    def __init__(self, task: str, labels: bool = False, lr: float = 0.05) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.task, self.labels, self.lr = task, labels, lr
        self.layer = nn.Linear(FEATURES, self.OUT[task])
        self.seen: dict[str, list] = {}

    def _step(self, stage: str, batch: Any) -> dict[str, torch.Tensor]:
        x, y = batch
        out = self.layer(x)
        if self.task in ("binary", "regression"):
            out = out.squeeze(-1)
        preds = out.sigmoid() if self.task in ("binary", "multilabel") else out
        if self.labels:
            preds = preds.argmax(-1)
        if self.task == "multiclass":
            loss = nn.functional.cross_entropy(out, y)
        elif self.task == "regression":
            loss = nn.functional.mse_loss(out, y)
        else:
            loss = nn.functional.binary_cross_entropy_with_logits(out, y.float())
        self.seen.setdefault(stage, []).append((preds.detach(), y))
        return {"loss": loss, "preds": preds, "target": y}

    def training_step(self, batch: Any, batch_idx: int) -> Any:
        return self._step("train", batch)

    def validation_step(self, batch: Any, batch_idx: int) -> Any:
        return self._step("val", batch)

    def on_validation_epoch_start(self) -> None:
        self.seen.pop("val", None)

    def on_train_epoch_start(self) -> None:
        self.seen.pop("train", None)

    def recorded(self, stage: str) -> tuple[torch.Tensor, torch.Tensor]:
        pairs = self.seen[stage]
        return torch.cat([p for p, _ in pairs]), torch.cat([t for _, t in pairs])

    def configure_optimizers(self) -> Any:
        return torch.optim.SGD(self.parameters(), lr=self.lr)


def _fit(tmp_path: Path, model: L.LightningModule, callbacks: list, epochs: int = 1, **kwargs: Any) -> L.Trainer:
    trainer = L.Trainer(callbacks=callbacks, **trainer_kwargs(tmp_path, max_epochs=epochs, logger=False))
    task = model.task
    trainer.fit(model, DataLoader(_dataset(task, 70, 0), batch_size=16), DataLoader(_dataset(task, 45, 1), batch_size=16),
                **kwargs)
    return trainer


@contextlib.contextmanager
def _said() -> Iterator[list[str]]:
    """The info lines of the callback's logger (a child of Lightning's, which prints them)."""
    messages: list[str] = []
    handler = logging.Handler(logging.INFO)
    handler.emit = lambda record: messages.append(record.getMessage())  # type: ignore[method-assign]
    logger = logging.getLogger("lightning.pytorch.lightning_metrics")
    logger.addHandler(handler)
    try:
        yield messages
    finally:
        logger.removeHandler(handler)


FIT_CASES = {
    "binary": (["accuracy", "f1", "auroc", "confusion_matrix", "auc"], {}),
    "multiclass": (["accuracy", "f1_score", "auroc", "matthews_corrcoef", "sparse_categorical_accuracy"],
                   {"num_classes": 5}),
    "multilabel": (["accuracy", "precision", "recall", "average_precision", "hamming_distance"], {"num_labels": 3}),
    "regression": (["mse", "rmse", "mae", "r2", "pearson", "explained_variance"], {}),
}


@pytest.mark.parametrize("task", list(FIT_CASES))
def test_a_fit_logs_what_the_task_wrappers_compute(task: str, tmp_path: Path) -> None:
    names, sizes = FIT_CASES[task]
    callback = lm.MetricsCallback(names, stages=("train", "val"), coalesce_batches=1 if task == "binary" else 8)
    model = TaskModel(task)
    with _said() as said:
        trainer = _fit(tmp_path, model, [callback])
    assert len(said) == 2 and said[1].startswith(f"val metrics: {task}") and "from preds (16" in said[1]
    inferred = Inferred(task, num_classes=sizes.get("num_classes"), num_labels=sizes.get("num_labels"))
    for stage in ("train", "val"):
        preds, target = model.recorded(stage)
        for name in names:
            oracle = _oracle(name, inferred)
            expected = oracle(preds, target)
            _close(callback.results[f"{stage}/{name}"], expected, f"{stage}/{name}")
            if expected.ndim == 0:
                assert_close(trainer.callback_metrics[f"{stage}/{name}"], expected, name)
    assert type(callback.engine.metrics_for("val").native["accuracy" if task != "regression" else "mse"]).__name__ in (
        "BinaryAccuracy", "MulticlassAccuracy", "MultilabelAccuracy", "MeanSquaredError",
    )


def test_names_and_objects_mix_and_explicit_arguments_override(tmp_path: Path) -> None:
    metrics = {"acc": "accuracy", "macro_f1": "f1", "ours": lm.classification.MulticlassAccuracy(5, average="micro")}
    callback = lm.MetricsCallback(metrics, stages=("val",), average="macro")
    model = TaskModel("multiclass")
    _fit(tmp_path, model, [callback])
    preds, target = model.recorded("val")
    expected = torchmetrics.Accuracy(task="multiclass", num_classes=5, average="macro")(preds, target)
    assert_close(callback.results["val/acc"], expected, "acc")
    expected = torchmetrics.F1Score(task="multiclass", num_classes=5, average="macro")(preds, target)
    assert_close(callback.results["val/macro_f1"], expected, "macro_f1")
    micro = torchmetrics.Accuracy(task="multiclass", num_classes=5)(preds, target)
    assert_close(callback.results["val/ours"], micro, "ours")


def test_label_predictions_raise_at_the_first_batch_before_any_state(tmp_path: Path) -> None:
    callback = lm.MetricsCallback(["accuracy"], stages=("val",))
    with pytest.raises(ValueError, match="integer predictions are labels.*pass num_classes=C"):
        _fit(tmp_path, TaskModel("multiclass", labels=True), [callback])
    assert callback.engine.templates["val"].pending == ("accuracy",)  # nothing was built or updated
    assert callback.engine.metrics_for("val").native is None

    given = lm.MetricsCallback(["accuracy"], stages=("val",), num_classes=5)  # settled without data: built now
    assert type(given.engine.templates["val"].native["accuracy"]).__name__ == "MulticlassAccuracy"
    model = TaskModel("multiclass", labels=True)
    _fit(tmp_path, model, [given])
    preds, target = model.recorded("val")
    assert_close(given.results["val/accuracy"], torchmetrics.Accuracy(task="multiclass", num_classes=5)(preds, target))


class NamedMixinModel(lm.MetricsMixin, TaskModel):
    metrics_stages = ("val",)

    def configure_metrics(self) -> Any:
        return ["accuracy", "auroc"]


def test_the_mixin_takes_names(tmp_path: Path) -> None:
    model = NamedMixinModel("multilabel")
    _fit(tmp_path, model, [])
    preds, target = model.recorded("val")
    built = model.stage_metrics["val_metrics"].native
    assert type(built["auroc"]).__name__ == "MultilabelAUROC" and built["auroc"].num_labels == 3
    expected = torchmetrics.AUROC(task="multilabel", num_labels=3)(preds, target)
    assert_close(model.trainer.callback_metrics["val/auroc"], expected, "auroc")


def test_a_checkpoint_resumes_with_the_same_metrics(tmp_path: Path) -> None:
    names = ["accuracy", "f1", "confusion_matrix"]
    ckpt = tmp_path / "mid.ckpt"
    first = lm.MetricsCallback(names, stages=("train", "val"))
    _fit(tmp_path / "first", TaskModel("multiclass"), [first, SaveCheckpointAt(ckpt, 2)], epochs=1)  # saved mid-epoch 0
    state = next(v for k, v in torch.load(ckpt, weights_only=False)["callbacks"].items() if "MetricsCallback" in k)
    assert state["inferred"]["train"] == {"task": "multiclass", "num_classes": 5, "num_labels": None, "num_outputs": 1}

    resumed = lm.MetricsCallback(names, stages=("train", "val"))
    model = TaskModel("multiclass")
    with warnings.catch_warnings(record=True) as caught, _said() as said:
        warnings.simplefilter("always")
        _fit(tmp_path / "resumed", model, [resumed], epochs=2, ckpt_path=str(ckpt))
    assert not [w for w in caught if "written by other metrics" in str(w.message)]  # the states were applied
    # train: built from the checkpoint, before any batch of the resumed run; val had not run before the save
    assert said[0] == "train metrics: multiclass, 5 classes, from the checkpoint"
    assert said[1].startswith("val metrics: multiclass, 5 classes, from preds (16, 5) float32") and len(said) == 2
    assert type(resumed.engine.templates["train"].native["f1"]).__name__ == "MulticlassF1Score"
    for stage in ("train", "val"):  # the last epoch, all of it in the resumed run
        preds, target = model.recorded(stage)
        for name in names:
            oracle = getattr(torchmetrics, {"accuracy": "Accuracy", "f1": "F1Score", "confusion_matrix": "ConfusionMatrix"}[name])
            _close(resumed.results[f"{stage}/{name}"], oracle(task="multiclass", num_classes=5)(preds, target), name)

