"""The one weight-loading path: the user's file, the offline folder, torch.hub's cache, a download.

Every file here is written by the test; the downloads come from an HTTP server on 127.0.0.1.
"""

from __future__ import annotations

import functools
import hashlib
import http.server
import threading
from pathlib import Path

import pytest
import torch

from lightning_metrics import networks
from lightning_metrics.networks import weights
from lightning_metrics.networks.weights import WeightFile, WeightsChecksumError, WeightsUnavailableError


@pytest.fixture()
def served(tmp_path):
    """A folder served over HTTP on 127.0.0.1; yields (folder, base URL)."""
    folder = tmp_path / "served"
    folder.mkdir()
    handler = functools.partial(_QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield folder, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture()
def homes(tmp_path, monkeypatch):
    """An empty torch.hub cache and an offline folder, both in tmp_path."""
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "torch_home"))
    offline = tmp_path / "offline"
    offline.mkdir()
    monkeypatch.setenv(weights.ENV_VAR, str(offline))
    return offline, tmp_path / "torch_home" / "hub" / "checkpoints"


def _state_file(path: Path, value: float = 1.0) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"layer.weight": torch.full((2, 2), value)}, path)
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _register(monkeypatch, url: str, checksum) -> str:
    monkeypatch.setitem(weights.WEIGHT_FILES, "test-net", WeightFile(url, checksum, "TestMetric"))
    return "test-net"


def test_every_registered_file_has_a_https_url_and_a_checksum_where_one_is_published():
    for name, row in weights.WEIGHT_FILES.items():
        assert row.url.startswith("https://"), name
        assert row.filename.endswith((".pth", ".pt", ".onnx", ".tar")), name  # .tar: NISQA's checkpoint
        if row.checksum is not None:
            assert len(row.checksum) in (8, 64) and int(row.checksum, 16) >= 0, name
    # torchvision and torch-fidelity publish the checksum's prefix in the file's name, as torch.hub reads it
    for name in ("inception-v3-compat", "alexnet", "vgg16", "squeezenet1_1"):
        row = weights.WEIGHT_FILES[name]
        assert row.filename.rsplit("-", 1)[1].split(".")[0] == row.checksum


def test_the_users_path_is_used_as_it_is(tmp_path, homes, monkeypatch):
    name = _register(monkeypatch, "https://example.invalid/net-00000000.pth", "00000000")
    file = tmp_path / "mine.pth"
    _state_file(file, 3.0)
    state = networks.load_weights(name, file)
    assert torch.equal(state["layer.weight"], torch.full((2, 2), 3.0))
    with pytest.raises(WeightsUnavailableError, match="the weights path '.*nowhere.pth' for TestMetric is not a file"):
        networks.weight_path(name, tmp_path / "nowhere.pth")


def test_the_offline_folder_comes_before_the_cache_and_is_checked(homes, monkeypatch):
    offline, cache = homes
    digest = _state_file(offline / "net.pth", 2.0)
    _state_file(cache / "net.pth", 5.0)
    name = _register(monkeypatch, "https://example.invalid/net.pth", digest)
    assert networks.weight_path(name) == offline / "net.pth"
    assert networks.load_weights(name)["layer.weight"][0, 0] == 2.0
    # another file under the same name is refused, both digests named
    _register(monkeypatch, "https://example.invalid/net.pth", "0" * 64)
    with pytest.raises(WeightsChecksumError, match=f"its SHA-256 is {digest}, the published one is 0000"):
        networks.weight_path(name)


def test_the_cache_is_used_when_the_offline_folder_lacks_the_file(homes, monkeypatch):
    _, cache = homes
    digest = _state_file(cache / "net-abc.pth", 4.0)
    name = _register(monkeypatch, "https://example.invalid/net-abc.pth", digest[:8])  # a prefix, as torch.hub
    assert networks.weight_path(name) == cache / "net-abc.pth"
    assert networks.load_weights(name)["layer.weight"][1, 1] == 4.0


def test_a_missing_file_is_downloaded_into_the_cache_and_checked(homes, served, monkeypatch):
    _, cache = homes
    folder, base = served
    digest = _state_file(folder / "net.pth", 6.0)
    name = _register(monkeypatch, f"{base}/net.pth", digest)
    assert networks.weight_path(name) == cache / "net.pth"
    assert networks.load_weights(name)["layer.weight"][0, 1] == 6.0
    # a download that is not the published file is refused and leaves nothing in the cache
    (cache / "net.pth").unlink()
    _register(monkeypatch, f"{base}/net.pth", "f" * 64)
    with pytest.raises(WeightsChecksumError, match=f"the file downloaded from {base}/net.pth is not the published"):
        networks.weight_path(name)
    assert list(cache.iterdir()) == []


def test_without_file_or_network_the_error_says_what_to_fetch_and_where_to_put_it(homes, served, monkeypatch):
    offline, cache = homes
    _, base = served
    name = _register(monkeypatch, f"{base}/absent-1234abcd.pth", "1234abcd")  # the server answers 404
    with pytest.raises(WeightsUnavailableError) as error:
        networks.weight_path(name)
    message = str(error.value)
    for part in ("TestMetric", "absent-1234abcd.pth", f"{base}/absent-1234abcd.pth", str(offline), str(cache)):
        assert part in message
    with pytest.raises(WeightsUnavailableError, match="downloads are turned off"):
        networks.weight_path(name, download=False)


def test_an_unknown_name_lists_the_registered_ones():
    with pytest.raises(KeyError, match="'inception-v3-compat'"):
        networks.weight_path("inception")
    with pytest.raises(KeyError, match="no network is registered as 'resnet'"):
        networks.network("resnet")
