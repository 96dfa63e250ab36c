"""Citation numbers an analyst reads in order: [1][2][3], never [1][2][4][5].

The model cites the passages of the turn's context by their number in the prompt, and the answer uses only some
of them, so its markers come out as [2], [5], [1]. The analyst should read the first source cited as [1], the
next new one as [2], and so on, and find the same numbers on the chips. :class:`CitationRenumbering` rewrites the
markers while the answer streams (a marker split across two deltas, "[1" + "2]", is held back until it is whole),
and :meth:`CitationRenumbering.display_number` gives each passage its shown number: cited passages in order of
first citation, then the passages shown but not cited, in context order. A number that is no passage of the
context is left as written (claim verification reports it).
"""

from __future__ import annotations

import re
from typing import Iterable, Iterator, Mapping

MARKER_RE = re.compile(r"\[(\d{1,3})\]")
_OPEN_TAIL_RE = re.compile(r"\[\d{0,3}$")  # an unfinished marker at the end of a delta
PART_COUNTER_RE = re.compile(r"\s*\(\d+/\d+\)\s*$")  # "(2/3)": the part of a split article


class CitationRenumbering:
    """Renumbers ``[n]`` markers of a streamed answer by order of first citation, among ``context_numbers``."""

    def __init__(self, context_numbers: Iterable[int]) -> None:
        self.context_numbers = list(dict.fromkeys(context_numbers))
        self._known = set(self.context_numbers)
        self.mapping: dict[int, int] = {}  # prompt number -> shown number, cited passages only
        self._pending = ""

    def _shown(self, match: re.Match[str]) -> str:
        number = int(match.group(1))
        if number not in self._known:
            return match.group(0)
        if number not in self.mapping:
            self.mapping[number] = len(self.mapping) + 1
        return f"[{self.mapping[number]}]"

    def feed(self, delta: str) -> str:
        """The renumbered text that can be shown now (an unfinished marker waits for the next delta)."""
        text = self._pending + delta
        tail = _OPEN_TAIL_RE.search(text)
        self._pending = tail.group(0) if tail else ""
        ready = text[: tail.start()] if tail else text
        return MARKER_RE.sub(self._shown, ready)

    def flush(self) -> str:
        """What is left at the end of the stream."""
        text, self._pending = self._pending, ""
        return MARKER_RE.sub(self._shown, text)

    def stream(self, deltas: Iterable[str]) -> Iterator[str]:
        for delta in deltas:
            shown = self.feed(delta)
            if shown:
                yield shown
        rest = self.flush()
        if rest:
            yield rest

    def renumber(self, text: str) -> str:
        """A whole text at once (a cached answer, a test)."""
        return "".join(self.stream([text]))

    def display_number(self, prompt_number: int) -> int:
        """The number shown for a passage: its citation order, or after every cited one in context order."""
        if prompt_number in self.mapping:
            return self.mapping[prompt_number]
        uncited = [n for n in self.context_numbers if n not in self.mapping]
        return len(self.mapping) + 1 + uncited.index(prompt_number) if prompt_number in uncited else prompt_number


def resend_answer(answer: str, cited: Mapping[int, tuple[str, str]], current: Mapping[str, int]) -> str:
    """An earlier answer as it is re-sent to the model in a later turn (issue 20).

    Its ``[n]`` markers are the numbers of its own turn, which now name other passages. ``cited`` maps each of
    those numbers to (chunk id, a name such as "GDPR Art. 33"); ``current`` maps chunk ids to this turn's prompt
    numbers. A marker of a passage that is in this turn's context takes its number here; one that is not becomes
    the passage's name in parentheses, so the model never reads a number that points at a different passage.
    """

    def rewritten(match: re.Match[str]) -> str:
        chunk_id, name = cited.get(int(match.group(1)), ("", ""))
        if chunk_id in current:
            return f"[{current[chunk_id]}]"
        return f"({name})" if name else ""

    return MARKER_RE.sub(rewritten, answer)


def resend_history(turns: Iterable, passages: Iterable) -> list[tuple[str, str]]:
    """(question, answer) of earlier turns for this turn's prompt, their citations rewritten by
    :func:`resend_answer` (``turns``: repository Turns; ``passages``: this turn's numbered context passages)."""
    current = {p.chunk_id: p.index for p in passages}
    return [(turn.question, resend_answer(turn.answer, {p.index: (p.chunk_id, passage_name(p.source)) for p in turn.passages},
                                          current)) for turn in turns]


def unit_ref(ref: str) -> str:
    """"Article 33" of "Chapter IV › Article 33 (2/3)": the last part of a reference, without the part counter. A unit
    merging short neighbours names each ("ANNEX II › Carbon credit; ANNEX II › Carbon dioxide (CO2) equivalent (eq)" ->
    "Carbon credit; Carbon dioxide (CO2) equivalent (eq)"): the last one alone named the entry not quoted."""
    merged = PART_COUNTER_RE.sub("", ref or "").split("; ")
    return "; ".join(dict.fromkeys(part.split(" › ")[-1] for part in merged))


def passage_name(source) -> str:
    """"GDPR Article 33": the short title and the unit of the reference."""
    return f"{source.title} {unit_ref(source.ref)}".strip()
