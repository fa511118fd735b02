"""The networks of the metrics that need one, written in the package, and their one registry.

Each network is built by name through :func:`network` (the registry :data:`NETWORKS` maps a name
to its class, imported on first use) and gets its weights through the one loading path of
:mod:`.weights` (canonical URL, torch.hub's cache, published checksum, the offline folder named
by ``LIGHTNING_METRICS_WEIGHTS``). None of them needs torchvision: the trunks are written here
with torchvision's layer names, so torchvision's own weight files load into them.

A network used by a metric is frozen (:meth:`FrozenModule.frozen`): evaluation mode that
``.train()`` does not undo, no gradients kept for its parameters, so that a LightningModule that holds the metric
neither trains nor switches it.

>>> sorted(NETWORKS)[:2]
['alexnet', 'arniqa']
"""

from __future__ import annotations

import importlib
from typing import Any

from torch import nn

from lightning_metrics.networks.weights import (
    ENV_VAR,
    WEIGHT_FILES,
    WeightFile,
    WeightsChecksumError,
    WeightsUnavailableError,
    load_weights,
    weight_path,
)

# name -> "module:class" (relative to this package); each class takes its weights argument itself
NETWORKS: dict[str, str] = {
    "inception-v3-compat": "inception:FeatureExtractorInceptionV3",
    "alexnet": "trunks:AlexNetFeatures",
    "vgg16": "trunks:VGG16Features",
    "squeezenet1_1": "trunks:SqueezeNetFeatures",
    "lpips": "lpips:LPIPSNetwork",
    "dists": "dists:DISTSNetwork",
    "arniqa": "arniqa:ARNIQANetwork",
    "nisqa": "nisqa:NISQANetwork",
    "clip-rn50": "clip_resnet:CLIPResNet",
}


def network(name: str, **kwargs: Any) -> nn.Module:
    """Build the registered network ``name`` with ``kwargs``, frozen (see :class:`FrozenModule`)."""
    if name not in NETWORKS:
        raise KeyError(f"no network is registered as {name!r}; the registered ones: {sorted(NETWORKS)}")
    module_name, class_name = NETWORKS[name].split(":")
    cls = getattr(importlib.import_module(f"{__name__}.{module_name}"), class_name)
    return cls(**kwargs).frozen()


class FrozenModule(nn.Module):
    """The base of every network here: once :meth:`frozen`, ``.train()`` keeps it in evaluation mode.

    >>> class Net(FrozenModule):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.layer = nn.Linear(2, 2)
    >>> net = Net().frozen()
    >>> net.train().training, net.layer.weight.requires_grad
    (False, False)
    """

    def frozen(self) -> "FrozenModule":
        """This network in evaluation mode for good, without gradients for its parameters."""
        for parameter in self.parameters():
            parameter.requires_grad_(False)
        self._frozen = True
        return self.eval()

    def train(self, mode: bool = True) -> "FrozenModule":
        return super().train(mode and not getattr(self, "_frozen", False))


__all__ = [
    "ENV_VAR",
    "NETWORKS",
    "WEIGHT_FILES",
    "WeightFile",
    "WeightsChecksumError",
    "WeightsUnavailableError",
    "FrozenModule",
    "load_weights",
    "network",
    "weight_path",
]
