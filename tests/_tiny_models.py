"""Tiny ``transformers`` models built from configurations, with random seeded weights, and their
tokenizers from vocabulary files written here: nothing is downloaded.

Shared by the tests of BERTScore, InfoLM, CLIPScore and CLIP-IQA (``tests/text``, ``tests/multimodal``).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import torch

WORDS = [
    "the",
    "a",
    "an",
    "cat",
    "dog",
    "sat",
    "on",
    "mat",
    "hello",
    "there",
    "general",
    "kenobi",
    "master",
    "is",
    "was",
    "were",
    "and",
    "or",
    "not",
    "it",
    "this",
    "that",
    "of",
    "to",
    "in",
    "my",
    "your",
    "name",
    "john",
    "big",
    "small",
    "red",
    "blue",
    "green",
    "house",
    "tree",
    "car",
    "road",
    "runs",
    "jumps",
    "over",
    "under",
    "quick",
    "brown",
    "fox",
    "lazy",
    "sleeps",
    "today",
    "yesterday",
    "good",
    "bad",
    "photo",
    "picture",
    "of",
    "a",
    "with",
]


def _bytes_to_unicode() -> dict[int, str]:
    """GPT-2's byte -> printable character table (the byte-level BPE alphabet)."""
    bs = (
        list(range(ord("!"), ord("~") + 1))
        + list(range(ord("¡"), ord("¬") + 1))
        + list(range(ord("®"), ord("ÿ") + 1))
    )
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, map(chr, cs)))


def bert_tokenizer(folder: Path) -> Any:
    from transformers import BertTokenizer

    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *dict.fromkeys(WORDS), *".,!?'"]
    path = folder / "vocab.txt"
    path.write_text("\n".join(vocab) + "\n")
    return BertTokenizer(str(path))


def roberta_tokenizer(folder: Path) -> Any:
    """A byte-level BPE tokenizer: the 256 byte symbols and a few merges (``Ġthe``, ``Ġcat``, ...)."""
    from transformers import RobertaTokenizer

    alphabet = list(_bytes_to_unicode().values())
    merges = ["Ġ t", "h e", "Ġt he", "Ġ c", "a t", "Ġc at", "Ġ d", "o g", "Ġd og", "Ġ s", "Ġs at"]
    vocab = ["<s>", "<pad>", "</s>", "<unk>", "<mask>", *alphabet]
    vocab += [a + b for a, b in (m.split() for m in merges)]
    (folder / "vocab.json").write_text(json.dumps({t: i for i, t in enumerate(dict.fromkeys(vocab))}))
    (folder / "merges.txt").write_text("#version: 0.2\n" + "\n".join(merges) + "\n")
    return RobertaTokenizer(str(folder / "vocab.json"), str(folder / "merges.txt"))


def clip_tokenizer(folder: Path) -> Any:
    from transformers import CLIPTokenizer

    alphabet = list(_bytes_to_unicode().values())
    merges = [
        "t h",
        "th e</w>",
        "c a",
        "ca t</w>",
        "p h",
        "ph o",
        "pho t",
        "phot o</w>",
        "g o",
        "go o",
        "goo d</w>",
    ]
    vocab = [*alphabet, *(a + "</w>" for a in alphabet), *(a + b for a, b in (m.split() for m in merges))]
    vocab += ["<|startoftext|>", "<|endoftext|>"]
    (folder / "vocab.json").write_text(json.dumps({t: i for i, t in enumerate(dict.fromkeys(vocab))}))
    (folder / "merges.txt").write_text("#version: 0.2\n" + "\n".join(merges) + "\n")
    return CLIPTokenizer(str(folder / "vocab.json"), str(folder / "merges.txt"), pad_token="<|endoftext|>")


def _seeded(build: Any, seed: int) -> Any:
    torch.manual_seed(seed)
    return build().eval()


def tiny_bert(tokenizer: Any, masked_lm: bool = False, seed: int = 0) -> Any:
    from transformers import BertConfig, BertForMaskedLM, BertModel

    config = BertConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=37,
        max_position_embeddings=128,
        pad_token_id=tokenizer.pad_token_id,
    )
    return _seeded(lambda: (BertForMaskedLM if masked_lm else BertModel)(config), seed)


