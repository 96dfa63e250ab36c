"""``python -m regintel.bench train-ranker``: train and measure the learned second-stage ranker (issue 19).

Training data, all labelled by others or held apart from the figures it produces:

- ObliQA dev (2,764 questions) and ObliQA-MP dev (427, several gold passages each) over the 13,732 ObliQA passages,
  with the published passage-to-passage cross-references as the graph (``crossrefs.jsonl``);
- the demo-corpus set's **dev** split (``data/eval``, answerable items; a candidate is relevant when it belongs to
  a gold article). Its **test** split is never trained on: it measures the committed model;
- realistic demo-corpus questions written for training only (``data/ranker/questions/*.jsonl``, the evaluation
  set's schema with split "train"; written from the texts by writers who did not see the evaluation set, and any
  question close to an evaluation question dropped): the dev split alone is few questions, and the pseudo-queries
  below are not asked the way analysts ask;
- pseudo-queries of the demo corpus itself (:func:`regintel.retrieval.calibration.all_pseudo_queries`: each
  defined term asked as "What does 'X' mean?", each unit's title), relevant = the unit it was made from. ObliQA's
  short rules teach the model little about long multi-part articles and definition lists (trained on ObliQA
  alone it ranks the gold article first for fewer demo dev questions than the first stage does); 75 labelled
  dev questions are few, and these need no labels.

Every question contributes the first stage's ``rerank_candidates`` best passages with their features
(:mod:`regintel.retrieval.ranker_features`). Out-of-fold figures: the questions are split into ``--folds`` folds by
a seeded hash of their normalised text (a question asked in two files lands in one fold); a demo question by its
gold articles instead (the set asks about one article in several phrasings and languages: folds by text would
train on a translation of the question they measure), a pseudo-query by its unit; each fold is ranked by a
model trained on the others, and Recall@10 / MAP@10 (ObliQA, ObliQA-MP) and article-level Recall@k (demo dev) are
computed on those out-of-fold rankings, next to the first stage's on the same questions. Then the model is trained
on everything, saved (``--out``, default the ``ranker_model`` setting), and the demo **test** split is measured
with and without it. ``--ablate`` retrains out-of-fold without each feature group and prints the change.

With ``--obliqa-model``, a second model is trained for the ObliQA passages alone and saved inside the model file as
their corpus model (:meth:`LearnedRanker.for_corpus`): ObliQA is searched with a query adapter learned from its own
questions (:mod:`regintel.retrieval.query_adapter`; one per fold, trained on the other folds' questions, computes the
out-of-fold features; one trained on every question is saved with the corpus model), and the corpus model is trained
on ObliQA's adapted features only, and, unless ``--no-question-memory``, on features from its labelled questions as a
memory (:mod:`regintel.retrieval.question_memory`; out of fold, a question reads the memory without its own fold),
whose nearest questions' passages also join its candidates (``--memory-candidates``).
The shared model is trained as without the option (plain ObliQA features, the demo corpus), so the demo corpus ranks
exactly as before. ``--obliqa-model-only`` trains the corpus model alone and puts it into the existing model file;
``--keep-corpus-models`` trains the shared model and keeps the existing file's corpus models (the ObliQA one is
trained on ObliQA alone: a new shared model needs no new one). ``--check-weight`` adds the check questions of
``data/eval/checks`` (:func:`check_questions`; none by default).
Why not one model with the adapter: measured (docs/benchmarks.md, issue 19 session 24), ObliQA gained 1.5 to 1.9
Recall@10 points out of fold but the one model answered 2 to 6 fewer demo dev questions (its trees lean on dense ranks
that only ObliQA's adapter makes reliable). The demo corpus has no adapter of its own: with its 166 training questions
one made the out-of-fold ranking worse.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from regintel.bench.metrics import mean_metrics, percentile
from regintel.config import REPO_ROOT, Settings
from regintel.retrieval.query_adapter import QueryAdapter, train_query_adapter
from regintel.retrieval.question_memory import MEMORY_FEATURE_NAMES, QuestionMemory
from regintel.retrieval.ranker import (ENSEMBLE_SIZE, RELATIVE_READINGS, LearnedRanker, choose_tail_gap,
                                      fit_ensemble, relative_feature_names, with_relative_features)
from regintel.retrieval.ranker_features import FEATURE_NAMES, FEATURES_VERSION

OBLIQA_DIR = REPO_ROOT.parent / "shared" / "benchmarks" / "obliqa"
TRAIN_QUESTIONS_DIR = REPO_ROOT / "data" / "ranker" / "questions"
CHECK_QUESTIONS_DIR = REPO_ROOT / "data" / "eval" / "checks"
NEAR_COPY_COSINE = 0.93  # a training question this close to a held-back one with a shared gold article is dropped
DEMO_RECALL_KS = (1, 3, 5, 10)
# nearest memorised questions (per measure) whose passages join the ObliQA corpus model's candidates: 0, 10, 20, 40
# measured out of fold with three seeds in session 74 (Recall@10 0.8394, 0.8419, 0.8436, 0.8421 for one booster)
MEMORY_CANDIDATES = 20
PSEUDO_KINDS = ("terms", "titles")  # first sentences are near-quotes: they would teach copying, not asking
FEATURE_GROUPS: dict[str, tuple[str, ...]] = {
    "first stage": ("first_stage_score", "first_stage_rank", "first_stage_relative"),
    "dense": ("question_cosine", "question_cosine_gap", "feedback_cosine", "dense_rank"),
    "bm25": ("bm25_score", "bm25_relative", "bm25_rank"),
    "term coverage": ("heading_coverage", "title_coverage", "body_coverage", "idf_coverage", "phrase_matches"),
    "numbers and references": ("number_matches", "reference_match"),
    "passage kind": ("log_length", "part_position", "is_part", "is_definition", "obligation_density", "list_points",
                     "is_empty"),
    "document": ("document_relative", "document_rank", "document_share", "authority", "language_match"),
    "graph": ("same_unit_as_leading", "unit_best_other", "cites_leading", "cited_by_leading"),
    "question": ("question_terms", "definition_question"),
    "search titles": ("gloss_coverage", "gloss_idf_coverage", "titles_cosine", "titles_cosine_gap"),
    "document order": ("order_gap_first", "order_gap_leading"),
}


@dataclass
class Group:
    """One question's candidates: features, labels, and how to score a ranking of them."""

    dataset: str  # "obliqa", "obliqa-mp", "demo-dev", "demo-test"
    key: str  # normalised question text (fold assignment)
    candidates: list[str]
    features: np.ndarray
    labels: np.ndarray
    first_stage_ms: float
    gold: Any  # a set of pids (ObliQA) or the eval item's gold refs (demo)
    sources: list[dict[str, str]] | None = None  # demo: {document_id, ref} of each candidate
    fold: int = -1  # train-demo-model: the question's fold by gold article (-1: a pseudo-query, trained on in every fold)
    question: str = ""  # ObliQA: the question, and its first stage, from which memory candidates are added
    stage: Any = None


