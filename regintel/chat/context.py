"""Unified context of a turn (docs/architecture.md): what the model sees, as one numbered list of passages.

Order: the immediate previous turn's passages in full (the user is probably asking about them), then the
citations older turns actually used (most recent turn first), then the passages of a fresh retrieval. A passage
appears once (its first place wins) and the list is re-indexed [1]..[n]. Each entry keeps its full text, so a
citation from three turns ago still opens its passage.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Iterable, Sequence

from regintel.llm.prompt_format import PromptSource
from regintel.retrieval.sources import Source


@dataclass(frozen=True)
class ContextPassage:
    """A retrieved passage (a Source) with where it comes from in the conversation and its number in the list."""

    source: Source
    origin: str = "current"  # "previous" / "history" / "current"
    turns_ago: int = 0
    index: int = 0

    @property
    def chunk_id(self) -> str:
        return self.source.chunk_id

    def prompt_source(self) -> PromptSource:
        return PromptSource.from_source(self.index, self.source)


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
