"""BERTScore: greedy matching of contextual token embeddings (torchmetrics' ``bert_score``).

Each prediction/reference pair is scored by its tokens' best cosine similarities: a prediction
token's maximum over the reference tokens (precision) and a reference token's maximum over the
prediction tokens (recall). Those per-token maxima are all a pair needs, so they are computed as
soon as a pair is seen (the modular metric keeps them, with the token ids, as ``cat`` tensors);
the only corpus-wide quantity, the inverse document frequency of each token over the references
(``idf=True``), weights the stored maxima at the end. ``[CLS]``/``[SEP]`` (the first and the last
attended position) are left out, as in the original implementation.
"""

from __future__ import annotations

import csv
import io
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import torch
from torch import Tensor
from torch.nn import Module
from torch.nn.utils.rnn import pad_sequence

from lightning_metrics import _transformers as hf
from lightning_metrics.functional.text._inputs import TextTypeError, reference_groups, sentences
from lightning_metrics.utilities.checks import check_bool, check_optional_int
from lightning_metrics.utilities.prints import rank_zero_warn

_DEFAULT_MODEL = "roberta-large"
_BASELINE_URL = "https://raw.githubusercontent.com/Tiiiger/bert_score/master/bert_score/rescale_baseline"
_WHAT = "BERTScore"

Pairs = tuple[list[str], list[str], list[int]]


# ----------------------------------------------------------------------------- arguments
def check_arguments(
    num_layers: Any,
    all_layers: Any,
    verbose: Any,
    idf: Any,
    max_length: Any,
    batch_size: Any,
    num_threads: Any,
    return_hash: Any,
    lang: Any,
    rescale_with_baseline: Any,
    truncation: Any,
    user_forward_fn: Any,
) -> None:
    """Raise ``ValueError`` naming the first argument of BERTScore that is out of its domain."""
    for name, value in (
        ("all_layers", all_layers),
        ("verbose", verbose),
        ("idf", idf),
        ("return_hash", return_hash),
        ("rescale_with_baseline", rescale_with_baseline),
        ("truncation", truncation),
    ):
        check_bool(name, value)
    check_optional_int("num_layers", num_layers)
    for name, value, low in (
        ("max_length", max_length, 1),
        ("batch_size", batch_size, 1),
        ("num_threads", num_threads, 0),
    ):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise ValueError(f"Argument `{name}` must be an integer >= {low}, got {value!r}")
    if not isinstance(lang, str):
        raise TextTypeError(f"Argument `lang` must be a string, got {lang!r}")
    if user_forward_fn is not None and not callable(user_forward_fn):
        raise ValueError(f"Argument `user_forward_fn` must be callable, got {user_forward_fn!r}")
    if all_layers and user_forward_fn is not None:
        raise ValueError("The option `all_layers=True` can be used only with default `transformers` models.")


def text_pairs(preds: Any, target: Any) -> Pairs:
    """Predictions repeated once per reference, the references flat, and each prediction's count."""
    preds = sentences(preds, "preds")
    groups = reference_groups([target] if isinstance(target, str) else target, len(preds))
    for i, group in enumerate(groups):
        if not group:
            raise ValueError(f"Argument `target` holds no reference for the prediction at index {i}")
    flat_preds = [p for p, group in zip(preds, groups) for _ in group]
    return flat_preds, [t for group in groups for t in group], [len(group) for group in groups]


