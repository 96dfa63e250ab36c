"""The one module that owns Streamlit resources: cached settings, database and search index."""

from __future__ import annotations

import streamlit as st

from regintel.config import Settings, get_settings
from regintel.errors import IndexError_
from regintel.retrieval.search_index import SearchIndex
from regintel.store import Database


@st.cache_resource(show_spinner=False)
def settings() -> Settings:
    return get_settings()


@st.cache_resource(show_spinner=False)
def database() -> Database:
    db = Database(settings().sql_url)
    db.create_schema()
    return db


@st.cache_resource(show_spinner="Loading the search index…")
def search_index() -> SearchIndex:
    from regintel.retrieval.ingest import open_search_index

    return open_search_index(settings())


@st.cache_resource(show_spinner=False)
def graph_store():
    """The rules graph (embedded FalkorDB by default); callers handle GraphError (the graph is a side feature)."""
    from regintel.graph.factory import open_graph_store

    store = open_graph_store(settings())
    store.ensure_schema()
    return store


@st.cache_resource(show_spinner=False)
def llm_router():
    """One LlmRouter per process (provider clients are built once, not on every rerun)."""
    from regintel.llm.concept_harvest import ConceptLexicon
    from regintel.llm.router import LlmRouter

    return LlmRouter(settings(), lexicon=ConceptLexicon.from_file())


def graph_store_or_none():
    try:
        return graph_store()
    except Exception:  # GraphError or a server that cannot start: the chat goes on without concept capture
        return None


@st.cache_resource(show_spinner="Loading the compliance engine…")
def engine():
    """One ComplianceEngine per process over the cached stores (it keeps no per-turn state: thread safe)."""
    from regintel.chat.factory import build_engine

    return build_engine(settings(), db=database(), search_index=search_index(), router=llm_router(),
                        graph_store=graph_store_or_none())


def search_index_or_none() -> SearchIndex | None:
    try:
        return search_index()
    except IndexError_:
        return None


@st.cache_resource(show_spinner=False)
def extraction_workflow():
    """One ExtractionWorkflow per process (stateless between calls: runs live in SQL, concepts in the graph)."""
    from regintel.extraction.factory import build_workflow

    index = search_index_or_none()
    return build_workflow(settings(), db=database(), graph_store=graph_store(), router=llm_router(),
                          embedder=index.embedder if index is not None else None)
