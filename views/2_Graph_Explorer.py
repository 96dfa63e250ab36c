"""Graph Explorer: the shared rules graph, filtered, searched or focused, updating live as concepts arrive."""

from __future__ import annotations

import time

import pandas as pd
import streamlit as st

from regintel.errors import RegIntelError
from regintel.graph.ask import question_about
from regintel.graph.changes import GraphChangeDetector
from regintel.graph.curation import GraphCuration
from regintel.graph.export import read_graph, to_cypher, to_graphml, to_jsonl
from regintel.graph.explorer import (DEFAULT_LABELS, VIEW_NODES, fetch_subgraph, focus_view, node_details, overview,
                                     searchable_names)
from regintel.graph.schema import DOMAIN_LABELS, NODE_LABELS
from regintel.graph.store import GraphError
from regintel.ui import auth, state
from regintel.ui.graph_view import plain, primary_label, render_network_html
from regintel.ui.untrusted import markdown_label

st.set_page_config(page_title="Graph Explorer · RegIntel Copilot", page_icon="🕸️", layout="wide")
identity = auth.require("graph")  # the graph holds public rules and concepts only: every signed-in role may explore it
st.title("Graph Explorer")
st.caption("Jurisdictions, rules, sections and the regulatory concepts captured from conversations and reviews. "
           "No personal data is ever stored here.")

try:
    store = state.app().require_graph()
except GraphError as exc:
    st.error(f"The rules graph is not available: {exc}")
    st.stop()

def names() -> dict[str, str]:
    """What the search box offers (concepts, rules, sections), read again at most once a minute."""
    held = st.session_state.get("gx_names")
    if held is None or time.monotonic() - held[0] > 60:
        held = (time.monotonic(), searchable_names(store))
        st.session_state.gx_names = held
    return held[1]


def focus_on_found() -> None:
    if st.session_state.get("gx_find"):
        st.session_state.gx_focus = st.session_state.gx_find


def back_to_overview() -> None:
    st.session_state.update(gx_focus="", gx_find=None, gx_search="")


def section_text(key: str) -> None:
    """The passage text of a section, from the search index (shown as plain text)."""
    with st.expander("Text of this section", icon=":material/article:"):
        with st.spinner("Reading the index…"):
            index = state.app().index_or_none()
        if index is None:
            st.caption("The index is not built yet.")
            return
        parts = [c for cid, c in sorted(index.chunks.items()) if cid == key or cid.startswith(key + "~")]
        for chunk in parts[:6]:
            st.text(chunk.text)
        if not parts:
            st.caption("No passage of the index belongs to this section.")


def ask_in_chat(details: dict) -> None:
    """Hand a question about the node to the Chat page (through the session, never the URL) and go there."""
    try:
        st.session_state.chat_prefill = question_about(store, details)
    except GraphError as exc:
        st.warning(f"Could not read the node's rule: {exc}")
        return
    st.switch_page("views/1_Chat.py")


def curate(key: str, details: dict) -> None:
    """Curators and admins fix a concept: rename, aliases, retire or restore, merge into another (audited)."""
    with st.expander("Curate this concept (curators)", icon=":material/edit:"):
        curation = GraphCuration(store, state.app().audit)
        action = st.radio("Change", ["Rename", "Add an alias", "Remove an alias", "Merge into another concept",
                                     "Restore" if details["properties"].get("status") == "retired" else "Retire"],
                          horizontal=True, key=f"gx_cur_action_{key}")
        with st.form(f"gx_curate_{key}", clear_on_submit=True):
            value = None
            if action == "Rename":
                value = st.text_input("New preferred label", max_chars=200)
            elif action == "Add an alias":
                value = st.text_input("Alias", max_chars=200)
            elif action == "Remove an alias":
                value = st.selectbox("Alias", details["aliases"], index=None)
            elif action == "Merge into another concept":
                concepts = {k: v for k, v in names().items() if v.endswith(")") and "(concept" in v and k != key}
                value = st.selectbox("Surviving concept", list(concepts), index=None, format_func=lambda k: concepts.get(k, k))
            why = st.text_input("Why (kept in the audit trail)", max_chars=500)
            done = st.form_submit_button("Apply", type="primary")
        if done:
            try:
                auth.require("approve")
                if action == "Rename":
                    curation.rename(key, value or "", by=identity, why=why)
                elif action == "Add an alias":
                    curation.add_alias(key, value or "", by=identity, why=why)
                elif action == "Remove an alias":
                    curation.remove_alias(key, value or "", by=identity, why=why)
                elif action == "Merge into another concept":
                    if not value:
                        raise RegIntelError("Pick the concept to merge into.")
                    curation.merge(key, value, by=identity, why=why)
                else:
                    curation.retire(key, by=identity, why=why, retired=action == "Retire")
            except (RegIntelError, GraphError) as exc:
                st.error(str(exc))
            else:
                st.session_state.pop("gx_names", None)
                st.session_state.pop("gx_graph", None)
                st.success("Done: the change is in the graph and in the audit trail.")
        undo_changes(curation, key)


