"""Seeds named by a case id, so that a case's data does not depend on which other cases exist."""

from __future__ import annotations

import zlib

import torch


def keyed_generator(key: str) -> torch.Generator:
    """A CPU generator seeded from ``key`` (its CRC-32), the same in every run and process."""
    return torch.Generator().manual_seed(zlib.crc32(key.encode()))
