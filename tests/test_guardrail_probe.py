"""The guardrail bench's independent probe set: well formed, and scored per half."""

from __future__ import annotations

from collections import Counter
from types import SimpleNamespace

import pytest

from regintel.bench.guardrails import PROBE_ALLOWED, PROBE_PATHS, score_probe
from regintel.chat import guardrail_model as gm
from regintel.retrieval.data_files import jsonl_records


@pytest.mark.parametrize("path", PROBE_PATHS, ids=lambda p: p.name)
def test_each_probe_set_has_every_refused_type_allowed_questions_and_two_halves(path):
    items = [record for _, record in jsonl_records(path)]
    labels = Counter(i["label"] for i in items)
    assert set(labels) == set(gm.FORBIDDEN) | {PROBE_ALLOWED}
    assert all(labels[t] >= 10 for t in gm.FORBIDDEN) and labels[PROBE_ALLOWED] >= 40
    halves = Counter(i["half"] for i in items)
    assert set(halves) == {"looked", "unseen"} and abs(halves["looked"] - halves["unseen"]) <= 2
    assert all(i.get("allowed_type") in gm.ALLOWED for i in items if i["label"] == PROBE_ALLOWED and "allowed_type" in i)
    assert {i["lang"] for i in items} >= {"en", "fr", "de", "es"}


def test_a_refused_question_counts_only_when_refused_with_its_type_and_an_allowed_one_when_kept():
    items = [{"label": "OPINION", "half": "unseen"}, {"label": "OPINION", "half": "unseen"},
             {"label": "PREDICTION", "half": "unseen"}, {"label": PROBE_ALLOWED, "half": "unseen"},
             {"label": PROBE_ALLOWED, "half": "looked"}]
    decisions = [SimpleNamespace(allowed=False, query_type="OPINION"),  # right
                 SimpleNamespace(allowed=False, query_type="PREDICTION"),  # refused, wrong type
                 SimpleNamespace(allowed=True, query_type="DEFINITION"),  # not refused
                 SimpleNamespace(allowed=True, query_type="OBLIGATION"),  # kept
                 SimpleNamespace(allowed=False, query_type="OPINION")]  # over-refused
    halves = score_probe(items, decisions)
    assert halves["unseen"]["refused_right"] == 1 and halves["unseen"]["n_refused"] == 3
    assert halves["unseen"]["allowed_kept"] == 1 and halves["unseen"]["per_label"]["OPINION"] == [1, 2]
    assert halves["looked"]["allowed_kept"] == 0 and halves["looked"]["n_allowed"] == 1