def fold_of(key: str, folds: int, seed: int) -> int:
    return int(hashlib.sha256(f"{seed}\x00{key}".encode()).hexdigest(), 16) % folds


def normalised(question: str) -> str:
    return " ".join(question.lower().split())


def collect_obliqa(index: Any, questions_path: Path, dataset: str, candidates: int, limit: int | None,
                   log: Callable[..., None], adapter_of: Callable[[str], QueryAdapter | None] | None = None,
                   ) -> list[Group]:
    """The groups of one ObliQA-schema questions file over the ObliQA ``index``; ``adapter_of(key)``: the query
    adapter a question is searched with (one that never saw its fold), None: plain question vectors."""
    from regintel.bench.obliqa import load_questions

    questions = load_questions(questions_path)[: limit or None]
    log(f"{dataset}: {len(questions)} questions; embedding them (cached after the first run) ...")
    index.embedder.embed([q.question for q in questions], kind="query")
    groups = []
    try:
        for question in questions:
            key = normalised(question.question)
            index.adapter = adapter_of(key) if adapter_of is not None else None
            started = time.perf_counter()
            stage = index.first_stage(question.question, k=10)
            ids = [cid for cid, _ in stage.ordered(candidates)]
            elapsed = (time.perf_counter() - started) * 1000
            matrix = index.features.matrix(question.question, stage, ids)
            labels = np.array([1.0 if cid in question.gold_pids else 0.0 for cid in ids])
            groups.append(Group(dataset, key, ids, matrix, labels, elapsed, set(question.gold_pids),
                                question=question.question, stage=stage))
    finally:
        index.adapter = None
    return groups


def open_obliqa(settings: Settings, obliqa_dir: Path) -> Any:
    """The ObliQA passages' search index (vectors cached between runs) with ObliQA-XRef as its citation graph, and
    their latent terms unless the setting says ``never`` (a model trained here reads them; the first run encodes
    them: two to three hours on 2 cores, resumable)."""
    from regintel.bench.obliqa import obliqa_references
    from regintel.bench.retrieval import open_bench_index

    built = open_bench_index(settings, obliqa_dir / "passages.jsonl")
    if settings.latent_terms != "never":
        built.with_latent_terms()
    index = built.index
    index.references = obliqa_references(obliqa_dir / "crossrefs.jsonl")
    return index


