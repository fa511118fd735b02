"""The import swap never fails: every torchmetrics 1.9 module path and public name of the domains
we offer resolves at the same path under ``lightning_metrics``, with the same signature and class
attributes; what we do not offer says so. torchmetrics is walked at test time, so a name it adds
in a covered module fails here until it has a counterpart or an entry in ``DEVIATIONS``.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import pkgutil
import subprocess
import sys
import warnings

import pytest

from lightning_metrics import _compat

torchmetrics = pytest.importorskip("torchmetrics")

_EXACT_MERGE = "our states merge exactly by their reductions, so forward updates once (torchmetrics: twice)"
# Deliberate differences, each with its reason. Keys: "path:name" (path "" is the top level) for a
# name we do not offer, "sig:name" for a signature, "attr:name:attribute" for a class attribute.
DEVIATIONS: dict[str, str] = {
    "attr:ConcordanceCorrCoef:full_state_update": _EXACT_MERGE,
    "attr:PearsonCorrCoef:full_state_update": _EXACT_MERGE,
    "attr:NormalizedRootMeanSquaredError:full_state_update": _EXACT_MERGE,
    "attr:CriticalSuccessIndex:full_state_update": _EXACT_MERGE,
    "attr:Running:full_state_update": "the window of batch states is merged in forward without a second update",
    "attr:RunningMean:full_state_update": "the window of batch states is merged in forward without a second update",
    "attr:RunningSum:full_state_update": "the window of batch states is merged in forward without a second update",
    **{f"attr:{name}:full_state_update": "count and sum states merge exactly: forward updates once"
       for name in ("BLEUScore", "SacreBLEUScore", "CHRFScore", "ROUGEScore")},
    "attr:WordInfoPreserved:higher_is_better": "more information preserved is better (torchmetrics says False)",
    **{f"attr:{name}:full_state_update": "its states merge exactly (sums, per-sample tensors): forward runs the model once"
       for name in ("CLIPScore", "CLIPImageQualityAssessment", "InfoLM")},
    "attr:CompositionalMetric:full_state_update": "forward combines the operands' own forward values",
    "attr:ClasswiseWrapper:is_differentiable": "a property: the wrapped metric's flag (torchmetrics leaves None)",
    "attr:MinMaxMetric:higher_is_better": "a property: the wrapped metric's flag (torchmetrics leaves None)",
    "attr:MulticlassMatthewsCorrCoef:plot_lower_bound": "MCC lies in [-1, 1]; torchmetrics' 0.0 would cut negative values off plots",
    "attr:MultilabelMatthewsCorrCoef:plot_lower_bound": "MCC lies in [-1, 1]; torchmetrics' 0.0 would cut negative values off plots",
    "attr:ExplainedVariance:plot_lower_bound": "explained variance is negative for a model worse than the mean; no lower bound",
    # torchmetrics' implementation helpers, not part of its documented API
    "utilities.plot:plot_single_or_multi_val": "torchmetrics' matplotlib internals; use Metric.plot or lightning_metrics.plotting",
    "utilities.plot:trim_axs": "torchmetrics' matplotlib internals; use Metric.plot or lightning_metrics.plotting",
    "utilities.plot:plot_confusion_matrix": "torchmetrics' matplotlib internals; use lightning_metrics.plotting",
    "utilities.plot:plot_curve": "torchmetrics' matplotlib internals; use lightning_metrics.plotting",
    "attr:DaviesBouldinScore:higher_is_better": "lower is better for the Davies-Bouldin index (torchmetrics says True)",
    "attr:NormalizedMutualInfoScore:plot_upper_bound": "NMI lies in [0, 1]; torchmetrics' upper bound of 0.0 is a slip",
    # detection
    "detection.helpers:CocoBackend": "the COCO protocol runs natively: pycocotools/faster-coco-eval are never loaded",
    "attr:MeanAveragePrecision:full_state_update": _EXACT_MERGE,
    **{f"attr:{name}:full_state_update": _EXACT_MERGE for name in (
        "IntersectionOverUnion", "GeneralizedIntersectionOverUnion", "DistanceIntersectionOverUnion",
        "CompleteIntersectionOverUnion")},
    "attr:ScaleInvariantSignalNoiseRatio:full_state_update": _EXACT_MERGE,
    "attr:ScaleInvariantSignalDistortionRatio:full_state_update": _EXACT_MERGE,
    "attr:ComplexScaleInvariantSignalNoiseRatio:full_state_update": _EXACT_MERGE,
    "sig:PeakSignalNoiseRatio": "torchmetrics' top-level name is a deprecated subclass defaulting data_range=3.0; "
        "ours is the image class everywhere (tests/image/test_api.py checks its signature)",
    "functional.audio.dnsmos:InferenceSession": "torchmetrics' stand-in for onnxruntime's class, defined only "
        "when onnxruntime is missing: use onnxruntime.InferenceSession",
    "sig:peak_signal_noise_ratio": "torchmetrics' top-level name is a deprecated wrapper defaulting data_range=3.0; "
        "ours is the image function everywhere (tests/image/test_api.py checks its signature)",
}
# Parameters of ours that torchmetrics lacks (extensions): allowed after all of torchmetrics' own
# parameters, each with its reason. Keys: "name:parameter".
_SEG_IGNORE = "pixels labelled ignore_index are left out of every count (users keep asking torchmetrics)"
_SEG_VALIDATE = "validate_args=False skips the value checks and their host sync, as in classification"
_RETRIEVAL = ("RetrievalAUROC", "RetrievalFallOut", "RetrievalHitRate", "RetrievalMAP", "RetrievalMRR",
              "RetrievalNormalizedDCG", "RetrievalPrecision", "RetrievalPrecisionRecallCurve", "RetrievalRPrecision",
              "RetrievalRecall", "RetrievalRecallAtFixedPrecision")
_SACREBLEU = "convention='sacrebleu' returns sacrebleu's value (the standard the field reports), /100"
_MAP_VALIDATE = (
    "validate_args=False skips the value checks (finite boxes with x2 >= x1, finite scores, 0/1 crowd flags, "
    "finite non-negative areas) and their host read"
)
DEVIATIONS.update({
    f"functional.image.{module}:{name}": "a part of torchmetrics' own network: ours are lightning_metrics.networks"
    for module, names in (("lpips", "Alexnet Vgg16 SqueezeNet ScalingLayer NetLinLayer"), ("dists", "DISTSNetwork"))
    for name in names.split()
})
EXTENSIONS: dict[str, str] = {
    **{f"{name}:convention": _SACREBLEU for name in (
        "SacreBLEUScore", "CHRFScore", "TranslationEditRate", "sacre_bleu_score", "chrf_score", "translation_edit_rate")},
    **{f"{name}:validate_args": _SEG_VALIDATE for name in _RETRIEVAL},
    "RetrievalRPrecision:aggregation": "torchmetrics takes it through **kwargs; named here",
    "RetrievalRecallAtFixedPrecision:aggregation": "torchmetrics takes it through **kwargs; named here",
    "MeanAveragePrecision:validate_args": _MAP_VALIDATE,
    "mean_average_precision:validate_args": _MAP_VALIDATE,
    **{f"{name}:ignore_index": _SEG_IGNORE for name in (
        "MeanIoU", "DiceScore", "GeneralizedDiceScore", "mean_iou", "dice_score", "generalized_dice_score")},
    **{f"{name}:validate_args": _SEG_VALIDATE for name in (
        "MeanIoU", "DiceScore", "GeneralizedDiceScore", "HausdorffDistance",
        "mean_iou", "dice_score", "generalized_dice_score", "hausdorff_distance")},
    "arniqa:model": "an ARNIQA network to use instead of the release's (keyword-only)",
    "non_intrusive_speech_quality_assessment:model": "a NISQA network to use instead of the published one",
    "learned_perceptual_image_patch_similarity:net": "an LPIPS network to use instead of the built one (keyword-only)",
    "deep_image_structure_and_texture_similarity:net": "a DISTS network to use instead of the built one (keyword-only)",
}
# Issue 39: the keyword-only ``sample_weight=None`` of every weighted metric's function (torchmetrics has none),
# last, with the rules of lightning_metrics.utilities.sample_weight
_SAMPLE_WEIGHT = ("sample_weight", inspect.Parameter.KEYWORD_ONLY, "None")
# Whole torchmetrics modules that hold implementation helpers only.
HELPER_MODULES = {
    "functional.regression.utils": "torchmetrics' private argument checks",
    "classification.base": "torchmetrics' private task-wrapper base class",
    "functional.text.helper_embedding_metric": "datasets of torchmetrics' model-based text metrics (not offered)",
}
# Names the walk above does not see (private, or wrapped in functools.lru_cache) that code written for
# torchmetrics imports from these paths: served with torchmetrics' signatures.
BEYOND_THE_WALK = {
    "retrieval.base": ("_retrieval_aggregate",),
    "functional.clustering.utils": (
        "_validate_average_method_arg", "_is_real_discrete_label", "_validate_intrinsic_cluster_data",
        "_validate_intrinsic_labels_to_samples",
    ),
    "functional.segmentation.utils": ("get_neighbour_tables", "table_surface_area"),
    "detection.helpers": (
        "_input_validator", "_fix_empty_tensors", "_validate_iou_type_arg", "_get_classes",
        "_warning_on_too_many_detections",
    ),
}
CLASS_ATTRIBUTES = (
    "is_differentiable",
    "higher_is_better",
    "full_state_update",
    "plot_lower_bound",
    "plot_upper_bound",
    "plot_legend_name",
)


def _public_names(module, name):
    if hasattr(module, "__all__"):
        return list(dict.fromkeys(module.__all__))
    return [
        n
        for n, obj in vars(module).items()
        if not n.startswith("_") and (inspect.isclass(obj) or inspect.isfunction(obj)) and obj.__module__ == name
    ]


def _walk_torchmetrics():
    rows = {"": [n for n in _public_names(torchmetrics, "torchmetrics") if n != "functional"]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for info in pkgutil.walk_packages(torchmetrics.__path__, "torchmetrics."):
            path = info.name[len("torchmetrics.") :]
            if any(part.startswith("_") for part in path.split(".")):
                continue
            rows[path] = _public_names(importlib.import_module(info.name), info.name)
    return rows


TORCHMETRICS = _walk_torchmetrics()

def _domain(path):
    parts = path.split(".")
    return ".".join(parts[:2]) if parts[0] == "functional" and len(parts) > 1 else parts[0]


def _offered_domain(path):
    """Whether the domain of ``path`` has landed here (its package exists)."""
    if path in ("", "functional"):
        return True
    try:
        return importlib.util.find_spec(f"lightning_metrics.{_domain(path)}") is not None
    except ImportError:
        return False


def _home(path, name):
    """The torchmetrics path that defines a name of the top level or of ``functional``."""
    if path not in ("", "functional"):
        return path
    return _compat._homes(path).get(name, path)


COVERED = [(p, n) for p, names in TORCHMETRICS.items() if p not in HELPER_MODULES for n in names
           if _offered_domain(_home(p, n))]
NOT_OFFERED_DOMAINS = sorted({_domain(p) for p in TORCHMETRICS if p and not _offered_domain(p)})


# Names that torchmetrics adds to a package's ``__all__`` only when their optional packages import
# (pesq, pystoi, gammatone and torchaudio, librosa with onnxruntime or requests, transformers, vmaf-torch): the
# table lists them always, in torchmetrics' order; a row here may lack them.
OPTIONAL_EXPORTS = frozenset(
    "PerceptualEvaluationSpeechQuality ShortTimeObjectiveIntelligibility SpeechReverberationModulationEnergyRatio "
    "DeepNoiseSuppressionMeanOpinionScore NonIntrusiveSpeechQualityAssessment perceptual_evaluation_speech_quality "
    "short_time_objective_intelligibility speech_reverberation_modulation_energy_ratio "
    "deep_noise_suppression_mean_opinion_score non_intrusive_speech_quality_assessment "
    "CLIPImageQualityAssessment CLIPScore clip_image_quality_assessment clip_score BERTScore InfoLM bert_score "
    "infolm VideoMultiMethodAssessmentFusion video_multi_method_assessment_fusion".split()
    # torchmetrics' stand-in class, defined in functional.audio.dnsmos only when onnxruntime is missing
    + ["InferenceSession"]
)


def test_the_table_is_torchmetrics_1_9():
    """The declarative table lists exactly torchmetrics' paths and names (rows to add are printed)."""
    table = _compat.table()

    def row(path, names):  # the table's row less the optional names torchmetrics lacks here
        if path not in table:
            return None
        return tuple(n for n in table[path] if n in names or n not in OPTIONAL_EXPORTS)

    missing = {p: names for p, names in TORCHMETRICS.items() if tuple(names) != row(p, names)}
    rows = "\n".join(f'    "{p}": "{" ".join(n)}",' for p, n in missing.items())
    assert not missing, f"torchmetrics {torchmetrics.__version__} has rows the table lacks or differ:\n{rows}"


