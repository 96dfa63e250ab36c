"""Curator feedback as commands (offline mode; an LLM reads free text instead).

One command per line or sentence (also separated by ";"), numbers are the report's concept numbers:
  merge 2 and 5        split 3           drop 4           rename 2 to Controller
  relate 1 PART_OF 6   relate 1 SPECIFIC_OF "Personal data" (an existing concept, by its label)
  unrelate 1 6         quote q7 supports 1                 quote q7 supports "Personal data"
Spanish verbs work too (fusiona, divide, elimina, renombra, relaciona). What is not understood is returned as
unresolved feedback, shown to the curator; nothing is guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from regintel.errors import FeedbackProblem
from regintel.extraction import rules
from regintel.extraction.critique import drop_concept, merge_into
from regintel.extraction.proposal import RELATION_DESCRIPTIONS, ExistingAttribution, Proposal, Quote, Relation
from regintel.text.normalise import fold_for_comparison
from regintel.text.sentences import split_sentences

REF = r"(\d+|\"[^\"]+\"|“[^”]+”|'[^']+')"
COMMANDS = [
    ("merge", re.compile(r"^(?:merge|fusiona(?:r)?|une)\s+((?:\d+\s*(?:,|and|y|et|&|with|con)?\s*)+)$", re.I)),
    ("split", re.compile(r"^(?:split|divide|separa)\s+(\d+)$", re.I)),
    ("drop", re.compile(r"^(?:drop|remove|delete|elimina|borra)\s+(\d+)$", re.I)),
    ("rename", re.compile(r"^(?:rename|renombra)\s+(\d+)\s+(?:to|as|a|como)\s+(.+)$", re.I)),
    ("relate", re.compile(rf"^(?:relate|relaciona)\s+{REF}\s+([a-z_ ]+?)\s+{REF}$", re.I)),
    ("unrelate", re.compile(rf"^(?:unrelate|desrelaciona)\s+{REF}\s+(?:and\s+|y\s+)?{REF}$", re.I)),
    ("quote", re.compile(rf"^(?:quote|cita)\s+(q\d+)\s+(?:supports|apoya|soporta)\s+{REF}$", re.I)),
]


@dataclass
class FeedbackOutcome:
    proposal: Proposal
    interpretation: list[str] = field(default_factory=list)
    unresolved: list[str] = field(default_factory=list)


def split_commands(text: str) -> list[str]:
    parts = re.split(r"[\n;]+|(?<=[a-z0-9\"”'])\.\s+", text or "")
    return [p.strip().rstrip(".").strip() for p in parts if p.strip().rstrip(".").strip()]


def apply_feedback(proposal: Proposal, text: str, quotes: list[Quote], existing: dict[str, str],
                   content_language: str = "") -> FeedbackOutcome:
    """existing: existing concept key -> title (for relations and attributions to existing concepts)."""
    outcome = FeedbackOutcome(proposal.model_copy(deep=True))
    numbered = list(outcome.proposal.concepts)  # numbers refer to the revision the curator read
    for command in split_commands(text):
        for name, pattern in COMMANDS:
            match = pattern.match(command)
            if match:
                try:
                    message = HANDLERS[name](outcome.proposal, numbered, match, quotes, existing, content_language)
                    outcome.interpretation.append(message)
                except FeedbackProblem as problem:
                    outcome.unresolved.append(f"{command}: {problem}")
                break
        else:
            outcome.unresolved.append(f"{command}: not a command I understand (see the list of commands).")
    return outcome




def _number(numbered, value: str):
    n = int(value)
    if not 1 <= n <= len(numbered):
        raise FeedbackProblem(f"there is no concept {n} (1 to {len(numbered)}).")
    return numbered[n - 1]


def _resolve(proposal: Proposal, numbered, value: str, existing: dict[str, str]) -> tuple[str, str]:
    """A reference -> (id or key, title)."""
    if value.isdigit():
        concept = _number(numbered, value)
        if proposal.concept(concept.id) is None:
            raise FeedbackProblem(f"concept {value} was removed by an earlier command.")
        return concept.id, concept.title
    label = fold_for_comparison(value.strip("\"“”'"))
    for c in proposal.concepts:
        if fold_for_comparison(c.title) == label:
            return c.id, c.title
    for key, title in existing.items():
        if fold_for_comparison(title) == label:
            return key, title
    raise FeedbackProblem(f"no concept is labelled {value}.")


def _merge(proposal, numbered, match, quotes, existing, language) -> str:
    numbers = [int(n) for n in re.findall(r"\d+", match.group(1))]
    if len(set(numbers)) < 2:
        raise FeedbackProblem("name at least two concepts to merge.")
    concepts = [_number(numbered, str(n)) for n in numbers]
    keep = concepts[0]
    for other in concepts[1:]:
        merge_into(proposal, keep.id, other.id)
    return f"Merged concepts {', '.join(map(str, numbers))} into '{keep.title}'."


def _split(proposal, numbered, match, quotes, existing, language) -> str:
    concept = _number(numbered, match.group(1))
    current = proposal.concept(concept.id)
    if current is None:
        raise FeedbackProblem("that concept was removed by an earlier command.")
    spans = rules.definition_spans(current.concept, rules.definition_languages(language or "en"))
    if len(spans) > 1:
        parts = [(rules.title_case(term), current.concept[s:e].strip().rstrip(";,")) for term, s, e in spans]
    else:
        sentences = [s.text for s in split_sentences(current.concept)]
        if len(sentences) < 2:
            sentences = [p.strip() for p in current.concept.split(";") if p.strip()]
        if len(sentences) < 2:
            raise FeedbackProblem(f"concept {match.group(1)} states one idea in one sentence; there is nothing to split.")
        parts = [(f"{current.title} ({i})", s) for i, s in enumerate(sentences, 1)]
    index = proposal.concepts.index(current)
    replacements = []
    for i, (title, body) in enumerate(parts):
        new_id = current.id if i == 0 else proposal.next_concept_id({c.id for c in replacements})
        replacements.append(current.model_copy(update={
            "id": new_id, "title": title[:200], "concept": body, "short_summary": rules.summarise(body, 30),
            "summary": rules.summarise(body, 100), "rationale": f"Split from '{current.title}' by the curator."}))
    proposal.concepts[index:index + 1] = replacements
    return f"Split concept {match.group(1)} into {len(replacements)}: " + ", ".join(f"'{c.title}'" for c in replacements) + "."


def _drop(proposal, numbered, match, quotes, existing, language) -> str:
    concept = _number(numbered, match.group(1))
    current = proposal.concept(concept.id)
    if current is None:
        raise FeedbackProblem("that concept was already removed.")
    drop_concept(proposal, current, "Its concept was dropped by the curator.")
    return f"Dropped concept {match.group(1)} ('{current.title}')."


def _rename(proposal, numbered, match, quotes, existing, language) -> str:
    concept = _number(numbered, match.group(1))
    current = proposal.concept(concept.id)
    title = match.group(2).strip().strip("\"“”'")[:200]
    if current is None or not title:
        raise FeedbackProblem("nothing to rename.")
    old, current.title = current.title, title
    return f"Renamed concept {match.group(1)} from '{old}' to '{title}'."


def _relation_type(text: str) -> str:
    name = re.sub(r"[\s\-]+", "_", text.strip()).upper()
    if name not in RELATION_DESCRIPTIONS:
        raise FeedbackProblem(f"'{text}' is not a relation type ({', '.join(RELATION_DESCRIPTIONS)}).")
    return name


def _relate(proposal, numbered, match, quotes, existing, language) -> str:
    source, source_title = _resolve(proposal, numbered, match.group(1), existing)
    rel_type = _relation_type(match.group(2))
    target, target_title = _resolve(proposal, numbered, match.group(3), existing)
    if source == target:
        raise FeedbackProblem("a concept cannot be related to itself.")
    if not proposal.is_new(source) and not proposal.is_new(target):
        raise FeedbackProblem("relations between existing concepts cannot be changed here.")
    proposal.relations = [r for r in proposal.relations if {r.source, r.target} != {source, target}]
    proposal.relations.append(Relation(source=source, type=rel_type, target=target, confidence=1.0,  # type: ignore[arg-type]
                                       explanation="Added by the curator."))
    return f"Related '{source_title}' {rel_type} '{target_title}'."


def _unrelate(proposal, numbered, match, quotes, existing, language) -> str:
    a, a_title = _resolve(proposal, numbered, match.group(1), existing)
    b, b_title = _resolve(proposal, numbered, match.group(2), existing)
    before = len(proposal.relations)
    proposal.relations = [r for r in proposal.relations if {r.source, r.target} != {a, b}]
    if len(proposal.relations) == before:
        raise FeedbackProblem(f"'{a_title}' and '{b_title}' are not related.")
    return f"Removed the relation between '{a_title}' and '{b_title}'."


def _quote(proposal, numbered, match, quotes, existing, language) -> str:
    quote_id = match.group(1).lower()
    if quote_id not in {q.id for q in quotes}:
        raise FeedbackProblem(f"there is no quote {quote_id}.")
    target, title = _resolve(proposal, numbered, match.group(2), existing)
    concept = proposal.concept(target)
    if concept is not None:
        if quote_id not in concept.source_quote_ids:
            concept.source_quote_ids.append(quote_id)
    else:
        attribution = next((e for e in proposal.existing if e.key == target), None)
        if attribution is None:
            attribution = ExistingAttribution(key=target, title=title, reasoning="Attributed by the curator.")
            proposal.existing.append(attribution)
        if quote_id not in attribution.quote_ids:
            attribution.quote_ids.append(quote_id)
    proposal.unattributed.pop(quote_id, None)
    return f"Quote {quote_id} now supports '{title}'."


HANDLERS = {"merge": _merge, "split": _split, "drop": _drop, "rename": _rename, "relate": _relate,
            "unrelate": _unrelate, "quote": _quote}
