"""CLIP RN50 (piq's CLIP-IQA model, torchmetrics' ``model_name_or_path="clip_iqa"``) against piq
and torchmetrics 1.9: a tiny random state dict in OpenAI's key layout, the values piq and
torchmetrics computed with it in the oracle venv (fixtures/make_clip_resnet_fixtures.py); the
file read as OpenAI ships it (a TorchScript archive) through the one loading path; CLIP-IQA's
default end to end."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
import torch

from lightning_metrics.networks import network, weights
from lightning_metrics.networks.clip_resnet import CLIPResNet, read_state
from tests.networks._clip_resnet import PROMPT_IDS, FakeProcessor, images, random_state, write_torchscript

REFERENCE = json.loads((Path(__file__).with_name("fixtures") / "clip_resnet_piq.json").read_text())


def _tokens() -> torch.Tensor:
    tokens = torch.zeros(len(PROMPT_IDS), 77, dtype=torch.long)
    for row, ids in enumerate(PROMPT_IDS.values()):
        tokens[row, : len(ids)] = torch.tensor(ids)
    return tokens


@pytest.fixture
def rn50_file(tmp_path, monkeypatch):
    """The tiny model as OpenAI's RN50.pt (TorchScript) in the offline folder, registered with its checksum."""
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "torch_home"))
    path = tmp_path / "offline" / weights.WEIGHT_FILES["clip-rn50"].filename
    path.parent.mkdir()
    write_torchscript(random_state(seed=0), path)
    monkeypatch.setenv(weights.ENV_VAR, str(path.parent))
    monkeypatch.setitem(weights.WEIGHT_FILES, "clip-rn50", dataclasses.replace(
        weights.WEIGHT_FILES["clip-rn50"], checksum=weights.sha256_of(path)))
    return path


def test_embeddings_equal_piq():
    net = CLIPResNet(random_state(seed=0)).frozen()
    with torch.no_grad():
        for key, value in (("image_no_pos", net.encode_image(images(seed=0), pos_embedding=False)),
                           ("image_pos", net.encode_image(images(seed=0), pos_embedding=True)),
                           ("text", net.encode_text(_tokens()))):
            torch.testing.assert_close(value, torch.tensor(REFERENCE[key]), rtol=0, atol=1e-5, msg=key)
    assert not any(p.requires_grad for p in net.parameters()) and not net.train().training


def test_the_torchscript_file_loads_through_the_weight_path(rn50_file):
    state = read_state(rn50_file)
    assert state["visual.conv1.weight"].dtype == torch.float16  # as OpenAI's file
    net = network("clip-rn50")
    with torch.no_grad():
        torch.testing.assert_close(net.encode_text(_tokens()), torch.tensor(REFERENCE["text"]), rtol=0, atol=1e-5)
    # a state dict saved with torch.save (the user's own path) loads too
    torch.save(random_state(seed=0), rn50_file.parent / "mine.pt")
    mine = CLIPResNet(rn50_file.parent / "mine.pt")
    assert torch.equal(mine.text_projection, net.text_projection)


def test_a_file_that_is_not_the_published_one_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "torch_home"))
    write_torchscript(random_state(seed=1), tmp_path / "RN50.pt")
    monkeypatch.setenv(weights.ENV_VAR, str(tmp_path))
    with pytest.raises(weights.WeightsChecksumError, match=r"RN50\.pt.*afeb0e10f9e5a86da6080e35cf09123aca3b358a0c3e"):
        network("clip-rn50")


@pytest.mark.parametrize("data_range", [1.0, 255.0])
def test_clip_iqa_default_equals_torchmetrics_with_piq(rn50_file, monkeypatch, data_range):
    from lightning_metrics.functional.multimodal import clip_iqa as ours
    from lightning_metrics.multimodal import CLIPImageQualityAssessment

    monkeypatch.setattr(ours, "default_processor", FakeProcessor)  # the hub's tokenizer is not here
    batch = images(seed=0) * data_range
    expected = {name: torch.tensor(values) for name, values in REFERENCE[f"clip_iqa_{data_range:g}"].items()}
    values = ours.clip_image_quality_assessment(batch, data_range=data_range, prompts=("quality", "brightness"))
    assert sorted(values) == sorted(expected) == ["brightness", "quality"]
    for name, value in expected.items():
        torch.testing.assert_close(values[name], value, rtol=0, atol=1e-5, msg=name)
    metric = CLIPImageQualityAssessment(data_range=data_range, prompts=("quality", "brightness"))
    metric.update(batch[:2])
    metric.update(batch[2:])
    for name, value in metric.compute().items():
        torch.testing.assert_close(value, expected[name], rtol=0, atol=1e-5, msg=name)
