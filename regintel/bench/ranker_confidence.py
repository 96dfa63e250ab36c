"""``python -m regintel.bench ranker-confidence``: the learned ranker's confident level (issue 16, session 57).

The evidence grade abstains as LOW_SIMILARITY when the passages are only loosely related to the question by
similarity; plain questions whose provision the ranker puts first ("When are we allowed to take fully automated
decisions about customers, such as an automatic credit refusal?", Article 22) abstained that way, because a question
told in everyday words, or with its situation, scores every passage low. The ranker's score reads more than
similarity (words, headings, the structure of the act), so a first passage it scores as high as it usually scores a
right one anchors the answer (:func:`regintel.chat.evidence.analyse_evidence`). That level is measured here, for the
model in use, on questions it was not trained on: the demo corpus's check questions (``data/eval/checks``; not their
held-back test split, nor the two check files kept unseen, :data:`UNSEEN_CHECKS`): the median score of the first
passage over the questions whose first passage is a gold one (the dev split is in the model's training data: its
scores run higher). It is the shared model's level: the demo corpus's own model (:mod:`regintel.bench.demo_model`)
is set aside here, its level is measured out of fold when it is trained. ``--write`` stores it in the model file
(``training.confident_at``), where :attr:`regintel.retrieval.ranker.LearnedRanker.confident_at` reads it; a model
trained again carries none until this is run again, and then no answer is anchored this way.
"""

from __future__ import annotations

import json
import statistics
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Sequence

from regintel.atomic_files import write_text_atomically
from regintel.config import Settings

RULE = ("median first-passage ranker score of the answerable check questions (data/eval/checks, not the test split nor "
        "the unseen files) whose first passage is gold (python -m regintel.bench ranker-confidence --write)")
# check files kept for measuring only (docs/benchmarks.md): nothing is chosen on them
UNSEEN_CHECKS = ("unseen_mix.jsonl", "crosslingual_short.jsonl")


def first_passage_scores(settings: Settings, log: Callable[..., None] = print) -> list[tuple[float, bool]]:
    """(the ranker's score of the first passage, whether it is a gold one) for each answerable check question outside
    the held-back and unseen ones that the ranker scored."""
    from regintel.bench.answers import matches_any_gold
    from regintel.bench.ranker import check_questions
    from regintel.runtime import RegIntel

    checks, _ = check_questions()
    items = [i for i in checks if i.source_file not in UNSEEN_CHECKS]
    scores: list[tuple[float, bool]] = []
    with RegIntel(settings, graph=None) as app:
        if app.index_or_none() is None:
            log(f"indexing the demo corpus into {settings.data_dir} ...")
            app.ingest(seed_graph=False)
        if app.index.ranker is not None and app.index.ranker.corpus_models:
            # the level measured here is the shared model's (the demo corpus's own model, trained on these very
            # questions, has its level measured out of fold by `train-demo-model`): search with the shared one
            app.index.ranker = replace(app.index.ranker, corpus_models={})
        for item in items:
            sources = app.index.search(item.retrieval_query, k=8).sources
            if sources and sources[0].ranker_score is not None:
                first = sources[0]
                scores.append((float(first.ranker_score),
                               matches_any_gold({"document_id": first.document_id, "ref": first.ref}, item.gold)))
    return scores


def confident_level(scores: Sequence[tuple[float, bool]]) -> float:
    """The median first-passage score of the questions whose first passage is gold (ValueError when none is)."""
    right = [score for score, gold in scores if gold]
    if not right:
        raise ValueError("no check question has a gold first passage: no level can be measured")
    return round(statistics.median(right), 2)


def report(scores: Sequence[tuple[float, bool]]) -> dict[str, Any]:
    """The level, how many questions it was measured on, and the quartiles of the first-passage scores when the first
    passage is gold and when it is not (how many of the latter reach the level)."""
    level = confident_level(scores)
    right = sorted(s for s, gold in scores if gold)
    wrong = sorted(s for s, gold in scores if not gold)

    def quartiles(values: list[float]) -> list[float]:
        return [round(v, 2) for v in statistics.quantiles(values, n=4)] if len(values) >= 2 else values

    return {"questions": len(scores), "gold_first": len(right), "confident_at": level,
            "quartiles_gold_first": quartiles(right), "quartiles_other_first": quartiles(wrong),
            "other_first_at_or_above": sum(s >= level for s in wrong), "rule": RULE}


def write_level(path: Path, level: float) -> None:
    """Store ``level`` in the model file's training record (the rest of the file byte for byte as it was)."""
    document = json.loads(Path(path).read_text(encoding="utf-8"))
    document.setdefault("training", {})
    document["training"]["confident_at"] = level
    document["training"]["confident_at_rule"] = RULE
    write_text_atomically(Path(path), json.dumps(document, ensure_ascii=False))


def main(args: Any) -> int:
    from regintel.bench.answers import bench_settings

    settings = bench_settings(Path(args.data_dir) if args.data_dir else None)
    log = (lambda *_: None) if args.json else print
    result = report(first_passage_scores(settings, log))
    if args.write:
        write_level(settings.ranker_model, result["confident_at"])
        result["written_to"] = str(settings.ranker_model)
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:28s} {value}")
    return 0
