"""Recall@k and MAP@k (trec_eval map_cut) on examples small enough to check by hand."""

import pytest

from regintel.bench.metrics import average_precision_at_k, mean_metrics, percentile, recall_at_k


def test_recall_counts_gold_found_in_top_k():
    assert recall_at_k(["a", "x", "b", "y"], {"a", "b", "c"}, k=10) == pytest.approx(2 / 3)
    assert recall_at_k(["x", "y", "a"], {"a"}, k=2) == 0.0


def test_average_precision_divides_by_all_relevant_documents():
    # relevant at ranks 1 and 3: (1/1 + 2/3) / 3 relevant in total (one never retrieved)
    assert average_precision_at_k(["a", "x", "b", "y"], {"a", "b", "c"}, k=10) == pytest.approx((1 + 2 / 3) / 3)
    # the cut at k ignores hits below it
    assert average_precision_at_k(["x", "y", "a"], {"a"}, k=2) == 0.0
    assert average_precision_at_k(["x", "a"], {"a"}, k=2) == pytest.approx(0.5)


def test_duplicates_in_a_ranking_count_once():
    assert average_precision_at_k(["a", "a", "b"], {"a", "b"}) == pytest.approx((1 / 1 + 2 / 3) / 2)


def test_mean_metrics_average_over_questions():
    runs = [(["a"], {"a"}), (["x", "b"], {"b", "c"})]
    result = mean_metrics(runs, k=10)
    assert result["recall@10"] == pytest.approx((1 + 0.5) / 2)
    assert result["map@10"] == pytest.approx((1 + (1 / 2) / 2) / 2)


def test_percentile_nearest_rank():
    values = list(range(1, 101))
    assert percentile(values, 50) == 50
    assert percentile(values, 95) == 95
    assert percentile([], 95) == 0.0