@pytest.mark.parametrize(("path", "name"), COVERED, ids=[f"{p}:{n}" for p, n in COVERED])
def test_every_name_resolves_at_its_torchmetrics_path(path, name):
    if f"{path}:{name}" in DEVIATIONS or name in _compat._NEEDS_WEIGHTS:
        with pytest.raises(ImportError, match="does not offer|never loaded"):
            exec(f"from lightning_metrics{'.' + path if path else ''} import {name}", {})
        return
    module = importlib.import_module(f"lightning_metrics.{path}" if path else "lightning_metrics")
    ours = getattr(module, name)
    theirs = getattr(importlib.import_module(f"torchmetrics.{path}" if path else "torchmetrics"), name)
    if getattr(theirs, "__module__", "").endswith("._deprecated"):
        # torchmetrics' top-level names of its newer domains are deprecated aliases (a FutureWarning and
        # a narrower signature): ours are the metrics themselves, compared with their domain's
        theirs = getattr(importlib.import_module(f"torchmetrics.{_home(path, name)}"), name)
    assert callable(ours) == callable(theirs)
    if inspect.isclass(theirs) or inspect.isfunction(theirs):
        _check_signature(path, name, theirs, ours)
    if inspect.isclass(theirs):
        _check_class_attributes(path, name, theirs, ours)


