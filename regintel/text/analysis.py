"""Language detection and BM25 tokenisation: folded words, stop words and Snowball stemming per language.

The corpus mixes English and French (and analysts ask in Spanish too), so each text is stemmed with the
stemmer of its language: documents by their manifest language, questions by a stop-word vote. Identifiers that
matter in regulation survive: article numbers ("6(1)(f)" -> "6", "1", "f"), CELEX-like numbers ("2016/679" ->
"2016", "679") and acronyms ("DORA" -> "dora").
"""

from __future__ import annotations

import re
from functools import lru_cache

import Stemmer
from bm25s.stopwords import STOPWORDS_EN_PLUS, STOPWORDS_FRENCH, STOPWORDS_SPANISH

from regintel.text.normalise import fold

SUPPORTED_LANGUAGES = {"en": "english", "fr": "french", "es": "spanish"}
STOPWORDS = {
    "en": frozenset(STOPWORDS_EN_PLUS),
    "fr": frozenset(STOPWORDS_FRENCH),
    "es": frozenset(STOPWORDS_SPANISH),
}
TOKEN_RE = re.compile(r"[a-z0-9]+")


@lru_cache(maxsize=8)
def _stemmer(language: str) -> Stemmer.Stemmer:
    return Stemmer.Stemmer(SUPPORTED_LANGUAGES.get(language, "english"))


@lru_cache(maxsize=8)
def _folded_stopwords(language: str) -> frozenset[str]:
    return frozenset(fold(w) for w in STOPWORDS.get(language, STOPWORDS["en"]))


def detect_language(text: str) -> str:
    """Best guess among en / fr / es by counting stop words; English when nothing decides."""
    words = TOKEN_RE.findall(fold(text))
    if not words:
        return "en"
    votes = {lang: sum(1 for w in words if w in _folded_stopwords(lang)) for lang in SUPPORTED_LANGUAGES}
    best = max(votes, key=lambda lang: (votes[lang], lang == "en"))
    return best if votes[best] > 0 else "en"


def tokenize(text: str, language: str | None = None) -> list[str]:
    """BM25 tokens of a text: folded words minus stop words, stemmed in the text's language."""
    language = language if language in SUPPORTED_LANGUAGES else detect_language(text)
    stop = _folded_stopwords(language)
    words = [w for w in TOKEN_RE.findall(fold(text)) if w not in stop]
    return _stemmer(language).stemWords(words)