# ----------------------------------------------------------------------------- the encoder
@dataclass
class Encoder:
    """The tokenizer and model that turn sentences into normalised token embeddings."""

    tokenizer: Any
    own_tokenizer: bool
    model: Any
    forward_fn: Callable[[Module, dict[str, Tensor]], Tensor] | None
    num_layers: int | None
    all_layers: bool
    max_length: int
    truncation: bool
    batch_size: int
    device: torch.device | None
    verbose: bool

    def tokenize(self, texts: list[str]) -> tuple[Tensor, Tensor]:
        """``input_ids`` and ``attention_mask`` of ``texts`` (right-padded)."""
        if self.own_tokenizer:
            try:
                out = self.tokenizer(texts, self.max_length)
            except Exception as err:
                raise RuntimeError(f"Tokenization was not successful: {err}") from err
        else:
            # padded to the longest sentence (torchmetrics pads to max_length and trims that padding later)
            limit = {"max_length": self.max_length} if self.truncation else {}
            out = self.tokenizer(
                texts, padding=True, truncation=self.truncation, return_tensors="pt", **limit
            )
        return torch.as_tensor(out["input_ids"]), torch.as_tensor(out["attention_mask"]).long()

    def _hidden(self, input_ids: Tensor, attention_mask: Tensor) -> Tensor:
        """The model's embeddings of a batch: (batch, layers, positions, dim)."""
        if self.forward_fn is not None:
            out = self.forward_fn(self.model, {"input_ids": input_ids, "attention_mask": attention_mask})
            bs, seq_len = input_ids.shape[:2]
            if not isinstance(out, Tensor) or out.ndim != 3 or out.shape[0] != bs or out.shape[1] != seq_len:
                raise ValueError(
                    "The model output must be `Tensor` of a shape `[batch_size, seq_len, model_dim]` "
                    f"i.e. [{bs}, {seq_len}, `model_dim`], but got {getattr(out, 'shape', type(out).__name__)}."
                )
            return out.unsqueeze(1)
        hidden = self.model(input_ids, attention_mask, output_hidden_states=True).hidden_states
        if self.all_layers:
            return torch.stack(hidden, dim=1)
        return hidden[self.num_layers if self.num_layers is not None else -1].unsqueeze(1)

    def encode(
        self, input_ids: Tensor, attention_mask: Tensor
    ) -> tuple[list[Tensor], list[Tensor], list[Tensor]]:
        """Per sentence: the normalised embeddings of its scored tokens (tokens, layers, dim), their
        ids, and the ids of every attended position (the document-frequency count reads these)."""
        n = attention_mask.shape[0]
        embeddings: list[Tensor] = [torch.empty(0)] * n
        token_ids: list[Tensor] = [torch.empty(0)] * n
        attended: list[Tensor] = [torch.empty(0)] * n
        integer_ids = input_ids.ndim == 2 and not input_ids.is_floating_point()
        device = self.device or hf.model_device(self.model)
        order = attention_mask.sum(1).argsort(stable=True)
        batches = [order[i : i + self.batch_size] for i in range(0, n, self.batch_size)]
        with hf.evaluating(self.model):
            for rows in hf.progress(batches, self.verbose, "BERTScore embeddings"):
                mask = attention_mask[rows]
                width = int(mask.sum(1).max())
                ids, mask = input_ids[rows][:, :width], mask[:, :width]
                out = self._hidden(ids.to(device), mask.to(device))
                out = out / out.norm(dim=-1, keepdim=True)
                scored = _scored_positions(mask).to(out.device)
                for j, row in enumerate(rows.tolist()):
                    keep = scored[j]
                    embeddings[row] = out[j][:, keep].transpose(0, 1)
                    if integer_ids:
                        token_ids[row] = ids[j][keep.cpu()].long()
                        attended[row] = ids[j][mask[j].bool()].long()
                    else:
                        token_ids[row] = torch.zeros(int(keep.sum()), dtype=torch.long)
                        attended[row] = torch.zeros(0, dtype=torch.long)
        return embeddings, token_ids, attended


def _scored_positions(attention_mask: Tensor) -> Tensor:
    """The attended positions but the first ([CLS]) and the last attended one ([SEP]), as torchmetrics
    finds them (the last maximum of the running count of attended positions)."""
    mask = attention_mask.clone()
    mask[:, 0] = 0
    last = torch.cumsum(mask - 0.1, dim=-1).argmax(-1)
    mask[torch.arange(mask.shape[0]), last] = 0
    return mask.bool()


