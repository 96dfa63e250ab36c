"""What claim verification found, as the analyst reads it under an answer (issue 20 item 4)."""

from __future__ import annotations

from regintel.chat.response import ChatResponse, CitedSource
from regintel.chat.verification import verify_claims
from regintel.ui.chat_view import verification_notes
from regintel.ui.untrusted import markdown_label

LAW = "In the case of a personal data breach, the controller shall notify the supervisory authority within 72 hours."
GUIDANCE = "Une ASBL peut être assujettie à la TVA si elle exerce une activité économique."


def answered(answer: str, mode: str = "QUALIFIED") -> ChatResponse:
    """A response built the way the engine builds it: verification on prompt numbers (1 = law, 2 = guidance,
    3 = an uncited passage), shown with the numbers the analyst reads (guidance cited first -> [1])."""
    prompt_sources = {1: (LAW, "en", 1.0), 2: (GUIDANCE, "fr", 0.4), 3: ("Another passage.", "en", 1.0)}
    shown = {2: 1, 1: 2, 3: 3}
    summary = verify_claims(answer, prompt_sources).summary(numbering=shown.get)
    sources = [CitedSource(shown[2], "g", "be", "BE VAT guide", "§ 2", "", GUIDANCE, 70.0, "guidance", 0.4, used=True),
               CitedSource(shown[1], "l", "gdpr", "GDPR", "Article 33", "", LAW, 80.0, "eu_law", 1.0, used=True),
               CitedSource(shown[3], "o", "gdpr", "GDPR", "Article 34", "", "Another passage.", 60.0, "eu_law", 1.0)]
    return ChatResponse(answer, mode, "conv", sources=sources, claim_verification=summary)


def test_unsupported_and_uncited_claims_low_authority_and_unused_sources_are_listed():
    notes = verification_notes(answered(
        "An ASBL can be liable to VAT [2]. The controller has 30 days to tell the regulator [1]. Fines are certain."))
    assert notes[0] == "Check: “An ASBL can be liable to VAT.” is not supported by [1]."
    assert notes[1] == "Check: “The controller has 30 days to tell the regulator.” is not supported by [2]."
    assert notes[2] == "Check: “Fines are certain.” has no citation."
    assert notes[3].startswith("[1] BE VAT guide is guidance, of lower authority than the law")
    assert len(notes) == 4


def test_the_grade_line_counts_supported_claims_unread_passages_and_claims_to_check():
    from regintel.ui.chat_view import mode_caption

    assert mode_caption(answered("An ASBL can be liable to VAT [2]. Fines are certain.")) == (
        "0/2 claims supported by their citation; 2 other passages read, not cited. 2 claims to check below.")


def test_a_supported_answer_has_nothing_to_check_and_abstentions_no_notes():
    clean = "In the case of a personal data breach, the controller shall notify the supervisory authority within 72 hours. [1][3]"
    assert verification_notes(answered(clean, "DIRECT")) == []
    assert verification_notes(answered("Fines are certain.", "ABSTAIN")) == []


def test_a_claim_is_model_text_and_renders_without_links():
    note = verification_notes(answered("See [the rules](https://evil.example) now."))[0]
    assert "](" not in markdown_label(note).replace("\\]\\(", "")
