"""The shapes of an extraction: quotes, the proposal (new concepts, existing-concept attributions, relations,
unattributed quotes) and the critique. Pydantic models, so the LLM path gets JSON schemas and validated parsing
from the same definitions the offline path fills in, and a revision round-trips through the SQL store as JSON.

Identifiers: quotes are ``q1``, ``q2`` ... in content order; new concepts ``n1``, ``n2`` ... (never reused within
a run); existing concepts are named by their graph key. The report numbers new concepts 1, 2, ... by position,
which is what the curator's feedback commands refer to.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from regintel.graph.schema import REVERSE

RelationType = Literal[
    "GENERALIZES", "SPECIFIC_OF", "PART_OF", "HAS_PART", "SUPPORTS", "SUPPORTED_BY", "OPPOSES", "SIMILAR_TO", "RELATES_TO"
]
RELATION_DESCRIPTIONS = {
    "GENERALIZES": "the source is a broader concept that encompasses the target",
    "SPECIFIC_OF": "the source is a specific kind of the target",
    "PART_OF": "the source is a component of the target",
    "HAS_PART": "the target is a component of the source",
    "SUPPORTS": "the source provides evidence or grounds for the target",
    "SUPPORTED_BY": "the target provides evidence or grounds for the source",
    "OPPOSES": "the two concepts are in direct opposition",
    "SIMILAR_TO": "the two concepts are related but distinct",
    "RELATES_TO": "a general relationship",
}
assert set(RELATION_DESCRIPTIONS) == set(REVERSE)
CHECKS = ("atomicity", "distinctness", "quote_coverage", "relation_accuracy", "language", "edge_cases")


class Quote(BaseModel):
    id: str  # q1, q2 ... (display id, stable for the content)
    key: str  # graph key of the Quote node
    text: str


class NewConcept(BaseModel):
    id: str = Field(description="Temporary id of the new concept: n1, n2, ...")
    title: str = Field(description="Short name of the concept")
    concept: str = Field(description="What the concept is: one self-contained idea")
    analysis: str = Field("", description="Why it matters, how it is used")
    short_summary: str = Field("", description="At most 30 words")
    summary: str = Field("", description="At most 100 words")
    source_quote_ids: list[str] = Field(default_factory=list, description="Quotes that formed this concept")
    rationale: str = Field("", description="Why this concept was extracted from these quotes")


class ExistingAttribution(BaseModel):
    key: str = Field(description="Graph key of the existing concept")
    title: str
    quote_ids: list[str] = Field(default_factory=list, description="Quotes that support the existing concept")
    reasoning: str = ""
    confidence: float = Field(1.0, allow_inf_nan=False)  # NaN would be written as invalid JSON
    duplicate_of: str = Field("", description="Title of the candidate found to duplicate this concept, if any")


class Relation(BaseModel):
    source: str = Field(description="New concept id (n1) or existing concept key")
    type: RelationType
    target: str = Field(description="New concept id (n2) or existing concept key")
    explanation: str = ""
    confidence: float = Field(1.0, allow_inf_nan=False)  # NaN would be written as invalid JSON


class Proposal(BaseModel):
    concepts: list[NewConcept] = Field(default_factory=list)
    existing: list[ExistingAttribution] = Field(default_factory=list)
    relations: list[Relation] = Field(default_factory=list)
    unattributed: dict[str, str] = Field(default_factory=dict, description="quote id -> why it supports no concept")
    notes: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)

    # -- look-ups ---------------------------------------------------------------------------------------------
    def concept(self, concept_id: str) -> NewConcept | None:
        return next((c for c in self.concepts if c.id == concept_id), None)

    def number_of(self, concept_id: str) -> int:
        """1-based position of a new concept (what the report shows and feedback commands use)."""
        return next(i for i, c in enumerate(self.concepts, 1) if c.id == concept_id)

    def next_concept_id(self, used: set[str] | None = None) -> str:
        taken = {c.id for c in self.concepts} | (used or set())
        numbers = [int(i[1:]) for i in taken if i.startswith("n") and i[1:].isdecimal()]  # "n²".isdigit(), int fails
        return f"n{max(numbers, default=0) + 1}"

    def is_new(self, ref: str) -> bool:
        return self.concept(ref) is not None

    def attributions(self) -> dict[str, list[str]]:
        """quote id -> the concepts (new ids and existing keys) it supports."""
        result: dict[str, list[str]] = {}
        for concept in self.concepts:
            for quote_id in concept.source_quote_ids:
                result.setdefault(quote_id, []).append(concept.id)
        for existing in self.existing:
            for quote_id in existing.quote_ids:
                result.setdefault(quote_id, []).append(existing.key)
        return result

    def disconnected(self) -> list[str]:
        linked = {r.source for r in self.relations} | {r.target for r in self.relations}
        return [c.id for c in self.concepts if c.id not in linked]


class Issue(BaseModel):
    subject: str = Field("", description="Concept id, quote id or relation the issue is about")
    issue: str
    severity: Literal["high", "medium", "low"] = "medium"


class CheckResult(BaseModel):
    passes: bool = True
    issues: list[Issue] = Field(default_factory=list)


class Critique(BaseModel):
    checks: dict[str, CheckResult] = Field(default_factory=dict)
    overall_passes: bool = True
    summary: str = ""
    suggestions: list[str] = Field(default_factory=list)

    @classmethod
    def from_checks(cls, checks: dict[str, CheckResult], suggestions: list[str]) -> "Critique":
        failing = [name for name in CHECKS if not checks.get(name, CheckResult()).passes]
        summary = "All checks pass." if not failing else "Failing: " + ", ".join(failing) + "."
        return cls(checks=checks, overall_passes=not failing, summary=summary, suggestions=suggestions)


class ContentMetadata(BaseModel):
    """What is known about a source beside its text: shared by a draft and the Content node it becomes."""

    author: str = ""
    category: str = ""
    source_url: str = ""
    domain: str = ""
    jurisdiction: str = ""
    language: str = ""

    def metadata(self) -> dict[str, str]:
        return self.model_dump(include=set(ContentMetadata.model_fields))


class ContentInfo(ContentMetadata):
    """A Content node as the workflow sees it."""

    key: str
    title: str
    processed_date: str = ""
