"""Unified context across turns: order, de-duplication, one citation sequence, full text kept."""

from regintel.chat.context import ContextPassage, build_unified_context
from regintel.retrieval.sources import Source


def passage(chunk_id: str, text: str = "") -> ContextPassage:
    return ContextPassage(Source(chunk_id, "eu-gdpr", "GDPR", chunk_id, "https://eur-lex.europa.eu/x", text or f"text of {chunk_id}",
                                 80.0, "eu_law", 1.0, "EU", "en"))


def test_previous_then_history_then_fresh_reindexed():
    unified = build_unified_context(
        previous_turn=[passage("art-33"), passage("art-34")],
        older_turns_used=[[passage("art-4")], [passage("art-6"), passage("art-33")]],
        fresh=[passage("art-34"), passage("art-35")],
    )
    assert [(p.index, p.chunk_id, p.origin, p.turns_ago) for p in unified] == [
        (1, "art-33", "previous", 1), (2, "art-34", "previous", 1), (3, "art-4", "history", 2),
        (4, "art-6", "history", 3), (5, "art-35", "current", 0)]


def test_full_text_is_kept_and_rendered_for_the_prompt():
    long_text = "1. In the case of a personal data breach ... " * 40
    (only,) = build_unified_context(older_turns_used=[[], [], [passage("art-33", long_text)]])
    assert only.source.text == long_text and only.turns_ago == 4
    source = only.prompt_source()
    assert source.index == 1 and source.text == long_text and source.ref == "art-33"


def test_limit_caps_the_context():
    assert len(build_unified_context(fresh=[passage(f"c{i}") for i in range(30)], limit=8)) == 8
