"""Perplexity, SQuAD and EED against torchmetrics 1.9; perplexity against its definition, SQuAD against
the official v1.1 evaluation formulas (written out below)."""

from __future__ import annotations

import re
import string
from collections import Counter

import pytest
import torch
import torchmetrics.functional.text as TF
import torchmetrics.text as TM

import lightning_metrics.functional.text as F
import lightning_metrics.text as M
from tests.text._corpora import corpus, edge_cases, real
from tests.text._helpers import assert_same, in_batches


# ------------------------------------------------------------------ perplexity
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16], ids=str)
@pytest.mark.parametrize("ignore_index", [None, -100, 2])
def test_perplexity_equals_torchmetrics(dtype: torch.dtype, ignore_index: int | None) -> None:
    gen = torch.Generator().manual_seed(3)
    batches = []
    for n in (3, 1, 4):
        preds = (torch.randn(n, 7, 11, generator=gen) * 3).to(dtype)
        target = torch.randint(0, 11, (n, 7), generator=gen)
        if ignore_index == -100:
            target[:, -2:] = -100
        batches.append((preds, target))
    half = dtype in (torch.float16, torch.bfloat16)
    rtol = {torch.float16: 1e-3, torch.bfloat16: 8e-3}.get(dtype, 1e-5)
    for preds, target in batches:
        ours = F.perplexity(preds, target, ignore_index)
        theirs = TF.perplexity(preds, target, ignore_index)
        if (
            half
        ):  # torchmetrics' softmax runs in half precision; ours in float64: compare with its float64 value
            assert ours.dtype == theirs.dtype
            theirs = TF.perplexity(preds.double(), target, ignore_index).to(dtype)
        assert_same(ours, theirs, rtol=rtol)
    ours, theirs = M.Perplexity(ignore_index), TM.Perplexity(ignore_index)
    for preds, target in batches:
        ours.update(preds, target)
        theirs.update(preds.double() if half else preds, target)
    assert_same(ours.compute(), theirs.compute(), rtol=rtol)


def test_perplexity_is_exp_of_the_mean_negative_log_likelihood() -> None:
    gen = torch.Generator().manual_seed(0)
    logits = torch.randn(4, 5, 6, generator=gen, dtype=torch.float64)
    target = torch.randint(0, 6, (4, 5), generator=gen)
    nll = -torch.log_softmax(logits, -1).gather(-1, target[..., None]).mean()
    assert F.perplexity(logits, target).item() == pytest.approx(torch.exp(nll).item(), rel=1e-12)
    # a token whose probability underflows in float32: torchmetrics (softmax, then log) gives inf
    logits = torch.tensor([[[0.0, -200.0]]])
    assert torch.isinf(TF.perplexity(logits, torch.tensor([[1]])))
    assert F.perplexity(logits, torch.tensor([[1]])).item() == pytest.approx(
        torch.exp(torch.tensor(200.0)).item(), rel=1e-5
    )


def test_perplexity_is_differentiable() -> None:
    logits = torch.randn(2, 3, 4, requires_grad=True)
    F.perplexity(logits, torch.tensor([[0, 1, 2], [3, 2, 1]])).backward()
    assert logits.grad is not None and torch.isfinite(logits.grad).all()


# ------------------------------------------------------------------ SQuAD (official v1.1 formulas)
def _official_normalize(s: str) -> str:
    s = s.lower()
    s = "".join(ch for ch in s if ch not in set(string.punctuation))
    s = re.sub(r"\b(a|an|the)\b", " ", s)
    return " ".join(s.split())


def _official_f1(prediction: str, truth: str) -> float:
    pred, gold = _official_normalize(prediction).split(), _official_normalize(truth).split()
    common = Counter(pred) & Counter(gold)
    same = sum(common.values())
    if same == 0:
        return 0.0
    precision, recall = same / len(pred), same / len(gold)
    return 2 * precision * recall / (precision + recall)


