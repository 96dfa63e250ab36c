"""``python -m regintel.bench train-citations``: the learned choice of cited articles (:mod:`regintel.llm.citation_choice`).

Training questions: the answerable items of the labelled set outside the held-back split (``dev``) and the check
files, less ``HELD_OUT_CHECKS`` (the checks the clean-set measurement reads: never trained on). Each is asked
whole through a RegIntel runtime over a scratch data directory, offline, with a recorder in place of the chooser:
the composer's last selection of the scored turn is described by :func:`article_candidates` and each candidate is
labelled by whether it is a gold article of the question. Questions the engine abstains on never reach the
composer and are not training rows.

Fitting: a LightGBM classifier, cross-fitted by question (``--folds``) so that every training question gets a
probability from a model that did not see it; ``keep_at`` and ``add_at`` are the pair (on a grid) that answers most
training questions with their gold articles while citing no more wrong articles than the composer alone
(:func:`choose_thresholds`); the model written is fitted on every row. ``--json`` prints one object last.
"""

from __future__ import annotations

import json
import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from regintel.bench.answers import EVAL_DIR, EvalItem, bench_settings, load_items, source_matches
from regintel.llm.citation_choice import FEATURES, Candidate, CitationChooser, article_candidates, choose_articles

HELD_OUT_CHECKS = ("unseen_mix.jsonl", "crosslingual_short.jsonl")
ROUNDS = 200
GRID = tuple(round(0.05 * i, 2) for i in range(1, 20))
PARAMS = {"objective": "binary", "learning_rate": 0.05, "num_leaves": 15, "min_data_in_leaf": 20,
          "feature_fraction": 0.8, "bagging_fraction": 0.8, "bagging_freq": 1, "lambda_l2": 1.0, "verbose": -1}


@dataclass
class Question:
    """One training question as the composer saw it: its candidates and which gold refs each covers."""

    id: str
    gold_mode: str
    golds: int
    candidates: list[Candidate] = field(default_factory=list)
    covers: list[set[int]] = field(default_factory=list)  # per candidate: the indices of the gold refs it covers

    @property
    def labels(self) -> list[int]:
        return [int(bool(c)) for c in self.covers]


def training_items(eval_dir: Path = EVAL_DIR) -> list[EvalItem]:
    """Answerable items outside the held-back split and the held-out checks."""
    files = sorted(eval_dir.glob("*.jsonl")) + sorted(p for p in (eval_dir / "checks").glob("*.jsonl")
                                                      if p.name not in HELD_OUT_CHECKS)
    return [i for i in load_items(files) if i.kind == "answerable" and i.split != "test"]


class RecordingChooser:
    """Stands in for the chooser while harvesting: keeps the composer's last selection, changes nothing."""

    def __init__(self) -> None:
        self.last: tuple[Any, Any, Any] | None = None

    def choose(self, composer: Any, plan: Any, selection: Any) -> Any:
        self.last = (composer, plan, selection)
        return selection


def label(item: EvalItem, candidates: Sequence[Candidate]) -> list[set[int]]:
    return [{n for n, gold in enumerate(item.gold)
             if any(source_matches(p.source.document_id, p.source.ref, gold) for p in c.passages)}
            for c in candidates]


def harvest(settings: Any, items: Sequence[EvalItem], log: Callable[..., None] = print) -> list[Question]:
    """Ask every item offline; the training rows of the items whose scored turn reached the composer."""
    from tqdm import tqdm

    from regintel.runtime import RegIntel

    for stale in settings.data_dir.glob("answers.db*"):
        stale.unlink()
    questions: list[Question] = []
    with RegIntel(settings, graph=None) as app:
        app.ingest(seed_graph=False)
        provider = app.router.provider
        if not hasattr(provider, "chooser"):
            raise SystemExit("train-citations needs the offline provider (no LLM key or URL set)")
        recorder = RecordingChooser()
        provider.chooser = recorder
        tenant = app.tenants.ensure_tenant("bench-citations")
        user = app.tenants.ensure_user(tenant.id, "analyst")
        for item in tqdm(items, desc="harvest", unit="item", mininterval=10):
            conversation = app.conversations.create_conversation(tenant.id, user.id).id
            try:
                for earlier in item.earlier:
                    app.chat.ask(tenant.id, user.id, conversation, earlier)
                recorder.last = None
                app.chat.ask(tenant.id, user.id, conversation, item.question)
                if recorder.last is None:
                    continue
                candidates = article_candidates(*recorder.last)
            except Exception as exc:  # noqa: BLE001 - one failing item is left out, the harvest goes on
                log(f"{item.id}: {exc.__class__.__name__}: {exc}")
                continue
            if candidates:
                questions.append(Question(item.id, item.gold_mode, len(item.gold), candidates, label(item, candidates)))
    return questions


# -- fitting ----------------------------------------------------------------------------------------------------
def _matrix(questions: Sequence[Question]) -> tuple[Any, Any]:
    import numpy as np

    rows = [c.vector() for q in questions for c in q.candidates]
    labels = [y for q in questions for y in q.labels]
    return np.asarray(rows, dtype=float).reshape(-1, len(FEATURES)), np.asarray(labels, dtype=float)


def fit_booster(questions: Sequence[Question], seed: int = 7, rounds: int = ROUNDS) -> Any:
    import lightgbm

    matrix, labels = _matrix(questions)
    data = lightgbm.Dataset(matrix, labels, feature_name=list(FEATURES), categorical_feature=["method", "shape"],
                            free_raw_data=False)
    return lightgbm.train({**PARAMS, "seed": seed}, data, num_boost_round=rounds)