def tiny_roberta(tokenizer: Any, seed: int = 1) -> Any:
    from transformers import RobertaConfig, RobertaModel

    config = RobertaConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=37,
        max_position_embeddings=130,
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
    )
    return _seeded(lambda: RobertaModel(config), seed)


def clip_image_processor(size: int = 32) -> Any:
    import transformers

    # transformers 5 without torchvision: the PIL backend under its own name (no fallback warning)
    cls = getattr(transformers, "CLIPImageProcessorPil", None) or transformers.CLIPImageProcessor
    return cls(size={"shortest_edge": size}, crop_size={"height": size, "width": size})


def tiny_clip(folder: Path, seed: int = 2) -> tuple[Any, Any]:
    """A 2-layer CLIP (text and vision, hidden 32, 32x32 images) and its processor."""
    from transformers import CLIPConfig, CLIPModel, CLIPProcessor

    tokenizer = clip_tokenizer(folder)
    config = CLIPConfig(
        text_config={
            "vocab_size": len(tokenizer),
            "hidden_size": 32,
            "intermediate_size": 37,
            "num_hidden_layers": 2,
            "num_attention_heads": 2,
            "max_position_embeddings": 40,
            "projection_dim": 16,
            "bos_token_id": tokenizer.bos_token_id,
            "eos_token_id": tokenizer.eos_token_id,
            "pad_token_id": tokenizer.pad_token_id,
        },
        vision_config={
            "hidden_size": 32,
            "intermediate_size": 37,
            "num_hidden_layers": 2,
            "num_attention_heads": 2,
            "image_size": 32,
            "patch_size": 8,
            "projection_dim": 16,
        },
        projection_dim=16,
    )
    model = _seeded(lambda: CLIPModel(config), seed)
    processor = CLIPProcessor(image_processor=clip_image_processor(), tokenizer=tokenizer)
    return model, processor


@cache
def sentences(n: int = 40, seed: int = 0) -> tuple[list[str], list[str]]:
    """``n`` prediction/reference pairs of 0 to 12 words: duplicates, shared words, unknown words."""
    g = torch.Generator().manual_seed(seed)

    def sentence(low: int, high: int) -> str:
        k = int(torch.randint(low, high, (1,), generator=g))
        words = [WORDS[int(i)] for i in torch.randint(0, len(WORDS), (k,), generator=g)]
        if k and torch.rand(1, generator=g) < 0.2:
            words.append("zebra")  # out of the vocabulary
        return " ".join(words) + ("." if k and torch.rand(1, generator=g) < 0.5 else "")

    preds = [sentence(1, 13) for _ in range(n)]
    target = [sentence(1, 13) for _ in range(n)]
    if n > 12:
        preds[3] = target[3]  # an exact match
        preds[7] = preds[8]  # duplicates
        target[10] = target[11]
        preds[12] = "hello"  # one word
    return preds, target


def length_sorted_pairs(tokenizer: Any, n: int = 30, seed: int = 0) -> tuple[list[str], list[str]]:
    """Pairs whose predictions and references both get strictly longer (in ``tokenizer``'s tokens).

    torchmetrics 1.9 sorts the sentences by length before embedding them and puts the embeddings
    back with the sorting permutation instead of its inverse (Lightning-AI/torchmetrics#2728): its
    i-th prediction meets its i-th reference only when sorting changes nothing, as here. One pair
    is a pair of equal sentences.
    """
    g = torch.Generator().manual_seed(seed)

    def pool() -> dict[int, str]:
        by_length: dict[int, str] = {}
        for _ in range(40 * n):
            k = int(torch.randint(0, 4 * n // 3 + 2, (1,), generator=g))
            words = [WORDS[int(i)] for i in torch.randint(0, len(WORDS), (k,), generator=g)]
            if k and torch.rand(1, generator=g) < 0.2:
                words[int(torch.randint(0, k, (1,), generator=g))] = "zebra"
            text = " ".join(words) + ("." if k and torch.rand(1, generator=g) < 0.4 else "")
            by_length.setdefault(len(tokenizer(text)["input_ids"]), text)
        return by_length

    preds, target = pool(), pool()
    pl, tl = sorted(preds)[:n], sorted(target)[:n]
    p, t = [preds[k] for k in pl], [target[k] for k in tl]
    for i in range(1, min(len(p), len(t)) - 1):  # an exact match where lengths allow it
        if tl[i - 1] < pl[i] < tl[i + 1]:
            t[i] = p[i]
            break
    return p, t
