"""What an answerer reads of each passage at question time and ingestion embeds ahead (issue 16: no question waits
for an embedding of the corpus). The answerer provides it (the offline answer's sentences read by meaning,
:data:`regintel.llm.offline_compose.SENTENCES_READ_BY_MEANING`); retrieval only embeds what it lists."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from regintel.retrieval.chunking import Chunk


@dataclass(frozen=True)
class AheadTexts:
    """Texts an answerer embeds for the passages it reads at question time (the offline answer's sentences read by
    meaning: :data:`regintel.llm.offline_compose.SENTENCES_READ_BY_MEANING`), embedded at ingestion instead so that
    no question waits for them. ``of(chunks)`` lists them; ``version`` changes whenever ``of`` lists other texts."""

    of: Callable[[Sequence[Chunk]], list[str]]
    version: int
