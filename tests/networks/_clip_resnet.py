"""A tiny CLIP ResNet in the real key layout of OpenAI's ``RN50.pt`` (as piq's ``build_model``
reads it), with random weights from ``np.random.default_rng(seed)``: the same numbers in every
environment (the fixture script in the oracle venv imports this file too).

Sizes: visual width 8 (stages of 1 block; 256 features into the attention pool, 4 heads), 64x64
images (a 2x2 grid: 5 positions), embeddings of 16, one text block of width 64 (1 head), context
77, and a vocabulary whose last id is the end-of-text token. Convolution, linear and attention
weights are float16 numbers, as in the real file.
"""

from __future__ import annotations

import numpy as np
import torch

SIZES = {"width": 8, "layers": (1, 1, 1, 1), "embed_dim": 16, "positions": 5, "text_width": 64, "text_layers": 1,
         "context": 77}
PROMPT_IDS = {  # token ids of the prompts (start 1, words, end-of-text = the last id), used by the fake processor
    "Good photo.": [1, 5, 9, 39], "Bad photo.": [1, 7, 9, 39], "Bright photo.": [1, 11, 2, 9, 39],
    "Dark photo.": [1, 13, 9, 39],
}


def random_state(seed: int = 0, vocab_size: int = 40) -> dict[str, torch.Tensor]:
    """The state dict (float32 tensors; float16-exact where the real file is float16)."""
    rng = np.random.default_rng(seed)
    state: dict[str, torch.Tensor] = {}

    def put(name: str, shape: tuple, scale: float, half: bool = True, shift: float = 0.0) -> None:
        value = (rng.standard_normal(shape) * scale + shift).astype(np.float32)
        state[name] = torch.from_numpy(value.astype(np.float16).astype(np.float32) if half else value)

    def conv(name: str, out: int, inp: int, k: int) -> None:
        put(f"{name}.weight", (out, inp, k, k), (inp * k * k) ** -0.5)

    def norm(name: str, n: int) -> None:
        put(f"{name}.weight", (n,), 0.1, False, 1.0)
        put(f"{name}.bias", (n,), 0.1, False)
        put(f"{name}.running_mean", (n,), 0.1, False)
        state[f"{name}.running_var"] = torch.from_numpy(rng.uniform(0.5, 1.5, n).astype(np.float32))
        state[f"{name}.num_batches_tracked"] = torch.tensor(0)

    def linear(name: str, out: int, inp: int) -> None:
        put(f"{name}.weight", (out, inp), inp ** -0.5)
        put(f"{name}.bias", (out,), 0.02)

    width, embed = SIZES["width"], SIZES["embed_dim"]
    conv("visual.conv1", width // 2, 3, 3), norm("visual.bn1", width // 2)
    conv("visual.conv2", width // 2, width // 2, 3), norm("visual.bn2", width // 2)
    conv("visual.conv3", width, width // 2, 3), norm("visual.bn3", width)
    inplanes = width
    for stage, blocks in enumerate(SIZES["layers"]):
        planes = width * 2**stage
        for block in range(blocks):
            base = f"visual.layer{stage + 1}.{block}"
            conv(f"{base}.conv1", planes, inplanes, 1), norm(f"{base}.bn1", planes)
            conv(f"{base}.conv2", planes, planes, 3), norm(f"{base}.bn2", planes)
            conv(f"{base}.conv3", planes * 4, planes, 1), norm(f"{base}.bn3", planes * 4)
            if block == 0:
                conv(f"{base}.downsample.0", planes * 4, inplanes, 1), norm(f"{base}.downsample.1", planes * 4)
            inplanes = planes * 4
    pooled = width * 32
    put("visual.attnpool.positional_embedding", (SIZES["positions"], pooled), pooled ** -0.5, False)
    for proj in ("k_proj", "q_proj", "v_proj"):
        linear(f"visual.attnpool.{proj}", pooled, pooled)
    linear("visual.attnpool.c_proj", embed, pooled)
    text = SIZES["text_width"]
    put("token_embedding.weight", (vocab_size, text), 0.5, False)
    put("positional_embedding", (SIZES["context"], text), 0.1, False)
    for layer in range(SIZES["text_layers"]):
        base = f"transformer.resblocks.{layer}"
        put(f"{base}.attn.in_proj_weight", (3 * text, text), text ** -0.5)
        put(f"{base}.attn.in_proj_bias", (3 * text,), 0.02)
        linear(f"{base}.attn.out_proj", text, text)
        for ln in ("ln_1", "ln_2"):
            put(f"{base}.{ln}.weight", (text,), 0.1, False, 1.0)
            put(f"{base}.{ln}.bias", (text,), 0.1, False)
        linear(f"{base}.mlp.c_fc", 4 * text, text)
        linear(f"{base}.mlp.c_proj", text, 4 * text)
    put("ln_final.weight", (text,), 0.1, False, 1.0)
    put("ln_final.bias", (text,), 0.1, False)
    put("text_projection", (text, embed), text ** -0.5)
    state["logit_scale"] = torch.tensor(np.log(1 / 0.07), dtype=torch.float32)
    return state


def images(seed: int = 0, n: int = 3, size: int = 64) -> torch.Tensor:
    """``n`` RGB images in [0, 1] (smooth patterns and noise), the same numbers everywhere."""
    rng = np.random.default_rng(seed + 1000)
    grid = np.linspace(0, 1, size, dtype=np.float64)
    smooth = np.sin(6 * grid[None, :] + rng.uniform(0, 6, (n, 3, 1, 1))) * np.cos(4 * grid[:, None])
    noisy = 0.5 + 0.3 * smooth + rng.standard_normal((n, 3, size, size)) * np.linspace(0, 0.3, n)[:, None, None, None]
    return torch.from_numpy(np.clip(noisy, 0, 1).astype(np.float32))


class FakeProcessor:
    """Stands in for the CLIP tokenizer torchmetrics loads from the hub: fixed ids per prompt."""

    class tokenizer:
        model_max_length = SIZES["context"]

    def __call__(self, text=None, **kwargs):
        return {"input_ids": [PROMPT_IDS[t] for t in text]}


class _Holder(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x


def write_torchscript(state: dict[str, torch.Tensor], path) -> None:
    """``state`` saved as OpenAI ships RN50.pt: a TorchScript archive whose state dict it is (the
    float16 weights in float16)."""
    root = _Holder()
    for name, value in state.items():
        *parents, leaf = name.split(".")
        module = root
        for part in parents:
            if part not in module._modules:
                module.add_module(part, _Holder())
            module = module._modules[part]
        half = value.is_floating_point() and value.ndim >= 2 and value.equal(value.half().float())
        module.register_buffer(leaf, value.half() if half else value)
    torch.jit.script(root).save(str(path))
