"""Step 1.2 self-critique as rule checks, and step 1.3 refinement of what the rules can fix.

The checks are the seed's checklist: atomicity (one definition, enough words), distinctness (no two new concepts
with the same label, none equal to an existing label), quote coverage (every quote attributed or explained),
relation accuracy (known endpoints, never existing-to-existing, no self loops, no contradictions), language
(concepts in the configured language) and edge cases (unattributed quotes explained, disconnected concepts
noted). An LLM critique is merged with these, so structural errors are always caught.
"""

from __future__ import annotations

from regintel.extraction import rules
from regintel.extraction.proposal import (
    CHECKS, CheckResult, Critique, ExistingAttribution, Issue, NewConcept, Proposal, Quote, Relation,
)
from regintel.text.analysis import detect_language
from regintel.text.normalise import fold_for_comparison

DETECTABLE_LANGUAGES = {"en", "fr", "es"}
CONTRADICTIONS = {("GENERALIZES", "SPECIFIC_OF"), ("PART_OF", "HAS_PART"), ("SUPPORTS", "SUPPORTED_BY")}


def check(proposal: Proposal, quotes: list[Quote], existing_keys: set[str], existing_labels: dict[str, str],
          language: str, content_language: str = "") -> Critique:
    """existing_labels: folded label -> existing concept key."""
    checks = {name: CheckResult() for name in CHECKS}
    suggestions: list[str] = []
    quote_ids = {q.id for q in quotes}

    for n, concept in enumerate(proposal.concepts, 1):
        definitions = rules.definition_spans(concept.concept, rules.definition_languages(content_language or "en"))
        if len(definitions) > 1:
            _fail(checks, "atomicity", concept.id, f"Concept {n} holds {len(definitions)} definitions.", "high")
            suggestions.append(f"split {n}")
        if len(rules.words(concept.concept)) < rules.MIN_CONCEPT_WORDS:
            _fail(checks, "atomicity", concept.id, f"Concept {n} is too short to stand on its own.", "high")
        if not concept.title.strip():
            _fail(checks, "atomicity", concept.id, f"Concept {n} has no title.", "high")

    seen: dict[str, int] = {}
    for n, concept in enumerate(proposal.concepts, 1):
        folded = fold_for_comparison(concept.title)
        if folded in seen:
            _fail(checks, "distinctness", concept.id, f"Concepts {seen[folded]} and {n} have the same label.", "high")
            suggestions.append(f"merge {seen[folded]} and {n}")
        seen.setdefault(folded, n)
        if folded in existing_labels:
            _fail(checks, "distinctness", concept.id,
                  f"Concept {n} has the label of the existing concept {existing_labels[folded]}.", "high")

    attributed = proposal.attributions()
    for quote_id in sorted(set(attributed) - quote_ids):
        _fail(checks, "quote_coverage", quote_id, f"Quote {quote_id} does not exist in this content.", "high")
    for quote in quotes:
        if quote.id not in attributed and quote.id not in proposal.unattributed:
            _fail(checks, "quote_coverage", quote.id, f"Quote {quote.id} is neither attributed nor explained.", "medium")
    for n, concept in enumerate(proposal.concepts, 1):
        if not concept.source_quote_ids:
            _fail(checks, "quote_coverage", concept.id, f"Concept {n} has no source quote.", "medium")

    refs = {c.id for c in proposal.concepts} | existing_keys
    seen_pairs: set[tuple[str, str, str]] = set()
    for relation in proposal.relations:
        label = f"{relation.source} {relation.type} {relation.target}"
        if relation.source not in refs or relation.target not in refs:
            _fail(checks, "relation_accuracy", label, f"Relation {label} names an unknown concept.", "high")
        elif relation.source == relation.target:
            _fail(checks, "relation_accuracy", label, f"Relation {label} relates a concept to itself.", "high")
        elif not proposal.is_new(relation.source) and not proposal.is_new(relation.target):
            _fail(checks, "relation_accuracy", label, "Relations between existing concepts cannot be changed.", "high")
        for a, b in CONTRADICTIONS:
            if relation.type in (a, b):
                other = b if relation.type == a else a
                if (relation.source, other, relation.target) in seen_pairs:
                    _fail(checks, "relation_accuracy", label, f"Relation {label} contradicts {other}.", "high")
        seen_pairs.add((relation.source, relation.type, relation.target))

    if language in DETECTABLE_LANGUAGES:
        for n, concept in enumerate(proposal.concepts, 1):
            found = detect_language(f"{concept.title}. {concept.concept}")
            if found != language:
                _fail(checks, "language", concept.id, f"Concept {n} is in '{found}', not '{language}'.", "medium")

    for quote_id, reason in proposal.unattributed.items():
        if not reason.strip():
            _fail(checks, "edge_cases", quote_id, f"Unattributed quote {quote_id} has no explanation.", "medium")
    for concept_id in proposal.disconnected():
        checks["edge_cases"].issues.append(Issue(subject=concept_id, severity="low",
                                                 issue=f"Concept {proposal.number_of(concept_id)} has no relation (noted)."))
    return Critique.from_checks(checks, suggestions)