def _signature(obj):
    try:
        params = inspect.signature(obj).parameters.values()
    except (TypeError, ValueError):
        return None
    return [(p.name, p.kind, repr(p.default)) for p in params]


def _check_signature(path, name, theirs, ours):
    key = f"sig:{name}"
    if key in DEVIATIONS or f"sig:{path}:{name}" in DEVIATIONS:
        return
    mine, reference = _signature(ours), _signature(theirs)
    if mine is None or reference is None:  # no signature to read (built-in exception classes, say)
        assert mine == reference, key
        return
    named = [p for p in reference if p[1] is not inspect.Parameter.VAR_KEYWORD]
    theirs_names = {p[0] for p in reference}
    extra = [p for p in mine if (f"{name}:{p[0]}" in EXTENSIONS or p == _SAMPLE_WEIGHT) and p[0] not in theirs_names]
    # extensions stand after every parameter of torchmetrics' (and before **kwargs)
    assert [p for p in mine if p not in extra] == reference and mine[len(named):len(named) + len(extra)] == extra, (
        f"{key}: {inspect.signature(ours)} != {inspect.signature(theirs)}"
    )
    if inspect.isclass(theirs) and hasattr(theirs, "plot"):
        assert _signature(getattr(ours, "plot", None)) == _signature(theirs.plot), f"plot of {key}"


