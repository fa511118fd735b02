"""Stateless text metrics with torchmetrics 1.9 names, arguments and values.

Each function is its module's statistics (edit counts, n-gram matches and totals, score sums) and
score, the very pieces the modular metrics of :mod:`lightning_metrics.text` accumulate.

>>> from lightning_metrics.functional.text import word_error_rate, bleu_score
>>> word_error_rate(["this is the prediction"], ["this is the reference"])
tensor(0.2500)
>>> bleu_score(["the cat is on the mat"], [["there is a cat on the mat", "a cat is on the mat"]])
tensor(0.7598)
"""

from lightning_metrics.functional.text.bert import bert_score
from lightning_metrics.functional.text.bleu import bleu_score, sacre_bleu_score
from lightning_metrics.functional.text.chrf import chrf_score
from lightning_metrics.functional.text.edit import (
    char_error_rate,
    edit_distance,
    match_error_rate,
    word_error_rate,
    word_information_lost,
    word_information_preserved,
)
from lightning_metrics.functional.text.eed import extended_edit_distance
from lightning_metrics.functional.text.infolm import infolm
from lightning_metrics.functional.text.likelihood import perplexity
from lightning_metrics.functional.text.question_answering import squad
from lightning_metrics.functional.text.rouge import rouge_score
from lightning_metrics.functional.text.ter import translation_edit_rate

__all__ = [
    "bert_score",
    "bleu_score",
    "char_error_rate",
    "chrf_score",
    "edit_distance",
    "extended_edit_distance",
    "infolm",
    "match_error_rate",
    "perplexity",
    "rouge_score",
    "sacre_bleu_score",
    "squad",
    "translation_edit_rate",
    "word_error_rate",
    "word_information_lost",
    "word_information_preserved",
]
