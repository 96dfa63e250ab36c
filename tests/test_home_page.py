"""The home page explains the app, reports the index state and builds the index when it is empty."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from regintel.config import REPO_ROOT

PASSWORD = "correct horse battery"

pytestmark = pytest.mark.slow  # builds the index of the demo corpus from the home page


def home(monkeypatch, settings) -> AppTest:
    monkeypatch.setenv("REGINTEL_DATA_DIR", str(settings.data_dir))
    monkeypatch.setenv("REGINTEL_CORPUS_DIR", str(settings.corpus_dir))
    monkeypatch.setenv("REGINTEL_EMBEDDING_SEED_CACHE", str(settings.embedding_seed_cache))
    from regintel.config import get_settings

    get_settings.cache_clear()
    import streamlit as st

    st.cache_resource.clear()
    return AppTest.from_file(str(REPO_ROOT / "app.py"), default_timeout=600)


def signed_in(monkeypatch, settings) -> AppTest:
    """The home page after signing in through the form as the admin (created once, like the CLI does)."""
    from regintel.runtime import RegIntel

    with RegIntel(settings, graph=None) as runtime:
        if not runtime.accounts.has_admin():
            runtime.accounts.add("acme", "root", PASSWORD, "admin")
    app = home(monkeypatch, settings).run()
    assert [t.value for t in app.title] == ["Sign in to RegIntel Copilot"]  # nothing else before sign-in
    assert not app.info and not app.success
    app.text_input[0].input("root")
    app.text_input[1].input(PASSWORD)
    return button(app, "Sign in").click().run()


def button(app: AppTest, label: str):
    return next(b for b in app.button if b.label == label)


@pytest.fixture(autouse=True)
def stop_graph_server(settings):
    yield
    from regintel.graph.falkordb_server import EmbeddedFalkorDB

    EmbeddedFalkorDB(settings.data_dir / "graph").shutdown(save=False)


def test_empty_index_offers_a_build_button_that_indexes_the_corpus(monkeypatch, settings):
    app = signed_in(monkeypatch, settings)
    assert not app.exception
    assert "RegIntel Copilot" in app.title[0].value
    assert any("not indexed yet" in info.value for info in app.info)
    button(app, "Build index").click().run()
    assert not app.exception
    assert any("Index ready" in s.value or "documents" in s.value for s in app.success)

    app = signed_in(monkeypatch, settings)
    assert any("Index ready" in s.value for s in app.success)
    assert any("Offline mode" in info.value for info in app.info)
    graph_line = next(m.value for m in app.markdown if m.value.startswith("Rules graph"))
    assert "Rule" in graph_line and "Section" in graph_line, graph_line
    app.text_input[0].input("régime d'importation").run()
    assert not app.exception
    assert len(app.expander) == 5
    assert "be-guidance" not in app.expander[0].label  # labels show titles, not ids
