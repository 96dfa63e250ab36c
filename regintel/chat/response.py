"""ChatResponse: what one chat turn returns after its text has streamed (the CLI prints it as JSON).

Every field a citation chip, a badge, the dashboard or a script needs; ``to_dict`` is the stable JSON shape.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from regintel.chat.context import ContextPassage
from regintel.graph.referenced import SECTION_NODE, concept_nodes

__all__ = ["ABSTAIN", "ChatResponse", "CitedSource", "SECTION_NODE", "concept_nodes"]

DIRECT, QUALIFIED, ABSTAIN = "DIRECT", "QUALIFIED", "ABSTAIN"
RESPONSE_MODES = (DIRECT, QUALIFIED, ABSTAIN)


@dataclass
class CitedSource:
    """One passage of the turn's unified context, numbered as the answer cites it."""

    index: int
    chunk_id: str
    document_id: str
    title: str
    ref: str
    url: str
    text: str
    similarity: float
    authority_level: str
    authority_score: float
    jurisdiction: str = ""
    language: str = ""
    heading: str = ""
    origin: str = "current"  # current / previous / history
    turns_ago: int = 0
    used: bool = False  # cited by the answer
    page: int | None = None  # the PDF page the passage starts on
    version: str = ""  # the document's version and currency when the turn was answered (issue 23)
    last_verified: str = ""
    deprecated: bool = False
    currency_warning: str = ""
    removed: bool = False  # the document has since been removed from the corpus (set when an old turn is shown)

    @classmethod
    def from_passage(cls, passage: ContextPassage, used: bool) -> "CitedSource":
        s = passage.source
        return cls(passage.index, s.chunk_id, s.document_id, s.title, s.ref, s.url, s.text, s.similarity,
                   s.authority_level, s.authority_score, s.jurisdiction, s.language, s.heading,
                   passage.origin, passage.turns_ago, used, s.page, s.version, s.last_verified, s.deprecated,
                   s.currency_warning)


@dataclass
class ChatResponse:
    answer: str
    response_mode: str
    conversation_id: str
    query_type: str = ""
    abstention_reason: str | None = None
    concerns: list[str] = field(default_factory=list)  # reasons an answer is QUALIFIED rather than DIRECT
    refused: bool = False
    refusal_reason: str = ""
    suggestions: list[str] = field(default_factory=list)
    sources: list[CitedSource] = field(default_factory=list)
    # [{id, key, label}] concepts captured or reused by the turn, then the Sections its answer cites ({..., kind:
    # "section"}): the Graph Explorer highlights both; "concepts" means the first kind only (see concept_nodes)
    referenced_nodes: list[dict[str, Any]] = field(default_factory=list)
    confidence: dict[str, Any] = field(default_factory=lambda: {"level": "low", "score": 0.0})
    authority: dict[str, Any] = field(default_factory=lambda: {"level": "low", "score": 0.0})
    claim_verification: dict[str, Any] = field(default_factory=dict)
    context_decision: dict[str, Any] = field(default_factory=dict)
    from_cache: bool = False
    status: str = "complete"  # complete / failed
    error: str = ""
    message_id: str = ""
    trace_id: str = ""
    turn_index: int = 0
    latency_ms: float = 0.0
    llm: dict[str, Any] = field(default_factory=dict)

    @property
    def cited(self) -> list[CitedSource]:
        return [s for s in self.sources if s.used]

    @property
    def concept_nodes(self) -> list[dict[str, Any]]:
        """The referenced concepts, without the cited Sections."""
        return concept_nodes(self.referenced_nodes)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ChatResponse":
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        known["sources"] = [CitedSource(**s) for s in data.get("sources", [])]
        return cls(**known)
