"""EgressClient modes and per-tenant resolution (docs/architecture.md)."""

import pytest

from regintel.egress.client import EgressBlocked, EgressClient, EgressPolicy, resolve_egress_mode

MESSAGES = [{"role": "user", "content": "Client maria@example.es, DNI 12345678Z: does Article 6(1)(f) apply?"}]


def test_resolution_prefers_tenant_then_override_and_off_needs_permission():
    assert resolve_egress_mode("enforce") == "enforce"
    assert resolve_egress_mode("enforce", EgressPolicy(egress_mode="report-only")) == "report-only"
    assert resolve_egress_mode("report-only", EgressPolicy(), "enforce") == "enforce"
    assert resolve_egress_mode("enforce", EgressPolicy(), "off") == "enforce"  # not allowed: safe fallback
    assert resolve_egress_mode("enforce", EgressPolicy(egress_mode="off")) == "enforce"
    assert resolve_egress_mode("enforce", EgressPolicy(allow_off_mode=True), "off") == "off"
    with pytest.raises(ValueError):
        resolve_egress_mode("enforce", None, "sometimes")


def test_enforce_sanitises_and_blocks_unknown_destinations():
    client = EgressClient("enforce", ["api.openai.com"])
    decision = client.prepare(MESSAGES, "api.openai.com")
    assert "maria@example.es" not in decision.messages[0]["content"] and "12345678Z" not in decision.messages[0]["content"]
    assert "Article 6(1)(f)" in decision.messages[0]["content"]
    assert decision.report()["pii_counts"] == {"EMAIL": 1, "ES_DNI": 1}
    with pytest.raises(EgressBlocked, match="evil.example"):
        client.prepare(MESSAGES, "evil.example")


def test_tenant_allowlist_narrows_the_default():
    client = EgressClient("enforce", ["api.openai.com", "api.groq.com"])
    policy = EgressPolicy(allowed_destinations=("api.groq.com",))
    assert client.prepare(MESSAGES, "api.groq.com", policy).allowed
    with pytest.raises(EgressBlocked):
        client.prepare(MESSAGES, "api.openai.com", policy)


def test_report_only_flags_but_still_sends_the_sanitised_request():
    client = EgressClient("report-only", ["api.openai.com"])
    decision = client.prepare(MESSAGES, "evil.example")
    assert decision.allowed and decision.violations
    assert "maria@example.es" not in decision.messages[0]["content"]


def test_off_sends_the_original_only_when_allowed():
    client = EgressClient("enforce", ["api.openai.com"])
    assert "maria@example.es" not in client.prepare(MESSAGES, "api.openai.com", override="off").messages[0]["content"]
    decision = client.prepare(MESSAGES, "api.openai.com", EgressPolicy(allow_off_mode=True), override="off")
    assert decision.mode == "off" and decision.messages == MESSAGES


def test_local_destination_is_always_allowed():
    assert EgressClient("enforce", []).prepare(MESSAGES, "local").allowed


def test_local_provider_requests_are_neither_rewritten_nor_scanned_and_the_report_says_so():
    decision = EgressClient("enforce", []).prepare(MESSAGES, "local")
    report = decision.report()
    assert decision.messages == MESSAGES and report["pii_counts"] == {} and not report["sanitised"]
    assert report["action"] == "not scanned: nothing leaves this machine"
