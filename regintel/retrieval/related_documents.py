"""Which documents of a corpus belong together: one cites the other's act number.

The VAT Implementing Regulation cites Directive 2006/112/EC throughout; a question about one is often answered by the
other (the Directive's exemption of intra-Community supplies, the Regulation's proof that the goods left). An act's
number is read from its ELI address (".../eli/dir/2006/112/oj" -> "2006/112"); a document without one (guidance a
user brings in) is related to nothing by this rule.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

ELI_NUMBER_RE = re.compile(r"/eli/[a-z_]+/(\d{4})/(\d+)")  # an act's year and number in its ELI address


def act_number(url: str) -> str | None:
    """"2006/112" for ".../eli/dir/2006/112/oj#art_2"; None for an address that is no ELI."""
    found = ELI_NUMBER_RE.search(url or "")
    return f"{found.group(1)}/{found.group(2)}" if found else None


def related_documents(texts: Iterable[tuple[str, str, str]]) -> dict[str, set[str]]:
    """Document id -> the documents related to it, from (document id, source address, text) of its passages: a
    passage citing another document's act number relates the two (both ways)."""
    passages = list(texts)
    numbers: dict[str, str] = {}
    for document, url, _ in passages:
        number = act_number(url)
        if number:
            numbers[document] = number
    related: dict[str, set[str]] = {}
    for document, _, text in passages:
        for other, number in numbers.items():
            if other != document and number in text:
                related.setdefault(document, set()).add(other)
                related.setdefault(other, set()).add(document)
    return related
