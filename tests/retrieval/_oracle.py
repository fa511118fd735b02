"""Brute-force retrieval measures: a Python loop over queries and documents, from the definitions.

Written independently of the package (plain floats and lists). Order within a query: score
descending, and among equal scores a non-relevant document before a relevant one (the package's
documented tie order). Conventions that are torchmetrics 1.9's, not the textbook's, are marked.
"""

from __future__ import annotations

import math
import statistics
from typing import Any, Callable, Optional

import torch

Doc = tuple[float, float]  # (score, target)


def ranked(docs: list[Doc]) -> list[Doc]:
    return sorted(docs, key=lambda d: (-d[0], d[1] > 0))


def _cut(docs: list[Doc], k: Optional[int]) -> list[Doc]:
    return docs if k is None else docs[:k]


def average_precision(docs: list[Doc], top_k: Optional[int]) -> float:
    # torchmetrics 1.9: a document scored <= 0 is not retrieved; the mean is over retrieved hits
    hits, found, total = 0, 0, 0.0
    for i, (score, rel) in enumerate(_cut(ranked(docs), top_k)):
        if rel > 0 and score > 0:
            found += 1
            total += found / (i + 1)
            hits += 1
    return total / hits if hits else 0.0


def reciprocal_rank(docs: list[Doc], top_k: Optional[int]) -> float:
    for i, (score, rel) in enumerate(_cut(ranked(docs), top_k)):
        if rel > 0 and score > 0:
            return 1.0 / (i + 1)
    return 0.0


def precision(docs: list[Doc], top_k: Optional[int], adaptive_k: bool) -> float:
    k = len(docs) if top_k is None or (adaptive_k and top_k > len(docs)) else top_k
    return sum(1 for s, r in ranked(docs)[:k] if r > 0 and s > 0) / k


def recall(docs: list[Doc], top_k: Optional[int]) -> float:
    relevant = sum(r for _, r in docs)
    hits = sum(1 for s, r in _cut(ranked(docs), top_k) if r > 0 and s > 0)
    return hits / relevant if relevant else 0.0


def fall_out(docs: list[Doc], top_k: Optional[int]) -> float:
    negatives = sum(1 for _, r in docs if r == 0)
    found = sum(1 for _, r in _cut(ranked(docs), top_k) if r == 0)
    return found / negatives if negatives else 0.0


def hit_rate(docs: list[Doc], top_k: Optional[int]) -> float:
    return float(any(r > 0 for _, r in _cut(ranked(docs), top_k)))


def r_precision(docs: list[Doc]) -> float:
    relevant = int(sum(1 for _, r in docs if r > 0))
    if not relevant:
        return 0.0
    return sum(1 for _, r in ranked(docs)[:relevant] if r > 0) / relevant


def _discount(i: int, top_k: Optional[int]) -> float:
    return 0.0 if top_k is not None and i >= top_k else 1.0 / math.log2(i + 2)


def ndcg(docs: list[Doc], top_k: Optional[int]) -> float:
    order = ranked(docs)
    gain, i = 0.0, 0
    while i < len(order):  # a tie group shares its mean gain over its positions
        j = i
        while j < len(order) and order[j][0] == order[i][0]:
            j += 1
        mean = sum(r for _, r in order[i:j]) / (j - i)
        gain += mean * sum(_discount(p, top_k) for p in range(i, j))
        i = j
    ideal = sum(r * _discount(p, top_k) for p, r in enumerate(sorted((r for _, r in docs), reverse=True)))
    return gain / ideal if ideal != 0 else 0.0


def auroc(docs: list[Doc], top_k: Optional[int], max_fpr: Optional[float]) -> float:
    chosen = _cut(ranked(docs), top_k)
    if any(not 0 <= s <= 1 for s, _ in chosen):  # torchmetrics' binary AUROC: logits -> float32 sigmoid
        chosen = [(torch.tensor(s, dtype=torch.float32).sigmoid().item(), r) for s, r in chosen]
    pos = sum(1 for _, r in chosen if r > 0)
    neg = len(chosen) - pos
    if not pos or not neg:
        return 0.0
    # ROC points over distinct thresholds, from (0, 0)
    points = [(0.0, 0.0)]
    tp = fp = 0
    for threshold in sorted({s for s, _ in chosen}, reverse=True):
        tp += sum(1 for s, r in chosen if s == threshold and r > 0)
        fp += sum(1 for s, r in chosen if s == threshold and r == 0)
        points.append((fp / neg, tp / pos))
    limit = 1.0 if max_fpr is None else max_fpr
    area = 0.0
    for (x0, y0), (x1, y1) in zip(points, points[1:]):
        if x0 >= limit:
            break
        if x1 > limit:
            y1 = y0 + (y1 - y0) * (limit - x0) / (x1 - x0)
            x1 = limit
        area += (x1 - x0) * (y0 + y1) / 2
    if max_fpr is None or max_fpr == 1:
        return area
    low = 0.5 * max_fpr**2
    return 0.5 * (1 + (area - low) / (max_fpr - low))