def _fail(checks: dict[str, CheckResult], name: str, subject: str, issue: str, severity: str) -> None:
    checks[name].passes = False
    checks[name].issues.append(Issue(subject=subject, issue=issue, severity=severity))  # type: ignore[arg-type]


def merge_critiques(*critiques: Critique) -> Critique:
    """One checklist from several critics: a check fails when any critic fails it."""
    merged = {name: CheckResult() for name in CHECKS}
    suggestions: list[str] = []
    for critique in critiques:
        for name, result in critique.checks.items():
            target = merged.setdefault(name, CheckResult())
            target.passes = target.passes and result.passes
            target.issues.extend(result.issues)
        suggestions += [s for s in critique.suggestions if s not in suggestions]
    return Critique.from_checks(merged, suggestions)


def refine(proposal: Proposal, critique: Critique, quotes: list[Quote], existing_labels: dict[str, str],
           content_language: str = "") -> tuple[Proposal, list[str]]:
    """Fix what rules can fix; returns the new proposal and the changes made (empty: nothing left to fix)."""
    result = proposal.model_copy(deep=True)
    changes: list[str] = []
    languages = rules.definition_languages(content_language or "en")
    quote_ids = {q.id for q in quotes}

    # atomicity: one concept per definition
    split: list[NewConcept] = []
    for concept in result.concepts:
        spans = rules.definition_spans(concept.concept, languages)
        if len(spans) <= 1:
            split.append(concept)
            continue
        for i, (term, start, end) in enumerate(spans):
            body = concept.concept[start:end].strip().rstrip(";,").strip()
            new_id = concept.id if i == 0 else result.next_concept_id({c.id for c in split})
            split.append(concept.model_copy(update={"id": new_id, "title": rules.title_case(term), "concept": body,
                                                    "short_summary": rules.summarise(body, 30),
                                                    "summary": rules.summarise(body, 100)}))
        changes.append(f"Split '{concept.title}' into {len(spans)} concepts (one definition each).")
    result.concepts = split

    # too short: fall back to the source quote's wording, else drop
    kept, dropped = [], []
    for concept in result.concepts:
        if len(rules.words(concept.concept)) >= rules.MIN_CONCEPT_WORDS:
            kept.append(concept)
            continue
        source = next((rules.clean_quote(q.text) for q in quotes if q.id in concept.source_quote_ids
                       and len(rules.words(q.text)) >= rules.MIN_CONCEPT_WORDS), "")
        if source:
            kept.append(concept.model_copy(update={"concept": source}))
            changes.append(f"Gave '{concept.title}' the full wording of its source quote.")
        else:
            dropped.append(concept)
            changes.append(f"Dropped '{concept.title}' (too short, no quote to complete it).")
    result.concepts = kept
    for concept in dropped:
        drop_concept(result, concept, "Its only concept was too short to stand alone.")

    # distinctness: same label twice -> merge; label of an existing concept -> attribute to it
    by_label: dict[str, NewConcept] = {}
    for concept in list(result.concepts):
        folded = fold_for_comparison(concept.title)
        if folded in existing_labels:
            _to_existing(result, concept, existing_labels[folded])
            changes.append(f"'{concept.title}' is the existing concept {existing_labels[folded]}: quotes moved to it.")
        elif folded in by_label:
            merge_into(result, by_label[folded].id, concept.id)
            changes.append(f"Merged the two concepts labelled '{concept.title}'.")
        else:
            by_label[folded] = concept

    # quote coverage
    for concept in result.concepts:
        unknown = [q for q in concept.source_quote_ids if q not in quote_ids]
        if unknown:
            concept.source_quote_ids = [q for q in concept.source_quote_ids if q in quote_ids]
            changes.append(f"Removed unknown quotes {', '.join(unknown)} from '{concept.title}'.")
    attributed = result.attributions()
    for quote in quotes:
        if quote.id not in attributed and quote.id not in result.unattributed:
            result.unattributed[quote.id] = "No concept found for this quote."
            changes.append(f"Explained why quote {quote.id} supports no concept.")
    attributed = result.attributions()
    for quote_id in [q for q in result.unattributed if q in attributed]:
        del result.unattributed[quote_id]

    # relation accuracy
    before = len(result.relations)
    result.relations = valid_relations(result, set(existing_labels.values()))
    if len(result.relations) != before:
        changes.append(f"Removed {before - len(result.relations)} invalid relation(s).")
    return result, changes


