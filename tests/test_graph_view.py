"""The explorer's pyvis page: offline (no CDN), hostile labels serialised as inert text, capped."""

from __future__ import annotations

import json
import re

from regintel.graph.explorer import Subgraph
from regintel.ui.graph_view import plain, render_network_html

HOSTILE = "<img src=x onerror=alert(1)></script><script>alert(2)</script>"


def test_page_is_offline_and_labels_are_escaped_json():
    graph = Subgraph(nodes=[{"key": "k1", "labels": ["Concept"], "caption": HOSTILE},
                            {"key": "k2", "labels": ["Rule"], "caption": "GDPR"}],
                     edges=[{"source": "k1", "type": "CITES", "target": "k2"}])
    html = render_network_html(graph, highlight={"k2"})
    assert not re.search(r"(src|href)=\"https?://", html), "no CDN resources"
    assert "<img src=x" not in html and "</script><script>alert(2)" not in html
    data = json.loads(re.search(r"nodes = new vis\.DataSet\((\[.*?\])\);", html, re.DOTALL).group(1))
    labels = {n["id"]: n for n in data}
    assert labels["k1"]["label"] == plain(HOSTILE, 40)
    assert labels["k2"]["borderWidth"] == 5  # referenced by the last answer


def test_plain_removes_control_and_bidi_characters():
    assert plain("VAT\u202e\u200b\x07 rate\n\t") == "VAT rate"
    assert plain("x" * 100, 10) == "x" * 9 + "…"
    assert plain("Article\n33") == "Article 33"  # a line break separates words, it does not glue them
