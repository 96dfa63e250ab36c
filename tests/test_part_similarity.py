"""Evidence for a question asked with its context reads each passage against the part it answers
(regintel/chat/part_similarity.py)."""

from __future__ import annotations

import numpy as np

from regintel.chat.part_similarity import part_aware, question_parts, with_part_similarity
from regintel.retrieval.sources import Source


def source(chunk_id: str, similarity: float) -> Source:
    return Source(chunk_id, "doc", "Act", chunk_id, "", "text", similarity, "eu_law", 1.0)


def test_sentences_and_coordinated_asks_are_parts_a_one_part_question_has_none():
    assert question_parts("A former customer has asked us to delete everything we hold on her. In which situations "
                          "are we actually obliged to erase her data?", "en") == [
        "A former customer has asked us to delete everything we hold on her.",
        "In which situations are we actually obliged to erase her data?"]
    assert question_parts("What is personal data under the GDPR?", "en") == []
    assert question_parts("Who decides the means of processing? What is the test?", "en") == [], \
        "a part too thin to judge a passage by leaves one part: nothing to add"


def test_a_passage_is_graded_by_its_best_cosine_with_the_whole_or_a_part():
    parts = np.array([[1.0, 0.0], [0.0, 1.0]], dtype=np.float32)
    vectors = {"on-part-2": np.array([0.1, 0.9], dtype=np.float32), "far": np.array([0.5, 0.5], dtype=np.float32)}
    graded = with_part_similarity([source("on-part-2", 80.0), source("far", 80.0), source("no-vector", 80.0)],
                                  parts, vectors)
    assert [s.similarity for s in graded] == [90.0, 80.0, 80.0], "raised only when a part is closer than the whole"


def test_the_sources_themselves_are_not_changed():
    original = [source("a", 80.0)]

    def embed(texts, kind):
        assert kind == "query"
        return np.array([[1.0, 0.0]] * len(texts), dtype=np.float32)

    graded = part_aware("We run a webshop with customers in France. Which information must our invoices show?", "en",
                        original, embed, lambda ids: {"a": np.array([1.0, 0.0], dtype=np.float32)})
    assert graded[0].similarity == 100.0 and original[0].similarity == 80.0
