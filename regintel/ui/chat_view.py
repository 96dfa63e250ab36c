"""Pure helpers of the Chat page: chip labels, badge colours, Graph Explorer links (tested without a browser).

Everything shown comes from the corpus, the model or the user, so every label and answer goes through the one
rendering rule of regintel/ui/untrusted.py (no link, image, emphasis or HTML through a title, label or answer).
"""

from __future__ import annotations

import re
from urllib.parse import quote

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
    ref = re.sub(r"\s*\(\d+/\d+\)\s*$", "", ref or "")
    return re.sub(r"^Article\s+", "Art. ", ref.split(" › ")[-1])[:40]


def chip_label(source: CitedSource) -> str:
    """"[3] GDPR · Art. 33 · EU law": number, short title, article, authority badge (escaped)."""
    title = source.title if len(source.title) <= 28 else source.title[:27] + "…"
    authority = AUTHORITY_NAMES.get(source.authority_level, source.authority_level)
    return escape_markdown(f"[{source.index}] {title} · {short_ref(source.ref)} · {authority}")


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
    line = f"{verification.get('supported', 0)}/{verification.get('claims', 0)} claims supported by their citation."
    if response.concerns:  # internal codes stay in the trace; the analyst reads why in one plain sentence
        line += " Qualified because " + "; and ".join(CONCERN_SENTENCES.get(c, EXPLANATIONS.get(c, c)) for c in response.concerns) + "."
    return line
