"""What the oldest supported Lightning lacks, found out by how it behaves and bridged, in one place.

Nothing here reads a version number: a Lightning that does what the newest one does never reaches a
fallback, and one that does not is detected on first contact and remembered.
"""

from __future__ import annotations

from typing import Any

import torch

DATALOADER_SUFFIX = "/dataloader_idx_"
_REFUSAL = "information about `dataloader_idx`"  # Lightning's words; its other errors quote the key too
# the `log` methods seen to refuse a key with a dataloader suffix (Lightning 2.4 and older)
_log_refuses_suffix: set = set()


def log_keyed(pl_module: Any, key: str, value: torch.Tensor, **kwargs: Any) -> None:
    """``pl_module.log(key, value, add_dataloader_idx=False, **kwargs)``, where ``key`` may end in
    ``/dataloader_idx_N`` on every supported Lightning.

    With several dataloaders the engine logs each one's epoch values under Lightning's own name for
    per-dataloader values, ``"{stage}/{name}/dataloader_idx_N"``. Up to Lightning 2.4, ``self.log``
    refuses any key holding ``/dataloader_idx_``, even with ``add_dataloader_idx=False``, and an
    epoch-end hook has no dataloader index for it to add. There the value goes into the trainer's
    result collection directly, as ``self.log`` itself does once that check has passed (the check
    comes before anything is recorded, so the refused call changed nothing).

    >>> class Module:  # a stand-in with the LightningModule.log signature
    ...     def log(self, name, value, **kwargs):
    ...         print(name, float(value), kwargs["add_dataloader_idx"])
    >>> log_keyed(Module(), "val/acc/dataloader_idx_1", torch.tensor(0.5), on_epoch=True)
    val/acc/dataloader_idx_1 0.5 False
    """
    log = type(pl_module).log
    if DATALOADER_SUFFIX not in key or log not in _log_refuses_suffix:
        try:
            pl_module.log(key, value, add_dataloader_idx=False, **kwargs)
            return
        except Exception as err:
            if DATALOADER_SUFFIX not in key or _REFUSAL not in str(err):
                raise
            _log_refuses_suffix.add(log)
    _log_into_results(pl_module, key, value, **kwargs)


def _log_into_results(
    pl_module: Any,
    key: str,
    value: torch.Tensor,
    *,
    prog_bar: bool = False,
    logger: Any = None,
    on_step: bool = False,
    on_epoch: bool = True,
    reduce_fx: Any = "mean",
    sync_dist: bool = False,
    batch_size: Any = None,
) -> None:
    """The rest of Lightning 2.4's ``LightningModule.log`` for a tensor value, after its key check."""
    if sync_dist:
        raise ValueError(f"{key!r}: only values that need no sync are logged this way")
    trainer = pl_module.trainer
    fx = pl_module._current_fx_name
    results = trainer._results
    if trainer._logger_connector.should_reset_tensors(fx):  # the first batch of a new epoch
        results.reset(metrics=False, fx=fx)
    results.log(
        fx, key, value.detach().clone().squeeze(), prog_bar=prog_bar, logger=True if logger is None else logger,
        on_step=on_step, on_epoch=on_epoch, reduce_fx=reduce_fx, enable_graph=False, add_dataloader_idx=False,
        batch_size=batch_size, sync_dist=False, sync_dist_fn=trainer.strategy.reduce, sync_dist_group=None,
        metric_attribute=None, rank_zero_only=False,
    )
    trainer._logger_connector._current_fx = fx


def add_note(err: BaseException, note: str) -> None:
    """``err.add_note(note)`` (PEP 678), also on Python 3.10, which has no ``add_note``: there the note
    goes into ``err.__notes__`` as 3.11 keeps it (what ``add_note`` does, what tools such as pytest and
    the ``exceptiongroup`` backport's traceback display read), though 3.10's own traceback does not print it.

    >>> err = ValueError("bad")
    >>> add_note(err, "more")
    >>> err.__notes__
    ['more']
    """
    if hasattr(err, "add_note"):
        err.add_note(note)
        return
    notes = getattr(err, "__notes__", None)
    if not isinstance(notes, list):
        notes = []
        try:
            err.__notes__ = notes  # type: ignore[attr-defined]
        except AttributeError:
            return
    notes.append(note)
