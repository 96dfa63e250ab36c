"""``python -m regintel.bench load``: concurrent conversations against the shared stores, then a loss audit.

Three front doors are loaded in turn, each by ``--sessions`` conversations of ``--turns`` turns running at once:
``threads`` (one engine shared by threads, as Streamlit serves sessions), ``processes`` (several processes, each
with its own engine over the same SQL database, index and embedded graph server, as several app replicas or a
worker would) and ``gradio`` (the Gradio app served locally, driven through ``gradio_client``). For each it prints
throughput, turn latency p50/p95/p99, errors and the number of SQLite "database is locked" errors (the store must
show none: WAL, a busy timeout and short transactions). Then it audits what was stored: every turn has its user and
assistant message once, one citation row per passage it was given, its trace; every concept a turn captured is in
the graph exactly once. ``--postgres-url`` repeats the run with PostgreSQL as the SQL store (in a database created
for the run and dropped after it).
"""

from __future__ import annotations

import json
import logging
import multiprocessing
import shutil
import time
import uuid
from collections import Counter
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

from sqlalchemy import func, select
from sqlalchemy.engine import make_url

from regintel.bench.metrics import percentile
from regintel.concepts.capture import CAPTURE_JOB
from regintel.config import Settings, load_settings

MODES = ("threads", "processes", "gradio")
LOCKED = "database is locked"

# First questions (each session starts on one) and follow-ups; all about the demo corpus.
QUESTIONS = [
    "What must a controller do when a personal data breach occurs?",
    "What must financial entities report about major ICT-related incidents?",
    "What are the conditions for consent under the GDPR?",
    "What is the register of information on ICT third-party service providers?",
    "When is a data protection impact assessment required?",
    "What rights does the data subject have to erasure?",
    "What does the ICT risk management framework of DORA contain?",
    "What are the principles relating to processing of personal data?",
    "Where is the place of supply of services to a taxable person under the VAT Directive?",
    "What must an undertaking disclose about climate change mitigation under ESRS?",
]
FOLLOW_UPS = ["What are the deadlines?", "Are there exceptions to this?", "Which authority must be informed?"]


def session_questions(session: int, turns: int) -> list[str]:
    """A session's questions: a first question, then follow-ups and new questions in turn (deterministic)."""
    asked = [QUESTIONS[session % len(QUESTIONS)]]
    for turn in range(1, turns):
        if turn % 2:
            asked.append(FOLLOW_UPS[(session + turn) % len(FOLLOW_UPS)])
        else:
            asked.append(QUESTIONS[(session + 3 * turn) % len(QUESTIONS)])
    return asked


@dataclass
class SessionPlan:
    session: int
    tenant: str
    user: str
    questions: list[str]


@dataclass
class TurnRecord:
    mode: str
    session: int
    tenant: str
    conversation_id: str = ""
    message_id: str = ""
    trace_id: str = ""
    sources: int = 0
    concept_keys: list[str] = field(default_factory=list)
    status: str = ""
    from_cache: bool = False
    started: float = 0.0
    ms: float = 0.0
    error: str = ""

    def take(self, response: Any) -> None:
        """The stored ids and outcome of the turn's ChatResponse (what the audit checks)."""
        self.message_id, self.trace_id, self.sources = response.message_id, response.trace_id, len(response.sources)
        self.status, self.from_cache = response.status, response.from_cache
        self.concept_keys = [n["key"] for n in response.concept_nodes]


