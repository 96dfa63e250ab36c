"""Offline concept capture: known labels, legal definitions and acronym definitions found in a turn's text.

Produces the same SKOS-like payload a remote model sends through ``capture_concepts``:
{domain, kind, jurisdiction, prefLabel, altLabels, definition, sourceUrls}. Known concepts come from the seed
taxonomy (``data/taxonomy.json``) plus any labels the graph supplies (:mod:`regintel.concepts.lexicon`);
definitions are harvested from cited passages ("'term' means ...", "« terme » : ...", "on entend par « terme »");
acronyms from "Full Name (ACR)".
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterable, Protocol

from regintel.concepts.lexicon import ConceptLexicon, KnownConcept, concept_kind, match_known
from regintel.text.normalise import fold

MAX_CONCEPTS = 5
# Legal definitions: "'term' means ..." (EN), "« terme » : ..." / "on entend par « terme », ..." (FR), "«término»: ..." (ES).
# Each template has a {term} slot (any term, or one escaped term) and an {n} bound on the definition's length.
DEFINITION_TEMPLATES = {
    "en": (r"[‘'\"“]({term})[’'\"”]\s+(?:of the data subject\s+)?means:?\s+([^;]{{10,{n}}})", r"[^’'\"”]{2,80}"),
    "fr": (r"(?:on entend par\s+)?[«\"“]\s*({term})\s*[»\"”]\s*(?::|,)\s*([^;]{{10,{n}}})", r"[^»\"”]{2,80}?"),
    "es": (r"[«\"“]({term})[»\"”]\s*:\s*([^;]{{10,{n}}})", r"[^»\"”]{2,80}"),
}
ACRONYM_RE = re.compile(r"\(([A-Z][A-Z0-9\-]{1,9})\)")
SMALL_WORDS = {"of", "for", "the", "and", "on", "in", "to", "a", "an", "de", "la", "le", "des", "du", "et", "en", "el", "los", "las", "y", "del", "sur"}


class CitedPassage(Protocol):
    """What harvesting reads of a cited passage (a ``PromptSource`` of the prompt, or anything with its fields)."""

    @property
    def text(self) -> str: ...
    @property
    def document_id(self) -> str: ...
    @property
    def jurisdiction(self) -> str: ...
    @property
    def language(self) -> str: ...
    @property
    def url(self) -> str: ...


@lru_cache(maxsize=64)
def _definition_re(language: str, max_chars: int, term: str | None) -> re.Pattern[str]:
    template, any_term = DEFINITION_TEMPLATES[language]
    if term is None:
        return re.compile(template.format(term=any_term, n=max_chars))
    return re.compile(template.format(term=re.escape(term), n=max_chars), re.IGNORECASE)


def find_definitions(text: str, languages: Iterable[str], max_chars: int = 400, term: str | None = None) -> list[tuple[str, str]]:
    """(term, definition) pairs stated in text, in the given languages' styles; with ``term``, only that term's."""
    found = []
    for language in languages:
        for match in _definition_re(language, max_chars, term).finditer(text):
            found.append((match.group(1).strip(" ,"), match.group(2).strip()))
    return found


def harvest_definitions(source: CitedPassage, lexicon: ConceptLexicon) -> list[KnownConcept]:
    """Legal definitions stated in a passage, as concepts with the passage's jurisdiction and URL."""
    languages = ["en"] if source.language in {"", "en"} else ["fr", "es"]
    concepts = []
    for term, definition in find_definitions(source.text, languages):
        if not term or len(term.split()) > 8 or term.lower() == term.upper():
            continue
        concepts.append(KnownConcept(
            domain=lexicon.domain_for(source.document_id), kind=concept_kind(term),
            jurisdiction=source.jurisdiction or "EU", prefLabel=term[:1].upper() + term[1:],
            definition=definition[:400], sourceUrls=[source.url] if source.url else [],
        ))
    return concepts


def harvest_acronyms(text: str, jurisdiction: str = "EU", domain: str = "REGULATORY", url: str = "") -> list[KnownConcept]:
    """"Full Name (ACR)" pairs where the acronym's letters start words of the preceding name (Schwartz–Hearst)."""
    concepts = []
    for match in ACRONYM_RE.finditer(text):
        acronym = match.group(1)
        letters = [c for c in acronym if c.isalpha()]
        words = re.findall(r"[\w\-]+", text[max(0, match.start() - 200) : match.start()])
        long_form = _long_form(words, letters)
        if long_form:
            concepts.append(KnownConcept(domain=domain, kind=concept_kind(long_form), jurisdiction=jurisdiction,
                                         prefLabel=long_form, altLabels=[acronym], sourceUrls=[url] if url else []))
    return concepts


def _long_form(words: list[str], letters: list[str]) -> str:
    """The shortest run of trailing words whose significant-word initials spell the acronym."""
    significant = 0
    for start in range(len(words) - 1, max(-1, len(words) - 2 * len(letters) - 3), -1):
        candidate = words[start:]
        initials = [w[0].upper() for w in candidate if w.lower() not in SMALL_WORDS]
        hyphen_initials = [p[0].upper() for w in candidate if w.lower() not in SMALL_WORDS for p in w.split("-") if p]
        if words[start].lower() in SMALL_WORDS:
            continue
        target = [c.upper() for c in letters]
        if initials == target or hyphen_initials == target:
            return " ".join(candidate)
        significant += 1
    return ""


def capture_concepts(question: str, answer: str, cited: list[CitedPassage], lexicon: ConceptLexicon) -> list[dict]:
    """Up to five concepts for the turn: known labels in the question, then in the answer, then definitions and
    acronyms from the cited passages that concern terms the turn mentions. Deduplicated by key."""
    chosen: dict[tuple[str, str, str], KnownConcept] = {}

    def add(concept: KnownConcept) -> None:
        key = (concept.domain, concept.kind, concept.jurisdiction)
        if key not in chosen and len(chosen) < MAX_CONCEPTS:
            chosen[key] = concept

    for concept in match_known(question, lexicon):
        add(concept)
    turn_text = fold(question + " " + answer)
    for source in cited:
        for concept in harvest_definitions(source, lexicon):
            if fold(concept.prefLabel) in turn_text:
                add(concept)
        domain = lexicon.domain_for(source.document_id)
        for concept in harvest_acronyms(source.text, source.jurisdiction or "EU", domain, source.url):
            if any(fold(label) in turn_text for label in [concept.prefLabel, *concept.altLabels]):
                add(concept)
    for concept in match_known(answer, lexicon):
        add(concept)
    return [c.payload() for c in chosen.values()]
