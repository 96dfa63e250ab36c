"""Claim-citation verification and the authority score, on hand-checkable answers."""

import pytest

from regintel.chat.verification import authority_score, verify_claims

SOURCES = {
    1: ("In the case of a personal data breach, the controller shall without undue delay and, where feasible, not later "
        "than 72 hours after having become aware of it, notify the personal data breach to the supervisory authority.", "en", 1.0),
    2: ("The processor shall notify the controller without undue delay after becoming aware of a personal data breach.", "en", 1.0),
    3: ("Une ASBL peut être assujettie à la TVA si elle exerce une activité économique.", "fr", 0.4),
}


def test_verbatim_and_paraphrased_claims_are_supported():
    answer = ("From the retrieved sources:\n\nThe controller must notify the supervisory authority of a personal data breach "
              "within 72 hours after becoming aware of it [1]. The processor shall notify the controller without undue delay "
              "after becoming aware of a personal data breach. [2]")
    result = verify_claims(answer, SOURCES)
    assert [c.supported for c in result.claims] == [True, True]
    assert result.claims[1].support == 1.0 and result.rate == 1.0
    assert result.unused_sources == [3]


def test_problems_are_flagged():
    answer = ("Controllers have 30 days to notify regulators [2]. Processors never need to act. "
              "An ASBL can be liable to VAT [3]. See also [9].")
    result = verify_claims(answer, SOURCES)
    problems = [c.problem for c in result.claims]
    assert problems[0] == "not supported" and problems[1] == "no citation"
    assert result.summary()["claims_without_citation"] == 1
    assert result.low_authority_sources == [3]
    assert result.rate == pytest.approx(0.0)


def test_authority_score_is_similarity_weighted():
    assert authority_score([(1.0, 80.0), (0.4, 20.0)]) == pytest.approx((80 + 8) / 100)
    assert authority_score([]) == 0.0


def test_the_summary_lists_the_claims_to_check_with_the_numbers_the_analyst_reads():
    answer = ("Controllers have 30 days to notify regulators [2]. Processors never need to act. "
              "An ASBL can be liable to VAT [3]. See also [9].")
    summary = verify_claims(answer, SOURCES).summary(numbering={1: 3, 2: 1, 3: 2}.get)
    assert summary["flagged"] == [
        {"claim": "Controllers have 30 days to notify regulators.", "problem": "not supported", "citations": [1]},
        {"claim": "Processors never need to act.", "problem": "no citation", "citations": []},
        {"claim": "An ASBL can be liable to VAT.", "problem": "not supported", "citations": [2]},
        {"claim": "See also.", "problem": "unknown citation", "citations": [9]},
    ]
    assert summary["low_authority_sources"] == [2] and summary["unused_sources"] == [3]


def test_a_long_sentence_quoted_in_pieces_keeps_each_pieces_citation():
    """The offline composer cuts an over-long sentence at a comma and cites each piece ("..., such as data
    minimisation, [3] in an effective manner ... [3]"); the sentence splitter cuts it there too, so the marker opened
    the second piece and the first was flagged "no citation" although cited (Article 25(1) GDPR, 480 characters)."""
    article_25 = ("Taking into account the state of the art, the cost of implementation and the nature, scope, context and "
                  "purposes of processing as well as the risks of varying likelihood and severity for rights and freedoms "
                  "of natural persons posed by the processing, the controller shall, both at the time of the "
                  "determination of the means for processing and at the time of the processing itself, implement "
                  "appropriate technical and organisational measures, such as pseudonymisation, which are designed to "
                  "implement data-protection principles, such as data minimisation, in an effective manner and to "
                  "integrate the necessary safeguards into the processing in order to meet the requirements of this "
                  "Regulation and protect the rights of data subjects.")
    first, second = article_25.split(" in an effective manner")
    answer = f"From Article 25 GDPR (offline mode, quoted verbatim):\n\n{first} [1] in an effective manner{second} [1]"
    result = verify_claims(answer, {1: (article_25, "en", 1.0)})
    assert all(c.citations == [1] or c.citations == [1, 1] for c in result.claims), result.claims
    assert result.rate == 1.0 and not [c for c in result.claims if c.problem]