class LockCounter(logging.Handler):
    """Counts log records that report a locked SQLite database (side features log and swallow their errors)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage() + (logging.Formatter().formatException(record.exc_info) if record.exc_info else "")
        self.count += LOCKED in text


def make_plans(sessions: int, turns: int, tenants: int, mode: str) -> list[SessionPlan]:
    return [SessionPlan(i, f"load-{mode}-{i % tenants}", f"analyst-{i}", session_questions(i, turns))
            for i in range(sessions)]


# -- engine sessions (threads, and threads inside each process) -----------------------------------------------
def run_session(app: Any, plan: SessionPlan, mode: str) -> list[TurnRecord]:
    engine = app.chat
    tenant = app.tenants.ensure_tenant(plan.tenant)
    user = app.tenants.ensure_user(tenant.id, plan.user)
    conversation = app.conversations.create_conversation(tenant.id, user.id).id
    records = []
    for question in plan.questions:
        record = TurnRecord(mode, plan.session, tenant.id, conversation, started=time.time())
        started = time.perf_counter()
        try:
            response = engine.ask(tenant.id, user.id, conversation, question)
        except Exception as exc:  # counted, never hidden
            record.error = f"{exc.__class__.__name__}: {str(exc)[:300]}"
        else:
            record.take(response)
            if response.status != "complete":
                record.error = f"answer {response.status}: {response.error[:200]}"
        record.ms = (time.perf_counter() - started) * 1000
        records.append(record)
    return records


def warm_up(app: Any) -> None:
    """Load the embedding model and the index before the clock starts (a served app is warm)."""
    app.index.search(QUESTIONS[0], k=1)


def run_sessions(app: Any, plans: list[SessionPlan], mode: str) -> list[TurnRecord]:
    with ThreadPoolExecutor(max_workers=max(1, len(plans))) as pool:
        return [r for records in pool.map(lambda p: run_session(app, p, mode), plans) for r in records]


def _process_main(overrides: dict[str, Any], plans: list[SessionPlan], barrier: Any) -> tuple[list[dict], int]:
    """One process: its own engine over the shared stores; starts its sessions when every process is ready."""
    from regintel.runtime import RegIntel

    counter = LockCounter()
    logging.getLogger().addHandler(counter)
    app = RegIntel(load_settings(**overrides))
    warm_up(app)
    barrier.wait(timeout=600)
    records = run_sessions(app, plans, "processes")
    return [asdict(r) for r in records], counter.count


def run_processes(overrides: dict[str, Any], plans: list[SessionPlan], processes: int) -> tuple[list[TurnRecord], int]:
    context = multiprocessing.get_context("spawn")
    shares = [plans[i::processes] for i in range(processes) if plans[i::processes]]
    with context.Manager() as manager:
        barrier = manager.Barrier(len(shares))
        with ProcessPoolExecutor(max_workers=len(shares), mp_context=context) as pool:
            results = [f.result() for f in [pool.submit(_process_main, overrides, share, barrier) for share in shares]]
    records = [TurnRecord(**r) for rows, _ in results for r in rows]
    return records, sum(locked for _, locked in results)


# -- the Gradio API -------------------------------------------------------------------------------------------
def run_gradio(runtime: Any, plans: list[SessionPlan]) -> list[TurnRecord]:
    """Each session is a gradio_client Client of one locally served app (tenant of the app: ``plans[0].tenant``)."""
    from gradio_client import Client

    from regintel.ui.gradio_app import build_app, launch

    import secrets

    tenant_name = plans[0].tenant
    login = f"gradio-client-{secrets.token_hex(4)}"  # the API needs a signed-in user: one account, one API token
    user = runtime.accounts.add(tenant_name, login, secrets.token_urlsafe(16), "analyst", actor="bench")
    headers = {"Authorization": f"Bearer {runtime.api_tokens.create(user, 'bench load', actor='bench')}"}
    port = _free_port()
    app = launch(build_app(runtime), runtime, "127.0.0.1", port, concurrency_limit=len(plans), block=False)
    url = f"http://127.0.0.1:{port}/"

    def session(plan: SessionPlan) -> list[TurnRecord]:
        client = Client(url, verbose=False, headers=headers)
        conversation, records = "", []
        for question in plan.questions:
            record = TurnRecord("gradio", plan.session, "", started=time.time())
            started = time.perf_counter()
            try:
                text, conversation = client.predict(question, conversation, api_name="/chat")
                if text.startswith("⚠️"):
                    record.error = text[:300]
            except Exception as exc:
                record.error = f"{exc.__class__.__name__}: {str(exc)[:300]}"
            record.ms = (time.perf_counter() - started) * 1000
            record.conversation_id = conversation
            records.append(record)
        return records

    try:
        with ThreadPoolExecutor(max_workers=len(plans)) as pool:
            records = [r for rs in pool.map(session, plans) for r in rs]
    finally:
        app.close()
    return _with_stored_ids(runtime, tenant_name, records)


def _with_stored_ids(app: Any, tenant_name: str, records: list[TurnRecord]) -> list[TurnRecord]:
    """Gradio returns text only: read each conversation's stored turns to audit them like the others."""
    tenant = app.tenants.ensure_tenant(tenant_name)
    by_conversation: dict[str, list[TurnRecord]] = {}
    for record in records:
        record.tenant = tenant.id
        if record.conversation_id:
            by_conversation.setdefault(record.conversation_id, []).append(record)
    for conversation, rows in by_conversation.items():
        turns = app.conversations.turns(tenant.id, conversation)
        for record, turn in zip(rows, turns):
            record.take(turn.response)
        for record in rows[len(turns):]:
            record.error = record.error or "turn not stored"
    return records


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# -- audit ----------------------------------------------------------------------------------------------------
def audit(db: Any, graph: Any, records: list[TurnRecord]) -> dict[str, int]:
    """What was lost or duplicated: messages, citation rows, traces, concepts (all must be 0)."""
    from regintel.store.models import Message, MessageCitation, RagTrace

    saved = [r for r in records if r.message_id]
    ids = [r.message_id for r in saved]
    conversations = sorted({r.conversation_id for r in saved})
    with db.session() as session:
        assistant = set(_in_batches(session, select(Message.id).where(Message.role == "assistant"), Message.id, ids))
        citations = dict(_in_batches(session, select(MessageCitation.message_id, func.count()).group_by(MessageCitation.message_id),
                                     MessageCitation.message_id, ids))
        traces = set(_in_batches(session, select(RagTrace.id), RagTrace.id, [r.trace_id for r in saved]))
        per_conversation = Counter()
        for conversation_id, role, n in _in_batches(
                session, select(Message.conversation_id, Message.role, func.count()).group_by(Message.conversation_id, Message.role),
                Message.conversation_id, conversations):
            per_conversation[(conversation_id, role)] = n
    expected = Counter(r.conversation_id for r in saved)
    keys = sorted({k for r in saved for k in r.concept_keys})
    concept_counts = _concept_counts(graph, keys)
    return {
        "turns_not_saved": len(records) - len(saved),
        "messages_missing": sum(i not in assistant for i in ids),
        "messages_duplicated": sum(abs(per_conversation[(c, role)] - n) for c, n in expected.items() for role in ("user", "assistant")),
        "citation_rows_missing": sum(max(0, r.sources - citations.get(r.message_id, 0)) for r in saved),
        "citation_rows_extra": sum(max(0, citations.get(r.message_id, 0) - r.sources) for r in saved),
        "traces_missing": sum(r.trace_id not in traces for r in saved),
        "concepts_captured": len(keys),
        "concepts_missing": sum(concept_counts.get(k, 0) == 0 for k in keys),
        "concepts_duplicated": sum(max(0, concept_counts.get(k, 0) - 1) for k in keys),
    }


