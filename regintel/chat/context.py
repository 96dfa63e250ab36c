"""Unified context of a turn (seed 003): what the model sees, as one numbered list of passages.

Order: the immediate previous turn's passages in full (the user is probably asking about them), then the
citations older turns actually used (most recent turn first), then the passages of a fresh retrieval. A passage
appears once (its first place wins) and the list is re-indexed [1]..[n]. Each entry keeps its full text, so a
citation from three turns ago still opens its passage.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Iterable, Sequence

from regintel.llm.prompt_format import PromptSource


@dataclass(frozen=True)
class ContextPassage:
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
    origin: str = "current"  # "previous" / "history" / "current"
    turns_ago: int = 0
    index: int = 0

    @classmethod
    def from_source(cls, source, origin: str = "current", turns_ago: int = 0) -> "ContextPassage":
        return cls(source.chunk_id, source.document_id, source.title, source.ref, source.url, source.text,
                   float(source.similarity), source.authority_level, float(source.authority_score),
                   getattr(source, "jurisdiction", ""), getattr(source, "language", ""), origin, turns_ago)

    def prompt_source(self) -> PromptSource:
        return PromptSource(self.index, self.text, self.title, self.ref, self.document_id, self.jurisdiction,
                            self.language, self.url, self.authority_level, self.similarity)


def build_unified_context(
    previous_turn: Sequence[ContextPassage] = (),
    older_turns_used: Iterable[Sequence[ContextPassage]] = (),
    fresh: Sequence[ContextPassage] = (),
    limit: int = 20,
) -> list[ContextPassage]:
    """``older_turns_used``: for each older turn, most recent first, the passages its answer cited."""
    ordered: list[ContextPassage] = [replace(p, origin="previous", turns_ago=1) for p in previous_turn]
    for turns_ago, used in enumerate(older_turns_used, start=2):
        ordered += [replace(p, origin="history", turns_ago=turns_ago) for p in used]
    ordered += [replace(p, origin="current", turns_ago=0) for p in fresh]
    unified: list[ContextPassage] = []
    seen: set[str] = set()
    for passage in ordered:
        if passage.chunk_id in seen:
            continue
        seen.add(passage.chunk_id)
        unified.append(replace(passage, index=len(unified) + 1))
        if len(unified) >= limit:
            break
    return unified
