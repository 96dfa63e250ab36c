"""Graph Explorer: the shared rules graph, filtered, searched or focused, updating live as concepts arrive."""

from __future__ import annotations

import time

import pandas as pd
import streamlit as st

from regintel.graph.changes import GraphChangeDetector
from regintel.graph.explorer import DEFAULT_LABELS, MAX_NODES, fetch_subgraph, node_details
from regintel.graph.schema import DOMAIN_LABELS, NODE_LABELS
from regintel.graph.store import GraphError
from regintel.ui import auth, state
from regintel.ui.graph_view import plain, primary_label, render_network_html

st.set_page_config(page_title="Graph Explorer · RegIntel Copilot", page_icon="🕸️", layout="wide")
auth.require("graph")  # the graph holds public rules and concepts only: every signed-in role may explore it
st.title("Graph Explorer")
st.caption("Jurisdictions, rules, sections and the regulatory concepts captured from conversations and reviews. "
           "No personal data is ever stored here.")

try:
    store = state.app().require_graph()
except GraphError as exc:
    st.error(f"The rules graph is not available: {exc}")
    st.stop()

focus_param = st.query_params.get("focus", "")
with st.sidebar:
    st.header("Filters")
    labels = st.multiselect("Node types", list(NODE_LABELS), default=list(DEFAULT_LABELS), key="gx_labels")
    jurisdiction = st.selectbox("Jurisdiction", ["", "EU", "BE", "IE", "ES", "FR", "UK"], format_func=lambda j: j or "All", key="gx_jur")
    domain = st.selectbox("Domain", ["", *DOMAIN_LABELS], format_func=lambda d: d or "All", key="gx_domain")
    search = st.text_input("Search", placeholder="e.g. controller, TVA, Article 33", key="gx_search", max_chars=200)
    focus = st.text_input("Focus on node key", value=focus_param, key="gx_focus", max_chars=400)
    depth = st.slider("Neighbourhood depth", 1, 3, 1, key="gx_depth", disabled=not focus)
    live = st.toggle("Live updates", value=True, key="gx_live")

highlight = set(st.session_state.get("referenced_nodes", []))
filters = (tuple(labels), jurisdiction, domain, search.strip(), focus.strip(), depth)


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
            st.session_state.gx_graph = fetch_subgraph(store, list(labels), jurisdiction, domain, search, focus.strip(), depth, MAX_NODES)
            st.session_state.gx_filters = filters
    except GraphError as exc:
        st.warning(f"The graph server is not answering ({exc}); showing the last view.")
    graph = st.session_state.get("gx_graph")
    if graph is None:
        return
    summary = f"{len(graph.nodes)} nodes, {len(graph.edges)} edges"
    if graph.truncated:
        summary += f" — the graph is larger: showing the {graph.limit} most recently updated; narrow the filters or search"
    last = st.session_state.get("gx_last_patch")
    if last:
        summary += f" · live update at {last[0]}: +{last[1]} nodes, +{last[2]} edges"
    st.caption(summary)
    if not graph.nodes:
        st.info("Nothing matches these filters yet.")
        return
    st.iframe(render_network_html(graph, highlight), height=640)
    st.caption("Colours: concepts red, rules dark blue, sections light blue, jurisdictions green, aliases grey; "
               "a thick black border marks the concepts referenced by the last chat answer.")
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
            st.write("Labels: " + ", ".join(details["labels"]))
            props = pd.DataFrame([{"property": k, "value": plain(v if not isinstance(v, list) else "; ".join(map(str, v)), 500)}
                                  for k, v in sorted(details["properties"].items())])
            st.dataframe(props, hide_index=True, width="stretch")
        with right:
            if details["aliases"]:
                st.write("Aliases: " + ", ".join(plain(a, 80) for a in details["aliases"]))
            if details["sections"]:
                st.write("Linked sections:")
                st.dataframe(pd.DataFrame([{"relation": s["type"], "section": plain(s["ref"] or s["key"], 80), "rule": s["rule"],
                                            "source": s["url"] if str(s["url"] or "").startswith("https://") else ""} for s in details["sections"]]),
                             hide_index=True, width="stretch", column_config={"source": st.column_config.LinkColumn("source")})
        st.button("Focus the graph on this node", on_click=lambda: st.session_state.update(gx_focus=chosen))
