"""Evidence for a question asked with its context: each passage is judged by its closeness to the part of the
question it answers, not only to the whole message.

"A former customer has asked us to delete everything we hold on her. In which situations are we actually obliged
to erase her data?" is one embedding of two sentences: the story dilutes the ask, and the article that answers it
(Article 17 GDPR, retrieved first) can fall under the corpus's no-evidence level although it is squarely on the
second sentence. So when a question has several parts (its sentences, and the coordinated asks of
:func:`regintel.text.question_parts.split_question`), each part is embedded too and a passage's similarity for the
evidence grade is its best cosine with the whole question or with one part. The passages themselves, their order and
the similarity shown with them are unchanged.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable, Mapping, Sequence

import numpy as np

from regintel.retrieval.sources import Source
from regintel.text.analysis import tokenize
from regintel.text.question_parts import split_question
from regintel.text.sentences import split_sentences

MIN_PART_TERMS = 3  # a part with fewer content words ("What is the test?") is too thin to judge a passage by
MAX_PARTS = 4


def question_parts(question: str, language: str) -> list[str]:
    """The sentences and coordinated asks of a question with enough content words; empty for a one-part question."""
    parts: list[str] = []
    for sentence in split_sentences(question):
        parts += split_question(sentence.text, language)
    kept = [p for p in dict.fromkeys(p.strip() for p in parts) if len(set(tokenize(p, language))) >= MIN_PART_TERMS]
    return kept[:MAX_PARTS] if len(kept) >= 2 else []


def with_part_similarity(sources: Sequence[Source], part_vectors: np.ndarray,
                         passage_vectors: Mapping[str, np.ndarray]) -> list[Source]:
    """Copies of ``sources`` whose similarity is raised to their best cosine (x 100) with a part of the question."""
    graded = []
    for source in sources:
        vector = passage_vectors.get(source.chunk_id)
        if vector is None or not len(part_vectors):
            graded.append(source)
            continue
        best = float(np.max(part_vectors @ np.asarray(vector, dtype=np.float32))) * 100
        graded.append(replace(source, similarity=round(max(source.similarity, min(best, 100.0)), 1)))
    return graded


def part_aware(question: str, language: str, sources: Sequence[Source], embed: Callable[..., np.ndarray],
               passage_vectors: Callable[[list[str]], Mapping[str, np.ndarray]]) -> list[Source]:
    """``sources`` graded against the parts of ``question`` (unchanged for a one-part question)."""
    parts = question_parts(question, language)
    if not parts or not sources:
        return list(sources)
    return with_part_similarity(sources, embed(parts, kind="query"), passage_vectors([s.chunk_id for s in sources]))
