"""Curators fix the shared graph after approval: rename a concept, add or remove an alias, retire or restore it,
merge two concepts.

Every change names who made it and why, goes to the audit trail with the values it replaced (so an admin sees
what to put back), and writes through the :class:`GraphWriteService`, whose ingress guard refuses personal data
exactly as for every other graph write. A merge moves the loser's aliases and links to the survivor and keeps the
loser as a retired node pointing at it (``merged_into``), so the resolver sends the next chat turn that names the
loser to the survivor instead of recreating it. Relation types in the merge queries come from the schema's
whitelist; every value is a parameter. Rename, alias and retire changes can be undone from their audit record;
a merge cannot (the UI says so).
"""

from __future__ import annotations

from typing import Any

from regintel.errors import InputError, NotFound
from regintel.graph.resolver import MAX_LABEL, label_key
from regintel.graph.schema import RELATION_TYPES
from regintel.graph.store import GraphStore
from regintel.graph.write_service import GraphWriteService, now_ms
from regintel.identity.audit import AuditLog
from regintel.identity.roles import Identity, require_role
from regintel.text.normalise import fold_for_comparison, printable

CONCEPT_STATE = (
    "MATCH (c:Concept {key: $key}) OPTIONAL MATCH (c)-[:HAS_LABEL]->(l:Label) "
    "RETURN c.key AS key, c.pref_label AS pref_label, c.alt_labels AS alt_labels, c.status AS status, "
    "c.jurisdiction AS jurisdiction, c.merged_into AS merged_into, collect(l.key) AS label_keys"
)
UNDOABLE = ("concept_rename", "concept_alias_add", "concept_alias_remove", "concept_retire", "concept_restore")
DROP_ALIAS = "MATCH (c:Concept {key: $key})-[e:HAS_LABEL]->(l:Label {key: $label}) DELETE e"
MOVE_LABELS = (
    "MATCH (a:Concept {key: $loser})-[e:HAS_LABEL]->(l:Label) MATCH (s:Concept {key: $survivor}) "
    "MERGE (s)-[n:HAS_LABEL]->(l) ON CREATE SET n.created_at = $now SET n.updated_at = $now DELETE e"
)


def _move_out(rel_type: str) -> str:
    return (f"MATCH (a:Concept {{key: $loser}})-[e:{rel_type}]->(m) WHERE coalesce(m.key, m.code) <> $survivor "
            f"MATCH (s:Concept {{key: $survivor}}) MERGE (s)-[n:{rel_type}]->(m) ON CREATE SET n.created_at = $now "
            "SET n.updated_at = $now DELETE e")


def _move_in(rel_type: str) -> str:
    return (f"MATCH (m)-[e:{rel_type}]->(a:Concept {{key: $loser}}) WHERE coalesce(m.key, m.code) <> $survivor "
            f"MATCH (s:Concept {{key: $survivor}}) MERGE (m)-[n:{rel_type}]->(s) ON CREATE SET n.created_at = $now "
            "SET n.updated_at = $now DELETE e")


def _drop_between(rel_type: str) -> str:
    return f"MATCH (a:Concept {{key: $loser}})-[e:{rel_type}]-(s:Concept {{key: $survivor}}) DELETE e"


