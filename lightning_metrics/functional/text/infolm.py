"""InfoLM: a divergence between the masked-language-model distributions of two sentences
(torchmetrics' ``infolm``).

A sentence's distribution is the mean, over its tokens (``[CLS]``, ``[SEP]`` and padding left out),
of the model's distribution of the vocabulary at that position when the token is masked, at
``temperature``; with ``idf=True`` the mean is weighted by each token's inverse document frequency
in its own corpus (the predictions', the references'). The information measure compares the
prediction's and the reference's distributions.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from typing import Any, Literal, get_args

import torch
from torch import Tensor
from torch.nn import functional as nnf

from lightning_metrics import _transformers as hf
from lightning_metrics.functional.text._inputs import paired_sentences
from lightning_metrics.utilities.checks import check_bool, check_choice

_ALLOWED_INFORMATION_MEASURE_LITERAL = Literal[
    "kl_divergence",
    "alpha_divergence",
    "beta_divergence",
    "ab_divergence",
    "renyi_divergence",
    "l1_distance",
    "l2_distance",
    "l_infinity_distance",
    "fisher_rao_distance",
]
MEASURES = get_args(_ALLOWED_INFORMATION_MEASURE_LITERAL)
_WHAT = "InfoLM"
# transformers < 5 gave every configuration ``max_length=20`` (a generation default), torchmetrics' default here
_CONFIG_MAX_LENGTH = 20


class InformationMeasure:
    """One of InfoLM's measures between two batches of distributions (rows), NaN and inf made finite.

    >>> p, q = torch.tensor([[0.5, 0.5]]), torch.tensor([[0.9, 0.1]])
    >>> InformationMeasure("l1_distance")(p, q)
    tensor([0.8000])
    >>> InformationMeasure("alpha_divergence", alpha=1.0)
    Traceback (most recent call last):
    ...
    ValueError: Argument `alpha` must be a float other than 0 and 1 for 'alpha_divergence', got 1.0
    """

    def __init__(
        self, information_measure: str, alpha: float | None = None, beta: float | None = None
    ) -> None:
        check_choice("information_measure", information_measure, MEASURES)
        for name, value in (("alpha", alpha), ("beta", beta)):
            if value is not None and not isinstance(value, float):
                raise ValueError(f"Argument `{name}` must be None or a float, got {value!r}")
        needs = {
            "alpha_divergence": ("alpha", (0.0, 1.0)),
            "renyi_divergence": ("alpha", (1.0,)),
            "beta_divergence": ("beta", (0.0, -1.0)),
        }
        if information_measure in needs:
            name, forbidden = needs[information_measure]
            value = alpha if name == "alpha" else beta
            if value is None or value in forbidden:
                others = " and ".join(f"{f:g}" for f in forbidden)
                raise ValueError(
                    f"Argument `{name}` must be a float other than {others} for {information_measure!r}, got {value!r}"
                )
        if information_measure == "ab_divergence" and (
            alpha is None or beta is None or 0 in (alpha, beta, alpha + beta)
        ):
            raise ValueError(
                "Arguments `alpha`, `beta` and their sum must be floats other than 0 for 'ab_divergence', "
                f"got alpha={alpha!r}, beta={beta!r}"
            )
        self.information_measure = information_measure
        self.alpha = 1.0 if information_measure == "beta_divergence" else (alpha or 0)
        self.beta = beta or 0

    def __call__(self, preds: Tensor, target: Tensor) -> Tensor:
        a, b = self.alpha, self.beta
        name = self.information_measure
        if name == "kl_divergence":
            out = torch.sum(target * torch.log(preds / target), dim=-1)
        elif name == "alpha_divergence":
            out = (1 - torch.sum(target**a * preds ** (1 - a), dim=-1)) / (a * (a - 1))
        elif name in ("ab_divergence", "beta_divergence"):
            first = torch.log(torch.sum(target ** (b + a), dim=-1)) / (b * (b + a))
            second = torch.log(torch.sum(preds ** (b + a), dim=-1)) / (a * (b + a))
            third = torch.log(torch.sum(target**a * preds**b, dim=-1)) / (a * b)
            out = first + second - third
        elif name == "renyi_divergence":
            out = torch.log(torch.sum(target**a * preds ** (1 - a), dim=-1)) / (a - 1)
        elif name == "fisher_rao_distance":
            out = 2 * torch.acos(torch.clamp(torch.sqrt(preds * target).sum(-1), 0, 1))
        else:
            order = {"l1_distance": 1, "l2_distance": 2, "l_infinity_distance": float("inf")}[name]
            out = torch.linalg.vector_norm(target - preds, ord=order, dim=-1)
        return torch.nan_to_num(out)


def check_arguments(
    temperature: Any,
    idf: Any,
    max_length: Any,
    batch_size: Any,
    num_threads: Any,
    verbose: Any,
    return_sentence_level_score: Any,
) -> None:
    """Raise ``ValueError`` naming the first argument of InfoLM out of its domain."""
    if isinstance(temperature, bool) or not isinstance(temperature, (int, float)) or not temperature > 0:
        raise ValueError(f"Argument `temperature` must be a positive number, got {temperature!r}")
    for name, value in (
        ("idf", idf),
        ("verbose", verbose),
        ("return_sentence_level_score", return_sentence_level_score),
    ):
        check_bool(name, value)
    for name, value, low, optional in (
        ("max_length", max_length, 1, True),
        ("batch_size", batch_size, 1, False),
        ("num_threads", num_threads, 0, False),
    ):
        if optional and value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise ValueError(f"Argument `{name}` must be an integer >= {low}, got {value!r}")


def load_masked_lm(model_name_or_path: str | os.PathLike, device: str | torch.device | None) -> tuple:
    """The tokenizer and the masked language model (evaluation mode, frozen, on ``device``)."""
    tokenizer = hf.load(_WHAT, "AutoTokenizer", model_name_or_path)
    model = hf.frozen(hf.load(_WHAT, "AutoModelForMaskedLM", model_name_or_path))
    if device is not None:
        model.to(device)
    for name in ("mask_token_id", "pad_token_id"):
        if getattr(tokenizer, name, None) is None:
            raise ValueError(
                f"InfoLM needs a tokenizer with a `{name}`; {str(model_name_or_path)!r} has none"
            )
    return tokenizer, model


def default_max_length(model: Any, max_length: int | None) -> int:
    return max_length or getattr(model.config, "max_length", None) or _CONFIG_MAX_LENGTH


def special_ids(tokenizer: Any) -> tuple[int, ...]:
    """The ids left out of a sentence's distribution: padding, [SEP] and [CLS]."""
    return tuple(
        i for i in (tokenizer.pad_token_id, tokenizer.sep_token_id, tokenizer.cls_token_id) if i is not None
    )


