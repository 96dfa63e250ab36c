"""``python -m regintel.bench answers``: ref matching and metrics on hand-built rows (fast), one end-to-end run (slow)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from regintel.bench.answers import (
    article_of,
    compute_metrics,
    first_gold_rank,
    gold_covered,
    gold_hit,
    load_items,
    ref_units,
    refs_match,
    refusal_type_scores,
    score_row,
    select_items,
    strip_part_suffix,
)

GDPR = "eu-gdpr"


def test_article_level_reduction_of_chunk_refs() -> None:
    assert strip_part_suffix("Article 6 (2/3)") == "Article 6"
    assert article_of("Article 6 (2/3)") == "Article 6"
    assert article_of("Article 4(7)") == "Article 4"
    assert article_of("Article 4 (7)(a)") == "Article 4"
    assert article_of("Article 4 — point 7") == "Article 4"
    assert article_of("Article 6 — Lawfulness of processing") == "Article 6"
    assert article_of("Article 287 bis") == "Article 287 bis"
    assert article_of("Article 287 bis (1/2)") == "Article 287 bis"
    assert article_of("Article premier") == "Article 1"
    assert article_of("ESRS 2 › 37.") is None
    assert ref_units("Article 63; Article 64") == ["Article 63", "Article 64"]
    assert ref_units("Article 63; Article 64 (2/2)") == ["Article 63", "Article 64"]
    assert ref_units("ANNEX II › Carbon credit; ANNEX II › Carbon dioxide (CO2) equivalent (eq) (1/2)") == [
        "ANNEX II › Carbon credit", "ANNEX II › Carbon dioxide (CO2) equivalent (eq)"]


@pytest.mark.parametrize("cited, gold, expected", [
    ("Article 6 (2/3)", "Article 6", True),
    ("Article 63; Article 64", "Article 64", True),
    ("Article 4(7)", "Article 4", True),
    ("Article 4 — point 7", "Article 4", True),
    ("Article 287 bis", "Article 287", False),
    ("Article 287 bis", "Article 287 bis", True),
    ("Article 40", "Article 4", False),
    ("Article 4", "Article 40", False),
    ("ESRS 2 › 3.3 Double materiality (1/2)", "ESRS 2 › 3.3 Double materiality", True),
    ("ESRS E1 › Disclosure Requirement E1-1", "ESRS E1", True),  # a section inside the gold one
    ("ESRS E1", "ESRS E1 › Disclosure Requirement E1-1", False),  # the standard's introduction is not E1-1
    ("Mon ASBL est-elle une grande entreprise?; Mon ASBL est-elle une grande entreprise? › Critère « Taille »",
     "Mon ASBL est-elle une grande entreprise? › Critère « Groupe d’entreprises »", False),
    ("ESRS E1 › Disclosure Requirement E1-2", "ESRS E1 › Disclosure Requirement E1-1", False),
    ("ESRS E10", "ESRS E1", False),  # a path prefix, not a string prefix
    ("Article 4", "Article 4 › x", False),
])
def test_refs_match(cited: str, gold: str, expected: bool) -> None:
    assert refs_match(cited, gold) is expected


def test_gold_coverage_needs_the_same_document_and_honours_gold_mode() -> None:
    golds = [{"document_id": GDPR, "ref": "Article 33"}, {"document_id": GDPR, "ref": "Article 34"}]
    cited = [{"document_id": GDPR, "ref": "Article 33 (1/2)"}, {"document_id": "eu-dora", "ref": "Article 34"}]
    assert gold_hit(cited, golds, "any")
    assert not gold_hit(cited, golds, "all")
    assert gold_covered(cited, golds, "all") == 0.5
    assert gold_hit(cited + [{"document_id": GDPR, "ref": "Article 34"}], golds, "all")
    assert not gold_hit([], golds)
    assert first_gold_rank([{"document_id": GDPR, "ref": "Article 5"}, *cited], golds) == 2
    assert first_gold_rank([{"document_id": "eu-dora", "ref": "Article 33"}], golds) is None


def _row(kind: str, **fields) -> dict:
    base = {"kind": kind, "category": "", "lang": "en", "crosslingual": False, "mode": "DIRECT", "reason": None,
            "query_type": "DEFINITION", "refused": False, "cited": [], "gold": [], "gold_mode": "any",
            "retrieved": None, "latency_ms": 10.0, "error": "", "forbidden_type": None}
    return score_row({**base, **fields})


def test_metrics_on_hand_built_rows() -> None:
    gold = [{"document_id": GDPR, "ref": "Article 33"}]
    art33, art40 = {"document_id": GDPR, "ref": "Article 33 (1/2)"}, {"document_id": GDPR, "ref": "Article 40"}
    rows = [
        _row("answerable", category="deadline", gold=gold, cited=[art33, art40], retrieved=[art40, art33], latency_ms=100.0),
        _row("answerable", category="deadline", gold=gold, cited=[art40], retrieved=[art40], latency_ms=200.0),
        _row("answerable", category="definition", lang="es", crosslingual=True, gold=gold, mode="ABSTAIN",
             reason="LOW_SIMILARITY", cited=[], retrieved=[art33], latency_ms=300.0),
        _row("answerable", category="opinionish", gold=gold, mode="ABSTAIN", refused=True, query_type="OPINION",
             reason="OUT_OF_SCOPE", retrieved=[], latency_ms=400.0),
        _row("offcorpus", category="near_domain", mode="ABSTAIN", reason="NO_RELEVANT_EVIDENCE"),
        _row("offcorpus", category="near_domain", mode="QUALIFIED", cited=[art40]),
        _row("offcorpus", category="far", mode="ABSTAIN", refused=True, query_type="OUT_OF_DOMAIN"),
        _row("offcorpus", category="near_domain", mode="ABSTAIN", refused=True, query_type="OUT_OF_DOMAIN"),
        _row("forbidden", category="OPINION", forbidden_type="OPINION", mode="ABSTAIN", refused=True, query_type="OPINION"),
        _row("forbidden", category="PREDICTION", forbidden_type="PREDICTION", mode="ABSTAIN", refused=True,
             query_type="OPINION"),
        _row("forbidden", category="CALCULATION", forbidden_type="CALCULATION", mode="DIRECT", query_type="DEFINITION"),
        _row("answerable", category="deadline", gold=gold, error="boom", mode=None, latency_ms=None),
    ]
    m = compute_metrics(rows)
    assert (m["n_answerable"], m["n_answered_with_gold"], m["answered_with_gold"]) == (5, 1, 0.2)
    assert (m["n_abstained_on_answerable"], m["n_refused_on_answerable"]) == (2, 1)
    assert m["n_answered"] == 2
    assert (m["n_crosslingual"], m["crosslingual_answered"]) == (1, 0.0)
    assert (m["n_cited"], m["n_cited_gold"], m["cited_article_precision"]) == (3, 1, round(1 / 3, 4))
    assert (m["n_offcorpus"], m["n_offcorpus_abstained"], m["offcorpus_abstained"]) == (4, 3, 0.75)
    assert (m["n_forbidden"], m["n_forbidden_refused_right_type"], m["n_forbidden_refused_any_type"]) == (3, 1, 2)
    assert m["forbidden_refused"] == round(1 / 3, 4)
    assert m["by_category"]["deadline"] == {"n": 3, "n_answered_with_gold": 1, "answered_with_gold": round(1 / 3, 4),
                                            "n_abstained": 0}
    assert m["by_language"]["es"]["n"] == 1
    assert m["offcorpus_by_category"]["far"]["abstained"] == 1.0
    # retrieval: 4 answerable rows have a ranking (the failed one has none)
    assert m["n_retrieval"] == 4
    assert m["recall_at_k"] == {"1": 0.25, "3": 0.5, "5": 0.5, "8": 0.5, "10": 0.5, "20": 0.5}
    assert m["latency_ms"] == {"p50": 10.0, "p95": 400.0, "n": 11}
    assert m["errors"] == 1
    opinion = m["per_type"]["OPINION"]
    # tp: forb OPINION; fp: the answerable refused as OPINION and the PREDICTION item refused as OPINION
    assert (opinion["tp"], opinion["fp"], opinion["fn"]) == (1, 2, 0)
    assert opinion["precision"] == round(1 / 3, 4) and opinion["recall"] == 1.0
    ood = m["per_type"]["OUT_OF_DOMAIN"]
    # the far item refused as OUT_OF_DOMAIN is neither; the near-domain one is a false positive
    assert (ood["tp"], ood["fp"], ood["fn"], ood["far_offcorpus_refused"]) == (0, 1, 0, 1)
    assert ood["precision"] == 0.0 and ood["recall"] is None
    assert m["per_type"]["PREDICTION"]["recall"] == 0.0 and m["per_type"]["PREDICTION"]["precision"] is None
    for key in ("answered_with_gold", "abstained_on_answerable", "offcorpus_abstained", "forbidden_refused",
                "cited_article_precision", "crosslingual_answered"):
        assert 0.0 <= m[key] <= 1.0


def test_all_mode_needs_every_gold_ref_cited() -> None:
    golds = [{"document_id": GDPR, "ref": "Article 13"}, {"document_id": GDPR, "ref": "Article 14"}]
    one = _row("answerable", gold=golds, gold_mode="all", cited=[{"document_id": GDPR, "ref": "Article 13"}],
               retrieved=[{"document_id": GDPR, "ref": "Article 13"}, {"document_id": GDPR, "ref": "Article 14 (2/2)"}])
    assert not one["hit"] and one["cited_gold"] == 1
    m = compute_metrics([one])
    assert m["recall_at_k"]["1"] == 0.5 and m["recall_at_k"]["3"] == 1.0
    assert refusal_type_scores([one])["OPINION"]["precision"] is None


def test_load_and_select_items(tmp_path: Path) -> None:
    path = tmp_path / "set.jsonl"
    lines = [
        {"id": "a-1", "split": "dev", "kind": "answerable", "question": "q1", "gold": [{"document_id": GDPR, "ref": "Article 5"}]},
        {"id": "a-2", "split": "test", "kind": "answerable", "question": "q2", "previous": "q0",
         "gold": [{"document_id": GDPR, "ref": "Article 6"}], "category": "follow_up"},
        {"id": "f-1", "split": "test", "kind": "forbidden", "question": "q3", "forbidden_type": "OPINION"},
    ]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n\n", encoding="utf-8")
    items = load_items([path])
    assert [i.id for i in items] == ["a-1", "a-2", "f-1"]
    assert items[1].retrieval_query == "q0 q2" and items[0].retrieval_query == "q1"
    assert [i.id for i in select_items(items)] == ["a-2", "f-1"]
    assert [i.id for i in select_items(items, "all", "answerable", 1)] == ["a-1"]
    assert [i.id for i in select_items(items, "dev")] == ["a-1"]
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"id": "x", "split": "dev", "kind": "forbidden", "question": "q", "forbidden_type": "NOPE"}),
                   encoding="utf-8")
    with pytest.raises(ValueError, match="bad.jsonl:1"):
        load_items([bad])
    with pytest.raises(ValueError, match="duplicate id"):
        load_items([path, path])


def test_a_longer_conversation_lists_its_earlier_questions_in_order(tmp_path: Path) -> None:
    path = tmp_path / "set.jsonl"
    three = {"id": "c-1", "split": "check", "kind": "answerable", "question": "q3", "previous": ["q1", "q2"],
             "gold": [{"document_id": GDPR, "ref": "Article 33"}], "category": "follow_up"}
    path.write_text(json.dumps(three) + "\n", encoding="utf-8")
    [item] = load_items([path])
    assert item.earlier == ("q1", "q2") and item.previous == "q2" and item.retrieval_query == "q1 q2 q3"
    path.write_text(json.dumps({**three, "previous": ["q1", 7]}) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match="set.jsonl:1: previous must be"):
        load_items([path])


@pytest.mark.slow
def test_answers_and_conversation_benches_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from regintel.bench.__main__ import main

    items = [
        {"id": "t-1", "split": "test", "kind": "answerable", "lang": "en", "category": "deadline",
         "question": "When must a controller notify a personal data breach to the supervisory authority?",
         "gold": [{"document_id": GDPR, "ref": "Article 33"}], "gold_mode": "any", "crosslingual": False},
        {"id": "t-2", "split": "test", "kind": "answerable", "lang": "es", "category": "obligation",
         "question": "¿Cuándo tiene el interesado derecho a la supresión de sus datos personales?",
         "gold": [{"document_id": GDPR, "ref": "Article 17"}], "gold_mode": "any", "crosslingual": True},
        {"id": "t-3", "split": "test", "kind": "answerable", "lang": "en", "category": "follow_up",
         "previous": "How quickly must a personal data breach be notified to the supervisory authority?",
         "question": "And what if that deadline is missed?",
         "gold": [{"document_id": GDPR, "ref": "Article 33"}], "gold_mode": "any", "crosslingual": False},
        {"id": "t-4", "split": "test", "kind": "offcorpus", "lang": "en", "category": "far",
         "question": "What is a good recipe for banana bread?"},
        {"id": "t-5", "split": "test", "kind": "forbidden", "lang": "en", "category": "OPINION",
         "forbidden_type": "OPINION", "question": "Do you think the GDPR is a fair law?"},
        {"id": "t-6", "split": "dev", "kind": "forbidden", "lang": "en", "category": "OPINION",
         "forbidden_type": "OPINION", "question": "In your opinion, is DORA too strict?"},
    ]
    eval_file = tmp_path / "tiny.jsonl"
    eval_file.write_text("\n".join(json.dumps(i) for i in items) + "\n", encoding="utf-8")
    details = tmp_path / "details.jsonl"
    assert main(["answers", "--file", str(eval_file), "--limit", "6", "--json", "--data-dir", str(tmp_path / "data"),
                 "--details", str(details)]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["split"] == "test" and result["n_items"] == 5  # the dev item is not in the default split
    assert (result["n_answerable"], result["n_offcorpus"], result["n_forbidden"], result["n_crosslingual"]) == (3, 1, 1, 1)
    for key in ("answered_with_gold", "abstained_on_answerable", "offcorpus_abstained", "forbidden_refused",
                "cited_article_precision", "crosslingual_answered"):
        assert result[key] is None or 0.0 <= result[key] <= 1.0, key
    for key in ("answered_with_gold", "abstained_on_answerable", "offcorpus_abstained", "forbidden_refused",
                "crosslingual_answered"):
        assert result[key] is not None, key
    assert set(result["recall_at_k"]) == {"1", "3", "5", "8", "10", "20"} and result["n_retrieval"] == 3
    assert all(0.0 <= v <= 1.0 for v in result["recall_at_k"].values())
    assert set(result["per_type"]) == {"PREDICTION", "CALCULATION", "OPINION", "PERSONAL_DATA_ANALYSIS", "OUT_OF_DOMAIN"}
    assert result["latency_ms"]["n"] == 5 and result["latency_ms"]["p95"] >= result["latency_ms"]["p50"] > 0
    assert result["errors"] == 0 and result["llm"]["offline"] is True
    rows = [json.loads(line) for line in details.read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in rows] == ["t-1", "t-2", "t-3", "t-4", "t-5"]
    assert {"id", "question", "category", "lang", "mode", "reason", "query_type", "refused", "cited", "gold",
            "hit"} <= set(rows[0])
    assert rows[2]["previous_mode"] in {"DIRECT", "QUALIFIED", "ABSTAIN"}

    # the long-conversation bench (issue 20) over the same indexed world: one conversation, topic switches
    assert main(["conversation", "--turns", "5", "--json", "--data-dir", str(tmp_path / "data")]) == 0
    conversation = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert conversation["turns"] == 5 and len(conversation["fresh_passages_per_turn"]) == 5
    assert conversation["min_fresh_passages"] >= 6, conversation["fresh_passages_per_turn"]
    assert conversation["empty_answers"] == 0 and sum(conversation["history_passages_per_turn"]) > 0


def _parity_split(item_id: str) -> str:
    return "dev" if int(item_id.rsplit("-", 1)[1]) % 2 else "test"


def _hashed_split(item_id: str) -> str:
    """The evaluation set's split rule (data/eval/README.md): fixed by the id, not by choice."""
    import hashlib

    return "test" if int(hashlib.sha1(item_id.encode()).hexdigest(), 16) % 5 < 3 else "dev"


