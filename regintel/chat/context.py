"""Unified context of a turn (docs/architecture.md): what the model sees, as one numbered list of passages.

Order: the immediate previous turn's passages in full (the user is probably asking about them), then the
citations older turns actually used (most recent turn first), then the passages of a fresh retrieval. A passage
appears once (its first place wins) and the list is re-indexed [1]..[n]. Each entry keeps its full text, so a
citation from three turns ago still opens its passage.

Parent-document retrieval (issue 16 item 4): a fresh hit that is one part of a split article may bring the other
parts of its article (:class:`ArticleSiblings`: the whole article when it has at most 3 parts, else the 2 parts
nearest the hit), inserted right after the hit, while the context has room (the widened passages never push a
retrieved one out). A definition (``Article 4(7)``) is a unit of its own: it brings only the article's paragraphs
that are not definitions, never the other definitions. A widened passage is a passage like the others (its own
[n], full text, ref and chunk id, so citations and claim verification work unchanged); ``widened_from`` names the
hit it completes, and it carries the hit's similarity (the article is scored by its best part).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, replace
from typing import Callable, Iterable, Sequence

from regintel.llm.prompt_format import PromptSource
from regintel.retrieval.chunking import Chunk, is_definition
from regintel.retrieval.corpus import authority_score
from regintel.retrieval.sources import Source


@dataclass(frozen=True)
class ContextPassage:
    """A retrieved passage (a Source) with where it comes from in the conversation and its number in the list."""

    source: Source
    origin: str = "current"  # "previous" / "history" / "current"
    turns_ago: int = 0
    index: int = 0
    widened_from: str = ""  # chunk id of the retrieved hit whose article this passage completes ("" when retrieved)

    @property
    def chunk_id(self) -> str:
        return self.source.chunk_id

    def prompt_source(self) -> PromptSource:
        return replace(PromptSource.from_source(self.index, self.source), earlier=self.origin != "current")


class ArticleSiblings:
    """The other chunks of a hit's article or section (same document, same ``parent``), for parent-document
    retrieval: all of them when the unit has at most ``whole_up_to`` chunks, else the ``nearest`` ones around the
    hit; in document order. Definitions are units of their own (see the module docstring)."""

    def __init__(self, chunks: Iterable[Chunk], nearest: int = 2, whole_up_to: int = 3) -> None:
        self.nearest, self.whole_up_to = nearest, whole_up_to
        self._chunks: dict[str, Chunk] = {}
        families: dict[tuple[str, str], list[Chunk]] = defaultdict(list)
        for chunk in sorted(chunks, key=lambda c: (c.document_id, c.position)):
            self._chunks[chunk.chunk_id] = chunk
            families[(chunk.document_id, chunk.parent_id)].append(chunk)
        self._families = dict(families)

    def __call__(self, hit: Source) -> list[Source]:
        return [self._source(chunk, hit) for chunk in self.of(hit.chunk_id)]

    def of(self, chunk_id: str) -> list[Chunk]:
        chunk = self._chunks.get(chunk_id)
        if chunk is None:
            return []
        family = [c for c in self._families.get((chunk.document_id, chunk.parent_id), [])
                  if c.chunk_id == chunk_id or not is_definition(c)]
        if len(family) < 2:
            return []
        if len(family) > self.whole_up_to:
            at = next(i for i, c in enumerate(family) if c.chunk_id == chunk_id)
            others = sorted((i for i, c in enumerate(family) if c.chunk_id != chunk_id), key=lambda i: (abs(i - at), i))
            family = [family[i] for i in sorted(others[: self.nearest])]
        return [c for c in family if c.chunk_id != chunk_id]

    @staticmethod
    def _source(chunk: Chunk, hit: Source) -> Source:
        return Source(chunk_id=chunk.chunk_id, document_id=chunk.document_id, title=chunk.title, ref=chunk.ref,
                      url=chunk.source_url, text=chunk.text, similarity=hit.similarity,
                      authority_level=chunk.authority_level, authority_score=authority_score(chunk.authority_level),
                      jurisdiction=chunk.jurisdiction, language=chunk.language, heading=chunk.label,
                      fused_score=hit.fused_score, extra={"widened_from": hit.chunk_id},
                      page=chunk.page or None, version=hit.version, last_verified=hit.last_verified,  # same document
                      deprecated=hit.deprecated, currency_warning=hit.currency_warning, search_titles=chunk.gloss)


def widen_to_articles(passages: Sequence[ContextPassage], siblings: Callable[[Source], Sequence[Source]],
                      limit: int = 20, hits: int | None = None) -> list[ContextPassage]:
    """Insert the siblings of each fresh hit right after it, best hits first, while there is room under ``limit``;
    ``hits`` caps how many fresh hits are widened (None: all). Re-indexed [1]..[n]."""
    seen = {p.chunk_id for p in passages}
    room = limit - len(passages)
    added: dict[str, list[ContextPassage]] = {}
    widened = 0
    for passage in passages:
        if room <= 0 or (hits is not None and widened >= hits):
            break
        if passage.origin != "current" or passage.widened_from:
            continue
        widened += 1
        for source in siblings(passage.source):
            if room <= 0:
                break
            if source.chunk_id in seen:
                continue
            seen.add(source.chunk_id)
            added.setdefault(passage.chunk_id, []).append(
                ContextPassage(source, passage.origin, passage.turns_ago, widened_from=passage.chunk_id))
            room -= 1
    ordered: list[ContextPassage] = []
    for passage in passages:
        ordered += [passage, *added.get(passage.chunk_id, [])]
    return [replace(p, index=i) for i, p in enumerate(ordered, start=1)]


def build_unified_context(
    previous_turn: Sequence[ContextPassage] = (),
    older_turns_used: Iterable[Sequence[ContextPassage]] = (),
    fresh: Sequence[ContextPassage] = (),
    limit: int = 20,
    siblings: Callable[[Source], Sequence[Source]] | None = None,
    widen_hits: int | None = None,
    fresh_minimum: int = 0,
    relevance: Callable[[Sequence[Source]], Sequence[float]] | None = None,
    cited: frozenset[str] = frozenset(),
) -> list[ContextPassage]:
    """``older_turns_used``: for each older turn, most recent first, the passages its answer cited. ``siblings``
    (e.g. an :class:`ArticleSiblings`): widen the fresh hits to their article, see :func:`widen_to_articles`.

    A budget, not a queue (issue 20): ``fresh_minimum`` places are kept for the current question's own hits, so a
    long conversation cannot crowd them out; when the earlier turns' passages do not fit in the rest, those most
    relevant to the current question are kept (``relevance``: a score per passage, e.g. the cosine with the
    question; a passage the previous answer cited, in ``cited``, comes first), in their conversation order.
    Without ``relevance`` the most recent ones are kept. A passage of an earlier turn that the current question
    retrieves again is current evidence: it is listed (once) with the fresh hits and graded with them."""
    ordered: list[ContextPassage] = [replace(p, origin="previous", turns_ago=1) for p in previous_turn]
    for turns_ago, used in enumerate(older_turns_used, start=2):
        ordered += [replace(p, origin="history", turns_ago=turns_ago) for p in used]
    current = [replace(p, origin="current", turns_ago=0) for p in _unique(fresh)]
    fresh_ids = {p.chunk_id for p in current}
    history = [p for p in _unique(ordered) if p.chunk_id not in fresh_ids]  # retrieved again: current evidence
    room = max(limit - min(fresh_minimum, len(current)), 0)
    if len(history) > room:
        history = _most_relevant(history, room, relevance, cited)
    unified = [replace(p, index=i) for i, p in enumerate((history + current)[:limit], start=1)]
    if siblings is not None:
        unified = widen_to_articles(unified, siblings, limit, widen_hits)
    return unified


def _unique(passages: Iterable[ContextPassage]) -> list[ContextPassage]:
    seen: set[str] = set()
    kept = []
    for passage in passages:
        if passage.chunk_id not in seen:
            seen.add(passage.chunk_id)
            kept.append(passage)
    return kept


def _most_relevant(history: list[ContextPassage], room: int,
                   relevance: Callable[[Sequence[Source]], Sequence[float]] | None,
                   preferred: set[str] | frozenset[str]) -> list[ContextPassage]:
    """The ``room`` earlier passages to keep, in their original order."""
    if room <= 0:
        return []
    if relevance is None:
        return history[:room]
    try:
        scores = list(relevance([p.source for p in history]))
    except Exception:  # a side signal: without it the most recent passages are kept
        return history[:room]
    ranked = sorted(range(len(history)), key=lambda i: (history[i].chunk_id not in preferred, -scores[i], i))
    keep = set(ranked[:room])
    return [p for i, p in enumerate(history) if i in keep]