def obliqa_adapters(index: Any, question_files: Sequence[Path], folds: int, seed: int, limit: int | None,
                    log: Callable[..., None]) -> tuple[dict[int, QueryAdapter], QueryAdapter]:
    """Query adapters for the ObliQA passages (:mod:`regintel.retrieval.query_adapter`): one per fold, trained on
    the other folds' questions (the out-of-fold features and figures), and one on every question (saved)."""
    from regintel.bench.obliqa import load_questions

    questions = [q for path in question_files for q in load_questions(path)[: limit or None]]
    ids, passages = index.passage_matrix()
    row = {cid: i for i, cid in enumerate(ids)}
    vectors = index.embedder.embed([q.question for q in questions], kind="query")
    gold = [[row[pid] for pid in q.gold_pids if pid in row] for q in questions]
    assigned = [fold_of(normalised(q.question), folds, seed) for q in questions]
    started = time.perf_counter()
    per_fold = {}
    for fold in range(folds):
        kept = [i for i, f in enumerate(assigned) if f != fold]
        per_fold[fold] = train_query_adapter(vectors[kept], [gold[i] for i in kept], passages, seed=seed)
    full = train_query_adapter(vectors, gold, passages, seed=seed)
    log(f"query adapters for the ObliQA passages: {folds} folds and one on all {len(questions)} questions in "
        f"{time.perf_counter() - started:.0f}s")
    return per_fold, full


def obliqa_memory(index: Any, question_files: Sequence[Path], limit: int | None) -> QuestionMemory:
    """ObliQA dev and ObliQA-MP dev questions as the corpus model's memory (:mod:`question_memory`), one row per
    question in the order :func:`collect_obliqa` reads them (row i is group i)."""
    from regintel.bench.obliqa import load_questions

    questions = [q for path in question_files for q in load_questions(path)[: limit or None]]
    vectors = index.embedder.embed([q.question for q in questions], kind="query")  # cached by collect_obliqa
    return QuestionMemory([q.question for q in questions], vectors, [tuple(sorted(q.gold_pids)) for q in questions])


def with_memory_features(group: Group, memory: QuestionMemory, row: int, excluded: np.ndarray) -> np.ndarray:
    """The group's features and its memory features, read without the ``excluded`` memory rows."""
    return np.hstack([group.features, memory.features(memory.vectors[row], memory.questions[row], group.candidates,
                                                      excluded)])


def memory_view(index: Any, memory: QuestionMemory, nearest: int,
                relative: bool = False) -> Callable[[Group, int, np.ndarray], Group]:
    """How a question's group reads the memory without the ``excluded`` memory rows: its memory features, and with
    ``nearest`` > 0 the passages of the nearest memorised questions joined to its candidates, features computed as
    search computes them (:func:`regintel.retrieval.search_index.memory_candidates`); ``relative``: each feature also
    read against the group's other candidates (:func:`with_relative_features`), after the rest."""
    from regintel.retrieval.search_index import memory_candidates

    def view(group: Group, row: int, excluded: np.ndarray) -> Group:
        read = _read(group, row, excluded)
        return replace(read, features=with_relative_features(read.features)) if relative else read

    def _read(group: Group, row: int, excluded: np.ndarray) -> Group:
        if nearest <= 0:
            return replace(group, features=with_memory_features(group, memory, row, excluded))
        vector, question = memory.vectors[row], memory.questions[row]
        similarities = memory.similarities(vector, question)
        lent = memory.neighbour_answers(vector, question, nearest, excluded, similarities)
        stage = replace(group.stage, fused=dict(group.stage.fused))  # the joined passages of this reading only
        candidates = group.candidates + memory_candidates(lent, stage, group.candidates, lambda cid: cid in index.chunks)
        matrix = np.hstack([index.features.matrix(group.question, stage, candidates),
                            memory.features(vector, question, candidates, excluded, similarities)])
        labels = np.array([1.0 if cid in group.gold else 0.0 for cid in candidates])
        return replace(group, candidates=candidates, features=matrix, labels=labels)
    return view


def out_of_fold_with_memory(groups: Sequence[Group], view: Callable[[Group, int, np.ndarray], Group], folds: int,
                            seed: int, ensemble: int, names: Sequence[str] = FEATURE_NAMES + MEMORY_FEATURE_NAMES
                            ) -> tuple[list[Group], list[np.ndarray]]:
    """As :func:`out_of_fold`, with a memory that never reads the ranked fold (``view``: :func:`memory_view`): a
    test question reads the memory without its fold, a training question without its own fold and the test fold
    (nested, so no label of the ranked fold reaches the model through another question's features or
    candidates). Returns each question's group as its fold's model ranked it, and its scores."""
    assigned = np.array([fold_of(g.key, folds, seed) for g in groups])
    ranked: list[Group] = list(groups)
    scores: list[np.ndarray] = [np.zeros(0)] * len(groups)
    for fold in range(folds):
        train = [view(groups[i], i, (assigned == assigned[i]) | (assigned == fold))
                 for i in range(len(groups)) if assigned[i] != fold]
        model = LearnedRanker(fit_ensemble([g.features for g in train], [g.labels for g in train], seed=seed,
                                           size=ensemble, feature_names=names), names)
        for i in np.flatnonzero(assigned == fold):
            ranked[i] = view(groups[i], i, assigned == fold)
            scores[i] = model.score(ranked[i].features)
    return ranked, scores


