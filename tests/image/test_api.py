"""The public surface of the image and audio packages: explicit ``__all__`` lists that match what
torchmetrics offers without models, the not-offered errors for the model-based metrics, and the
signatures at the module paths the namespace test cannot check (PSNR's top-level name there is a
deprecated subclass with another default)."""

from __future__ import annotations

import importlib
import inspect

import pytest

from tests._imports import heavy_modules_loaded

torchmetrics = pytest.importorskip("torchmetrics")

PACKAGES = ("image", "functional.image", "audio", "functional.audio")
NOT_OFFERED = {
    "image": [],
    "functional.image": [],
    "audio": ["PerceptualEvaluationSpeechQuality", "ShortTimeObjectiveIntelligibility",
              "SpeechReverberationModulationEnergyRatio"],
    "functional.audio": ["perceptual_evaluation_speech_quality", "short_time_objective_intelligibility"],
}


@pytest.mark.parametrize("package", PACKAGES)
def test_all_lists_every_model_free_torchmetrics_name(package):
    ours = importlib.import_module(f"lightning_metrics.{package}")
    theirs = importlib.import_module(f"torchmetrics.{package}")
    expected = set(theirs.__all__) - set(NOT_OFFERED[package]) - {"CLIPImageQualityAssessment"}
    if package == "image":  # torchmetrics lists these with torch-fidelity installed; ours need nothing more
        expected |= {"FrechetInceptionDistance", "InceptionScore", "KernelInceptionDistance"}
        # torchmetrics lists these with torchvision installed
        expected |= {"ARNIQA", "LearnedPerceptualImagePatchSimilarity", "PerceptualPathLength"}
    # torchmetrics lists these only when pesq / pystoi / gammatone+torchaudio import; ours need no more
    if package == "audio":
        expected |= {
            "NonIntrusiveSpeechQualityAssessment",  # torchmetrics: with librosa and requests
            "PerceptualEvaluationSpeechQuality",
            "ShortTimeObjectiveIntelligibility",
            "SpeechReverberationModulationEnergyRatio",
        }
    if package == "functional.audio":
        expected |= {
            "non_intrusive_speech_quality_assessment",
            "perceptual_evaluation_speech_quality",
            "short_time_objective_intelligibility",
            "speech_reverberation_modulation_energy_ratio",
        }
    assert set(ours.__all__) == expected
    for name in ours.__all__:
        assert getattr(ours, name).__doc__, name


def _not_offered_imports() -> list[tuple[str, str]]:
    """(torchmetrics module path, name) of every name still in ``_NEEDS_WEIGHTS``."""
    from lightning_metrics import _compat

    return [(path, name) for path, names in _compat.table().items() for name in names
            if name in _compat._NEEDS_WEIGHTS and path not in ("", "functional")]  # fmt: skip


def test_importing_a_model_based_metric_says_it_is_not_offered():
    """Every name that needs weights or a tool we do not load, at each of its torchmetrics paths."""
    for path, name in _not_offered_imports():
        module = importlib.import_module(f"lightning_metrics.{path}")
        todo = "torchmetrics function" if path.startswith("functional") else "MetricsCallback"
        with pytest.raises(ImportError, match=f"does not offer torchmetrics.{path}.{name}.*weights.*{todo}"):
            exec(f"from lightning_metrics.{path} import {name}", {})
        assert not hasattr(module, name), (path, name)


def test_the_perceptual_metrics_are_offered_at_torchmetrics_paths():
    from lightning_metrics.functional.image import perceptual as functional
    from lightning_metrics.image import perceptual

    for path, name, obj in [
        ("image.lpip", "LearnedPerceptualImagePatchSimilarity", perceptual.LearnedPerceptualImagePatchSimilarity),
        ("image.dists", "DeepImageStructureAndTextureSimilarity", perceptual.DeepImageStructureAndTextureSimilarity),
        ("image.perceptual_path_length", "PerceptualPathLength", perceptual.PerceptualPathLength),
        ("functional.image.lpips", "learned_perceptual_image_patch_similarity",
         functional.learned_perceptual_image_patch_similarity),
        ("functional.image.dists", "deep_image_structure_and_texture_similarity",
         functional.deep_image_structure_and_texture_similarity),
    ]:  # fmt: skip
        assert getattr(importlib.import_module(f"lightning_metrics.{path}"), name) is obj, path


@pytest.mark.parametrize(("path", "name"), [("image.psnr", "PeakSignalNoiseRatio"),
                                            ("functional.image.psnr", "peak_signal_noise_ratio")])
def test_psnr_signature_at_its_module_path(path, name):
    ours = getattr(importlib.import_module(f"lightning_metrics.{path}"), name)
    theirs = getattr(importlib.import_module(f"torchmetrics.{path}"), name)

    def params(obj):
        return [(p.name, p.kind, repr(p.default)) for p in inspect.signature(obj).parameters.values()]

    assert params(ours) == params(theirs)


def test_importing_the_packages_loads_neither_scipy_nor_lightning():
    modules = ["lightning_metrics.image", "lightning_metrics.audio"]
    modules += ["lightning_metrics.functional.image", "lightning_metrics.functional.audio"]
    heavy = ("scipy", "lightning", "torchmetrics", "skimage", "matplotlib")
    assert heavy_modules_loaded(modules, heavy) == []
