"""The learned second-stage ranker (issue 19): a LightGBM lambdarank model over :mod:`ranker_features`.

``train-ranker`` trains an ensemble of ``ENSEMBLE_SIZE`` boosters on the same data with consecutive seeds, their
scores averaged: LightGBM's bagging and feature sampling make one booster's order depend on its seed (on the demo dev
split, end to end, four single eval boosters answered 86 to 93 questions with a gold article, mean 90.0; four
averaged sets of seeds 7 to 14, pairs and fours, 91 to 93, mean 92.0, citing a little more precisely:
docs/benchmarks.md, session 18), and the mean of several is the steadier ranker. A model file of one booster (the
format before; ``--ensemble 1``) loads and scores as it did.

The model file is one JSON document: the LightGBM model texts, the feature names and ``features_version`` it was
trained on, and how it was trained (data, folds, seed, out-of-fold metrics). It is small, committed with the code
(``data/ranker/ranker.json``, rebuilt by ``python -m regintel.bench train-ranker``) and loaded once per index. A
model whose features do not match the code's is refused with a warning and the first stage ranks alone, as it does
when no model exists or ``lightgbm`` cannot be imported: a ranker can improve search, never break it.

A model may carry **corpus models**: a ranker trained on one corpus's own labelled questions only, with that
corpus's query adapter, keyed by its :func:`chunking.corpus_version` and used instead of the shared model when the
index holds that corpus (``for_corpus``): exactly, or a revision of it that keeps nine passages in ten of those it was
trained on, both ways (a chunking fix, an edited paragraph: measured in session 61, the model trained on the earlier
chunks answers the revised corpus as well, where a retrain is a new draw); a corpus with other documents added or
removed gets the shared model. The shared model must serve every corpus, the demo one above all,
so it cannot lean on features only one corpus's adapter makes reliable (docs/benchmarks.md, issue 19 session 24);
a corpus model can. A damaged corpus model is dropped with a warning, and the shared model (trained on that corpus's
plain features) serves it. A corpus model may also carry its labelled questions as a memory
(:mod:`regintel.retrieval.question_memory`): the passages answering the questions closest to a new one are features
after the others. A model may also read each feature **against the question's other candidates**
(:func:`with_relative_features`, names ending in one of ``RELATIVE_READINGS``): the value less the best value among
the candidates, so that "as close as the closest passage" reads the same for a question all of whose passages score
low as for one whose passages all score high (session 75, ObliQA corpus model: MAP@10 +0.005 out of fold), and its
z-score among the candidates (how far above the question's typical candidate; session 76).
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

from regintel.atomic_files import write_text_atomically
from regintel.retrieval.query_adapter import QueryAdapter
from regintel.retrieval.question_memory import MEMORY_FEATURE_NAMES, QuestionMemory
from regintel.retrieval.ranker_features import FEATURE_NAMES, FEATURES_VERSION

log = logging.getLogger(__name__)

DEFAULT_PARAMS: dict[str, Any] = {
    "objective": "lambdarank",
    "metric": "map",
    "eval_at": [10],
    "learning_rate": 0.05,
    "num_leaves": 15,
    "min_data_in_leaf": 20,
    "feature_fraction": 0.8,
    "bagging_fraction": 0.8,
    "bagging_freq": 1,
    "lambdarank_truncation_level": 20,
    "verbosity": -1,
    "num_threads": 2,
    "deterministic": True,
    "force_row_wise": True,
}
ROUNDS = 300
ENSEMBLE_SIZE = 4  # boosters of consecutive seeds whose scores are averaged (1: a single booster)
# a corpus model serves a revised corpus when this share of the current passages, and of the passages it was trained
# on, are the same passages (:attr:`Chunk.content_hash`); session 61's chunking fix kept 0.94 both ways
NEAR_CORPUS_SHARE = 0.9
PASSAGE_KEY_CHARS = 16  # of a passage's content hash, as a corpus model lists the passages it was trained on
RELATIVE_SUFFIX = "_below_best"  # a feature less its best value among the question's candidates
ZSCORE_SUFFIX = "_zscore"  # a feature's z-score among the question's candidates
# the readings of a feature against the question's candidates (:func:`with_relative_features`), in column order
RELATIVE_READINGS = (RELATIVE_SUFFIX, ZSCORE_SUFFIX)


def passage_keys(content_hashes: Iterable[str]) -> frozenset[str]:
    """How a corpus model names the passages of a corpus (:attr:`LearnedRanker.trained_passages`)."""
    return frozenset(h[:PASSAGE_KEY_CHARS] for h in content_hashes)


def computed_feature_names(with_memory: bool) -> tuple[str, ...]:
    """The features search computes for a model: ``FEATURE_NAMES``, then ``MEMORY_FEATURE_NAMES`` for a model with a
    question memory. A stored model may read fewer of them (:meth:`LearnedRanker.score`), never others."""
    return FEATURE_NAMES + MEMORY_FEATURE_NAMES if with_memory else FEATURE_NAMES


def relative_feature_names(names: Sequence[str], readings: Sequence[str] = RELATIVE_READINGS) -> tuple[str, ...]:
    """The names of ``names`` read against the question's other candidates (:func:`with_relative_features`), one
    block of them per reading."""
    return tuple(f"{name}{reading}" for reading in readings for name in names)


def _reading(matrix: np.ndarray, reading: str) -> np.ndarray:
    if reading == RELATIVE_SUFFIX:
        return matrix - matrix.max(axis=0, keepdims=True)
    if reading == ZSCORE_SUFFIX:
        spread = matrix.std(axis=0, keepdims=True)
        centred = matrix - matrix.mean(axis=0, keepdims=True)
        return np.divide(centred, spread, out=np.zeros_like(centred), where=spread > 1e-12)  # a flat column: 0
    raise ValueError(f"unknown relative reading {reading!r}")


def with_relative_features(matrix: np.ndarray, readings: Sequence[str] = RELATIVE_READINGS) -> np.ndarray:
    """``matrix`` (one question's candidates, one row each) followed by each reading of its columns against the
    candidates: ``RELATIVE_SUFFIX``, each column less its largest value among them (0 for the best candidate,
    negative below it); ``ZSCORE_SUFFIX``, its z-score among them (0 for a column equal in every candidate). What a
    feature says of a passage relative to the question's other passages, which a tree over the raw value cannot read
    (a BM25 of 12 leads one question and trails another)."""
    matrix = np.asarray(matrix, dtype=np.float64)
    if len(matrix) == 0:
        return np.hstack([matrix] * (1 + len(readings)))
    return np.hstack([matrix] + [_reading(matrix, reading) for reading in readings])


def reading_of(name: str) -> str | None:
    """The reading against the candidates (one of ``RELATIVE_READINGS``) a model's feature is; None for a computed
    feature."""
    return next((reading for reading in RELATIVE_READINGS if name.endswith(reading)), None)


def base_feature_name(name: str) -> str:
    """The computed feature a model's feature reads: itself, or the one it is read relative to."""
    reading = reading_of(name)
    return name[: -len(reading)] if reading else name


@dataclass
class LearnedRanker:
    """A trained model and what it was trained on; ``score`` takes a feature matrix in ``FEATURE_NAMES`` order."""

    booster: Any  # a lightgbm.Booster, or a list of them (an ensemble: their scores are averaged)
    feature_names: tuple[str, ...] = FEATURE_NAMES
    features_version: int = FEATURES_VERSION
    training: dict[str, Any] = field(default_factory=dict)
    # corpus version -> the question-vector adapter the ranker's features were computed with on that corpus
    adapters: dict[str, QueryAdapter] = field(default_factory=dict)
    # corpus version -> a ranker trained on that corpus's own questions (see the module doc)
    corpus_models: dict[str, "LearnedRanker"] = field(default_factory=dict)
    # a corpus model's labelled questions: their passages are features too (``MEMORY_FEATURE_NAMES`` after the rest)
    memory: QuestionMemory | None = None

    def corpus_model_key(self, corpus: str, passages: frozenset[str] = frozenset()) -> str | None:
        """The version of the corpus model that serves the corpus of this version (:func:`chunking.corpus_version`)
        with these passages (:func:`passage_keys`): its own, else one trained on a corpus sharing
        ``NEAR_CORPUS_SHARE`` of its passages both ways (the closest); None: the shared model serves it."""
        if corpus in self.corpus_models:
            return corpus
        best, best_share = None, NEAR_CORPUS_SHARE
        for version, model in self.corpus_models.items():
            trained = model.trained_passages
            if not trained or not passages:
                continue
            common = len(trained & passages)
            share = min(common / len(trained), common / len(passages))
            if share >= best_share:
                best, best_share = version, share
        return best

    def for_corpus(self, corpus: str, passages: frozenset[str] = frozenset()) -> "LearnedRanker":
        """The model that ranks the corpus of this version with these passages: its corpus model
        (:meth:`corpus_model_key`) if one serves it, else this shared one."""
        key = self.corpus_model_key(corpus, passages)
        return self.corpus_models[key] if key is not None else self

    def adapter_for(self, corpus: str, passages: frozenset[str] = frozenset()) -> QueryAdapter | None:
        """The question-vector adapter the corpus's ranker (:meth:`for_corpus`) was trained with, if any; None:
        plain question vectors, as in training."""
        key = self.corpus_model_key(corpus, passages)
        if key is None:
            return self.adapters.get(corpus)
        return self.corpus_models[key].adapters.get(key)

    @cached_property  # read on every search that looks for its corpus model: built once, not per search
    def trained_passages(self) -> frozenset[str]:
        """The passages of the corpus a corpus model was trained on (:func:`passage_keys`; empty for a model written
        without them, which then serves exactly its own corpus version only)."""
        return frozenset(self.training.get("passages") or ())

    def score(self, matrix: np.ndarray, columns: Sequence[str] | None = None) -> np.ndarray:
        """The model's score of each row of ``matrix`` (one question's candidates, all of them: a feature read
        relative to the others needs them all), whose columns are the features named ``columns`` (default: the
        model's own ``feature_names``). Search hands over every feature the code computes; a model trained before a
        feature was added reads its own columns among them, so a new feature needs only the model that uses it
        retrained, not every model of the file."""
        if len(matrix) == 0:
            return np.zeros(0, dtype=np.float64)
        if columns is not None and tuple(columns) != self.feature_names:
            matrix = self._own_columns(matrix, columns)
        return np.mean([np.asarray(b.predict(matrix, num_threads=1), dtype=np.float64) for b in self.boosters], axis=0)

    def _own_columns(self, matrix: np.ndarray, columns: Sequence[str]) -> np.ndarray:
        """The model's features from a matrix of the computed ``columns``; for a model reading features relative to
        the candidates (:data:`RELATIVE_READINGS`), those are derived first, as training derives them
        (:func:`with_relative_features`): the readings it uses only."""
        names = list(columns)
        if self.relative_readings:
            matrix = with_relative_features(matrix, self.relative_readings)
            names += relative_feature_names(columns, self.relative_readings)
        position = {name: i for i, name in enumerate(names)}
        return matrix[:, [position[name] for name in self.feature_names]]

    @cached_property  # read on every search: found once per model, not per search
    def relative_readings(self) -> tuple[str, ...]:
        """The readings against the candidates (:data:`RELATIVE_READINGS`, in their order) the model's features use."""
        used = {reading_of(name) for name in self.feature_names}
        return tuple(reading for reading in RELATIVE_READINGS if reading in used)

    def computed_columns(self) -> tuple[str, ...]:
        """The features search computes for this model (:func:`computed_feature_names`)."""
        return computed_feature_names(with_memory=self.memory is not None)

    @property
    def boosters(self) -> list[Any]:
        return list(self.booster) if isinstance(self.booster, (list, tuple)) else [self.booster]

    @property
    def tail_gap(self) -> float | None:
        """The score gap below the best passage beyond which passages are tail (chosen out-of-fold on ObliQA-MP
        dev by ``train-ranker``); None for a model trained without it."""
        gap = self.training.get("tail_gap")
        return float(gap) if gap is not None else None

    @property
    def memory_candidates(self) -> int:
        """How many of the memorised questions closest to a new one (per measure) lend their passages to the
        candidates the model ranks, beside the first stage's (:meth:`QuestionMemory.neighbour_answers`); 0 for a
        model without a memory or trained without them."""
        return int(self.training.get("memory_candidates") or 0) if self.memory is not None else 0

    @property
    def confident_at(self) -> float | None:
        """The score at or above which the model's first passage anchors an answer whatever its similarity
        (:func:`regintel.chat.evidence.analyse_evidence`): the median first-passage score of the demo corpus's check
        questions (not trained on) whose first passage is a gold one, written into the model file by ``python -m
        regintel.bench ranker-confidence --write``; None for a model without it (a retrained model, until measured
        again)."""
        level = self.training.get("confident_at")
        return float(level) if level is not None else None

    @property
    def doubtful_below(self) -> float | None:
        """The first-passage score under which the model doubts its first passage, so that passages close to the
        question only on average do not answer it (:func:`regintel.chat.evidence.analyse_evidence`): a low percentile
        of the out-of-fold first-passage scores of the check questions whose first passage is gold
        (``train-demo-model``); None for a model without it."""
        level = self.training.get("doubtful_below")
        return float(level) if level is not None else None

    def importance(self) -> dict[str, float]:
        """Total gain of each feature, as a share of the whole (what the model leans on)."""
        gains = np.sum([b.feature_importance(importance_type="gain") for b in self.boosters], axis=0)
        total = float(np.sum(gains)) or 1.0
        return {name: round(float(g) / total, 4) for name, g in zip(self.feature_names, gains)}

    def save(self, path: Path) -> None:
        write_text_atomically(Path(path), json.dumps(self.to_document(), ensure_ascii=False))

    def to_document(self) -> dict[str, Any]:
        document = {"features_version": self.features_version, "feature_names": list(self.feature_names),
                    "training": self.training, "models": [b.model_to_string() for b in self.boosters],
                    "query_adapters": {corpus: adapter.to_json() for corpus, adapter in self.adapters.items()}}
        if self.memory is not None:
            document["question_memory"] = self.memory.to_json()
        if self.corpus_models:
            document["corpus_models"] = {corpus: model.to_document() for corpus, model in self.corpus_models.items()}
        return document

    @classmethod
    def load(cls, path: Path) -> "LearnedRanker | None":
        """The model at ``path``, or None (with a warning saying why) when it is missing, unreadable, trained on
        other features, or LightGBM is not installed."""
        path = Path(path)
        if not path.is_file():
            return None
        try:
            import lightgbm  # noqa: F401 - checked here, used by from_document
        except ImportError:
            log.warning("learned ranker at %s not used: lightgbm is not installed", path)
            return None
        try:
            document = json.loads(path.read_text(encoding="utf-8"))
            model = cls.from_document(document, str(path))
            if model is None:
                return None
            for corpus, nested in (document.get("corpus_models") or {}).items():
                try:
                    corpus_model = cls.from_document(nested, f"{path} (corpus {corpus})")
                except Exception as exc:  # a damaged corpus model: the shared one serves its corpus
                    log.warning("corpus model %s in %s not used: %s: %s", corpus, path, exc.__class__.__name__,
                                str(exc)[:200])
                    continue
                if corpus_model is not None:
                    model.corpus_models[str(corpus)] = corpus_model
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            log.warning("learned ranker at %s not used: %s", path, str(exc)[:200])
            return None
        except Exception as exc:  # lightgbm raises LightGBMError for a corrupt model text
            log.warning("learned ranker at %s not used: %s: %s", path, exc.__class__.__name__, str(exc)[:200])
            return None
        return model

    @classmethod
    def from_document(cls, document: dict[str, Any], where: str) -> "LearnedRanker | None":
        """One model of a model file (without its corpus models); None with a warning when trained on other
        features; raises on a damaged document."""
        import lightgbm

        names = tuple(document["feature_names"])
        version = int(document["features_version"])
        memory = QuestionMemory.from_json(document["question_memory"]) if "question_memory" in document else None
        computed = computed_feature_names(with_memory=memory is not None)
        # a model may read fewer features than the code computes (one added since it was trained), never one the code
        # does not compute or computes with another meaning (``FEATURES_VERSION``)
        unknown = [name for name in names if base_feature_name(name) not in computed]
        if version != FEATURES_VERSION or unknown or len(set(names)) != len(names):
            log.warning("learned ranker at %s not used: trained on features v%s%s, the code computes v%s "
                        "(retrain with `python -m regintel.bench train-ranker`)", where, version,
                        f" with {', '.join(unknown[:3])}" if unknown else "", FEATURES_VERSION)
            return None
        texts = document["models"] if "models" in document else [document["model"]]  # before: one booster
        boosters = [lightgbm.Booster(model_str=text) for text in texts]
        if not boosters:
            raise ValueError("the model file holds no booster")
        # a ranker without the adapter its features were computed with would read other cosines: all or nothing
        adapters = {str(corpus): QueryAdapter.from_json(adapter)
                    for corpus, adapter in (document.get("query_adapters") or {}).items()}
        return cls(boosters, names, version, dict(document.get("training") or {}), adapters, memory=memory)


def fit(matrices: Sequence[np.ndarray], labels: Sequence[np.ndarray], seed: int = 7, rounds: int = ROUNDS,
        params: dict[str, Any] | None = None, weights: Sequence[float] | None = None,
        feature_names: Sequence[str] = FEATURE_NAMES) -> Any:
    """Train a lambdarank booster on per-question groups (one matrix and label vector per question). Groups
    without any relevant candidate teach nothing and are left out. ``weights``: one per question."""
    import lightgbm

    kept = [i for i, y in enumerate(labels) if np.any(y > 0) and len(y) > 1]
    if not kept:
        raise ValueError("no question has a relevant passage among its candidates: nothing to learn from")
    data = np.vstack([matrices[i] for i in kept])
    target = np.concatenate([labels[i] for i in kept])
    group = [len(labels[i]) for i in kept]
    dataset = lightgbm.Dataset(data, label=target, group=group, feature_name=list(feature_names),
                               weight=np.concatenate([np.full(len(labels[i]), weights[i]) for i in kept])
                               if weights is not None else None, free_raw_data=True)
    configured = {**DEFAULT_PARAMS, **(params or {}), "seed": seed}
    return lightgbm.train(configured, dataset, num_boost_round=rounds)


def kept_by_gap(scores: Sequence[float], gap: float, most: int = 10) -> int:
    """How many leading passages (scores best first) are within ``gap`` of the best: the tail filter for questions
    whose answer spans several passages. At least one, at most ``most``."""
    if not len(scores):
        return 0
    best = scores[0]
    kept = 1
    for score in scores[1:most]:
        if best - score > gap:
            break
        kept += 1
    return kept


def choose_tail_gap(rankings: Sequence[tuple[Sequence[float], Sequence[bool]]],
                    grid: Sequence[float] = tuple(round(0.25 * i, 2) for i in range(1, 25))) -> tuple[float, dict]:
    """The gap with the best mean F1 of kept passages against the relevant ones, over (scores best first,
    relevance in the same order) per question; returns the gap and the figures of every gap tried."""
    table = {}
    for gap in grid:
        precision, recall, f1 = [], [], []
        for scores, relevant in rankings:
            total = sum(relevant)
            if not total:
                continue
            kept = kept_by_gap(scores, gap)
            hits = sum(relevant[:kept])
            p, r = hits / kept, hits / total
            precision.append(p)
            recall.append(r)
            f1.append(2 * p * r / (p + r) if p + r else 0.0)
        if f1:
            table[gap] = {"precision": round(float(np.mean(precision)), 4), "recall": round(float(np.mean(recall)), 4),
                          "f1": round(float(np.mean(f1)), 4)}
    best = max(table, key=lambda g: table[g]["f1"])
    return best, table


def fit_ensemble(matrices: Sequence[np.ndarray], labels: Sequence[np.ndarray], seed: int = 7,
                 size: int = ENSEMBLE_SIZE, weights: Sequence[float] | None = None,
                 feature_names: Sequence[str] = FEATURE_NAMES) -> list[Any]:
    """``size`` boosters trained as :func:`fit` with the seeds ``seed`` .. ``seed + size - 1`` (see the module doc)."""
    if size < 1:
        raise ValueError("an ensemble needs at least one booster")
    return [fit(matrices, labels, seed=seed + offset, weights=weights, feature_names=feature_names)
            for offset in range(size)]
