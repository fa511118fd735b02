"""LightningCLI for the examples: model, data, logger, callbacks and metrics all come from YAML.

    python examples/cli.py fit      --config configs/digits.yaml
    python examples/cli.py validate --config configs/digits.yaml --ckpt_path <checkpoint>
    python examples/cli.py test     --config configs/digits.yaml --ckpt_path <checkpoint>
    python examples/cli.py fit      --config configs/digits.yaml --config configs/fast.yaml  # tiny run

Nothing here is specific to lightning_metrics: ``MetricsCallback`` and every metric are
declared in the config with ``class_path``/``init_args``, and jsonargparse builds them from
their typed constructors. See configs/README.md.
"""

from __future__ import annotations

import sys
from pathlib import Path

# the configs name the example classes as examples.digits.DigitsClassifier and so on
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lightning.pytorch.cli import LightningCLI


def main(args: list[str] | None = None) -> LightningCLI:
    # no fixed model or data class: the config's class_path chooses them
    return LightningCLI(save_config_kwargs={"overwrite": True}, args=args)


if __name__ == "__main__":
    main()
