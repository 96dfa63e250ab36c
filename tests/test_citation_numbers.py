"""Citation numbers are shown in order of first citation, also while the answer streams (issue 16 item 7)."""

from __future__ import annotations

import re

from hypothesis import given, strategies as st

from regintel.chat.citation_numbers import CitationRenumbering


def test_markers_are_numbered_by_first_citation_and_chips_follow():
    numbers = CitationRenumbering([1, 2, 3, 4, 5])
    assert numbers.renumber("A [4]. B [2][4]. C [5].") == "A [1]. B [2][1]. C [3]."
    assert [numbers.display_number(n) for n in (4, 2, 5, 1, 3)] == [1, 2, 3, 4, 5], "uncited ones after, in context order"


def test_a_marker_split_across_deltas_is_held_back_until_whole():
    numbers = CitationRenumbering(range(1, 13))
    shown = list(numbers.stream(["Within 72 hours [1", "2]. The processor [", "3] ", "informs it [12]"]))
    assert "".join(shown) == "Within 72 hours [1]. The processor [2] informs it [1]"
    assert all("[1" not in part or "]" in part for part in shown), shown


def test_a_number_that_is_no_passage_is_left_as_written():
    numbers = CitationRenumbering([1, 2])
    assert numbers.renumber("See [7] and [2] and [2023].") == "See [7] and [1] and [2023]."


@given(st.lists(st.integers(1, 9), max_size=12), st.integers(1, 6))
def test_any_split_of_a_stream_gives_the_same_text(cited, cut):
    text = " ".join(f"claim {i} [{n}]." for i, n in enumerate(cited))
    whole = CitationRenumbering(range(1, 10)).renumber(text)
    pieces = [text[i:i + cut] for i in range(0, len(text), cut)]
    assert "".join(CitationRenumbering(range(1, 10)).stream(pieces)) == whole
    shown = [int(n) for n in re.findall(r"\[(\d)\]", whole)]
    assert sorted(set(shown)) == list(range(1, len(set(shown)) + 1)), "contiguous from 1"


def test_an_earlier_answer_is_resent_with_this_turns_numbers_or_the_passage_name():
    from regintel.chat.citation_numbers import resend_answer

    cited = {1: ("gdpr#33", "GDPR Article 33"), 2: ("gdpr#34", "GDPR Article 34")}
    current = {"dora#19": 1, "gdpr#33": 4}  # Article 33 is passage 4 in this turn; Article 34 is not in it
    answer = "Notify within 72 hours [1]. Tell the people concerned [2][1]. Since [2023] and [9]."
    assert resend_answer(answer, cited, current) == (
        "Notify within 72 hours [4]. Tell the people concerned (GDPR Article 34)[4]. Since [2023] and .")


def test_resent_history_names_passages_by_title_and_article():
    from types import SimpleNamespace as NS

    from regintel.chat.citation_numbers import resend_history

    source = NS(chunk_id="gdpr#33-2", title="GDPR", ref="Chapter IV › Article 33 (2/3)")
    turn = NS(question="When?", answer="Within 72 hours [1].", passages=[NS(index=1, chunk_id="gdpr#33-2", source=source)])
    assert resend_history([turn], []) == [("When?", "Within 72 hours (GDPR Article 33).")]
    assert resend_history([turn], [NS(chunk_id="gdpr#33-2", index=7)]) == [("When?", "Within 72 hours [7].")]
