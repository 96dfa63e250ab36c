"""The RegIntel runtime: one owner of the stores, built the way the Streamlit app builds it."""

from __future__ import annotations

import pytest

from regintel.config import REPO_ROOT, load_settings
from regintel.errors import GraphUnavailable, IndexError_
from regintel.runtime import RegIntel


def test_without_a_graph_the_runtime_says_why_and_the_features_that_need_it_refuse(tmp_path):
    app = RegIntel(load_settings(data_dir=tmp_path / "data"), graph=None)
    assert app.graph is None and "turned off" in app.graph_problem
    with pytest.raises(GraphUnavailable, match="rules graph is not available"):
        app.require_graph()
    with pytest.raises(GraphUnavailable):
        app.extraction
    status = app.status()
    assert not status.index.ready and status.index.chunks == 0 and not status.graph.available
    assert status.offline and status.llm["provider"] == "offline"
    with pytest.raises(IndexError_, match="not indexed yet"):
        app.chat
    assert app.index_or_none() is None


def test_a_graph_that_cannot_start_is_reported_not_raised_and_tried_again_later(tmp_path, monkeypatch):
    import regintel.graph.factory as factory

    calls = []

    def cannot_open(settings):
        calls.append(1)
        raise GraphUnavailable("The embedded graph server did not start")

    monkeypatch.setattr(factory, "open_graph_store", cannot_open)
    app = RegIntel(load_settings(data_dir=tmp_path / "data"))
    assert app.graph is None and app.graph is None
    assert "did not start" in app.graph_problem and len(calls) == 1, "not reopened on every call"


@pytest.mark.slow
def test_the_app_built_like_the_ui_captures_concepts_already_in_the_graph_offline(tmp_path, monkeypatch):
    """The Streamlit app's runtime (``state.app()``) matches concepts that earlier turns or reviews put in the graph,
    not only the shipped taxonomy; and ``ingest`` makes the chat use the new index."""
    import streamlit as st

    from regintel.config import get_settings
    from regintel.graph.resolver import CanonicalConceptInput, CanonicalConceptResolver
    from regintel.ui import state

    monkeypatch.setenv("REGINTEL_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("REGINTEL_EMBEDDING_SEED_CACHE", str(REPO_ROOT / "data" / "embeddings"))
    monkeypatch.setenv("REGINTEL_RESPONSE_CACHE_TTL_SECONDS", "0")
    get_settings.cache_clear()
    st.cache_resource.clear()
    app = state.app()
    try:
        report = app.ingest()
        assert report.chunks > 0 and report.graph.startswith("7 rules,"), report.graph
        status = app.status()
        assert status.index.ready and status.graph.available and status.graph.counts.get("Rule", 0) >= 7
        CanonicalConceptResolver(app.require_graph()).resolve_or_create(
            CanonicalConceptInput("PRIVACY", "UNDUE_DELAY", "EU", "Undue delay"))  # in the graph, not in the taxonomy

        tenant = app.tenants.ensure_tenant("ui")
        user = app.tenants.ensure_user(tenant.id, "ana")
        conversation = app.conversations.create_conversation(tenant.id, user.id).id
        response = app.chat.ask(tenant.id, user.id, conversation,
                                "When must a personal data breach be notified without undue delay?")
        labels = {node.get("label") for node in response.referenced_nodes}
        assert response.response_mode != "ABSTAIN" and "Undue delay" in labels, (response.response_mode, labels)

        engine = app.chat
        app.ingest()
        assert app.chat is not engine, "a new index gives a new engine (its cache is keyed by corpus version)"
    finally:
        app.close()
        st.cache_resource.clear()
        get_settings.cache_clear()
