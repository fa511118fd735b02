"""Test-local metrics whose inputs are not ``(preds, target)`` tensors, and a model whose steps
return every kind: a retrieval-style metric of three inputs, a metric of lists of dicts (one per
image), a metric of lists of strings against lists of references, and ``BinaryFairness``'s groups.

Every input is a function of the sample index alone, so the oracle of a whole dataset is the
metric fed the whole dataset at once, whatever the sharding, batching and resuming did.
Importable by name: the DDP tests run scripts in subprocesses that import it.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import torch
from torch import Tensor, nn
from torch.utils.data import DataLoader, TensorDataset

import lightning_metrics as lm
from lightning_metrics.classification import BinaryAccuracy, BinaryFairness, MulticlassAccuracy
from tests.integration.integration_helpers import LinearClassifier

NUM_FEATURES, NUM_CLASSES = 8, 3


class TopHit(lm.Metric):
    """Retrieval-style: the share of queries whose top-scored document is relevant (cat states)."""

    full_state_update = False
    additive_update = True
    higher_is_better = True

    def __init__(self) -> None:
        super().__init__()
        self.add_state("scores", [], dist_reduce_fx="cat")
        self.add_state("relevant", [], dist_reduce_fx="cat")
        self.add_state("query", [], dist_reduce_fx="cat")

    def update(self, preds: Tensor, target: Tensor, indexes: Tensor) -> None:
        self.scores.append(preds.float())
        self.relevant.append(target.long())
        self.query.append(indexes.long())

    def compute(self) -> Tensor:
        scores, relevant, query = (lm.utilities.dim_zero_cat(s) for s in (self.scores, self.relevant, self.query))
        hits = []
        for q in torch.unique(query):
            mine = query == q
            hits.append(relevant[mine][scores[mine].argmax()].float())
        return torch.stack(hits).mean()


class BoxCount(lm.Metric):
    """Lists of dicts (one per image): predicted and true box counts, and their mean absolute gap."""

    full_state_update = False
    additive_update = True

    def __init__(self) -> None:
        super().__init__()
        for name in ("images", "predicted", "true", "gap"):
            self.add_state(name, torch.tensor(0), dist_reduce_fx="sum")
        self.add_state("score_sum", torch.tensor(0.0, dtype=torch.float64), dist_reduce_fx="sum")

    def update(self, preds: list[dict[str, Tensor]], target: list[dict[str, Tensor]]) -> None:
        if len(preds) != len(target):
            raise ValueError(f"Argument `preds` holds {len(preds)} images but `target` {len(target)}")
        for p, t in zip(preds, target):
            self.images += 1
            self.predicted += p["boxes"].shape[0]
            self.true += t["boxes"].shape[0]
            self.gap += abs(p["boxes"].shape[0] - t["boxes"].shape[0])
            self.score_sum += p["scores"].double().sum()

    def compute(self) -> dict[str, Tensor]:
        return {"predicted": self.predicted.float(), "true": self.true.float(),
                "gap": self.gap.float() / self.images, "score": (self.score_sum / self.images).float()}


class WordMatch(lm.Metric):
    """Lists of strings against lists of references: the share of hypotheses equal to a reference,
    and the mean number of words."""

    full_state_update = False
    additive_update = True

    def __init__(self) -> None:
        super().__init__()
        for name in ("sentences", "matches", "words"):
            self.add_state(name, torch.tensor(0), dist_reduce_fx="sum")

    def update(self, preds: list[str], target: list[list[str]]) -> None:
        if isinstance(preds, str) or len(preds) != len(target):
            raise ValueError("Argument `preds` must be a list of strings, one per reference list in `target`")
        self.sentences += len(preds)
        self.matches += sum(p in refs for p, refs in zip(preds, target))
        self.words += sum(len(p.split()) for p in preds)

    def compute(self) -> dict[str, Tensor]:
        return {"match": self.matches.float() / self.sentences, "words": self.words.float() / self.sentences}


def kinds_metrics() -> dict[str, Any]:
    return {
        "acc": MulticlassAccuracy(NUM_CLASSES, average="micro"),
        "hits": TopHit(),
        "boxes": BoxCount(),
        "words": WordMatch(),
        "fair": BinaryFairness(num_groups=2),
    }


# where each metric finds its inputs in the step output (acc: the default preds/target)
KINDS_INPUTS = {
    "hits": ("scores", "relevant", "query"),
    "boxes": ("boxes_pred", "boxes_true"),
    "words": {"preds": "text", "target": "references"},
    "fair": ("probs", "binary", "groups"),
}


def make_dataset(n: int, seed: int = 0) -> TensorDataset:
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(n, NUM_FEATURES, generator=generator)
    y = torch.randint(0, NUM_CLASSES, (n,), generator=generator)
    return TensorDataset(x, y, torch.arange(n))


def loader(n: int, seed: int = 0, batch_size: int = 8, shuffle: bool = False) -> DataLoader:
    return DataLoader(make_dataset(n, seed), batch_size=batch_size, shuffle=shuffle)


def step_outputs(logits: Tensor, y: Tensor, index: Tensor) -> dict[str, Any]:
    """Every kind of metric input for these samples (a function of each sample alone)."""
    probs = torch.sigmoid(3 * logits[:, 0])
    outputs: dict[str, Any] = {
        "preds": logits, "target": y,
        "scores": probs, "relevant": (y == 0).long(), "query": index // 5,
        "probs": probs, "binary": (y == 0).long(), "groups": index % 2,
        "boxes_pred": [
            {"boxes": torch.ones(int(i) % 3, 4), "scores": torch.full((int(i) % 3,), float(p)), "labels": torch.zeros(int(i) % 3)}
            for i, p in zip(index, probs)
        ],
        "boxes_true": [{"boxes": torch.ones(int(i) % 4, 4), "labels": torch.zeros(int(i) % 4)} for i in index],
        "text": [" ".join(f"w{int(i) % 7}" for _ in range(1 + int(i) % 3)) for i in index],
        "references": [[f"w{int(i) % 7}", f"w{int(i) % 5} w{int(i) % 5}"] for i in index],
    }
    return outputs


class KindsModel(LinearClassifier):
    """A linear classifier whose steps return every kind of input (and per-sample val losses)."""

    def __init__(self, lr: float = 0.0, seed: int = 0) -> None:
        super().__init__(lr, seed)
        self.seen: dict[str, list] = defaultdict(list)  # stage -> (epoch, sample index), in the order fed

    def _step(self, stage: str, batch: Any, per_sample_loss: bool) -> dict[str, Any]:
        x, y, index = batch
        logits = self(x)
        losses = nn.functional.cross_entropy(logits, y, reduction="none")
        self.seen[stage].extend((self.current_epoch, i) for i in index.tolist())
        out = step_outputs(logits.detach(), y, index)
        out["loss"] = losses if per_sample_loss else losses.mean()
        return out

    def training_step(self, batch: Any, batch_idx: int) -> dict[str, Any]:
        return self._step("train", batch, per_sample_loss=False)

    def validation_step(self, batch: Any, batch_idx: int) -> dict[str, Any]:
        return self._step("val", batch, per_sample_loss=True)

    def test_step(self, batch: Any, batch_idx: int) -> dict[str, Any]:
        return self._step("test", batch, per_sample_loss=True)


class KindsMixinModel(lm.MetricsMixin, KindsModel):
    metrics_separator = "."
    metrics_inputs = KINDS_INPUTS
    metrics_track_loss = "sample"

    def configure_metrics(self) -> Any:
        return kinds_metrics()


def kinds_oracle(n: int, seed: int, model: nn.Module, indices: Any = None) -> dict[str, float]:
    """The values of ``kinds_metrics`` (and the per-sample mean loss) over the whole dataset at once,
    or over the samples ``indices`` (repeats count as often as they appear)."""
    x, y, index = make_dataset(n, seed).tensors
    if indices is not None:
        pick = torch.as_tensor(list(indices), dtype=torch.long)
        x, y, index = x[pick], y[pick], index[pick]
    with torch.no_grad():
        logits = model(x)
    out = step_outputs(logits, y, index)
    values: dict[str, float] = {}
    metrics = kinds_metrics()
    for name, metric in metrics.items():
        spec = KINDS_INPUTS.get(name, ("preds", "target"))
        if isinstance(spec, dict):
            metric.update(**{param: out[key] for param, key in spec.items()})
        else:
            metric.update(*(out[key] for key in spec))
        result = metric.compute()
        if isinstance(result, dict):
            values.update({f"{name}_{k}": float(v) for k, v in result.items()})
        else:
            values[name] = float(result)
    values["loss"] = float(nn.functional.cross_entropy(logits, y, reduction="none").double().mean())
    binary = {"bacc": BinaryAccuracy(), "bfair": BinaryFairness(num_groups=2)}
    binary["bacc"].update(out["probs"], out["binary"])
    binary["bfair"].update(out["probs"], out["binary"], out["groups"])
    values["bacc"] = float(binary["bacc"].compute())
    values.update({k: float(v) for k, v in binary["bfair"].compute().items()})  # (alone: its keys unprefixed)
    return values
