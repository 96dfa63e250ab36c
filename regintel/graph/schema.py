"""Graph schema: the only labels, relation types and properties that may be written (docs/architecture.md).

Relation types are never interpolated from input: a write names a type from RELATION_TYPES, and the query text
comes from a fixed template per type. Concepts are keyed on ``domain|kind|jurisdiction`` (normalised), so VAT in
Ireland and VAT in Spain stay distinct and aliases hang off the concept as Label nodes.
"""

from __future__ import annotations

from regintel.text.normalise import normalise_code

NODE_LABELS = ("Jurisdiction", "Regime", "Rule", "Section", "Concept", "Label", "Content", "Quote")

# Semantic relations between concepts, with their reverse: asymmetric pairs and symmetric types (mirror).
REVERSE = {
    "GENERALIZES": "SPECIFIC_OF",
    "SPECIFIC_OF": "GENERALIZES",
    "PART_OF": "HAS_PART",
    "HAS_PART": "PART_OF",
    "SUPPORTS": "SUPPORTED_BY",
    "SUPPORTED_BY": "SUPPORTS",
    "OPPOSES": "OPPOSES",
    "SIMILAR_TO": "SIMILAR_TO",
    "RELATES_TO": "RELATES_TO",
}
SEMANTIC_RELATIONS = tuple(REVERSE)
STRUCTURAL_RELATIONS = ("IN_JURISDICTION", "PART_OF_RULE", "CITES", "DEFINED_IN", "MENTIONED_IN", "HAS_LABEL", "HAS_QUOTE")
RELATION_TYPES = SEMANTIC_RELATIONS + STRUCTURAL_RELATIONS

# Properties each label may carry (besides created_at / updated_at, set by the write service).
NODE_PROPERTIES: dict[str, frozenset[str]] = {
    "Jurisdiction": frozenset({"code", "name"}),
    "Regime": frozenset({"key", "name", "jurisdiction"}),
    "Rule": frozenset({"key", "title", "short_title", "jurisdiction", "language", "authority_level", "source_url", "celex"}),
    "Section": frozenset({"key", "rule_key", "ref", "heading", "section_path", "source_url", "chunk_ids"}),
    "Concept": frozenset({"key", "id", "domain", "kind", "jurisdiction", "pref_label", "alt_labels", "definition",
                          "source_urls", "specific_label", "status", "enriched_at", "short_summary", "summary",
                          "analysis", "language", "origin", "merged_into"}),
    "Label": frozenset({"key", "text", "normalised", "jurisdiction"}),
    "Content": frozenset({"key", "title", "author", "category", "source_url", "processed_date", "domain",
                          "jurisdiction", "language", "origin"}),
    "Quote": frozenset({"key", "text", "content_key", "position"}),
}
EDGE_PROPERTIES = frozenset({"evidence", "explanation", "chunk_id", "reference_text", "source", "confidence"})
TIMESTAMPS = ("created_at", "updated_at")

# Specific labels per concept domain (a second label on the Concept node where the schema has one).
DOMAIN_LABELS = {
    "TAX": "TaxConcept",
    "DATA_PROTECTION": "DataProtectionConcept",
    "OPERATIONAL_RESILIENCE": "ResilienceConcept",
    "SUSTAINABILITY_REPORTING": "SustainabilityConcept",
}
SPECIFIC_LABELS = tuple(DOMAIN_LABELS.values())


def concept_key(domain: str, kind: str, jurisdiction: str) -> str:
    return f"{normalise_code(domain)}|{normalise_code(kind)}|{normalise_code(jurisdiction)}"