def obliqa_model(index: Any, question_files: Sequence[Path], folds: int, seed: int, ensemble: int, candidates: int,
                 limit: int | None, log: Callable[..., None], with_memory: bool = True,
                 memory_candidates: int = MEMORY_CANDIDATES,
                 relative: bool = True) -> tuple[LearnedRanker, dict[str, Any]]:
    """The ObliQA passages' corpus model (see the module doc) and its out-of-fold report: each question's features
    are computed with the adapter of its fold, each fold ranked by a model trained on the other folds; then the
    model and its adapter are trained on every question, and its tail gap chosen on ObliQA-MP's out-of-fold scores.
    ``with_memory``: the model reads its labelled questions as a memory (:mod:`question_memory`), and the passages
    of the ``memory_candidates`` nearest of them (per measure) join its candidates. ``relative``: the model also
    reads each feature against the question's other candidates (:func:`with_relative_features`)."""
    fold_adapters, full_adapter = obliqa_adapters(index, question_files, folds, seed, limit, log)

    def adapter_of(key: str) -> QueryAdapter | None:
        return fold_adapters.get(fold_of(key, folds, seed))

    groups = collect_obliqa(index, question_files[0], "obliqa", candidates, limit, log, adapter_of)
    groups += collect_obliqa(index, question_files[1], "obliqa-mp", candidates, limit, log, adapter_of)
    memory = obliqa_memory(index, question_files, limit) if with_memory else None
    nearest = memory_candidates if memory is not None else 0
    names = FEATURE_NAMES + MEMORY_FEATURE_NAMES if memory is not None else FEATURE_NAMES
    if relative:
        names = names + relative_feature_names(names)
    if memory is not None:
        # each question as its fold's model ranked it: read without its own fold, as the saved model is trained
        groups, oof = out_of_fold_with_memory(groups, memory_view(index, memory, nearest, relative), folds, seed,
                                              ensemble, names)
    else:
        if relative:
            groups = [replace(g, features=with_relative_features(g.features)) for g in groups]
        oof = out_of_fold(groups, folds, seed, ensemble=ensemble, names=names)
    multi = [(g, s) for g, s in zip(groups, oof) if g.dataset == "obliqa-mp"]
    tail_gap, tail_table = choose_tail_gap(tail_rankings(multi))
    report = {"out_of_fold": compare(groups, oof), "tail_filter": {"gap": tail_gap, "by_gap": tail_table,
                                                                   "fixed_k": fixed_k_table(multi)}}
    boosters = fit_ensemble([g.features for g in groups], [g.labels for g in groups], seed=seed, size=ensemble,
                            feature_names=names)
    version = index.passages_version
    model = LearnedRanker(boosters, names, FEATURES_VERSION, {
        "command": "python -m regintel.bench train-ranker --obliqa-model", "seed": seed, "ensemble": ensemble,
        "folds": folds, "candidates": candidates, "corpus": "ObliQA passages",
        "questions": {d: sum(g.dataset == d for g in groups) for d in sorted({g.dataset for g in groups})},
        "out_of_fold": report["out_of_fold"], "tail_gap": tail_gap, "query_adapter": full_adapter.training,
        "question_memory": len(memory) if memory is not None else 0, "memory_candidates": nearest,
        "relative_features": relative, "relative_readings": list(RELATIVE_READINGS) if relative else []},
        {version: full_adapter}, memory=memory)
    report["importance"] = dict(sorted(model.importance().items(), key=lambda item: -item[1]))
    return model, report


def gold_key(gold: Sequence[dict[str, str]]) -> str:
    """A demo question's fold key: its gold articles (all phrasings of a question about them share a fold)."""
    return json.dumps(sorted((g["document_id"], g["ref"]) for g in gold), ensure_ascii=False)


def gold_articles(item: Any) -> set[tuple[str, str]]:
    """(document, article or section) of each gold ref of an evaluation item."""
    from regintel.bench.answers import article_of, strip_part_suffix

    return {(g["document_id"], article_of(g["ref"]) or strip_part_suffix(g["ref"])) for g in item.gold}


