"""Modular text metrics with torchmetrics 1.9 names, arguments and values.

Every ``update`` reduces its batch of strings to a few count tensors (edit operations and lengths,
n-gram matches and totals, score sums; sentence scores where asked for, as ``cat`` tensors), so
strings never reach a collective and DDP results equal single-process ones. Metrics that read the
same statistic (WER, MER, WIL, WIP) share one update in a ``MetricCollection``.

>>> from lightning_metrics.text import WordErrorRate
>>> wer = WordErrorRate()
>>> wer.update(["this is the prediction", "there is an other sample"], ["this is the reference", "there is another one"])
>>> wer.compute()
tensor(0.5000)
"""

from lightning_metrics.text.edit import (
    CharErrorRate,
    EditDistance,
    MatchErrorRate,
    WordErrorRate,
    WordInfoLost,
    WordInfoPreserved,
)
from lightning_metrics.text.eed import ExtendedEditDistance
from lightning_metrics.text.perplexity import Perplexity
from lightning_metrics.text.rouge import ROUGEScore
from lightning_metrics.text.squad import SQuAD
from lightning_metrics.text.ter import TranslationEditRate
from lightning_metrics.text.translation import BLEUScore, CHRFScore, SacreBLEUScore

__all__ = [
    "BLEUScore",
    "CHRFScore",
    "CharErrorRate",
    "EditDistance",
    "ExtendedEditDistance",
    "MatchErrorRate",
    "Perplexity",
    "ROUGEScore",
    "SQuAD",
    "SacreBLEUScore",
    "TranslationEditRate",
    "WordErrorRate",
    "WordInfoLost",
    "WordInfoPreserved",
]
