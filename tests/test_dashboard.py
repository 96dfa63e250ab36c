"""Feedback Dashboard aggregates against hand-computed values, and the per-tenant, per-period loading."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pandas as pd
import pytest

from regintel.analytics.dashboard import FEEDBACK_COLUMNS, TURN_COLUMNS, feedback_csv, load_feedback, load_turns, summarise
from regintel.chat.repository import ConversationRepository
from regintel.chat.response import ChatResponse
from regintel.store import Database

DAY1, DAY2 = pd.Timestamp("2026-11-20 09:00"), pd.Timestamp("2026-11-21 15:00")


def turn(i, day, mode, reason=None, confidence=0.9, authority=1.0, verification=1.0, cache=False, latency=100.0,
         concepts=(), status="complete"):
    return [f"m{i}", day, f"q{i}", f"a{i}", mode, reason, status, confidence, authority, verification, cache, latency,
            list(concepts), f"t{i}", "c1"]


TURNS = pd.DataFrame([
    turn(1, DAY1, "DIRECT", latency=100.0, concepts=["Personal data", "Controller"]),
    turn(2, DAY1, "QUALIFIED", confidence=0.6, authority=0.4, verification=0.5, latency=200.0, concepts=["Personal data"]),
    turn(3, DAY2, "ABSTAIN", "LOW_SIMILARITY", confidence=0.1, authority=1.0, verification=None, cache=True, latency=300.0),
    turn(4, DAY2, "ABSTAIN", "OUT_OF_SCOPE", confidence=0.0, authority=0.0, verification=None, latency=400.0,
         status="failed"),
], columns=TURN_COLUMNS)
FEEDBACK = pd.DataFrame([
    ["m1", DAY1, 1, "", "ana", "q1", "a1", "t1"],
    ["m2", DAY1, -1, "=HYPERLINK(\"http://x\")", "ana", "q2", "a2" * 150, "t2"],
    ["m3", DAY2, -1, "missed Article 33", "bob", "q3", "a3", "t3"],
], columns=FEEDBACK_COLUMNS)


def test_summary_matches_hand_computed_values():
    summary = summarise(TURNS, FEEDBACK)
    assert summary.questions == 4 and summary.failed == 1
    assert (summary.thumbs_up, summary.thumbs_down) == (1, 2) and summary.satisfaction == pytest.approx(1 / 3, abs=1e-4)
    assert summary.mode_shares == {"DIRECT": 0.25, "QUALIFIED": 0.25, "ABSTAIN": 0.5}
    assert summary.abstention_reasons == {"LOW_SIMILARITY": 1, "OUT_OF_SCOPE": 1}
    assert summary.verification_rate == 0.75  # (1.0 + 0.5) / 2, abstentions have none
    assert summary.cache_hit_rate == 0.25
    assert summary.latency_p50_ms == 250.0  # median of 100, 200, 300, 400
    assert summary.latency_p95_ms == pytest.approx(385.0)  # linear interpolation: 300 + 0.85 * 100
    assert summary.per_day.loc[DAY1.date()].to_dict() == {"ABSTAIN": 0, "DIRECT": 1, "QUALIFIED": 1}
    assert summary.per_day.loc[DAY2.date()].to_dict() == {"ABSTAIN": 2, "DIRECT": 0, "QUALIFIED": 0}
    assert summary.top_concepts == [("Personal data", 2), ("Controller", 1)]
    assert sorted(summary.authority_scores) == [0.0, 0.4, 1.0, 1.0]
    assert list(summary.negative_feedback["trace_id"]) == ["t3", "t2"], "newest first"
    assert len(summary.negative_feedback.loc[1, "answer"]) == 200


def test_empty_period_gives_zeros_not_errors():
    summary = summarise(pd.DataFrame(columns=TURN_COLUMNS), pd.DataFrame(columns=FEEDBACK_COLUMNS))
    assert summary.questions == 0 and summary.satisfaction is None and summary.mode_shares == {}


def test_feedback_csv_neutralises_spreadsheet_formulas():
    text = feedback_csv(FEEDBACK).decode()
    assert "'=HYPERLINK" in text and "missed Article 33" in text


def test_loading_is_per_tenant_and_per_period(tmp_path):
    db = Database(f"sqlite:///{tmp_path / 'dash.db'}")
    db.create_schema()
    repo = ConversationRepository(db)
    ids = {}
    for name in ("a", "b"):
        tenant = repo.ensure_tenant(name)
        user = repo.ensure_user(tenant.id, "u")
        conversation = repo.create_conversation(tenant.id, user.id).id
        saved = repo.save_turn(tenant.id, conversation, f"question of {name}",
                               ChatResponse(f"answer of {name}", "DIRECT", conversation, latency_ms=10.0,
                                            referenced_nodes=[{"id": "1", "key": "K", "label": f"concept {name}"}]),
                               {"steps": [], "total_ms": 10.0})
        repo.save_feedback(tenant.id, user.id, saved.message_id, -1, f"comment of {name}")
        ids[name] = tenant.id
    now = datetime.now(timezone.utc)
    turns = load_turns(db, ids["a"], now - timedelta(days=1), now + timedelta(minutes=1))
    feedback = load_feedback(db, ids["a"], now - timedelta(days=1), now + timedelta(minutes=1))
    assert list(turns["question"]) == ["question of a"] and list(turns["concepts"]) == [["concept a"]]
    assert list(feedback["comment"]) == ["comment of a"] and list(feedback["question"]) == ["question of a"]
    assert load_turns(db, ids["a"], now + timedelta(minutes=1), now + timedelta(days=1)).empty