def without_near_copies(items: Sequence[Any], held_back: Sequence[Any], embed: Callable[[list[str]], Any],
                        threshold: float = NEAR_COPY_COSINE) -> list[Any]:
    """``items`` without those within ``threshold`` cosine of a held-back question sharing a gold article with
    it: a held-back question must not measure the ranker on a near-copy (or a translation) of a training one."""
    if not items or not held_back:
        return list(items)
    vectors = np.asarray(embed([i.question for i in items]), dtype=np.float64)
    held = np.asarray(embed([i.question for i in held_back]), dtype=np.float64)
    similarity = (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)) @ (
        held / np.linalg.norm(held, axis=1, keepdims=True)).T
    return [item for row, item in zip(similarity, items)
            if not any(gold_articles(item) & gold_articles(held_back[j]) for j in np.flatnonzero(row >= threshold))]


def check_questions() -> tuple[list[Any], list[Any]]:
    """(training, held back): the answerable questions of ``data/eval/checks`` outside any held-back split, and
    every held-back question (the test split of the set and of the check files). The checks were written from the
    texts as plain analysts' questions, one behaviour each. With ``--check-weight`` they train the ranker (dataset
    "demo-check"); measured in session 52 (docs/benchmarks.md, issue 19) it changed nothing end to end, and the
    committed model is trained without them, so they stay out of sample for retrieval."""
    from regintel.bench.answers import default_files, load_items

    checks = load_items(sorted(CHECK_QUESTIONS_DIR.glob("*.jsonl")))
    held_back = [i for i in load_items(default_files()) + checks if i.kind == "answerable" and i.split == "test"]
    return [i for i in checks if i.kind == "answerable" and i.split != "test"], held_back


def collect_demo(data_dir: Path | None, candidates: int, log: Callable[..., None],
                 pseudo_kinds: Sequence[str] = (), with_checks: bool = False) -> list[Group]:
    """The demo corpus's answerable items of both splits and the training questions (the split is the group's
    dataset name: demo-dev, demo-test, demo-train), its pseudo-queries of ``pseudo_kinds`` (dataset
    "demo-pseudo") and, ``with_checks``, the check questions (:func:`check_questions`, dataset "demo-check")."""
    from regintel.bench.answers import bench_settings, default_files, load_items
    from regintel.config import load_settings
    from regintel.runtime import RegIntel

    # latent terms as for ObliQA (a model trained here reads them), unless the setting says never
    latent = "never" if load_settings().latent_terms == "never" else "always"
    settings = bench_settings(data_dir, ranker_model=Path(""), latent_terms=latent)
    items = [i for i in load_items(default_files()) if i.kind == "answerable" and i.split in ("dev", "test")]
    items += [i for i in load_items(sorted(TRAIN_QUESTIONS_DIR.glob("*.jsonl"))) if i.kind == "answerable"
              and i.split == "train"]
    groups = []
    with RegIntel(settings, graph=None) as app:
        if app.index_or_none() is None or (latent == "always" and app.index.latent is None):
            log(f"indexing the demo corpus into {settings.data_dir} ...")
            app.ingest(seed_graph=False)
        index = app.index
        datasets = {id(item): f"demo-{item.split}" for item in items}
        if with_checks:
            checks, held_back = check_questions()
            kept = without_near_copies(checks, held_back, lambda texts: index.embedder.embed(texts, kind="query"))
            log(f"check questions: {len(kept)} of {len(checks)} (the others are near-copies of held-back ones)")
            items += kept
            datasets.update({id(item): "demo-check" for item in kept})
        groups += [question_group(index, item, datasets[id(item)], candidates) for item in items]
        if pseudo_kinds:
            groups += pseudo_query_groups(index, pseudo_kinds, candidates, log)
    return groups


def question_group(index: Any, item: Any, dataset: str, candidates: int, fold: int = -1) -> Group:
    """A labelled demo question as a group: its first-stage candidates (searched with the index as it stands, its
    query adapter included), their features, and which of them belong to a gold ref."""
    from regintel.bench.answers import matches_any_gold

    query = item.retrieval_query
    started = time.perf_counter()
    stage = index.first_stage(query, k=10)
    ids = [cid for cid, _ in stage.ordered(candidates)]
    elapsed = (time.perf_counter() - started) * 1000
    sources = [{"document_id": index.chunks[cid].document_id, "ref": index.chunks[cid].ref} for cid in ids]
    labels = np.array([1.0 if matches_any_gold(s, item.gold) else 0.0 for s in sources])
    return Group(dataset, gold_key(item.gold), ids, index.features.matrix(query, stage, ids), labels, elapsed,
                 item.gold, sources, fold)