def tokenize(tokenizer: Any, texts: list[str], max_length: int) -> tuple[Tensor, Tensor]:
    """Right-padded ids and attention mask, truncated to ``max_length`` tokens."""
    out = tokenizer(texts, padding=True, max_length=max_length, truncation=True, return_tensors="pt")
    return out["input_ids"], out["attention_mask"].long()


def idf_weights(input_ids: Tensor, attention_mask: Tensor) -> Tensor:
    """Each position's token weight ``log((N + 1) / (df + 1))`` over the corpus of these N rows."""
    n = input_ids.shape[0]
    size = int(input_ids.max()) + 1 if input_ids.numel() else 1
    df = torch.zeros(size, dtype=torch.float64)
    for row, mask in zip(input_ids, attention_mask):
        df[torch.unique(row[mask.bool()])] += 1
    table = torch.tensor([math.log((n + 1) / (c + 1)) for c in df.tolist()], dtype=torch.float32)
    return table[input_ids]


def distributions(
    model: Any,
    input_ids: Tensor,
    attention_mask: Tensor,
    weights: Tensor | None,
    temperature: float,
    mask_token_id: int,
    special: tuple[int, ...],
    batch_size: int,
    verbose: bool = False,
) -> Tensor:
    """Per sentence: the (weighted) mean over its tokens of the model's distribution with the token masked."""
    n = input_ids.shape[0]
    device = hf.model_device(model)
    token_mask = ~torch.isin(input_ids, torch.tensor(special, dtype=input_ids.dtype))
    order = attention_mask.sum(1).argsort(stable=True)
    out: list[Tensor | None] = [None] * n
    with hf.evaluating(model):
        for rows in hf.progress(
            [order[i : i + batch_size] for i in range(0, n, batch_size)], verbose, "InfoLM"
        ):
            width = int(attention_mask[rows].sum(1).max())
            ids, mask = input_ids[rows][:, :width].to(device), attention_mask[rows][:, :width].to(device)
            tokens = token_mask[rows][:, :width].to(device)
            w = weights[rows][:, :width].to(device) if weights is not None else tokens.float()
            total: Tensor | None = None
            for position in range(width):
                live = tokens[:, position].nonzero().flatten()
                if live.numel() == 0:
                    continue
                masked = ids[live].clone()
                masked[:, position] = mask_token_id
                logits = model(masked, mask[live]).logits[:, position, :]
                probs = nnf.softmax(logits / temperature, dim=-1) * w[live, position].unsqueeze(1)
                if total is None:
                    total = torch.zeros(len(rows), probs.shape[-1], dtype=probs.dtype, device=device)
                total.index_add_(0, live, probs)
            denominator = (w * tokens).sum(1, keepdim=True)
            if total is None:  # no token in the whole batch: 0 / 0
                vocab = getattr(model.config, "vocab_size", 1)
                total = torch.zeros(len(rows), vocab, device=device)
            result = (total / denominator).cpu()
            for j, row in enumerate(rows.tolist()):
                out[row] = result[j]
    return torch.stack(out) if n else torch.zeros(0, 0)  # type: ignore[arg-type]


