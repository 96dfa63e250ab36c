"""The ``capture_concepts`` function tool (docs/architecture.md): SKOS-like concepts touched by a chat turn."""

from __future__ import annotations

from regintel.llm.base import ToolSpec

CAPTURE_CONCEPTS = ToolSpec(
    name="capture_concepts",
    description=(
        "Capture SKOS-like regulatory concepts mentioned in this turn (usually 1-5 important ones, "
        "not every noun phrase). Never include personal data about the user or their clients."
    ),
    parameters={
        "type": "object",
        "properties": {
            "concepts": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "domain": {"type": "string", "description": "e.g. DATA_PROTECTION, TAX, OPERATIONAL_RESILIENCE"},
                        "kind": {"type": "string", "description": "e.g. PERSONAL_DATA, VAT, ICT_RISK"},
                        "jurisdiction": {"type": "string", "description": "e.g. EU, BE, IE"},
                        "prefLabel": {"type": "string"},
                        "altLabels": {"type": "array", "items": {"type": "string"}},
                        "definition": {"type": "string"},
                        "sourceUrls": {"type": "array", "items": {"type": "string"}},
                    },
                    "required": ["domain", "kind", "jurisdiction", "prefLabel"],
                },
            }
        },
        "required": ["concepts"],
    },
)
