"""Build a ComplianceEngine from settings: the one wiring shared by the CLI, the Streamlit pages, Gradio and the
benchmarks. The graph is optional: when it cannot be opened the engine answers without concept capture."""

from __future__ import annotations

import logging
from typing import Any

from regintel.config import Settings
from regintel.store import Database

log = logging.getLogger(__name__)


def open_graph_or_none(settings: Settings) -> Any:
    from regintel.graph.factory import open_graph_store

    try:
        store = open_graph_store(settings)
        store.ensure_schema()
        return store
    except Exception as exc:  # the graph is a side feature: answers go on without it
        log.warning("rules graph unavailable, concept capture is off: %s", exc)
        return None


def build_engine(settings: Settings, db: Database | None = None, search_index: Any = None, router: Any = None,
                 graph_store: Any = "open"):
    from regintel.chat.engine import ComplianceEngine
    from regintel.jobs.queue import JobQueue
    from regintel.llm.concept_harvest import ConceptLexicon, GraphConceptSource
    from regintel.llm.router import LlmRouter
    from regintel.retrieval.ingest import open_search_index

    if db is None:
        db = Database(settings.sql_url)
        db.create_schema()
    if graph_store == "open":
        graph_store = open_graph_or_none(settings)
    lexicon = ConceptLexicon.from_file(extra=GraphConceptSource(graph_store) if graph_store is not None else None)
    search_index = search_index or open_search_index(settings)
    router = router or LlmRouter(settings, lexicon=lexicon)
    return ComplianceEngine(settings, db, search_index, router, graph_store, JobQueue(db), lexicon)
