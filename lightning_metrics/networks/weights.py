"""The one path by which a network's weights reach a metric: a table of files and one resolver.

Every weight file a metric needs is a row of :data:`WEIGHT_FILES`: the canonical URL that
torchmetrics' dependencies download it from (torch-fidelity's release, torchvision's model zoo,
the LPIPS, DISTS and ARNIQA repositories), and its published checksum. :func:`weight_path` finds
the file, in this order:

1. a path the user passed (torchmetrics' ``feature_extractor_weights_path``), used as it is;
2. the folder named by the environment variable ``LIGHTNING_METRICS_WEIGHTS`` (an offline copy:
   put the files there under their own names);
3. torch.hub's cache, ``$TORCH_HOME/hub/checkpoints`` (where torchvision, torch-fidelity and
   torchmetrics put them: a machine that ran torchmetrics already has them);
4. a download from the URL into torch.hub's cache, as torch.hub does.

A file found in 2-4 must match its checksum (the full SHA-256, or the prefix that torch.hub
puts in the file's name); a file that does not is refused, with both digests named. Without the
file and without a network, :class:`WeightsUnavailableError` names the file, its URL and the two
folders it can be put in. Nothing is fetched before a metric that needs the file is built.

>>> row = WEIGHT_FILES["inception-v3-compat"]
>>> row.filename
'weights-inception-2015-12-05-6726825d.pth'
>>> row.checksum
'6726825d'
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Union

import torch

ENV_VAR = "LIGHTNING_METRICS_WEIGHTS"


class WeightsUnavailableError(FileNotFoundError):
    """A network's weight file is not on this machine and could not be downloaded."""


class WeightsChecksumError(RuntimeError):
    """A weight file on disk is not the published file (a partial download, another version)."""


@dataclass(frozen=True)
class WeightFile:
    """One weight file: where it is published, its checksum and the metrics that use it."""

    url: str
    checksum: Optional[str]  # the full SHA-256 or its leading hex digits; None where none is published
    used_by: str
    local_name: Optional[str] = None  # the name on disk where the URL's last part is not unique (DNSMOS)

    @property
    def filename(self) -> str:
        return self.local_name or self.url.rsplit("/", 1)[-1]


_TORCHVISION = "https://download.pytorch.org/models"
_LPIPS = "https://github.com/richzhang/PerceptualSimilarity/raw/master/lpips/weights/v0.1"
_ARNIQA = "https://github.com/miccunifi/ARNIQA/releases/download/weights"
_DNSMOS = "https://raw.githubusercontent.com/microsoft/DNS-Challenge/master/DNSMOS"

