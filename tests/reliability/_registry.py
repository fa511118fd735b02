"""A table of every public metric class with small valid arguments and matching input batches.

Shared by the persistence, numerics and fuzz tests. ``ENTRIES`` maps a case id to an :class:`Entry`;
``test_persistence`` fails when a public class (``__all__`` of classification, regression,
aggregation, wrappers, nominal, clustering, segmentation, retrieval, text, detection, image, audio) has no
entry and no reason in
``EXCLUDED``. Each entry can be built from
lightning_metrics or from torchmetrics (the oracle): wrappers build their inner metrics from the
same library. The result comparisons the suites import from here live in ``_compare``.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
from dataclasses import dataclass, field, replace
from typing import Any, Callable

import torch
from torch import Tensor

import lightning_metrics.retrieval  # noqa: F401  (makes ``lm.retrieval`` an attribute until the top level lists it)
from tests.reliability._compare import assert_close, assert_identical, has_nan, to_plain  # noqa: F401  (re-exported)

C = 3  # classes / labels / members of the small cases

# ------------------------------------------------------------------------------ the table
_ALL, _BC = ("binary", "multiclass", "multilabel"), ("binary", "multiclass")
# base name: (the tasks it has a class for, e.g. ``MulticlassAccuracy``; the task its task wrapper
# (``Accuracy``) is built for, None: no wrapper; the arguments beyond the task's own)
_BY_TASK: dict[str, tuple[tuple[str, ...], str | None, dict]] = {
    "StatScores": (_ALL, "multiclass", dict()),
    "Accuracy": (_ALL, "multiclass", dict()),
    "Precision": (_ALL, "binary", dict()),
    "Recall": (_ALL, "multilabel", dict()),
    "F1Score": (_ALL, "multiclass", dict()),
    "FBetaScore": (_ALL, "multiclass", dict(beta=2.0)),
    "Specificity": (_ALL, "multiclass", dict()),
    "NegativePredictiveValue": (_ALL, "multiclass", dict()),
    "HammingDistance": (_ALL, "multiclass", dict()),
    "JaccardIndex": (_ALL, "multiclass", dict()),
    "MatthewsCorrCoef": (_ALL, "multiclass", dict()),
    "CohenKappa": (_BC, "binary", dict()),
    "ConfusionMatrix": (_ALL, "multilabel", dict()),
    "ExactMatch": (("multiclass", "multilabel"), "multilabel", dict()),
    "AUROC": (_ALL, "binary", dict()),
    "AveragePrecision": (_ALL, "multilabel", dict()),
    "CalibrationError": (_BC, "binary", dict()),
    "EER": (_ALL, "multilabel", dict()),
    "HingeLoss": (_BC, "binary", dict()),
    "LogAUC": (_ALL, "multiclass", dict()),
    "PrecisionAtFixedRecall": (_ALL, "multiclass", dict(min_recall=0.5)),
    "PrecisionRecallCurve": (_ALL, "multilabel", dict()),
    "ROC": (_ALL, "binary", dict()),
    "RecallAtFixedPrecision": (_ALL, "multiclass", dict(min_precision=0.5)),
    "SensitivityAtSpecificity": (_ALL, "multiclass", dict(min_specificity=0.5)),
    "SpecificityAtSensitivity": (_ALL, "multiclass", dict(min_sensitivity=0.5)),
    "CoverageError": (("multilabel",), None, dict()),
    "RankingAveragePrecision": (("multilabel",), None, dict()),
    "RankingLoss": (("multilabel",), None, dict()),
}
_TASK_SIZE = {"binary": dict(), "multiclass": dict(num_classes=C), "multilabel": dict(num_labels=C)}


def _classification() -> dict[str, tuple[str, dict]]:
    """``BinaryAccuracy``: ("binary", {}), ``MulticlassAccuracy``: ("multiclass", {"num_classes": C}),
    ..., ``Accuracy``: ("multiclass", {"task": "multiclass", "num_classes": C}), from ``_BY_TASK``."""
    table: dict[str, tuple[str, dict]] = {}
    for base, (tasks, wrapper_task, extra) in _BY_TASK.items():
        for task in tasks:
            table[task.capitalize() + base] = (task, dict(**_TASK_SIZE[task], **extra))
        if wrapper_task is not None:
            table[base] = (wrapper_task, dict(task=wrapper_task, **_TASK_SIZE[wrapper_task], **extra))
    return table


CLASSIFICATION: dict[str, tuple[str, dict]] = {
    **_classification(),
    "BinaryFairness": ("groups", dict(num_groups=C)),
    "BinaryGroupStatRates": ("groups", dict(num_groups=C)),
}

REGRESSION: dict[str, tuple[str, dict]] = {
    "ConcordanceCorrCoef": ("real", dict()),
    "ContinuousRankedProbabilityScore": ("ensemble", dict()),
    "CosineSimilarity": ("rows", dict()),
    "CriticalSuccessIndex": ("real", dict(threshold=2.0)),
    "ExplainedVariance": ("real", dict()),
    "JensenShannonDivergence": ("prob", dict()),
    "KLDivergence": ("prob", dict()),
    "KendallRankCorrCoef": ("real", dict()),
    "LogCoshError": ("real", dict()),
    "MeanAbsoluteError": ("real", dict()),
    "MeanAbsolutePercentageError": ("positive", dict()),
    "MeanSquaredError": ("real", dict()),
    "MeanSquaredLogError": ("positive", dict()),
    "MinkowskiDistance": ("real", dict(p=3.0)),
    "NormalizedRootMeanSquaredError": ("real", dict()),
    "PearsonCorrCoef": ("real", dict()),
    "R2Score": ("real", dict()),
    "RelativeSquaredError": ("real", dict()),
    "SpearmanCorrCoef": ("real", dict()),
    "SymmetricMeanAbsolutePercentageError": ("positive", dict()),
    "TweedieDevianceScore": ("positive", dict(power=1.5)),
    "WeightedMeanAbsolutePercentageError": ("positive", dict()),
}

AGGREGATION: dict[str, tuple[str, dict]] = {
    "CatMetric": ("values", dict()),
    "MaxMetric": ("values", dict()),
    "MeanMetric": ("values", dict()),
    "MinMetric": ("values", dict()),
    "RunningMean": ("values", dict(window=3)),
    "RunningSum": ("values", dict(window=3)),
    "SumMetric": ("values", dict()),
}


def _complement(preds: Tensor) -> Tensor:  # a module-level transform: the wrapper stays picklable
    return 1 - preds


NOMINAL: dict[str, tuple[str, dict]] = {
    "CramersV": ("categories", dict(num_classes=C)),
    "FleissKappa": ("ratings", dict()),
    "PearsonsContingencyCoefficient": ("categories", dict(num_classes=C)),
    "TheilsU": ("categories", dict(num_classes=C)),
    "TschuprowsT": ("categories", dict(num_classes=C, bias_correction=False)),
}

CLUSTERING: dict[str, tuple[str, dict]] = {
    "AdjustedMutualInfoScore": ("cluster_ids", dict()),
    "AdjustedRandScore": ("cluster_ids", dict()),
    "CalinskiHarabaszScore": ("embeddings", dict()),
    "ClusterAccuracy": ("categories", dict(num_classes=C)),
    "CompletenessScore": ("cluster_ids", dict()),
    "DaviesBouldinScore": ("embeddings", dict()),
    "DunnIndex": ("embeddings", dict(p=1.5)),
    "FowlkesMallowsIndex": ("cluster_ids", dict()),
    "HomogeneityScore": ("cluster_ids", dict()),
    "MutualInfoScore": ("cluster_ids", dict()),
    "NormalizedMutualInfoScore": ("cluster_ids", dict(average_method="geometric")),
    "RandScore": ("cluster_ids", dict()),
    "VMeasureScore": ("cluster_ids", dict(beta=2.0)),
}

SEGMENTATION: dict[str, tuple[str, dict]] = {
    "MeanIoU": ("seg_scores", dict(num_classes=C, input_format="mixed")),
    "DiceScore": ("seg_scores", dict(num_classes=C, input_format="mixed")),
    "GeneralizedDiceScore": ("seg_scores", dict(num_classes=C, input_format="mixed")),
    "HausdorffDistance": ("seg_index", dict(num_classes=C, input_format="index")),
}

RETRIEVAL: dict[str, tuple[str, dict]] = {
    "RetrievalAUROC": ("retrieval", dict()),
    "RetrievalFallOut": ("retrieval", dict()),
    "RetrievalHitRate": ("retrieval", dict(top_k=2)),
    "RetrievalMAP": ("retrieval", dict()),
    "RetrievalMRR": ("retrieval", dict()),
    "RetrievalNormalizedDCG": ("retrieval_graded", dict()),
    "RetrievalPrecision": ("retrieval", dict(top_k=2)),
    "RetrievalPrecisionRecallCurve": ("retrieval", dict(max_k=3)),
    "RetrievalRPrecision": ("retrieval", dict()),
    "RetrievalRecall": ("retrieval", dict(top_k=2)),
    "RetrievalRecallAtFixedPrecision": ("retrieval", dict(min_precision=0.5, max_k=3)),
}


DETECTION: dict[str, tuple[str, dict]] = {
    "MeanAveragePrecision": ("det_boxes", dict()),
    "IntersectionOverUnion": ("det_boxes", dict(class_metrics=True)),
    "GeneralizedIntersectionOverUnion": ("det_boxes", dict()),
    "DistanceIntersectionOverUnion": ("det_boxes", dict(respect_labels=False)),
    "CompleteIntersectionOverUnion": ("det_boxes", dict(iou_threshold=0.1)),
    "PanopticQuality": ("panoptic", dict(things={0, 1}, stuffs={2})),
    "ModifiedPanopticQuality": ("panoptic", dict(things={0, 1}, stuffs={2})),
}


IMAGE: dict[str, tuple[str, dict]] = {
    "PeakSignalNoiseRatio": ("images", dict(data_range=1.0)),
    "PeakSignalNoiseRatioWithBlockedEffect": ("gray_images", dict(data_range=1.0)),
    "StructuralSimilarityIndexMeasure": ("images", dict(data_range=1.0)),
    "MultiScaleStructuralSimilarityIndexMeasure": ("images", dict(data_range=1.0, betas=(0.5, 0.5))),
    "UniversalImageQualityIndex": ("images", dict()),
    "ErrorRelativeGlobalDimensionlessSynthesis": ("images", dict()),
    "SpectralAngleMapper": ("images", dict()),
    "RelativeAverageSpectralError": ("images", dict()),
    "RootMeanSquaredErrorUsingSlidingWindow": ("images", dict()),
    "SpatialCorrelationCoefficient": ("images", dict()),
    "SpectralDistortionIndex": ("images", dict()),
    "SpatialDistortionIndex": ("pansharpening", dict()),
    "QualityWithNoReference": ("pansharpening", dict()),
    "TotalVariation": ("image", dict()),
    "VisualInformationFidelity": ("vif_images", dict()),
}


def _si_sdr(lib: Any) -> Callable:
    return lib.functional.audio.scale_invariant_signal_distortion_ratio


AUDIO: dict[str, tuple[str, dict]] = {
    "SignalNoiseRatio": ("waves", dict()),
    "ScaleInvariantSignalNoiseRatio": ("waves", dict()),
    "ScaleInvariantSignalDistortionRatio": ("waves", dict(zero_mean=True)),
    "SignalDistortionRatio": ("waves", dict(filter_length=16)),
    "ComplexScaleInvariantSignalNoiseRatio": ("spectrograms", dict()),
    "SourceAggregatedSignalDistortionRatio": ("waves", dict()),
    "PermutationInvariantTraining": ("waves", dict(metric_func=_si_sdr)),
    "ShortTimeObjectiveIntelligibility": ("speech", dict(fs=8000, extended=True)),
    "SpeechReverberationModulationEnergyRatio": ("speech_alone", dict(fs=8000, n_cochlear_filters=8, norm=True)),
}
if importlib.util.find_spec("pesq") is not None:  # the optional `audio` extra
    AUDIO["PerceptualEvaluationSpeechQuality"] = ("speech", dict(fs=8000, mode="nb"))


def _wrapped(package: str, name: str, **kwargs: Any) -> Callable[[Any], Any]:
    return lambda lib: getattr(getattr(lib, package), name)(**kwargs)


WRAPPERS: dict[str, tuple[str, dict]] = {
    "BootStrapper": ("real", dict(base_metric=_wrapped("regression", "MeanSquaredError"), num_bootstraps=3)),
    "ClasswiseWrapper": (
        "multiclass",
        dict(metric=_wrapped("classification", "MulticlassAccuracy", num_classes=C, average=None)),
    ),
    "MetricTracker": ("real", dict(metric=_wrapped("regression", "MeanAbsoluteError"))),
    "MinMaxMetric": ("real", dict(base_metric=_wrapped("regression", "MeanSquaredError"))),
    "MultioutputWrapper": (
        "real2",
        dict(base_metric=_wrapped("regression", "MeanSquaredError"), num_outputs=2),
    ),
    "MultitaskWrapper": (
        "multitask",
        dict(
            task_metrics=lambda lib: {
                "cls": lib.classification.BinaryAccuracy(),
                "reg": lib.regression.MeanSquaredError(),
            }
        ),
    ),
    "Running": ("values", dict(base_metric=_wrapped("aggregation", "SumMetric"), window=3)),
    "BinaryTargetTransformer": (
        "binary_soft_target",
        dict(wrapped_metric=_wrapped("classification", "BinaryAccuracy"), threshold=0.5),
    ),
    "LambdaInputTransformer": (
        "binary",
        dict(wrapped_metric=_wrapped("classification", "BinaryAccuracy"), transform_pred=lambda lib: _complement),
    ),
    "MetricInputTransformer": ("real", dict(wrapped_metric=_wrapped("regression", "MeanSquaredError"))),
}

TEXT: dict[str, tuple[str, dict]] = {
    "BLEUScore": ("references", dict()),
    "CHRFScore": ("references", dict()),
    "CharErrorRate": ("sentences", dict()),
    "EditDistance": ("sentences", dict()),
    "ExtendedEditDistance": ("references", dict()),
    "MatchErrorRate": ("sentences", dict()),
    "Perplexity": ("logits", dict()),
    "ROUGEScore": ("references", dict(rouge_keys=("rouge1", "rouge2", "rougeL"))),  # rougeLsum: nltk data
    "SQuAD": ("squad", dict()),
    "SacreBLEUScore": ("references", dict()),
    "TranslationEditRate": ("references", dict()),
    "WordErrorRate": ("sentences", dict()),
    "WordInfoLost": ("sentences", dict()),
    "WordInfoPreserved": ("sentences", dict()),
}
TEXT_KINDS = ("sentences", "references", "squad")  # updates that take lists (of strings or dicts)

# Public classes that cannot be built on their own, with the reason.
EXCLUDED = {
    "aggregation.BaseAggregator": "abstract base: needs a reduction function and an update from a subclass",
    "wrappers.WrapperMetric": "abstract base of the wrappers: no states, no update",
    "wrappers.FeatureShare": "a MetricCollection whose members must embed a feature network (tests/wrappers)",
    "wrappers.NetworkCache": "an nn.Module caching a network's outputs, not a metric (tests/wrappers)",
    "text.BERTScore": "runs a transformers model: tests/text/test_bert.py builds a tiny one (state_dict round trip there)",
    "text.InfoLM": "runs a transformers model: tests/text/test_infolm.py builds a tiny one",
    **{f"image.{name}": "runs a feature network and takes (imgs, real): tests/image/test_generative.py "
       "(checkpoints, scripting, two processes, torchmetrics' values)" for name in (
        "FrechetInceptionDistance", "KernelInceptionDistance", "InceptionScore",
        "MemorizationInformedFrechetInceptionDistance")},
}
EXCLUDED.update({
    "image.LearnedPerceptualImagePatchSimilarity": "runs LPIPS' network: tests/image/test_perceptual.py (random weights "
    "in the real layout: values, checkpoints both ways, two processes)",
    "image.DeepImageStructureAndTextureSimilarity": "runs DISTS' network: tests/image/test_perceptual.py",
    "image.PerceptualPathLength": "samples a user's generator through LPIPS: tests/image/test_perceptual_path_length.py",
    "image.ARNIQA": "runs ARNIQA's ResNet-50: tests/image/test_arniqa.py and tests/networks/test_arniqa_nisqa_*.py",
    "audio.NonIntrusiveSpeechQualityAssessment": "runs NISQA's network: tests/audio/test_nisqa.py and "
    "tests/networks/test_arniqa_nisqa_*.py",
})
EXCLUDED["audio.DeepNoiseSuppressionMeanOpinionScore"] = (
    "runs ONNX model files in onnxruntime: tests/audio/test_dnsmos.py writes small random ones (values, states)")
if "PerceptualEvaluationSpeechQuality" not in AUDIO:
    EXCLUDED["audio.PerceptualEvaluationSpeechQuality"] = "needs the optional pesq package (tests/audio/test_pesq.py)"

# Extra configurations of listed classes (other state kinds: binned curves, multi-output moments).
VARIANTS: dict[str, tuple[str, str, str, dict]] = {
    "BinaryAUROC[thresholds=5]": ("classification", "BinaryAUROC", "binary", dict(thresholds=5)),
    "MulticlassROC[thresholds=5]": (
        "classification",
        "MulticlassROC",
        "multiclass",
        dict(num_classes=C, thresholds=5),
    ),
    "MultilabelAveragePrecision[thresholds=5]": (
        "classification",
        "MultilabelAveragePrecision",
        "multilabel",
        dict(num_labels=C, thresholds=5),
    ),
    "MulticlassAccuracy[samplewise]": (
        "classification",
        "MulticlassAccuracy",
        "multiclass_2d",
        dict(num_classes=C, multidim_average="samplewise"),
    ),
    "MulticlassAccuracy[ignore_index=-1]": (
        "classification",
        "MulticlassAccuracy",
        "multiclass",
        dict(num_classes=C, ignore_index=-1),
    ),
    "MeanIoU[one-hot]": ("segmentation", "MeanIoU", "seg_masks", dict(per_class=True)),
    "MeanIoU[ignore_index=255]": (
        "segmentation",
        "MeanIoU",
        "seg_index",
        dict(num_classes=C, input_format="index", ignore_index=255),
    ),
    "DiceScore[global]": (
        "segmentation",
        "DiceScore",
        "seg_index",
        dict(num_classes=C, input_format="index", aggregation_level="global", average="none"),
    ),
    "HausdorffDistance[one-hot]": ("segmentation", "HausdorffDistance", "seg_masks", dict(num_classes=C)),
    "PeakSignalNoiseRatio[dim]": ("image", "PeakSignalNoiseRatio", "images", dict(data_range=1.0, dim=(1, 2, 3))),
    "StructuralSimilarityIndexMeasure[none,full]": (
        "image",
        "StructuralSimilarityIndexMeasure",
        "images",
        dict(reduction="none", return_full_image=True, data_range=1.0),
    ),
    "SpectralAngleMapper[none]": ("image", "SpectralAngleMapper", "images", dict(reduction="none")),
    "MeanSquaredError[num_outputs=2]": ("regression", "MeanSquaredError", "real2", dict(num_outputs=2)),
    "R2Score[raw_values]": ("regression", "R2Score", "real2", dict(multioutput="raw_values")),
    "PearsonCorrCoef[num_outputs=2]": ("regression", "PearsonCorrCoef", "real2", dict(num_outputs=2)),
    "SpearmanCorrCoef[num_outputs=2]": ("regression", "SpearmanCorrCoef", "real2", dict(num_outputs=2)),
    "EditDistance[reduction=none]": ("text", "EditDistance", "sentences", dict(reduction="none")),
    "CHRFScore[sentence_level]": ("text", "CHRFScore", "references", dict(return_sentence_level_score=True)),
    "TranslationEditRate[sentence_level]": (
        "text",
        "TranslationEditRate",
        "references",
        dict(return_sentence_level_score=True),
    ),
    "ExtendedEditDistance[sentence_level]": (
        "text",
        "ExtendedEditDistance",
        "references",
        dict(return_sentence_level_score=True),
    ),
    "Perplexity[ignore_index=-100]": ("text", "Perplexity", "logits_ignored", dict(ignore_index=-100)),
    "MeanAveragePrecision[class_metrics,micro]": (
        "detection",
        "MeanAveragePrecision",
        "det_boxes",
        dict(class_metrics=True, average="micro", box_format="xywh"),
    ),
    "PanopticQuality[per_class]": (
        "detection",
        "PanopticQuality",
        "panoptic",
        dict(things={0, 1}, stuffs={2}, return_sq_and_rq=True, return_per_class=True),
    ),
}


@dataclass(frozen=True)
class Entry:
    """One constructible configuration of a public class."""

    key: str
    package: str  # classification / regression / aggregation / wrappers / retrieval / text / ...
    name: str
    kind: str  # the input kind, see :func:`make_batch`
    kwargs: dict = field(hash=False)

    def build(self, lib: Any = None) -> Any:
        """The metric from ``lib`` (lightning_metrics by default, or torchmetrics)."""
        lib = lib or _lib("lightning_metrics")
        args = {k: (v(lib) if callable(v) else v) for k, v in self.kwargs.items()}
        metric = getattr(_package(lib, self.package), self.name)(**args)
        if self.name == "MetricTracker":
            metric.increment()
        return metric

    def unchecked(self) -> Entry:
        """This configuration with ``validate_args=False`` and ``nan_strategy="disable"`` where the
        public class takes them (``validate_args`` of the image and audio classes through ``**kwargs``):
        the update path without value checks (which read values back)."""
        public = getattr(_package(_lib("lightning_metrics"), self.package), self.name)
        params = inspect.signature(public.__new__ if "__new__" in public.__dict__ else public.__init__).parameters
        kwargs = dict(self.kwargs)
        if "validate_args" in params or "validate_args" in getattr(public, "_keyword_arguments", {}):
            kwargs["validate_args"] = False
        if "nan_strategy" in params:
            kwargs["nan_strategy"] = "disable"
        return replace(self, kwargs=kwargs)


def _lib(name: str) -> Any:
    return importlib.import_module(name)


def _package(lib: Any, package: str) -> Any:
    return importlib.import_module(f"{lib.__name__}.{package}")


def _entries() -> dict[str, Entry]:
    out: dict[str, Entry] = {}
    for package, table in (
        ("classification", CLASSIFICATION),
        ("regression", REGRESSION),
        ("aggregation", AGGREGATION),
        ("wrappers", WRAPPERS),
        ("nominal", NOMINAL),
        ("clustering", CLUSTERING),
        ("segmentation", SEGMENTATION),
        ("retrieval", RETRIEVAL),
        ("text", TEXT),
        ("detection", DETECTION),
        ("image", IMAGE),
        ("audio", AUDIO),
    ):
        for name, (kind, kwargs) in table.items():
            out[name] = Entry(name, package, name, kind, kwargs)
    for key, (package, name, kind, kwargs) in VARIANTS.items():
        out[key] = Entry(key, package, name, kind, kwargs)
    return out


ENTRIES: dict[str, Entry] = _entries()


def public_classes() -> list[str]:
    """``package.Name`` for every class exported by the metric packages."""
    names = []
    for package in ("classification", "regression", "aggregation", "wrappers", "nominal", "clustering",
                    "segmentation", "retrieval", "text", "detection", "image", "audio"):
        module = importlib.import_module(f"lightning_metrics.{package}")
        names += [f"{package}.{n}" for n in module.__all__ if isinstance(getattr(module, n), type)]
    return names


# ------------------------------------------------------------------------------ the data
def make_batch(kind: str, n: int, gen: torch.Generator, dtype: torch.dtype = torch.float32) -> tuple:
    """The positional ``update`` arguments of one batch of ``n`` samples of ``kind``."""

    def randn(*shape: int) -> Tensor:
        return torch.randn(shape, generator=gen, dtype=torch.float64)

    def rand(*shape: int) -> Tensor:
        return torch.rand(shape, generator=gen, dtype=torch.float64)

    if kind == "binary":
        return rand(n).to(dtype), torch.randint(0, 2, (n,), generator=gen)
    if kind == "multiclass":
        return randn(n, C).softmax(-1).to(dtype), torch.randint(0, C, (n,), generator=gen)
    if kind == "multiclass_2d":
        return randn(n, C, 4).softmax(1).to(dtype), torch.randint(0, C, (n, 4), generator=gen)
    if kind == "multilabel":
        return rand(n, C).to(dtype), torch.randint(0, 2, (n, C), generator=gen)
    if kind in ("real", "real2"):
        shape = (n,) if kind == "real" else (n, 2)
        target = 2 + 3 * randn(*shape)
        return (0.8 * target + randn(*shape)).to(dtype), target.to(dtype)
    if kind == "positive":
        target = rand(n) * 5 + 0.1
        return (target * (0.5 + rand(n))).to(dtype), target.to(dtype)
    if kind == "prob":
        return (rand(n, 4) + 0.05).to(dtype), (rand(n, 4) + 0.05).to(dtype)
    if kind == "ensemble":
        target = randn(n)
        return (target.unsqueeze(1) + randn(n, 5)).to(dtype), target.to(dtype)
    if kind == "rows":
        preds = randn(n, 4)
        return preds.to(dtype), (preds + 0.5 * randn(n, 4)).to(dtype)
    if kind == "values":
        return ((randn(n) * 2 + 1).to(dtype),)
    if kind == "groups":  # binary scores, targets and a group id per sample
        return rand(n).to(dtype), torch.randint(0, 2, (n,), generator=gen), torch.arange(n) % C
    if kind == "binary_soft_target":  # targets in [0, 1] that a BinaryTargetTransformer binarizes
        return rand(n).to(dtype), rand(n).to(dtype)

    if kind == "categories":
        return torch.randint(0, C, (n,), generator=gen), torch.randint(0, C, (n,), generator=gen)
    if kind == "cluster_ids":  # arbitrary ids: negative, gapped
        return torch.randint(0, 4, (n,), generator=gen) * 5 - 3, torch.randint(0, C, (n,), generator=gen)
    if kind == "embeddings":  # every batch holds C clusters once it has C samples
        labels = torch.randperm(n, generator=gen) % C
        return (randn(n, 3) + 3 * labels.unsqueeze(1)).to(dtype), labels
    if kind == "ratings":  # 4 raters per sample
        return (torch.nn.functional.one_hot(torch.randint(0, C, (n, 4), generator=gen), C).sum(1),)
    if kind in ("seg_scores", "seg_index", "seg_masks"):  # (n, 4, 5) images of C classes
        labels = torch.randint(0, C, (n, 4, 5), generator=gen)
        target = torch.where(rand(n, 4, 5) < 0.6, labels, torch.randint(0, C, (n, 4, 5), generator=gen))
        if kind == "seg_index":
            return labels, target
        one_hot = torch.nn.functional.one_hot(labels, C).movedim(-1, 1)
        if kind == "seg_masks":
            return one_hot, torch.nn.functional.one_hot(target, C).movedim(-1, 1)
        scores = randn(n, C, 4, 5) + 2 * one_hot
        return scores.to(dtype), target
    if kind in ("retrieval", "retrieval_graded"):  # (preds, target, indexes): 3 sparse query ids
        indexes = torch.randint(0, 3, (n,), generator=gen) * 1_000_003 - 7
        target = torch.randint(0, 4 if kind == "retrieval_graded" else 2, (n,), generator=gen)
        return rand(n).to(dtype), target, indexes
    if kind in TEXT_KINDS or kind.startswith("logits"):
        return _text_batch(kind, n, gen, dtype)
    if kind == "det_boxes":  # n images of 0-3 targets and 0-4 detections (xyxy boxes, valid as xywh too)
        preds, target = [], []
        for _ in range(n):
            m, d = int(torch.randint(0, 4, (1,), generator=gen)), int(torch.randint(0, 5, (1,), generator=gen))
            corner = rand(m + d, 2) * 40
            boxes = torch.cat([corner, corner + 5 + rand(m + d, 2) * 30], 1)
            labels = torch.randint(0, C, (m + d,), generator=gen)
            det = torch.cat([boxes[:m] + rand(m, 4) * 3, boxes[m:]])
            preds.append({"boxes": det.to(dtype), "scores": rand(m + d).to(dtype), "labels": labels})
            target.append({"boxes": boxes[:m].to(dtype), "labels": labels[:m], "iscrowd": (rand(m) < 0.2).long()})
        return preds, target
    if kind == "panoptic":  # (n, 4, 4, 2) maps of (category, instance); categories 0, 1 things, 2 stuff, 3 unknown
        target = torch.stack([torch.randint(0, 4, (n, 4, 4), generator=gen), torch.randint(0, 2, (n, 4, 4), generator=gen)], -1)
        preds = target.clone()
        preds[..., 0] = torch.where(rand(n, 4, 4) < 0.3, torch.randint(0, 3, (n, 4, 4), generator=gen), preds[..., 0] % 3)
        return preds, target
    if kind in ("images", "gray_images", "vif_images", "image"):  # (n, C, H, W) in [0, 1]
        channels, side = {"gray_images": (1, 16), "vif_images": (1, 41)}.get(kind, (3, 16))
        target = rand(n, channels, side, side)
        preds = (0.8 * target + 0.2 * rand(n, channels, side, side)).to(dtype)
        return (preds,) if kind == "image" else (preds, target.to(dtype))
    if kind == "pansharpening":  # fused (n, 3, 24, 24) and a dict of ms, pan, pan_lr
        fused, pan = rand(n, 3, 24, 24).to(dtype), rand(n, 3, 24, 24).to(dtype)
        return fused, {"ms": rand(n, 3, 12, 12).to(dtype), "pan": pan, "pan_lr": pan[..., ::2, ::2].contiguous()}
    if kind in ("speech", "speech_alone"):  # (n, 4000): half a second of speech-like audio at 8 kHz, noisy
        from tests.audio._speech import degraded, speech

        clean = speech(gen, n, 0.5, 8000, pause=False)
        noisy = degraded(gen, clean, torch.linspace(0.0, 20.0, n, dtype=torch.float64)).to(dtype)
        return (noisy,) if kind == "speech_alone" else (noisy, clean.to(dtype))
    if kind in ("waves", "spectrograms"):  # (n, 2 speakers, 64 samples), or (n, 3, 4, 2) spectrograms
        shape = (n, 2, 64) if kind == "waves" else (n, 3, 4, 2)
        target = randn(*shape)
        return (target.flip(1) + 0.5 * randn(*shape)).to(dtype), target.to(dtype)
    if kind == "multitask":
        reg_t = randn(n)
        preds = {"cls": rand(n).to(dtype), "reg": (reg_t + randn(n)).to(dtype)}
        target = {"cls": torch.randint(0, 2, (n,), generator=gen), "reg": reg_t.to(dtype)}
        return preds, target
    raise ValueError(f"unknown input kind {kind!r}")


_TEXT_WORDS = ("the", "cat", "sat", "on", "a", "mat", "The", "Cat", "dog", "ran", "fast", "é", "über", "中文", ",", ".", "!",
               "don't", "U.S.", "3.5")  # fmt: skip


def _text_batch(kind: str, n: int, gen: torch.Generator, dtype: torch.dtype) -> tuple:
    """Sentences drawn from a small vocabulary (unicode, punctuation, casing); logits for perplexity."""

    def sentence() -> str:
        length = int(torch.randint(0, 9, (1,), generator=gen))
        picks = torch.randint(0, len(_TEXT_WORDS), (length,), generator=gen).tolist()
        return " ".join(_TEXT_WORDS[i] for i in picks)

    if kind in ("logits", "logits_ignored"):
        target = torch.randint(0, 5, (n, 4), generator=gen)
        if kind == "logits_ignored":
            target[:, -1] = torch.where(torch.rand(n, generator=gen) < 0.5, -100, target[:, -1])
        return torch.randn((n, 4, 5), generator=gen, dtype=torch.float64).to(dtype), target
    preds = [sentence() for _ in range(n)]
    if kind == "sentences":
        return preds, [sentence() for _ in range(n)]
    if kind == "references":
        return preds, [[sentence() for _ in range(1 + int(torch.randint(0, 3, (1,), generator=gen)))] for _ in range(n)]
    ids = [str(int(torch.randint(0, 10**6, (1,), generator=gen))) for _ in range(n)]
    return (
        [{"prediction_text": p, "id": i} for p, i in zip(preds, ids)],
        [{"answers": {"answer_start": [0], "text": [sentence(), sentence()]}, "id": i} for i in ids],
    )


def batches(kind: str, sizes: tuple[int, ...], seed: int, dtype: torch.dtype = torch.float32) -> list[tuple]:
    gen = torch.Generator().manual_seed(seed)
    return [make_batch(kind, n, gen, dtype) for n in sizes]
