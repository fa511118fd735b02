"""Quick start: metrics on their own, a collection sharing one statistic, and the batch value.

Run with ``python examples/quickstart.py`` inside the virtual environment (``make demo`` runs examples/digits.py).
"""

import torch

import lightning_metrics as lm
from lightning_metrics.aggregation import MaxMetric, MeanMetric

torch.manual_seed(0)
losses = lm.MetricCollection({"mean_loss": MeanMetric(), "max_loss": MaxMetric()})
for step in range(5):
    batch_losses = torch.rand(8)
    batch_values = losses(batch_losses)  # accumulates, and returns this batch's values
    print(f"step {step}: " + ", ".join(f"{k}={v:.3f}" for k, v in batch_values.items()))
print("epoch:", {k: round(float(v), 3) for k, v in losses.compute().items()})
