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
from typing import Iterable, Iterator

MARKER_RE = re.compile(r"\[(\d{1,3})\]")
_OPEN_TAIL_RE = re.compile(r"\[\d{0,3}$")  # an unfinished marker at the end of a delta


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