def _official(preds: list[dict], target: list[dict]) -> dict[str, float]:
    answers = {p["id"]: p["prediction_text"] for p in preds}
    em = f1 = 0.0
    for t in target:
        truths = t["answers"]["text"]
        em += max(float(_official_normalize(answers[t["id"]]) == _official_normalize(g)) for g in truths)
        f1 += max(_official_f1(answers[t["id"]], g) for g in truths)
    return {"exact_match": 100 * em / len(target), "f1": 100 * f1 / len(target)}


def _squad_corpus(seed: int) -> tuple[list[dict], list[dict]]:
    preds, target = corpus(seed, n=12, high=6)
    preds = [p if p.split() else "x" for p in preds]  # SQuAD v1.1's F1 divides by the token counts
    target = [[r if _official_normalize(r) else "y" for r in refs] for refs in target]
    return (
        [{"prediction_text": p, "id": f"q{i}"} for i, p in enumerate(preds)],
        [{"answers": {"answer_start": [0] * len(t), "text": t}, "id": f"q{i}"} for i, t in enumerate(target)],
    )


@pytest.mark.parametrize("seed", range(3))
def test_squad_equals_official_formulas_and_torchmetrics(seed: int) -> None:
    preds, target = _squad_corpus(seed)
    expected = _official(preds, target)
    ours = F.squad(preds, target)
    for key in ("exact_match", "f1"):
        assert ours[key].item() == pytest.approx(expected[key], rel=1e-6)
    assert_same(ours, TF.squad(preds, target), rtol=1e-5)
    metric, theirs = M.SQuAD(), TM.SQuAD()
    for i in range(0, 12, 5):
        metric.update(preds[i : i + 5], target[i : i + 5])
        theirs.update(preds[i : i + 5], target[i : i + 5])
    assert_same(metric.compute(), theirs.compute(), rtol=1e-5)


def test_squad_unanswered_and_empty_answers() -> None:
    preds = [{"prediction_text": "", "id": "a"}, {"prediction_text": "the", "id": "b"}]
    target = [
        {"answers": {"text": [""]}, "id": "a"},
        {"answers": {"text": ["an"]}, "id": "b"},
        {"answers": {"text": ["x"]}, "id": "c"},
    ]
    with pytest.warns(UserWarning, match="Unanswered question c"):
        ours = F.squad(preds, target)
    with pytest.warns(UserWarning):
        assert_same(ours, TF.squad(preds, target))


# ------------------------------------------------------------------ EED
EED_CORPORA = (
    [corpus(seed, n=6, high=8) for seed in range(3)]
    + [real()]
    + [c for c in edge_cases() if all(t for t in c[1])][:8]
)


@pytest.mark.parametrize(
    "args",
    [
        {},
        {"language": "ja"},
        {"alpha": 1.0, "rho": 0.5, "deletion": 0.5, "insertion": 0.7},
        {"rho": 0.0, "deletion": 0.0},
    ],
    ids=["default", "ja", "weights", "no-coverage"],
)
def test_eed_equals_torchmetrics(args: dict) -> None:
    for preds, target in EED_CORPORA:
        if args.get("rho") == 0.0 and any(not t.strip() for g in target for t in g):
            continue  # torchmetrics divides by zero on an empty reference without coverage
        ours = F.extended_edit_distance(preds, target, **args, return_sentence_level_score=True)
        theirs = TF.extended_edit_distance(preds, target, **args, return_sentence_level_score=True)
        assert_same(
            ours, (theirs[0], theirs[1].float()), rtol=1e-6
        )  # its sentence scores are int64 when all are 1
    preds = [p for c in EED_CORPORA[:4] for p in c[0]]
    target = [t for c in EED_CORPORA[:4] for t in c[1]]
    ours = in_batches(M.ExtendedEditDistance(**args), preds, target, (2, 5))
    assert_same(ours, in_batches(TM.ExtendedEditDistance(**args), preds, target, (4,)))