def _in_batches(session: Any, statement: Any, column: Any, values: list[str], size: int = 500) -> list[Any]:
    """Rows of ``statement`` with ``column IN values`` (a bounded IN list per query); scalars for one column."""
    rows: list[Any] = []
    for start in range(0, len(values), size):
        batch = values[start:start + size]
        result = session.execute(statement.where(column.in_(batch)))
        rows += result.scalars().all() if len(statement.selected_columns) == 1 else result.all()  # Rows are tuples
    return rows


def _concept_counts(graph: Any, keys: list[str]) -> dict[str, int]:
    if graph is None or not keys:
        return {}
    rows = graph.query("MATCH (c:Concept) WHERE c.key IN $keys RETURN c.key AS key, count(c) AS n", {"keys": keys})
    return {row["key"]: int(row["n"]) for row in rows}


def summarise(records: list[TurnRecord], locked_logged: int) -> dict[str, Any]:
    latencies = [r.ms for r in records]
    wall = max(r.started + r.ms / 1000 for r in records) - min(r.started for r in records) if records else 0.0
    errors = [r.error for r in records if r.error]
    return {
        "turns": len(records), "sessions": len({r.session for r in records}),
        "wall_s": round(wall, 2), "throughput_turns_per_s": round(len(records) / wall, 2) if wall else 0.0,
        "p50_ms": round(percentile(latencies, 50), 1), "p95_ms": round(percentile(latencies, 95), 1),
        "p99_ms": round(percentile(latencies, 99), 1), "errors": len(errors),
        "database_locked": sum(LOCKED in e for e in errors) + locked_logged,
        "from_cache": sum(r.from_cache for r in records), "error_samples": sorted(set(errors))[:5],
    }


# -- the run --------------------------------------------------------------------------------------------------
# the scale-out servers a run shares with the settings it starts from (docs/deploy.md): Chroma, the rules graph
SHARED_SERVER_SETTINGS = ("chroma_url", "chroma_collection", "graph_backend", "graph_url", "graph_user", "graph_password",
                          "graph_name")


def prepare(settings: Settings, root: Path, database_url: str, log: Callable[[str], None]) -> dict[str, Any]:
    """A fresh data directory with the demo corpus indexed (shipped embedding seed: nothing to embed), on the
    settings' Chroma server and graph server when they name one."""
    from regintel.runtime import RegIntel

    if root.exists():
        shutil.rmtree(root)
    overrides = {"data_dir": root, "database_url": database_url, "chat_rate_limit_per_hour": 0,
                 "corpus_dir": settings.corpus_dir, "embedding_seed_cache": settings.embedding_seed_cache,
                 **{name: getattr(settings, name) for name in SHARED_SERVER_SETTINGS}}
    run_settings = load_settings(**overrides)
    log(f"indexing the demo corpus into {root} ...")
    with RegIntel(run_settings) as app:
        report = app.ingest()
    log(f"  {report.chunks} passages, {report.embedded} embedded, graph: {report.graph}")
    return overrides