WEIGHT_FILES: dict[str, WeightFile] = {
    # torch-fidelity's port of the TensorFlow FID Inception-v3 (torchmetrics' FID, KID, IS, MiFID)
    "inception-v3-compat": WeightFile(
        "https://github.com/toshas/torch-fidelity/releases/download/v0.2.0/weights-inception-2015-12-05-6726825d.pth",
        "6726825d",
        "FrechetInceptionDistance, KernelInceptionDistance, InceptionScore, "
        "MemorizationInformedFrechetInceptionDistance",
    ),
    # torchvision's ImageNet trunks (the checksum prefix is in each file's name)
    "alexnet": WeightFile(f"{_TORCHVISION}/alexnet-owt-7be5be79.pth", "7be5be79", "LPIPS (net_type='alex')"),
    "vgg16": WeightFile(f"{_TORCHVISION}/vgg16-397923af.pth", "397923af", "LPIPS (net_type='vgg'), DISTS"),
    "squeezenet1_1": WeightFile(
        f"{_TORCHVISION}/squeezenet1_1-b8a52dc0.pth", "b8a52dc0", "LPIPS (net_type='squeeze')"
    ),
    # the LPIPS linear heads (identical to the files in the lpips and torchmetrics packages)
    "lpips-alex": WeightFile(
        f"{_LPIPS}/alex.pth", "df73285e35b22355a2df87cdb6b70b343713b667eddbda73e1977e0c860835c0", "LPIPS"
    ),
    "lpips-vgg": WeightFile(
        f"{_LPIPS}/vgg.pth", "a78928a0af1e5f0fcb1f3b9e8f8c3a2a5a3de244d830ad5c1feddc79b8432868", "LPIPS"
    ),
    "lpips-squeeze": WeightFile(
        f"{_LPIPS}/squeeze.pth", "4a5350f23600cb79923ce65bb07cbf57dca461329894153e05a1346bd531cf76", "LPIPS"
    ),
    # DISTS' alpha/beta weights (identical to the DISTS_pytorch and torchmetrics copies)
    "dists": WeightFile(
        "https://github.com/dingkeyan93/DISTS/raw/master/DISTS_pytorch/weights.pt",
        "f5e65c96230b7f6ca995691647d482237e4cab8a50c5c4a5784f219ef0748218",
        "DeepImageStructureAndTextureSimilarity",
    ),
    # ARNIQA's encoder and regressors: the release publishes no checksum
    "arniqa-encoder": WeightFile(f"{_ARNIQA}/ARNIQA.pth", None, "ARNIQA"),
    "arniqa-regressor-koniq10k": WeightFile(f"{_ARNIQA}/regressor_koniq10k.pth", None, "ARNIQA"),
    "arniqa-regressor-kadid10k": WeightFile(f"{_ARNIQA}/regressor_kadid10k.pth", None, "ARNIQA"),
    # NISQA v2.0's checkpoint (its args and model state), from the repository's branch as torchmetrics
    # downloads it: no checksum is published
    "nisqa": WeightFile(
        "https://github.com/gabrielmittag/NISQA/raw/refs/heads/master/weights/nisqa.tar",
        None,
        "NonIntrusiveSpeechQualityAssessment",
    ),
    # DNSMOS' ONNX models (onnxruntime runs them), at the URLs torchmetrics downloads them from. The
    # DNS-Challenge repository publishes no checksum: these are the SHA-256 of the files served there
    # (its commit 591184a). Two files share the name sig_bak_ovr.onnx: on disk each has its folder's prefix.
    "dnsmos-p808": WeightFile(
        f"{_DNSMOS}/DNSMOS/model_v8.onnx",
        "9246480c58567bc6affd4200938e77eef49468c8bc7ed3776d109c07456f6e91",
        "DeepNoiseSuppressionMeanOpinionScore",
        "DNSMOS_model_v8.onnx",
    ),
    "dnsmos-sig-bak-ovr": WeightFile(
        f"{_DNSMOS}/DNSMOS/sig_bak_ovr.onnx",
        "269fbebdb513aa23cddfbb593542ecc540284a91849ac50516870e1ac78f6edd",
        "DeepNoiseSuppressionMeanOpinionScore (personalized=False)",
        "DNSMOS_sig_bak_ovr.onnx",
    ),
    "dnsmos-personalized-sig-bak-ovr": WeightFile(
        f"{_DNSMOS}/pDNSMOS/sig_bak_ovr.onnx",
        "9e3a197449ca2177f0997afec3bd6b890117ce2f17b89d6eea7fa0d47272c81c",
        "DeepNoiseSuppressionMeanOpinionScore (personalized=True)",
        "pDNSMOS_sig_bak_ovr.onnx",
    ),
    # OpenAI's CLIP RN50 (a TorchScript archive), the model piq loads for CLIP-IQA (torchmetrics'
    # model_name_or_path="clip_iqa"); piq downloads its own snapshot of this file first
    # (github.com/photosynthesis-team/piq/releases/download/v0.7.1/RN50.pt). OpenAI publishes the
    # SHA-256 in the URL.
    "clip-rn50": WeightFile(
        "https://openaipublic.azureedge.net/clip/models/"
        "afeb0e10f9e5a86da6080e35cf09123aca3b358a0c3e3b6c78a7b63bc04b6762/RN50.pt",
        "afeb0e10f9e5a86da6080e35cf09123aca3b358a0c3e3b6c78a7b63bc04b6762",
        "CLIPImageQualityAssessment (model_name_or_path='clip_iqa')",
    ),
}

_verified: dict[tuple[str, int, int], str] = {}  # (path, size, mtime) -> digest: each file is hashed once


def hub_checkpoints() -> Path:
    """torch.hub's folder of downloaded weights (``$TORCH_HOME/hub/checkpoints``)."""
    return Path(torch.hub.get_dir()) / "checkpoints"


