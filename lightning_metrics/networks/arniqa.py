"""ARNIQA (Agnolucci et al. 2024): a ResNet-50 encoder of the distortion manifold and a linear regressor.

The image and its half-scale version (bilinear, antialiased: what torchvision's ``Resize`` does
to a tensor) each go through the encoder; the two 2048 pooled features, each L2-normalized, are
concatenated and a linear regressor trained on an IQA dataset gives the score, mapped into [0, 1]
from that dataset's score range (KonIQ-10k: 1 to 100, KADID-10k: 1 to 5).

Weights come from the ARNIQA release, as torchmetrics loads them (see :mod:`.weights`):

- ``ARNIQA.pth``: the encoder as ``model.<index>...`` keys of ``nn.Sequential`` of the ResNet-50's
  children (torchvision's layers, :mod:`.resnet`), which the encoder here is too, plus the
  self-supervised ``projector`` (dropped);
- ``regressor_<dataset>.pth``: a TorchScript archive of a scikit-learn ridge regressor with the
  tensors ``weights`` and ``biases``. Its tensors are read here without TorchScript (a restricted
  unpickler that rebuilds tensors and nothing else).
"""

from __future__ import annotations

import pickle
import zipfile
from pathlib import Path
from typing import Any, Union

import torch
from torch import Tensor, nn
from torch.nn.functional import interpolate
from torch.nn.functional import normalize as l2_normalize

from lightning_metrics.networks import FrozenModule
from lightning_metrics.networks.resnet import ResNet50
from lightning_metrics.networks.weights import WeightsChecksumError, load_weights, weight_path

# the regressors' training datasets -> their score ranges (min, max)
REGRESSOR_DATASETS: dict[str, tuple[int, int]] = {"kadid10k": (1, 5), "koniq10k": (1, 100)}
IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)

PathLike = Union[str, Path]


class _Record:
    """What a TorchScript module object unpickles to here: its attributes, nothing run."""

    def __setstate__(self, state: Any) -> None:
        self.state = state


def _rebuild_tensor(storage: Tensor, offset: int, size: tuple, stride: tuple, *_: Any) -> Tensor:
    return torch.as_strided(storage, size, stride, offset)


_STORAGE_DTYPES = {
    name: dtype
    for name, dtype in (
        ("FloatStorage", torch.float32),
        ("DoubleStorage", torch.float64),
        ("HalfStorage", torch.float16),
        ("BFloat16Storage", torch.bfloat16),
        ("LongStorage", torch.int64),
        ("IntStorage", torch.int32),
    )
}


class _TensorUnpickler(pickle.Unpickler):
    """Tensors, ordered dicts and plain records of a TorchScript ``data.pkl``; any other global is refused."""

    def __init__(self, handle: Any, archive: zipfile.ZipFile, root: str) -> None:
        super().__init__(handle)
        self.archive, self.root = archive, root

    def find_class(self, module: str, name: str) -> Any:
        if module == "torch._utils" and name == "_rebuild_tensor_v2":
            return _rebuild_tensor
        if module == "torch" and name in _STORAGE_DTYPES:
            return _STORAGE_DTYPES[name]
        if module == "collections" and name == "OrderedDict":
            return dict
        if module.startswith("__torch__"):
            return _Record
        raise pickle.UnpicklingError(f"a TorchScript weight file may not refer to {module}.{name}")

    def persistent_load(self, pid: Any) -> Tensor:
        _, dtype, key, _, numel = pid
        data = bytearray(self.archive.read(f"{self.root}/data/{key}"))
        return torch.frombuffer(data, dtype=dtype, count=numel) if numel else torch.empty(0, dtype=dtype)