def run_store(settings: Settings, label: str, database_url: str, modes: list[str], sessions: int, turns: int,
              tenants: int, processes: int, log: Callable[[str], None]) -> dict[str, Any]:
    from regintel.runtime import RegIntel

    overrides = prepare(settings, settings.data_dir / "bench" / f"load-{label}", database_url, log)
    run_settings = load_settings(**overrides)
    app = RegIntel(run_settings)
    warm_up(app)
    counter = LockCounter()
    logging.getLogger().addHandler(counter)
    results: dict[str, Any] = {}
    all_records: list[TurnRecord] = []
    try:
        for mode in modes:
            plans = make_plans(sessions, turns, tenants, mode)
            log(f"[{label}] {mode}: {sessions} sessions x {turns} turns ...")
            before = counter.count
            if mode == "threads":
                records, child_locked = run_sessions(app, plans, mode), 0
            elif mode == "processes":
                records, child_locked = run_processes(overrides, plans, processes)
            else:
                records, child_locked = run_gradio(app, plans), 0
            results[mode] = summarise(records, counter.count - before + child_locked)
            all_records += records
            log("  " + _line(mode, results[mode]))
        results["audit"] = audit(app.db, app.graph, all_records)
        results["capture_jobs_queued"] = sum(job.kind == CAPTURE_JOB for job in app.jobs.jobs("queued"))
        results["journal_mode"] = app.db.journal_mode()
    finally:
        logging.getLogger().removeHandler(counter)
        _shutdown_graph(app.graph)
        app.db.dispose()
    return results


def _shutdown_graph(graph: Any) -> None:
    server = getattr(graph, "server", None)
    if server is not None:
        server.shutdown(save=False)


def scratch_postgres_database(admin_url: str) -> tuple[str, Callable[[], None]]:
    """A database created for this run on the server of ``admin_url``, and the function that drops it."""
    from sqlalchemy import text

    from regintel.store.db import make_engine

    name = f"regintel_load_{uuid.uuid4().hex[:10]}"
    admin = make_engine(admin_url).execution_options(isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))  # generated name, never input
    url = make_url(admin_url).set(database=name)

    def drop() -> None:
        with admin.connect() as conn:  # FORCE ends the run's remaining pooled connections
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()
    return url.render_as_string(hide_password=False), drop


def run_load_bench(settings: Settings, sessions: int = 20, turns: int = 5, modes: list[str] | None = None,
                   tenants: int = 4, processes: int = 4, postgres_url: str = "",
                   log: Callable[[str], None] = print) -> dict[str, Any]:
    modes = list(modes or MODES)
    result: dict[str, Any] = {"sessions": sessions, "turns": turns, "tenants": tenants, "processes": processes,
                              "llm": settings.effective_llm_provider(),
                              "stores": {}}
    result["stores"]["sqlite"] = run_store(settings, "sqlite", "", modes, sessions, turns, tenants, processes, log)
    if postgres_url:
        url, drop = scratch_postgres_database(postgres_url)
        try:
            result["stores"]["postgresql"] = run_store(settings, "postgresql", url, modes, sessions, turns, tenants,
                                                       processes, log)
        finally:
            drop()
    return result


def _line(mode: str, figures: dict[str, Any]) -> str:
    return (f"{mode:<10} {figures['turns']:>5} turns  {figures['throughput_turns_per_s']:>6.2f} turns/s  "
            f"p50 {figures['p50_ms']:>8.1f} ms  p95 {figures['p95_ms']:>8.1f} ms  p99 {figures['p99_ms']:>8.1f} ms  "
            f"errors {figures['errors']}  locked {figures['database_locked']}  cached {figures['from_cache']}")


def print_report(result: dict[str, Any], as_json: bool = False) -> None:
    if as_json:
        print(json.dumps(result))
        return
    print(f"\nLoad: {result['sessions']} concurrent sessions x {result['turns']} turns, {result['tenants']} tenants, "
          f"{result['processes']} processes, LLM {result['llm']}")
    for store, figures in result["stores"].items():
        print(f"\n[{store}] journal mode {figures['journal_mode']}")
        for mode in MODES:
            if mode in figures:
                print("  " + _line(mode, figures[mode]))
                for sample in figures[mode]["error_samples"]:
                    print(f"      error: {sample}")
        audit_figures = figures["audit"]
        print("  audit: " + ", ".join(f"{k} {v}" for k, v in audit_figures.items())
              + f", capture jobs still queued {figures['capture_jobs_queued']}")
