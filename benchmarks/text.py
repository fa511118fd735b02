"""Update + compute time of the text metrics: lightning_metrics, torchmetrics and the reference packages.

Run: ``python benchmarks/text.py`` (add ``--full`` to time torchmetrics' chrF and ROUGE on the whole
corpus instead of on a slice scaled up linearly; both are linear in the number of pairs).
The corpora are generated: reference sentences of 5-30 words drawn from a Zipf-like vocabulary
with punctuation and capitals, and predictions that are noisy copies (dropped, substituted,
inserted and swapped words). Each library gets the corpus in batches of ``--batch`` pairs
(an evaluation loop); ours also in one update of the whole corpus. Times are the best of
``--repeats`` runs, 1 thread (the reference packages get the whole corpus in one call).

Reference packages: jiwer (WER/CER), sacrebleu (BLEU, chrF), rouge-score (ROUGE, its scorer per
pair plus the mean). Printed: seconds per corpus and the ratio torchmetrics / ours.
"""

from __future__ import annotations

import argparse
import random
import time
import warnings
from collections.abc import Callable
from typing import Any

import torch

warnings.filterwarnings("ignore")

WORDS = ["the", "of", "and", "to", "a", "in", "is", "it", "you", "that", "he", "was", "for", "on", "are", "with", "as", "I", "his", "they", "be", "at", "one", "have", "this", "from", "or", "had", "by", "hot", "word", "but", "what", "some", "we", "can", "out", "other", "were", "all", "there", "when", "up", "use", "your", "how", "said", "an", "each", "she", "which", "do", "their", "time", "if", "will", "way", "about", "many", "then", "them", "write", "would", "like", "so", "these", "her", "long", "make", "thing", "see", "him", "two", "has", "look", "more", "day", "could", "go", "come", "did", "number", "sound", "no", "most", "people", "my", "over", "know", "water", "than", "call", "first", "who", "may", "down", "side", "been", "now", "find", "any", "new", "work", "part", "take", "get", "place", "made", "live", "where", "after", "back", "little", "only", "round", "man", "year", "came", "show", "every", "good", "me", "give", "our", "under", "name", "very", "through", "just", "form", "sentence", "great", "think", "say", "help", "low", "line", "differ", "turn", "cause", "much", "mean", "before", "move", "right", "boy", "old", "too", "same", "tell", "does", "set", "three", "want", "air", "well", "also", "play", "small", "end", "put", "home", "read", "hand", "port", "large", "spell", "add", "even", "land", "here", "must", "big", "high", "such", "follow", "act", "why", "ask", "men", "change", "went", "light", "kind", "off", "need", "house", "picture", "try", "us", "again", "animal", "point", "mother", "world", "near", "build", "self", "earth", "father"]
PUNCTUATION = (",", ".", "!", "?", ";", ":")


def sentence(rng: random.Random, low: int = 5, high: int = 30) -> str:
    words = [WORDS[min(int(rng.paretovariate(1.1)) - 1, len(WORDS) - 1)] if rng.random() < 0.7 else rng.choice(WORDS)
             for _ in range(rng.randint(low, high))]  # fmt: skip
    words[0] = words[0].capitalize()
    for i in range(2, len(words) - 1, 7):
        if rng.random() < 0.4:
            words[i] += rng.choice(PUNCTUATION[:2])
    return " ".join(words) + rng.choice(PUNCTUATION[1:4])


def noisy(rng: random.Random, text: str) -> str:
    words = text.split()
    out: list[str] = []
    for word in words:
        r = rng.random()
        if r < 0.08:
            continue
        if r < 0.18:
            out.append(rng.choice(WORDS))
            continue
        out.append(word)
        if r > 0.95:
            out.append(rng.choice(WORDS))
    if len(out) > 3 and rng.random() < 0.3:
        i = rng.randrange(len(out) - 2)
        out[i], out[i + 1] = out[i + 1], out[i]
    return " ".join(out)


def corpus(n: int, refs: int, seed: int) -> tuple[list[str], list[list[str]]]:
    rng = random.Random(seed)
    target = [[sentence(rng) for _ in range(refs)] for _ in range(n)]
    preds = [noisy(rng, t[0]) for t in target]
    return preds, target


