"""``python -m regintel graph verify``: is everything the SQL store says was written to the graph really there?

An approval is acknowledged to the curator and a chat turn's captured concepts are listed under its answer; both
are recorded in SQL (the run's ``committed`` concepts, the answer's ``referenced_nodes``). This compares those
records with the graph and lists every difference: a committed concept or a captured concept missing from the
graph, or a committed content whose ``processed_date`` is gone. Exit status 0 when there is none, 1 otherwise.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any, Iterable

from sqlalchemy import select

from regintel.graph.referenced import concept_nodes
from regintel.graph import queries
from regintel.graph.store import GraphStore
from regintel.store.models import ExtractionRun, Message

COMMITTED = ("committed", "notes_sync_pending")
BATCH = 500


@dataclass(frozen=True)
class Difference:
    source: str  # "extraction run" / "chat answer"
    ref: str  # run id / message id
    key: str  # concept or content key
    problem: str

    def line(self) -> str:
        return f"{self.source} {self.ref}: {self.problem}: {self.key}"


def expected_concepts(db: Any) -> tuple[list[tuple[str, str, str]], list[tuple[str, str]]]:
    """(source, ref, concept key) of every committed and captured concept, and (run id, content key) of every
    committed run."""
    concepts: list[tuple[str, str, str]] = []
    contents: list[tuple[str, str]] = []
    with db.session() as session:
        for run in session.scalars(select(ExtractionRun).where(ExtractionRun.status.in_(COMMITTED))):
            contents.append((run.id, run.content_key))
            concepts += [("extraction run", run.id, c["key"]) for c in (run.committed or {}).get("concepts", []) if c.get("key")]
        rows = session.execute(select(Message.id, Message.details).where(Message.role == "assistant",
                                                                         Message.status == "complete"))
        for message_id, details in rows:
            concepts += [("chat answer", message_id, n["key"]) for n in concept_nodes((details or {}).get("referenced_nodes", []))
                         if n.get("key")]
    return concepts, contents


def present_keys(store: GraphStore, keys: Iterable[str]) -> set[str]:
    wanted = sorted(set(keys))
    found: set[str] = set()
    for start in range(0, len(wanted), BATCH):
        found |= {row["key"] for row in store.query(queries.CONCEPTS_BY_KEYS, {"keys": wanted[start:start + BATCH]})}
    return found


def verify_graph(db: Any, store: GraphStore) -> list[Difference]:
    concepts, contents = expected_concepts(db)
    found = present_keys(store, (key for _, _, key in concepts))
    differences = [Difference(source, ref, key, "concept missing from the graph")
                   for source, ref, key in concepts if key not in found]
    for run_id, content_key in contents:
        rows = store.query(queries.CONTENT_BY_KEY, {"key": content_key})
        if not rows:
            differences.append(Difference("extraction run", run_id, content_key, "content missing from the graph"))
        elif not rows[0].get("processed_date"):
            differences.append(Difference("extraction run", run_id, content_key, "content not marked processed"))
    return differences


def cmd_graph_verify(app: Any, args: argparse.Namespace) -> int:
    differences = verify_graph(app.db, app.require_graph())
    for difference in differences:
        print(difference.line())
    concepts, contents = expected_concepts(app.db)
    print(f"checked {len(set(k for _, _, k in concepts))} concepts of {len(contents)} committed runs and the chat answers: "
          f"{len(differences)} difference(s)")
    return 1 if differences else 0


def add_parser(actions: Any) -> None:
    verify = actions.add_parser("verify", help="compare committed extractions and captured concepts with the graph; "
                                "exit 1 listing every difference")
    verify.set_defaults(func=cmd_graph_verify)