def build_encoder(
    model_name_or_path: str | None,
    model: Module | None,
    user_tokenizer: Any,
    user_forward_fn: Callable | None,
    num_layers: int | None,
    all_layers: bool,
    max_length: int,
    truncation: bool,
    batch_size: int,
    device: str | torch.device | None,
    verbose: bool,
    own_call: bool = True,
) -> Encoder:
    """Load what is not given (tokenizer, model: by ``model_name_or_path``, default roberta-large).

    A user's tokenizer is called as ``tokenizer(sentences, max_length)`` (``own_call``, the modular
    metric) or as a transformers tokenizer (the function), as torchmetrics calls it in each.
    """
    if (user_tokenizer is None or model is None) and model_name_or_path is None:
        rank_zero_warn(
            "The argument `model_name_or_path` was not specified while it is required when the default"
            f" `transformers` model is used. It will use the default recommended model - {_DEFAULT_MODEL!r}."
        )
    name = model_name_or_path or _DEFAULT_MODEL
    tokenizer = user_tokenizer if user_tokenizer is not None else hf.load(_WHAT, "AutoTokenizer", name)
    if model is None:
        model = hf.frozen(hf.load(_WHAT, "AutoModel", name))
    if device is not None:
        device = torch.device(device)
        model.to(device)
    layers = getattr(getattr(model, "config", None), "num_hidden_layers", None)
    if isinstance(layers, int) and num_layers and num_layers > layers:
        raise ValueError(
            f"Argument `num_layers`={num_layers} is more than the {layers} layers of {name!r}:"
            f" use num_layers <= {layers}"
        )
    return Encoder(
        tokenizer,
        own_call and user_tokenizer is not None,
        model,
        user_forward_fn,
        num_layers,
        all_layers,
        max_length,
        truncation,
        batch_size,
        device,
        verbose,
    )


# ----------------------------------------------------------------------------- per pair
def pair_maxima(
    preds: list[Tensor], target: list[Tensor], chunk: int = 64
) -> tuple[list[Tensor], list[Tensor]]:
    """For each pair: every scored prediction token's best similarity among the reference tokens, and
    every reference token's among the prediction tokens, per layer ((tokens, layers) each).

    The excluded [CLS] position of either sentence is a zero vector in torchmetrics' matching, so a
    best similarity is never below 0 (the zero padding of the chunks here gives the same floor).
    """
    precision: list[Tensor] = []
    recall: list[Tensor] = []
    for start in range(0, len(preds), chunk):
        p_list, t_list = preds[start : start + chunk], target[start : start + chunk]
        p = pad_sequence(p_list, batch_first=True)  # (pairs, tokens, layers, dim)
        t = pad_sequence(t_list, batch_first=True)
        if p.shape[1] == 0 or t.shape[1] == 0:
            p_best = p.new_zeros(p.shape[:3])
            t_best = t.new_zeros(t.shape[:3])
        else:
            sim = torch.einsum("bpld,btld->blpt", p, t)
            p_best = sim.max(dim=3).values.clamp_min(0).transpose(1, 2)  # (pairs, p tokens, layers)
            t_best = sim.max(dim=2).values.clamp_min(0).transpose(1, 2)
        for j, (pe, te) in enumerate(zip(p_list, t_list)):
            precision.append(p_best[j, : pe.shape[0]].float())
            recall.append(t_best[j, : te.shape[0]].float())
    return precision, recall


def document_ids(attended: list[Tensor]) -> Tensor:
    """Each reference's distinct token ids, one after the other (a document-frequency count's input)."""
    return (
        torch.cat([torch.unique(ids) for ids in attended]) if attended else torch.zeros(0, dtype=torch.long)
    )


# ----------------------------------------------------------------------------- scores
def idf_table(doc_ids: Tensor, num_docs: int, size: int) -> Tensor:
    """``log((N + 1) / (df + 1))`` of every token id below ``size`` (float32, as torchmetrics rounds it)."""
    df = torch.bincount(doc_ids, minlength=size)[:size].double()
    return torch.log((num_docs + 1) / (df + 1)).float()


