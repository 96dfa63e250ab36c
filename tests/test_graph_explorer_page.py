"""The Graph Explorer page as signed-in users (issue 24): the search box focuses a concept and shows the article it
is linked to; a curator merges two concepts through the page (audited); an analyst gets no curation controls."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from regintel.config import REPO_ROOT, get_settings, load_settings
from regintel.graph.falkordb_server import EmbeddedFalkorDB
from regintel.graph.falkordb_store import FalkorDBStore
from regintel.graph.resolver import CanonicalConceptInput, CanonicalConceptResolver
from regintel.graph.write_service import GraphWriteService
from regintel.runtime import RegIntel

pytestmark = pytest.mark.slow  # an embedded graph server
BREACH, LEAK = "DATA_PROTECTION|PERSONAL_DATA_BREACH|EU", "DATA_PROTECTION|DATA_LEAK|EU"


@pytest.fixture
def world(tmp_path, monkeypatch):
    settings = load_settings(data_dir=tmp_path / "data")
    monkeypatch.setenv("REGINTEL_DATA_DIR", str(settings.data_dir))
    server = EmbeddedFalkorDB(settings.graph_dir, settings.graph_snapshot_seconds)
    store = FalkorDBStore(settings.graph_name, server=server)
    store.ensure_schema()
    writer = GraphWriteService(store)
    writer.upsert_nodes("Rule", [{"key": "eu-gdpr", "title": "GDPR", "short_title": "GDPR"}])
    writer.upsert_nodes("Section", [{"key": "eu-gdpr#art-33", "rule_key": "eu-gdpr", "ref": "Article 33",
                                     "heading": "Notification of a personal data breach"}])
    writer.upsert_edges("PART_OF_RULE", "Section", "Rule", [{"from": "eu-gdpr#art-33", "to": "eu-gdpr"}])
    resolver = CanonicalConceptResolver(store)
    resolver.resolve_or_create(CanonicalConceptInput("DATA_PROTECTION", "PERSONAL_DATA_BREACH", "EU", "Personal data breach"))
    resolver.resolve_or_create(CanonicalConceptInput("DATA_PROTECTION", "DATA_LEAK", "EU", "Data leak"))
    writer.upsert_edges("MENTIONED_IN", "Concept", "Section", [{"from": BREACH, "to": "eu-gdpr#art-33"}])
    runtime = RegIntel(settings, graph=store)
    users = {login: runtime.accounts.identity(runtime.accounts.add("alpha", login, "correct horse battery", role).id, "local")
             for login, role in (("carol", "curator"), ("alice", "analyst"))}
    runtime.close()
    get_settings.cache_clear()
    yield {"users": users, "store": store, "settings": settings}
    import streamlit as st

    st.cache_resource.clear()
    get_settings.cache_clear()
    server.shutdown(save=False)


def open_explorer(world, login: str) -> AppTest:
    import streamlit as st

    st.cache_resource.clear()
    page = AppTest.from_file(str(REPO_ROOT / "views" / "2_Graph_Explorer.py"), default_timeout=300)
    page.session_state["regintel_identity"] = world["users"][login]
    page.session_state["gx_live"] = False
    return page.run()


def test_search_focuses_a_concept_and_shows_its_article(world):
    page = open_explorer(world, "alice")
    assert not page.exception
    page.selectbox(key="gx_find").set_value(BREACH).run()
    assert page.text_input(key="gx_focus").value == BREACH
    graph = page.session_state["gx_graph"]
    captions = {n["key"]: n["caption"] for n in graph.nodes}
    assert captions.get("eu-gdpr#art-33") == "GDPR Article 33"
    page.selectbox(key="gx_detail").set_value(BREACH).run()
    assert not [e for e in page.expander if "Curate" in e.label]  # an analyst: no curation controls
    assert "Focus the graph on this node" in [b.label for b in page.button]


def test_a_curator_merges_two_concepts_through_the_page(world):
    page = open_explorer(world, "carol")
    page.text_input(key="gx_focus").set_value(LEAK).run()
    page.selectbox(key="gx_detail").set_value(LEAK).run()
    assert [e for e in page.expander if "Curate" in e.label]
    page.radio(key=f"gx_cur_action_{LEAK}").set_value("Merge into another concept").run()
    form_boxes = [s for s in page.selectbox if s.label == "Surviving concept"]
    form_boxes[0].set_value(BREACH)
    [t for t in page.text_input if t.label.startswith("Why")][0].set_value("the same breach")
    [b for b in page.button if b.label == "Apply"][0].click().run()
    assert not page.error, [e.value for e in page.error]
    row = world["store"].query("MATCH (c:Concept {key: $key}) RETURN c.status AS s, c.merged_into AS m", {"key": LEAK})
    assert row == [{"s": "retired", "m": BREACH}]
    runtime = RegIntel(world["settings"], graph=world["store"])
    event = runtime.audit.events(action="concept_merge")[0]
    assert (event.actor, event.detail["why"]) == ("carol", "the same breach")


def test_ask_about_this_hands_a_question_naming_the_article_to_the_chat(world):
    import streamlit as st

    st.cache_resource.clear()
    page = AppTest.from_file(str(REPO_ROOT / "app.py"), default_timeout=300)  # the navigation knows the Chat page
    page.session_state["regintel_identity"] = world["users"]["alice"]
    page.session_state["gx_live"] = False
    page.switch_page("views/2_Graph_Explorer.py").run()
    page.text_input(key="gx_focus").set_value(BREACH).run()
    page.selectbox(key="gx_detail").set_value(BREACH).run()
    page.button(key="gx_ask").click().run()
    assert not page.exception, page.exception
    assert [t.value for t in page.title] == ["Chat"]
    assert page.session_state["chat_prefill"] == "What does GDPR Article 33 say about Personal data breach?"


def test_questions_for_a_section_a_rule_and_an_unlinked_concept(world):
    from regintel.graph.ask import question_about
    from regintel.graph.explorer import node_details

    store = world["store"]
    assert question_about(store, node_details(store, "eu-gdpr#art-33")) == \
        "What does GDPR Article 33 (Notification of a personal data breach) require?"
    assert question_about(store, node_details(store, "eu-gdpr")) == "What are the main obligations of GDPR?"
    assert question_about(store, node_details(store, LEAK)) == "What do the regulations say about Data leak?"


def test_a_curator_undoes_a_retire_through_the_page(world):
    page = open_explorer(world, "carol")
    page.text_input(key="gx_focus").set_value(LEAK).run()
    page.selectbox(key="gx_detail").set_value(LEAK).run()
    page.radio(key=f"gx_cur_action_{LEAK}").set_value("Retire").run()
    [t for t in page.text_input if t.label.startswith("Why (")][0].set_value("a duplicate")
    [b for b in page.button if b.label == "Apply"][0].click().run()
    status = "MATCH (c:Concept {key: $key}) RETURN c.status AS s"
    assert world["store"].query(status, {"key": LEAK}) == [{"s": "retired"}]
    undo_box = [s for s in page.selectbox if s.label == "Undo a change"][0]
    undo_box.set_value(_only_event(world, "concept_retire"))
    [t for t in page.text_input if t.label.startswith("Why undo")][0].set_value("not a duplicate")
    [b for b in page.button if b.label == "Undo"][0].click().run()
    assert not page.error, [e.value for e in page.error]
    assert world["store"].query(status, {"key": LEAK}) == [{"s": "active"}]


def _only_event(world, action: str) -> str:
    runtime = RegIntel(world["settings"], graph=world["store"])
    (event,) = runtime.audit.events(action=action)
    return event.id
