"""Cross-reference parsing on real article texts of the corpus and on the forms regulation uses."""

from __future__ import annotations

import pytest

from regintel.graph.crossrefs import parse_cross_references
from regintel.graph.seed import act_ids_for_celex
from tests.test_chunking import by_ref, corpus_chunks


def targets(text: str, language: str = "en") -> list[tuple[str, str, str]]:
    return [(r.kind, r.target, r.act) for r in parse_cross_references(text, language)]


@pytest.mark.parametrize("text, expected", [
    ("as referred to in Article 6(1)", [("article", "6", "")]),
    ("the controller referred to in Article 4 point (7)", [("article", "4", "")]),
    ("Articles 12 to 14 apply", [("article", "12", ""), ("article", "13", ""), ("article", "14", "")]),
    ("Articles 15 and 17", [("article", "15", ""), ("article", "17", "")]),
    ("Regulation (EU) 2016/679 applies", [("act", "regulation:2016/679", "")]),
    ("Regulation (EU) No 1093/2010", [("act", "regulation:1093/2010", "")]),
    ("referred to in Article 3(2) of Directive 2011/61/EU",
     [("external_article", "3", "directive:2011/61"), ("act", "directive:2011/61", "")]),
    ("Article 2(5), point (3), of Directive 2013/36/EU",
     [("external_article", "2", "directive:2013/36"), ("act", "directive:2013/36", "")]),
    ("no reference here, only 2016 and 679 as numbers", []),
])
def test_english_forms(text, expected):
    assert targets(text) == expected


@pytest.mark.parametrize("text, expected", [
    ("visées aux articles 282 à 284", [("article", "282", ""), ("article", "283", ""), ("article", "284", "")]),
    ("des articles 33 et 36", [("article", "33", ""), ("article", "36", "")]),
    ("l'article 2 bis s'applique", [("article", "2 bis", "")]),
    ("l’article 56, paragraphe 2, premier alinéa, de la directive 2006/112/CE",
     [("external_article", "56", "directive:2006/112"), ("act", "directive:2006/112", "")]),
    ("le règlement (UE) no 904/2010", [("act", "regulation:904/2010", "")]),
])
def test_french_forms(text, expected):
    assert targets(text, "fr") == expected


def test_real_gdpr_article_6_cites_articles_9_and_23():
    text = " ".join(c.text for c in by_ref(corpus_chunks("eu-gdpr"), "Article 6"))
    cited = {r.target for r in parse_cross_references(text) if r.kind == "article"}
    assert {"9", "23"} <= cited


def test_real_dora_article_cites_the_gdpr_as_an_act():
    text = " ".join(c.text for c in corpus_chunks("eu-dora"))
    acts = {r.target for r in parse_cross_references(text) if r.kind == "act"}
    assert "regulation:2016/679" in acts and "directive:2022/2555" in acts


def test_celex_numbers_map_to_both_citation_styles():
    assert act_ids_for_celex("32016R0679") == ["regulation:2016/679", "regulation:679/2016"]
    assert act_ids_for_celex("02006L0112") == ["directive:2006/112", "directive:112/2006"]
    assert act_ids_for_celex("") == []
