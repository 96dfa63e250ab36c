"""Render a Subgraph as a self-contained pyvis (vis-network) page, offline.

pyvis's ``cdn_resources="in_line"`` inlines vis-network; its Bootstrap <link>/<script> tags still point to a CDN
and are stripped. Node labels and tooltips are plain text: vis-network 9 draws labels on the canvas and shows
string titles as text, and pyvis serialises node data as JSON with ``<`` escaped, so hostile labels render as
text. Control characters are removed and labels shortened.
"""

from __future__ import annotations

import re

from pyvis.network import Network

from regintel.graph.explorer import Subgraph
from regintel.text.normalise import printable

COLORS = {
    "Concept": "#d9534f", "Rule": "#1f4e79", "Section": "#5b9bd5", "Jurisdiction": "#70ad47",
    "Label": "#a5a5a5", "Content": "#ed7d31", "Quote": "#ffc000", "Regime": "#7030a0",
}
CDN_TAG_RE = re.compile(r"<(?:link|script)\b[^>]*(?:href|src)=\"https?://[^\"]*\"[^>]*>(?:\s*</script>)?", re.IGNORECASE)


def legend() -> str:
    """A one-line colour key (for a caption under the graph)."""
    return " · ".join(f"{label}: {color}" for label, color in COLORS.items())


def plain(text: object, limit: int = 60) -> str:
    """Printable text only (no control, zero-width or bidi override characters), shortened."""
    cleaned = printable(text)
    return cleaned if len(cleaned) <= limit else cleaned[: limit - 1] + "…"


def primary_label(labels: list[str]) -> str:
    return next((label for label in labels if label in COLORS), labels[0] if labels else "Node")


def render_network_html(subgraph: Subgraph, highlight: set[str] | None = None, height: int = 620) -> str:
    highlight = highlight or set()
    net = Network(height=f"{height}px", width="100%", directed=True, cdn_resources="in_line", bgcolor="#ffffff")
    net.barnes_hut(gravity=-4000, spring_length=120)
    for node in subgraph.nodes:
        label = primary_label(node.get("labels") or [])
        caption = plain(node.get("caption"), 40)
        tooltip = "\n".join(filter(None, [f"{label}: {plain(node.get('caption'), 200)}", f"key: {plain(node['key'], 200)}",
                                          f"jurisdiction: {plain(node.get('jurisdiction'))}" if node.get("jurisdiction") else ""]))
        referenced = node["key"] in highlight
        net.add_node(
            node["key"], label=caption, title=tooltip, color={"background": COLORS.get(label, "#888888"),
                                                              "border": "#000000" if referenced else COLORS.get(label, "#888888")},
            borderWidth=5 if referenced else 1, size=28 if referenced else (18 if label in {"Concept", "Rule"} else 12),
            shape="dot",
        )
    keys = {n["key"] for n in subgraph.nodes}
    for edge in subgraph.edges:
        if edge["source"] in keys and edge["target"] in keys:
            net.add_edge(edge["source"], edge["target"], title=plain(edge["type"]), label="", arrows="to", color="#bbbbbb")
    html = net.generate_html()
    return CDN_TAG_RE.sub("", html)