def _weighted(maxima: Tensor, weights: Tensor, lengths: Tensor) -> Tensor:
    """Per sentence: the weights normalised to sum 1 over its tokens, times its maxima, summed."""
    n = lengths.numel()
    segment = torch.repeat_interleave(torch.arange(n, device=lengths.device), lengths)
    total = torch.zeros(n, dtype=weights.dtype, device=weights.device).index_add_(0, segment, weights)
    scaled = (weights / total[segment]).unsqueeze(-1) * maxima
    out = torch.zeros(n, maxima.shape[-1], dtype=maxima.dtype, device=maxima.device).index_add_(
        0, segment, scaled
    )
    return out.masked_fill(
        (total == 0).unsqueeze(-1), float("nan")
    )  # no scored token: 0 / 0, as torchmetrics


def scores(
    preds_ids: Tensor,
    preds_maxima: Tensor,
    preds_lengths: Tensor,
    target_ids: Tensor,
    target_maxima: Tensor,
    target_lengths: Tensor,
    doc_ids: Tensor,
    num_references: Tensor,
    idf: bool,
    baseline: Tensor | None = None,
    num_layers: int | None = None,
    all_layers: bool = False,
) -> tuple[Tensor, Tensor, Tensor]:
    """Precision, recall and F1 from the stored per-token maxima, as torchmetrics lays them out."""
    if idf:
        size = max((int(x.max()) + 1 for x in (preds_ids, target_ids, doc_ids) if x.numel()), default=1)
        table = idf_table(doc_ids, target_lengths.numel(), size).to(preds_maxima.device)
        preds_w, target_w = table[preds_ids], table[target_ids]
    else:
        preds_w = torch.ones(preds_ids.shape, dtype=preds_maxima.dtype, device=preds_maxima.device)
        target_w = torch.ones(target_ids.shape, dtype=target_maxima.dtype, device=target_maxima.device)
    precision = _weighted(preds_maxima, preds_w, preds_lengths).T.squeeze()  # (layers, pairs), squeezed
    recall = _weighted(target_maxima, target_w, target_lengths).T.squeeze()
    f1 = 2 * precision * recall / (precision + recall)
    f1 = f1.masked_fill(torch.isnan(f1), 0.0)
    if baseline is not None:
        precision, recall, f1 = _rescale(
            precision, recall, f1, baseline.to(precision.device), num_layers, all_layers
        )
    if bool((num_references != 1).any()):
        precision, recall, f1 = (_best_reference(x, num_references) for x in (precision, recall, f1))
    return precision, recall, f1


def _rescale(
    precision: Tensor, recall: Tensor, f1: Tensor, baseline: Tensor, num_layers: int | None, all_layers: bool
) -> tuple[Tensor, Tensor, Tensor]:
    if num_layers is None and not all_layers:
        num_layers = -1
    stacked = torch.stack([precision, recall, f1], dim=-1)
    scale = baseline.unsqueeze(1) if all_layers else baseline[num_layers]
    stacked = (stacked - scale) / (1 - scale)
    return stacked[..., 0], stacked[..., 1], stacked[..., 2]


def _best_reference(values: Tensor, num_references: Tensor) -> Tensor:
    """The best value over each prediction's references (along the pairs axis, the last one)."""
    values = values.reshape(-1) if values.ndim == 0 else values
    bounds = torch.cumsum(num_references, 0).tolist()
    starts = [0, *bounds[:-1]]
    return torch.stack([values[..., s:e].max(dim=-1).values for s, e in zip(starts, bounds)], dim=-1)


# ----------------------------------------------------------------------------- baseline
def _parse_baseline(text: str, source: str) -> Tensor:
    rows = []
    for i, row in enumerate(csv.reader(io.StringIO(text))):
        if i == 0 or not row:
            continue
        fields = row if len(row) > 1 else row[0].split()  # a tab-separated file is read as well
        try:
            rows.append([float(item) for item in fields])
        except ValueError as err:
            raise ValueError(f"The BERTScore baseline {source} has a malformed row {i}: {row!r}") from err
    if not rows or len({len(r) for r in rows}) != 1 or len(rows[0]) != 4:
        raise ValueError(
            f"The BERTScore baseline {source} must have a header row, then one row per layer: layer, P, R, F"
        )
    return torch.tensor(rows)[:, 1:]