def sha256_of(path: Union[str, Path]) -> str:
    """The SHA-256 of a file, read in blocks (hashed once per file, size and modification time)."""
    stat = os.stat(path)
    key = (str(Path(path).resolve()), stat.st_size, stat.st_mtime_ns)
    if key not in _verified:
        digest = hashlib.sha256()
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        _verified[key] = digest.hexdigest()
    return _verified[key]


def _check(row: WeightFile, path: Path, downloaded: bool = False) -> Path:
    if row.checksum is not None:
        found = sha256_of(path)
        if not found.startswith(row.checksum):
            published = f"{'starts with ' if len(row.checksum) < 64 else 'is '}{row.checksum}"
            if downloaded:
                raise WeightsChecksumError(
                    f"the file downloaded from {row.url} is not the published {row.filename}: its SHA-256 is "
                    f"{found}, the published one {published}. Nothing was kept; check the URL's host (a proxy?)."
                )
            raise WeightsChecksumError(
                f"{path} is not the published {row.filename}: its SHA-256 is {found}, the published one "
                f"{published}. It may be a partial download or another version: delete it and it is fetched "
                f"again from {row.url}, or put the published file there."
            )
    return path


def _download(row: WeightFile, target: Path) -> None:
    """Fetch ``row.url`` to ``target`` through a temporary file (no half-written file is left)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as scratch:
        partial = Path(scratch) / row.filename
        torch.hub.download_url_to_file(row.url, str(partial), hash_prefix=None, progress=False)
        _check(row, partial, downloaded=True)
        os.replace(partial, target)


def weight_path(name: str, path: Optional[Union[str, Path]] = None, download: bool = True) -> Path:
    """The local file of the weights ``name`` (a key of :data:`WEIGHT_FILES`), found as the module says.

    >>> import os, tempfile, torch
    >>> folder = tempfile.mkdtemp()
    >>> torch.save({"w": torch.zeros(1)}, os.path.join(folder, "mine.pth"))
    >>> weight_path("inception-v3-compat", os.path.join(folder, "mine.pth")).name
    'mine.pth'
    """
    if name not in WEIGHT_FILES:
        raise KeyError(f"no weight file is registered as {name!r}; the registered ones: {sorted(WEIGHT_FILES)}")
    row = WEIGHT_FILES[name]
    if path is not None:  # the user's own file (torchmetrics' argument): theirs to vouch for
        given = Path(path).expanduser()
        if not given.is_file():
            raise WeightsUnavailableError(f"the weights path {str(path)!r} for {row.used_by} is not a file")
        return given
    folder = os.environ.get(ENV_VAR)
    if folder and (Path(folder) / row.filename).is_file():
        return _check(row, Path(folder) / row.filename)
    cached = hub_checkpoints() / row.filename
    if cached.is_file():
        return _check(row, cached)
    reason = "downloads are turned off"
    if download:
        try:
            _download(row, cached)
            return cached
        except (OSError, ValueError) as err:  # URLError and HTTPError are OSErrors
            reason = f"the download failed ({type(err).__name__}: {err})"
    where = f"{ENV_VAR}={folder!r}" if folder else f"a folder named by the environment variable {ENV_VAR}"
    raise WeightsUnavailableError(
        f"{row.used_by} needs the weight file {row.filename}, which is not on this machine, and {reason}. "
        f"Download it from {row.url} and put it in {where} or in torch.hub's cache {cached.parent}."
    )


def load_weights(name: str, path: Optional[Union[str, Path]] = None, download: bool = True) -> dict[str, Any]:
    """The state dict of the weights ``name`` (see :func:`weight_path`), loaded on the CPU.

    Files are read with ``weights_only=True``: tensors and containers, never arbitrary objects.

    >>> import os, tempfile, torch
    >>> file = os.path.join(tempfile.mkdtemp(), "head.pth")
    >>> torch.save({"lin0.model.1.weight": torch.ones(1, 64, 1, 1)}, file)
    >>> sorted(load_weights("lpips-alex", file))
    ['lin0.model.1.weight']
    """
    file = weight_path(name, path, download)
    state = torch.load(file, map_location="cpu", weights_only=True)
    if not isinstance(state, dict):
        raise WeightsChecksumError(f"{file} holds a {type(state).__name__}, not a state dict of {name!r} weights")
    return state
