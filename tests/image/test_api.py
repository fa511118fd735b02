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
    "image": ["LearnedPerceptualImagePatchSimilarity", "DeepImageStructureAndTextureSimilarity",
              "PerceptualPathLength", "ARNIQA"],
    "functional.image": ["learned_perceptual_image_patch_similarity", "arniqa", "perceptual_path_length",
                         "deep_image_structure_and_texture_similarity"],
    "audio": ["PerceptualEvaluationSpeechQuality", "ShortTimeObjectiveIntelligibility",
              "SpeechReverberationModulationEnergyRatio", "DeepNoiseSuppressionMeanOpinionScore",
              "NonIntrusiveSpeechQualityAssessment"],
    "functional.audio": ["perceptual_evaluation_speech_quality", "short_time_objective_intelligibility"],
}


@pytest.mark.parametrize("package", PACKAGES)
def test_all_lists_every_model_free_torchmetrics_name(package):
    ours = importlib.import_module(f"lightning_metrics.{package}")
    theirs = importlib.import_module(f"torchmetrics.{package}")
    expected = set(theirs.__all__) - set(NOT_OFFERED[package]) - {"CLIPImageQualityAssessment"}
    if package == "image":  # torchmetrics lists these with torch-fidelity installed; ours need nothing more
        expected |= {"FrechetInceptionDistance", "InceptionScore", "KernelInceptionDistance"}
    # torchmetrics lists these only when pesq / pystoi / gammatone+torchaudio import; ours need no more
    if package == "audio":
        expected |= {
            "PerceptualEvaluationSpeechQuality",
            "ShortTimeObjectiveIntelligibility",
            "SpeechReverberationModulationEnergyRatio",
        }
    if package == "functional.audio":
        expected |= {
            "perceptual_evaluation_speech_quality",
            "short_time_objective_intelligibility",
            "speech_reverberation_modulation_energy_ratio",
        }
    assert set(ours.__all__) == expected
    for name in ours.__all__:
        assert getattr(ours, name).__doc__, name


def test_importing_a_model_based_metric_says_it_is_not_offered():
    with pytest.raises(ImportError, match="does not offer torchmetrics.image.PerceptualPathLength.*weights"):
        from lightning_metrics.image import PerceptualPathLength  # noqa: F401
    with pytest.raises(ImportError, match="does not offer.*MetricsCallback"):
        from lightning_metrics.image.perceptual_path_length import PerceptualPathLength  # noqa: F401,F811
    with pytest.raises(ImportError, match="does not offer.*DeepNoiseSuppressionMeanOpinionScore"):
        from lightning_metrics.audio import DeepNoiseSuppressionMeanOpinionScore  # noqa: F401
    with pytest.raises(ImportError, match="does not offer.*arniqa.*torchmetrics function"):
        from lightning_metrics.functional.image import arniqa  # noqa: F401
    import lightning_metrics.image as lmi

    assert not hasattr(lmi, "LearnedPerceptualImagePatchSimilarity")


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
