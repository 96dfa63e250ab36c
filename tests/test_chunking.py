"""Article-aware chunking on each heading style of the demo corpus; definitions as units, lists kept whole,
headings in every part, and the parent-document widening of a turn's context (issue 16 item 4)."""

from __future__ import annotations

import importlib.util
import re

import pytest

from regintel.bench.answers import article_of, ref_units
from regintel.chat.context import ArticleSiblings, ContextPassage, build_unified_context
from regintel.retrieval.chunking import Chunk, chunk_document, demote_stray_headings, is_definition, parse_units
from regintel.retrieval.corpus import CorpusDocument, read_document_text, scan_corpus
from regintel.retrieval.sources import Source
from regintel.retrieval.unit_roles import is_navigational

from tests.conftest import CORPUS, REPO_ROOT

UPSTREAM_CORPUS = REPO_ROOT.parent / "shared" / "data" / "corpus"
UPSTREAM_ESRS = UPSTREAM_CORPUS / "eu" / "esrs_delegated_reg_2023_2772.md"
UPSTREAM_ASBL = UPSTREAM_CORPUS / "be" / "be-guidance-asbl-tva-fr.md"


def repair_script(name: str):
    """A committed repair script (scripts/<name>.py, a data-preparation tool, not a module)."""
    spec = importlib.util.spec_from_file_location(name, REPO_ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def repair_esrs_headings(text: str) -> tuple[str, list[str]]:
    return repair_script("repair_esrs_headings").repair(text)


def doc(doc_id: str = "doc", language: str = "en") -> CorpusDocument:
    return CorpusDocument(id=doc_id, title="Test Regulation", short_title="TR", path=CORPUS, language=language,
                          authority_level="eu_law", jurisdiction="EU", source_url="https://example.org/tr")


def corpus_chunks(doc_id: str) -> list[Chunk]:
    document = next(d for d in scan_corpus(CORPUS).documents if d.id == doc_id)
    return chunk_document(document, read_document_text(document.path))


def by_ref(chunks: list[Chunk], ref: str) -> list[Chunk]:
    return [c for c in chunks if c.ref == ref or c.ref.startswith(ref + " (")]


def test_eurlex_english_articles_get_article_refs_and_chapter_path():
    chunks = corpus_chunks("eu-gdpr")
    article6 = by_ref(chunks, "Article 6")
    assert article6, "Article 6 must be its own chunk(s)"
    assert article6[0].heading == "Article 6 — Lawfulness of processing"
    assert article6[0].section_path == "CHAPTER II — Principles"
    assert article6[0].chunk_id.startswith("eu-gdpr#art-6")
    assert "Processing shall be lawful only if" in article6[0].text
    assert all(c.jurisdiction == "EU" and c.language == "en" and c.authority_level == "eu_law" for c in chunks)
    # "Open the source" opens the article, not the act: EUR-Lex anchors every article as id="art_N" (issue 23)
    assert article6[0].source_url == "https://eur-lex.europa.eu/eli/reg/2016/679/oj#art_6"
    preamble = [c for c in chunks if not c.ref.startswith("Article")]
    assert all("#" not in c.source_url for c in preamble)


def test_french_articles_bis_and_premier():
    directive = corpus_chunks("eu-vat-directive-fr")
    assert by_ref(directive, "Article 2"), "'##### Article 2' is recognised"
    bis = [c for c in directive if c.ref.startswith("Article 14 bis")]
    assert bis and bis[0].chunk_id.startswith("eu-vat-directive-fr#art-14-bis")
    assert by_ref(directive, "Article 1")[0].section_path.startswith("TITRE PREMIER")
    regulation = corpus_chunks("eu-vat-ir-282-2011-fr")
    first = [c for c in regulation if "Article 1" in c.ref.split("; ")]
    assert first, "'Article premier' is read as Article 1"


def test_a_heading_indented_by_up_to_three_spaces_is_a_heading():
    """CommonMark reads "   #### Article 2" as a heading (four spaces would be code): the VAT Implementing
    Regulation's " #### Article 5 ter" (what "facilitating" a supply through a marketplace means) was filed, and
    cited, as the end of Article 5 bis."""
    text = ("#### Article 1\n\nThe first rule applies to every supply of goods made by a taxable person.\n\n"
            "   #### Article 2\n\nThe second rule applies to every supply of services made by a taxable person.\n")
    assert [c.ref for c in chunk_document(doc(), text, min_chars=10)] == ["Article 1", "Article 2"]
    regulation = corpus_chunks("eu-vat-ir-282-2011-fr")
    ter = by_ref(regulation, "Article 5 ter")
    assert ter and ter[0].text.startswith("Aux fins de l’application de l’article 14 bis")
    assert all("le terme “facilite”" not in c.text for c in regulation if "Article 5 bis" in c.ref)


def test_esrs_application_requirements_keep_their_standard_in_the_path():
    """The converted ESRS gives some application requirements a heading of their own ("#### AR 12") and not their
    neighbours ("AR 11. …" inline): every one is read as a paragraph of its requirement, cited under it."""
    chunks = corpus_chunks("eu-esrs")
    ar12 = [c for c in chunks if "AR 12. When disclosing the alignment of its policies" in c.text]
    assert ar12 and all("Disclosure Requirement S1-1 – Policies related to own workforce" in c.ref for c in ar12)
    assert all(c.section_path.startswith("ESRS") for c in ar12)
    assert not any(re.search(r"› (?:AR )?\d+\.?(?: \(\d+/\d+\))?$", c.ref) for c in chunks), "no bare-number refs"


def test_a_heading_that_only_numbers_a_paragraph_is_that_paragraph_of_its_section():
    """A converted PDF's "#### 37." is paragraph 37 of the section above it (cited as "3.3 Double materiality", not
    "ESRS 2 › 37."); "#### (b)" is point (b) of the list above it; a bare number before a real heading is dropped."""
    text = ("# Standard\n\n## ESRS 1\n\n#### 3.3 Double materiality\n\n#### 37.\n\nDouble materiality has two "
            "dimensions: impact materiality and financial materiality.\n\n#### 38.\n\nThe two assessments are "
            "inter-related and their interdependencies shall be considered.\n\nThe undertaking shall disclose:\n\n"
            "- (a) its impacts;\n#### (b)\n\nits risks.\n\n#### ii. chronic risks\n\n#### 41.\n\n"
            "#### 3.4 Impact materiality\n\n43. A sustainability matter is material from an impact perspective "
            "when it pertains to the undertaking’s material actual or potential impacts on people or the environment.\n")
    units = parse_units(text)
    assert [u.ref for u in units] == ["ESRS 1 › 3.3 Double materiality", "ESRS 1 › 3.4 Impact materiality"]
    assert units[0].paragraphs[:2] == [
        "37. Double materiality has two dimensions: impact materiality and financial materiality.",
        "38. The two assessments are inter-related and their interdependencies shall be considered."]
    assert units[0].paragraphs[2:] == ["The undertaking shall disclose:", "- (a) its impacts;", "- (b) its risks.",
                                       "- ii. chronic risks"]
    assert demote_stray_headings(["#### Article 12", "", "text"]) == ["#### Article 12", "", "text"]


def test_a_heading_that_continues_a_sentence_is_text_of_its_section():
    """A converted PDF's "#### and" between two points of a list is a word of the list, not a section: the rest of
    the requirement stays under it (it was cited as "ESRS 2 › and")."""
    text = ("# Set\n\n## ESRS 2 General disclosures\n\n#### Disclosure Requirement GOV-1 – The role of the bodies\n\n"
            "21. The undertaking shall disclose:\n\n(d) the percentage by gender;\n\n#### and\n\n"
            "(e) the percentage of independent board members.\n\n#### Strategy\n\nText.\n")
    units = parse_units(text)
    assert [u.ref for u in units] == ["ESRS 2 › Disclosure Requirement GOV-1 – The role of the bodies",
                                      "ESRS 2 › Strategy"]
    assert "and" in units[0].paragraphs and units[0].paragraphs[-1].startswith("(e) the percentage")
    assert [u.ref for u in parse_units("# Act\n\n## eIDAS trust services\n\nText.\n")] == ["eIDAS trust services"]


def test_a_section_ref_shared_by_several_standards_names_its_standard():
    text = ("# Set\n\n## ESRS E1\n\n### Appendix A\n\n#### Application Requirements\n\nAR 1. Climate text.\n\n"
            "## ESRS S1\n\n### Appendix A\n\n#### Application Requirements\n\nAR 1. Workforce text.\n\n"
            "#### Objective\n\nAR 2. Only once.\n")
    refs = [u.ref for u in parse_units(text)]
    assert refs == ["ESRS E1 › Appendix A › Application Requirements", "ESRS S1 › Appendix A › Application Requirements",
                    "ESRS S1 › Appendix A › Objective"]


def test_a_standard_is_named_by_its_code_in_every_ref_under_it():
    """A part that is a standard of its own ("ESRS 1 General requirements") is named by its code in the refs under
    it, down to its appendices; a structural heading with a number ("TITRE 2 Champ") or a heading without a code is
    not a coded part."""
    text = ("# Set\n\n## ESRS 1 General requirements\n\nIntro text of the standard.\n\n"
            "#### 3.4 Impact materiality\n\n43. A matter is material from an impact perspective.\n\n"
            "### Appendix A\n\n#### Double materiality\n\nAR 1. The assessment.\n\n"
            "## ESRS E4 - Biodiversity and ecosystems\n\n#### ESRS 2 General disclosures\n\n8. Read with ESRS 2.\n\n"
            "## TITRE 2 Champ d'application\n\n#### Question un\n\nTexte.\n\n"
            "## Guidance for members\n\n### Appendix B\n\n#### Scope\n\nText.\n")
    assert [u.ref for u in parse_units(text)] == [
        "ESRS 1", "ESRS 1 › 3.4 Impact materiality", "ESRS 1 › Appendix A › Double materiality",
        "ESRS E4 › ESRS 2 General disclosures", "TITRE 2 Champ d'application › Question un", "Appendix B › Scope"]


def test_a_small_unit_is_not_merged_into_another_standard():
    """A unit below min_chars joins a neighbour of its own standard only: the last application requirement of ESRS
    E4 and ESRS E5's short table of contents stay two passages (one passage citing both read as E4-6 and E5)."""
    text = ("# Set\n\n## ESRS E4 Biodiversity\n\n#### Objective\n\n" + "Biodiversity text. " * 30 + "\n\n"
            "#### Disclosure Requirement E4-6 – Financial effects\n\nAR 1. A short one.\n\n"
            "## ESRS E5 Resource use\n\n#### Table of contents\n\n- Objective\n- Disclosure Requirements\n\n"
            "#### Objective\n\n" + "Resource text. " * 30 + "\n")
    refs = [c.ref for c in chunk_document(doc(), text)]
    assert refs == ["ESRS E4 › Objective; ESRS E4 › Disclosure Requirement E4-6 – Financial effects",
                    "ESRS E5 › Table of contents; ESRS E5 › Objective"], refs


# -- divisions: chapters, sections and their titles ----------------------------------------------------------------
FRENCH_DIVISIONS = (
    "# Directive\n\n## TITRE V - LIEU DES OPÉRATIONS IMPOSABLES\n\n"
    "### CHAPITRE 5\n\nDispositions communes aux chapitres 1 et 3\n\n"
    "##### Article 30\n\n" + "Est considérée comme importation de biens l'introduction d'un bien. " * 2 + "\n\n"
    "### CHAPITRE 9 - Exonérations des prestations de services effectuées par des\n\nintermédiaires\n\n"
    "##### Article 153\n\nLes États membres exonèrent les prestations des intermédiaires.\n\n"
    "#### Section 3 - Dispositions particulières\n\nSous-section 1 - Prestations de services des intermédiaires\n\n"
    "##### Article 46\n\n" + "Le lieu des prestations de services d'un intermédiaire est celui de l'opération. " * 4 + "\n\n"
    "Sous-section 2 - Prestations de services rattachées à un bien immeuble\n\n"
    "##### Article 47\n\n" + "Le lieu des prestations de services liées à un bien immeuble est le lieu du bien. " * 4 + "\n"
)


def test_a_divisions_title_line_is_its_heading_not_a_passage():
    """A chapter or section heading followed by its title on the next line ("### CHAPITRE 5" + "Dispositions communes
    …", or a title the conversion wrapped: "… effectuées par des" + "intermédiaires") was a unit of its own, too small,
    merged with the next article into a passage cited as "CHAPITRE 5; Article 30 bis". The title is the division's
    heading now: no passage is led by it, and the articles under it are labelled with it."""
    chunks = chunk_document(doc("d", "fr"), FRENCH_DIVISIONS, min_chars=200)
    refs = [c.ref for c in chunks]
    assert refs == ["Article 30", "Article 153", "Article 46", "Article 47"], refs
    assert by_ref(chunks, "Article 30")[0].label == ("Article 30 (TITRE V - LIEU DES OPÉRATIONS IMPOSABLES › CHAPITRE 5 - "
                                                     "Dispositions communes aux chapitres 1 et 3)")
    assert by_ref(chunks, "Article 153")[0].section_path.endswith(
        "CHAPITRE 9 - Exonérations des prestations de services effectuées par des intermédiaires")
    assert all("CHAPITRE" not in c.text and "intermédiaires\n" not in c.text for c in chunks)


def test_a_division_written_as_a_plain_line_is_a_heading():
    """"Sous-section 2 - …" standing alone between two articles of the French VAT Directive was the last paragraph of
    the article before it; it is the heading of the articles after it, under their section."""
    chunks = chunk_document(doc("d", "fr"), FRENCH_DIVISIONS, min_chars=200)
    article46, article47 = by_ref(chunks, "Article 46")[0], by_ref(chunks, "Article 47")[0]
    assert "Sous-section" not in article46.text and "Sous-section" not in article47.text
    assert article46.section_path.endswith("Section 3 - Dispositions particulières › Sous-section 1 - Prestations de "
                                           "services des intermédiaires")
    assert article47.label == ("Article 47 (Section 3 - Dispositions particulières › Sous-section 2 - Prestations de "
                               "services rattachées à un bien immeuble)")
    # a sentence that starts like a division is text ("Section 2 applies …" ends as a sentence; it is not alone)
    text = "### Article 1 — Scope\n\nSection 2 - of this Regulation applies to banks.\n"
    assert chunk_document(doc(), text)[0].text == "Section 2 - of this Regulation applies to banks."


def test_an_editorial_note_under_a_division_opens_its_first_article():
    """The French VAT Implementing Regulation notes under each section which articles of the Directive it implements
    ("*(articles 31 à 39 de la directive 2006/112/CE)*"): the note opens the section's first article with a text (a
    deleted article's bare heading is skipped), and the passage is that article's, not "SECTION 2. …; Article 15"."""
    text = ("# Règlement\n\n## Chapitre V. LIEU DES OPÉRATIONS IMPOSABLES\n\n### SECTION 2. Lieu des livraisons de biens\n\n"
            "*(articles 31 à 39 de la directive 2006/112/CE)*\n\n#### Article 14 (Supprimé)\n\n#### Article 15\n\n"
            + "La partie d'un transport de passagers effectuée dans la Communauté est déterminée par le parcours. " * 3 + "\n")
    chunks = chunk_document(doc("r", "fr"), text)
    assert [c.ref for c in chunks] == ["Article 15"]
    assert chunks[0].text.startswith("*(articles 31 à 39 de la directive 2006/112/CE)*\n\nLa partie d'un transport")
    assert chunks[0].section_path == "Chapitre V. LIEU DES OPÉRATIONS IMPOSABLES › SECTION 2. Lieu des livraisons de biens"


def test_a_small_article_is_not_merged_across_a_chapter():
    """Article 152 (gold delivered to central banks) closes one chapter of exemptions, Article 153 (intermediaries) opens
    the next: one passage citing both answered questions on intermediaries with the gold article. A small unit joins a
    neighbour of its own division only."""
    text = ("# D\n\n## CHAPITRE 8 - Exonérations à l'exportation\n\n##### Article 152\n\nLes États membres exonèrent l'or.\n\n"
            "## CHAPITRE 9 - Exonérations des intermédiaires\n\n##### Article 153\n\nLes États membres exonèrent les "
            "intermédiaires.\n\n##### Article 154\n\nAux fins de la présente section, sont entrepôts les endroits définis.\n")
    assert [c.ref for c in chunk_document(doc("d", "fr"), text, min_chars=200)] == ["Article 152", "Article 153; Article 154"]


def test_a_title_line_under_an_annex_keeps_the_refs_under_it():
    """"## ANNEX II" + "ACRONYMS AND GLOSSARY OF TERMS": the annex's heading gains its title, but the passages under it
    keep the refs the citations, the evaluation sets and the search titles use ("ANNEX II › Carbon credit")."""
    text = ("# ESRS\n\n## ANNEX II\n\nACRONYMS AND GLOSSARY OF TERMS\n\n"
            + "This Annex presents all the acronyms found in the ESRS (Table 1) and all terms defined in them. " * 3
            + "\n\n### Carbon credit\n\n" + "A tradable instrument representing one tonne of CO2 equivalent. " * 4 + "\n")
    chunks = chunk_document(doc(), text)
    assert [c.ref for c in chunks] == ["ANNEX II", "ANNEX II › Carbon credit"]
    assert chunks[0].heading == "ANNEX II - ACRONYMS AND GLOSSARY OF TERMS" and chunks[0].chunk_id == "doc#annex-ii"
    assert chunks[1].section_path == "ANNEX II - ACRONYMS AND GLOSSARY OF TERMS"


def test_no_passage_of_the_demo_corpus_is_led_or_joined_by_a_divisions_heading():
    """The shipped corpus, end to end: 44 passages of the French VAT texts were a division's heading merged with an
    article ("CHAPITRE 6 - …; Article 358; Section 2 - …"); none is now, and each article is in one passage."""
    for document in scan_corpus(CORPUS).documents:
        chunks = chunk_document(document, read_document_text(document.path))
        divisions = [c.ref for c in chunks if any(re.match(r"(?i)(chapitre|chapter|section|titre|title|sous-section)\s+[\dIVXLC]",
                                                           part) for part in c.ref.split("; "))]
        assert not divisions, (document.id, divisions[:5])
    directive = corpus_chunks("eu-vat-directive-fr")
    assert by_ref(directive, "Article 38")[0].label.startswith("Article 38 (CHAPITRE 1 - Lieu des livraisons de biens › "
                                                               "Section 4 - Livraisons de gaz via un système de gaz naturel")


def test_articles_inserted_with_a_compound_latin_suffix_are_articles():
    """"Article 369 terdecies", "Article 369 septvicies quater": the chunker read only "bis" … "decies", so these were
    sections ("Section 4 - … › Article 369 terdecies"), and the search titles' lookup read "Article 369" in the ref and
    gave them Article 369's titles. One pattern (``regintel.text.article_numbers``) now reads them everywhere."""
    from regintel.graph.crossrefs import parse_cross_references
    from regintel.retrieval.chunking import article_number
    from regintel.retrieval.cited_provisions import ARTICLE_CITED_RE
    from regintel.retrieval.search_titles import load_search_titles

    assert article_number("Article 369 septvicies quater") == "369 septvicies quater"
    assert article_number("Article 369 terdecies") == "369 terdecies" and article_number("Article 369 ter") == "369 ter"
    assert [m.group(1) for m in ARTICLE_CITED_RE.finditer("l'article 369 terdecies et l'article 369 ter")] == [
        "369 terdecies", "369 ter"]
    directive = corpus_chunks("eu-vat-directive-fr")
    terdecies = [c for c in directive if c.ref.startswith("Article 369 terdecies")]
    assert terdecies and all(c.chunk_id.startswith("eu-vat-directive-fr#art-369-terdecies") for c in terdecies)
    assert by_ref(directive, "Article 369 septvicies quater")
    titles = load_search_titles()
    assert titles.titles_in("eu-vat-directive-fr", "Article 369 terdecies", "Article 369 terdecies", "en") != \
        titles.titles_in("eu-vat-directive-fr", "Article 369", "Article 369", "en")
    references = parse_cross_references("conformément à l'article 369 terdecies", "fr")
    assert [r.target for r in references if r.kind == "article"] == ["369 terdecies"], references


def test_the_esrs_standards_are_the_parts_of_the_shipped_text():
    """The shipped ESRS text (headings repaired by scripts/repair_esrs_headings.py) files each section under its
    own standard: ESRS 1's chapter 3 is not cited as ESRS 2, and every requirement sits under the standard its code
    names ("ESRS S1 › Disclosure Requirement S1-6 ...", not "ESRS 2 General disclosures › ...")."""
    chunks = corpus_chunks("eu-esrs")
    impact = by_ref(chunks, "ESRS 1 › 3.4 Impact materiality")
    assert impact and "impact perspective" in " ".join(c.text for c in impact)
    assert not [c.ref for c in chunks if c.ref.startswith("ESRS 2 › 3.")], "ESRS 1's sections are not ESRS 2's"
    for section, words in [("ESRS 1 › 4. Due diligence", "Due diligence is the process by which undertakings identify"),
                           ("ESRS 1 › 6. Time horizons", "A base year is the historical reference date")]:  # titles written as plain lines
        assert words in " ".join(c.text for c in by_ref(chunks, section)), section
        assert not [c.ref for c in chunks if words in c.text and not c.ref.startswith(section)], section
    requirement = re.compile(r"Disclosure Requirements? (?P<standard>[ESG]\d)-\d")
    misplaced = []
    for chunk in chunks:
        for unit in chunk.ref.split("; "):
            last = unit.split(" › ")[-1]
            match = requirement.match(last)
            if match and not unit.startswith(f"ESRS {match.group('standard')} › "):
                misplaced.append(unit)
    assert not misplaced, misplaced[:5]
    standards = {c.ref.split(" › ")[0] for c in chunks if c.ref.startswith("ESRS ")}
    assert {"ESRS 1", "ESRS 2", "ESRS E1", "ESRS E4", "ESRS S1", "ESRS G1"} <= standards
    contents = [c for c in chunks if c.ref.startswith(("ESRS 1 › Table of contents", "ESRS E1 › Table of contents"))]
    assert contents and all(is_navigational(c) for c in contents), "a standard's contents list is navigation"
    assert not [c.ref for c in chunks if c.ref in standards], "no standard is cited by its contents list"


def test_the_demo_corpus_folder_holds_only_its_documents():
    """Every file of data/corpus is a listed document: anything else (a tool, a note) is reported on every ingest."""
    scan = scan_corpus(CORPUS)
    assert scan.problems == [] and len(scan.documents) == 7


@pytest.mark.skipif(not UPSTREAM_ESRS.exists(), reason="the upstream corpus (../shared/data/corpus) is not here")
def test_the_shipped_esrs_text_is_the_upstream_text_with_its_headings_and_lost_words_repaired():
    """The repairs are reproducible: running the committed scripts on the upstream file gives the shipped copy; the
    heading repair changes headings only (every other line is the upstream's, in order, a plain section title now a
    heading), the word repair only puts "th" back where the conversion wrote "p"."""
    upstream = UPSTREAM_ESRS.read_text(encoding="utf-8")
    repaired, edits = repair_esrs_headings(upstream)
    assert len(edits) > 30
    words = repair_script("repair_esrs_words")
    shipped, word_edits = words.repair(repaired)
    assert shipped == (CORPUS / "eu" / "esrs_delegated_reg_2023_2772.md").read_text(encoding="utf-8")
    assert len(word_edits) > 150
    for before, after in zip(repaired.splitlines(), shipped.splitlines(), strict=True):
        old_words, new_words = re.split(r"(\W+)", before), re.split(r"(\W+)", after)
        assert len(old_words) == len(new_words)
        for old, new in zip(old_words, new_words):
            assert old == new or any(new.lower() == old.lower()[:i] + "th" + old.lower()[i + 1:]
                                     for i, letter in enumerate(old.lower()) if letter == "p"), (old, new)
    repaired_lines = iter(repaired.splitlines())
    text_lines = [line for line in upstream.splitlines() if not line.startswith("#")]
    assert all(any(candidate in (line, f"#### {line}") for candidate in repaired_lines) for line in text_lines), \
        "every upstream line that is not a heading is kept, in order (a section title as a heading)"


@pytest.mark.skipif(not UPSTREAM_ASBL.exists(), reason="the upstream corpus (../shared/data/corpus) is not here")
def test_the_shipped_asbl_guidance_is_the_upstream_text_with_its_misplaced_lines_put_back():
    """Running the committed script on the upstream file gives the shipped copy; it only moves lines (and drops an
    empty heading and a stray bold mark), so every upstream line of text is still there once."""
    upstream = UPSTREAM_ASBL.read_text(encoding="utf-8")
    repaired, edits = repair_script("repair_be_asbl_guidance").repair(upstream)
    assert repaired == (CORPUS / "be" / "be-guidance-asbl-tva-fr.md").read_text(encoding="utf-8")
    assert len(edits) == 3
    def text_lines(text: str) -> list[str]:
        return sorted(line for line in text.splitlines() if line.strip() and not line.startswith("#"))
    assert text_lines(repaired) == text_lines(upstream)


def test_the_repairs_refuse_a_text_they_were_not_written_for():
    module = repair_script("repair_be_asbl_guidance")
    with pytest.raises(module.RepairError):
        module.repair("# TVA pour les ASBL\n\n## **Dois-je payer la TVA sur une vente de crêpes ?**\n\nTexte.\n")
    module = repair_script("repair_esrs_headings")
    with pytest.raises(module.RepairError):
        module.repair("## ESRS 1 - GENERAL REQUIREMENTS\n\n#### Objective\n\n1. The objective of this Standard.\n")
    module = repair_script("repair_esrs_words")
    with pytest.raises(module.RepairError, match="'pe' 1/286"):
        module.repair("(a) pey may influence pe undertaking's ability to act wip peir partners.\n")


def test_the_lost_th_comes_back_in_its_case_and_only_as_a_whole_word():
    module = repair_script("repair_esrs_words")
    line = "Furpermore, pe undertaking shall disclose pose pird-party risks (PE), wip a proper pen and a pipe."
    assert module.WORD_RE.sub(module._restored, line) == \
        "Furthermore, the undertaking shall disclose those third-party risks (THE), with a proper pen and a pipe."


def test_the_shipped_esrs_quotes_read_the_and_not_pe():
    """What an analyst reads in an ESRS quote: "the undertaking", not the conversion's "pe undertaking"."""
    units = {chunk.ref: chunk.text for chunk in corpus_chunks("eu-esrs")}
    assert "Corporate culture expresses goals through values and beliefs" in \
        units["ANNEX II › Consumer; ANNEX II › Corporate culture"]
    assert not any(re.search(r"\b(?:pe|wip|pat|peir|prough)\b", text) for text in units.values())


def test_the_crepe_sale_answer_holds_its_three_conditions_and_the_next_section_none():
    """"Dois-je payer la TVA sur une vente de crêpes ?" lists three conditions and a warning; the conversion had put
    the third condition and the warning under the Amblève/Eupen section, which cited them."""
    units = {chunk.ref: chunk.text for chunk in corpus_chunks("be-guidance-asbl-tva-fr")}
    crepes = units["Dois-je payer la TVA sur une vente de crêpes ?"]
    assert crepes.index("votre ASBL soit exemptée") < crepes.index("soutien financier") \
        < crepes.index("organisée par l’ASBL") < crepes.index("Attention !")
    eupen = next(text for ref, text in units.items() if ref.startswith("Mon ASBL est établie à Amblève"))
    assert "organisée par l’ASBL" not in eupen and "Attention !" not in eupen
    assert "Pourquoi des grandes entreprises?" in units  # its own unit, no longer merged into the crêpe answer


def test_a_requirement_labelled_on_a_plain_line_is_its_own_unit():
    """The converted ESRS text writes some requirement labels as plain lines ("Disclosure Requirement S1-8 –
    Collective bargaining coverage and social dialogue", then paragraph 58): each is a unit of its own, so its
    paragraphs are cited under its label, not under the requirement before it (S1-7)."""
    chunks = corpus_chunks("eu-esrs")
    s18 = [c for c in chunks if "Disclosure Requirement S1-8 – Collective bargaining" in c.ref]
    assert s18 and "collective bargaining agreements" in s18[0].text
    s17 = [c for c in chunks if "Disclosure Requirement S1-7 – Characteristics of non-employees" in c.ref]
    assert s17 and not any("Collective bargaining" in c.text for c in s17)
    payment = [c for c in chunks if c.ref.startswith("ESRS G1 › Disclosure Requirement G1-6")]
    assert payment, "a label keeps its standard as parent, like its sibling requirements"


def test_a_requirement_label_keeps_a_long_subtitle_line_under_it():
    """ESRS E1's "Disclosure Requirement E1-7 – GHG removals ..." label is followed by an 88-character subtitle line
    before AR 56: it is still a unit of its own, so AR 56-60 on GHG removals are not cited as the E1-6 section on
    GHG intensity before them."""
    text = ("# Standard\n\n## Appendix A\n\n#### Connectivity of GHG intensity\n\nAR 55. The reconciliation of net "
            "revenue.\n\nDisclosure Requirement E1-7 – GHG removals and GHG mitigation projects financed through carbon "
            "credits\n\nGHG removals and storage in own operations and the upstream and downstream value chain\n\n"
            "AR 56. In addition to their GHG emission inventories, undertakings shall provide transparency.\n")
    chunks = chunk_document(doc("esrs"), text, min_chars=0)  # (no merging of the fixture's short sections)
    removals = [c for c in chunks if "In addition to their GHG emission inventories" in c.text]
    assert [c.ref for c in removals] == [
        "Appendix A › Disclosure Requirement E1-7 – GHG removals and GHG mitigation projects financed through carbon "
        "credits"]


def test_a_requirement_label_carrying_its_paragraphs_number_is_its_own_unit():
    """"38. Disclosure Requirement SBM-1 – Strategy, business model and value chain": the conversion glued the first
    paragraph's number to the label, and its text follows unnumbered. ESRS 2's SBM-1 and GOV-5 were cited as GOV-4
    (a question on the business model got a "GOV-4 - Statement on due diligence" chip); a label longer than 200
    characters after its code (S3-4 "Taking action on material impacts on affected communities, ...") was text too."""
    chunks = corpus_chunks("eu-esrs")

    def cited_as(words: str) -> set[str]:
        refs = {re.sub(r" \(\d+/\d+\)$", "", c.ref) for c in chunks if words in c.text}
        assert refs, f"no passage holds {words!r}"
        return refs

    assert cited_as("The undertaking shall disclose a description of its business model and value chain") == {
        "ESRS 2 › Disclosure Requirement SBM-1 – Strategy, business model and value chain"}
    assert cited_as("The undertaking shall disclose the main features of its risk management and internal control") == {
        "ESRS 2 › Disclosure Requirement GOV–5 - Risk management and internal controls over sustainability reporting"}
    assert all(r.startswith("ESRS S3 › Disclosure Requirement S3-4 – Taking action on material impacts on affected")
               for r in cited_as("The undertaking shall disclose how it takes action to address material impacts on "
                                 "affected communities"))
    text = ("# Standard\n\n## Governance\n\n#### Disclosure Requirement GOV-4 – Statement\n\n30. The undertaking "
            "shall disclose a mapping.\n\n38. Disclosure Requirement SBM-1 – Strategy\n\nThe undertaking shall disclose "
            "its strategy.\n\n39. The objective of this Disclosure Requirement is to describe it.\n")
    fixture = chunk_document(doc("esrs"), text, min_chars=0)
    assert [c.ref for c in fixture if "its strategy" in c.text] == ["Governance › Disclosure Requirement SBM-1 – Strategy"]
    assert not any("its strategy" in c.text for c in fixture if "GOV-4" in c.ref)


def test_table_cells_and_captions_of_the_esrs_are_no_sections():
    """The shipped ESRS text's table cells set as headings ("Water stress" in ESRS E1's table of climate-related
    hazards, "Table 4" of ESRS S1-6) are plain text (scripts/repair_esrs_headings.py): the application requirements
    after them are cited under their own section, not under a table cell."""
    chunks = corpus_chunks("eu-esrs")
    def cited_as(words: str) -> list[str]:
        refs = [c.ref for c in chunks if words in c.text]
        assert refs, f"no passage holds {words!r}"
        return refs
    assert all(r.startswith("ESRS E1 › Appendix A › Impact, risk and opportunity management")
               for r in cited_as("processes to identify transition risks and opportunities as required under paragraph 20"))
    assert all(r.startswith("ESRS E1 › Appendix A › Climate-related scenario analysis")
               for r in cited_as("When conducting scenario analysis, the undertaking may consider"))
    assert all(r.startswith("ESRS S1 › Appendix A › Disclosure Requirement S1-6")
               for r in cited_as("The definitions of permanent, temporary, non-guaranteed hours"))
    refs = {c.ref.split(" (")[0] for c in chunks}
    assert not {r for r in refs if r.endswith(("› Water stress", "› Table 4", "› Total GHG emissions"))}, refs


def test_a_list_of_requirement_labels_stays_text():
    """A table of contents (labels one after another, no numbered paragraph after the last) makes no units."""
    text = ("# Standard\n\n## Disclosure Requirements\n\nDisclosure Requirement E1-1 – Transition plan\n"
            "Disclosure Requirement E1-2 – Policies\n\n## Objective\n\n1. The objective is to report.\n\n"
            "Disclosure Requirement E1-3 – Actions and resources\n\n2. The undertaking shall disclose its actions.\n")
    refs = [c.ref for c in chunk_document(doc("esrs"), text)]
    assert not any("E1-1" in r or "E1-2" in r for r in refs if "Disclosure Requirements" not in r)
    assert any(r.endswith("Disclosure Requirement E1-3 – Actions and resources") for r in refs), refs


def test_guidance_question_headings_become_refs():
    chunks = corpus_chunks("be-guidance-asbl-tva-fr")
    assert any("Une ASBL est-elle assujettie à la TVA ?" in c.ref for c in chunks)
    assert all(c.authority_level == "guidance" and c.jurisdiction == "BE" for c in chunks)


def test_chunk_ids_are_unique_and_stable():
    first = corpus_chunks("eu-dora")
    second = corpus_chunks("eu-dora")
    assert [c.chunk_id for c in first] == [c.chunk_id for c in second]
    assert len({c.chunk_id for c in first}) == len(first)
    assert [c.content_hash for c in first] == [c.content_hash for c in second]


def test_oversized_article_is_split_on_paragraphs_with_overlap():
    paragraphs = [(f"{n}. " + ("Paragraph %d text about obligations. " % n) * 12).strip() for n in range(1, 9)]
    text = "## CHAPTER I — General\n\n### Article 7 — Long article\n\n" + "\n\n".join(paragraphs)
    chunks = chunk_document(doc(), text, max_chars=1200, min_chars=100, overlap_chars=500)
    assert len(chunks) > 1
    assert [c.ref for c in chunks] == [f"Article 7 ({i}/{len(chunks)})" for i in range(1, len(chunks) + 1)]
    assert all(len(c.text) <= 1200 for c in chunks)
    for before, after in zip(chunks, chunks[1:]):  # the next part starts with the last paragraph of the previous
        assert after.text.split("\n\n")[0] == before.text.split("\n\n")[-1]
    joined = "\n\n".join(chunks[0].text.split("\n\n") + [p for c in chunks[1:] for p in c.text.split("\n\n")[1:]])
    assert all(p in joined for p in paragraphs), "no paragraph is lost"


def test_tiny_fragments_are_merged_with_their_neighbour():
    text = (
        "### Article 1 — Subject\n\nShort.\n\n"
        "### Article 2 — Scope\n\n" + "This Regulation applies to everything relevant. " * 10
    )
    chunks = chunk_document(doc(), text, max_chars=1800, min_chars=100, overlap_chars=100)
    assert len(chunks) == 1
    assert chunks[0].ref == "Article 1; Article 2"
    assert chunks[0].text.startswith("Short.")


def test_index_text_carries_document_and_section_context():
    chunk = by_ref(corpus_chunks("eu-gdpr"), "Article 33")[0]
    assert chunk.index_text.startswith("GDPR — Article 33 — Notification of a personal data breach")


def test_an_untitled_article_is_labelled_with_its_chapter_and_section_for_the_answer_step():
    directive = corpus_chunks("eu-vat-directive-fr")
    article132 = by_ref(directive, "Article 132")
    assert article132 and all(c.label == "Article 132 (TITRE IX - EXONÉRATIONS › CHAPITRE 2 - Exonérations en faveur "
                                          "de certaines activités d'intérêt général)" for c in article132)
    assert by_ref(directive, "Article 44")[0].label == ("Article 44 (CHAPITRE 3 - Lieu des prestations de services › "
                                                        "Section 2 - Règles générales)")  # the chapter and section
    bis = [c for c in directive if c.heading == "Article 14 bis"]
    assert bis and bis[0].label.startswith("Article 14 bis (")
    assert article132[0].embed_text.startswith("Article 132\n") and "Exonérations" not in article132[0].index_text.split("\n")[0]
    gdpr = by_ref(corpus_chunks("eu-gdpr"), "Article 6")[0]
    assert gdpr.label == gdpr.heading == "Article 6 — Lawfulness of processing"  # a titled article keeps its title
    pathless = Chunk("d#art-9", "d", "T", "Article 9", "Article 9", "", "text", "EU", "fr", "eu_law", "", 0)
    assert pathless.label == "Article 9"


# -- definitions: one unit per defined term --------------------------------------------------------------------
def definitions_of(chunks: list[Chunk], article: str) -> list[Chunk]:
    return [c for c in chunks if is_definition(c) and c.ref.startswith(article + "(")]


def test_gdpr_article_4_is_one_chunk_per_definition_with_its_parent():
    chunks = corpus_chunks("eu-gdpr")
    definitions = definitions_of(chunks, "Article 4")
    controller = next(c for c in definitions if c.ref == "Article 4(7)")
    assert controller.chunk_id == "eu-gdpr#art-4~def-7"
    assert controller.heading == "Article 4 — Definitions — ‘controller’"
    assert controller.parent == "eu-gdpr#art-4" and controller.section_path == "CHAPTER I — General provisions"
    assert controller.text.startswith("(7) ‘controller’ means the natural or legal person")
    assert definitions[0].text.startswith("For the purposes of this Regulation:\n\n(1) ‘personal data’ means")
    assert "‘processor’" not in controller.text and "(6)" not in controller.text
    assert controller.embed_text.startswith("Article 4 — Definitions — ‘controller’\n")
    assert controller.index_text.startswith("GDPR — Article 4 — Definitions — ‘controller’\n")
    assert article_of(controller.ref) == "Article 4", "the bench scores a definition at article level"
    # every definition of the article is in exactly one chunk, in order, and nothing else is left of Article 4
    numbers = [int(n) for c in definitions for n in re.findall(r"\((\d+)\)", c.ref)]
    assert numbers == list(range(1, 27))
    assert not by_ref(chunks, "Article 4"), "no 'Article 4 (n/m)' parts next to the definitions"
    assert all(len(c.text) <= 1800 for c in definitions)
    assert chunks == corpus_chunks("eu-gdpr"), "deterministic"


def test_dora_article_3_definitions_and_tiny_neighbours_merged():
    definitions = definitions_of(corpus_chunks("eu-dora"), "Article 3")
    ict_risk = next(c for c in definitions if c.ref == "Article 3(5)")
    assert ict_risk.heading == "Article 3 — Definitions — ‘ICT risk’"
    assert ict_risk.text.startswith("- (5) ‘ICT risk’ means any reasonably identifiable circumstance")
    assert definitions[0].text.startswith("For the purposes of this Regulation, the following definitions shall apply:")
    numbers = [int(n) for c in definitions for n in re.findall(r"\((\d+)\)", c.ref)]
    assert numbers == list(range(1, 66))
    merged = [c for c in definitions if "; " in c.ref]
    assert merged, "consecutive tiny definitions share a chunk"
    for chunk in merged:  # only definitions that are each shorter than min_chars are merged
        assert ref_units(chunk.ref) == ["Article 3"]
        bodies = chunk.text.split("\n\n")
        assert len(bodies) == len(chunk.ref.split("; ")) and all(len(b) < 200 for b in bodies)
        assert chunk.heading.count("‘") == len(bodies)


def test_french_definitions_articles():
    directive = corpus_chunks("eu-vat-directive-fr")
    used = next(c for c in directive if c.ref == "Article 311(1)(1)")  # the list is paragraph 1 of Article 311
    assert used.heading == "Article 311 — Définitions — «biens d'occasion»"  # label from "Section 1 - Définitions"
    assert used.chunk_id == "eu-vat-directive-fr#art-311~def-1" and used.parent == "eu-vat-directive-fr#art-311"
    assert used.text.startswith("1. Aux fins du présent chapitre") and "1) «biens d'occasion», les biens meubles" in used.text
    rest = [c for c in directive if c.ref == "Article 311"]  # paragraphs 2 and 3 stay the article's own chunk
    assert len(rest) == 1 and rest[0].chunk_id == "eu-vat-directive-fr#art-311"
    assert rest[0].text.startswith("2. Les États membres") and not is_definition(rest[0])
    # a definitions article without "Définitions" anywhere near it is found by its paragraphs
    article5 = definitions_of(directive, "Article 5")
    assert article5[0].heading == "Article 5 — Définitions — «Communauté» et «territoire de la Communauté»"
    regulation = corpus_chunks("eu-vat-ir-282-2011-fr")
    eu_scheme = next(c for c in regulation if c.ref == "Article 57 bis(2)")
    assert eu_scheme.heading == "Article 57 bis — Définitions — “régime UE”"
    assert article_of(eu_scheme.ref) == "Article 57 bis"


def test_definitions_detected_by_their_paragraphs_with_trailing_paragraphs_kept():
    text = (
        "### Article 9\n\nAux fins du présent titre, on entend par:\n\n"
        "1) « bien d'investissement », tout bien corporel utilisé durablement dans l'activité économique de "
        "l'assujetti et dont la valeur justifie un amortissement sur plusieurs années selon les règles nationales;\n\n"
        "2) « bien immeuble » : tout élément de terrain et toute construction fixée au sol, y compris les éléments "
        "qui en font partie intégrante et ne peuvent être déplacés sans être détruits ou modifiés;\n\n"
        "a) premier sous-point de la deuxième définition, qui lui appartient;\n\n"
        "2. Les États membres peuvent préciser ces notions dans leur législation nationale, après consultation du "
        "comité de la TVA, dans les limites fixées par le présent article."
    )
    chunks = chunk_document(doc(language="fr"), text, max_chars=1800, min_chars=100, overlap_chars=100)
    assert [c.ref for c in chunks] == ["Article 9(1)", "Article 9(2)", "Article 9"]
    assert chunks[0].heading == "Article 9 — Définitions — « bien d'investissement »"
    assert chunks[1].text.endswith("a) premier sous-point de la deuxième définition, qui lui appartient;")
    assert chunks[2].text.startswith("2. Les États membres") and chunks[2].chunk_id == "doc#art-9"
    assert {c.parent for c in chunks} == {"doc#art-9"}


def test_a_rule_before_a_definitions_lead_in_keeps_its_passage_and_the_lead_in_opens_the_definitions():
    """Article 369 terdecies of the VAT Directive states a rule ("… ne couvrent que les biens … 150 EUR"), then "Aux
    fins de la présente section, … on entend par:" and four definitions. The rule is the article's own passage; the
    lead-in opens the first definition (it ended the rule's passage, cut from the list it introduces)."""
    text = ("##### Article 369 terdecies\n\n" + "Aux fins de la présente section, les ventes à distance de biens importés "
            "ne couvrent que les biens contenus dans des envois d'une valeur ne dépassant pas 150 EUR. " * 3 + "\n\n"
            "Aux fins de la présente section, on entend par:\n\n"
            "1. «assujetti non établi» un assujetti qui n'a pas établi le siège de son activité dans la Communauté;\n\n"
            "2. «intermédiaire» une personne établie dans la Communauté désignée comme redevable de la TVA;\n")
    chunks = chunk_document(doc("d", "fr"), text, min_chars=50)
    assert [c.chunk_id for c in chunks] == ["d#art-369-terdecies", "d#art-369-terdecies~def-1", "d#art-369-terdecies~def-2"]
    assert not chunks[0].text.rstrip().endswith(":") and "150 EUR" in chunks[0].text
    assert chunks[1].text.startswith("Aux fins de la présente section, on entend par:\n\n1. «assujetti non établi»")


def test_articles_that_only_quote_a_term_are_not_definitions():
    gdpr = corpus_chunks("eu-gdpr")
    assert [c for c in gdpr if is_definition(c)] == definitions_of(gdpr, "Article 4")
    assert by_ref(gdpr, "Article 6") and by_ref(gdpr, "Article 33")[0].chunk_id == "eu-gdpr#art-33", "ids are stable"


# -- lists stay whole; every part keeps its heading -------------------------------------------------------------
LEAD = "1. Processing shall be lawful only if and to the extent that at least one of the following applies:"


def points(n: int, words: int = 12) -> list[str]:
    return [f"({chr(97 + i)}) point {chr(97 + i)} " + " ".join(["condition"] * words) + ";" for i in range(n)]


def test_a_list_that_fits_is_never_cut_from_its_lead_in():
    filler = ["Filler paragraph about the general scope of this article and its context. " * 5] * 3
    text = "### Article 6 — Lawfulness of processing\n\n" + "\n\n".join([*filler, LEAD, *points(6)])
    chunks = chunk_document(doc(), text, max_chars=1400, min_chars=100, overlap_chars=100)
    assert len(chunks) == 2
    holding = [c for c in chunks if LEAD in c.text]
    assert len(holding) == 1 and all(p in holding[0].text for p in points(6)), "lead-in and points (a)-(f) together"
    assert all(c.heading == "Article 6 — Lawfulness of processing" for c in chunks)
    assert all(c.embed_text.startswith("Article 6 — Lawfulness of processing\n") for c in chunks)
    assert all(c.index_text.startswith("TR — Article 6 — Lawfulness of processing\n") for c in chunks)


@pytest.mark.parametrize("inline", [False, True], ids=["points as paragraphs", "points inline (EUR-Lex style)"])
def test_a_list_longer_than_a_part_repeats_its_lead_in(inline: bool):
    items = points(12, words=20)
    body = " ".join([LEAD, *items]) if inline else "\n\n".join([LEAD, *items])
    text = "### Article 6 — Lawfulness of processing\n\n" + body + "\n\n2. Member States may maintain provisions."
    chunks = chunk_document(doc(), text, max_chars=800, min_chars=100, overlap_chars=150)
    with_points = [c for c in chunks if "(a) point" in c.text or any(i[:9] in c.text for i in items)]
    assert len(with_points) >= 3
    for chunk in with_points:
        assert chunk.text.startswith(LEAD), "every part holding points starts with the lead-in"
        assert not chunk.text.rstrip().endswith(":"), "a lead-in never ends a part"
        assert len(chunk.text) <= 800
    found = [i for i in items if any(i in c.text for c in chunks)]
    assert found == items, "every point, in order"
    assert chunks[-1].text.endswith("2. Member States may maintain provisions.")
    assert [c.ref for c in chunks] == [f"Article 6 ({n}/{len(chunks)})" for n in range(1, len(chunks) + 1)]
    assert {c.parent for c in chunks} == {"doc#art-6"}


@pytest.mark.parametrize("doc_id", ["eu-gdpr", "eu-dora", "eu-vat-directive-fr", "eu-vat-ir-282-2011-fr"])
def test_corpus_parts_never_end_on_a_lead_in_and_keep_their_heading(doc_id: str):
    chunks = corpus_chunks(doc_id)
    for chunk, following in zip(chunks, chunks[1:]):
        if chunk.parent == following.parent and chunk.text.rstrip().endswith(":"):
            lead = chunk.text.rstrip().split("\n")[-1][-80:]
            assert lead in following.text, f"{chunk.chunk_id} ends on a lead-in its continuation does not repeat"
    for chunk in chunks:
        assert chunk.embed_text.startswith(chunk.heading + "\n") and chunk.heading in chunk.index_text
        assert chunk.parent == chunk.chunk_id.split("~")[0] and len(chunk.text) <= 1800
    article6 = by_ref(chunks, "Article 6")
    if doc_id == "eu-gdpr":
        assert len(article6) > 1 and all(c.heading == "Article 6 — Lawfulness of processing" for c in article6)
        lawful = [c for c in article6 if "Processing shall be lawful only if" in c.text]
        assert len(lawful) == 1 and all(f"({x})" in lawful[0].text for x in "abcdef")


# -- parent-document widening of the answer context -------------------------------------------------------------
def part(doc_id: str, base: str, number: int, total: int, position: int) -> Chunk:
    return Chunk(chunk_id=f"{doc_id}#{base}~{number}", document_id=doc_id, title="TR", ref=f"Article 6 ({number}/{total})",
                 heading="Article 6 — Lawfulness", section_path="", text=f"part {number} of {base}", jurisdiction="EU",
                 language="en", authority_level="eu_law", source_url="https://example.org/tr", position=position,
                 parent=f"{doc_id}#{base}")


def hit(chunk: Chunk, similarity: float = 81.5) -> Source:
    return Source(chunk.chunk_id, chunk.document_id, chunk.title, chunk.ref, chunk.source_url, chunk.text, similarity,
                  chunk.authority_level, 1.0, chunk.jurisdiction, chunk.language, chunk.heading, fused_score=0.7)


def test_siblings_are_the_whole_short_article_or_the_two_nearest_parts():
    short = [part("d", "art-6", n, 3, n) for n in (1, 2, 3)]
    long = [part("d", "art-9", n, 6, 10 + n) for n in range(1, 7)]
    single = Chunk(**{**part("d", "art-7", 1, 1, 9).__dict__, "chunk_id": "d#art-7", "parent": "d#art-7"})
    siblings = ArticleSiblings([*long, single, *reversed(short)])
    assert [c.chunk_id for c in siblings.of("d#art-6~2")] == ["d#art-6~1", "d#art-6~3"]
    assert [c.chunk_id for c in siblings.of("d#art-9~4")] == ["d#art-9~3", "d#art-9~5"]
    assert [c.chunk_id for c in siblings.of("d#art-9~1")] == ["d#art-9~2", "d#art-9~3"]
    assert siblings.of("d#art-7") == [] and siblings.of("unknown") == []
    widened = siblings(hit(short[1]))
    assert [s.chunk_id for s in widened] == ["d#art-6~1", "d#art-6~3"]
    assert all(s.similarity == 81.5 and s.extra["widened_from"] == "d#art-6~2" for s in widened)


def test_a_definition_widens_to_its_articles_other_paragraphs_not_to_other_definitions():
    directive = corpus_chunks("eu-vat-directive-fr")
    siblings = ArticleSiblings(directive)
    assert [c.chunk_id for c in siblings.of("eu-vat-directive-fr#art-311~def-5")] == ["eu-vat-directive-fr#art-311"]
    assert siblings.of("eu-gdpr#art-4~def-7") == []
    gdpr = ArticleSiblings(corpus_chunks("eu-gdpr"))
    assert gdpr.of("eu-gdpr#art-4~def-7") == [], "GDPR Article 4 is definitions only"


def test_unified_context_inserts_siblings_after_their_hit_within_the_budget():
    short = [part("d", "art-6", n, 3, n) for n in (1, 2, 3)]
    other = part("d", "art-9", 1, 1, 20)
    other = Chunk(**{**other.__dict__, "chunk_id": "d#art-9", "parent": "d#art-9"})
    siblings = ArticleSiblings([*short, other])
    fresh = [ContextPassage(hit(short[1])), ContextPassage(hit(other, 70.0)), ContextPassage(hit(short[2], 60.0))]
    previous = [ContextPassage(hit(Chunk(**{**other.__dict__, "chunk_id": "d#prev", "parent": "d#prev"})))]
    unified = build_unified_context(previous, (), fresh, limit=10, siblings=siblings)
    assert [(p.index, p.chunk_id, p.origin, p.widened_from) for p in unified] == [
        (1, "d#prev", "previous", ""), (2, "d#art-6~2", "current", ""), (3, "d#art-6~1", "current", "d#art-6~2"),
        (4, "d#art-9", "current", ""), (5, "d#art-6~3", "current", "")]  # ~3 was retrieved: it keeps its own place
    assert unified[2].source.similarity == unified[1].source.similarity and unified[2].prompt_source().index == 3
    # the budget: widening never pushes a retrieved passage out
    tight = build_unified_context(previous, (), fresh, limit=4, siblings=siblings)
    assert [p.chunk_id for p in tight] == ["d#prev", "d#art-6~2", "d#art-9", "d#art-6~3"]
    roomy = build_unified_context((), (), fresh[1:2] + fresh[:1], limit=4, siblings=siblings)
    assert [p.chunk_id for p in roomy] == ["d#art-9", "d#art-6~2", "d#art-6~1", "d#art-6~3"]
    assert [p.index for p in roomy] == [1, 2, 3, 4]
    assert build_unified_context((), (), fresh, limit=10) == build_unified_context((), (), fresh, limit=10, siblings=None)


def test_passages_without_parts_are_never_widened():
    """ObliQA passages come pre-split (one Chunk per passage, no parent, ids without "~"): nothing to widen."""
    passages = [Chunk(**{**part("o", "x", 1, 1, n).__dict__, "chunk_id": f"pid-{n}", "parent": "", "ref": f"{n}.1"})
                for n in range(3)]
    siblings = ArticleSiblings(passages)
    assert all(siblings.of(p.chunk_id) == [] for p in passages)
    fresh = [ContextPassage(hit(p)) for p in passages]
    assert build_unified_context(fresh=fresh, siblings=siblings) == build_unified_context(fresh=fresh)


# -- front matter ------------------------------------------------------------------------------------------------
def test_front_matter_is_not_a_passage_but_an_introduction_is():
    text = ("# Regulation (EU) 2099/1 — Test Act\n\n_Regulation (EU) 2099/1 of the European Parliament on tests_\n\n"
            "Source: EUR-Lex, https://eur-lex.europa.eu/x. Enacting terms only. © European Union.\n\n"
            "### Article 1 — Subject matter\n\n" + "This Regulation lays down rules on testing. " * 6)
    assert [c.ref for c in chunk_document(doc(), text)] == ["Article 1"]
    guide = "# One Stop Shop\n\nThe OSS is reached after logging in to the tax portal of the administration.\n\n" + \
            "## Who can use it?\n\n" + "Any taxable person established in the Union may use the scheme. " * 5
    assert [c.ref for c in chunk_document(doc(), guide, min_chars=50)][0] == "Title"
    assert all(c.ref != "Title" for d in ("eu-gdpr", "eu-dora", "eu-esrs") for c in corpus_chunks(d))


def test_a_consolidated_texts_title_block_and_update_notes_are_not_a_passage():
    """The French VAT Implementing Regulation opens with its full title and Official Journal reference, then the
    consolidating site's update notes, all set off in bold, italics or links, with no "Source:" line: its text was
    quoted as the answer to a Spanish question on funeral services."""
    text = ("# Règlement d’exécution (UE) N° 999/2011 du Conseil\n\n"
            "**RÈGLEMENT D’EXÉCUTION (UE) No 999/2011 DU CONSEIL du 15 mars 2011** portant mesures d’exécution de la "
            "directive 2006/112/CE (JO L 77 du 23.03.2011, p. 1).\n\n"
            "[Mise à jour 01.07.2022] - [\\[modifications\\]](https://example.org/doc#modifications)\n\n"
            "*Ce règlement d’exécution est dernièrement modifié par :*\n\n"
            "- *L’annexe II est remplacée une seconde fois à partir du 1er juillet 2022*.\n\n"
            "### Article premier\n\n" + "Le présent règlement porte mesures d’exécution de la directive. " * 4)
    assert [c.ref for c in chunk_document(doc(), text, min_chars=50)] == ["Article 1"]
    noted = text.replace("- *L’annexe II", "L’annexe II")  # a paragraph of plain text under the title: kept
    assert [c.ref for c in chunk_document(doc(), noted, min_chars=50)][0] == "Title"
    assert all(c.ref != "Title" for c in corpus_chunks("eu-vat-ir-282-2011-fr"))


def test_definitions_without_lead_in_keep_their_trailing_paragraphs():
    text = ("### Article 3 — Definitions\n\n"
            "(1) ‘widget’ means any device that is sold to consumers in the internal market for domestic use;\n\n"
            "(2) ‘gadget’ means a widget with a battery that is sold to consumers in the internal market;\n\n"
            "2. The Commission may adopt delegated acts to amend the definitions laid down in paragraph 1.")
    chunks = chunk_document(doc(), text, max_chars=1800, min_chars=50, overlap_chars=50)
    assert [c.ref for c in chunks] == ["Article 3(1)", "Article 3(2)", "Article 3"]
    assert chunks[-1].text.startswith("2. The Commission") and chunks[0].heading == "Article 3 — Definitions — ‘widget’"
