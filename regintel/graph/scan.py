"""``python -m regintel graph scan [--purge]``: find (and remove) personal data already in a rules graph.

The ingress guard keeps personal data out of every new write, but a graph filled before the Presidio detector
(issue 18) may hold identifiers or names in concept labels, aliases, definitions, quotes or contents. The scan
reads every property of every node and edge with the same detector and reports, per label and property, the
types and counts found: never a value, and nodes by a short hash of their key (a key may itself be personal).

``--purge`` removes what was found, each removal audited: a node whose identity property (key, label, text,
title, name) holds personal data is deleted with its edges; an item of a list property (aliases, source URLs)
is dropped from the list; any other property is removed from the node or edge.
"""

from __future__ import annotations

import argparse
import hashlib
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable

from regintel.egress.sanitiser import find_pii
from regintel.graph.schema import EDGE_PROPERTIES, NODE_LABELS, NODE_PROPERTIES

IDENTITY = {"key", "pref_label", "text", "title", "name", "code", "normalised"}


@dataclass
class Hit:
    """One property holding personal data: where (label, property, node hash), what (types), what to do."""

    kind: str  # "node" or "edge"
    label: str  # node label or relation type
    ref: str  # short hash of the node key / edge id: never the key itself
    prop: str
    types: dict[str, int]
    action: str  # "delete node", "drop list items", "remove property"
    target: Any = field(default=None, repr=False)  # key / edge id and kept list items, for the purge only


def _ref(value: Any) -> str:
    return hashlib.sha256(str(value).encode()).hexdigest()[:12]


def _types(value: Any, detect: Callable) -> tuple[Counter, list]:
    """Types found in a property value, and for a list the items without personal data."""
    found: Counter = Counter()
    if isinstance(value, str):
        found.update(f.type for f in detect(value))
        return found, []
    kept = []
    for item in value if isinstance(value, (list, tuple)) else []:
        item_types = Counter(f.type for f in detect(item)) if isinstance(item, str) else Counter()
        found.update(item_types)
        if not item_types:
            kept.append(item)
    return found, kept


def scan_graph(store: Any, detect: Callable = find_pii) -> list[Hit]:
    hits: list[Hit] = []
    for label in NODE_LABELS:
        for row in store.query(f"MATCH (n:{label}) RETURN n.key AS key, properties(n) AS props"):
            props = row.get("props") or {}
            node_key = row.get("key") if row.get("key") is not None else props.get("code")
            for name in sorted(props):
                if name not in NODE_PROPERTIES[label] and name != "key":
                    continue
                found, kept = _types(props[name], detect)
                if not found:
                    continue
                action = ("delete node" if name in IDENTITY else
                          "drop list items" if isinstance(props[name], (list, tuple)) else "remove property")
                hits.append(Hit("node", label, _ref(node_key), name, dict(found), action, (node_key, kept)))
    for row in store.query("MATCH ()-[r]->() RETURN type(r) AS type, id(r) AS id, properties(r) AS props"):
        for name, value in sorted((row.get("props") or {}).items()):
            if name in EDGE_PROPERTIES:
                found, _ = _types(value, detect)
                if found:
                    hits.append(Hit("edge", row["type"], _ref(row["id"]), name, dict(found), "remove property",
                                    (row["id"], [])))
    return hits


def purge(store: Any, hits: list[Hit], audit: Callable[..., None]) -> int:
    """Apply each hit's action (label and property names come from the schema whitelist, values are parameters)."""
    done = 0
    deleted: set[tuple[str, Any]] = set()
    for hit in hits:
        ident, kept = hit.target
        if hit.kind == "node":
            if (hit.label, ident) in deleted:
                continue
            match = f"MATCH (n:{hit.label}) WHERE n.{'key' if hit.label != 'Jurisdiction' else 'code'} = $key"
            if hit.action == "delete node":
                store.write(match + " DETACH DELETE n", {"key": ident})
                deleted.add((hit.label, ident))
            elif hit.action == "drop list items":
                store.write(match + f" SET n.{hit.prop} = $kept", {"key": ident, "kept": kept})
            else:
                store.write(match + f" SET n.{hit.prop} = NULL", {"key": ident})
        else:
            store.write(f"MATCH ()-[r]->() WHERE id(r) = $id SET r.{hit.prop} = NULL", {"id": ident})
        audit("graph_purge", actor="cli", target=f"{hit.label}:{hit.ref}", property=hit.prop, types=hit.types,
              removal=hit.action)
        done += 1
    return done


def cmd_graph_scan(app: Any, args: argparse.Namespace) -> int:
    store = app.require_graph()
    hits = scan_graph(store)
    totals = Counter()
    for hit in hits:
        totals.update(hit.types)
        types = ", ".join(f"{t}×{n}" for t, n in sorted(hit.types.items()))
        print(f"{hit.kind} {hit.label} #{hit.ref} .{hit.prop}: {types} -> {hit.action}")
    print(f"{len(hits)} properties with personal data ({dict(totals) or 'none'})")
    if args.purge and hits:
        removed = purge(store, hits, app.audit.record)
        print(f"purged {removed} (audited as graph_purge); a new scan finds {len(scan_graph(store))}")
    return 1 if hits and not args.purge else 0


def add_parser(sub: Any) -> None:
    graph = sub.add_parser("graph", help="rules graph maintenance")
    actions = graph.add_subparsers(dest="graph_command", required=True)
    scan = actions.add_parser("scan", help="report personal data in the graph (types and counts, never values)")
    scan.add_argument("--purge", action="store_true", help="remove what is found; each removal is audited")
    scan.set_defaults(func=cmd_graph_scan)

    from regintel.graph.verify import add_parser as add_verify_parser

    add_verify_parser(actions)
