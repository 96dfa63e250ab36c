"""CanonicalConceptResolver: one node per regulatory concept, however it is named.

``resolve_or_create`` normalises the input, matches the concept key ``domain|kind|jurisdiction``, else an
existing alias (Label) of the same jurisdiction, else creates the concept with a specific label for its domain.
New names become Label nodes (``HAS_LABEL``), so "sales tax in Ireland" resolves to VAT/IE while VAT/ES stays a
different node. Creation is a MERGE on the unique key, so concurrent resolutions yield one node.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from regintel.graph import queries
from regintel.graph.schema import DOMAIN_LABELS, concept_key
from regintel.graph.store import GraphStore
from regintel.graph.write_service import GraphWriteService, now_ms
from regintel.text.normalise import fold_for_comparison, normalise_code, printable

MAX_LABEL = 200


@dataclass
class CanonicalConceptInput:
    domain: str
    kind: str
    jurisdiction: str
    pref_label: str
    alt_labels: list[str] = field(default_factory=list)
    definition: str = ""
    source_urls: list[str] = field(default_factory=list)

    @classmethod
    def from_payload(cls, payload: dict[str, Any]) -> "CanonicalConceptInput":
        """From the ``capture_concepts`` SKOS shape (camelCase keys)."""
        return cls(  # printable text only: no control, zero-width or direction characters reach the graph
            domain=printable(payload["domain"]), kind=printable(payload["kind"]), jurisdiction=printable(payload["jurisdiction"]),
            pref_label=printable(payload["prefLabel"]), alt_labels=[printable(a) for a in payload.get("altLabels") or []],
            definition=printable(payload.get("definition") or ""),
            source_urls=[printable(u) for u in payload.get("sourceUrls") or []],
        )

    def to_payload(self) -> dict[str, Any]:
        """Back to the ``capture_concepts`` shape (what a queued capture job stores)."""
        return {"domain": self.domain, "kind": self.kind, "jurisdiction": self.jurisdiction, "prefLabel": self.pref_label,
                "altLabels": list(self.alt_labels), "definition": self.definition, "sourceUrls": list(self.source_urls)}


@dataclass
class CanonicalConceptResult:
    id: str
    key: str
    labels: list[str]
    created: bool = False
    matched_by: str = "key"  # key / alias / created


def label_key(jurisdiction: str, text: str) -> str:
    return f"{normalise_code(jurisdiction)}|{fold_for_comparison(text)}"


class CanonicalConceptResolver:
    def __init__(self, store: GraphStore, writer: GraphWriteService | None = None) -> None:
        self.store = store
        self.writer = writer or GraphWriteService(store)

    def resolve_or_create(self, item: CanonicalConceptInput) -> CanonicalConceptResult:
        key = concept_key(item.domain, item.kind, item.jurisdiction)
        if key.count("|") != 2 or any(not part for part in key.split("|")):
            raise ValueError("domain, kind and jurisdiction must not be empty")
        names = _names(item)
        if not names:
            raise ValueError("prefLabel must not be empty")
        found = self.store.query(queries.CONCEPT_BY_KEY, {"key": key})
        for _ in range(5):  # a concept a curator merged away resolves to the one it was merged into
            if not found or not found[0].get("merged_into"):
                break
            found = self.store.query(queries.CONCEPT_BY_KEY, {"key": found[0]["merged_into"]})
        matched_by = "key"
        if not found:
            label_keys = [label_key(item.jurisdiction, n) for n in names]
            found = self.store.query(queries.CONCEPT_BY_ALIAS, {"label_keys": label_keys})
            matched_by = "alias"
        if found:
            row = found[0]
            self._attach(row["key"], item.jurisdiction, names, row, item)
            return CanonicalConceptResult(row["id"], row["key"], list(row["labels"]), False, matched_by)
        return self._create(key, item, names)

    def _create(self, key: str, item: CanonicalConceptInput, names: list[str]) -> CanonicalConceptResult:
        domain, kind, jurisdiction = key.split("|")
        specific = DOMAIN_LABELS.get(domain)
        props = {"key": key, "domain": domain, "kind": kind, "jurisdiction": jurisdiction,
                 "pref_label": item.pref_label.strip()[:MAX_LABEL], "definition": item.definition.strip()}
        # the guard sees every value before the MERGE runs (the MERGE itself is a fixed query)
        self.writer.guard.check_node("Concept", key, {k: v for k, v in props.items() if k != "key"})
        new_id = str(uuid.uuid4())
        self.writer.guard.check_node("Concept", key, {"id": new_id})
        rows = self.store.write(queries.CREATE_CONCEPT, {**props, "id": new_id, "now": now_ms()})
        concept_id = rows[0]["id"]
        with self.writer.batch():
            if specific:
                self.writer.add_specific_label("Concept", key, specific)
            self._labels_and_sources(key, jurisdiction, names, item, existing_alt=[])
        labels = ["Concept", specific] if specific else ["Concept"]
        return CanonicalConceptResult(concept_id, key, labels, created=concept_id == new_id,
                                      matched_by="created" if concept_id == new_id else "key")

    def _attach(self, key: str, jurisdiction: str, names: list[str], row: dict, item: CanonicalConceptInput) -> None:
        existing_alt = list(row.get("alt_labels") or [])
        known = {fold_for_comparison(n) for n in [row.get("pref_label") or "", *existing_alt]}
        new_names = [n for n in names if fold_for_comparison(n) not in known]
        fill_definition = bool(item.definition.strip()) and not (row.get("definition") or "").strip()
        if not new_names and not fill_definition:
            return
        with self.writer.batch():
            if fill_definition:
                self.writer.upsert_nodes("Concept", [{"key": key, "definition": item.definition.strip()}])
            self._labels_and_sources(key, jurisdiction, new_names, item, existing_alt)

    def _labels_and_sources(self, key: str, jurisdiction: str, names: list[str], item: CanonicalConceptInput,
                            existing_alt: list[str]) -> None:
        pref = item.pref_label.strip()
        alt = existing_alt + [n for n in names if fold_for_comparison(n) != fold_for_comparison(pref)
                              and fold_for_comparison(n) not in {fold_for_comparison(a) for a in existing_alt}]
        props: dict[str, Any] = {"key": key, "alt_labels": alt[:50]}
        if item.source_urls:
            props["source_urls"] = [u for u in item.source_urls if u.startswith(("http://", "https://"))][:20]
        self.writer.upsert_nodes("Concept", [props])
        rows = [{"key": label_key(jurisdiction, n), "text": n, "normalised": fold_for_comparison(n),
                 "jurisdiction": normalise_code(jurisdiction)} for n in names]
        self.writer.upsert_nodes("Label", rows)
        self.writer.upsert_edges("HAS_LABEL", "Concept", "Label", [{"from": key, "to": r["key"]} for r in rows])


def _names(item: CanonicalConceptInput) -> list[str]:
    """Preferred label first, then aliases; trimmed, de-duplicated by their folded form."""
    names, seen = [], set()
    for name in [item.pref_label, *item.alt_labels]:
        text = " ".join(str(name).split())[:MAX_LABEL]
        folded = fold_for_comparison(text)
        if folded and folded not in seen:
            seen.add(folded)
            names.append(text)
    return names
