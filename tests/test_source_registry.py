"""The source registry and currency (issue 23): metadata validation, the corpus folder imported as an import format,
page numbers and article anchors on passages, currency warnings and what a question naming a version keeps."""

from __future__ import annotations

import json
import re
from datetime import date
from pathlib import Path

import pytest

from regintel.retrieval.chunking import chunk_document
from regintel.retrieval.corpus import CorpusDocument
from regintel.retrieval.currency import DocumentCurrency, names_version_or_date
from regintel.sources.registry import SourceError, SourceRegistry, checked_fields
from regintel.store.db import Database
from tests.conftest import make_small_corpus


@pytest.fixture
def registry(tmp_path: Path) -> SourceRegistry:
    db = Database(f"sqlite:///{tmp_path / 'store.sqlite'}")
    db.create_schema()
    return SourceRegistry(db, tmp_path / "data")


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return make_small_corpus(tmp_path / "corpus", {"be/be-guidance-oss-fr.md": {}, "be/be-guidance-asbl-tva-fr.md": {}})


def test_edits_are_validated_with_a_sentence_that_says_what_is_wrong():
    assert checked_fields({"valid_from": "2024-07-12", "deprecated": 1}) == {"valid_from": "2024-07-12", "deprecated": True}
    with pytest.raises(SourceError, match="date like 2024-07-12"):
        checked_fields({"valid_until": "12/07/2024"})
    with pytest.raises(SourceError, match="unknown authority level 'law'"):
        checked_fields({"authority_level": "law"})
    with pytest.raises(SourceError, match="not a source field"):
        checked_fields({"file_path": "/etc/passwd"})
    with pytest.raises(SourceError, match="before valid from"):
        checked_fields({"valid_from": "2025-01-01", "valid_until": "2024-01-01"})
    with pytest.raises(SourceError, match="needs a title"):
        checked_fields({"title": "   "})
    for hostile in ("javascript:alert(1)", "https://e.eu/x) [click](https://evil", 'https://e.eu/"onmouseover=x'):
        with pytest.raises(SourceError, match="http\\(s\\) address"):
            checked_fields({"source_url": hostile})
    assert checked_fields({"source_url": " https://eur-lex.europa.eu/eli/reg/2024/1689/oj "})["source_url"] == \
        "https://eur-lex.europa.eu/eli/reg/2024/1689/oj"


def test_the_corpus_folder_is_imported_and_a_persons_edit_wins_over_the_manifest(registry, folder):
    scan = registry.import_folder(folder)
    assert scan.problems == []
    ids = [s.id for s in registry.list()]
    assert ids == sorted(ids, key=ids.index) and set(ids) == {"be-guidance-oss-fr", "be-guidance-asbl-tva-fr"}
    oss = registry.get("be-guidance-oss-fr")
    assert oss.origin == "folder" and oss.authority_level and oss.title
    assert [d.id for d in registry.documents().documents] == ids

    registry.edit("be-guidance-oss-fr", {"version": "2024-03", "authority_level": "national_law"})
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    manifest["documents"][0]["title"] = "Changed in the manifest"
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    registry.import_folder(folder)
    edited = registry.get("be-guidance-oss-fr")
    assert edited.version == "2024-03" and edited.authority_level == "national_law"
    assert edited.title != "Changed in the manifest"  # a person's edit wins
    other = registry.get(manifest["documents"][0]["id"]) if manifest["documents"][0]["id"] != "be-guidance-oss-fr" else None
    if other is not None:
        assert other.title == "Changed in the manifest"  # an unedited entry follows its manifest


def test_a_file_gone_from_the_folder_is_marked_removed_and_a_removed_entry_stays_removed(registry, folder):
    registry.import_folder(folder)
    (folder / "be" / "be-guidance-asbl-tva-fr.md").unlink()
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    manifest["documents"] = [e for e in manifest["documents"] if "asbl" not in e["file"]]
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    registry.import_folder(folder)
    assert [s.id for s in registry.list()] == ["be-guidance-oss-fr"]
    assert registry.get("be-guidance-asbl-tva-fr").status == "removed"

    registry.mark_removed("be-guidance-oss-fr")
    registry.import_folder(folder)  # the file is still there; the person's removal holds
    assert registry.list() == [] and registry.documents().documents == []
    assert registry.removed_ids() == {"be-guidance-oss-fr", "be-guidance-asbl-tva-fr"}


