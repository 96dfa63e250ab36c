"""Language detection and BM25 tokenisation: folded words, stop words and Snowball stemming per language.

The corpus mixes English and French (and analysts ask in Spanish and German too), so each text is stemmed with the
stemmer of its language: documents by their manifest language, questions by a stop-word vote (plus the letters only
one of the languages writes: ¿ ¡ ñ, ä ö ü ß). A German question detected as English would be judged with the
levels of a passage in its own language against English passages, and stemmed with the wrong stemmer. Identifiers that
matter in regulation survive: article numbers ("6(1)(f)" -> "6", "1", "f"), CELEX-like numbers ("2016/679" ->
"2016", "679") and acronyms ("DORA" -> "dora").
"""

from __future__ import annotations

import re
from functools import lru_cache

import Stemmer
from bm25s.stopwords import STOPWORDS_EN_PLUS, STOPWORDS_FRENCH, STOPWORDS_GERMAN, STOPWORDS_SPANISH

from regintel.text.normalise import fold

SUPPORTED_LANGUAGES = {"en": "english", "fr": "french", "es": "spanish", "de": "german"}
STOPWORDS = {
    "en": frozenset(STOPWORDS_EN_PLUS),
    "fr": frozenset(STOPWORDS_FRENCH),
    "es": frozenset(STOPWORDS_SPANISH),
    "de": frozenset(STOPWORDS_GERMAN),
}
# letters (in the unfolded text) that only one of the supported languages writes, worth two stop words each
SCRIPT_CUES = {"es": re.compile(r"[¿¡ñÑ]"), "de": re.compile(r"[äöüÄÖÜß]")}
SCRIPT_CUE_WEIGHT = 2
# question words no stop word list holds: "Quelles sanctions prévoit DORA ?" has no French stop word, and its one
# other word ("sanctions") is English too, so it was read as English (its French words then matched nothing)
QUESTION_WORD_CUES = {
    "fr": re.compile(r"\b(?:quel|quelle|quels|quelles|lequel|laquelle|lesquels|lesquelles|combien|pourquoi)\b", re.I),
    "es": re.compile(r"\b(?:cuál|cuáles|cuándo|cuánto|cuánta|cuántos|cuántas|dónde|qué|quién|quiénes)\b", re.I),
    "de": re.compile(r"\b(?:welche|welcher|welches|welchen|welchem|wann|warum|wieso|weshalb)\b", re.I),
}
TOKEN_RE = re.compile(r"[a-z0-9]+")


@lru_cache(maxsize=8)
def _stemmer(language: str) -> Stemmer.Stemmer:
    return Stemmer.Stemmer(SUPPORTED_LANGUAGES.get(language, "english"))


@lru_cache(maxsize=8)
def folded_stopwords(language: str) -> frozenset[str]:
    """A language's stop words as :func:`fold` writes them (English for a language without a list)."""
    return frozenset(fold(w) for w in STOPWORDS.get(language, STOPWORDS["en"]))


def language_votes(text: str) -> dict[str, float]:
    """Per supported language: its stop words in ``text`` plus its script cues (``SCRIPT_CUES``) and question words
    (``QUESTION_WORD_CUES``)."""
    words = TOKEN_RE.findall(fold(text))
    votes = {lang: float(sum(1 for w in words if w in folded_stopwords(lang))) for lang in SUPPORTED_LANGUAGES}
    for lang, cue in SCRIPT_CUES.items():
        if cue.search(text):
            votes[lang] += SCRIPT_CUE_WEIGHT
    for lang, cue in QUESTION_WORD_CUES.items():
        if cue.search(text):
            votes[lang] += 1
    return votes


def best_language(votes: dict[str, float]) -> str:
    """The language with most votes, English on a tie or when nothing voted."""
    best = max(votes, key=lambda lang: (votes[lang], lang == "en"))
    return best if votes[best] > 0 else "en"


def detect_language(text: str) -> str:
    """Best guess among en / fr / es / de by stop words and script cues; English when nothing decides."""
    return best_language(language_votes(text))


def words(text: str) -> list[str]:
    """Folded word tokens (numbers included), before stop words and stemming."""
    return TOKEN_RE.findall(fold(text))


# Words the Snowball stemmer folds into another legal concept: "lawful", "lawfulness" and "lawfully" become "law", so
# a question on the lawfulness of processing matched "Union or Member State law" as well as "processing shall be
# lawful"
# "bases" is also the plural of "basis" ("the lawful bases for processing"), the regulations' sense of it (the
# English texts write "basis" 127 times and never "bases"); stemmed "base", it met "based on Article 6(1)" of Article
# 10 instead of "legal basis"
STEM_EXCEPTIONS = {"en": {w: "lawful" for w in ("lawful", "lawfully", "lawfulness")}
                   | {w: "unlawful" for w in ("unlawful", "unlawfully", "unlawfulness")}
                   | {"bases": "basi"}}
# German participles and past forms of "-ieren" verbs stem apart from the verb: Snowball makes "informieren" "informi"
# but "informiert", "informierte" "informiert", so "Wann muss die Aufsichtsbehörde informiert werden?" never met the
# term list's "informieren" (nor "registriert" its "registrieren"). Read as the infinitive before stemming.
_GERMAN_IERT_RE = re.compile(r"(?<=\w{3})iert(?:e|en|er|es|em)?$")
# An acronym that is a stop word once lower-cased ("an IT outage", "our IT provider", "IT-Vorfall") would vanish from
# the tokens; the regulations call it ICT ("ICT-related incident", "ICT third-party service provider").
STOPWORD_ACRONYMS = {"IT": "ICT"}
_STOPWORD_ACRONYM_RE = re.compile(r"\b(" + "|".join(STOPWORD_ACRONYMS) + r")\b")


def tokenize(text: str, language: str | None = None) -> list[str]:
    """BM25 tokens of a text: folded words minus stop words, stemmed in the text's language (detected when
    ``language`` is None or not supported); an acronym that would be a stop word reads as its regulatory name."""
    language = language if language in SUPPORTED_LANGUAGES else detect_language(text)
    stop = folded_stopwords(language)
    text = _STOPWORD_ACRONYM_RE.sub(lambda m: STOPWORD_ACRONYMS[m.group(1)], text)
    words = [w for w in TOKEN_RE.findall(fold(text)) if w not in stop]
    if language == "de":
        words = [_GERMAN_IERT_RE.sub("ieren", w) for w in words]
    stems = _stemmer(language).stemWords(words)
    exceptions = STEM_EXCEPTIONS.get(language)
    if exceptions:
        stems = [exceptions.get(w, s) for w, s in zip(words, stems)]
    return stems