def undo_changes(curation: GraphCuration, key: str) -> None:
    """The concept's recent curation changes (this tenant's trail); each but a merge can be undone."""
    try:
        history = curation.changes(key, by=identity)
    except RegIntelError as exc:
        st.warning(f"The audit trail could not be read: {exc}")
        return
    if not history:
        return
    described = {e.id: f"{e.at:%Y-%m-%d %H:%M} · {e.action.removeprefix('concept_').replace('_', ' ')} by "
                       f"{plain(e.actor, 40)}: {plain(e.detail.get('why'), 80)}" for e in history}
    with st.form(f"gx_undo_{key}", clear_on_submit=True):
        chosen_event = st.selectbox("Undo a change", list(described), index=None, format_func=described.get,
                                    help="A merge cannot be undone; rename, alias and retire changes can.")
        why = st.text_input("Why undo (kept in the audit trail)", max_chars=480)
        undo = st.form_submit_button("Undo")
    if undo:
        try:
            if not chosen_event:
                raise RegIntelError("Pick the change to undo.")
            curation.undo(chosen_event, by=identity, why=why)
        except (RegIntelError, GraphError) as exc:
            st.error(str(exc))
        else:
            st.session_state.pop("gx_names", None)
            st.session_state.pop("gx_graph", None)
            st.success("Undone: the old value is back, and the undo is in the audit trail.")


focus_param = st.query_params.get("focus", "")
try:
    found_names = names()
except GraphError as exc:
    found_names = {}
    st.warning(f"The search list could not be read: {exc}")
st.selectbox("Find a concept, article or rule", list(found_names), index=None, key="gx_find", on_change=focus_on_found,
             format_func=lambda k: found_names.get(k, k), placeholder="Type a name, e.g. personal data breach, Article 33, DORA")
with st.sidebar:
    st.header("Filters")
    labels = st.multiselect("Node types", list(NODE_LABELS), default=list(DEFAULT_LABELS), key="gx_labels")
    jurisdiction = st.selectbox("Jurisdiction", ["", "EU", "BE", "IE", "ES", "FR", "UK"], format_func=lambda j: j or "All", key="gx_jur")
    domain = st.selectbox("Domain", ["", *DOMAIN_LABELS], format_func=lambda d: d or "All", key="gx_domain")
    search = st.text_input("Search", placeholder="e.g. controller, TVA, Article 33", key="gx_search", max_chars=200)
    focus = st.text_input("Focus on node key", value=focus_param, key="gx_focus", max_chars=400)
    depth = st.slider("Neighbourhood depth", 1, 3, 1, key="gx_depth", disabled=not focus)
    live = st.toggle("Live updates", value=True, key="gx_live")
    st.button("Back to the overview", on_click=back_to_overview, icon=":material/home:")

highlight = set(st.session_state.get("referenced_nodes", []))
filters = (tuple(labels), jurisdiction, domain, search.strip(), focus.strip(), depth)
filtered = bool(search.strip() or jurisdiction or domain or set(labels) != set(DEFAULT_LABELS))


def current_view():
    """The focused neighbourhood, the filtered subgraph, or the overview (the most connected concepts and rules)."""
    if focus.strip():
        return focus_view(store, focus.strip(), depth, VIEW_NODES)
    if filtered:
        return fetch_subgraph(store, list(labels), jurisdiction, domain, search, "", depth, VIEW_NODES * 2)
    return overview(store, VIEW_NODES, preferred=tenant_concepts())


def tenant_concepts() -> list[str]:
    """The signed-in tenant's recent conversations' concepts (the overview starts from them); none if unreadable."""
    try:
        return state.app().conversations.recent_concept_keys(identity.tenant_id)
    except Exception as exc:  # the overview of the whole graph still shows
        st.caption(f"Your conversations' concepts could not be read ({exc.__class__.__name__}): showing the whole graph.")
        return []


def detector() -> GraphChangeDetector:
    if "gx_detector" not in st.session_state:
        st.session_state.gx_detector = GraphChangeDetector(store, batch_window_ms=750)
        st.session_state.gx_detector.start_from_now()
    return st.session_state.gx_detector


