"""The Concept domain's lexicon: known concepts (the seed taxonomy ``data/taxonomy.json`` plus the concepts the
rules graph holds), their canonical kind, and matching their labels in text (case and accent insensitive)."""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from regintel.config import REPO_ROOT
from regintel.graph import queries
from regintel.text.normalise import fold, normalise_code

TAXONOMY_PATH = REPO_ROOT / "data" / "taxonomy.json"


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


class GraphConceptSource:
    """Known concepts read from the rules graph for the lexicon, cached for ``ttl_seconds`` (one query, not one
    per turn). A graph outage yields the last good list (or none): concept capture never breaks a turn."""

    def __init__(self, store, ttl_seconds: float = 30.0) -> None:
        self.store = store
        self.ttl_seconds = ttl_seconds
        self._cached: list[KnownConcept] = []
        self._loaded_at = float("-inf")

    def __call__(self) -> list[KnownConcept]:
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