def cross_fitted(questions: Sequence[Question], folds: int = 5, seed: int = 7) -> list[list[float]]:
    """Per question, its candidates' probabilities from a model fitted without it."""
    order = list(range(len(questions)))
    random.Random(seed).shuffle(order)
    fold_of = {index: n % folds for n, index in enumerate(order)}
    probabilities: list[list[float]] = [[] for _ in questions]
    for fold in range(folds):
        train = [q for i, q in enumerate(questions) if fold_of[i] != fold]
        booster = fit_booster(train, seed)
        for i, question in enumerate(questions):
            if fold_of[i] == fold:
                probabilities[i] = CitationChooser(booster, 0.5, 0.5).probabilities(question.candidates)
    return probabilities


def outcome(question: Question, cited: Iterable[str]) -> tuple[bool, int, int]:
    """(answered with its gold, cited articles covering a gold ref, cited articles) for the articles cited."""
    cited = set(cited)
    covered: set[int] = set()
    right = 0
    for candidate, covers in zip(question.candidates, question.covers):
        if candidate.article in cited:
            covered |= covers
            right += bool(covers)
    hit = len(covered) == question.golds if question.gold_mode == "all" else bool(covered)
    return hit, right, len(cited)


def score_policy(questions: Sequence[Question], probabilities: Sequence[Sequence[float]] | None,
                 keep_at: float = 0.0, add_at: float = 2.0) -> dict[str, Any]:
    """Hits, right and cited articles over the questions: the composer's own choice when ``probabilities`` is None."""
    hits = right = cited = 0
    for n, question in enumerate(questions):
        if probabilities is None:
            chosen = [c.article for c in question.candidates if c.features["quoted"]]
        else:
            chosen = choose_articles(question.candidates, probabilities[n], keep_at, add_at)
        hit, r, c = outcome(question, chosen)
        hits, right, cited = hits + hit, right + r, cited + c
    return {"questions": len(questions), "hits": hits, "right": right, "cited": cited,
            "precision": round(right / cited, 4) if cited else None}


def choose_thresholds(questions: Sequence[Question], probabilities: Sequence[Sequence[float]]) -> tuple[float, float]:
    """The (keep_at, add_at) pair of :data:`GRID` answering most questions with their gold articles while citing
    no more wrong articles than the composer alone (ties: fewer wrong articles, then higher thresholds)."""
    base = score_policy(questions, None)
    base_wrong = base["cited"] - base["right"]
    best: tuple[tuple[int, int, float, float], float, float] | None = None
    for keep_at in GRID:
        for add_at in GRID:
            s = score_policy(questions, probabilities, keep_at, add_at)
            wrong = s["cited"] - s["right"]
            if wrong > base_wrong:
                continue
            key = (s["hits"], -wrong, keep_at, add_at)
            if best is None or key > best[0]:
                best = (key, keep_at, add_at)
    return (best[1], best[2]) if best else (0.0, 2.0)


def harvest_by_fold(data_dir: Path | None, items: Sequence[EvalItem], fold_models: Path | None,
                    log: Callable[..., None] = print) -> list[Question]:
    """:func:`harvest` in the committed world, or, with ``fold_models`` (``train-demo-model --fold-models``), each
    question in the world of its fold's model file, whose demo corpus model did not see it."""
    if fold_models is None:
        return harvest(bench_settings(data_dir, llm_provider="offline"), items, log)
    from regintel.bench.demo_model import FOLDS, fold_of
    from regintel.bench.ranker import gold_articles

    files = {fold: Path(fold_models) / f"fold-{fold}.json" for fold in range(FOLDS)}
    missing = [str(p) for p in files.values() if not p.exists()]
    if missing:
        raise SystemExit(f"fold model files missing: {', '.join(missing)} (python -m regintel.bench train-demo-model "
                         f"--fold-models {fold_models})")
    questions: list[Question] = []
    for fold, path in files.items():
        members = [i for i in items if fold_of(frozenset(gold_articles(i))) == fold]
        log(f"fold {fold}: {len(members)} questions with {path}")
        questions += harvest(bench_settings(data_dir, llm_provider="offline", ranker_model=path), members, log)
    return questions


def main(args: Any) -> int:
    started = time.perf_counter()
    items = training_items()
    if args.limit:
        items = items[: args.limit]
    fold_models = Path(args.fold_models) if getattr(args, "fold_models", None) else None
    questions = harvest_by_fold(Path(args.data_dir) if args.data_dir else None, items, fold_models)
    print(f"harvested {len(questions)} of {len(items)} training questions in {time.perf_counter() - started:.0f}s")
    probabilities = cross_fitted(questions, folds=args.folds, seed=args.seed)
    keep_at, add_at = choose_thresholds(questions, probabilities)
    composer = score_policy(questions, None)
    chosen = score_policy(questions, probabilities, keep_at, add_at)
    booster = fit_booster(questions, seed=args.seed)
    training = {"questions": len(questions), "items": len(items), "folds": args.folds, "seed": args.seed,
                "world": "fold models (retrieval out of fold)" if fold_models else "the committed model",
                "rounds": ROUNDS, "cross_fitted": {"composer": composer, "chosen": chosen}}
    chooser = CitationChooser(booster, keep_at, add_at, training)
    result = {"keep_at": keep_at, "add_at": add_at, **training, "written": None}
    if args.write:
        out = Path(args.out) if args.out else bench_settings(None).citation_model
        chooser.save(out)
        result["written"] = str(out)
    print(f"cross-fitted on {len(questions)} questions: composer {composer['hits']} hits, precision "
          f"{composer['precision']}; chosen (keep {keep_at}, add {add_at}) {chosen['hits']} hits, precision "
          f"{chosen['precision']}")
    if args.json:
        print(json.dumps(result))
    return 0