@st.fragment(run_every=2 if live else None)
def graph_panel() -> None:
    changed = False
    try:
        patch = detector().poll()
        if patch:
            changed = True
            st.session_state.gx_last_patch = (time.strftime("%H:%M:%S"), len(patch.nodes_added), len(patch.edges_added))
        if changed or st.session_state.get("gx_filters") != filters or "gx_graph" not in st.session_state:
            st.session_state.gx_graph = current_view()
            st.session_state.gx_filters = filters
    except GraphError as exc:
        st.warning(f"The graph server is not answering ({exc}); showing the last view.")
    graph = st.session_state.get("gx_graph")
    if graph is None:
        return
    summary = f"{len(graph.nodes)} nodes, {len(graph.edges)} edges"
    if not focus.strip() and not filtered:
        summary = (f"Overview: the {summary.replace(' nodes', ' most connected concepts and rules')} (your "
                   f"conversations' concepts first); find a name above to focus it")
    if graph.truncated:
        summary += f" — the graph is larger: showing the first {graph.limit}; narrow the filters or search"
    last = st.session_state.get("gx_last_patch")
    if last:
        summary += f" · live update at {last[0]}: +{last[1]} nodes, +{last[2]} edges"
    st.caption(summary)
    if not graph.nodes:
        st.info("Nothing matches these filters yet.")
        return
    st.iframe(render_network_html(graph, highlight, focus=focus.strip()), height=680)
    st.caption("Node size: number of links. A thick black border marks the focused node and the concepts referenced "
               "by the last chat answer; a dashed line joins a concept to a rule whose sections define or mention it.")
    st.session_state.gx_node_options = {n["key"]: f"{primary_label(n.get('labels') or [])}: {plain(n.get('caption'), 80)}" for n in graph.nodes}


graph_panel()

st.subheader("Node details")
options = st.session_state.get("gx_node_options", {})
default_key = focus.strip() if focus.strip() in options else None
chosen = st.selectbox("Node", list(options), format_func=lambda k: options.get(k, k), index=list(options).index(default_key) if default_key else None,
                      placeholder="Pick a node to see its properties, aliases and linked sections", key="gx_detail")
if chosen:
    try:
        details = node_details(store, chosen)
    except GraphError as exc:
        details = None
        st.warning(f"Could not read the node: {exc}")
    if details:
        left, right = st.columns(2)
        with left:
            st.markdown("Labels: " + ", ".join(markdown_label(label) for label in details["labels"]))
            props = pd.DataFrame([{"property": k, "value": plain(v if not isinstance(v, list) else "; ".join(map(str, v)), 500)}
                                  for k, v in sorted(details["properties"].items())])
            st.dataframe(props, hide_index=True, width="stretch")
        with right:
            if details["aliases"]:
                # aliases come from models and curators: shown as text, never as markdown links or images
                st.markdown("Aliases: " + ", ".join(markdown_label(plain(a, 80)) for a in details["aliases"]))
            if details["sections"]:
                st.write("Linked sections:")
                st.dataframe(pd.DataFrame([{"relation": s["type"], "section": plain(s["ref"] or s["key"], 80), "rule": s["rule"],
                                            "source": s["url"] if str(s["url"] or "").startswith("https://") else ""} for s in details["sections"]]),
                             hide_index=True, width="stretch", column_config={"source": st.column_config.LinkColumn("source")})
        actions = st.container(horizontal=True)
        actions.button("Focus the graph on this node", on_click=lambda: st.session_state.update(gx_focus=chosen))
        if actions.button("Ask about this", icon=":material/chat:", key="gx_ask",
                          help="Opens the chat with a question about this node, to edit or send"):
            ask_in_chat(details)
        if "Section" in details["labels"]:
            section_text(chosen)
        if "Concept" in details["labels"] and identity.can("approve"):
            curate(chosen, details)

st.subheader("Export")
st.caption("The whole rules graph (public rules and concepts only: no personal data is ever stored in it), as GraphML "
           "(Gephi, yEd, networkx), JSON lines of nodes and edges, or a Cypher script that loads into Neo4j.")
if st.button("Prepare the export", icon=":material/download:"):
    try:
        dump = read_graph(store)
    except GraphError as exc:
        st.warning(f"The graph could not be read: {exc}")
    else:
        st.session_state.gx_export = (len(dump.nodes), len(dump.edges), to_graphml(dump), to_jsonl(dump), to_cypher(dump))
if "gx_export" in st.session_state:
    nodes_n, edges_n, graphml, jsonl, cypher = st.session_state.gx_export
    st.caption(f"{nodes_n} nodes, {edges_n} edges")
    cols = st.columns(3)
    cols[0].download_button("GraphML", graphml, file_name="regintel-graph.graphml", mime="application/graphml+xml")
    cols[1].download_button("JSON lines", jsonl, file_name="regintel-graph.jsonl", mime="application/x-ndjson")
    cols[2].download_button("Cypher script", cypher, file_name="regintel-graph.cypher", mime="text/plain")
