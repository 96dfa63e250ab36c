"""The Source: one retrieved passage with everything a citation chip, a trace and the evidence grader need."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class Source:
    chunk_id: str
    document_id: str
    title: str
    ref: str
    url: str
    text: str
    similarity: float  # cosine of question and passage embeddings, as 0-100
    authority_level: str
    authority_score: float
    jurisdiction: str = ""
    language: str = ""
    heading: str = ""
    fused_score: float = 0.0
    dense_rank: int | None = None  # 1-based rank in the dense list, None when not retrieved by it
    bm25_rank: int | None = None
    dense_score: float | None = None
    bm25_score: float | None = None
    ranker_score: float | None = None  # the learned second stage's score (None: the fusion ranked alone)
    extra: dict[str, Any] = field(default_factory=dict)
    query_language: str = ""  # language of the question (en / fr / es / de); cross-lingual when != language
    page: int | None = None  # the PDF page the passage starts on (issue 23)
    version: str = ""  # the document's version, from the source registry at search time
    last_verified: str = ""
    deprecated: bool = False
    currency_warning: str = ""  # one sentence when the document is deprecated, expired or superseded, else ""
    # what the unit is about in the analysts' languages (regintel.retrieval.search_titles): read by the evidence
    # grade's word check, never quoted or shown
    search_titles: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
