"""Step 3.1/3.3: an approved proposal into the graph, in one transaction through the GraphWriteService.

New Concept nodes (key ``domain|kind|jurisdiction`` like every concept, a Label per title so chat capture
resolves to them), relations with their reverse or mirror (the write service adds it), Quote -SUPPORTS->
Concept for new and existing concepts, and the Content's ``processed_date``. A new concept whose key exists by
commit time (captured meanwhile in a chat) is not overwritten: its quotes go to the existing node. Committing
an already processed content writes nothing.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from regintel.concepts.lexicon import concept_kind
from regintel.extraction.content import quote_key
from regintel.extraction.proposal import ContentInfo, Proposal
from regintel.graph import queries
from regintel.graph.resolver import label_key
from regintel.graph.schema import DOMAIN_LABELS, concept_key
from regintel.graph.store import GraphStore
from regintel.graph.write_service import GraphWriteService
from regintel.text.normalise import fold_for_comparison, normalise_code

DEFAULT_DOMAIN = "REGULATORY"


@dataclass
class CommitResult:
    concepts: list[dict[str, str]] = field(default_factory=list)  # {ref, key, id, title}
    relations: int = 0
    supports: int = 0
    processed_date: str = ""
    already_processed: bool = False
    merged_into_existing: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"concepts": self.concepts, "relations": self.relations, "supports": self.supports,
                "processed_date": self.processed_date, "merged_into_existing": self.merged_into_existing}


def new_concept_key(content: ContentInfo, title: str) -> str:
    return concept_key(content.domain or DEFAULT_DOMAIN, concept_kind(title), content.jurisdiction or "EU")


def commit_proposal(store: GraphStore, writer: GraphWriteService, content: ContentInfo, proposal: Proposal,
                    concept_language: str, retry: bool = False) -> CommitResult:
    """``retry``: the run's earlier commit was not confirmed by the graph, so it is written again (every write is
    a MERGE) even if the content already carries its ``processed_date``."""
    keys = {c.id: new_concept_key(content, c.title) for c in proposal.concepts}
    current = store.query(queries.CONTENT_BY_KEY, {"key": content.key})
    if current and current[0].get("processed_date") and not retry:
        return CommitResult(concepts=_committed(store, proposal, keys), already_processed=True,
                            processed_date=current[0]["processed_date"])
    taken = {row["key"]: row for row in store.query(queries.CONCEPTS_BY_KEYS, {"keys": list(keys.values())})}
    result = CommitResult(processed_date=datetime.now(timezone.utc).isoformat(timespec="seconds"))
    creating = [c for c in proposal.concepts if keys[c.id] not in taken]
    result.merged_into_existing = [c.title for c in proposal.concepts if keys[c.id] in taken]
    domain = normalise_code(content.domain or DEFAULT_DOMAIN)
    jurisdiction = normalise_code(content.jurisdiction or "EU")
    ids = {c.id: str(uuid.uuid4()) for c in creating}
    with writer.batch():
        writer.create_concepts([{
            "key": keys[c.id], "id": ids[c.id],
            "props": {"domain": domain, "kind": concept_kind(c.title), "jurisdiction": jurisdiction,
                      "pref_label": c.title, "definition": c.concept, "short_summary": c.short_summary,
                      "summary": c.summary, "analysis": c.analysis, "language": concept_language, "origin": "extraction",
                      "source_urls": [content.source_url] if content.source_url.startswith(("http://", "https://")) else []},
        } for c in creating])
        specific = DOMAIN_LABELS.get(domain)
        for c in creating:
            if specific:
                writer.add_specific_label("Concept", keys[c.id], specific)
        labels = [{"key": label_key(content.jurisdiction or "EU", c.title), "text": c.title,
                   "normalised": fold_for_comparison(c.title), "jurisdiction": jurisdiction,
                   "concept": keys[c.id]} for c in creating]
        writer.upsert_nodes("Label", [{k: v for k, v in row.items() if k != "concept"} for row in labels])
        writer.upsert_edges("HAS_LABEL", "Concept", "Label", [{"from": r["concept"], "to": r["key"]} for r in labels])
        by_type: dict[str, list[dict]] = {}
        for relation in proposal.relations:
            source, target = keys.get(relation.source, relation.source), keys.get(relation.target, relation.target)
            if source == target:
                continue
            by_type.setdefault(relation.type, []).append({"from": source, "to": target, "props": {
                "explanation": relation.explanation[:1000], "confidence": float(relation.confidence), "source": "extraction"}})
        for rel_type, rows in by_type.items():
            writer.upsert_edges(rel_type, "Concept", "Concept", rows)
            result.relations += len(rows)
        supports = [{"from": quote_key(content.key, int(q[1:])), "to": keys[c.id], "props": {"source": "extraction"}}
                    for c in proposal.concepts for q in c.source_quote_ids]
        supports += [{"from": quote_key(content.key, int(q[1:])), "to": e.key, "props": {"source": "extraction"}}
                     for e in proposal.existing for q in e.quote_ids]
        writer.upsert_edges("SUPPORTS", "Quote", "Concept", supports)
        result.supports = len(supports)
        writer.upsert_nodes("Content", [{"key": content.key, "processed_date": result.processed_date}])
    result.concepts = _committed(store, proposal, keys)
    return result


def _committed(store: GraphStore, proposal: Proposal, keys: dict[str, str]) -> list[dict[str, str]]:
    """The graph's id of each new concept (read back, so a retried commit reports the ids the graph kept)."""
    found = {row["key"]: row for row in store.query(queries.CONCEPTS_BY_KEYS, {"keys": list(keys.values())})}
    return [{"ref": c.id, "key": keys[c.id], "id": found.get(keys[c.id], {}).get("id") or "", "title": c.title}
            for c in proposal.concepts]


def unconfirmed(store: GraphStore, content: ContentInfo, result: CommitResult) -> list[str]:
    """What the graph does not hold of a commit, read back after its transaction: missing concept keys, and the
    content key if its ``processed_date`` is not the one written (empty: confirmed)."""
    keys = [c["key"] for c in result.concepts]
    found = {row["key"] for row in store.query(queries.CONCEPTS_BY_KEYS, {"keys": keys})}
    missing = [key for key in keys if key not in found]
    current = store.query(queries.CONTENT_BY_KEY, {"key": content.key})
    if not current or not current[0].get("processed_date"):
        missing.append(content.key)
    return missing
