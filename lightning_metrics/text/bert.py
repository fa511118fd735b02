"""Modular BERTScore: each ``update`` embeds its pairs and keeps every scored token's best match.

The states are tensors only (``cat``): per scored token its id and its best cosine similarity to
the other sentence of the pair (one per layer), per sentence its number of scored tokens, the
distinct token ids of each reference (the document frequencies of ``idf=True``) and each
prediction's number of references. ``compute`` weights the stored maxima, with the inverse
document frequencies over all references seen when ``idf=True``, so that a DDP run (strings never
reach a collective; the model never runs at ``compute``) equals a single-process one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import torch
from torch import Tensor
from torch.nn import Module

from lightning_metrics.functional.text.bert import (
    _DEFAULT_MODEL,
    build_encoder,
    check_arguments,
    empty_output,
    get_hash,
    load_baseline,
    scores,
    sentence_states,
    text_pairs,
)
from lightning_metrics.metric import Metric
from lightning_metrics.plotting import _methods as _plot_methods

_STATES = (
    "preds_ids",
    "preds_maxima",
    "preds_lengths",
    "target_ids",
    "target_maxima",
    "target_lengths",
    "target_documents",
    "num_references",
)


class BERTScore(Metric):
    """BERTScore precision, recall and F1 of every prediction seen (torchmetrics' ``BERTScore``).

    Arguments as :func:`~lightning_metrics.functional.text.bert.bert_score`: a model by
    ``model_name_or_path`` (any ``transformers`` model; default ``roberta-large``), or ``model`` with
    ``user_tokenizer`` (called as ``tokenizer(sentences, max_length)``, as torchmetrics' class calls it,
    returning ``input_ids`` and ``attention_mask``) and optionally ``user_forward_fn``;
    ``idf`` weights tokens by their inverse document frequency over all the references seen;
    ``rescale_with_baseline`` reads ``baseline_path``, ``baseline_url`` or the original package's file
    for ``lang`` and the model name, once, when the metric is built. ``compute`` returns
    ``{"precision", "recall", "f1"}`` with one value per prediction (per layer and prediction with
    ``all_layers=True``), plus ``"hash"`` with ``return_hash=True``.

    >>> import torch, tempfile, os
    >>> from transformers import BertConfig, BertModel, BertTokenizer
    >>> folder = tempfile.mkdtemp()
    >>> with open(os.path.join(folder, "vocab.txt"), "w") as f:
    ...     _ = f.write("\\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "hello", "there", "general", "master", "kenobi"]))
    >>> tokenizer = BertTokenizer(os.path.join(folder, "vocab.txt"))
    >>> _ = torch.manual_seed(0)
    >>> model = BertModel(BertConfig(vocab_size=9, hidden_size=16, num_hidden_layers=2, num_attention_heads=2,
    ...                              intermediate_size=32))
    >>> model.save_pretrained(folder); tokenizer.save_pretrained(folder)  # doctest: +ELLIPSIS
    (...)
    >>> metric = BERTScore(model_name_or_path=folder, idf=True)
    >>> metric.update(["hello there"], ["hello there"])
    >>> metric.update(["general kenobi"], [["master kenobi", "general kenobi"]])
    >>> metric.compute()["f1"]
    tensor([1.0000, 1.0000])
    >>> BERTScore(model_name_or_path="roberta-large", lang="en", rescale_with_baseline=True)  # doctest: +SKIP
    """

    is_differentiable: bool = False
    higher_is_better: bool = True
    full_state_update: bool = False
    plot_lower_bound: float = 0.0
    plot_upper_bound: float = 1.0
    plot = _plot_methods.plot_value

    def __init__(
        self,
        model_name_or_path: str | None = None,
        num_layers: int | None = None,
        all_layers: bool = False,
        model: Module | None = None,
        user_tokenizer: Any | None = None,
        user_forward_fn: Callable[[Module, dict[str, Tensor]], Tensor] | None = None,
        verbose: bool = False,
        idf: bool = False,
        device: str | torch.device | None = None,
        max_length: int = 512,
        batch_size: int = 64,
        num_threads: int = 0,
        return_hash: bool = False,
        lang: str = "en",
        rescale_with_baseline: bool = False,
        baseline_path: str | None = None,
        baseline_url: str | None = None,
        truncation: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        check_arguments(
            num_layers,
            all_layers,
            verbose,
            idf,
            max_length,
            batch_size,
            num_threads,
            return_hash,
            lang,
            rescale_with_baseline,
            truncation,
            user_forward_fn,
        )
        encoder = build_encoder(
            model_name_or_path,
            model,
            user_tokenizer,
            user_forward_fn,
            num_layers,
            all_layers,
            max_length,
            truncation,
            batch_size,
            device,
            verbose,
        )
        self.model_name_or_path = model_name_or_path or _DEFAULT_MODEL
        self.num_layers = num_layers
        self.all_layers = all_layers
        self.model = model  # a user's model is a submodule (as in torchmetrics); a loaded one is not
        self.user_forward_fn = user_forward_fn
        self.verbose = verbose
        self.idf = idf
        self.embedding_device = device
        self.max_length = max_length
        self.batch_size = batch_size
        self.num_threads = num_threads
        self.return_hash = return_hash
        self.lang = lang
        self.rescale_with_baseline = rescale_with_baseline
        self.baseline_path = baseline_path
        self.baseline_url = baseline_url
        self.truncation = truncation
        self.tokenizer = encoder.tokenizer
        self.user_tokenizer = user_tokenizer is not None
        self._encoder = encoder
        self._baseline = (
            load_baseline(lang, self.model_name_or_path, baseline_path, baseline_url)
            if rescale_with_baseline
            else None
        )
        for name in _STATES:
            self.add_state(name, [], dist_reduce_fx="cat")

    def update(
        self, preds: str | Sequence[str], target: str | Sequence[str] | Sequence[Sequence[str]]
    ) -> None:
        """Embed the batch's pairs and keep their tokens' best matches (several references: each)."""
        flat_preds, flat_target, counts = text_pairs(preds, target)
        if not counts:
            return
        encoder = self._encoder
        if self.model is None and self.embedding_device is None:
            encoder.model.to(self.device)  # the loaded model follows the metric's device
        tokenized = [encoder.tokenize(flat_preds), encoder.tokenize(flat_target)]
        if self.idf and tokenized[0][0].is_floating_point():
            raise ValueError("`idf=True` needs integer `input_ids` (token ids) from the tokenizer")
        states = sentence_states(encoder, tokenized[0], tokenized[1])
        states["num_references"] = torch.tensor(counts, dtype=torch.long)
        for name, value in states.items():
            getattr(self, name).append(value.to(self.device))

    def _joined(self, name: str) -> Tensor:
        value = getattr(self, name)
        if isinstance(value, Tensor):
            return value
        return torch.cat(value) if value else torch.zeros(0, dtype=torch.long, device=self.device)

    def compute(self) -> dict[str, Tensor | list[float] | str]:
        """Precision, recall and F1 per prediction (the inverse document frequencies over all references)."""
        s = {name: self._joined(name) for name in _STATES}
        if s["num_references"].numel() == 0:
            return empty_output(self.return_hash, self.model_name_or_path, self.num_layers, self.idf)
        precision, recall, f1 = scores(
            s["preds_ids"],
            s["preds_maxima"],
            s["preds_lengths"],
            s["target_ids"],
            s["target_maxima"],
            s["target_lengths"],
            s["target_documents"],
            s["num_references"],
            self.idf,
            self._baseline,
            self.num_layers,
            self.all_layers,
        )
        out: dict[str, Any] = {"precision": precision, "recall": recall, "f1": f1}
        if self.return_hash:
            out["hash"] = get_hash(self.model_name_or_path, self.num_layers, self.idf)
        return out


__all__ = ["BERTScore"]
