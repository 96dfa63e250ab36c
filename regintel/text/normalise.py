"""Text normalisation: Unicode folding for matching, comparison labels, codes, and text a person can see."""

from __future__ import annotations

import re
import sys
import unicodedata
from functools import lru_cache


def fold(text: str) -> str:
    """Lower-case and strip diacritics (so "Déclaration" and "declaration" meet): the compatibility decomposition
    (NFKD) without its combining marks, and German "ß" written "ss" as Swiss German and upper case write it (NFKD
    keeps "ß", and word tokens of ``[a-z0-9]`` split "Verstößen" into "versto" and "en"). ASCII text is only
    lower-cased (NFKD leaves it as it is)."""
    lowered = text.lower()
    if lowered.isascii():
        return lowered
    return unicodedata.normalize("NFKD", lowered).translate(_combining_marks()).replace("ß", "ss")


def fold_with_offsets(text: str) -> tuple[str, list[int]]:
    """:func:`fold` of ``text``, character by character, and for each folded character the index in ``text`` of the
    one it comes from: folding may lengthen a text ("ß" -> "ss"), so a match in the folded text is mapped back
    through these (by character, a Greek final sigma is lower-cased as any sigma)."""
    if text.isascii():
        return text.lower(), list(range(len(text)))
    pieces, offsets = [], []
    for index, character in enumerate(text):
        piece = _fold_character(character)
        pieces.append(piece)
        offsets.extend([index] * len(piece))
    return "".join(pieces), offsets


@lru_cache(maxsize=4096)
def _fold_character(character: str) -> str:
    return fold(character)


@lru_cache(maxsize=1)
def _combining_marks() -> dict[int, None]:
    """A ``str.translate`` table that deletes every character of non-zero canonical combining class (built on first
    use, ~0.1 s): ingestion folds millions of characters, and a per-character test in Python was a sixth of it."""
    return dict.fromkeys(cp for cp in range(sys.maxunicode + 1) if unicodedata.combining(chr(cp)))


def fold_for_comparison(text: str) -> str:
    """Folded words separated by single spaces, punctuation removed: for comparing labels, never for display."""
    return re.sub(r"[^a-z0-9]+", " ", fold(text)).strip()


def contains_phrase(text: str, phrase: str) -> bool:
    """Whether ``phrase`` stands in ``text`` as whole words, folded (case, accents and punctuation aside)."""
    folded = fold_for_comparison(phrase)
    return bool(folded) and f" {folded} " in f" {fold_for_comparison(text)} "


def normalise_code(text: str) -> str:
    """A code such as a concept kind or jurisdiction: upper case, underscores ("sales tax" -> "SALES_TAX")."""
    return re.sub(r"[^A-Z0-9]+", "_", fold_for_comparison(text).upper()).strip("_")


def printable(text: object) -> str:
    """Text a person can see: line breaks and tabs become spaces; control, format (zero-width, bidi override),
    surrogate, private-use and unassigned characters are removed; whitespace is folded."""
    normalised = unicodedata.normalize("NFC", str(text or ""))
    kept = "".join(" " if ch in "\n\r\t" else ch for ch in normalised
                   if ch in "\n\r\t" or unicodedata.category(ch) not in {"Cc", "Cf", "Cs", "Co", "Cn"})
    return " ".join(kept.split())
