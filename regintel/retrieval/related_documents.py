"""Which documents of a corpus belong together: one cites the other's act number throughout.

The VAT Implementing Regulation cites Directive 2006/112/EC throughout (104 of its 138 passages); a question about one
is often answered by the other (the Directive's exemption of intra-Community supplies, the Regulation's proof that the
goods left). A passing mention is no such bond: DORA names the GDPR in 2 of its 189 passages, and a follow-up on DORA's
register of information ("Who must keep it?") was searched in the GDPR too and answered from its Article 49 (a
"register" of transfers). An act's number is read from its ELI address (".../eli/dir/2006/112/oj" -> "2006/112"); a
document without one (guidance a user brings in) is related to nothing by this rule.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

ELI_NUMBER_RE = re.compile(r"/eli/[a-z_]+/(\d{4})/(\d+)")  # an act's year and number in its ELI address
RELATED_MIN_SHARE = 0.1  # the share of a document's passages citing another act's number that relates the two


def act_number(url: str) -> str | None:
    """"2006/112" for ".../eli/dir/2006/112/oj#art_2"; None for an address that is no ELI."""
    found = ELI_NUMBER_RE.search(url or "")
    return f"{found.group(1)}/{found.group(2)}" if found else None


def related_documents(texts: Iterable[tuple[str, str, str]]) -> dict[str, set[str]]:
    """Document id -> the documents related to it, from (document id, source address, text) of its passages: a
    document at least ``RELATED_MIN_SHARE`` of whose passages cite another document's act number relates the two
    (both ways)."""
    passages = list(texts)
    numbers: dict[str, str] = {}
    for document, url, _ in passages:
        number = act_number(url)
        if number:
            numbers[document] = number
    counts = Counter(document for document, _, _ in passages)
    citing: Counter[tuple[str, str]] = Counter()
    for document, _, text in passages:
        for other, number in numbers.items():
            if other != document and number in text:
                citing[(document, other)] += 1
    related: dict[str, set[str]] = {}
    for (document, other), count in citing.items():
        if count >= RELATED_MIN_SHARE * counts[document]:
            related.setdefault(document, set()).add(other)
            related.setdefault(other, set()).add(document)
    return related
