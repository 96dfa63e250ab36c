"""PII sanitiser on the Presidio detector: the original case table (data/bench/egress_cases.jsonl), sanitise/report guarantees, properties."""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from regintel.bench.egress import load_cases
from regintel.egress.sanitiser import PII_TYPES, Finding, contains_pii, find_pii, sanitise
from tests.lanes import examples

POSITIVES, LOOKALIKES, MIXED = load_cases("positive"), load_cases("lookalike"), load_cases("mixed")
CASES = POSITIVES + LOOKALIKES + MIXED
WITH_PII = [case for case in CASES if case[2]]
IDS = [case[0] for case in CASES]


def test_table_has_enough_cases() -> None:
    assert len(CASES) >= 70
    assert len(set(IDS)) == len(IDS), "case ids must be unique"
    assert len([case for case in CASES if not case[2]]) >= 25
    assert all(not expected for _, _, expected in LOOKALIKES)
    assert len([case for case in MIXED if len({t for t, _ in case[2]}) >= 2]) >= 5
    positives_per_type = Counter(t for _, _, expected in POSITIVES + MIXED for t in {t for t, _ in expected})
    for pii_type in ("EMAIL", "PHONE", "IBAN", "CARD", "IE_PPSN", "ES_DNI", "ES_NIE", "UK_NINO", "IP_ADDRESS",
                     "DATE_OF_BIRTH"):  # the types of the old sanitiser; the rest: tests/test_egress_detector.py
        assert positives_per_type[pii_type] >= 4, pii_type
    assert all(t in PII_TYPES for _, _, expected in CASES for t, _ in expected)


def test_table_covers_ipv6_and_french_and_spanish_birth_dates() -> None:
    ips = [value for _, _, expected in CASES for t, value in expected if t == "IP_ADDRESS"]
    assert any(":" in ip for ip in ips)
    dob_texts = [text for _, text, expected in CASES if any(t == "DATE_OF_BIRTH" for t, _ in expected)]
    assert any(re.search(r"\bnée? le\b|naissance", text) for text in dob_texts)
    assert any(re.search(r"nacimiento|nacid[oa]", text) for text in dob_texts)


@pytest.mark.parametrize(("case_id", "text", "expected"), CASES, ids=IDS)
def test_find_pii(case_id: str, text: str, expected: list[tuple[str, str]]) -> None:
    findings = find_pii(text)
    assert [(f.type, f.text) for f in findings] == expected
    for finding in findings:
        assert text[finding.start : finding.end] == finding.text
    assert all(a.end <= b.start for a, b in zip(findings, findings[1:])), "sorted and non-overlapping"
    assert contains_pii(text) == bool(expected)


@pytest.mark.parametrize(("case_id", "text", "expected"), WITH_PII, ids=[case[0] for case in WITH_PII])
def test_sanitise_replaces_every_value(case_id: str, text: str, expected: list[tuple[str, str]]) -> None:
    result = sanitise(text)
    assert result.changed
    for pii_type, value in expected:
        assert value not in result.text
        assert f"[{pii_type}_1]" in result.text
    assert result.counts == dict(Counter(t for t, _ in expected))


@pytest.mark.parametrize(("case_id", "text", "expected"), CASES, ids=IDS)
def test_report_never_contains_a_value(case_id: str, text: str, expected: list[tuple[str, str]]) -> None:
    report = sanitise(text).report()
    serialised = json.dumps(report, ensure_ascii=False)
    for _, value in expected:
        assert value not in serialised
    assert set(report) == {"changed", "counts", "total"}
    assert report["total"] == len(expected)
    assert report["changed"] == bool(expected)


@pytest.mark.parametrize(("case_id", "text", "expected"), LOOKALIKES, ids=[case[0] for case in LOOKALIKES])
def test_lookalikes_pass_unchanged(case_id: str, text: str, expected: list[tuple[str, str]]) -> None:
    result = sanitise(text)
    assert result.text == text
    assert not result.changed
    assert result.report() == {"changed": False, "counts": {}, "total": 0}


def test_same_value_gets_the_same_placeholder() -> None:
    text = "Send it to jean.dupont@example.fr; if it bounces, try jean.dupont@example.fr again, or anna@example.com."
    result = sanitise(text)
    assert result.text == "Send it to [EMAIL_1]; if it bounces, try [EMAIL_1] again, or [EMAIL_2]."
    assert result.counts == {"EMAIL": 3}


def test_spacing_variants_of_one_iban_share_a_placeholder() -> None:
    result = sanitise("Pay DE89 3704 0044 0532 0130 00, i.e. DE89370400440532013000, not GB82 WEST 1234 5698 7654 32.")
    assert result.text == "Pay [IBAN_1], i.e. [IBAN_1], not [IBAN_2]."