def torchscript_tensors(path: PathLike) -> dict[str, Tensor]:
    """The tensor attributes of the top module of a TorchScript archive (``torch.jit.save``), read
    without running anything (a ``torch.save`` file of a dict of tensors reads too)."""
    try:
        with zipfile.ZipFile(path) as archive:
            pickled = next(name for name in archive.namelist() if name.endswith("/data.pkl"))
            root = pickled[: -len("/data.pkl")]
            with archive.open(pickled) as handle:
                record = _TensorUnpickler(handle, archive, root).load()
    except (zipfile.BadZipFile, StopIteration, pickle.UnpicklingError, KeyError, ValueError) as err:
        raise WeightsChecksumError(f"{path} is not a TorchScript archive of tensors: {err}") from None
    state = record.state if isinstance(record, _Record) else record  # or a state dict saved by torch.save
    if not isinstance(state, dict):
        raise WeightsChecksumError(
            f"{path} holds a {type(state).__name__}, not a module's or a dict's tensors"
        )
    return {name: value for name, value in state.items() if isinstance(value, Tensor)}


class ARNIQANetwork(FrozenModule):
    """ARNIQA's encoder and regressor: ``(N, 3, H, W)`` images -> scores ``(N, 1)`` in [0, 1].

    ``encoder_weights`` and ``regressor_weights`` are files to use instead of the release's
    (found through :func:`~lightning_metrics.networks.weights.weight_path`); ``pretrained=False``
    keeps the random initialisation (for tests and examples).

    >>> import torch
    >>> net = ARNIQANetwork("kadid10k", pretrained=False).frozen()
    >>> net(torch.rand(2, 3, 32, 32), normalize=True).shape
    torch.Size([2, 1])
    """

    def __init__(
        self,
        regressor_dataset: str = "koniq10k",
        encoder_weights: PathLike | None = None,
        regressor_weights: PathLike | None = None,
        pretrained: bool = True,
    ) -> None:
        super().__init__()
        if regressor_dataset not in REGRESSOR_DATASETS:
            raise ValueError(
                f"Argument `regressor_dataset` must be one of {tuple(REGRESSOR_DATASETS)}, "
                f"got {regressor_dataset!r}"
            )
        self.regressor_dataset = regressor_dataset
        # torchmetrics' layout (``nn.Sequential`` of the ResNet-50's children): module checkpoints match
        self.encoder = nn.Sequential(*ResNet50().children())
        self.regressor = nn.Linear(2 * ResNet50.features, 1)
        if pretrained:
            self.load_encoder(load_weights("arniqa-encoder", encoder_weights))
            self.load_regressor(
                torchscript_tensors(weight_path(f"arniqa-regressor-{regressor_dataset}", regressor_weights))
            )

    def load_encoder(self, state: dict[str, Tensor]) -> None:
        """Load the release's encoder state (``model.``-prefixed Sequential keys, projector dropped)."""
        encoder = {key.replace("model.", ""): value for key, value in state.items() if "projector" not in key}
        self.encoder.load_state_dict(encoder, strict=True)

    def load_regressor(self, tensors: dict[str, Tensor]) -> None:
        """Load the ridge regressor's ``weights`` ``(1, 4096)`` and ``biases`` (a scalar)."""
        if not {"weights", "biases"} <= set(tensors):
            raise WeightsChecksumError(
                f"an ARNIQA regressor holds `weights` and `biases`, found {sorted(tensors)}"
            )
        self.regressor.load_state_dict(
            {"weight": tensors["weights"].reshape(1, -1), "bias": tensors["biases"].reshape(1)}, strict=True
        )

    def forward(self, img: Tensor, normalize: bool = False) -> Tensor:
        half = interpolate(
            img,
            size=(img.shape[-2] // 2, img.shape[-1] // 2),
            mode="bilinear",
            align_corners=False,
            antialias=True,
        )
        if normalize:
            mean, std = (
                torch.tensor(v, dtype=img.dtype, device=img.device).view(1, 3, 1, 1)
                for v in (IMAGENET_MEAN, IMAGENET_STD)
            )
            img, half = (img - mean) / std, (half - mean) / std
        features = torch.cat([l2_normalize(self.encoder(x).flatten(1), dim=1) for x in (img, half)], dim=1)
        low, high = REGRESSOR_DATASETS[self.regressor_dataset]
        return (self.regressor(features) - low) / (high - low)
