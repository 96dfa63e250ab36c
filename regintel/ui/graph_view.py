"""Render a Subgraph as a self-contained pyvis (vis-network) page, offline.

pyvis's ``cdn_resources="in_line"`` inlines vis-network; its Bootstrap <link>/<script> tags still point to a CDN
and are stripped. Node labels and tooltips are plain text: vis-network 9 draws labels on the canvas and shows
string titles as text, and pyvis serialises node data as JSON with ``<`` escaped, so hostile labels render as
text. Control characters are removed and labels shortened (regintel.ui.untrusted.pyvis_text). Nodes are sized
by degree, a legend names the colours, and the layout is stabilised once with physics switched off afterwards.
"""

from __future__ import annotations

import json
import math
import re

from pyvis.network import Network

from regintel.graph.explorer import Subgraph
from regintel.text.normalise import printable
from regintel.ui.untrusted import pyvis_text

COLORS = {
    "Concept": "#d9534f", "Rule": "#1f4e79", "Section": "#5b9bd5", "Jurisdiction": "#70ad47",
    "Label": "#a5a5a5", "Content": "#ed7d31", "Quote": "#ffc000", "Regime": "#7030a0",
}
CDN_TAG_RE = re.compile(r"<(?:link|script)\b[^>]*(?:href|src)=\"https?://[^\"]*\"[^>]*>(?:\s*</script>)?", re.IGNORECASE)


def plain(text: object, limit: int = 60) -> str:
    """Printable text only (no control, zero-width or bidi override characters), shortened."""
    cleaned = printable(text)
    return cleaned if len(cleaned) <= limit else cleaned[: limit - 1] + "…"


def primary_label(labels: list[str]) -> str:
    return next((label for label in labels if label in COLORS), labels[0] if labels else "Node")


LEGEND_LABELS = ("Concept", "Rule", "Section", "Jurisdiction", "Label", "Content", "Quote")
# vis-network options: the layout is computed once (a bounded stabilisation), then physics is switched off so the
# picture stands still; labels drawn on every node; hovering shows the tooltip
OPTIONS = {
    "physics": {"enabled": True, "solver": "barnesHut",
                "barnesHut": {"gravitationalConstant": -4000, "centralGravity": 0.4, "springLength": 110,
                              "avoidOverlap": 0.4},
                "stabilization": {"enabled": True, "iterations": 120, "updateInterval": 50, "fit": True}},
    # labels are drawn at every zoom (vis-network hides them below a 5 px font by default: a view of dots)
    "nodes": {"font": {"size": 18, "face": "system-ui, sans-serif", "strokeWidth": 4, "strokeColor": "#ffffff"},
              "scaling": {"label": {"enabled": False, "drawThreshold": 0}}},
    "edges": {"smooth": False, "arrows": {"to": {"enabled": True, "scaleFactor": 0.5}}},
    "interaction": {"hover": True, "tooltipDelay": 150},
}
# after the one stabilisation: physics off; the page records when the labelled picture was first drawn
# (epoch ms in data attributes, read by the browser test and docs/benchmarks.md)
AFTER_DRAW = """<script>
network.once("afterDrawing", function () { document.body.dataset.firstPaint = String(performance.timeOrigin + performance.now()); });
network.once("stabilizationIterationsDone", function () {
  network.setOptions({physics: false});
  document.body.dataset.stabilised = String(performance.timeOrigin + performance.now());
});
</script>"""


def legend_html(labels: set[str]) -> str:
    """The colour key of the kinds of node in view (fixed words and colours only)."""
    items = " ".join(f'<span style="margin-right:14px;white-space:nowrap"><span style="display:inline-block;width:11px;'
                    f'height:11px;border-radius:50%;background:{COLORS[label]};margin-right:5px"></span>{label}</span>'
                    for label in LEGEND_LABELS if label in labels)
    return f'<div id="legend" style="font:13px system-ui,sans-serif;padding:4px 8px;color:#333">{items}</div>'


def node_size(degree: int, referenced: bool) -> float:
    """Sized by degree (square root, so hubs do not swamp the view)."""
    return 34.0 if referenced else min(40.0, 10.0 + 4.0 * math.sqrt(max(0, degree)))


def render_network_html(subgraph: Subgraph, highlight: set[str] | None = None, height: int = 620,
                        focus: str = "") -> str:
    highlight = highlight or set()
    net = Network(height=f"{height}px", width="100%", directed=True, cdn_resources="in_line", bgcolor="#ffffff")
    net.set_options(json.dumps(OPTIONS))
    shown: set[str] = set()
    for node in subgraph.nodes:
        label = primary_label(node.get("labels") or [])
        shown.add(label)
        caption = pyvis_text(node.get("caption"), 40)
        tooltip = "\n".join(filter(None, [f"{label}: {pyvis_text(node.get('caption'), 200)}", f"key: {pyvis_text(node['key'], 200)}",
                                          f"jurisdiction: {pyvis_text(node.get('jurisdiction'))}" if node.get("jurisdiction") else "",
                                          f"links: {node['degree']}" if "degree" in node else ""]))
        referenced = node["key"] in highlight or node["key"] == focus
        color = COLORS.get(label, "#888888")
        net.add_node(node["key"], label=caption, title=tooltip, shape="dot",
                     color={"background": color, "border": "#000000" if referenced else color},
                     borderWidth=5 if referenced else 1, size=node_size(int(node.get("degree") or 0), referenced))
    keys = {n["key"] for n in subgraph.nodes}
    for edge in subgraph.edges:
        if edge["source"] in keys and edge["target"] in keys:
            dashed = edge["type"] == "VIA_SECTIONS"
            net.add_edge(edge["source"], edge["target"], title=pyvis_text(edge["type"]).replace("_", " ").lower(),
                         label="", color="#d0d0d0" if dashed else "#a8a8a8", dashes=dashed)
    html = CDN_TAG_RE.sub("", net.generate_html())
    html = html.replace("<body>", "<body>" + legend_html(shown), 1)
    return html.replace("</body>", AFTER_DRAW + "</body>", 1)
