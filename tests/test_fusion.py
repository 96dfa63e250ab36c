"""Hybrid fusion ordering on hand-checkable runs."""

import pytest

from regintel.retrieval.fusion import normalised_score_fusion, ranks, reciprocal_rank_fusion, top


def test_ranks_are_one_based_best_first():
    assert ranks({"a": 0.2, "b": 0.9, "c": 0.5}) == {"b": 1, "c": 2, "a": 3}


def test_rrf_rewards_documents_found_by_both_retrievers():
    dense = {"a": 0.9, "b": 0.8, "c": 0.7}
    bm25 = {"c": 12.0, "d": 11.0, "a": 3.0}
    fused = reciprocal_rank_fusion([dense, bm25], [1.0, 1.0], k=60)
    assert fused["a"] == pytest.approx(1 / 61 + 1 / 63)
    assert fused["c"] == pytest.approx(1 / 63 + 1 / 61)
    assert fused["b"] == pytest.approx(1 / 62)
    # a and c appear in both lists and tie; both beat b (dense only) and d (BM25 only)
    order = [key for key, _ in top(fused, 4)]
    assert set(order[:2]) == {"a", "c"} and set(order[2:]) == {"b", "d"}


def test_rrf_weights_shift_the_order():
    dense = {"x": 0.9, "y": 0.1}
    bm25 = {"y": 5.0, "x": 1.0}
    assert top(reciprocal_rank_fusion([dense, bm25], [2.0, 1.0]), 1)[0][0] == "x"
    assert top(reciprocal_rank_fusion([dense, bm25], [1.0, 2.0]), 1)[0][0] == "y"


def test_normalised_score_fusion_uses_min_max_per_run():
    dense = {"a": 0.90, "b": 0.80, "c": 0.70}
    bm25 = {"a": 10.0, "c": 30.0}
    fused = normalised_score_fusion([dense, bm25], [0.5, 0.5])
    assert fused["a"] == pytest.approx(0.5 * 1.0 + 0.5 * 0.0)
    assert fused["b"] == pytest.approx(0.5 * 0.5)
    assert fused["c"] == pytest.approx(0.5 * 0.0 + 0.5 * 1.0)


def test_fusion_of_empty_runs_is_empty():
    assert reciprocal_rank_fusion([{}, {}], [1, 1]) == {}
    assert normalised_score_fusion([{}, {"a": 1.0}], [1, 1]) == {"a": 1.0}