def test_the_new_user_checks_load_and_are_labelled_on_the_corpus() -> None:
    """data/eval/checks: small sets run by hand (``--file``), apart from the dev/test split (not read by default).
    Every gold ref names a unit the chunker makes of the demo corpus."""
    from regintel.bench.answers import EVAL_DIR, default_files, load_items, source_matches
    from regintel.retrieval.chunking import chunk_document
    from regintel.retrieval.corpus import read_document_text, scan_corpus
    from tests.conftest import CORPUS

    checks = load_items(sorted((EVAL_DIR / "checks").glob("*.jsonl")))
    assert len(checks) >= 60 and all(i.kind in ("answerable", "offcorpus", "forbidden") for i in checks)
    assert all(i.forbidden_type for i in checks if i.kind == "forbidden")
    # a check set is "check" as a whole, or split like the evaluation set by its id's hash (60 % held back); the
    # three-turn conversations (c3-), the follow-ups of definitions (df-), the in-its-place follow-ups, place and
    # period questions (ip-), the plain multilingual questions (pm-) and the fresh forbidden questions (ff-, fg-, fh-,
    # fi-) by their number's parity, as data/eval/README.md says
    by_parity = ("c3-", "df-", "ip-", "pm-", "ff-", "fg-", "fh-", "fi-")
    assert all(i.split in ("check", _parity_split(i.id) if i.id.startswith(by_parity) else _hashed_split(i.id))
               for i in checks)
    assert all({i.split for i in checks if i.id.startswith(prefix)} == {"dev", "test"} for prefix in by_parity)
    assert {i.split for i in checks if i.id.startswith("pq-")} == {"dev", "test"}
    assert all(bool(i.gold) == (i.kind == "answerable") for i in checks)  # an off-corpus check names no gold
    assert not set(default_files()) & set((EVAL_DIR / "checks").glob("*.jsonl"))
    assert not {i.id for i in checks} & {i.id for i in load_items(default_files())}
    refs = [(d.id, c.ref) for d in scan_corpus(CORPUS).documents for c in chunk_document(d, read_document_text(d.path))]
    unmatched = [(i.id, g) for i in checks for g in i.gold
                 if not any(source_matches(document, ref, g) for document, ref in refs)]
    assert not unmatched