def pseudo_query_groups(index: Any, kinds: Sequence[str], candidates: int,
                        log: Callable[..., None] = lambda *_: None) -> list[Group]:
    """The corpus's pseudo-queries of ``kinds`` as groups (dataset "demo-pseudo"): each relevant to the passages of
    its own unit, searched with the index as it stands (its query adapter, if any)."""
    from regintel.retrieval.calibration import all_pseudo_queries, unit_of

    passages = list(index.chunks.values())
    queries = all_pseudo_queries(passages, kinds)
    log(f"demo corpus: {len(queries)} pseudo-queries ({', '.join(kinds)}); embedding them ...")
    index.embedder.embed([q.text for q in queries], kind="query")
    groups = []
    for query in queries:
        own = unit_of(passages[query.chunk_index].chunk_id)
        stage = index.first_stage(query.text, k=10)
        ids = [cid for cid, _ in stage.ordered(candidates)]
        labels = np.array([1.0 if unit_of(cid) == own else 0.0 for cid in ids])
        if labels.any():  # a pseudo-query whose unit is not among the candidates teaches nothing
            groups.append(Group("demo-pseudo", own, ids, index.features.matrix(query.text, stage, ids), labels,
                                0.0, {own}))
    return groups


# -- scoring ----------------------------------------------------------------------------------------------------
def ranking(group: Group, scores: np.ndarray | None) -> list[int]:
    """Candidate positions best first: by ``scores`` (the ranker's), or the first stage's order when None."""
    if scores is None:
        return list(range(len(group.candidates)))
    return list(np.argsort(-scores, kind="stable"))


def dataset_metrics(groups: Sequence[Group], orders: Sequence[list[int]]) -> dict[str, float]:
    """ObliQA: Recall@10 / MAP@10 as the papers compute them; demo: article-level Recall@k (a gold article
    among the top k, any part of it) and the share of relevant passages in the top 10."""
    if not groups:
        return {}
    if not groups[0].dataset.startswith("demo"):
        runs = [([g.candidates[i] for i in order[:10]], g.gold) for g, order in zip(groups, orders)]
        metrics = mean_metrics(runs, 10)
        return {"recall@10": round(metrics["recall@10"], 4), "map@10": round(metrics["map@10"], 4)}
    result = {}
    for k in DEMO_RECALL_KS:
        hits = [any(g.labels[i] > 0 for i in order[:k]) for g, order in zip(groups, orders)]
        result[f"article_recall@{k}"] = round(float(np.mean(hits)), 4)
    return result


def out_of_fold(groups: Sequence[Group], folds: int, seed: int, drop: Sequence[str] = (),
                weights: dict[str, float] | None = None, ensemble: int = 1,
                names: Sequence[str] = FEATURE_NAMES) -> list[np.ndarray]:
    """Each group's ranker scores from a model that never saw its fold (``drop``: features zeroed out; ``names``: the
    groups' feature columns)."""
    names = tuple(names)
    keep = np.array([name not in drop for name in names])
    assigned = [fold_of(g.key, folds, seed) for g in groups]
    scores: list[np.ndarray] = [np.zeros(0)] * len(groups)
    for fold in range(folds):
        train = [g for g, f in zip(groups, assigned) if f != fold and not g.dataset.endswith("test")]
        model = LearnedRanker(fit_ensemble([g.features * keep for g in train], [g.labels for g in train], seed=seed,
                                           size=ensemble, weights=[(weights or {}).get(g.dataset, 1.0) for g in train],
                                           feature_names=names), names)
        for position, (group, f) in enumerate(zip(groups, assigned)):
            if f == fold:
                scores[position] = model.score(group.features * keep)
    return scores


def compare(groups: Sequence[Group], scores: Sequence[np.ndarray]) -> dict[str, dict[str, dict[str, float]]]:
    report: dict[str, dict[str, dict[str, float]]] = {}
    for dataset in sorted({g.dataset for g in groups}):
        chosen = [(g, s) for g, s in zip(groups, scores) if g.dataset == dataset]
        first = dataset_metrics([g for g, _ in chosen], [ranking(g, None) for g, _ in chosen])
        learned = dataset_metrics([g for g, _ in chosen], [ranking(g, s) for g, s in chosen])
        report[dataset] = {"first_stage": first, "ranker": learned, "questions": {"n": len(chosen)}}
    return report


def tail_rankings(scored: Sequence[tuple[Group, np.ndarray]]) -> list[tuple[list[float], list[bool]]]:
    """(scores best first, relevance in that order) of each question, for the tail filter."""
    rankings = []
    for group, scores in scored:
        order = ranking(group, scores)
        rankings.append(([float(scores[i]) for i in order], [bool(group.labels[i] > 0) for i in order]))
    return rankings


def fixed_k_table(scored: Sequence[tuple[Group, np.ndarray]]) -> dict[int, float]:
    """Mean F1 of keeping a fixed number of passages, the baseline a tail filter must beat."""
    table = {}
    for k in (1, 2, 3, 5, 10):
        f1 = []
        for scores, relevant in tail_rankings(scored):
            total = sum(relevant)
            if total:
                hits = sum(relevant[:k])
                p, r = hits / k, hits / total
                f1.append(2 * p * r / (p + r) if p + r else 0.0)
        table[k] = round(float(np.mean(f1)), 4) if f1 else 0.0
    return table


