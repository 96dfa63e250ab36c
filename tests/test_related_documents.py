"""Documents that belong together: one cites the other's act number (regintel/retrieval/related_documents.py)."""

from __future__ import annotations

from regintel.retrieval.related_documents import act_number, related_documents


def test_an_acts_number_is_read_from_its_eli_address():
    assert act_number("https://eur-lex.europa.eu/eli/dir/2006/112/oj#art_2") == "2006/112"
    assert act_number("https://eur-lex.europa.eu/eli/reg_impl/2011/282/oj") == "2011/282"
    assert act_number("https://finances.belgium.be/fr/entreprises/tva") is None
    assert act_number("") is None


def test_a_passage_citing_another_documents_act_number_relates_both():
    passages = [
        ("vat-directive", "https://eur-lex.europa.eu/eli/dir/2006/112/oj#art_138", "Les États membres exonèrent ..."),
        ("vat-regulation", "https://eur-lex.europa.eu/eli/reg_impl/2011/282/oj#art_45a",
         "aux fins de l'article 138 de la directive 2006/112/CE, ..."),
        ("gdpr", "https://eur-lex.europa.eu/eli/reg/2016/679/oj#art_3", "This Regulation applies to ..."),
        ("guidance", "https://finances.belgium.be/oss", "Le régime de l'Union (directive 2006/112) ..."),
    ]
    related = related_documents(passages)
    assert related["vat-directive"] == {"vat-regulation", "guidance"}
    assert related["vat-regulation"] == {"vat-directive"}
    assert "gdpr" not in related  # cites no other act, and none cites it


def test_a_passing_mention_of_another_act_relates_nothing():
    """DORA names the GDPR in 2 of its 189 passages: a follow-up on DORA's register of information was searched in
    the GDPR too. The Implementing Regulation cites the Directive throughout."""
    dora = [("dora", f"https://eur-lex.europa.eu/eli/reg/2022/2554/oj#art_{n}", "Financial entities shall ...")
            for n in range(1, 20)]
    dora.append(("dora", "https://eur-lex.europa.eu/eli/reg/2022/2554/oj#art_20", "without prejudice to (EU) 2016/679"))
    gdpr = [("gdpr", "https://eur-lex.europa.eu/eli/reg/2016/679/oj#art_3", "This Regulation applies to ...")]
    regulation = [("vat-regulation", "https://eur-lex.europa.eu/eli/reg_impl/2011/282/oj#art_1", text)
                  for text in ("article 138 de la directive 2006/112/CE", "Le présent règlement ...")]
    directive = [("vat-directive", "https://eur-lex.europa.eu/eli/dir/2006/112/oj#art_138", "Les États membres ...")]
    related = related_documents(dora + gdpr + regulation + directive)
    assert "dora" not in related and "gdpr" not in related
    assert related["vat-regulation"] == {"vat-directive"}