def _check_class_attributes(path, name, theirs, ours):
    for attribute in CLASS_ATTRIBUTES:
        key = f"attr:{name}:{attribute}"
        if key in DEVIATIONS or not hasattr(theirs, attribute):
            continue
        mine, reference = inspect.getattr_static(ours, attribute, None), inspect.getattr_static(theirs, attribute)
        if isinstance(reference, property) or isinstance(mine, property):
            assert isinstance(mine, property) == isinstance(reference, property), key
            continue
        assert mine == reference or (mine != mine and reference != reference), f"{key}: {mine!r} != {reference!r}"


@pytest.mark.parametrize(("path", "name"), [(p, n) for p, names in BEYOND_THE_WALK.items() for n in names])
def test_helpers_beyond_the_walk_resolve_with_torchmetrics_signatures(path, name):
    ours = getattr(importlib.import_module(f"lightning_metrics.{path}"), name)
    theirs = getattr(importlib.import_module(f"torchmetrics.{path}"), name)
    assert ours.__module__.startswith("lightning_metrics."), ours
    assert _signature(ours) == _signature(theirs), f"{path}.{name}: {inspect.signature(ours)} != {inspect.signature(theirs)}"


@pytest.mark.parametrize("domain", NOT_OFFERED_DOMAINS)
def test_a_domain_not_offered_says_so(domain):
    paths = [p for p in TORCHMETRICS if _domain(p) == domain]
    for path in paths:
        with pytest.raises(ImportError, match="does not offer torchmetrics") as caught:
            importlib.import_module(f"lightning_metrics.{path}")
        assert "MetricsCallback" in str(caught.value) or "torchmetrics function" in str(caught.value)