def main(args: Any) -> int:
    from regintel.config import load_settings

    settings = load_settings()
    seed, folds, candidates = args.seed, args.folds, args.candidates
    weights = {"demo-dev": args.demo_weight, "demo-train": args.train_weight, "demo-pseudo": args.pseudo_weight,
               "demo-check": args.check_weight}
    started = time.perf_counter()
    groups: list[Group] = []
    obliqa_dir = Path(args.obliqa_dir)
    obliqa = open_obliqa(settings, obliqa_dir)
    question_files = [obliqa_dir / "obliqa_dev.jsonl", obliqa_dir / "obliqa_mp_dev.jsonl"]
    ensemble = ENSEMBLE_SIZE if getattr(args, "ensemble", None) is None else args.ensemble
    if getattr(args, "obliqa_model_only", False):
        return retrain_obliqa_model(args, settings, obliqa, question_files, ensemble)
    groups += collect_obliqa(obliqa, question_files[0], "obliqa", candidates, args.limit, print)
    groups += collect_obliqa(obliqa, question_files[1], "obliqa-mp", candidates, args.limit, print)
    groups += collect_demo(Path(args.data_dir) if args.data_dir else None, candidates, print,
                           pseudo_kinds=PSEUDO_KINDS if args.pseudo_weight > 0 else (),
                           with_checks=args.check_weight > 0)
    print(f"features of {len(groups)} questions in {time.perf_counter() - started:.0f}s")

    training = [g for g in groups if not g.dataset.endswith("test")]
    oof = out_of_fold(training, folds, seed, weights=weights, ensemble=ensemble)
    report: dict[str, Any] = {"out_of_fold": compare(training, oof)}
    if args.ablate:
        report["ablation"] = {}
        for name, members in FEATURE_GROUPS.items():
            dropped = compare(training, out_of_fold(training, folds, seed, drop=members, weights=weights,
                                                    ensemble=ensemble))
            report["ablation"][name] = {d: v["ranker"] for d, v in dropped.items()}
    tail_gap, tail_table = choose_tail_gap(tail_rankings(
        [(g, s) for g, s in zip(training, oof) if g.dataset == "obliqa-mp"]))
    report["tail_filter"] = {"gap": tail_gap, "chosen_on": "ObliQA-MP dev, out-of-fold scores",
                             "by_gap": tail_table, "fixed_k": fixed_k_table(
                                 [(g, s) for g, s in zip(training, oof) if g.dataset == "obliqa-mp"])}
    boosters = fit_ensemble([g.features for g in training], [g.labels for g in training], seed=seed, size=ensemble,
                            weights=[weights.get(g.dataset, 1.0) for g in training])
    model = LearnedRanker(boosters, FEATURE_NAMES, FEATURES_VERSION, {
        "command": "python -m regintel.bench train-ranker", "seed": seed, "ensemble": ensemble, "folds": folds,
        "candidates": candidates, "demo_weight": args.demo_weight, "train_weight": args.train_weight,
        "pseudo_weight": args.pseudo_weight, "pseudo_kinds": list(PSEUDO_KINDS), "check_weight": args.check_weight,
        "questions": {d: sum(g.dataset == d for g in training) for d in sorted({g.dataset for g in training})},
        "out_of_fold": report["out_of_fold"], "tail_gap": tail_gap})
    if args.obliqa_model:
        report["obliqa_model"] = add_obliqa_model(model, obliqa, question_files, args, ensemble)
    elif getattr(args, "keep_corpus_models", False):
        kept_from(model, Path(args.out) if args.out else settings.ranker_model)
    test = [g for g in groups if g.dataset == "demo-test"]
    report["held_back_demo_test"] = compare(test, [model.score(g.features) for g in test])
    report["importance"] = dict(sorted(model.importance().items(), key=lambda item: -item[1]))
    rerank_ms = []
    for group in groups[:300]:
        tick = time.perf_counter()
        model.score(group.features)
        rerank_ms.append((time.perf_counter() - tick) * 1000)
    report["latency_ms"] = {"first_stage_p95": round(percentile([g.first_stage_ms for g in groups], 95), 1),
                            "ranker_predict_p95": round(percentile(rerank_ms, 95), 2)}
    return save_and_report(model, Path(args.out) if args.out else settings.ranker_model, report, args)


