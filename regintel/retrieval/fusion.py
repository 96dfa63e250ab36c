"""Fusion of ranked lists: weighted reciprocal rank fusion and weighted normalised-score fusion.

Both are pure functions over {id: score} maps so they can be tested on hand-checkable examples.
"""

from __future__ import annotations

from typing import Mapping, Sequence


def ranks(scores: Mapping[str, float]) -> dict[str, int]:
    """1-based ranks, best score first; ties keep insertion order."""
    ordered = sorted(scores.items(), key=lambda item: -item[1])
    return {key: position for position, (key, _) in enumerate(ordered, start=1)}


def reciprocal_rank_fusion(
    runs: Sequence[Mapping[str, float]], weights: Sequence[float], k: int = 60
) -> dict[str, float]:
    """Σ_i weight_i / (k + rank_i(d)) over the runs in which d appears."""
    fused: dict[str, float] = {}
    for run, weight in zip(runs, weights):
        for key, rank in ranks(run).items():
            fused[key] = fused.get(key, 0.0) + weight / (k + rank)
    return fused


def normalised_score_fusion(runs: Sequence[Mapping[str, float]], weights: Sequence[float]) -> dict[str, float]:
    """Σ_i weight_i · minmax_i(score_i(d)); a document missing from a run gets 0 from it.

    Min-max is taken over each run's candidate list, so BM25's unbounded scores and cosine similarities
    become comparable. A run whose scores are all equal contributes weight · 1 to each of its members.
    """
    fused: dict[str, float] = {}
    for run, weight in zip(runs, weights):
        if not run:
            continue
        low, high = min(run.values()), max(run.values())
        span = high - low
        for key, score in run.items():
            norm = (score - low) / span if span > 0 else 1.0
            fused[key] = fused.get(key, 0.0) + weight * norm
    return fused


def top(fused: Mapping[str, float], k: int) -> list[tuple[str, float]]:
    return sorted(fused.items(), key=lambda item: -item[1])[:k]
