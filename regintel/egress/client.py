"""EgressClient: every outbound LLM request passes here (docs/architecture.md).

Modes:
- ``enforce``: the request sent is the sanitised one, and a destination the tenant policy does not allow is
  blocked (EgressBlocked).
- ``report-only``: the request sent is still the sanitised one; policy violations and sanitiser changes are
  logged and flagged, never blocked.
- ``off``: the original request is sent. Reachable only when the tenant policy allows it (``allow_off_mode``),
  i.e. through explicit test or benchmark wiring.

The report kept for the trace holds types and counts, never the values found.

The on-machine provider (destination ``local``) is not egress: nothing leaves the machine, so its request is
neither rewritten (placeholders would enter verbatim quotes of public regulation) nor scanned (reading a prompt
of twenty passages costs ~120 ms per turn for a report nobody needs; the question itself is read by the chat
guardrails), and the report says so. Every remote destination gets the sanitised request in enforce and
report-only, and its report lists the types and counts found and what was done, never a value.
"""

from __future__ import annotations

import json
import logging
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Sequence

from regintel.errors import EgressBlocked
from regintel.egress.sanitiser import Placeholders, PII_TYPES, sanitise

log = logging.getLogger(__name__)
MODES = ("enforce", "report-only", "off")
LOCAL_DESTINATIONS = {"local"}




def _sanitise_content(text: str, placeholders: Placeholders, totals: Counter) -> str:
    """A message's content with its personal data replaced. Extraction, critique and feedback requests send JSON:
    its strings are sanitised decoded (a "\\n" escape would hide an e-mail split by a line break from the
    detector) and the JSON is written again."""
    stripped = text.lstrip()
    if stripped[:1] in ("{", "["):
        try:
            data = json.loads(text)
        except ValueError:
            data = None
        if data is not None:
            return json.dumps(_sanitise_json(data, placeholders, totals), ensure_ascii=False)
    result = sanitise(text, placeholders)
    totals.update(result.counts)
    return result.text


def _sanitise_json(value: Any, placeholders: Placeholders, totals: Counter) -> Any:
    if isinstance(value, str):
        result = sanitise(value, placeholders)
        totals.update(result.counts)
        return result.text
    if isinstance(value, dict):
        return {k: _sanitise_json(v, placeholders, totals) for k, v in value.items()}
    if isinstance(value, list):
        return [_sanitise_json(v, placeholders, totals) for v in value]
    return value


@dataclass(frozen=True)
class EgressPolicy:
    """A tenant's egress policy (stored on the tenant row)."""

    egress_mode: str | None = None
    allow_off_mode: bool = False
    allowed_destinations: tuple[str, ...] = ()


def resolve_egress_mode(default: str, policy: EgressPolicy | None = None, override: str | None = None) -> str:
    """Effective mode of one call: tenant mode over the global default, a per-call override on top; ``off`` only
    where the tenant allows it (otherwise the call falls back to enforce, safe by default)."""
    policy = policy or EgressPolicy()
    mode = policy.egress_mode or default
    if override:
        if override not in MODES:
            raise ValueError(f"Unknown egress mode '{override}'")
        mode = override
    if mode not in MODES:
        mode = "enforce"
    if mode == "off" and not policy.allow_off_mode:
        log.warning("egress mode 'off' requested but not allowed by the tenant policy: enforcing")
        mode = "enforce"
    return mode


@dataclass
class EgressDecision:
    messages: list[dict[str, Any]]
    mode: str
    destination: str
    allowed: bool
    sanitiser_counts: dict[str, int] = field(default_factory=dict)
    violations: list[str] = field(default_factory=list)
    scanned: bool = True  # False for the on-machine provider: nothing leaves, nothing is read

    def report(self) -> dict[str, Any]:
        """What goes into the trace: mode, destination, decision, and PII types with counts (never values)."""
        if not self.scanned:
            action = "not scanned: nothing leaves this machine"
        elif self.mode == "off":
            action = "sent unchanged (egress guard off)"
        else:
            action = "replaced with placeholders" if self.sanitiser_counts else "none found"
        return {
            "mode": self.mode,
            "destination": self.destination,
            "allowed": self.allowed,
            "sanitised": bool(self.sanitiser_counts) and self.mode != "off",
            "pii_counts": dict(self.sanitiser_counts),
            "pii_total": sum(self.sanitiser_counts.values()),
            "action": action,
            "violations": list(self.violations),
        }


class EgressClient:
    """Prepares what may leave the machine. ``default_allowed`` are hosts allowed when a tenant sets none."""

    def __init__(self, default_mode: str = "enforce", default_allowed: Sequence[str] = ()) -> None:
        if default_mode not in MODES:
            raise ValueError(f"Unknown egress mode '{default_mode}'")
        self.default_mode = default_mode
        self.default_allowed = {h.strip().lower() for h in default_allowed if h.strip()}

    def prepare(
        self,
        messages: Sequence[dict[str, Any]],
        destination: str,
        policy: EgressPolicy | None = None,
        override: str | None = None,
    ) -> EgressDecision:
        mode = resolve_egress_mode(self.default_mode, policy, override)
        destination = (destination or "").lower()
        allowed_hosts = {h.lower() for h in (policy.allowed_destinations if policy and policy.allowed_destinations else self.default_allowed)}
        allowed = destination in LOCAL_DESTINATIONS or destination in allowed_hosts
        if mode == "off":
            return EgressDecision([dict(m) for m in messages], mode, destination, True)
        if destination in LOCAL_DESTINATIONS:  # nothing leaves the machine: not rewritten, not scanned
            return EgressDecision([dict(m) for m in messages], mode, destination, True, scanned=False)
        # One placeholder numbering over the whole request: the history re-sent every turn keeps its placeholders.
        placeholders, totals = Placeholders(), Counter()
        cleaned = [{**m, "content": _sanitise_content(str(m.get("content", "")), placeholders, totals)}
                   for m in messages]
        counts = {t: totals[t] for t in PII_TYPES if totals[t]}
        violations = [] if allowed else [f"destination '{destination}' is not allowed by the egress policy"]
        decision = EgressDecision(cleaned, mode, destination, allowed or mode == "report-only", counts, violations)
        if counts:
            log.info("egress sanitiser replaced %s", ", ".join(f"{k}×{v}" for k, v in sorted(counts.items())))
        if violations and mode == "report-only":
            log.warning("egress (report-only): %s", violations[0])
        if violations and mode == "enforce":
            raise EgressBlocked(f"Blocked by the egress policy: {violations[0]}.")
        return decision
