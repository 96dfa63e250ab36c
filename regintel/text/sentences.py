"""Sentence segmentation of regulatory text that returns exact character spans.

Spans matter: the offline answerer quotes passages verbatim, so every sentence it emits is a slice of the
passage. Legal text needs care: "Art. 6", "No 45/2001", "e.g.", "(a)" items and definition lists separated by
"; (2) ..." must not break or must break at the right place.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

ABBREVIATIONS = {
    "art", "arts", "no", "nos", "nr", "para", "paras", "p", "pp", "e.g", "i.e", "cf", "etc", "vs", "v", "ibid",
    "mr", "mrs", "ms", "dr", "st", "fig", "al", "ch", "sect", "subpara", "point", "oj", "ec", "eu", "eec",
    "n°", "al", "ex", "let", "pt",
}
BOUNDARY_RE = re.compile(r"(?<=[.!?;:])\s+(?=[\"'‘“«(\[]?[A-ZÀ-Ý0-9(])")
LEADING_ENUMERATOR_RE = re.compile(r"^(?:\d+[a-z]?\.|\(\d+[a-z]?\)|\([a-z]{1,4}\)|[a-z]\)|[ivx]+\))\s+")
MAX_SENTENCE_CHARS = 600


@dataclass(frozen=True)
class Sentence:
    start: int
    end: int
    text: str


def _ends_with_abbreviation(text: str) -> bool:
    word = re.search(r"([\w°]+)\.$", text)
    return bool(word) and word.group(1).lower() in ABBREVIATIONS


def split_sentences(text: str, strip_enumerators: bool = True) -> list[Sentence]:
    """Sentences of ``text`` as spans; ``sentence.text == text[start:end]`` always holds."""
    sentences: list[Sentence] = []
    for paragraph in re.finditer(r"[^\n]+(?:\n(?!\n)[^\n]+)*", text):
        base = paragraph.start()
        chunk = paragraph.group(0)
        start = 0
        for boundary in BOUNDARY_RE.finditer(chunk):
            candidate = chunk[start : boundary.start()]
            punctuation = chunk[boundary.start() - 1]
            if punctuation == "." and _ends_with_abbreviation(candidate):
                continue
            if punctuation == ":" and len(candidate.strip()) < 40:  # "1. Member States shall:" keeps its list
                continue
            _add(sentences, text, base + start, base + boundary.start(), strip_enumerators)
            start = boundary.end()
        _add(sentences, text, base + start, base + len(chunk), strip_enumerators)
    return sentences


def _add(sentences: list[Sentence], text: str, start: int, end: int, strip_enumerators: bool) -> None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if strip_enumerators:
        match = LEADING_ENUMERATOR_RE.match(text[start:end])
        if match and end - start - match.end() > 20:
            start += match.end()
    if end - start < 3:
        return
    if end - start <= MAX_SENTENCE_CHARS:
        sentences.append(Sentence(start, end, text[start:end]))
        return
    # an over-long "sentence" (an enumeration): cut at commas/semicolons into verbatim clauses
    cursor = start
    while cursor < end:
        stop = min(end, cursor + MAX_SENTENCE_CHARS)
        if stop < end:
            cut = max(text.rfind("; ", cursor, stop), text.rfind(", ", cursor, stop))
            stop = cut + 1 if cut > cursor + 80 else stop
        piece_start, piece_end = cursor, stop
        while piece_start < piece_end and text[piece_start].isspace():
            piece_start += 1
        while piece_end > piece_start and text[piece_end - 1].isspace():
            piece_end -= 1
        if piece_end - piece_start >= 3:
            sentences.append(Sentence(piece_start, piece_end, text[piece_start:piece_end]))
        cursor = stop
