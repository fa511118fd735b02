"""Detection, text and retrieval metrics in one MetricsCallback: ``inputs`` names, per metric, the
keys of the validation step's output that its ``update`` takes (boxes as lists of dicts, strings,
query ids), for the stages that have the metric.

    python examples/other_inputs.py

A dict result (mAP's) is logged key by key (``val/map``, ``val/map_50``, ...); mAP's -1, "no ground
truth in that size range or class", is left out of the logged scalars with one note.
"""

import lightning.pytorch as L
import torch
import lightning_metrics as lm
from lightning_metrics.detection import MeanAveragePrecision
from lightning_metrics.retrieval import RetrievalMAP
from lightning_metrics.text import WordErrorRate

class Model(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.layer = torch.nn.Linear(4, 1)

    def validation_step(self, batch, batch_idx):
        x, query = batch
        scores = self.layer(x).squeeze(-1)
        box = torch.tensor([[10.0, 10.0, 50.0, 50.0]])
        return {
            "scores": scores, "relevant": (x[:, 0] > 0).long(), "query": query,  # retrieval
            "boxes_pred": [{"boxes": box + 1, "scores": torch.tensor([0.9]), "labels": torch.tensor([1])}],
            "boxes_true": [{"boxes": box, "labels": torch.tensor([1])}],  # detection: lists of dicts
            "text": ["the cat sat"], "refs": ["the cat sat down"],  # text: lists of strings
        }

metrics = lm.MetricsCallback(
    {"detection": MeanAveragePrecision(), "wer": WordErrorRate(), "rmap": RetrievalMAP()},
    stages=("val",),
    inputs={"detection": ("boxes_pred", "boxes_true"), "wer": ("text", "refs"), "rmap": ("scores", "relevant", "query")},
)
data = torch.utils.data.TensorDataset(torch.randn(32, 4), torch.arange(32) // 8)
trainer = L.Trainer(callbacks=[metrics], logger=False, enable_checkpointing=False, enable_progress_bar=False)
trainer.validate(Model(), torch.utils.data.DataLoader(data, batch_size=8))
for key in ("val/map", "val/map_50", "val/wer", "val/rmap"):
    print(f"{key:12} {float(trainer.callback_metrics[key]):.4f}")
