"""German words read in their dictionary form, before stemming.

No text of the corpus is German; German questions meet it through the term list (and its phrases are written in
the dictionary form or as nouns). Snowball stems a German verb apart from its participles and strong forms:
"übermitteln" -> "ubermittel" but "übermittelt" -> "ubermittelt", "speichern" / "gespeichert", "melden" / "gemeldet",
"gelten" / "gilt", so "Wann dürfen Daten in ein Drittland übermittelt werden?" never met the term list's "in ein
Drittland übermitteln". simplemma (MIT licence, its German dictionary inside the PyPI wheel: nothing is downloaded)
gives each word its lemma; a word it does not know stays as it is, and so does a stop word ("waren", were, is not
read as "Ware", goods) and a word whose lemma stems as another word does (:data:`LEMMAS_KEPT_APART`).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Callable

_WORD_RE = re.compile(r"[^\W\d_]+")
# lemmas that Snowball, which drops the umlaut, stems as another word: "zählt" read as "zählen" (counts) met "zahlen"
# (to pay) and the term list's payment entries in "Wer zählt als Arbeitskraft ...?"
LEMMAS_KEPT_APART = frozenset({"zählen"})


@lru_cache(maxsize=65536)
def german_lemma(word: str) -> str:
    """The dictionary form of one German word ("gespeichert" -> "speichern", "Rechnungen" -> "Rechnung")."""
    import simplemma

    return simplemma.lemmatize(word, lang="de")


def in_german_dictionary_forms(text: str, stop_words: frozenset[str] = frozenset(),
                                fold: Callable[[str], str] = str.lower) -> str:
    """``text`` with each word but the ``stop_words`` (as ``fold`` writes them) replaced by its German lemma (numbers,
    hyphens and punctuation kept in place)."""

    def lemma(match: re.Match[str]) -> str:
        word = match.group(0)
        if fold(word) in stop_words:
            return word
        found = german_lemma(word)
        return word if found.lower() in LEMMAS_KEPT_APART or fold(found) in stop_words else found

    return _WORD_RE.sub(lemma, text)


MIN_COMPOUND_CHARS = 9  # shorter German words are rarely compounds of two words of four letters or more
MIN_PART_CHARS = 5  # the first part of a compound read here: "Kunden|daten", not "Be|förderung", "Tran|sporter"
MIN_HEAD_CHARS = 6  # and its last part: "Daten|verarbeitung", not "Tran|sport", "Unter|lagen"
_LINKING = ("s", "es", "n", "en")  # Fugenelemente: "Aufsicht|s|behörde", "Kunde|n|daten"


def compound_head(word: str, is_head: Callable[[str], bool]) -> str | None:
    """The last part of a German compound when it is a word ``is_head`` accepts and the rest is a German word
    (with or without its linking letters): "Datenverarbeitung" -> "verarbeitung", "Kundendaten" -> "daten". A German
    compound names a kind of its last part (data processing is processing), which the term list may hold where it
    holds no compound. The longest such part; None for a word that is not read so."""
    import simplemma

    lowered = word.lower()
    if len(lowered) < MIN_COMPOUND_CHARS:
        return None
    for split in range(MIN_PART_CHARS, len(lowered) - MIN_HEAD_CHARS + 1):
        head, modifier = lowered[split:], lowered[:split]
        if not is_head(head):
            continue
        stripped = [modifier[: -len(link)] for link in _LINKING if modifier.endswith(link)]
        if any(len(part) >= MIN_PART_CHARS and simplemma.is_known(part, lang="de") for part in [modifier, *stripped]):
            return head
    return None


def in_compound_heads(text: str, is_head: Callable[[str], bool], stop_words: frozenset[str] = frozenset(),
                      fold: Callable[[str], str] = str.lower,
                      decomposable: Callable[[str], bool] = lambda word: True) -> str:
    """``text`` with each German compound (:func:`compound_head`) replaced by its last part, other words (and those
    not ``decomposable``) kept."""

    def head(match: re.Match[str]) -> str:
        word = match.group(0)
        if fold(word) in stop_words or not decomposable(word):
            return word
        return compound_head(word, is_head) or word

    return _WORD_RE.sub(head, text)
