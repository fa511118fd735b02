"""The Lightning fallbacks of integration/compat.py give what the newest Lightning gives, on every version.

On the floor (Lightning 2.4) the fallback is the path every per-dataloader key takes; on newer
releases it is forced here, so it is checked against the native path wherever the suite runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import lightning
import lightning.pytorch as L
import pytest
import torch
from packaging.version import Version
from tests.integration.integration_helpers import RecordingModel, loader, standard_metrics, trainer_kwargs

import lightning_metrics as lm
from lightning_metrics.integration import compat

pytestmark = pytest.mark.timeout(120)


def _run(tmp_path: Path) -> dict[str, Any]:
    callback = lm.MetricsCallback(standard_metrics(), stages=("val",), log_on_step=("val",))
    trainer = L.Trainer(callbacks=[callback], **trainer_kwargs(tmp_path, max_epochs=1, enable_progress_bar=True))
    model = RecordingModel()
    trainer.fit(model, loader(64), [loader(37, seed=1), loader(21, seed=5, batch_size=5)])
    outputs = trainer.validate(model, [loader(37, seed=1), loader(21, seed=5)], verbose=False)
    return {
        "callback": dict(trainer.callback_metrics),
        "logged": dict(trainer.logged_metrics),
        "bar": dict(trainer.progress_bar_metrics),
        "validate": outputs,
    }


def _same(a: dict, b: dict) -> None:
    assert sorted(a) == sorted(b)
    for key in a:
        torch.testing.assert_close(torch.as_tensor(a[key]), torch.as_tensor(b[key]), msg=key)


def test_per_dataloader_keys_are_the_same_with_and_without_the_fallback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(compat, "_log_refuses_suffix", set())
    native = _run(tmp_path / "native")
    # what this Lightning does was found out, not assumed: only releases before 2.5 refuse the key
    refused = L.LightningModule.log in compat._log_refuses_suffix
    assert refused == (Version(lightning.__version__) < Version("2.5")), lightning.__version__

    monkeypatch.setattr(compat, "_log_refuses_suffix", {L.LightningModule.log})
    bridged = _run(tmp_path / "bridged")
    for part in ("callback", "logged", "bar"):
        _same(native[part], bridged[part])
    assert len(native["validate"]) == len(bridged["validate"]) == 2
    for a, b in zip(native["validate"], bridged["validate"]):
        _same(a, b)
    keys = set(native["callback"])
    for idx in (0, 1):  # epoch values, per-class values and batch values, one set per dataloader
        assert {f"val/acc/dataloader_idx_{idx}", f"val/recall/0/dataloader_idx_{idx}"} <= keys
        assert f"val/acc_step/dataloader_idx_{idx}" in native["logged"]
    assert "val/acc" not in keys


class _Refusing:
    """A module whose ``log`` refuses in another way: that error is the user's to see."""

    def log(self, name: str, value: Any, **kwargs: Any) -> None:
        raise ValueError(f"`self.log({name})` was called, but the tensor must have a single element")


def test_other_log_errors_are_not_taken_for_a_refused_key() -> None:
    with pytest.raises(ValueError, match="single element"):
        compat.log_keyed(_Refusing(), "val/acc/dataloader_idx_0", torch.tensor([1.0, 2.0]))
    assert _Refusing.log not in compat._log_refuses_suffix


def test_a_key_without_a_dataloader_suffix_never_falls_back() -> None:
    class Refusing:
        def log(self, name: str, value: Any, **kwargs: Any) -> None:
            raise RuntimeError(f"the key `{name}` should not contain information about `dataloader_idx`")

    with pytest.raises(RuntimeError, match="information about"):
        compat.log_keyed(Refusing(), "val/acc", torch.tensor(1.0))
    assert Refusing.log not in compat._log_refuses_suffix