def add_obliqa_model(model: LearnedRanker, obliqa: Any, question_files: Sequence[Path], args: Any,
                     ensemble: int) -> dict[str, Any]:
    """Train the ObliQA passages' corpus model (:func:`obliqa_model`) into ``model``; returns its report."""
    version = obliqa.passages_version
    model.corpus_models[version], report = obliqa_model(
        obliqa, question_files, args.folds, args.seed, ensemble, args.candidates, args.limit, print,
        with_memory=not getattr(args, "no_question_memory", False),
        memory_candidates=MEMORY_CANDIDATES if getattr(args, "memory_candidates", None) is None else args.memory_candidates,
        relative=not getattr(args, "no_relative_features", False))
    # the file's other corpus models (the demo corpus's) keep their entries
    model.training["corpus_models"] = {**(model.training.get("corpus_models") or {}),
                                       version: "ObliQA passages (--obliqa-model)"}
    return report


def kept_from(model: LearnedRanker, path: Path) -> None:
    """``--keep-corpus-models``: the corpus models of the model file at ``path`` go into ``model`` unchanged (the
    ObliQA corpus model is trained on ObliQA alone: a new shared model needs no new one)."""
    existing = LearnedRanker.load(path)
    if existing is None or not existing.corpus_models:
        raise SystemExit(f"--keep-corpus-models needs a model file with corpus models; {path} has none "
                         "(train them with --obliqa-model)")
    model.corpus_models = existing.corpus_models
    model.training["corpus_models"] = existing.training.get("corpus_models", {})


def save_and_report(model: LearnedRanker, out: Path, report: dict[str, Any], args: Any) -> int:
    """Save the model to ``out`` (unless ``--dry-run``) and print the report (and its JSON with ``--json``)."""
    if not args.dry_run:
        model.save(out)
        print(f"saved the ranker to {out} ({out.stat().st_size // 1024} KiB)")
        if model.confident_at is None:  # the evidence grade's ranker anchor stays off until measured for this model
            print("no confident level in this model: run `python -m regintel.bench ranker-confidence --write`")
    print_report(report)
    if args.json:
        print(json.dumps(report))
    return 0


def retrain_obliqa_model(args: Any, settings: Settings, obliqa: Any, question_files: Sequence[Path],
                         ensemble: int) -> int:
    """``--obliqa-model-only``: train the ObliQA corpus model and put it into the existing model file, whose shared
    model (the demo corpus's ranker) stays byte for byte as it was."""
    out = Path(args.out) if args.out else settings.ranker_model
    model = LearnedRanker.load(out)
    if model is None:
        raise SystemExit(f"--obliqa-model-only needs a model file to put the corpus model into; {out} is not one "
                         "(train the whole model with --obliqa-model)")
    obliqa_report = add_obliqa_model(model, obliqa, question_files, args, ensemble)
    report = {"out_of_fold": {}, "obliqa_model": obliqa_report, "tail_filter": obliqa_report["tail_filter"]}
    return save_and_report(model, out, report, args)


def print_report(report: dict[str, Any]) -> None:
    def rows(section: dict[str, Any], title: str) -> None:
        print(f"\n{title}")
        for dataset, values in section.items():
            for key in values["ranker"]:
                print(f"  {dataset:<10} {key:<18} first stage {values['first_stage'][key]:.4f}  "
                      f"ranker {values['ranker'][key]:.4f}  (n={values['questions']['n']})")

    if report["out_of_fold"]:  # empty with --obliqa-model-only
        rows(report["out_of_fold"], "out-of-fold (never ranked by a model that saw the question)")
    if "held_back_demo_test" in report:
        rows(report["held_back_demo_test"], "held-back demo test split (the saved model)")
    if "obliqa_model" in report:
        rows(report["obliqa_model"]["out_of_fold"], "ObliQA corpus model with its query adapter (out-of-fold)")
        print("  its feature importance (gain share): " + ", ".join(
            f"{k} {v:.3f}" for k, v in list(report["obliqa_model"]["importance"].items())[:8]))
    if "ablation" in report:
        print("\nablation (out-of-fold, one feature group removed)")
        for name, datasets in report["ablation"].items():
            print(f"  {name:<24} " + "  ".join(f"{d} {' '.join(f'{k}={v:.4f}' for k, v in m.items())}"
                                               for d, m in datasets.items()))
    tail = report["tail_filter"]
    chosen = tail["by_gap"][tail["gap"]]
    print(f"\ntail filter (ObliQA-MP dev, out-of-fold): gap {tail['gap']} keeps passages with precision "
          f"{chosen['precision']:.4f} recall {chosen['recall']:.4f} F1 {chosen['f1']:.4f}; fixed top-k F1: "
          + ", ".join(f"k={k} {v:.4f}" for k, v in tail["fixed_k"].items()))
    if "importance" not in report:
        return
    print("\nfeature importance (gain share): " + ", ".join(f"{k} {v:.3f}" for k, v in
                                                          list(report["importance"].items())[:12]))
    print(f"latency: first stage p95 {report['latency_ms']['first_stage_p95']} ms, ranker predict p95 "
          f"{report['latency_ms']['ranker_predict_p95']} ms (features excluded)")
