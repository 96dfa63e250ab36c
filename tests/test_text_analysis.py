"""BM25 tokens (regintel/text/analysis.py): an acronym that is a stop word once lower-cased is kept; folding."""

from __future__ import annotations

import json
import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from regintel.retrieval.bm25_index import IDS_FILE, TOKENS_VERSION, BM25Index
from regintel.text.analysis import tokenize
from regintel.text.question_kinds import content_stems
from regintel.text.normalise import fold, fold_with_offsets


def test_it_as_an_acronym_reads_as_the_regulations_ict_and_the_pronoun_stays_a_stop_word():
    assert tokenize("A major IT outage hit our IT provider", "en") == ["major", "ict", "outag", "hit", "ict", "provid"]
    assert tokenize("ein IT-Vorfall", "de") == ["ict", "vorfall"]
    assert tokenize("it is what it is", "en") == []


def test_a_question_about_an_it_provider_finds_the_ict_passage():
    index = BM25Index()
    index.build(["services", "ict"], ["A provider of services, the provider.",
                                      "Financial entities shall monitor each ICT provider and their ICT systems."],
                ["en", "en"])
    assert index.search("Who counts as an IT provider?", 2)[0][0] == "ict"  # without the acronym: "services"


def test_lawful_is_not_folded_into_law():
    """Snowball stems "lawful" to "law": a question on the lawfulness of processing then matched "Member State law"."""
    assert tokenize("Processing shall be lawful; Member State law", "en") == ["process", "shall", "lawful", "member",
                                                                             "state", "law"]
    assert tokenize("lawfulness, lawfully, unlawfully", "en") == ["lawful", "lawful", "unlawful"]


def test_bases_is_the_plural_of_basis_not_a_form_of_based():
    """"What are the lawful bases for processing personal data?" met "based on Article 6(1)" of Article 10 (stem
    "base") before Article 6's legal basis."""
    assert tokenize("lawful bases; legal basis", "en") == ["lawful", "basi", "legal", "basi"]
    assert tokenize("based on", "en") == ["base"]
    index = BM25Index()
    index.build(["a10", "a6"], ["Processing of data based on Article 6(1) shall be carried out under control.",
                                "The basis for the processing shall be laid down by Union law."], ["en", "en"])
    assert index.search("What are the lawful bases for processing?", 2)[0][0] == "a6"


def _fold_by_character(text: str) -> str:
    """fold() as it was first written: NFKD, then a per-character test; "ß" then written "ss"."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).replace("ß", "ss")


@given(st.text(max_size=60))
def test_fold_gives_what_the_per_character_fold_gave_on_any_text(text):
    assert fold(text) == _fold_by_character(text)


@given(st.text(alphabet=st.sampled_from("aßẞéE\u0301İ ﬁx"), max_size=40))
def test_each_folded_character_points_back_to_the_character_it_comes_from(text):
    folded, offsets = fold_with_offsets(text)
    assert folded == fold(text) and len(offsets) == len(folded)
    assert offsets == sorted(offsets) and all(fold(text[i]).count(c) for c, i in zip(folded, offsets))


def test_german_sharp_s_is_folded_to_ss_so_one_word_stays_one_token():
    """"Verstößen" was read as "versto" and "en", "gemäß" as the content word "gema": a German question then met
    neither the term list's "Verstöße" nor a passage."""
    assert fold("Verstößen gemäß ẞ") == "verstossen gemass ss"
    assert tokenize("Welche Sanktionen drohen bei Verstößen?", "de") == tokenize("Sanktion drohen Verstoss", "de")
    assert tokenize("Maßnahmen", "de") == tokenize("Massnahmen", "de") == ["massnahm"]


def test_fold_strips_diacritics_and_compatibility_forms():
    assert fold("Déclaration ŒUVRE Straße ﬁn Ⅳ") == "declaration œuvre strasse fin iv"
    assert fold("İ") == _fold_by_character("İ") == "i"  # lower() adds a combining dot, which goes


def test_a_bm25_index_remembers_the_tokens_it_was_built_with(tmp_path):
    """An index saved before "ß" was folded to "ss" would find no German question's "Verstoß": it loads as an index of
    older tokens (version 1), which :func:`regintel.retrieval.index_io.open_search_index` rebuilds."""
    index = BM25Index()
    index.build(["a"], ["Verstöße gegen die Verordnung"], ["de"])
    index.save(tmp_path)
    assert BM25Index.load(tmp_path).tokens_version == TOKENS_VERSION
    assert BM25Index.load(tmp_path).search("Welche Sanktionen drohen bei einem Verstoß?", language="de")[0][0] == "a"
    meta = json.loads((tmp_path / IDS_FILE).read_text(encoding="utf-8"))
    del meta["tokens_version"]
    (tmp_path / IDS_FILE).write_text(json.dumps(meta), encoding="utf-8")
    assert BM25Index.load(tmp_path).tokens_version == 1 < TOKENS_VERSION


def test_what_a_question_asks_about_leaves_out_its_question_words_and_auxiliaries():
    assert content_stems("Quelles sanctions prévoit DORA ?", "fr") == set(tokenize("sanctions DORA", "fr"))
    # "gemäß" and "hat" are in the German list, stemmed as the question's words are
    assert content_stems("Welche Pflichten hat der Verantwortliche gemäß der DSGVO?", "de") == \
        set(tokenize("Pflichten Verantwortliche DSGVO", "de"))