def load_baseline(
    lang: str, model_name_or_path: str | None, baseline_path: str | None, baseline_url: str | None
) -> Tensor | None:
    """The baseline (layers x [P, R, F]) from ``baseline_path``, ``baseline_url`` or bert-score's
    published file for ``lang`` and the model name; ``None`` (with a warning) without any of them."""
    if baseline_path:
        with open(baseline_path) as f:
            return _parse_baseline(f.read(), f"file {baseline_path!r}")
    if not baseline_url:
        if not (lang and model_name_or_path):
            rank_zero_warn("Baseline was not successfully loaded. No baseline is going to be used.")
            return None
        baseline_url = f"{_BASELINE_URL}/{lang}/{model_name_or_path}.tsv"
    try:
        with urllib.request.urlopen(baseline_url, timeout=30) as response:
            text = response.read().decode("utf-8")
    except (urllib.error.URLError, OSError, ValueError) as err:
        raise OSError(
            f"Could not download the BERTScore baseline from {baseline_url} ({err}). Download that file once and "
            "pass its path as `baseline_path` (a header row, then one row per layer: layer, P, R, F)."
        ) from err
    return _parse_baseline(text, f"at {baseline_url}")


def get_hash(model_name_or_path: str | None = None, num_layers: int | None = None, idf: bool = False) -> str:
    """The configuration's hash code, as the original bert-score names it."""
    return f"{model_name_or_path}_L{num_layers}{'_idf' if idf else '_no-idf'}"


def empty_output(
    return_hash: bool, model_name_or_path: str | None, num_layers: int | None, idf: bool
) -> dict:
    rank_zero_warn("Predictions and references are empty.")
    out: dict[str, Any] = {"precision": [0.0], "recall": [0.0], "f1": [0.0]}
    if return_hash:
        out["hash"] = get_hash(model_name_or_path, num_layers, idf)
    return out


def sentence_states(
    encoder: Encoder, preds: tuple[Tensor, Tensor], target: tuple[Tensor, Tensor]
) -> dict[str, Tensor]:
    """What the modular metric stores for a batch of pairs (tokenized): ids, maxima, lengths."""
    p_emb, p_ids, _ = encoder.encode(*preds)
    t_emb, t_ids, t_attended = encoder.encode(*target)
    p_best, t_best = pair_maxima(p_emb, t_emb, encoder.batch_size)
    layers = p_emb[0].shape[1] if p_emb else 1
    return {
        "preds_ids": torch.cat(p_ids) if p_ids else torch.zeros(0, dtype=torch.long),
        "preds_maxima": torch.cat(p_best) if p_best else torch.zeros(0, layers),
        "preds_lengths": torch.tensor([len(x) for x in p_ids], dtype=torch.long),
        "target_ids": torch.cat(t_ids) if t_ids else torch.zeros(0, dtype=torch.long),
        "target_maxima": torch.cat(t_best) if t_best else torch.zeros(0, layers),
        "target_lengths": torch.tensor([len(x) for x in t_ids], dtype=torch.long),
        "target_documents": document_ids(t_attended),
    }


