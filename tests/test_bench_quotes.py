"""Sentence-level scoring of answers (regintel.bench.quotes) and its gold file."""

from __future__ import annotations

import json

import pytest

from regintel.bench.answers import EvalItem, attach_gold_quotes, compute_metrics, load_items, default_files
from regintel.bench.quotes import QUOTES_PATH, load_gold_quotes, quote_coverage, quotes_gold, words

ART_3_2_A = "the offering of goods or services, irrespective of whether a payment of the data subject is required, to such data subjects in the Union; or"
ART_3_3 = ("This Regulation applies to the processing of personal data by a controller not established in the Union, "
           "but in a place where Member State law applies by virtue of public international law.")


def test_an_answer_quoting_the_gold_sentence_verbatim_covers_it_whatever_its_markers_and_line_breaks():
    answer = f"From Article 3 of GDPR (offline mode, quoted verbatim):\n\n(a) {ART_3_2_A.replace(' to such', chr(10) + 'to such')} [1]"
    assert quote_coverage(answer, ART_3_2_A) == 1.0
    assert quotes_gold(answer, [ART_3_3, ART_3_2_A])


def test_the_right_article_quoted_with_another_sentence_does_not_count():
    answer = f"From Article 3 of GDPR (offline mode, quoted verbatim):\n\n{ART_3_3} [1]"
    assert quote_coverage(answer, ART_3_2_A) < 0.2
    assert not quotes_gold(answer, [ART_3_2_A])


def test_half_a_long_quote_counts_and_less_does_not():
    quote = " ".join(f"w{i}" for i in range(40))
    first_half = " ".join(f"w{i}" for i in range(22))
    first_third = " ".join(f"w{i}" for i in range(14))
    assert quotes_gold(f"... {first_half} ...", [quote])
    assert not quotes_gold(f"... {first_third} ...", [quote])


def test_a_short_quote_counts_only_whole_and_in_order():
    assert quote_coverage("The period is 72 hours after becoming aware.", "72 hours") == 1.0
    assert quote_coverage("hours 72", "72 hours") == 0.0
    assert not quotes_gold("anything", [])


def test_the_quote_metrics_count_labelled_answerable_rows_only():
    rows = [
        {"kind": "answerable", "hit": True, "quote_coverage": 0.8, "quoted_gold": True, "cited": [], "gold": []},
        {"kind": "answerable", "hit": True, "quote_coverage": 0.1, "quoted_gold": False, "cited": [], "gold": []},
        {"kind": "answerable", "hit": False, "quote_coverage": 0.0, "quoted_gold": False, "cited": [], "gold": []},
        {"kind": "answerable", "hit": False, "cited": [], "gold": []},  # no gold quotes
        {"kind": "forbidden", "hit": True, "refused": True},
    ]
    metrics = compute_metrics(rows)
    assert metrics["n_quote_labelled"] == 3 and metrics["n_quoted_gold_text"] == 1
    assert metrics["quoted_gold_text"] == pytest.approx(1 / 3, abs=1e-4)
    assert metrics["n_quote_labelled_hits"] == 2 and metrics["quoted_gold_text_when_cited"] == 0.5


def test_the_median_answer_length_is_reported_over_answered_answerable_items():
    rows = [{"kind": "answerable", "mode": "DIRECT", "answer_chars": n, "cited": [], "gold": []} for n in (100, 300, 900)]
    rows.append({"kind": "answerable", "mode": "ABSTAIN", "answer_chars": 5000, "cited": [], "gold": []})
    assert compute_metrics(rows)["answer_chars_p50"] == 300


def test_a_malformed_quotes_file_is_refused_with_its_line(tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_text(json.dumps({"id": "a", "quotes": ["x"]}) + "\n" + json.dumps({"id": "b", "quotes": []}) + "\n")
    with pytest.raises(ValueError, match=r"q.jsonl:2"):
        load_gold_quotes(path)
    assert load_gold_quotes(tmp_path / "absent.jsonl") == {}


def test_quotes_attach_to_answerable_items_only():
    items = [EvalItem("a", "dev", "answerable", "q", gold=[{"document_id": "d", "ref": "Article 1"}]),
             EvalItem("b", "dev", "forbidden", "q", forbidden_type="OPINION")]
    attach_gold_quotes(items, {"a": ["one quote"], "b": ["never"]})
    assert items[0].gold_quotes == ["one quote"] and items[1].gold_quotes == []


def test_every_answerable_evaluation_item_has_gold_quotes_found_verbatim_in_its_gold_units():
    """The shipped gold quotes: one line per answerable item of data/eval and of the check files labelled with
    quotes, each quote a passage of a gold unit."""
    from regintel.bench.answers import EVAL_DIR, refs_match
    from regintel.config import REPO_ROOT
    from regintel.retrieval.chunking import chunk_document
    from regintel.retrieval.corpus import read_document_text, scan_corpus

    quotes = load_gold_quotes(QUOTES_PATH)
    quoted_checks = [EVAL_DIR / "checks" / name for name in ("conditions_lists_scope.jsonl",
                                                             "paragraphs_duties_requests.jsonl",
                                                             "aspect_follow_ups.jsonl")]
    answerable = [i for i in load_items([*default_files(), *quoted_checks]) if i.kind == "answerable"]
    assert {i.id for i in answerable} == set(quotes)
    chunks: dict[str, list] = {}
    for doc in scan_corpus(REPO_ROOT / "data" / "corpus").documents:
        chunks[doc.id] = chunk_document(doc, read_document_text(doc.path))
    for item in answerable:
        text = " ".join(words(" ".join(c.text for g in item.gold for c in chunks[g["document_id"]]
                                       if refs_match(c.ref, g["ref"]))))
        for quote in quotes[item.id]:
            assert " ".join(words(quote)) in text, (item.id, quote[:60])
