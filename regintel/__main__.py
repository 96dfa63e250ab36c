"""Command line: ``python -m regintel ingest | search | ask | worker | build-seed-cache | users | graph | bench ...``."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

from regintel.errors import RegIntelError
from regintel.runtime import RegIntel


def _progress_printer():
    from tqdm import tqdm

    bars: dict[str, tqdm] = {}

    def progress(phase: str, done: int, total: int) -> None:
        bar = bars.get(phase)
        if bar is None:
            bar = bars[phase] = tqdm(total=total, desc=phase, unit="chunk" if phase == "embedding" else "step")
        bar.total = total
        bar.n = done
        bar.refresh()
        if done >= total:
            bar.close()

    return progress


def cmd_ingest(app: RegIntel, args: argparse.Namespace) -> int:
    report = app.ingest(Path(args.corpus) if args.corpus else None, progress=_progress_printer(), seed_graph=not args.no_graph,
                        on_wait=lambda: print("Another ingestion is running in this data directory; waiting for it to finish…",
                                              file=sys.stderr, flush=True))
    app.audit.record("reindex", actor="cli")
    print(report.summary())
    return 0


def cmd_search(app: RegIntel, args: argparse.Namespace) -> int:
    filters = {"jurisdiction": args.jurisdiction or [], "document_id": args.document or [], "language": args.language or []}
    result = app.index.search(args.question, k=args.k, filters=filters, mode=args.mode)
    if args.json:
        print(json.dumps([s.to_dict() for s in result.sources], ensure_ascii=False))
        return 0
    for rank, source in enumerate(result.sources, start=1):
        print(f"[{rank}] {source.title} {source.ref}  sim {source.similarity:.1f}  {source.authority_level}"
              f"  (dense #{source.dense_rank}, bm25 #{source.bm25_rank})")
        print("    " + source.text[:200].replace("\n", " "))
    return 0


def cmd_build_seed_cache(app: RegIntel, args: argparse.Namespace) -> int:
    from regintel.llm.offline_compose import SENTENCES_READ_BY_MEANING
    from regintel.retrieval.ingest import seed_cache_entries, write_latent_seed
    from regintel.retrieval.seed_cache import write_seed_cache

    app.ingest(progress=_progress_printer(), seed_graph=False)
    keys, vectors = seed_cache_entries(app.settings, app.embedder, ahead=SENTENCES_READ_BY_MEANING)
    path = write_seed_cache(app.settings.embedding_seed_cache, app.embedder.model_id, keys, vectors)
    print(f"wrote {len(keys)} vectors to {path}")
    print(f"wrote the latent terms of {write_latent_seed(app.settings, app.embedder)}")
    from regintel.chat.guardrail_model import GuardrailClassifier

    print(f"wrote the guardrail model to {GuardrailClassifier(app.embedder, None).train_shipped()}")
    return 0


def cmd_worker(app: RegIntel, args: argparse.Namespace) -> int:
    from regintel.jobs.worker import serve

    processed = serve(app, once=args.once, poll_seconds=args.poll, supervised=args.supervised)
    print(f"processed {processed} jobs; queue: {app.jobs.counts()}")
    return 0


def cmd_ask(app: RegIntel, args: argparse.Namespace) -> int:
    engine = app.chat
    tenant = app.tenants.ensure_tenant(args.tenant)
    user = app.tenants.ensure_user(tenant.id, args.user)
    conversation_id = args.conversation or app.conversations.create_conversation(tenant.id, user.id).id
    stream = engine.stream_turn(tenant.id, user.id, conversation_id, args.question)
    for delta in stream:
        sys.stdout.write(delta)
        sys.stdout.flush()
    response = stream.response
    sys.stdout.write("\n")
    if args.json:
        print(json.dumps(response.to_dict(), ensure_ascii=False))
        return 0 if response.status == "complete" else 1
    print(f"\n{response.response_mode}" + (f" ({response.abstention_reason})" if response.abstention_reason else "")
          + f" · confidence {response.confidence['level']} {response.confidence['score']}"
          + f" · authority {response.authority['level']} {response.authority['score']}"
          + (" · from cache" if response.from_cache else ""))
    for source in response.cited:
        print(f"[{source.index}] {source.title} {source.ref} ({source.authority_level}, sim {source.similarity}) {source.url}")
    if response.concept_nodes:
        print("concepts: " + ", ".join(n["label"] for n in response.concept_nodes))
    print(f"conversation {conversation_id} · trace {response.trace_id}")
    return 0 if response.status == "complete" else 1


def cmd_demo(app: RegIntel, args: argparse.Namespace) -> int:
    from regintel.demo import seed_demo, seed_enrichment, seed_extraction

    if not app.status().index.ready:
        print(app.ingest(progress=_progress_printer()).summary())
    print(seed_demo(app, force=args.force).summary())
    if app.graph is None:
        print(f"extraction: skipped (the rules graph is not available: {app.graph_problem})")
        return 0
    print(seed_extraction(app))
    print(seed_enrichment(app))
    return 0


def cmd_export_notes(app: RegIntel, args: argparse.Namespace) -> int:
    workflow = app.extraction
    runs = workflow.repair_notes()
    if args.all:
        runs += [workflow.export_notes(run.id) for run in workflow.list_runs("committed")]
    pending = [run for run in runs if run.status == "notes_sync_pending"]
    for run in runs:
        print(f"{run.id[:8]} {run.status:<20} {len(run.committed.get('notes', []))} notes  {run.content_title}")
    print(f"{len(runs) - len(pending)} run(s) exported to {app.settings.notes_path}, {len(pending)} still pending")
    from regintel.graph.verify import verify_graph

    differences = verify_graph(app.db, app.require_graph())  # notes written from a graph that lost a commit lie
    for difference in differences:
        print(difference.line())
    if differences:
        print(f"{len(differences)} committed item(s) missing from the graph: see `python -m regintel graph verify`")
    return 1 if pending or differences else 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m regintel", description="RegIntel Copilot command line")
    sub = parser.add_subparsers(dest="command", required=True)

    ingest = sub.add_parser("ingest", help="index the corpus (idempotent: only changed chunks are embedded)")
    ingest.add_argument("--corpus", help="corpus folder (default: REGINTEL_CORPUS_DIR)")
    ingest.add_argument("--no-graph", action="store_true", help="do not seed the rules graph")
    ingest.set_defaults(func=cmd_ingest)

    search = sub.add_parser("search", help="hybrid search of the indexed corpus")
    search.add_argument("question")
    search.add_argument("--k", type=int, default=5)
    search.add_argument("--mode", choices=["hybrid", "dense", "bm25"], default="hybrid")
    search.add_argument("--jurisdiction", action="append")
    search.add_argument("--document", action="append")
    search.add_argument("--language", action="append")
    search.add_argument("--json", action="store_true")
    search.set_defaults(func=cmd_search)

    seed = sub.add_parser("build-seed-cache", help="rebuild data/embeddings (the shipped demo-corpus vectors) and the shipped guardrail model (data/guardrails)")
    seed.set_defaults(func=cmd_build_seed_cache)

    worker = sub.add_parser("worker", help="run background jobs (concept capture queued during a graph outage, enrichment) until stopped")
    worker.add_argument("--once", action="store_true", help="stop when no job is due")
    worker.add_argument("--poll", type=float, default=2.0, help="seconds between polls of an empty queue")
    worker.add_argument("--supervised", action="store_true", help="stop when standard input closes (the app that started it is gone)")
    worker.set_defaults(func=cmd_worker)

    ask = sub.add_parser("ask", help="ask a question (streams the answer; --json prints the ChatResponse last)")
    ask.add_argument("question")
    ask.add_argument("--conversation", help="continue this conversation (id printed by a previous ask)")
    ask.add_argument("--tenant", default="default", help="tenant name (created when new)")
    ask.add_argument("--user", default="cli", help="user name within the tenant (created when new)")
    ask.add_argument("--json", action="store_true", help="print the ChatResponse as one JSON object on the last line")
    ask.set_defaults(func=cmd_ask)

    demo = sub.add_parser("demo", help="build the index if needed and seed demo conversations, feedback and one committed extraction")
    demo.add_argument("--force", action="store_true", help="add the demo conversations again")
    demo.set_defaults(func=cmd_demo)

    notes = sub.add_parser("export-notes", help="write the markdown notes of committed extractions whose notes failed (notes_sync_pending)")
    notes.add_argument("--all", action="store_true", help="rewrite the notes of every committed extraction too")
    notes.set_defaults(func=cmd_export_notes)

    from regintel.identity.cli import add_parser as add_users_parser

    add_users_parser(sub)

    from regintel.graph.scan import add_parser as add_graph_parser

    add_graph_parser(sub)

    from regintel.ops.backup_cli import add_parser as add_backup_parser

    add_backup_parser(sub)

    from regintel.sources.cli import add_parser as add_sources_parser

    add_sources_parser(sub, _progress_printer)

    from regintel.ops.prometheus import add_parser as add_metrics_parser

    add_metrics_parser(sub)

    bench = sub.add_parser("bench", help="benchmarks (same as python -m regintel.bench)")
    bench.add_argument("rest", nargs=argparse.REMAINDER)
    bench.set_defaults(func=None)
    return parser


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    args = build_parser().parse_args(argv)
    if args.command == "bench":
        from regintel.bench.__main__ import main as bench_main

        return int(bench_main(args.rest) or 0)
    try:
        with RegIntel() as app:
            return int(args.func(app, args) or 0)
    except RegIntelError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