def bert_score(
    preds: str | Sequence[str] | dict[str, Tensor],
    target: str | Sequence[str] | Sequence[Sequence[str]] | dict[str, Tensor],
    model_name_or_path: str | None = None,
    num_layers: int | None = None,
    all_layers: bool = False,
    model: Module | None = None,
    user_tokenizer: Any = None,
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
) -> dict[str, Tensor | list[float] | str]:
    """BERTScore precision, recall and F1 of each prediction against its reference(s).

    ``model_name_or_path`` names any ``transformers`` model (``AutoModel``/``AutoTokenizer``; default
    ``roberta-large``), or give ``model`` with ``user_tokenizer`` (called as a transformers tokenizer,
    ``user_tokenizer(sentences, padding=True, truncation=..., return_tensors="pt")``, as torchmetrics'
    function calls it; it returns ``input_ids`` and ``attention_mask``) and optionally ``user_forward_fn``
    (``fn(model, batch) -> (batch, seq_len, dim)``). ``preds``/``target`` may also be dicts of
    ``input_ids`` and ``attention_mask``. Several references per prediction score the best one.
    ``idf=True`` weights tokens by their inverse document frequency over the references;
    ``rescale_with_baseline=True`` rescales with ``baseline_path``, ``baseline_url`` or the original
    package's published baseline for ``lang`` and the model name (downloaded). ``num_threads`` is
    accepted for torchmetrics' signature (batches are built in process).

    Returns ``{"precision", "recall", "f1"}`` (one value per prediction; per layer and prediction with
    ``all_layers=True``), plus ``"hash"`` with ``return_hash=True``.

    >>> import torch, tempfile, os
    >>> from transformers import BertConfig, BertModel, BertTokenizer
    >>> folder = tempfile.mkdtemp()
    >>> with open(os.path.join(folder, "vocab.txt"), "w") as f:
    ...     _ = f.write("\\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "the", "cat", "sat", "a", "dog"]))
    >>> tokenizer = BertTokenizer(os.path.join(folder, "vocab.txt"))
    >>> _ = torch.manual_seed(0)
    >>> model = BertModel(BertConfig(vocab_size=9, hidden_size=16, num_hidden_layers=2, num_attention_heads=2,
    ...                              intermediate_size=32))
    >>> out = bert_score(["the cat sat"], [["a dog sat", "the cat sat"]], model=model, user_tokenizer=tokenizer)
    >>> out["f1"]
    tensor([1.0000])
    >>> bert_score(["hello"], ["hello"], model_name_or_path="roberta-large")  # doctest: +SKIP
    """
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
    if isinstance(preds, dict) or isinstance(target, dict):
        if not (isinstance(preds, dict) and isinstance(target, dict)):
            raise TextTypeError(
                "Arguments `preds` and `target` must both be strings or both be tokenized dicts"
            )
        tokenized = [
            (torch.as_tensor(x["input_ids"]), torch.as_tensor(x["attention_mask"]).long())
            for x in (preds, target)
        ]
        if tokenized[0][0].shape[0] != tokenized[1][0].shape[0]:
            raise ValueError(
                "Expected number of predicted and reference sentences to be the same, but got "
                f"{tokenized[0][0].shape[0]} and {tokenized[1][0].shape[0]}"
            )
        num_references = torch.ones(tokenized[0][0].shape[0], dtype=torch.long)
        texts = None
    else:
        flat_preds, flat_target, counts = text_pairs(preds, target)
        num_references = torch.tensor(counts, dtype=torch.long)
        texts = (flat_preds, flat_target)
    if num_references.numel() == 0:
        return empty_output(return_hash, model_name_or_path, num_layers, idf)
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
        own_call=False,
    )
    baseline = (
        load_baseline(lang, model_name_or_path, baseline_path, baseline_url)
        if rescale_with_baseline
        else None
    )
    if texts is not None:
        tokenized = [encoder.tokenize(t) for t in texts]
    if idf and tokenized[0][0].is_floating_point():
        raise ValueError("`idf=True` needs integer `input_ids` (token ids) from the tokenizer")
    s = sentence_states(encoder, tokenized[0], tokenized[1])
    precision, recall, f1 = scores(
        s["preds_ids"],
        s["preds_maxima"],
        s["preds_lengths"],
        s["target_ids"],
        s["target_maxima"],
        s["target_lengths"],
        s["target_documents"],
        num_references,
        idf,
        baseline,
        num_layers,
        all_layers,
    )
    out: dict[str, Any] = {"precision": precision, "recall": recall, "f1": f1}
    if return_hash:
        out["hash"] = get_hash(model_name_or_path, num_layers, idf)
    return out
