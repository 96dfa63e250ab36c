"""Pure helpers of the Chat page: chip labels, badge colours, Graph Explorer links (tested without a browser).

Everything shown comes from the corpus, the model or the user, so every label and answer goes through the one
rendering rule of regintel/ui/untrusted.py (no link, image, emphasis or HTML through a title, label or answer).
"""

from __future__ import annotations

import re
from urllib.parse import quote

from regintel.chat.citation_numbers import unit_ref
from regintel.chat.evidence import EXPLANATIONS
from regintel.chat.response import ChatResponse, CitedSource
from regintel.ui.untrusted import markdown_answer, markdown_label

MODE_COLOURS = {"DIRECT": "green", "QUALIFIED": "orange", "ABSTAIN": "red"}
LEVEL_COLOURS = {"high": "green", "medium": "orange", "low": "red"}
AUTHORITY_NAMES = {"eu_law": "EU law", "national_law": "national law", "regulator_guidance": "regulator guidance",
                   "industry": "industry", "guidance": "guidance"}
# the page's historical names for the one rendering rule of regintel/ui/untrusted.py
escape_markdown = markdown_label
answer_markdown = markdown_answer


def short_ref(ref: str) -> str:
    return re.sub(r"^Article\s+", "Art. ", unit_ref(ref))[:40]


def chip_label(source: CitedSource) -> str:
    """"[3] GDPR · Art. 33 · p. 52 · EU law · v2016": number, short title, article, page (PDF sources), authority
    badge, version when the registry has one, and a warning sign on a deprecated/expired/removed source (escaped)."""
    title = source.title if len(source.title) <= 28 else source.title[:27] + "…"
    authority = AUTHORITY_NAMES.get(source.authority_level, source.authority_level)
    parts = [f"[{source.index}] {title}", short_ref(source.ref)]
    if source.page:
        parts.append(f"p. {source.page}")
    parts.append(authority)
    if source.version and len(source.version) <= 24:  # a long version line is in the popover only
        parts.append(source.version)
    label = " · ".join(parts)
    if source.removed:
        label = "⚠ " + label + " · source removed"
    elif source.deprecated or source.currency_warning:
        label = "⚠ " + label
    return escape_markdown(label)


def currency_line(source: CitedSource) -> str:
    """The chip popover's currency line: version, last verified date, and the warning when there is one."""
    parts = []
    if source.version:
        parts.append(f"version {source.version}")
    if source.last_verified:
        parts.append(f"last verified {source.last_verified}")
    if source.removed:
        parts.append("this source has been removed from the corpus: the text below is the passage as it was cited")
    elif source.currency_warning:
        parts.append(source.currency_warning)
    elif source.deprecated:
        parts.append("this source is marked deprecated")
    return " · ".join(parts)


def explorer_query(key: str) -> dict[str, str]:
    return {"focus": key}


def explorer_href(key: str) -> str:
    return "Graph_Explorer?focus=" + quote(key, safe="")


CONCERN_SENTENCES = {  # a concern under an answer that was given (the hard-reason wording says why one is not)
    "INSUFFICIENT_CHUNKS": "fewer than two passages address the question closely",
}


def mode_caption(response: ChatResponse) -> str:
    """One line explaining the grade (shown under the badges)."""
    if response.refused:
        return f"Refused: {response.refusal_reason}."
    if response.status == "failed":
        return "The answer failed part-way and was not saved as a good answer."
    if response.response_mode == "ABSTAIN":
        return f"No answer: {EXPLANATIONS.get(response.abstention_reason or '', 'no passage supports an answer')}."
    verification = response.claim_verification or {}
    line = f"{verification.get('supported', 0)}/{verification.get('claims', 0)} claims supported by their citation"
    unused = len(verification.get("unused_sources", []))
    line += f"; {unused} other passage{'s' if unused != 1 else ''} read, not cited." if unused else "."
    if flagged := len(verification.get("flagged", [])):
        line += f" {flagged} claim{'s' if flagged != 1 else ''} to check below."
    if response.concerns:  # internal codes stay in the trace; the analyst reads why in one plain sentence
        line += " Qualified because " + "; and ".join(CONCERN_SENTENCES.get(c, EXPLANATIONS.get(c, c)) for c in response.concerns) + "."
    return line


CLAIM_PROBLEMS = {  # verification's problem code -> what the analyst reads after the claim
    "no citation": "has no citation",
    "not supported": "is not supported by {cites}",
    "unknown citation": "cites {cites}, which is none of the sources",
}
NOTE_CLAIM_CHARS = 160


def verification_notes(response: ChatResponse) -> list[str]:
    """What claim verification found that the analyst should check (issue 20): each claim without a citation or
    not supported by the one it cites, cited sources of low authority (the passages read but not cited are counted
    in :func:`mode_caption`).
    Plain sentences (rendered through the untrusted-text rule: a claim is model text)."""
    if response.refused or response.response_mode == "ABSTAIN" or response.status == "failed":
        return []
    verification = response.claim_verification or {}
    notes = []
    for flagged in verification.get("flagged", []):
        claim = flagged.get("claim", "")
        claim = claim if len(claim) <= NOTE_CLAIM_CHARS else claim[:NOTE_CLAIM_CHARS - 1] + "…"
        cites = " ".join(f"[{n}]" for n in flagged.get("citations", []))
        problem = CLAIM_PROBLEMS.get(flagged.get("problem", ""), flagged.get("problem", "")).format(cites=cites or "its citation")
        notes.append(f"Check: “{claim}” {problem}.")
    by_number = {s.index: s for s in response.sources}
    for number in verification.get("low_authority_sources", []):
        if source := by_number.get(number):
            authority = AUTHORITY_NAMES.get(source.authority_level, source.authority_level)
            notes.append(f"[{number}] {source.title} is {authority}, of lower authority than the law: read it with the act it applies.")
    return notes
