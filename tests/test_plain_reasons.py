"""Internal reason codes (LOW_SIMILARITY, INSUFFICIENT_CHUNKS, ...) never reach the analyst: captions and abstention
texts say why in plain words; the codes stay in the response fields and the trace."""

from __future__ import annotations

import re

import pytest

from regintel.chat.evidence import HARD_REASONS, SOFT_REASONS
from regintel.chat.messages import abstention_text
from regintel.chat.response import ChatResponse
from regintel.ui.chat_view import mode_caption

CODE = re.compile(r"\b[A-Z]{3,}_[A-Z_]+\b")


@pytest.mark.parametrize("code", HARD_REASONS)
@pytest.mark.parametrize("language", ["en", "fr", "es", "de"])
def test_abstention_texts_explain_without_codes(code, language):
    text = abstention_text(code, language, ["What is a processor?"])
    assert not CODE.search(text), text
    caption = mode_caption(ChatResponse("", "ABSTAIN", "c", abstention_reason=code))
    assert caption.startswith("No answer: ") and not CODE.search(caption), caption


@pytest.mark.parametrize("code", HARD_REASONS)
@pytest.mark.parametrize("language", ["fr", "es", "de"])
def test_an_abstention_says_why_in_the_question_language(code, language):
    """The reason is in the language of the sentence around it, not the English explanation."""
    from regintel.chat.evidence import EXPLANATIONS

    text = abstention_text(code, language)
    assert EXPLANATIONS[code] not in text, text


def test_a_qualified_answer_says_why_in_one_plain_sentence():
    response = ChatResponse("x [1]", "QUALIFIED", "c", concerns=["INSUFFICIENT_CHUNKS", *SOFT_REASONS],
                            claim_verification={"supported": 1, "claims": 1})
    caption = mode_caption(response)
    assert not CODE.search(caption), caption
    assert "Qualified because fewer than two passages address the question closely" in caption
    assert response.concerns[0] == "INSUFFICIENT_CHUNKS", "the code itself is kept for the trace and the dashboard"
