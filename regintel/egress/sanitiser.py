"""Personal-data findings and placeholders: what every outbound request and every graph write is checked with.

Detection is the Presidio-based detector (``regintel/egress/detector.py``: EU identifiers with checksums, phones,
e-mails also obfuscated or split, dates of birth in context, addresses, person names). This module adds what its
callers need on top:

- invisible format characters (zero-width, bidi controls, soft hyphen) a value can be split with are read past:
  detection runs on the text without them, findings keep their span in the original text;
- ``sanitise`` replaces each finding with a typed placeholder ("[IBAN_1]"); equal values share one placeholder,
  also across the messages of one request when they share a :class:`Placeholders` (a conversation's history
  is re-sent in order every turn, so a value keeps its placeholder from turn to turn);
- reports hold types and counts, never a value.
"""

from __future__ import annotations

import re
from collections import Counter
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Iterator

from regintel.egress.detector import PII_TYPES, get_detector

_PLACEHOLDER = re.compile(r"\[(" + "|".join(PII_TYPES) + r")_(\d+)\]")
_INVISIBLE = re.compile("[\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")


@dataclass(frozen=True)
class Finding:
    type: str  # one of PII_TYPES
    start: int
    end: int
    text: str  # the matched original text: callers must never log or persist it


@dataclass
class SanitiseResult:
    text: str
    findings: list[Finding]
    counts: dict[str, int]

    @property
    def changed(self) -> bool:
        return bool(self.findings)

    def report(self) -> dict:
        """What may go into traces: counts per type, never a value."""
        return {"changed": self.changed, "counts": dict(self.counts), "total": sum(self.counts.values())}


_REMEMBERED: ContextVar[dict[str, list[Finding]] | None] = ContextVar("remembered_findings", default=None)


@contextmanager
def remembered_findings() -> Iterator[None]:
    """Within the block :func:`find_pii` reads each distinct text once: the guardrail threshold sweep decides the
    same training questions at each of its thresholds (13 detections of each). What is remembered holds the
    findings' values, so it lives only as long as the block (and only in its own context)."""
    token = _REMEMBERED.set({})
    try:
        yield
    finally:
        _REMEMBERED.reset(token)


def find_pii(text: str) -> list[Finding]:
    """All personal-data findings in ``text``, non-overlapping and sorted by start.

    With invisible characters present the text is read twice: without them (a mark may split a value) and as it
    is (a mark may be what separates a value from its neighbour); the second reading adds what it finds where
    the first found nothing."""
    if not text:
        return []
    remembered = _REMEMBERED.get()
    if remembered is None:
        return _detect(text)
    if text not in remembered:
        remembered[text] = _detect(text)
    return list(remembered[text])


def _detect(text: str) -> list[Finding]:
    detector = get_detector()
    plain = [Finding(s.type, s.start, s.end, text[s.start:s.end]) for s in detector.spans(text)]
    if not _INVISIBLE.search(text):
        return plain
    positions = [i for i, ch in enumerate(text) if not _INVISIBLE.match(ch)]
    visible = "".join(text[i] for i in positions)
    findings = []
    for s in detector.spans(visible):
        start, end = positions[s.start], positions[s.end - 1] + 1
        findings.append(Finding(s.type, start, end, text[start:end]))
    findings += [f for f in plain if all(f.end <= o.start or o.end <= f.start for o in findings)]
    return sorted(findings, key=lambda f: f.start)


def contains_pii(text: str) -> bool:
    return bool(find_pii(text))


def _normalise(finding: Finding) -> str:
    """The identity of a value, so "DE89 3704…" and "DE893704…" share a placeholder."""
    value = _INVISIBLE.sub("", finding.text)
    if finding.type in ("EMAIL", "IP_ADDRESS", "PERSON", "ADDRESS"):
        return " ".join(value.lower().split())
    return re.sub(r"[\s.\-()/]", "", value).upper()


