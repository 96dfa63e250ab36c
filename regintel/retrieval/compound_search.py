"""Retrieval for compound questions: each part searched on its own as well as the whole question.

"Which VAT may a taxable person deduct, and what conditions must be met to exercise that right?" and "the difference
between impact materiality and financial materiality" ask about two units of the corpus (two articles, two
sections). Searched as one text, the question's words pull towards whichever unit matches more of them, and the
other unit's passage can fall out of the handful that reach the answer. So each part
(:func:`regintel.text.question_parts.split_question`) is searched too: a unit both the part and the whole question
found moves up to right after the whole question's best hit, and a unit only the part found joins a little lower
(from the documents the whole question's leading hits come from). A part after the first is searched with the
sentences told before the question (the asker's situation), which the first part holds: "what rights must rejected
applicants have?" alone finds the right to rectification, with "We screen applicants with a fully automated tool ..."
the article on automated decisions. A simple question (one part) is searched once, as before.
"""

from __future__ import annotations

from typing import Callable, Sequence

from regintel.retrieval.chunking import is_definition_id
from regintel.retrieval.sources import Source
from regintel.text.analysis import tokenize
from regintel.text.question_parts import comparison_sides, comparison_topic, sentences, side_term, split_question

MAX_PARTS = 3  # a message with more parts is a list of questions better asked one by one: search the whole only
MIN_PART_TERMS = 2  # a part with fewer content words ("and by when?") says nothing to search for on its own
MIN_SIDE_TERMS = 1  # a side of a comparison may be one term ("the difference between a controller and a processor")
# a side naming a term, asked as a definition question (:func:`regintel.text.asked_terms.asked_term` reads its term)
DEFINITION_QUERIES = {"en": "What is {}?", "fr": "Que signifie {} ?", "es": "¿Qué es {}?", "de": "Was ist {}?"}
PART_HITS = 3  # hits searched per part: its best one from a document of the whole question's hits is placed
LEADING_HITS = 3  # a part's hit must come from the document of one of the whole question's first hits
NEW_UNIT_POSITION = 2  # a unit only a part's search found joins after the whole question's first this many hits


def searchable_parts(question: str, language: str) -> list[str]:
    """The parts of a compound question worth a search of their own; empty for a simple question."""
    parts = split_question(question, language)
    if not 2 <= len(parts) <= MAX_PARTS:
        return []
    sides = comparison_sides(question)
    least = MIN_SIDE_TERMS if sides else MIN_PART_TERMS
    searchable = [part for part in parts if len(set(tokenize(part, language))) >= least]
    if sides:
        topic = comparison_topic(question, language)
        return [_side_query(part, language, topic) for part in searchable]
    situation = _situation(question)
    return [part if situation in part else f"{situation} {part}" for part in searchable]


def _side_query(side: str, language: str, topic: str = "") -> str:
    """A side naming a term is searched as what it means (the passage defining it leads that search), unless the
    comparison names the rule it compares the sides on ("how does <the place-of-supply rule> differ between a business
    customer and a private individual?"): the term is then a case of that rule, searched with it. A side saying more
    is searched as it is."""
    term = side_term(side)
    if not term:
        return side
    if topic:
        return f"{topic} {side}"
    return DEFINITION_QUERIES.get(language, DEFINITION_QUERIES["en"]).format(term)


def _situation(question: str) -> str:
    """The sentences told before the first question ("We screen job applicants with a fully automated tool."):
    a later part ("what rights must rejected applicants have?") is searched with them, as the first part is."""
    told = []
    for sentence in sentences(question):
        if sentence.rstrip().endswith("?"):
            break
        told.append(sentence)
    return " ".join(told)


def with_part_hits(whole: Sequence[Source], part_hits: Sequence[Sequence[Source]], unit_of: Callable[[Source], str],
                   k: int, sides: bool = False) -> list[Source]:
    """The whole question's top ``k`` hits, reordered and completed by what each part's own search finds (in part
    order). A part whose hits include a unit the whole question's hits hold *agrees* with that unit: it moves up to
    right after the whole question's best hit (the two articles "what must the processing agreement say, and what must
    we do after a breach?" needs are the ones both searches find, wherever the whole question ranked the second).
    A part agreeing with none brings its best hit in after the whole question's first ``NEW_UNIT_POSITION`` hits: a
    unit only the part's few words found is less sure than one both searches found, and put second it displaced the
    whole question's second article. The whole question's last hits make room. A part's hit counts only from a
    document of the whole question's leading hits: searched alone, a part ("and when must the individuals be
    told?") has lost the words that said which act it is about, and a document that only reached the tail of the
    whole question's hits (an ESRS requirement on "affected communities" under a GDPR breach question) is not the
    act it asks about. The ``sides`` of a comparison are the exception: a side names what it asks about ("a
    climate-related transition risk", searched as its definition), and its best unit, when the whole question's hits
    lack it, joins right after the best hit (measured: put lower, the sides' own entries lost to other requirements)."""
    merged = list(whole[:k])
    documents = {source.document_id for source in merged[:LEADING_HITS]}

    def unit(source: Source) -> str:  # a defined term is a unit of its own: two sides may be defined in one article
        return source.chunk_id if is_definition_id(source.chunk_id) else unit_of(source)

    agreed_at = 1  # where the next agreed unit (or side) goes
    new_at = NEW_UNIT_POSITION  # where the next unit found by a part alone goes
    for hits in part_hits:
        candidates = [hit for hit in hits[:PART_HITS] if hit.document_id in documents]
        if not candidates:
            continue
        held = {unit(source) for source in merged}
        if sides:  # a side of a comparison names what it asks about: its best unit joins right after the best hit
            if unit(candidates[0]) not in held:
                merged.insert(min(agreed_at, len(merged)), candidates[0])
                agreed_at += 1
            continue
        agreeing = next((unit(hit) for hit in candidates if unit(hit) in held), None)
        if agreeing is not None:
            at = next(n for n, source in enumerate(merged) if unit(source) == agreeing)
            if at >= agreed_at:
                merged.insert(agreed_at, merged.pop(at))
                agreed_at += 1
            continue
        merged.insert(min(max(new_at, agreed_at), len(merged)), candidates[0])
        new_at = max(new_at, agreed_at) + 1
    return merged[:k]