def sentence_scores(
    model: Any,
    tokenizer: Any,
    preds: tuple[Tensor, Tensor],
    target: tuple[Tensor, Tensor],
    temperature: float,
    idf: bool,
    measure: InformationMeasure,
    batch_size: int,
    verbose: bool,
) -> Tensor:
    """The measure of every pair (tokenized); with ``idf``, each side weighted over its own sentences."""
    special = special_ids(tokenizer)
    sides = []
    for ids, mask in (preds, target):
        weights = idf_weights(ids, mask) if idf else None
        sides.append(
            distributions(
                model, ids, mask, weights, temperature, tokenizer.mask_token_id, special, batch_size, verbose
            )
        )
    return measure(sides[0], sides[1])


def infolm(
    preds: str | Sequence[str],
    target: str | Sequence[str],
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
) -> Tensor | tuple[Tensor, Tensor]:
    """InfoLM of predictions against references with a masked language model (``AutoModelForMaskedLM``).

    ``information_measure`` is one of ``kl_divergence``, ``alpha_divergence`` (``alpha``),
    ``beta_divergence`` (``beta``), ``ab_divergence`` (``alpha``, ``beta``), ``renyi_divergence``
    (``alpha``), ``l1_distance``, ``l2_distance``, ``l_infinity_distance``, ``fisher_rao_distance``.
    ``max_length`` defaults to the model configuration's (20 where it has none, the value transformers
    4 gave every configuration). ``num_threads`` is accepted for torchmetrics' signature. Returns the
    corpus mean, and the per-pair values as well with ``return_sentence_level_score=True``.

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
    >>> infolm(["he read the book"], ["he read a book"], model_name_or_path=folder, idf=False, verbose=False)
    tensor(-0.0...)
    >>> infolm(["he read the book"], ["he read a book"], model_name_or_path="google-bert/bert-base-uncased")  # doctest: +SKIP
    """
    check_arguments(
        temperature, idf, max_length, batch_size, num_threads, verbose, return_sentence_level_score
    )
    measure = InformationMeasure(information_measure, alpha, beta)
    preds, target = paired_sentences(preds, target)
    tokenizer, model = load_masked_lm(model_name_or_path, device)
    max_length = default_max_length(model, max_length)
    scores = sentence_scores(
        model,
        tokenizer,
        tokenize(tokenizer, preds, max_length),
        tokenize(tokenizer, target, max_length),
        temperature,
        idf,
        measure,
        batch_size,
        verbose,
    )
    if return_sentence_level_score:
        return scores.mean(), scores
    return scores.mean()
