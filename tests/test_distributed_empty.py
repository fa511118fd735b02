"""A stage with no sample on some or every rank: one process and two give the same value, or the same error.

One pair of gloo processes runs every case (one metric per kind of state: sum tensors, ``cat`` tensors, lists
of dicts, strings reduced to counts, extra inputs, per-sample means, contingency tables), each metric alone
and all of them in one collection (one fused sync); the parent computes the same cases in one process.
"""

from __future__ import annotations

import warnings

import torch

from tests._distributed import run_distributed


def _builders() -> dict:
    from lightning_metrics.classification import BinaryAUROC, MulticlassAccuracy, MulticlassAUROC
    from lightning_metrics.clustering import AdjustedRandScore
    from lightning_metrics.detection import MeanAveragePrecision
    from lightning_metrics.image import StructuralSimilarityIndexMeasure
    from lightning_metrics.regression import R2Score, SpearmanCorrCoef
    from lightning_metrics.retrieval import RetrievalMAP
    from lightning_metrics.segmentation import DiceScore, MeanIoU
    from lightning_metrics.text import BLEUScore, WordErrorRate

    return {
        "acc": (lambda: MulticlassAccuracy(3), lambda: (torch.tensor([0, 1, 2, 2]), torch.tensor([0, 1, 1, 2]))),
        "mauroc": (lambda: MulticlassAUROC(3), lambda: (torch.eye(3)[[0, 1, 2, 1]] * 0.8 + 0.1, torch.tensor([0, 1, 2, 2]))),
        "bauroc": (lambda: BinaryAUROC(), lambda: (torch.tensor([0.2, 0.7, 0.6]), torch.tensor([0, 1, 0]))),
        "map": (
            lambda: MeanAveragePrecision(),
            lambda: (
                [{"boxes": torch.tensor([[0.0, 0, 10, 10]]), "scores": torch.tensor([0.9]), "labels": torch.tensor([1])}],
                [{"boxes": torch.tensor([[1.0, 1, 10, 10]]), "labels": torch.tensor([1])}],
            ),
        ),
        "miou": (lambda: MeanIoU(num_classes=3, input_format="index"), lambda: (torch.tensor([[[0, 1], [2, 2]]]), torch.tensor([[[0, 1], [1, 2]]]))),
        "dice": (lambda: DiceScore(num_classes=3, input_format="index"),
                 lambda: (torch.tensor([[[0, 1], [2, 2]]]), torch.tensor([[[0, 1], [1, 2]]]))),
        "wer": (lambda: WordErrorRate(), lambda: (["the cat sat"], ["the cat sat down"])),
        "bleu": (lambda: BLEUScore(), lambda: (["the cat sat on the mat"], [["the cat sat on a mat"]])),
        "rmap": (lambda: RetrievalMAP(), lambda: (torch.tensor([0.3, 0.8, 0.1]), torch.tensor([0, 1, 1]), torch.tensor([0, 0, 1]))),
        "spearman": (lambda: SpearmanCorrCoef(), lambda: (torch.tensor([1.0, 2.0, 3.5]), torch.tensor([1.0, 3.0, 2.0]))),
        "r2": (lambda: R2Score(), lambda: (torch.tensor([1.0, 2.0, 3.5]), torch.tensor([1.0, 3.0, 2.0]))),
        "ssim": (lambda: StructuralSimilarityIndexMeasure(data_range=1.0),
                 lambda: (torch.linspace(0, 1, 3 * 16 * 16).reshape(1, 3, 16, 16), torch.linspace(0, 1, 3 * 16 * 16).reshape(1, 3, 16, 16).flip(-1))),
        "ari": (lambda: AdjustedRandScore(), lambda: (torch.tensor([0, 0, 1, 1]), torch.tensor([0, 1, 1, 1]))),
    }


def _nan_safe(value: object) -> object:
    if isinstance(value, float) and value != value:
        return "nan"
    if isinstance(value, list):
        return [_nan_safe(v) for v in value]
    return value


def _outcome(compute) -> object:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            value = compute()
        except Exception as err:  # the error is the outcome: its type and message must agree
            return f"{type(err).__name__}: {err}"
    if isinstance(value, dict):
        return {k: _nan_safe(v.tolist() if isinstance(v, torch.Tensor) else v) for k, v in value.items()}
    return _nan_safe(value.tolist() if isinstance(value, torch.Tensor) else value)


def _cases(rank: int, world: int) -> dict:
    """Every metric alone and in one collection: no sample anywhere, then data on rank 0 only."""
    import lightning_metrics as lm

    builders = _builders()
    out = {}
    for name, (build, _) in builders.items():
        out[f"empty/{name}"] = _outcome(build().compute)
    out["empty/collection"] = _outcome(lm.MetricCollection({"acc": builders["acc"][0](), "bauroc": builders["bauroc"][0](),
                                                             "map": builders["map"][0]()}).compute)
    for name, (build, batch) in builders.items():
        metric = build()
        if rank == 0:
            metric.update(*batch())
        out[f"rank0/{name}"] = _outcome(metric.compute)
    return out


def test_no_sample_on_any_rank_gives_the_single_process_outcome():
    single = _cases(0, 1)
    ranks = run_distributed(_cases, timeout=240)
    for key, expected in single.items():
        for rank, got in enumerate(ranks):
            assert got[key] == expected, f"{key} on rank {rank} of 2: {got[key]!r}, one process: {expected!r}"
