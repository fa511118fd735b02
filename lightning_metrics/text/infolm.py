"""Modular InfoLM: tensors-only states, the masked language model run where the corpus allows it.

Without ``idf`` a pair's score needs nothing beyond the pair, so ``update`` runs the model and
keeps the per-pair values (a ``cat`` state). With ``idf=True`` (the default) a sentence's
distribution is weighted by document frequencies over the whole corpus of its side, which only
``compute`` knows: ``update`` then keeps each sentence's token ids (``cat`` states of ids and
lengths, never strings) and ``compute`` runs the model over them, as torchmetrics does. Either way
a DDP run equals a single-process one.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any, ClassVar

import torch
from torch import Tensor

from lightning_metrics.functional.text._inputs import paired_sentences
from lightning_metrics.functional.text.infolm import (
    _ALLOWED_INFORMATION_MEASURE_LITERAL,
    InformationMeasure,
    check_arguments,
    default_max_length,
    load_masked_lm,
    sentence_scores,
    tokenize,
)
from lightning_metrics.metric import Metric
from lightning_metrics.plotting import _methods as _plot_methods


class InfoLM(Metric):
    """InfoLM of predictions against references (torchmetrics' ``InfoLM``); arguments as
    :func:`~lightning_metrics.functional.text.infolm.infolm`. The model (``AutoModelForMaskedLM`` by
    ``model_name_or_path``) is loaded when the metric is built, frozen, and is its submodule ``model``.

    >>> import torch, tempfile, os
    >>> from transformers import BertConfig, BertForMaskedLM, BertTokenizer
    >>> folder = tempfile.mkdtemp()
    >>> with open(os.path.join(folder, "vocab.txt"), "w") as f:
    ...     _ = f.write("\\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "he", "read", "a", "book", "the"]))
    >>> _ = torch.manual_seed(0)
    >>> BertForMaskedLM(BertConfig(vocab_size=10, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
    ...                            intermediate_size=32)).save_pretrained(folder)
    >>> BertTokenizer(os.path.join(folder, "vocab.txt")).save_pretrained(folder)  # doctest: +ELLIPSIS
    (...)
    >>> metric = InfoLM(folder, information_measure="l2_distance", verbose=False, return_sentence_level_score=True)
    >>> metric.update(["he read the book"], ["he read a book"])
    >>> metric.update(["a book"], ["the book"])
    >>> corpus, sentences = metric.compute()
    >>> sentences.shape
    torch.Size([2])
    >>> InfoLM("google-bert/bert-base-uncased")  # doctest: +SKIP
    """

    is_differentiable = False
    full_state_update: bool = False
    plot = _plot_methods.plot_value
    _information_measure_higher_is_better: ClassVar[dict[str, bool]] = {
        "kl_divergence": True,
        "alpha_divergence": True,
        "beta_divergence": False,
        "ab_divergence": False,
        "renyi_divergence": False,
        "l1_distance": False,
        "l2_distance": False,
        "l_infinity_distance": False,
        "fisher_rao_distance": False,
    }

    def __init__(
        self,
        model_name_or_path: str | os.PathLike = "bert-base-uncased",
        temperature: float = 0.25,
        information_measure: _ALLOWED_INFORMATION_MEASURE_LITERAL = "kl_divergence",
        idf: bool = True,
        alpha: float | None = None,
        beta: float | None = None,
        device: str | torch.device | None = None,
        max_length: int | None = None,
        batch_size: int = 64,
        num_threads: int = 0,
        verbose: bool = True,
        return_sentence_level_score: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        check_arguments(
            temperature, idf, max_length, batch_size, num_threads, verbose, return_sentence_level_score
        )
        self.information_measure_cls = InformationMeasure(information_measure, alpha, beta)
        self.model_name_or_path = model_name_or_path
        self.temperature = temperature
        self.information_measure = information_measure
        self.idf = idf
        self.alpha = alpha
        self.beta = beta
        self.embedding_device = device
        self.batch_size = batch_size
        self.num_threads = num_threads
        self.verbose = verbose
        self.return_sentence_level_score = return_sentence_level_score
        self.tokenizer, self.model = load_masked_lm(model_name_or_path, device)
        self.max_length = default_max_length(self.model, max_length)
        if idf:
            for name in ("preds_ids", "preds_lengths", "target_ids", "target_lengths"):
                self.add_state(name, [], dist_reduce_fx="cat")
        else:
            self.add_state("sentence_scores", [], dist_reduce_fx="cat")

    @property
    def higher_is_better(self) -> bool:  # type: ignore[override]
        """Whether a higher value is better: depends on ``information_measure`` (torchmetrics' table)."""
        return self._information_measure_higher_is_better[self.information_measure]

    def update(self, preds: str | Sequence[str], target: str | Sequence[str]) -> None:
        """Score the batch's pairs (``idf=False``) or keep their token ids (``idf=True``)."""
        preds, target = paired_sentences(preds, target)
        if not preds:
            return
        tokenized = [tokenize(self.tokenizer, texts, self.max_length) for texts in (preds, target)]
        if not self.idf:
            scores = sentence_scores(
                self.model,
                self.tokenizer,
                tokenized[0],
                tokenized[1],
                self.temperature,
                False,
                self.information_measure_cls,
                self.batch_size,
                self.verbose,
            )
            self.sentence_scores.append(scores.to(self.device))
            return
        for side, (ids, mask) in zip(("preds", "target"), tokenized):
            lengths = mask.sum(1)
            getattr(self, f"{side}_ids").append(ids[mask.bool()].to(self.device))
            getattr(self, f"{side}_lengths").append(lengths.to(self.device))

    def _joined(self, name: str) -> Tensor:
        value = getattr(self, name)
        if isinstance(value, Tensor):
            return value
        return torch.cat(value) if value else torch.zeros(0, dtype=torch.long, device=self.device)

    def _padded(self, side: str) -> tuple[Tensor, Tensor]:
        """The kept token ids of one side back as right-padded ``input_ids`` and ``attention_mask``."""
        ids, lengths = self._joined(f"{side}_ids").cpu(), self._joined(f"{side}_lengths").cpu()
        width = int(lengths.max()) if lengths.numel() else 0
        mask = torch.arange(width).unsqueeze(0) < lengths.unsqueeze(1)
        padded = torch.full(mask.shape, self.tokenizer.pad_token_id, dtype=ids.dtype)
        padded[mask] = ids
        return padded, mask.long()

    def compute(self) -> Tensor | tuple[Tensor, Tensor]:
        """The corpus mean (and the per-pair values with ``return_sentence_level_score=True``)."""
        if self.idf:
            preds, target = self._padded("preds"), self._padded("target")
            if preds[0].shape[0]:
                scores = sentence_scores(
                    self.model,
                    self.tokenizer,
                    preds,
                    target,
                    self.temperature,
                    True,
                    self.information_measure_cls,
                    self.batch_size,
                    self.verbose,
                )
            else:
                scores = torch.zeros(0)
            scores = scores.to(self.device)
        else:
            scores = self._joined("sentence_scores").float()
        if self.return_sentence_level_score:
            return scores.mean(), scores
        return scores.mean()


__all__ = ["InfoLM"]