def test_currency_says_deprecated_expired_and_superseded_in_one_sentence(registry, folder):
    registry.import_folder(folder)
    registry.edit("be-guidance-asbl-tva-fr", {"supersedes": "be-guidance-oss-fr"})
    registry.edit("be-guidance-oss-fr", {"version": "v1", "last_verified": "2024-01-02"})
    notes = registry.currency()
    assert notes["be-guidance-oss-fr"].superseded_by == "be-guidance-asbl-tva-fr"
    assert notes["be-guidance-oss-fr"].version == "v1" and notes["be-guidance-oss-fr"].last_verified == "2024-01-02"
    assert "superseded by" in notes["be-guidance-oss-fr"].warning("OSS")
    assert notes["be-guidance-asbl-tva-fr"].warning("ASBL") == ""
    with pytest.raises(SourceError, match="cannot supersede itself"):
        registry.edit("be-guidance-oss-fr", {"supersedes": "be-guidance-oss-fr"})
    with pytest.raises(SourceError, match="No source with id 'nope'"):
        registry.edit("be-guidance-oss-fr", {"supersedes": "nope"})

    assert "deprecated" in DocumentCurrency(deprecated=True).warning("GDPR")
    assert "valid until 2020-01-01" in DocumentCurrency(valid_until="2020-01-01").warning("X", today=date(2024, 1, 1))
    assert DocumentCurrency(valid_until="2030-01-01").warning("X", today=date(2024, 1, 1)) == ""


@pytest.mark.parametrize("question, names", [
    ("What did the 2016 version of Article 5 say?", True),
    ("Under the text applicable on 01/07/2021, who files the OSS return?", True),
    ("What does version 2 of the guidance change?", True),
    ("Who must file the OSS return?", False),
    ("What are the obligations in Article 28?", False),
])
def test_a_question_naming_a_date_or_version_keeps_older_versions(question, names):
    assert names_version_or_date(question) is names


def test_a_pdf_passage_keeps_its_page_and_links_to_it_an_html_article_to_its_anchor():
    text = ("# Act\n\n<!-- page 1 -->\n\n### Article 1 — Subject matter\n\n1. This Regulation lays down rules on "
            "the subject matter and the objectives of the act, which are set out here at length.\n\n<!-- page 2 -->\n\n"
            "2. It protects rights, which this second paragraph sets out on the following page of the act.\n\n"
            "### Article 2 — Scope\n\nThis Regulation applies to everything described in this long enough paragraph "
            "of the scope article.\n\n<!-- page 3 -->\n\n## ANNEX I — Lists\n\nAn annex paragraph that starts on "
            "page three of the printed act, long enough to be a passage of its own.")
    pdf = CorpusDocument(id="act", title="Act", short_title="Act", path=Path("act.md"), format="pdf",
                         source_url="https://example.org/act.pdf")
    chunks = chunk_document(pdf, text, max_chars=150, min_chars=20, overlap_chars=0)
    pages = {c.ref: c.page for c in chunks}
    assert pages["Article 1 (1/2)"] == 1 and pages["Article 1 (2/2)"] == 2 and pages["Article 2"] == 2
    assert [c.page for c in chunks if c.ref.startswith("ANNEX")] == [3]
    assert all(c.source_url == f"https://example.org/act.pdf#page={c.page}" for c in chunks)
    assert all("<!--" not in c.text for c in chunks)

    html = CorpusDocument(id="act", title="Act", short_title="Act", path=Path("act.md"), format="html",
                          source_url="https://example.org/act.html",
                          anchors={"Article 1 — Subject matter": "a1", "ANNEX I — Lists": "annex-1"})
    unpaged = re.sub(r"<!-- page \d+ -->", "", text)
    chunks = chunk_document(html, unpaged, max_chars=150, min_chars=20, overlap_chars=0)
    urls = {c.ref: c.source_url for c in chunks}
    assert urls["Article 1 (1/2)"].endswith("#a1") and urls["Article 1 (2/2)"].endswith("#a1")
    assert urls["Article 2"] == "https://example.org/act.html"  # no anchor known: the act
    assert [u for r, u in urls.items() if r.startswith("ANNEX")] == ["https://example.org/act.html#annex-1"]
    assert all(c.page == 0 for c in chunks)
    # EUR-Lex anchors every article and recital (id="art_N", id="rct_N"): a page that uses them gets them all
    eurlex = CorpusDocument(id="act", title="Act", short_title="Act", path=Path("act.md"), format="html",
                            source_url="https://example.org/act.html", anchors={"Article 1 — Subject matter": "art_1"})
    recitals = "## Recitals\n\n" + "\n\n".join(f"({n}) Whereas recital number {n} explains at some length why the "
                                               "act is needed and what it sets out to do." for n in range(1, 5))
    chunks = chunk_document(eurlex, recitals + "\n\n" + unpaged, max_chars=150, min_chars=20, overlap_chars=0)
    urls = {c.ref: c.source_url for c in chunks}
    assert urls["Article 2"] == "https://example.org/act.html#art_2"
    assert urls["Recital 3"] == "https://example.org/act.html#rct_3"  # one passage per recital, not one "Recitals"
    assert [c.ref for c in chunks if c.ref.startswith("Recital")] == [f"Recital {n}" for n in range(1, 5)]
