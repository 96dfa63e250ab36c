"""The curator's report of a proposal (seed step 2.1) and the difference between two revisions, as plain rows.

The Review page renders these rows; keeping them here makes them testable without Streamlit.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from regintel.extraction.proposal import Proposal, Quote


@dataclass
class Report:
    concepts: list[dict] = field(default_factory=list)
    relations: list[dict] = field(default_factory=list)
    attributions: list[dict] = field(default_factory=list)
    unattributed: list[dict] = field(default_factory=list)
    disconnected: list[str] = field(default_factory=list)
    existing: list[dict] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def build_report(proposal: Proposal, quotes: list[Quote], existing_titles: dict[str, str]) -> Report:
    quote_text = {q.id: q.text for q in quotes}
    number = {c.id: i for i, c in enumerate(proposal.concepts, 1)}

    def name(ref: str) -> str:
        concept = proposal.concept(ref)
        return f"{number[ref]}. {concept.title}" if concept else f"{existing_titles.get(ref, ref)} (existing)"

    report = Report(warnings=list(proposal.warnings))
    for concept in proposal.concepts:
        report.concepts.append({"#": number[concept.id], "title": concept.title, "concept": concept.concept,
                                "rationale": concept.rationale, "analysis": concept.analysis,
                                "quotes": ", ".join(concept.source_quote_ids),
                                "quote_texts": [(q, quote_text.get(q, "")) for q in concept.source_quote_ids]})
    for r in proposal.relations:
        direction = ("new → new" if proposal.is_new(r.source) and proposal.is_new(r.target)
                     else "new → existing" if proposal.is_new(r.source) else "existing → new")
        report.relations.append({"source": name(r.source), "type": r.type, "target": name(r.target),
                                 "direction": direction, "explanation": r.explanation, "confidence": r.confidence})
    for e in proposal.existing:
        report.existing.append({"existing concept": existing_titles.get(e.key, e.title), "quotes": ", ".join(e.quote_ids),
                                "duplicate of candidate": e.duplicate_of, "reasoning": e.reasoning})
    attributed = proposal.attributions()
    for quote in quotes:
        refs = attributed.get(quote.id, [])
        if refs:
            report.attributions.append({"quote": quote.id, "text": quote.text[:300], "supports": "; ".join(name(r) for r in refs),
                                        "multi-concept": len(refs) > 1})
    for quote_id, reason in proposal.unattributed.items():
        report.unattributed.append({"quote": quote_id, "text": quote_text.get(quote_id, "")[:300], "why": reason})
    report.disconnected = [name(ref) for ref in proposal.disconnected()]
    return report


def diff_revisions(before: Proposal, after: Proposal) -> list[str]:
    """What changed from one revision to the next, one line per change (+ added, - removed, ~ changed)."""
    lines: list[str] = []
    old = {c.id: c for c in before.concepts}
    new = {c.id: c for c in after.concepts}
    for cid, concept in new.items():
        if cid not in old:
            lines.append(f"+ concept '{concept.title}'")
            continue
        previous = old[cid]
        for attr in ("title", "concept", "source_quote_ids"):
            if getattr(previous, attr) != getattr(concept, attr):
                lines.append(f"~ '{previous.title}': {attr.replace('_', ' ')} {getattr(previous, attr)!r} → {getattr(concept, attr)!r}")
    lines += [f"- concept '{c.title}'" for cid, c in old.items() if cid not in new]

    def rel_names(p: Proposal) -> set[tuple[str, str, str]]:
        titles = {c.id: c.title for c in p.concepts}
        return {(titles.get(r.source, r.source), r.type, titles.get(r.target, r.target)) for r in p.relations}

    before_rel, after_rel = rel_names(before), rel_names(after)
    lines += [f"+ relation {a} {t} {b}" for a, t, b in sorted(after_rel - before_rel)]
    lines += [f"- relation {a} {t} {b}" for a, t, b in sorted(before_rel - after_rel)]
    before_ex = {(e.key, q) for e in before.existing for q in e.quote_ids}
    after_ex = {(e.key, q) for e in after.existing for q in e.quote_ids}
    lines += [f"+ quote {q} supports existing {k}" for k, q in sorted(after_ex - before_ex)]
    lines += [f"- quote {q} supports existing {k}" for k, q in sorted(before_ex - after_ex)]
    lines += [f"+ unattributed {q}" for q in sorted(set(after.unattributed) - set(before.unattributed))]
    lines += [f"- unattributed {q}" for q in sorted(set(before.unattributed) - set(after.unattributed))]
    return lines
