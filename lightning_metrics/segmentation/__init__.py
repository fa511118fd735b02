"""Modular segmentation metrics (torchmetrics names and arguments).

>>> import torch
>>> from lightning_metrics.segmentation import MeanIoU
>>> miou = MeanIoU(num_classes=2, input_format="index")
>>> miou.update(torch.tensor([[0, 1, 1]]), torch.tensor([[0, 1, 0]]))
>>> miou.compute()
tensor(0.5000)

Notes and differences from torchmetrics (segmentation)
------------------------------------------------------

IoU and Dice come from one per-sample table of true positives, false positives
and false negatives, counted in one pass: class-index masks go through a single histogram and are
never expanded to one-hot (a 16x512x512 batch of 150 classes costs a few bytes per pixel, not per
pixel and class). The state is ``3 x C`` int64 per sample (a ``(C, 3)`` sum for
``DiceScore(aggregation_level="global")``), and ``MeanIoU``, ``DiceScore`` and ``GeneralizedDiceScore``
over the same one-hot or mixed input share it in a collection. ``ignore_index=255`` leaves void
pixels out of every count (an extension; it needs class-index targets). ``HausdorffDistance``
computes exact Euclidean, chessboard or taxicab surface distances with a distance transform
written in torch, for every image and class at once, 2-D and 3-D, with ``spacing``. Differences:
a class absent from a sample's target gets generalized-Dice weight 0 (torchmetrics takes it from
the other samples of the batch, so its scores move with batching and DDP sharding; ours equal
torchmetrics fed one sample per call); a class absent from both inputs gives a NaN Hausdorff
distance that is left out of the mean (torchmetrics raises); non-square images are measured
correctly; masks must be 0/1.
"""

from lightning_metrics.segmentation.hausdorff import HausdorffDistance
from lightning_metrics.segmentation.overlap import DiceScore, GeneralizedDiceScore, MeanIoU

__all__ = ["DiceScore", "GeneralizedDiceScore", "HausdorffDistance", "MeanIoU"]
