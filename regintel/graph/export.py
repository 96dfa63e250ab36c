"""Export the rules graph: GraphML (yEd, Gephi, networkx), JSON lines of nodes and edges, and a Cypher script
that loads into Neo4j (or FalkorDB / Memgraph).

The graph holds public rules and concepts only (the ingress guard keeps personal data out), so an export is
safe to share. Labels and relation types in the Cypher script come from the schema's whitelists; every value is
written as a literal by :func:`cypher_literal` (JSON string escaping is valid Cypher string escaping), never
pasted in raw. Retired concepts are exported with their ``status`` so a reload keeps them retired.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass, field
from typing import Any, Iterator

from regintel.graph.queries import KEYED_LABELS
from regintel.graph.schema import NODE_LABELS, RELATION_TYPES, SPECIFIC_LABELS
from regintel.graph.store import GraphStore

ALL_NODES = "MATCH (n) RETURN labels(n) AS labels, n AS node"
ALL_EDGES = (
    "MATCH (a)-[e]->(b) RETURN labels(a) AS from_labels, coalesce(a.key, a.code) AS source, type(e) AS type, "
    "labels(b) AS to_labels, coalesce(b.key, b.code) AS target, e AS edge"
)


@dataclass
class GraphDump:
    """Every node (primary label, key, extra labels, properties) and edge of the graph, read once."""

    nodes: list[dict[str, Any]] = field(default_factory=list)
    edges: list[dict[str, Any]] = field(default_factory=list)


def _primary(labels: list[str]) -> str | None:
    return next((label for label in labels if label in NODE_LABELS), None)


def read_graph(store: GraphStore) -> GraphDump:
    dump = GraphDump()
    for row in store.query(ALL_NODES):
        label = _primary(row["labels"] or [])
        props = dict(row["node"] or {})
        key = props.get(KEYED_LABELS.get(label or "", "key")) or props.get("key")
        if label is None or key is None:
            continue  # not ours (a label outside the schema): not exported
        extra = [l for l in row["labels"] if l in SPECIFIC_LABELS]
        dump.nodes.append({"label": label, "key": str(key), "labels": extra, "props": props})
    for row in store.query(ALL_EDGES):
        source_label, target_label = _primary(row["from_labels"] or []), _primary(row["to_labels"] or [])
        if source_label is None or target_label is None or row["type"] not in RELATION_TYPES:
            continue
        dump.edges.append({"type": row["type"], "source": str(row["source"]), "source_label": source_label,
                           "target": str(row["target"]), "target_label": target_label, "props": dict(row["edge"] or {})})
    return dump


def to_jsonl(dump: GraphDump) -> str:
    """One JSON object a line: {"kind": "node", ...} then {"kind": "edge", ...}."""
    lines = [json.dumps({"kind": "node", **node}, ensure_ascii=False, sort_keys=True, default=str) for node in dump.nodes]
    lines += [json.dumps({"kind": "edge", **edge}, ensure_ascii=False, sort_keys=True, default=str) for edge in dump.edges]
    return "\n".join(lines) + ("\n" if lines else "")


def _flat(value: Any) -> Any:
    """GraphML attributes are scalars: lists and maps are written as JSON text."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


def to_graphml(dump: GraphDump) -> str:
    import networkx as nx

    graph = nx.MultiDiGraph()
    for node in dump.nodes:
        attributes = {k: _flat(v) for k, v in node["props"].items() if v is not None}
        graph.add_node(node["key"], **attributes, label=":".join([node["label"], *node["labels"]]))
    for edge in dump.edges:
        attributes = {k: _flat(v) for k, v in edge["props"].items() if v is not None}
        graph.add_edge(edge["source"], edge["target"], **attributes, type=edge["type"])
    out = io.BytesIO()
    nx.write_graphml(graph, out, encoding="utf-8")
    return out.getvalue().decode("utf-8")


def cypher_literal(value: Any) -> str:
    """A Cypher literal for a stored value: strings with JSON escaping (valid in Cypher), numbers, booleans,
    lists of those; anything else as its JSON text."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return json.dumps(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(cypher_literal(v) for v in value) + "]"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=True)
    return json.dumps(json.dumps(value, default=str), ensure_ascii=True)


def _map(props: dict[str, Any]) -> str:
    # property names come from the stored graph, which the ingress guard restricts to the schema's names;
    # backquoted anyway (a backquote inside is doubled)
    items = [f"`{name.replace('`', '``')}`: {cypher_literal(value)}" for name, value in sorted(props.items())
             if value is not None]
    return "{" + ", ".join(items) + "}"


def cypher_statements(dump: GraphDump) -> Iterator[str]:
    """MERGE statements, nodes first, each ending with a semicolon (cypher-shell runs the file as is)."""
    for node in dump.nodes:
        label, key_prop = node["label"], KEYED_LABELS[node["label"]]
        extra = "".join(f":{specific}" for specific in node["labels"] if specific in SPECIFIC_LABELS)
        yield (f"MERGE (n:{label} {{{key_prop}: {cypher_literal(node['key'])}}}) SET n += {_map(node['props'])}"
               + (f" SET n{extra}" if extra else "") + ";")
    for edge in dump.edges:
        a, b = edge["source_label"], edge["target_label"]
        yield (f"MATCH (a:{a} {{{KEYED_LABELS[a]}: {cypher_literal(edge['source'])}}}) "
               f"MATCH (b:{b} {{{KEYED_LABELS[b]}: {cypher_literal(edge['target'])}}}) "
               f"MERGE (a)-[e:{edge['type']}]->(b) SET e += {_map(edge['props'])};")


def to_cypher(dump: GraphDump) -> str:
    return "\n".join(cypher_statements(dump)) + "\n"
