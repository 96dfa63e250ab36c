"""Graph Ingress Guard: the checks every write passes before it reaches the shared rules graph.

It rejects unknown labels, relation types and properties, oversize values, identifiers of the SQL side (user,
conversation or message ids look like UUIDs) and any text in which the PII sanitiser finds personal data. A
rejected write raises IngressRejected and nothing of it is written. Cypher-looking strings are not rejected:
they are stored as plain data, since every value travels as a query parameter.
"""

from __future__ import annotations

import re
from typing import Any, Mapping

from regintel.egress.sanitiser import find_pii
from regintel.graph.schema import EDGE_PROPERTIES, NODE_LABELS, NODE_PROPERTIES, RELATION_TYPES, SPECIFIC_LABELS
from regintel.graph.store import GraphError

MAX_TEXT = 4000
MAX_KEY = 400
MAX_LIST = 100
UUID_RE = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.IGNORECASE)
UUID_ALLOWED = {("Concept", "id")}  # our own concept ids; nothing from the SQL side


class IngressRejected(GraphError):
    """A write was refused by the ingress guard; the message says which rule and where (never the value)."""


class IngressGuard:
    def check_node(self, label: str, key: str, props: Mapping[str, Any]) -> None:
        if label not in NODE_LABELS:
            raise IngressRejected(f"unknown node label '{label}'")
        self._check_value(label, "key", key, MAX_KEY)
        allowed = NODE_PROPERTIES[label]
        for name, value in props.items():
            if name not in allowed:
                raise IngressRejected(f"property '{name}' is not allowed on {label}")
            self._check_value(label, name, value, MAX_TEXT)

    def check_specific_label(self, specific: str) -> None:
        if specific not in SPECIFIC_LABELS:
            raise IngressRejected(f"unknown specific label '{specific}'")

    def check_edge(self, rel_type: str, from_label: str, to_label: str, props: Mapping[str, Any]) -> None:
        if rel_type not in RELATION_TYPES:
            raise IngressRejected(f"unknown relation type '{rel_type}'")
        for label in (from_label, to_label):
            if label not in NODE_LABELS:
                raise IngressRejected(f"unknown node label '{label}'")
        for name, value in props.items():
            if name not in EDGE_PROPERTIES:
                raise IngressRejected(f"property '{name}' is not allowed on {rel_type} edges")
            self._check_value(rel_type, name, value, MAX_TEXT)

    def _check_value(self, owner: str, name: str, value: Any, limit: int) -> None:
        if value is None or isinstance(value, (bool, int, float)):
            return
        if isinstance(value, str):
            self._check_text(owner, name, value, limit)
            return
        if isinstance(value, (list, tuple)):
            if len(value) > MAX_LIST:
                raise IngressRejected(f"{owner}.{name} has more than {MAX_LIST} items")
            for item in value:
                if not isinstance(item, (str, int, float, bool)):
                    raise IngressRejected(f"{owner}.{name} may only hold scalars")
                if isinstance(item, str):
                    self._check_text(owner, name, item, limit)
            return
        raise IngressRejected(f"{owner}.{name} has an unsupported type {type(value).__name__}")

    def _check_text(self, owner: str, name: str, text: str, limit: int) -> None:
        if len(text) > limit:
            raise IngressRejected(f"{owner}.{name} is longer than {limit} characters")
        if (owner, name) in UUID_ALLOWED and UUID_RE.fullmatch(text):
            return  # our own random id: its hex digits can look like an ID number (a DNI: 8 digits and a letter)
        if (owner, name) not in UUID_ALLOWED and UUID_RE.search(text):
            raise IngressRejected(f"{owner}.{name} contains an identifier (no SQL-side ids in the graph)")
        findings = find_pii(text)
        if findings:
            kinds = ", ".join(sorted({f.type for f in findings}))
            raise IngressRejected(f"{owner}.{name} contains personal data ({kinds})")
