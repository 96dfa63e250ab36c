"""Does a passage define the term a question asks about? One reading for the learned ranker (a feature) and the
evidence grade (the defining passage at rank 1 anchors an answer).

A passage defines what it quotes before "means" / "on entend par" / "bezeichnet" (:func:`defined_terms`), or, when
it quotes none, the title of the glossary entry it is ("ANNEX II › Carbon credit"). The asked term
(:func:`regintel.text.asked_terms.asked_term`) is compared by its stems, in the passage's language: as written when
the question is in that language, else carried over by the legal term list.
"""

from __future__ import annotations

from regintel.retrieval.calibration import defined_terms
from regintel.retrieval.crosslingual import load_glossary
from regintel.text.analysis import tokenize

GLOSSARY_TITLE_WORDS = 6  # a longer last heading level is a section title, not a defined term


def terms_defined_by(text: str, heading: str = "") -> list[str]:
    """The terms a passage defines: its quoted definitions, else the title of the glossary entry it is (a short
    last level of a hierarchical heading)."""
    terms = defined_terms(text)
    first = (heading or "").split("; ")[0]
    title = first.split("›")[-1].strip()
    if not terms and "›" in first and title and len(title.split()) <= GLOSSARY_TITLE_WORDS:
        terms.append(title)
    return terms


def asked_term_stems(term: str, question_language: str, language: str) -> list[frozenset[str]]:
    """The asked term's stems in a passage's ``language``: as written, or carried over by the legal term list."""
    if not term:
        return []
    if question_language == language:
        return [frozenset(tokenize(term, language))]
    try:
        carried = load_glossary().translate(term, question_language, language, 2)
    except Exception:  # noqa: BLE001 - no term list: the term is not matched across languages
        return []
    return [frozenset(tokenize(c, language)) for c in carried]


def defined_stems(text: str, heading: str, language: str) -> frozenset[frozenset[str]]:
    return frozenset(frozenset(tokenize(t, language)) for t in terms_defined_by(text, heading))


def defines(asked: list[frozenset[str]], defined: frozenset[frozenset[str]]) -> bool:
    return any(a and a in defined for a in asked)
