"""Offline concept capture: known labels, legal definitions and acronym definitions found in a turn's text.

Produces the same SKOS-like payload a remote model sends through ``capture_concepts``:
{domain, kind, jurisdiction, prefLabel, altLabels, definition, sourceUrls}. Known concepts come from the seed
taxonomy (``data/taxonomy.json``) plus any labels the graph supplies; definitions are harvested from cited
passages ("'term' means ...", "« terme » : ...", "on entend par « terme »"); acronyms from "Full Name (ACR)".
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Callable, Iterable

from regintel.config import REPO_ROOT
from regintel.llm.prompt_format import PromptSource
from regintel.text.normalise import fold, normalise_code

TAXONOMY_PATH = REPO_ROOT / "data" / "taxonomy.json"
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


def concept_kind(label: str) -> str:
    """Canonical kind from a label: folded, upper case, words joined by underscores."""
    return normalise_code(label)[:60] or "CONCEPT"


@dataclass
class KnownConcept:
    domain: str
    kind: str
    jurisdiction: str
    prefLabel: str
    altLabels: list[str] = field(default_factory=list)
    definition: str = ""
    sourceUrls: list[str] = field(default_factory=list)

    def payload(self) -> dict:
        return {
            "domain": self.domain, "kind": self.kind, "jurisdiction": self.jurisdiction, "prefLabel": self.prefLabel,
            "altLabels": list(self.altLabels), "definition": self.definition, "sourceUrls": list(self.sourceUrls),
        }


class ConceptLexicon:
    """Known concepts and their labels; ``extra`` lets the graph contribute concepts captured earlier."""

    def __init__(self, concepts: Iterable[KnownConcept], document_domains: dict[str, str] | None = None,
                 extra: Callable[[], Iterable[KnownConcept]] | None = None) -> None:
        self._base = list(concepts)
        self.document_domains = dict(document_domains or {})
        self._extra = extra

    @classmethod
    def from_file(cls, path: Path = TAXONOMY_PATH, extra: Callable[[], Iterable[KnownConcept]] | None = None) -> "ConceptLexicon":
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        concepts = [KnownConcept(**{k: c.get(k, v) for k, v in KnownConcept("", "", "", "").__dict__.items()}) for c in data["concepts"]]
        return cls(concepts, data.get("document_domains", {}), extra)

    def concepts(self) -> list[KnownConcept]:
        extra: list[KnownConcept] = []
        if self._extra is not None:
            try:
                extra = list(self._extra())
            except Exception:  # the graph is a side feature: concept capture carries on without it
                extra = []
        return self._base + extra

    def domain_for(self, document_id: str) -> str:
        return self.document_domains.get(document_id, "REGULATORY")


def _label_pattern(label: str) -> re.Pattern[str]:
    return re.compile(r"(?<![a-z0-9])" + re.escape(fold(label)) + r"(?![a-z0-9])")


def match_known(text: str, lexicon: ConceptLexicon) -> list[KnownConcept]:
    """Known concepts any of whose labels occurs in the text (case and accent insensitive, whole words)."""
    folded = fold(text)
    found = []
    for concept in lexicon.concepts():
        labels = [concept.prefLabel, *concept.altLabels]
        if any(len(label) >= 2 and _label_pattern(label).search(folded) for label in labels):
            found.append(concept)
    return found


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


def harvest_definitions(source: PromptSource, lexicon: ConceptLexicon) -> list[KnownConcept]:
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


def capture_concepts(question: str, answer: str, cited: list[PromptSource], lexicon: ConceptLexicon) -> list[dict]:
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


class GraphConceptSource:
    """Known concepts read from the rules graph for the lexicon, cached for ``ttl_seconds`` (one query, not one
    per turn). A graph outage yields the last good list (or none): concept capture never breaks a turn."""

    def __init__(self, store, ttl_seconds: float = 30.0) -> None:
        self.store = store
        self.ttl_seconds = ttl_seconds
        self._cached: list[KnownConcept] = []
        self._loaded_at = float("-inf")

    def __call__(self) -> list[KnownConcept]:
        import time

        from regintel.graph import queries

        if time.monotonic() - self._loaded_at < self.ttl_seconds:
            return self._cached
        try:
            rows = self.store.query(queries.CONCEPT_LABEL_INDEX)
        except Exception:
            return self._cached
        self._cached = [
            KnownConcept(domain=r["domain"] or "", kind=r["kind"] or "", jurisdiction=r["jurisdiction"] or "",
                         prefLabel=r["pref_label"] or "", altLabels=list(r["alt_labels"] or []),
                         definition=r["definition"] or "", sourceUrls=list(r["source_urls"] or []))
            for r in rows if r.get("pref_label")
        ]
        self._loaded_at = time.monotonic()
        return self._cached
