"""The question behind "Ask about this": what the Graph Explorer hands to the chat for a focused concept, section or rule.

The chat answers from retrieval over the whole corpus (it has no per-document filter), so the question itself
scopes the turn: it names the article and its act, which the hybrid search ranks first. Engine side only.
"""

from __future__ import annotations

from typing import Any

from regintel.graph import queries
from regintel.graph.store import GraphStore
from regintel.text.normalise import printable

MAX_NAME = 120


def question_about(store: GraphStore, details: dict[str, Any]) -> str:
    """A question about one node, from its details (:func:`regintel.graph.explorer.node_details`)."""
    labels, props = details.get("labels") or [], details.get("properties") or {}
    if "Concept" in labels:
        concept = _name(props.get("pref_label") or details["key"])
        sections = details.get("sections") or []
        section = next((s for s in sections if s.get("type") == "DEFINED_IN"), None) or next(iter(sections), None)
        if section is None:
            return f"What do the regulations say about {concept}?"
        return f"What does {_section_name(store, section.get('rule'), section.get('ref') or section.get('key'))} say about {concept}?"
    if "Section" in labels:
        heading = _name(props.get("heading") or "")
        name = _section_name(store, props.get("rule_key"), props.get("ref") or details["key"])
        return f"What does {name}{f' ({heading})' if heading else ''} require?"
    if "Rule" in labels:
        return f"What are the main obligations of {_name(props.get('short_title') or props.get('title') or details['key'])}?"
    return f"What do the regulations say about {_name(props.get('name') or props.get('title') or details['key'])}?"


def _section_name(store: GraphStore, rule_key: object, ref: object) -> str:
    return f"{_rule_name(store, rule_key)} {_name(ref)}".strip()


def _rule_name(store: GraphStore, rule_key: object) -> str:
    if not rule_key:
        return ""
    rows = store.query(queries.NODE_PROPERTIES_BY_KEY, {"key": str(rule_key)})
    rule = (rows[0]["node"] or {}) if rows else {}
    return _name(rule.get("short_title") or rule.get("title") or rule_key)


def _name(text: object) -> str:
    cleaned = " ".join(printable(text).split())
    return cleaned if len(cleaned) <= MAX_NAME else cleaned[: MAX_NAME - 1] + "…"
