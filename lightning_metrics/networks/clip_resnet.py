"""OpenAI's CLIP with its modified ResNet-50 image encoder, as the ``piq`` package loads it for
CLIP-IQA (torchmetrics' default ``model_name_or_path="clip_iqa"``), written here without piq or
torchvision.

The image encoder is a ResNet with a three-convolution stem, average-pool anti-aliasing in its
strided blocks and an attention pool (whose positional embedding CLIP-IQA leaves out, so that any
image size works); the text encoder a causal transformer read at the end-of-text token. Parameter
names are OpenAI's, so its ``RN50.pt`` (a TorchScript archive, the file piq mirrors) loads as it
is; as in piq, the convolution, linear and attention weights are used at the half precision they
are stored in (exact: they are float16 numbers), the rest in float32. The architecture (widths,
depths, heads, context length, vocabulary) is read from the weights' shapes, as piq's
``build_model`` does.
"""

from __future__ import annotations

import warnings
import zipfile
from collections import OrderedDict
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from lightning_metrics.networks import FrozenModule
from lightning_metrics.networks.weights import weight_path


class _Bottleneck(nn.Module):
    def __init__(self, inplanes: int, planes: int, stride: int = 1) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.avgpool = nn.AvgPool2d(stride) if stride > 1 else nn.Identity()
        self.conv3 = nn.Conv2d(planes, planes * 4, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(planes * 4)
        self.downsample: nn.Sequential | None = None
        if stride > 1 or inplanes != planes * 4:
            self.downsample = nn.Sequential(OrderedDict([
                ("-1", nn.AvgPool2d(stride)),
                ("0", nn.Conv2d(inplanes, planes * 4, 1, bias=False)),
                ("1", nn.BatchNorm2d(planes * 4)),
            ]))

    def forward(self, x: Tensor) -> Tensor:
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.avgpool(F.relu(self.bn2(self.conv2(out))))
        out = self.bn3(self.conv3(out))
        return F.relu(out + (x if self.downsample is None else self.downsample(x)))


class _AttentionPool(nn.Module):
    """Multi-head attention of the mean feature (prepended) over the spatial positions."""

    def __init__(self, positions: int, width: int, heads: int, output: int) -> None:
        super().__init__()
        self.positional_embedding = nn.Parameter(torch.zeros(positions, width))
        self.k_proj, self.q_proj, self.v_proj = nn.Linear(width, width), nn.Linear(width, width), nn.Linear(width, width)
        self.c_proj = nn.Linear(width, output)
        self.heads = heads

    def forward(self, x: Tensor, pos_embedding: bool = True) -> Tensor:
        x = x.flatten(2).permute(2, 0, 1)  # (positions, batch, width)
        x = torch.cat([x.mean(dim=0, keepdim=True), x])
        if pos_embedding:  # resized to the number of positions, as piq does
            table = self.positional_embedding[None, None]
            x = x + F.interpolate(table, size=(x.shape[0], x.shape[2]), mode="bicubic")[0, 0, :, None].to(x.dtype)
        out, _ = F.multi_head_attention_forward(
            x, x, x, x.shape[-1], self.heads, in_proj_weight=None,
            in_proj_bias=torch.cat([self.q_proj.bias, self.k_proj.bias, self.v_proj.bias]),
            bias_k=None, bias_v=None, add_zero_attn=False, dropout_p=0.0,
            out_proj_weight=self.c_proj.weight, out_proj_bias=self.c_proj.bias, training=False,
            need_weights=False, use_separate_proj_weight=True,
            q_proj_weight=self.q_proj.weight, k_proj_weight=self.k_proj.weight, v_proj_weight=self.v_proj.weight,
        )
        return out[0]


class _VisualResNet(nn.Module):
    def __init__(self, layers: tuple[int, ...], width: int, output: int, positions: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(3, width // 2, 3, stride=2, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(width // 2)
        self.conv2 = nn.Conv2d(width // 2, width // 2, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(width // 2)
        self.conv3 = nn.Conv2d(width // 2, width, 3, padding=1, bias=False)
        self.bn3 = nn.BatchNorm2d(width)
        self.avgpool = nn.AvgPool2d(2)
        inplanes = width
        for index, blocks in enumerate(layers):
            planes = width * 2**index
            stage = [_Bottleneck(inplanes, planes, 1 if index == 0 else 2)]
            stage += [_Bottleneck(planes * 4, planes) for _ in range(1, blocks)]
            setattr(self, f"layer{index + 1}", nn.Sequential(*stage))
            inplanes = planes * 4
        self.attnpool = _AttentionPool(positions, width * 32, width * 32 // 64, output)

    def forward(self, x: Tensor, pos_embedding: bool = True) -> Tensor:
        for conv, norm in ((self.conv1, self.bn1), (self.conv2, self.bn2), (self.conv3, self.bn3)):
            x = F.relu(norm(conv(x)))
        x = self.avgpool(x)
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.attnpool(x, pos_embedding)


class _ResidualAttention(nn.Module):
    def __init__(self, width: int, heads: int) -> None:
        super().__init__()
        self.attn = nn.MultiheadAttention(width, heads)
        self.ln_1 = nn.LayerNorm(width)
        self.mlp = nn.Sequential(OrderedDict([
            ("c_fc", nn.Linear(width, width * 4)), ("gelu", _QuickGELU()), ("c_proj", nn.Linear(width * 4, width)),
        ]))
        self.ln_2 = nn.LayerNorm(width)

    def forward(self, x: Tensor, mask: Tensor) -> Tensor:
        normed = self.ln_1(x)
        x = x + self.attn(normed, normed, normed, need_weights=False, attn_mask=mask)[0]
        return x + self.mlp(self.ln_2(x))


class _QuickGELU(nn.Module):
    def forward(self, x: Tensor) -> Tensor:
        return x * torch.sigmoid(1.702 * x)


class _Transformer(nn.Module):
    def __init__(self, width: int, layers: int, heads: int) -> None:
        super().__init__()
        self.resblocks = nn.ModuleList(_ResidualAttention(width, heads) for _ in range(layers))

    def forward(self, x: Tensor, mask: Tensor) -> Tensor:
        for block in self.resblocks:
            x = block(x, mask)
        return x


def architecture(state: dict[str, Tensor]) -> dict[str, Any]:
    """The sizes of a CLIP ResNet read from its weights' shapes (as piq's ``build_model``).

    >>> from types import SimpleNamespace
    >>> shapes = {**{f"visual.layer{b}.{i}.conv1.weight": (1,) for b, n in zip((1, 2, 3, 4), (3, 4, 6, 3))
    ...              for i in range(n)},
    ...           **{f"transformer.resblocks.{i}.ln_1.weight": (1,) for i in range(12)},
    ...           "visual.layer1.0.conv1.weight": (64, 64, 1, 1), "visual.attnpool.positional_embedding": (50, 2048),
    ...           "text_projection": (512, 1024), "positional_embedding": (77, 512),
    ...           "token_embedding.weight": (49408, 512), "ln_final.weight": (512,)}
    >>> sizes = architecture({name: SimpleNamespace(shape=shape) for name, shape in shapes.items()})
    >>> sizes["layers"], sizes["width"], sizes["embed_dim"], sizes["text_layers"], sizes["context_length"]
    ((3, 4, 6, 3), 64, 1024, 12, 77)
    """
    def count(prefix: str, depth: int) -> int:
        return len({name.split(".")[depth] for name in state if name.startswith(prefix)})

    text_width = state["ln_final.weight"].shape[0]
    return {
        "layers": tuple(count(f"visual.layer{b}.", 2) for b in (1, 2, 3, 4)),
        "width": state["visual.layer1.0.conv1.weight"].shape[0],
        "positions": state["visual.attnpool.positional_embedding"].shape[0],
        "embed_dim": state["text_projection"].shape[1],
        "context_length": state["positional_embedding"].shape[0],
        "vocab_size": state["token_embedding.weight"].shape[0],
        "text_width": text_width,
        "text_heads": text_width // 64,
        "text_layers": count("transformer.resblocks.", 2),
    }


def _is_torchscript(path: Path) -> bool:
    try:
        with zipfile.ZipFile(path) as archive:
            return any(name.endswith("constants.pkl") for name in archive.namelist())
    except zipfile.BadZipFile:
        return False


def read_state(path: str | Path) -> dict[str, Tensor]:
    """The parameters of a CLIP weight file: OpenAI's TorchScript archive (``RN50.pt``), or a state
    dict saved with ``torch.save`` (read with ``weights_only=True``)."""
    path = Path(path)
    if _is_torchscript(path):
        with warnings.catch_warnings():  # torch 2.9+ deprecates TorchScript; OpenAI's file is one
            warnings.simplefilter("ignore", DeprecationWarning)
            return dict(torch.jit.load(str(path), map_location="cpu").state_dict())
    state = torch.load(path, map_location="cpu", weights_only=True)
    return state.get("state_dict", state) if isinstance(state, dict) else state


class CLIPResNet(FrozenModule):
    """CLIP with the modified ResNet image encoder (OpenAI's RN50 for the default weights), with
    ``encode_image(images, pos_embedding)`` and ``encode_text(tokens)`` as piq's model.

    ``weights``: ``"clip-rn50"`` (OpenAI's file, found or fetched through
    :mod:`lightning_metrics.networks.weights`), a path to a weight file, or a state dict; the
    sizes are read from the weights.

    >>> import torch
    >>> from tests.networks._clip_resnet import random_state  # a tiny CLIP in the real key layout
    >>> net = CLIPResNet(random_state(seed=0)).frozen()
    >>> net.encode_image(torch.rand(2, 3, 64, 64), pos_embedding=False).shape
    torch.Size([2, 16])
    """

    def __init__(self, weights: str | Path | dict = "clip-rn50") -> None:
        super().__init__()
        if isinstance(weights, dict):
            state = weights
        elif isinstance(weights, str) and weights == "clip-rn50":
            state = read_state(weight_path("clip-rn50"))
        else:
            state = read_state(weight_path("clip-rn50", weights))
        state = {name: value for name, value in state.items()
                 if name not in ("input_resolution", "context_length", "vocab_size")}
        sizes = architecture(state)
        self.visual = _VisualResNet(sizes["layers"], sizes["width"], sizes["embed_dim"], sizes["positions"])
        self.transformer = _Transformer(sizes["text_width"], sizes["text_layers"], sizes["text_heads"])
        self.token_embedding = nn.Embedding(sizes["vocab_size"], sizes["text_width"])
        self.positional_embedding = nn.Parameter(torch.zeros(sizes["context_length"], sizes["text_width"]))
        self.ln_final = nn.LayerNorm(sizes["text_width"])
        self.text_projection = nn.Parameter(torch.zeros(sizes["text_width"], sizes["embed_dim"]))
        self.logit_scale = nn.Parameter(torch.zeros(()))
        mask = torch.full((sizes["context_length"],) * 2, float("-inf")).triu(1)
        self.register_buffer("attn_mask", mask, persistent=False)
        halved = self._half_precision_names()
        self.load_state_dict({name: value.half().float() if name in halved else value.float()
                              for name, value in state.items()})

    def _half_precision_names(self) -> set[str]:
        """The parameters piq keeps in float16 (and computes with in float32): those of convolutions,
        linear layers and attention projections, and the text projection; the same numbers here."""
        names = {"text_projection"}
        for prefix, module in self.named_modules():
            if isinstance(module, (nn.Conv2d, nn.Linear)):
                names |= {f"{prefix}.weight", f"{prefix}.bias"}
            elif isinstance(module, nn.MultiheadAttention):
                names |= {f"{prefix}.in_proj_weight", f"{prefix}.in_proj_bias"}
        return names

    def encode_image(self, images: Tensor, pos_embedding: bool = True) -> Tensor:
        """Image embeddings ``(batch, embed_dim)`` of normalised images ``(batch, 3, height, width)``."""
        return self.visual(images.float(), pos_embedding)

    def encode_text(self, tokens: Tensor) -> Tensor:
        """Text embeddings ``(batch, embed_dim)`` of token ids ``(batch, context_length)``, read at
        the highest id of each row (the end-of-text token)."""
        x = (self.token_embedding(tokens) + self.positional_embedding).permute(1, 0, 2)
        x = self.ln_final(self.transformer(x, self.attn_mask).permute(1, 0, 2))
        return x[torch.arange(x.shape[0], device=x.device), tokens.argmax(dim=-1)] @ self.text_projection