def valid_relations(proposal: Proposal, existing_keys: set[str]) -> list[Relation]:
    refs = {c.id for c in proposal.concepts} | existing_keys
    kept: list[Relation] = []
    seen: set[tuple[str, str, str]] = set()
    for r in proposal.relations:
        if r.source not in refs or r.target not in refs or r.source == r.target:
            continue
        if not proposal.is_new(r.source) and not proposal.is_new(r.target):
            continue
        if (r.source, r.type, r.target) in seen:
            continue
        seen.add((r.source, r.type, r.target))
        kept.append(r)
    return kept


def merge_into(proposal: Proposal, keep_id: str, gone_id: str) -> None:
    """Fold concept ``gone_id`` into ``keep_id``: quotes united, relations re-pointed, self loops dropped."""
    keep, gone = proposal.concept(keep_id), proposal.concept(gone_id)
    if keep is None or gone is None or keep_id == gone_id:
        return
    keep.source_quote_ids = list(dict.fromkeys(keep.source_quote_ids + gone.source_quote_ids))
    if fold_for_comparison(gone.concept) not in fold_for_comparison(keep.concept):
        keep.concept = f"{keep.concept} {gone.concept}".strip()
        keep.summary = rules.summarise(keep.concept, 100)
    proposal.concepts = [c for c in proposal.concepts if c.id != gone_id]
    for r in proposal.relations:
        r.source = keep_id if r.source == gone_id else r.source
        r.target = keep_id if r.target == gone_id else r.target
    proposal.relations = [r for r in proposal.relations if r.source != r.target]


def drop_concept(proposal: Proposal, concept: NewConcept, reason: str) -> None:
    """Remove a new concept, its relations, and explain the quotes it leaves without any concept."""
    proposal.concepts = [c for c in proposal.concepts if c.id != concept.id]
    proposal.relations = [r for r in proposal.relations if concept.id not in (r.source, r.target)]
    still = proposal.attributions()
    for quote_id in concept.source_quote_ids:
        if quote_id not in still:
            proposal.unattributed[quote_id] = reason


def _to_existing(proposal: Proposal, concept: NewConcept, existing_key: str) -> None:
    target = next((e for e in proposal.existing if e.key == existing_key), None)
    if target is None:
        target = ExistingAttribution(key=existing_key, title=concept.title, reasoning="Same label as a new concept.")
        proposal.existing.append(target)
    target.quote_ids = list(dict.fromkeys(target.quote_ids + concept.source_quote_ids))
    proposal.concepts = [c for c in proposal.concepts if c.id != concept.id]
    proposal.relations = [r for r in proposal.relations if concept.id not in (r.source, r.target)]
