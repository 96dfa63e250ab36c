"""Enrichment of concepts from the local corpus, only when one is missing or clearly sparse (docs/architecture.md).

``graph_has_useful_detail`` says whether a concept already has a definition, at least one linked section and a
recent enrichment. When it has not, the chat turn enqueues an ``enrich_concept`` job; the worker runs
:class:`ConceptEnricher`, which searches the corpus for the concept's labels and links the Concept
``DEFINED_IN`` the section that defines it ("'term' means ...", "« terme » : ...") and ``MENTIONED_IN`` sections
that use it, with a short evidence quote, filling the definition when the concept has none.
"""

from __future__ import annotations

import logging
from typing import Any

from regintel.concepts.harvest import find_definitions
from regintel.graph import queries
from regintel.graph.guard import IngressRejected
from regintel.graph.seed import section_key
from regintel.graph.store import GraphStore
from regintel.graph.write_service import GraphWriteService, now_ms
from regintel.text.normalise import fold_for_comparison

log = logging.getLogger(__name__)
STALE_AFTER_MS = 30 * 24 * 3600 * 1000
ENRICH_JOB = "enrich_concept"


def graph_has_useful_detail(store: GraphStore, key: str, now: int | None = None) -> bool:
    rows = store.query(queries.CONCEPT_DETAIL, {"key": key})
    if not rows:
        return False
    row = rows[0]
    fresh = row.get("enriched_at") is not None and (now or now_ms()) - int(row["enriched_at"]) < STALE_AFTER_MS
    return bool((row.get("definition") or "").strip()) and int(row.get("sections") or 0) > 0 and fresh


def gate_enrichment(store: GraphStore, queue: Any, key: str) -> bool:
    """Enqueue an enrichment job when the concept is sparse; True when a job was created."""
    if graph_has_useful_detail(store, key):
        return False
    _, created = queue.enqueue(ENRICH_JOB, key, {"key": key})
    return created


def _definition_in(text: str, label: str) -> str:
    """The definition of ``label`` stated in text ("'label' means ...", "« label » : ..."), or ''."""
    found = find_definitions(text, ("en", "fr"), max_chars=600, term=label)  # the French style covers «término»:
    return found[0][1] if found else ""


def _snippet(text: str, label: str, width: int = 280) -> str:
    position = fold_for_comparison(text).find(fold_for_comparison(label))
    start = max(0, position - width // 3) if position >= 0 else 0
    return " ".join(text[start:start + width].split())


class ConceptEnricher:
    def __init__(self, store: GraphStore, search_index: Any, writer: GraphWriteService | None = None, hits_per_label: int = 8) -> None:
        self.store = store
        self.search = search_index
        self.writer = writer or GraphWriteService(store)
        self.hits_per_label = hits_per_label

    def enrich(self, key: str) -> dict[str, Any]:
        rows = self.store.query(queries.CONCEPT_BY_KEY, {"key": key})
        if not rows:
            raise LookupError(f"concept {key} not found")
        concept = rows[0]
        jurisdiction = key.split("|")[2]
        labels = [l for l in [concept.get("pref_label") or "", *(concept.get("alt_labels") or [])] if len(l.strip()) >= 3][:4]
        corpus_jurisdictions = {c.jurisdiction for c in self.search.chunks.values()}
        allowed = [j for j in {jurisdiction, "EU"} if j in corpus_jurisdictions]
        filters = {"jurisdiction": allowed} if allowed else None
        defined: dict[str, str] = {}
        mentioned: dict[str, str] = {}
        definition = ""
        # definitions are exact text patterns: scan every chunk of the allowed jurisdictions (cheap, deterministic)
        for chunk in self.search.chunks.values():
            if allowed and chunk.jurisdiction not in allowed:
                continue
            for label in labels:
                stated = _definition_in(chunk.text, label) if fold_for_comparison(label) in fold_for_comparison(chunk.text) else ""
                if stated:
                    defined.setdefault(section_key(chunk), stated[:280])
                    definition = definition or stated
        # mentions: the best-ranked passages that use one of the labels, in sections other than the defining ones
        # (a bare label ranks its definitions article's parts first: search wider, keep hits_per_label sections)
        for label in labels:
            found = 0
            for source in self.search.search(label, k=self.hits_per_label * 3, filters=filters).sources:
                section = section_key(source)
                if found < self.hits_per_label and section not in defined and section not in mentioned \
                        and fold_for_comparison(label) in fold_for_comparison(source.text):
                    mentioned[section] = _snippet(source.text, label)
                    found += 1
        linked = {"DEFINED_IN": 0, "MENTIONED_IN": 0, "rejected": 0}
        for rel_type, sections in (("DEFINED_IN", defined), ("MENTIONED_IN", {k: v for k, v in mentioned.items() if k not in defined})):
            for section, evidence in sections.items():
                try:  # one rejected evidence quote (e.g. a public contact e-mail) does not stop the others
                    self.writer.upsert_edges(rel_type, "Concept", "Section", [{"from": key, "to": section, "props": {"evidence": evidence}}])
                    linked[rel_type] += 1
                except IngressRejected as exc:
                    log.info("evidence for %s in %s rejected: %s", key, section, exc)
                    linked["rejected"] += 1
        update: dict[str, Any] = {"key": key, "enriched_at": now_ms()}
        if definition and not (concept.get("definition") or "").strip():
            update["definition"] = definition[:1000]
        try:
            self.writer.upsert_nodes("Concept", [update])
        except IngressRejected:
            self.writer.upsert_nodes("Concept", [{"key": key, "enriched_at": now_ms()}])
        return {**linked, "definition_filled": "definition" in update}


def enrich_job_handler(enricher: ConceptEnricher):
    def handle(payload: dict[str, Any]) -> dict[str, Any]:
        return enricher.enrich(str(payload["key"]))

    return handle


__all__ = ["ConceptEnricher", "ENRICH_JOB", "gate_enrichment", "graph_has_useful_detail"]
