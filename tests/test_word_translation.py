"""Word-by-word translation of question words into a corpus language's own vocabulary (nearest vector)."""

from __future__ import annotations

import zlib

import numpy as np

from regintel.retrieval.crosslingual import load_glossary, plan_query
from regintel.retrieval.word_translation import VocabularyTranslator, question_words, vocabulary

# A toy vector space: each word's vector is its concept's axis, slightly tilted by a per-word noise axis, so words
# of one concept in two languages are close (cosine about 0.98) and words of other concepts are orthogonal.
CONCEPTS = {"voyageurs": 0, "viajeros": 0, "passengers": 0, "remboursement": 1, "refund": 1, "facture": 2,
            "rechnung": 3, "recours": 4, "trimestre": 5, "transport": 6, "transporte": 6}
TILT = {"rechnung": 0.9}  # a word whose nearest neighbour is only loosely related: below the threshold


def toy_embed(texts):
    out = np.zeros((len(texts), 16), dtype=np.float32)
    for i, text in enumerate(texts):
        axis = CONCEPTS.get(text, 15)
        out[i, axis] = 1.0
        out[i, 8 + zlib.crc32(text.encode()) % 7] = TILT.get(text, 0.2)
    return out


def test_vocabulary_keeps_repeated_content_words_with_their_accents():
    texts = ["Le transport de voyageurs est taxé.", "Les voyageurs et le transport; une facture."]
    vocab = vocabulary(texts, "fr")
    assert vocab[:2] == ["transport", "voyageurs"]  # twice each, most frequent first (ties alphabetical)
    assert "facture" not in vocab  # written once
    assert "les" not in vocab and "une" not in vocab  # stop words / short words
    assert vocabulary(["Le régime réduit. Le régime réduit."], "fr") == ["réduit", "régime"]


def test_question_words_are_content_words_once_each():
    assert question_words("¿Dónde tributa el transporte de viajeros, y los viajeros?", "es") == [
        "tributa", "transporte", "viajeros"]  # "dónde" is a stop word


def test_translation_adds_the_nearest_target_word_only_when_close():
    translator = VocabularyTranslator({"fr": ["voyageurs", "remboursement", "recours", "trimestre"]}, toy_embed,
                                      min_cosine=0.93)
    assert translator.translate("transporte de viajeros", "es", "fr") == ["voyageurs"]
    assert translator.translate("a refund for passengers", "en", "fr") == ["remboursement", "voyageurs"]
    assert translator.translate("eine Rechnung", "de", "fr") == []  # nearest word not close enough
    # a word the target texts already write needs no translation, and the same language needs none at all
    assert translator.translate("le trimestre", "fr", "fr") == []
    assert VocabularyTranslator({"fr": ["trimestre"]}, toy_embed).translate("el trimestre", "es", "fr") == []


def test_translation_is_off_for_a_language_without_texts():
    translator = VocabularyTranslator({"fr": ["voyageurs"]}, toy_embed)
    assert translator.translate("viajeros", "es", "en") == []


def test_the_plan_adds_word_translations_to_the_other_language_only():
    calls = []

    def translate(question, source, target):
        calls.append((source, target))
        return ["voyageurs"]

    plan = plan_query("¿Dónde tributa el transporte de viajeros entre dos países?", ["en", "fr"], load_glossary(),
                      translate_words=translate)
    assert plan.language == "es"
    assert plan.lexical["fr"].endswith("voyageurs") and plan.lexical["en"].endswith("voyageurs")
    assert sorted(calls) == [("es", "en"), ("es", "fr")]
    same = plan_query("Who must appoint a data protection officer?", ["en", "fr"], load_glossary(),
                      translate_words=lambda q, s, t: ["délégué"])
    assert "délégué" not in same.lexical["en"]  # the question's own language is searched as written


def test_one_embedding_batch_serves_every_target_language():
    batches = []

    def counting_embed(texts):
        batches.append(list(texts))
        return toy_embed(texts)

    translator = VocabularyTranslator({"fr": ["voyageurs", "trimestre"], "en": ["passengers", "refund"]},
                                      counting_embed)
    question = "el transporte de viajeros y el trimestre"
    assert translator.translate(question, "es", "fr") == ["voyageurs"]
    assert translator.translate(question, "es", "en") == ["passengers"]
    question_batches = [batch for batch in batches if "viajeros" in batch]
    assert question_batches == [["transporte", "viajeros", "trimestre"]]  # once, for both languages