@dataclass
class Placeholders:
    """Value -> placeholder for one request (or one conversation): the same value always gets the same one."""

    assigned: dict[tuple[str, str], str] = field(default_factory=dict)
    next_number: Counter = field(default_factory=Counter)

    def reserve(self, text: str) -> None:
        """Numbering continues after placeholders already in the text, so a literal "[EMAIL_1]" stays unambiguous."""
        for m in _PLACEHOLDER.finditer(text):
            self.next_number[m[1]] = max(self.next_number[m[1]], int(m[2]))

    def for_finding(self, finding: Finding) -> str:
        key = (finding.type, _normalise(finding))
        if key not in self.assigned:
            self.next_number[finding.type] += 1
            self.assigned[key] = f"[{finding.type}_{self.next_number[finding.type]}]"
        return self.assigned[key]


def _replace(text: str, findings: list[Finding], placeholders: Placeholders) -> tuple[str, list[tuple[int, int, int]]]:
    """The text with placeholders, and its unchanged segments as (start in output, start in text, length)."""
    parts, kept, position, out = [], [], 0, 0
    for finding in findings:
        kept.append((out, position, finding.start - position))
        placeholder = placeholders.for_finding(finding)
        parts += [text[position:finding.start], placeholder]
        out += finding.start - position + len(placeholder)
        position = finding.end
    kept.append((out, position, len(text) - position))
    parts.append(text[position:])
    return "".join(parts), kept


def sanitise(text: str, placeholders: Placeholders | None = None) -> SanitiseResult:
    """Replace each finding with a typed placeholder; pass one ``placeholders`` to several calls to keep equal
    values under one placeholder across them.

    A placeholder has other neighbours than the value it replaced ("x@y.fr+1000000000" becomes
    "[EMAIL_1]+1000000000", where the phone number is no longer glued to a word), so the output is read again
    until a round finds nothing new (each round adds disjoint spans of ``text``, so this ends; a run of glued
    values can need one round each) and what a later round finds outside the placeholders joins the findings, with
    its span in ``text``: sanitising the output again changes nothing."""
    if placeholders is None:
        placeholders = Placeholders()
        placeholders.reserve(text)
    findings = find_pii(text)
    for _ in range(len(text)):  # a bound never reached: every round that goes on adds a finding
        trial = Placeholders(dict(placeholders.assigned), Counter(placeholders.next_number))
        output, kept = _replace(text, findings, trial)
        more = []
        for f in find_pii(output) if findings else []:
            segment = next(((o, t) for o, t, n in kept if o <= f.start and f.end <= o + n), None)
            if segment is not None:
                start = segment[1] + f.start - segment[0]
                more.append(Finding(f.type, start, start + f.end - f.start, text[start:start + f.end - f.start]))
        if not more:
            break
        findings = sorted(findings + more, key=lambda f: f.start)
    output, _ = _replace(text, findings, placeholders)
    totals = Counter(f.type for f in findings)
    counts = {t: totals[t] for t in PII_TYPES if totals[t]}
    return SanitiseResult(output, findings, counts)


def sanitise_all(texts: list[str]) -> tuple[list[str], dict[str, int]]:
    """Several texts (a request's messages, in order) with one placeholder numbering, and the summed counts.

    Numbering starts at 1 and is not pushed past placeholders already present: those are our own, echoed back by
    the model in earlier answers, and must keep meaning the value they stood for when the history is re-sent."""
    placeholders = Placeholders()
    cleaned, counts = [], Counter()
    for text in texts:
        result = sanitise(text, placeholders)
        cleaned.append(result.text)
        counts.update(result.counts)
    return cleaned, {t: counts[t] for t in PII_TYPES if counts[t]}


def redact(value):
    """``value`` (nested dicts, lists, strings from JSON) with personal data in its strings replaced: for what is
    kept in traces, such as a model's tool-call payloads."""
    placeholders = Placeholders()

    def walk(item):
        if isinstance(item, str):
            return sanitise(item, placeholders).text
        if isinstance(item, dict):
            return {k: walk(v) for k, v in item.items()}
        if isinstance(item, (list, tuple)):
            return [walk(v) for v in item]
        return item

    return walk(value)


__all__ = ["PII_TYPES", "Finding", "Placeholders", "SanitiseResult", "contains_pii", "find_pii", "redact", "sanitise",
           "sanitise_all"]
