"""CLIPScore and CLIP-IQA against torchmetrics 1.9, with a tiny CLIP model built here (nothing is downloaded).

transformers 5 returns an output object from ``CLIPModel.get_text_features``/``get_image_features``
where torchmetrics 1.9 expects the projected features: the oracle gets the same model behind a
shim that returns ``pooler_output`` (the projected features), ours takes the model as it is.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

pytest.importorskip("transformers")

from torchmetrics.functional.multimodal.clip_iqa import clip_image_quality_assessment as tm_clip_iqa
from torchmetrics.functional.multimodal.clip_score import clip_score as tm_clip_score
from torchmetrics.multimodal.clip_iqa import CLIPImageQualityAssessment as TMCLIPIQA
from torchmetrics.multimodal.clip_score import CLIPScore as TMCLIPScore

from lightning_metrics.functional.multimodal.clip_iqa import clip_image_quality_assessment
from lightning_metrics.functional.multimodal.clip_score import JinaProcessorWrapper, clip_score
from lightning_metrics.multimodal.clip_iqa import CLIPImageQualityAssessment
from lightning_metrics.multimodal.clip_score import CLIPScore
from tests._tiny_models import tiny_clip
from tests.text._helpers import assert_same

TOL = {"rtol": 1e-5, "atol": 1e-5}
IQA_TOL = {"rtol": 1e-4, "atol": 0.0}  # relative: a random CLIP puts the probabilities near 0 or 1
TEXTS = [
    "the cat",
    "a good photo",
    "photo of a dog",
    "zebra",
    "the the the",
    "a cat on a mat",
    "good",
    "dog photo",
]


class Shim(torch.nn.Module):
    """The model as torchmetrics 1.9 expects it: ``get_*_features`` return tensors."""

    def __init__(self, model):
        super().__init__()
        self.inner = model
        self.config = model.config

    def get_text_features(self, *args, **kwargs):
        out = self.inner.get_text_features(*args, **kwargs)
        return out if isinstance(out, torch.Tensor) else out.pooler_output

    def get_image_features(self, *args, **kwargs):
        out = self.inner.get_image_features(*args, **kwargs)
        return out if isinstance(out, torch.Tensor) else out.pooler_output


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    folder = tmp_path_factory.mktemp("openai-tiny-clip")
    model, processor = tiny_clip(folder)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.save_pretrained(folder)
        processor.save_pretrained(folder)
    g = torch.Generator().manual_seed(0)
    images = (torch.rand(8, 3, 40, 48, generator=g) * 255).to(torch.uint8)
    return {
        "ours": lambda: (model, processor),
        "theirs": lambda: (Shim(model), processor),
        "path": str(folder),
        "images": images,
        "model": model,
    }


def _pairs(clip):
    images = clip["images"]
    sizes = [torch.rand(3, 32 + 4 * i, 36, generator=torch.Generator().manual_seed(i)) for i in range(8)]
    return {
        "image-text": (images, TEXTS),
        "text-image": (TEXTS, images),
        "image-image": (images, images.flip(0)),
        "text-text": (TEXTS, TEXTS[::-1]),
        "list-text": (sizes, TEXTS),
        "one-pair": (images[0], "the cat"),
    }


@pytest.mark.parametrize(
    "case", ["image-text", "text-image", "image-image", "text-text", "list-text", "one-pair"]
)
def test_clip_score_matches_torchmetrics(clip, case):
    source, target = _pairs(clip)[case]
    assert_same(
        clip_score(source, target, clip["ours"]), tm_clip_score(source, target, clip["theirs"]), **TOL
    )


def test_clip_score_modular_over_batches_and_merged(clip):
    images = clip["images"]
    ours, theirs = CLIPScore(clip["ours"]), TMCLIPScore(clip["theirs"])
    for metric in (ours, theirs):
        metric.update(images[:3], TEXTS[:3])
        metric.update(TEXTS[3:], images[3:])
    assert ours.score.dtype == torch.float64
    assert_same(ours.compute(), theirs.compute(), **TOL)
    first, second = CLIPScore(clip["ours"]), CLIPScore(clip["ours"])
    first.update(images[:3], TEXTS[:3])
    second.update(TEXTS[3:], images[3:])
    second.merge_state(first)
    assert_same(second.compute(), ours.compute(), **TOL)


def test_a_local_checkpoint_loads_as_the_model_itself(clip):
    by_path = clip_score(clip["images"], TEXTS, clip["path"])
    by_callable = clip_score(clip["images"], TEXTS, clip["ours"])
    assert_same(by_path, by_callable, **TOL)
    metric = CLIPScore(clip["path"])
    assert not any(p.requires_grad for p in metric.model.parameters())  # a loaded model is frozen


def test_long_captions_are_truncated_with_a_warning(clip):
    caption = "a cat on the mat " * 20
    with pytest.warns(UserWarning, match="longer than"):
        ours = clip_score(clip["images"][:1], [caption], clip["ours"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same(ours, tm_clip_score(clip["images"][:1], [caption], clip["theirs"]), **TOL)


def test_clip_score_bad_input(clip):
    metric = CLIPScore(clip["ours"])
    with pytest.raises(ValueError, match="same"):
        metric.update(clip["images"][:2], TEXTS[:3])
    with pytest.raises(ValueError, match="source"):
        metric.update([], TEXTS[:1])
    with pytest.raises(ValueError, match="3d images"):
        metric.update([torch.rand(1, 3, 8, 8)], TEXTS[:1])
    assert metric.n_samples == 0 and metric.score == 0


PROMPTS = {
    "quality": ("quality",),
    "several": ("quality", "sharpness", ("photo of a cat", "photo of a dog"), "warm"),
}


@pytest.mark.parametrize("prompts", PROMPTS)
def test_clip_iqa_matches_torchmetrics(clip, prompts):
    prompts = PROMPTS[prompts]
    images = clip["images"].float()
    ours = clip_image_quality_assessment(images, clip["ours"], data_range=255.0, prompts=prompts)
    assert_same(ours, tm_clip_iqa(images, clip["theirs"], data_range=255.0, prompts=prompts), **IQA_TOL)
    metric, oracle = (
        CLIPImageQualityAssessment(clip["ours"], prompts=prompts),
        TMCLIPIQA(clip["theirs"], prompts=prompts),
    )
    for m in (metric, oracle):
        m.update(images[:3] / 255)
        m.update(images[3:] / 255)
    assert_same(metric.compute(), oracle.compute(), **IQA_TOL)


def test_clip_iqa_arguments_are_checked(clip):
    with pytest.raises(ValueError, match="data_range"):
        CLIPImageQualityAssessment(clip["ours"], data_range=0)
    with pytest.raises(ValueError, match="prompts"):
        CLIPImageQualityAssessment(clip["ours"], prompts=["quality"])
    with pytest.raises(ValueError, match="prompts"):
        CLIPImageQualityAssessment(clip["ours"], prompts=("pretty",))
    with pytest.raises(ValueError, match="2 strings"):
        CLIPImageQualityAssessment(clip["ours"], prompts=(("a", "b", "c"),))
    metric = CLIPImageQualityAssessment(clip["ours"])
    with pytest.raises(ValueError, match="images"):
        metric.update(clip["images"][0].float())
    assert metric.probs_list == []


def test_clip_iqa_default_model_without_its_file_says_where_to_get_it(tmp_path, monkeypatch):
    """The default "clip_iqa" is piq's CLIP RN50, written here (tests/networks/test_clip_resnet.py checks
    its values): without the file and without a network, the error names the file and its URL."""
    from lightning_metrics.networks import weights

    monkeypatch.setenv("TORCH_HOME", str(tmp_path))
    monkeypatch.delenv(weights.ENV_VAR, raising=False)
    monkeypatch.setattr(weights, "_download", lambda row, target: (_ for _ in ()).throw(OSError("no network")))
    with pytest.raises(weights.WeightsUnavailableError, match=r"RN50\.pt.*openaipublic.*LIGHTNING_METRICS_WEIGHTS"):
        CLIPImageQualityAssessment()


def test_jina_wrapper_hands_pil_images_over():
    seen = []
    wrapper = JinaProcessorWrapper(lambda *args, **kwargs: seen.append(kwargs["images"]))
    image = torch.rand(3, 5, 7)
    wrapper(images=[image, "kept"])
    pil, kept = seen[0]
    assert pil.size == (7, 5) and pil.mode == "RGB" and kept == "kept"
    assert torch.equal(torch.from_numpy(np.array(pil))[:, :, 0], image[0].mul(255).byte())