def test_names_not_offered_raise_import_error_and_attribute_error():
    import lightning_metrics as lm

    for path, names in TORCHMETRICS.items():
        if path not in ("", "functional"):
            continue
        module = importlib.import_module(f"lightning_metrics.{path}" if path else "lightning_metrics")
        for name in names:
            if _offered_domain(_home(path, name)):
                continue
            assert not hasattr(module, name), name  # hasattr stays an ordinary False
            with pytest.raises(ImportError, match="does not offer"):
                exec(f"from {module.__name__} import {name}", {})
    with pytest.raises(AttributeError, match="no attribute 'NoSuchMetric'"):
        lm.NoSuchMetric  # noqa: B018


def test_star_imports_and_dir_list_only_what_resolves():
    namespace: dict = {}
    exec("from lightning_metrics import *", namespace)
    exec("from lightning_metrics.functional import *", namespace)
    exec("from lightning_metrics.classification.accuracy import *", namespace)
    assert {"Accuracy", "MeanMetric", "MetricCollection", "f1_score", "MulticlassAccuracy"} <= set(namespace)


def test_import_loads_nothing_it_does_not_need():
    code = (
        "import sys, lightning_metrics\n"
        "heavy = [m for m in ('lightning', 'pytorch_lightning', 'torchmetrics', 'scipy', 'matplotlib') if m in sys.modules]\n"
        "domains = [m for m in sys.modules if m.startswith('lightning_metrics.') and m.split('.')[1] in "
        "('classification', 'regression', 'wrappers', 'integration', 'aggregation') "
        # the torchmetrics hook (it imports nothing) and its lazy package; never the callback or engine
        "and m not in ('lightning_metrics.integration', 'lightning_metrics.integration.interop')]\n"
        "print(heavy, domains)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.strip() == "[] []", out.stdout


def test_the_readme_migration_table_says_what_is_offered():
    import re
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    rows = dict(re.findall(r"^\| `torchmetrics\.(?:functional\.)?(\w+)` \| (implemented|not yet)", readme, re.M))
    domains = {p.split(".")[1] if p.startswith("functional.") else p.split(".")[0] for p in TORCHMETRICS if p}
    domains -= {"functional"}
    assert set(rows) == domains, sorted(domains ^ set(rows))
    for domain, status in rows.items():
        path = f"functional.{domain}" if domain == "pairwise" else domain
        assert (status == "implemented") == _offered_domain(path), (domain, status)