def pr_curve(docs: list[Doc], max_k: int, adaptive_k: bool) -> tuple[list[float], list[float]]:
    order = ranked(docs)
    relevant = sum(r for _, r in docs)
    precisions, recalls = [], []
    for k in range(1, max_k + 1):
        found = sum(r for _, r in order[:k])
        divisor = min(k, len(docs)) if adaptive_k else k
        precisions.append(found / divisor)
        recalls.append(found / relevant if relevant else 0.0)
    return precisions, recalls


# ------------------------------------------------------------------------- modular
def queries(preds: torch.Tensor, target: torch.Tensor, indexes: torch.Tensor, ignore_index: Any) -> dict:
    out: dict[int, list[Doc]] = {}
    for p, t, i in zip(preds.tolist(), target.tolist(), indexes.tolist()):
        if ignore_index is not None and t == ignore_index:
            continue
        out.setdefault(i, []).append((float(torch.tensor(p, dtype=torch.float32)), float(t)))
    return dict(sorted(out.items()))


def _aggregate(values: list[float], aggregation: Any) -> float:
    if aggregation == "mean":
        return sum(values) / len(values)
    if aggregation == "median":
        return statistics.median_low(values)
    if aggregation in ("min", "max"):
        return min(values) if aggregation == "min" else max(values)
    return float(aggregation(torch.tensor(values), dim=None))


def metric(name: str, kwargs: dict, preds: torch.Tensor, target: torch.Tensor, indexes: torch.Tensor) -> Any:
    """The value of metric class ``name`` (None: it raises for an empty query)."""
    args = dict(kwargs)
    action = args.pop("empty_target_action", "pos" if name == "RetrievalFallOut" else "neg")
    ignore_index = args.pop("ignore_index", None)
    aggregation = args.pop("aggregation", "mean")
    by_query = queries(preds, target, indexes, ignore_index)
    needs_negative = name == "RetrievalFallOut"
    if name in ("RetrievalPrecisionRecallCurve", "RetrievalRecallAtFixedPrecision"):
        return _curve_metric(name, args, by_query, action, aggregation)
    measure = _MEASURES[name]
    values = []
    for docs in by_query.values():
        empty = not any(r == 0 for _, r in docs) if needs_negative else sum(r for _, r in docs) == 0
        if empty:
            if action == "error":
                return None
            if action != "skip":
                values.append(1.0 if action == "pos" else 0.0)
            continue
        values.append(measure(docs, **args))
    return _aggregate(values, aggregation) if values else 0.0


def _curve_metric(name: str, args: dict, by_query: dict, action: str, aggregation: Any) -> Any:
    min_precision = args.pop("min_precision", None)
    max_k = args.get("max_k") or max(len(d) for d in by_query.values())
    rows_p, rows_r = [], []
    for docs in by_query.values():
        if sum(r for _, r in docs) == 0:
            if action == "error":
                return None
            if action != "skip":
                rows_p.append([1.0 if action == "pos" else 0.0] * max_k)
                rows_r.append([1.0 if action == "pos" else 0.0] * max_k)
            continue
        p, r = pr_curve(docs, max_k, args.get("adaptive_k", False))
        rows_p.append(p)
        rows_r.append(r)
    if rows_p:
        precision = [_aggregate([row[j] for row in rows_p], aggregation) for j in range(max_k)]
        recall = [_aggregate([row[j] for row in rows_r], aggregation) for j in range(max_k)]
    else:
        precision = recall = [0.0] * max_k
    if name == "RetrievalPrecisionRecallCurve":
        return precision, recall, list(range(1, max_k + 1))
    best = None
    for k, (p, r) in enumerate(zip(precision, recall), start=1):
        if p >= min_precision and (best is None or r >= best[0]):
            best = (r, k)
    if best is None or best[0] == 0:
        return 0.0, max_k
    return best


_MEASURES: dict[str, Callable] = {
    "RetrievalMAP": lambda d, top_k=None: average_precision(d, top_k or None),
    "RetrievalMRR": lambda d, top_k=None: reciprocal_rank(d, top_k or None),
    "RetrievalPrecision": lambda d, top_k=None, adaptive_k=False: precision(d, top_k, adaptive_k),
    "RetrievalRecall": lambda d, top_k=None: recall(d, top_k),
    "RetrievalFallOut": lambda d, top_k=None: fall_out(d, top_k),
    "RetrievalHitRate": lambda d, top_k=None: hit_rate(d, top_k),
    "RetrievalNormalizedDCG": lambda d, top_k=None: ndcg(d, top_k),
    "RetrievalRPrecision": lambda d: r_precision(d),
    "RetrievalAUROC": lambda d, top_k=None, max_fpr=None: auroc(d, top_k, max_fpr),
}
