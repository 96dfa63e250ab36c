"""What role a unit plays in its act, and the order that follows from it among a search's hits.

Two kinds of units are not the text that answers a question, although their words match many:
- **Application requirements** explain how to apply a requirement of the main text: ESRS "Appendix A: Application
  Requirements › Disclosure Requirement E1-6 – ..." applies "ESRS E1 › Disclosure Requirement E1-6 – ...". Both
  share the requirement's code, and the appendix repeats the requirement's words with more detail, so it often
  outranks the requirement it applies ("Which greenhouse gas emission figures have to be reported under E1-6?" put
  the calculation guidance first). When both are among the hits, the requirement is placed right before the first
  of its application requirements (:func:`requirements_before_their_application`); both stay in the context.
- **Navigational units** list other units' names or expand abbreviations (a table of contents, "ANNEX II ›
  Acronyms and Abbreviations"): they hold no provision, but every heading word or acronym of a question is in
  them, and a follow-up on "emissions from the electricity we buy" quoted a footnote of the acronym table. They
  are kept among the hits (an acronym question may still read them), after every other unit.
"""

from __future__ import annotations

import re
from typing import Mapping, Sequence

from regintel.retrieval.chunking import Chunk

# "Disclosure Requirement E1-6", "Disclosure Requirements E1-3", "Disclosure Requirement GOV-3": the code of a
# requirement; "Disclosure Requirement related to ESRS 2 SBM-3" is each topical standard's own text on ESRS 2's
# requirement, so its code names no unit of its own
REQUIREMENT_CODE_RE = re.compile(
    r"\bDisclosure Requirements?\s+(?!related\b)(?P<code>[A-Z]{1,3}\d?\s?[-–]\s?\d{1,2})\b", re.IGNORECASE)
APPLICATION_RE = re.compile(r"\bAppendix A\b|\bApplication Requirements?\b", re.IGNORECASE)
NAVIGATIONAL_TITLE_RE = re.compile(
    r"^(?:table of contents|contents|table des matières|sommaire|índice|inhaltsverzeichnis|"
    r"(?:list of )?(?:abbreviations|acronyms)(?: and (?:abbreviations|acronyms))?|abréviations|sigles|"
    r"abreviaturas|siglas|abkürzungen|abkürzungsverzeichnis)$", re.IGNORECASE)


def requirement_code(chunk: Chunk) -> str | None:
    """The code of the requirement a unit states or applies ("E1-6", "GOV-3"), read from its own heading level."""
    match = REQUIREMENT_CODE_RE.search(_own_title(chunk))
    if match is None:
        return None
    return re.sub(r"\s", "", match.group("code")).replace("–", "-").upper()


def applies_a_requirement(chunk: Chunk) -> bool:
    """Whether the unit sits in an application-requirements appendix."""
    return bool(APPLICATION_RE.search(f"{chunk.section_path} › {chunk.ref}"))


def is_navigational(chunk: Chunk) -> bool:
    """A table of contents or a list of abbreviations: every title the unit is made of is one."""
    titles = [label.split("›")[-1].strip() for label in (chunk.heading or chunk.ref).split("; ")]
    return bool(titles) and all(NAVIGATIONAL_TITLE_RE.match(title) for title in titles)


def requirements_before_their_application(ranked: Sequence[tuple[str, float]],
                                          chunks: Mapping[str, Chunk]) -> list[tuple[str, float]]:
    """``ranked`` (chunk id, score) with each requirement that ranks below one of its application requirements
    moved right before the first of them (its best-ranked passage; the others keep their places)."""
    order = list(ranked)
    position = 0
    while position < len(order):
        chunk = chunks.get(order[position][0])
        code = requirement_code(chunk) if chunk is not None and applies_a_requirement(chunk) else None
        if code:
            partner = next((later for later in range(position + 1, len(order))
                            if _states(chunks.get(order[later][0]), chunk.document_id, code)), None)
            if partner is not None:
                order.insert(position, order.pop(partner))
                position += 1
        position += 1
    return order


def navigational_last(ranked: Sequence[tuple[str, float]], chunks: Mapping[str, Chunk]) -> list[tuple[str, float]]:
    """``ranked`` with the navigational units moved after all the others (each group keeps its order)."""
    navigational = [item for item in ranked if item[0] in chunks and is_navigational(chunks[item[0]])]
    if not navigational:
        return list(ranked)
    moved = {chunk_id for chunk_id, _ in navigational}
    return [item for item in ranked if item[0] not in moved] + navigational


def by_unit_role(ranked: Sequence[tuple[str, float]], chunks: Mapping[str, Chunk]) -> list[tuple[str, float]]:
    """Both orderings of this module, in turn."""
    return navigational_last(requirements_before_their_application(ranked, chunks), chunks)


def _states(chunk: Chunk | None, document_id: str, code: str) -> bool:
    """Whether ``chunk`` is the main-text unit of the requirement ``code`` in document ``document_id``."""
    return (chunk is not None and chunk.document_id == document_id and not applies_a_requirement(chunk)
            and requirement_code(chunk) == code)


def _own_title(chunk: Chunk) -> str:
    """The unit's own heading level (the last of its reference's levels when it has no heading)."""
    return (chunk.heading or chunk.ref.split("›")[-1]).strip()