def best_time(fn: Callable[[], Any], repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def modular(make: Callable[[], Any], preds: list, target: list, batch: int) -> Callable[[], Any]:
    def run() -> Any:
        metric = make()
        for i in range(0, len(preds), batch):
            metric.update(preds[i : i + batch], target[i : i + batch])
        return metric.compute()

    return run


def rouge_score_package(preds: list[str], target: list[list[str]], keys: tuple[str, ...]) -> dict:
    from rouge_score import rouge_scorer

    scorer = rouge_scorer.RougeScorer(list(keys))
    totals: dict[str, float] = {}
    for p, refs in zip(preds, target):
        for key, score in scorer.score_multi(refs, p).items():
            totals[key] = totals.get(key, 0.0) + score.fmeasure
    return {k: v / len(preds) for k, v in totals.items()}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--full", action="store_true", help="time torchmetrics' chrF and ROUGE on every pair")
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    torch.set_num_threads(1)

    import jiwer
    import sacrebleu
    import torchmetrics.text as tm

    import lightning_metrics.text as lm

    rouge_keys = ("rouge1", "rouge2", "rougeL")  # rougeLsum needs nltk's punkt data (not downloaded here)
    rows = []

    def add(name: str, pairs: int, ours: Callable[[int], Callable], theirs: Callable, reference: Callable | None,
            theirs_pairs: int | None = None) -> None:  # fmt: skip
        t_ours = best_time(ours(args.batch), args.repeats)
        t_whole = best_time(ours(pairs), args.repeats)  # one update of the whole corpus
        scale = pairs / (theirs_pairs or pairs)
        t_theirs = best_time(theirs, 1 if scale > 1 else args.repeats) * scale
        t_ref = best_time(reference, args.repeats) if reference else float("nan")
        rows.append((name, pairs, t_ours, t_whole, t_theirs, scale > 1, t_ref))

    for n in (4_000, 20_000):
        preds, target = corpus(n, 1, seed=n)
        flat = [t[0] for t in target]
        for name, ours_cls, theirs_cls, ref in (
            ("WER", lm.WordErrorRate, tm.WordErrorRate, lambda p=preds, t=flat: jiwer.wer(t, p)),
            ("CER", lm.CharErrorRate, tm.CharErrorRate, lambda p=preds, t=flat: jiwer.cer(t, p)),
        ):
            ours = lambda batch, c=ours_cls, p=preds, t=flat: modular(c, p, t, batch)
            add(name, n, ours, modular(theirs_cls, preds, flat, args.batch), ref)
    preds, target = corpus(5_000, 2, seed=5)
    refs_t = [list(r) for r in zip(*target)]
    add(
        "SacreBLEU",
        5_000,
        lambda batch: modular(lm.SacreBLEUScore, preds, target, batch),
        modular(tm.SacreBLEUScore, preds, target, args.batch),
        lambda: sacrebleu.corpus_bleu(preds, refs_t),
    )
    slice_n = 5_000 if args.full else 250
    add(
        "chrF++",
        5_000,
        lambda batch: modular(lm.CHRFScore, preds, target, batch),
        modular(tm.CHRFScore, preds[:slice_n], target[:slice_n], args.batch),
        lambda: sacrebleu.corpus_chrf(preds, refs_t, word_order=2),
        theirs_pairs=slice_n,
    )
    preds, target = corpus(2_000, 1, seed=2)
    slice_n = 2_000 if args.full else 500
    add(
        "ROUGE-1/2/L",
        2_000,
        lambda batch: modular(lambda: lm.ROUGEScore(rouge_keys=rouge_keys), preds, target, batch),
        modular(lambda: tm.ROUGEScore(rouge_keys=rouge_keys), preds[:slice_n], target[:slice_n], args.batch),
        lambda: rouge_score_package(preds, target, rouge_keys),
        theirs_pairs=slice_n,
    )

    import torchmetrics

    print(
        f"torch {torch.__version__}, torchmetrics {torchmetrics.__version__}, jiwer {jiwer.__version__ if hasattr(jiwer, '__version__') else '4'}, "
        f"sacrebleu {sacrebleu.__version__}; 1 thread; batches of {args.batch}; best of {args.repeats}"
    )
    print(
        f"{'metric':<12} {'pairs':>6} {'ours s':>8} {'tm s':>9} {'tm/ours':>8} | {'ours, 1 update':>14} {'tm/ours':>8}"
        f" | {'reference s':>11} {'ref/ours':>8}"
    )
    for name, pairs, ours, whole, theirs, estimated, ref in rows:
        mark = "*" if estimated else " "
        print(
            f"{name:<12} {pairs:>6} {ours:>8.3f} {theirs:>8.3f}{mark} {theirs / ours:>8.1f} | {whole:>14.3f}"
            f" {theirs / whole:>8.1f} | {ref:>11.3f} {ref / ours:>8.2f}"
        )
    if any(r[5] for r in rows):
        print("* torchmetrics timed on a slice of the pairs and scaled linearly (--full times all of them)")


if __name__ == "__main__":
    main()
