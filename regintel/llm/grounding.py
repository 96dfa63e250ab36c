"""Checks that an offline answer is grounded: every sentence after the lead-in is a verbatim slice of the passage
its ``[n]`` marker cites. Used by tests and by ``python -m regintel.bench llm``."""

from __future__ import annotations

import re

from regintel.llm.prompt_format import PromptSource

MARKED_SENTENCE_RE = re.compile(r"(.+?) \[(\d+)\](?:\s|$)", re.DOTALL)


def cited_sentences(answer: str) -> list[tuple[str, int]]:
    """(sentence, citation number) pairs of an answer, skipping its one-line lead-in."""
    body = answer.split("\n\n", 1)[1] if "\n\n" in answer else ""
    pairs = []
    for paragraph in body.split("\n\n"):
        for match in MARKED_SENTENCE_RE.finditer(paragraph.strip()):
            pairs.append((match.group(1).strip(), int(match.group(2))))
    return pairs


def verbatim_rate(answer: str, sources: list[PromptSource]) -> tuple[int, int]:
    """(sentences found verbatim in their cited passage, sentences) of one answer."""
    by_index = {s.index: s.text for s in sources}
    pairs = cited_sentences(answer)
    return sum(1 for sentence, index in pairs if sentence in by_index.get(index, "")), len(pairs)
