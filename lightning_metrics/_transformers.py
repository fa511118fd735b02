"""What the metrics built on Hugging Face ``transformers`` share: the lazy import, loading a model
by name or path, and running a model in evaluation mode without gradients.

``transformers`` is imported only when such a metric is built (never at ``import lightning_metrics``);
without it the error names the extra that installs it. Loading goes through ``from_pretrained``,
so Hugging Face's own settings apply: ``HF_HUB_OFFLINE=1`` (or ``TRANSFORMERS_OFFLINE=1``) loads from
the local cache only, ``HF_HOME`` moves the cache, and a local directory (``save_pretrained``'s
output) loads without any network.

>>> import torch
>>> layer = torch.nn.Dropout(0.5).train()
>>> with evaluating(layer):
...     layer.training
False
>>> layer.training
True
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import torch
from torch import nn

EXTRA = "transformers"
MINIMUM = "4.40"
INSTALL = f"pip install 'lightning_metrics[{EXTRA}]'"


def require(what: str) -> Any:
    """The ``transformers`` module, or an error that names the extra installing it."""
    try:
        import transformers
    except ImportError as err:
        raise ModuleNotFoundError(
            f"{what} needs the `transformers` package (>= {MINIMUM}): {INSTALL} (or pip install transformers)",
            name="transformers",
        ) from err
    return transformers


@contextmanager
def _quiet() -> Iterator[None]:
    """Hide transformers' notes about unused or newly initialised weights while loading."""
    logger = logging.getLogger("transformers.modeling_utils")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


def load(what: str, class_name: str, name_or_path: Any, **kwargs: Any) -> Any:
    """``transformers.<class_name>.from_pretrained(name_or_path)`` with an error that says what to do."""
    cls = getattr(require(what), class_name)
    try:
        with _quiet():
            return cls.from_pretrained(name_or_path, **kwargs)
    except OSError as err:  # transformers' error for a name or folder it cannot read
        raise OSError(
            f"{what} could not load {class_name} from `model_name_or_path`={str(name_or_path)!r}: {err}\n"
            "Pass a local directory written by `save_pretrained`, or a model name that is in the Hugging Face "
            "cache (offline: set HF_HUB_OFFLINE=1 so that only the cache is read)."
        ) from err


def frozen(model: nn.Module) -> nn.Module:
    """A model loaded here: evaluation mode and no gradients for its parameters (a LightningModule
    holding the metric must not train it)."""
    for parameter in model.parameters():
        parameter.requires_grad_(False)
    return model.eval()


@contextmanager
def evaluating(model: Any) -> Iterator[None]:
    """Run ``model`` in evaluation mode without gradients; restore every submodule's mode after."""
    modes = [(m, m.training) for m in model.modules()] if isinstance(model, nn.Module) else []
    for m, _ in modes:
        m.training = False
    try:
        with torch.no_grad():
            yield
    finally:
        for m, mode in modes:
            m.training = mode


def model_device(model: Any) -> torch.device:
    """The device of the model's first parameter (CPU for a model without parameters)."""
    for parameter in model.parameters() if isinstance(model, nn.Module) else ():
        return parameter.device
    return torch.device("cpu")


def progress(items: Iterable, verbose: bool, description: str = "") -> Iterable:
    """``items`` behind a tqdm progress bar when ``verbose`` (tqdm comes with ``transformers``)."""
    if not verbose:
        return items
    try:
        from tqdm.auto import tqdm
    except ImportError as err:
        raise ModuleNotFoundError(
            "`verbose=True` needs the `tqdm` package: pip install tqdm", name="tqdm"
        ) from err
    return tqdm(items, desc=description)


def features(output: Any) -> torch.Tensor:
    """A CLIP ``get_*_features`` result as a tensor (transformers 5 returns an output object whose
    ``pooler_output`` holds the projected features)."""
    return output if isinstance(output, torch.Tensor) else output.pooler_output
