"""Build an ExtractionWorkflow from settings (the CLI, the demo, the Review page and benchmarks share it)."""

from __future__ import annotations

from typing import Any

from regintel.config import Settings
from regintel.errors import ExtractionError
from regintel.extraction.workflow import ExtractionWorkflow
from regintel.store import Database


def build_workflow(settings: Settings, db: Database | None = None, graph_store: Any = None, embedder: Any = None,
                   router: Any = None) -> ExtractionWorkflow:
    if graph_store is None:
        from regintel.chat.factory import open_graph_or_none

        graph_store = open_graph_or_none(settings)
        if graph_store is None:
            raise ExtractionError("The rules graph is not available: extraction needs it (see REGINTEL_GRAPH_BACKEND).")
    if db is None:
        db = Database(settings.sql_url)
        db.create_schema()
    if embedder is None:
        from regintel.retrieval.ingest import make_embedder

        embedder = make_embedder(settings)
    if router is None:
        from regintel.llm.router import LlmRouter

        router = LlmRouter(settings)
    return ExtractionWorkflow(settings, db, graph_store, embedder, router=router)
