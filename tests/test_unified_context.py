"""Unified context across turns: order, de-duplication, one citation sequence, full text kept."""

from regintel.chat.context import ContextPassage, build_unified_context
from regintel.retrieval.sources import Source


def passage(chunk_id: str, text: str = "") -> ContextPassage:
    return ContextPassage(Source(chunk_id, "eu-gdpr", "GDPR", chunk_id, "https://eur-lex.europa.eu/x", text or f"text of {chunk_id}",
                                 80.0, "eu_law", 1.0, "EU", "en"))


def test_previous_then_history_then_fresh_reindexed_and_a_passage_retrieved_again_is_current():
    unified = build_unified_context(
        previous_turn=[passage("art-33"), passage("art-34")],
        older_turns_used=[[passage("art-4")], [passage("art-6"), passage("art-33")]],
        fresh=[passage("art-34"), passage("art-35")],
    )
    assert [(p.index, p.chunk_id, p.origin, p.turns_ago) for p in unified] == [
        (1, "art-33", "previous", 1), (2, "art-4", "history", 2), (3, "art-6", "history", 3),
        (4, "art-34", "current", 0), (5, "art-35", "current", 0)]
    assert [p.prompt_source().earlier for p in unified] == [True, True, True, False, False], \
        "the prompt marks what was found for earlier questions"


def test_full_text_is_kept_and_rendered_for_the_prompt():
    long_text = "1. In the case of a personal data breach ... " * 40
    (only,) = build_unified_context(older_turns_used=[[], [], [passage("art-33", long_text)]])
    assert only.source.text == long_text and only.turns_ago == 4
    source = only.prompt_source()
    assert source.index == 1 and source.text == long_text and source.ref == "art-33"


def test_limit_caps_the_context():
    assert len(build_unified_context(fresh=[passage(f"c{i}") for i in range(30)], limit=8)) == 8


def long_conversation(turns: int = 7) -> list[list[ContextPassage]]:
    """The cited passages of each earlier turn, most recent first: 3 per turn, on other topics."""
    return [[passage(f"t{t}-p{i}") for i in range(3)] for t in range(turns)]


def test_a_long_conversation_cannot_crowd_out_the_current_questions_hits():
    fresh = [passage(f"now-{i}") for i in range(8)]
    queue = build_unified_context(previous_turn=[passage(f"prev-{i}") for i in range(8)],
                                  older_turns_used=long_conversation(), fresh=fresh, limit=20)
    assert sum(p.origin == "current" for p in queue) == 0  # the old queue: 8 + 21 earlier passages fill all 20
    budget = build_unified_context(previous_turn=[passage(f"prev-{i}") for i in range(8)],
                                   older_turns_used=long_conversation(), fresh=fresh, limit=20, fresh_minimum=8)
    assert [p.chunk_id for p in budget if p.origin == "current"] == [f"now-{i}" for i in range(8)]
    assert len(budget) == 20 and [p.index for p in budget] == list(range(1, 21))
    assert budget[0].chunk_id == "prev-0"  # earlier passages keep their place before the fresh ones


def test_earlier_passages_are_kept_by_relevance_to_the_question_and_by_being_cited():
    relevant = {"t5-p1": 0.9, "t6-p2": 0.8, "prev-3": 0.7}
    kept = build_unified_context(previous_turn=[passage(f"prev-{i}") for i in range(4)],
                                 older_turns_used=long_conversation(), fresh=[passage(f"now-{i}") for i in range(8)],
                                 limit=12, fresh_minimum=8, cited=frozenset({"prev-0"}),
                                 relevance=lambda sources: [relevant.get(s.chunk_id, 0.1) for s in sources])
    earlier = [p.chunk_id for p in kept if p.origin != "current"]
    assert earlier == ["prev-0", "prev-3", "t5-p1", "t6-p2"]  # cited first, then the most relevant, in order

    def broken(_sources):
        raise RuntimeError("vector store down")

    fallback = build_unified_context(previous_turn=[passage(f"prev-{i}") for i in range(4)],
                                     older_turns_used=long_conversation(), fresh=[passage("now-0")],
                                     limit=4, fresh_minimum=1, relevance=broken)
    assert [p.chunk_id for p in fallback] == ["prev-0", "prev-1", "prev-2", "now-0"]  # most recent, as before
