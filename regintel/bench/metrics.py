"""Retrieval metrics as trec_eval defines them (binary relevance).

- Recall@k: |relevant ∩ top-k| / |relevant|.
- MAP@k (trec_eval ``map_cut_k``): Σ precision@r over the ranks r ≤ k holding a relevant document, divided by
  the total number of relevant documents of the question (not by the number retrieved).
Both are averaged over questions.
"""

from __future__ import annotations

import math
from statistics import mean
from typing import Sequence


def recall_at_k(ranked: Sequence[str], relevant: set[str], k: int = 10) -> float:
    if not relevant:
        return 0.0
    return len(set(ranked[:k]) & relevant) / len(relevant)


def average_precision_at_k(ranked: Sequence[str], relevant: set[str], k: int = 10) -> float:
    if not relevant:
        return 0.0
    hits, total = 0, 0.0
    seen: set[str] = set()
    for position, doc in enumerate(ranked[:k], start=1):
        if doc in relevant and doc not in seen:
            hits += 1
            total += hits / position
        seen.add(doc)
    return total / len(relevant)


def mean_metrics(runs: Sequence[tuple[Sequence[str], set[str]]], k: int = 10) -> dict[str, float]:
    return {
        f"recall@{k}": mean(recall_at_k(r, g, k) for r, g in runs) if runs else 0.0,
        f"map@{k}": mean(average_precision_at_k(r, g, k) for r, g in runs) if runs else 0.0,
    }


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in 0-100)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, min(len(ordered), math.ceil(q / 100 * len(ordered))))
    return ordered[rank - 1]