def test_numbering_is_per_type_in_order_of_appearance() -> None:
    result = sanitise("a@example.com, +44 20 7946 0958, b@example.com, 0034 612 345 678")
    assert result.text == "[EMAIL_1], [PHONE_1], [EMAIL_2], [PHONE_2]"
    assert result.report() == {"changed": True, "counts": {"EMAIL": 2, "PHONE": 2}, "total": 4}


def test_placeholders_already_in_the_text_are_not_reused() -> None:
    result = sanitise("The user wrote [EMAIL_1] literally, then bob@example.com.")
    assert result.text == "The user wrote [EMAIL_1] literally, then [EMAIL_2]."


def test_specific_types_win_over_phone() -> None:
    # The tail of a failed IBAN is Luhn-valid by chance: it must not come back as a card or a phone.
    assert find_pii("DE89 3704 0044 0532 0130 01") == []
    assert [f.type for f in find_pii("tel 4111 1111 1111 1111")] == ["CARD"]
    assert find_pii("IBAN BE68 5390 0754 7034") == [Finding("IBAN", 5, 24, "BE68 5390 0754 7034")]


def test_empty_and_plain_text() -> None:
    assert find_pii("") == []
    assert sanitise("").report() == {"changed": False, "counts": {}, "total": 0}
    assert not contains_pii("What does Article 5(1)(c) GDPR mean by data minimisation?")


# Fragments that make hypothesis build texts near the detectors' edges, not only random unicode.
_FRAGMENTS = [
    "jean.dupont@example.fr", "+33 6 12 34 56 78", "DE89 3704 0044 0532 0130 00", "4111 1111 1111 1111",
    "1234567T", "12345678Z", "X1234567L", "QQ 12 34 56 C", "192.168.1.10", "2001:db8::1", "born on",
    "12 March 1985", "tel", "call", "section", "Article 6(1)(f)", "2016/679", "EUR", "000", "0", "12", "345",
    "[EMAIL_1]", "(020)", ".", "-", ":", "::", "@", "né le", "1985-03-12", "100 000 000",
]
_TEXTS = st.one_of(
    st.text(max_size=200),
    st.lists(st.sampled_from(_FRAGMENTS), max_size=12).flatmap(
        lambda parts: st.lists(st.sampled_from(["", " ", ", ", "\n", "."]), min_size=len(parts), max_size=len(parts))
        .map(lambda seps: "".join(p + s for p, s in zip(parts, seps)))
    ),
)


@settings(max_examples=examples(300), deadline=None)
@given(_TEXTS)
def test_sanitise_is_idempotent_and_total(text: str) -> None:
    first = sanitise(text)
    second = sanitise(first.text)
    assert second.text == first.text
    assert not second.changed
    json.dumps(first.report())


@pytest.mark.parametrize("hidden, kind", [
    ("jean\u200b@example.fr", "EMAIL"), ("jean@exam\u2060ple.fr", "EMAIL"),
    ("+33 6 12\u200b34 56 78", "PHONE"), ("DE89\u200d 3704 0044 0532 0130 00", "IBAN"),
    ("192.168.\u202e1.20", "IP_ADDRESS"), ("je\u00adan@example.fr", "EMAIL"),
])
def test_a_value_split_by_invisible_characters_is_still_found_and_shares_the_plain_value_placeholder(hidden, kind):
    plain = re.sub("[\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]", "", hidden)
    result = sanitise(f"Write to {hidden} or to {plain} about Article 33.")
    assert [f.type for f in result.findings] == [kind, kind]
    assert result.text == f"Write to [{kind}_1] or to [{kind}_1] about Article 33."


def test_remembered_findings_detect_each_text_once_and_forget_them_after_the_block(monkeypatch) -> None:
    """The guardrail threshold sweep asks about the same questions at every threshold: inside
    ``remembered_findings`` a text is read by the detector once; after the block nothing is remembered."""
    from regintel.egress import sanitiser

    reads: list[str] = []
    real_detect = sanitiser._detect

    def counting(text: str):
        reads.append(text)
        return real_detect(text)

    monkeypatch.setattr(sanitiser, "_detect", counting)
    text = "Write to jan.kowalski@example.pl about the refund."
    with sanitiser.remembered_findings():
        first = find_pii(text)
        first.clear()  # a caller changing its list does not change what is remembered
        assert [f.type for f in find_pii(text)] == ["EMAIL"] and contains_pii(text)
        assert not find_pii("No personal data here.")
    assert reads == [text, "No personal data here."]
    assert sanitiser._REMEMBERED.get() is None
    find_pii(text)
    assert reads == [text, "No personal data here.", text]  # outside the block: read again
