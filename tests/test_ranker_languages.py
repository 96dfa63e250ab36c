"""The learned ranker re-orders a question answered in its own language; when the first stage is led by passages in
another language, its order stands (regintel/retrieval/search_index.py, ``_led_across_languages``)."""

from __future__ import annotations

import numpy as np

from regintel.retrieval.chunking import Chunk
from regintel.retrieval.crosslingual import QueryPlan
from regintel.retrieval.ranker_features import FirstStage
from regintel.retrieval.search_index import SearchIndex


def chunk(chunk_id: str, language: str) -> Chunk:
    return Chunk(chunk_id, f"doc-{language}", "Act", chunk_id, "", "", "text", "EU", language, "eu_law", "", 0)


INDEX = SearchIndex([chunk(f"{lang}{n}", lang) for lang in ("en", "fr") for n in range(5)], None, None, None)


def stage(order: list[str], language: str = "en", multilingual: bool = True) -> FirstStage:
    fused = {cid: 1.0 - 0.1 * rank for rank, cid in enumerate(order)}
    plan = QueryPlan(language, {}, {}) if multilingual else None
    return FirstStage(fused, {}, {}, np.zeros(2), None, language, plan)


def test_a_first_stage_led_by_another_language_keeps_its_order():
    assert INDEX._led_across_languages(stage(["fr0", "fr1", "en0", "fr2", "en1"]))


def test_a_question_answered_in_its_own_language_is_re_ranked():
    assert not INDEX._led_across_languages(stage(["en0", "fr0", "fr1", "fr2", "en1"])), "its best is in its language"
    assert not INDEX._led_across_languages(stage(["fr0", "en0", "en1", "en2", "fr1"])), \
        "one passage in another language on top of four in the question's: the ranker judges"
    assert not INDEX._led_across_languages(stage(["fr0", "fr1", "fr2"], multilingual=False)), "one-language path"