class GraphCuration:
    def __init__(self, store: GraphStore, audit: AuditLog, writer: GraphWriteService | None = None) -> None:
        self.store, self.audit = store, audit
        self.writer = writer or GraphWriteService(store)

    # -- reading ---------------------------------------------------------------------------------------------
    def concept(self, key: str) -> dict[str, Any]:
        rows = self.store.query(CONCEPT_STATE, {"key": key})
        if not rows or rows[0]["key"] is None:
            raise NotFound(f"No concept {printable(key)[:80]!r} in the graph.")
        return rows[0]

    # -- changes ---------------------------------------------------------------------------------------------
    def rename(self, key: str, new_label: str, *, by: Identity, why: str) -> None:
        """A new preferred label; the old one stays an alias, so what chats captured under it still resolves."""
        state, why = self._start(key, by, why)
        label = _label(new_label)
        old = state["pref_label"] or ""
        aliases = [a for a in (state["alt_labels"] or []) if fold_for_comparison(a) != fold_for_comparison(label)]
        if old and fold_for_comparison(old) != fold_for_comparison(label) and old not in aliases:
            aliases.append(old)
        with self.writer.batch():
            self.writer.upsert_nodes("Concept", [{"key": key, "pref_label": label, "alt_labels": aliases[:50]}])
            self._add_labels(key, state["jurisdiction"], [label])
        self._record("concept_rename", by, key, why, before={"pref_label": old}, after={"pref_label": label})

    def add_alias(self, key: str, alias: str, *, by: Identity, why: str) -> None:
        state, why = self._start(key, by, why)
        text = _label(alias)
        aliases = list(state["alt_labels"] or [])
        if fold_for_comparison(text) not in {fold_for_comparison(a) for a in [state["pref_label"] or "", *aliases]}:
            aliases.append(text)
        with self.writer.batch():
            self.writer.upsert_nodes("Concept", [{"key": key, "alt_labels": aliases[:50]}])
            self._add_labels(key, state["jurisdiction"], [text])
        self._record("concept_alias_add", by, key, why, after={"alias": text})

    def remove_alias(self, key: str, alias: str, *, by: Identity, why: str) -> None:
        state, why = self._start(key, by, why)
        if fold_for_comparison(alias) == fold_for_comparison(state["pref_label"] or ""):
            raise InputError("The preferred label is not an alias: rename the concept instead.")
        aliases = [a for a in (state["alt_labels"] or []) if fold_for_comparison(a) != fold_for_comparison(alias)]
        self.writer.upsert_nodes("Concept", [{"key": key, "alt_labels": aliases}])
        self.store.write(DROP_ALIAS, {"key": key, "label": label_key(state["jurisdiction"] or "", alias)})
        self._record("concept_alias_remove", by, key, why, before={"alias": printable(alias)[:MAX_LABEL]})

    def retire(self, key: str, *, by: Identity, why: str, retired: bool = True) -> None:
        """Hide a concept (kept, marked ``retired``); ``retired=False`` restores it."""
        state, why = self._start(key, by, why)
        status = "retired" if retired else "active"
        self.writer.upsert_nodes("Concept", [{"key": key, "status": status}])
        self._record("concept_retire" if retired else "concept_restore", by, key, why,
                     before={"status": state["status"] or "active"}, after={"status": status})

    def merge(self, loser: str, survivor: str, *, by: Identity, why: str) -> None:
        """Fold ``loser`` into ``survivor``: aliases (the loser's names included) and links move over, the loser is
        retired with ``merged_into``; the resolver then sends the loser's names and key to the survivor."""
        if loser == survivor:
            raise InputError("A concept cannot be merged into itself.")
        gone, why = self._start(loser, by, why)
        kept = self.concept(survivor)
        if (kept["status"] or "active") == "retired":
            raise InputError("The surviving concept is retired: restore it first.")
        names = [n for n in [gone["pref_label"] or "", *(gone["alt_labels"] or [])] if n]
        aliases = list(kept["alt_labels"] or [])
        known = {fold_for_comparison(a) for a in [kept["pref_label"] or "", *aliases]}
        aliases += [n for n in names if fold_for_comparison(n) not in known]
        params = {"loser": loser, "survivor": survivor, "now": now_ms()}
        with self.writer.batch():
            self.writer.upsert_nodes("Concept", [{"key": survivor, "alt_labels": aliases[:50]}])
            self._add_labels(survivor, kept["jurisdiction"], names)
            self.writer.upsert_nodes("Concept", [{"key": loser, "status": "retired", "merged_into": survivor}])
        statements = [(MOVE_LABELS, params)]
        for rel_type in RELATION_TYPES:
            if rel_type != "HAS_LABEL":
                statements += [(_drop_between(rel_type), params), (_move_out(rel_type), params), (_move_in(rel_type), params)]
        self.store.write_all(statements)
        self._record("concept_merge", by, loser, why, before={"pref_label": gone["pref_label"]},
                     after={"merged_into": survivor})

    # -- history and undo -------------------------------------------------------------------------------------
    def changes(self, key: str, *, by: Identity, limit: int = 20) -> list[Any]:
        """The curation events of one concept in the curator's tenant trail, newest first."""
        events = self.audit.events(tenant_id=by.tenant_id, limit=2000)
        return [e for e in events if e.target == key and e.action in UNDOABLE + ("concept_merge",)][:limit]

    def undo(self, event_id: str, *, by: Identity, why: str) -> str:
        """Put back what one audited change replaced (itself an audited change, so an undo can be undone).
        A merge is not undoable: the links it moved are no longer told apart from the survivor's own."""
        require_role(by, "approve")
        event = next((e for e in self.audit.events(tenant_id=by.tenant_id, limit=2000) if e.id == event_id), None)
        if event is None:
            raise NotFound("No such curation change in your tenant's audit trail.")
        if event.action == "concept_merge":
            raise InputError("A merge cannot be undone: the links it moved are now the survivor's. Rename or add "
                             "aliases instead, or restore the merged concept and link it again.")
        if event.action not in UNDOABLE:
            raise InputError(f"{event.action} is not a curation change.")
        before, after, reason = event.detail.get("before") or {}, event.detail.get("after") or {}, f"undo: {printable(why)[:480]}"
        if not printable(why):
            raise InputError("Say why (it goes to the audit trail with the change).")
        if event.action == "concept_rename":
            self.rename(event.target, before.get("pref_label") or "", by=by, why=reason)
        elif event.action == "concept_alias_add":
            self.remove_alias(event.target, after.get("alias") or "", by=by, why=reason)
        elif event.action == "concept_alias_remove":
            self.add_alias(event.target, before.get("alias") or "", by=by, why=reason)
        else:
            self.retire(event.target, by=by, why=reason, retired=before.get("status") == "retired")
        return event.action

    # -- helpers ---------------------------------------------------------------------------------------------
    def _start(self, key: str, by: Identity, why: str) -> tuple[dict[str, Any], str]:
        require_role(by, "approve")  # curators and admins; the page checks too
        reason = printable(why)[:500]
        if not reason:
            raise InputError("Say why (it goes to the audit trail with the change).")
        return self.concept(key), reason

    def _add_labels(self, key: str, jurisdiction: str | None, names: list[str]) -> None:
        rows = [{"key": label_key(jurisdiction or "", n), "text": n, "normalised": fold_for_comparison(n),
                 "jurisdiction": (jurisdiction or "")} for n in names if fold_for_comparison(n)]
        if rows:
            self.writer.upsert_nodes("Label", rows)
            self.writer.upsert_edges("HAS_LABEL", "Concept", "Label", [{"from": key, "to": r["key"]} for r in rows])

    def _record(self, action: str, by: Identity, key: str, why: str, **detail: Any) -> None:
        self.audit.record(action, tenant_id=by.tenant_id, actor=by.user_name, target=key, why=why, **detail)


def _label(text: str) -> str:
    label = " ".join(printable(text).split())[:MAX_LABEL]
    if not fold_for_comparison(label):
        raise InputError("A label needs at least one letter or digit.")
    return label

