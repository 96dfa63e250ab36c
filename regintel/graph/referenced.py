"""The graph nodes a chat answer refers to, as stored with it (``referenced_nodes``): the concepts the turn captured
or reused, then the rules graph's Sections its answer cites, marked ``kind: section`` (issue 20). Code that means
"the turn's concepts" (conversation context, graph verify, dashboard) reads :func:`concept_nodes`."""

from __future__ import annotations

from typing import Any

SECTION_NODE = "section"


def concept_nodes(nodes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Referenced nodes that are concepts, without the cited Sections."""
    return [n for n in nodes if isinstance(n, dict) and n.get("kind") != SECTION_NODE]
