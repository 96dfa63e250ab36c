"""Concept handler: the ``capture_concepts`` tool payload of a turn becomes canonical graph nodes.

``handle_concept_metadata`` validates the payload (a malformed one is logged and skipped), drops concepts that
carry personal data, resolves or creates each concept (one failure does not stop the others), gates enrichment
of sparse concepts, and returns the referenced nodes. When the graph is unreachable the valid concepts are
queued as a ``capture_concepts`` job that the worker applies once the graph is back: the answer never waits
for the graph and nothing is lost.
"""

from __future__ import annotations

import logging
from dataclasses import asdict, dataclass, field
from typing import Any

from regintel.concepts.enrichment import gate_enrichment
from regintel.egress.sanitiser import contains_pii
from regintel.graph.resolver import CanonicalConceptInput, CanonicalConceptResolver
from regintel.graph.store import GraphError, GraphStore, GraphUnavailable
from regintel.text.normalise import printable

log = logging.getLogger(__name__)
CAPTURE_JOB = "capture_concepts"
MAX_CONCEPTS_PER_TURN = 10
REQUIRED = ("domain", "kind", "jurisdiction", "prefLabel")
MAX_FIELD = 200


@dataclass
class ConceptOutcome:
    referenced: list[dict[str, Any]] = field(default_factory=list)  # [{id, key, label, created}]
    skipped: list[str] = field(default_factory=list)  # why each invalid item was skipped
    errors: list[str] = field(default_factory=list)
    queued: bool = False
    enrichment_jobs: int = 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def merge(self, other: "ConceptOutcome") -> None:
        """Add another payload's outcome (a turn may call the tool more than once); a node is referenced once."""
        known = {r["id"] for r in self.referenced}
        self.referenced += [r for r in other.referenced if r["id"] not in known]
        self.skipped += other.skipped
        self.errors += other.errors
        self.queued = self.queued or other.queued
        self.enrichment_jobs += other.enrichment_jobs


def validate_payload(args: Any) -> tuple[list[CanonicalConceptInput], list[str]]:
    """The valid concepts of a payload and a reason per skipped item. A payload that is not the tool's shape
    yields no concept (and one reason)."""
    if not isinstance(args, dict) or not isinstance(args.get("concepts"), list):
        return [], ["payload is not an object with a 'concepts' list"]
    valid, skipped = [], []
    for position, item in enumerate(args["concepts"][:MAX_CONCEPTS_PER_TURN], start=1):
        problem = _item_problem(item)
        if problem:
            skipped.append(f"concept {position}: {problem}")
            continue
        try:
            valid.append(CanonicalConceptInput.from_payload(item))
        except (KeyError, TypeError, ValueError) as exc:
            skipped.append(f"concept {position}: {exc.__class__.__name__}")
    if len(args["concepts"]) > MAX_CONCEPTS_PER_TURN:
        skipped.append(f"{len(args['concepts']) - MAX_CONCEPTS_PER_TURN} concepts over the limit of {MAX_CONCEPTS_PER_TURN}")
    return valid, skipped


def _item_problem(item: Any) -> str:
    if not isinstance(item, dict):
        return "not an object"
    for name in REQUIRED:
        value = item.get(name)
        if not isinstance(value, str) or not printable(value):
            return f"'{name}' missing or not text"
        if len(value) > MAX_FIELD:
            return f"'{name}' longer than {MAX_FIELD} characters"
    for name in ("altLabels", "sourceUrls"):
        if name in item and item[name] is not None and not (
                isinstance(item[name], list) and all(isinstance(v, str) for v in item[name])):
            return f"'{name}' is not a list of text"
    if "definition" in item and item["definition"] is not None and not isinstance(item["definition"], str):
        return "'definition' is not text"
    texts = [item[n] for n in REQUIRED] + list(item.get("altLabels") or []) + [item.get("definition") or ""]
    texts += list(item.get("sourceUrls") or [])  # stored on the node too ("...?user=jane@example.com")
    if any(contains_pii(t) for t in texts):
        return "contains personal data (kept out of the graph)"
    return ""


def apply_concepts(resolver: CanonicalConceptResolver, items: list[CanonicalConceptInput], outcome: ConceptOutcome,
                   store: GraphStore | None = None, queue: Any = None) -> list[CanonicalConceptInput]:
    """Resolve each concept; return the ones not applied because the graph is unreachable."""
    for position, item in enumerate(items):
        try:
            result = resolver.resolve_or_create(item)
        except GraphUnavailable as exc:
            log.warning("graph unavailable during concept capture: %s", exc)
            outcome.errors.append(f"graph unavailable: {exc.__class__.__name__}")
            return items[position:]
        except (GraphError, ValueError) as exc:
            outcome.errors.append(f"{item.pref_label[:60]}: {exc}")
            continue
        outcome.referenced.append({"id": result.id, "key": result.key, "label": item.pref_label.strip(),
                                   "created": result.created})
        if store is not None and queue is not None:
            try:
                outcome.enrichment_jobs += int(gate_enrichment(store, queue, result.key))
            except Exception as exc:  # enrichment is a side feature of a side feature
                log.warning("enrichment gate failed for %s: %s", result.key, exc)
    return []


def handle_concept_metadata(args: Any, store: GraphStore | None, queue: Any = None, malformed: bool = False) -> ConceptOutcome:
    """Validate, resolve and gate enrichment for one tool payload; never raises."""
    outcome = ConceptOutcome()
    if malformed:
        log.warning("capture_concepts payload was not valid JSON; skipped")
        outcome.skipped.append("payload was not valid JSON")
        return outcome
    items, outcome.skipped = validate_payload(args)
    if outcome.skipped:
        log.warning("capture_concepts: skipped %s", "; ".join(outcome.skipped))
    if not items:
        return outcome
    pending = items
    if store is not None:
        try:
            pending = apply_concepts(CanonicalConceptResolver(store), items, outcome, store, queue)
        except Exception as exc:  # a graph bug must not take the answer down
            log.exception("concept capture failed")
            outcome.errors.append(f"{exc.__class__.__name__}: {str(exc)[:200]}")
            pending = items
    if pending and queue is not None:
        try:
            queue.enqueue(CAPTURE_JOB, "|".join(sorted(i.pref_label for i in pending))[:380],
                          {"concepts": [i.to_payload() for i in pending]}, max_attempts=50)
            outcome.queued = True
        except Exception as exc:
            outcome.errors.append(f"could not queue concepts: {exc.__class__.__name__}")
    return outcome


def capture_job_handler(store: GraphStore, queue: Any = None):
    """Worker handler: apply concepts queued while the graph was down (raises while it is still down, so the
    job is retried with backoff)."""
    def handle(payload: dict[str, Any]) -> dict[str, Any]:
        items, skipped = validate_payload(payload)
        outcome = ConceptOutcome(skipped=skipped)
        pending = apply_concepts(CanonicalConceptResolver(store), items, outcome, store, queue)
        if pending:
            raise GraphUnavailable("graph still unavailable")
        return {"resolved": len(outcome.referenced), "errors": outcome.errors}
    return handle
