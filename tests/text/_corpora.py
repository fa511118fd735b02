"""Corpora for the text tests: generated ones (seeded), real-looking ones and edge cases.

Generated sentences mix a small vocabulary (so n-grams repeat and match) with unicode, punctuation,
numbers, casing and odd whitespace; predictions are noisy copies of a reference. Every case is a
pair ``(preds, target)`` with ``target`` one list of references per prediction.
"""

from __future__ import annotations

import random

WORDS = ["the", "cat", "sat", "on", "a", "mat", "The", "Cat", "dog", "ran", "fast", "quick", "brown", "fox", "jumps", "over", "lazy", "running", "runs", "cats", "é", "über", "naïve", "café", "中文", "日本語", "한국어", ",", ".", "!", "?", ";", "3.5", "1,000", "don't", "it's", "U.S.", "e.g.", "(x)", '"quoted"', "-", "--", "&amp;", "İ", "ß"]

REAL = [
    (
        "The quick brown fox jumps over the lazy dog.",
        ["A quick brown fox jumped over the lazy dog.", "The fast brown fox leaps over the lazy dog."],
    ),
    (
        "It is a guide to action which ensures that the military always obeys the commands of the party.",
        [
            "It is a guide to action that ensures that the military will forever heed Party commands.",
            "It is the guiding principle which guarantees the military forces always being under the command of the Party.",
        ],
    ),
    (
        "He read the book because he was interested in world history.",
        ["He was interested in world history because he read the book."],
    ),
    (
        "The meeting was postponed until next Tuesday, at 3.30 p.m.",
        ["The meeting has been moved to next Tuesday at 3:30 pm."],
    ),
    ("I don't think that's what she meant!", ["I do not think that is what she meant."]),
    (
        "Prices rose by 2.5% in October, the fastest pace since 2008.",
        ["In October prices rose 2.5 %, the fastest rate since 2008."],
    ),
    ("Das ist ein Test über die Übersetzung.", ["Dies ist ein Test der Übersetzung."]),
    ("我 爱 北京 天安门", ["我 喜欢 北京 天安门"]),
    (
        "Dr. Smith arrived at 10 a.m., e.g. before the U.S. delegation.",
        ["Dr. Smith came at 10 am, before the U.S. delegation."],
    ),
    ("the the the the the the the", ["the cat is on the mat", "there is a cat on the mat"]),
]


def sentence(rng: random.Random, low: int = 0, high: int = 12) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(low, high))]
    text = " ".join(words)
    if rng.random() < 0.15:
        text = rng.choice([" ", "  ", "\t", " \n"]) + text + rng.choice(["", " ", "  "])
    return text


def noisy(rng: random.Random, text: str) -> str:
    out = []
    for word in text.split():
        r = rng.random()
        if r < 0.15:
            continue
        out.append(rng.choice(WORDS) if r < 0.3 else word)
        if r > 0.9:
            out.append(rng.choice(WORDS))
    if len(out) > 2 and rng.random() < 0.3:
        i = rng.randrange(len(out) - 1)
        out[i], out[i + 1] = out[i + 1], out[i]
    return " ".join(out)


def corpus(seed: int, n: int = 8, max_refs: int = 3, high: int = 12) -> tuple[list[str], list[list[str]]]:
    """``n`` predictions with 1..``max_refs`` references each; a few exact or near copies."""
    rng = random.Random(seed)
    target = [[sentence(rng, 0, high) for _ in range(rng.randint(1, max_refs))] for _ in range(n)]
    preds = []
    for refs in target:
        r = rng.random()
        preds.append(
            refs[0] if r < 0.15 else noisy(rng, rng.choice(refs)) if r < 0.75 else sentence(rng, 0, high)
        )
    return preds, target


def edge_cases() -> list[tuple[list[str], list[list[str]]]]:
    """Empty strings, empty references, whitespace, unicode, casing, one long pair, duplicates."""
    return [
        ([""], [[""]]),
        (["", "a b"], [["a"], [""]]),
        (["a b c"], [["", "a b"]]),
        (["   "], [["\t"]]),
        (["Hello World"], [["hello world", "HELLO WORLD"]]),
        (["über café naïve"], [["uber cafe naive", "über café"]]),
        (["中文 日本語", "한국어"], [["中文"], ["한국어 한국어"]]),
        (["a , b . c !"], [["a, b. c!"]]),
        (
            [" ".join([f"w{i % 37}" for i in range(150)])],
            [[" ".join([f"w{i % 41}" for i in range(140)])]],
        ),
        (["the the the"], [["the", "the the the the"]]),
    ]


def real() -> tuple[list[str], list[list[str]]]:
    return [p for p, _ in REAL], [list(t) for _, t in REAL]


def single_reference(target: list[list[str]]) -> list[str]:
    return [refs[0] for refs in target]


def rectangular(preds: list[str], target: list[list[str]]) -> list[list[str]]:
    """sacrebleu's layout (one list per reference position), for corpora with equally many references."""
    width = len(target[0])
    assert all(len(t) == width for t in target)
    return [[t[i] for t in target] for i in range(width)]
