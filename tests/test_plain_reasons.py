"""Internal reason codes (LOW_SIMILARITY, INSUFFICIENT_CHUNKS, ...) never reach the analyst: captions and abstention
texts say why in plain words; the codes stay in the response fields and the trace."""

from __future__ import annotations

import re

import pytest

from regintel.chat.evidence import HARD_REASONS, SOFT_REASONS
from regintel.chat.guardrails import REASONS
from regintel.chat.messages import REFUSAL, REFUSAL_REASONS, abstention_text, refusal_text
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


@pytest.mark.parametrize("query_type", sorted(REASONS))
@pytest.mark.parametrize("language", ["fr", "es", "de"])
def test_a_refusal_says_why_in_the_question_language(query_type, language):
    """A French refusal read "Votre question n'a pas reçu de réponse car it asks to predict future law ..." and a German
    one was English from end to end: the sentence and its reason are in the question's language."""
    text = refusal_text(query_type, REASONS[query_type], ["What is a processor?"], language)
    assert REASONS[query_type] not in text, text
    assert not text.startswith(REFUSAL["en"].split(".")[0]), text
    assert text.split("\n")[0].endswith(REFUSAL_REASONS[language][query_type] + "."), text


def test_a_refusal_in_a_language_without_texts_is_said_in_english_with_the_classifiers_reason():
    text = refusal_text("OPINION", REASONS["OPINION"], [], "it")
    assert text == REFUSAL["en"].format(reason=REASONS["OPINION"])
