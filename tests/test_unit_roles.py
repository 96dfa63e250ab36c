"""A requirement leads its application requirements; tables of contents and abbreviation lists come last
(regintel/retrieval/unit_roles.py)."""

from __future__ import annotations

from regintel.retrieval.chunking import Chunk
from regintel.retrieval.unit_roles import (
    applies_a_requirement,
    by_unit_role,
    is_navigational,
    navigational_last,
    requirement_code,
    requirements_before_their_application,
)


def chunk(chunk_id: str, ref: str, heading: str, section_path: str = "", document_id: str = "eu-esrs",
          text: str = "The undertaking shall disclose its gross Scope 1 GHG emissions.") -> Chunk:
    return Chunk(chunk_id, document_id, "ESRS", ref, heading, section_path, text, "EU", "en", "eu_law", "", 0)


E1_6 = "Disclosure Requirement E1-6 – Gross Scopes 1, 2, 3 and Total GHG emissions"
CHUNKS = {c.chunk_id: c for c in (
    chunk("dr-e1-6~1", f"ESRS E1 › {E1_6} (1/4)", E1_6, "ESRS E1"),
    chunk("dr-e1-6~2", f"ESRS E1 › {E1_6} (2/4)", E1_6, "ESRS E1"),
    chunk("ar-e1-6~1", "Appendix A › Disclosure Requirements E1-6 – Gross Scopes 1, 2, 3 (1/10)",
          "Disclosure Requirements E1-6 – Gross Scopes 1, 2, 3", "ESRS E1 › Appendix A"),
    chunk("ar-e1-6~2", "Appendix A › Disclosure Requirements E1-6 – Gross Scopes 1, 2, 3 (2/10)",
          "Disclosure Requirements E1-6 – Gross Scopes 1, 2, 3", "ESRS E1 › Appendix A"),
    chunk("ar-e1-4", "Appendix A › Disclosure Requirement E1-4 – Targets", "Disclosure Requirement E1-4 – Targets",
          "ESRS E1 › Appendix A"),
    chunk("dr-e1-6-other-act", f"Other standard › {E1_6}", E1_6, "Other standard", document_id="other"),
    chunk("related-sbm-3", "ESRS S1 › Disclosure Requirement related to ESRS 2 SBM-3 – Material impacts",
          "Disclosure Requirement related to ESRS 2 SBM-3 – Material impacts", "ESRS S1"),
    chunk("acronyms", "ANNEX II › Acronyms and Abbreviations", "Acronyms and Abbreviations", "ANNEX II",
          text="|Acronym|Definition|\n|GHG|Greenhouse Gas|"),
    chunk("toc", "ESRS S1 › TABLE OF CONTENTS", "TABLE OF CONTENTS", "ESRS S1", text="- Objective\n- Strategy"),
    chunk("merged", "Appendix A › Climate-related opportunities; ESRS E2 POLLUTION › TABLE OF CONTENTS",
          "Climate-related opportunities; TABLE OF CONTENTS", "ESRS E1 › Appendix A"),
    chunk("glossary", "ANNEX II › Carbon credit", "Carbon credit", "ANNEX II"),
)}


def ranked(*chunk_ids: str) -> list[tuple[str, float]]:
    return [(chunk_id, 1.0 - n / 10) for n, chunk_id in enumerate(chunk_ids)]


def ids(items: list[tuple[str, float]]) -> list[str]:
    return [chunk_id for chunk_id, _ in items]


def test_a_units_requirement_code_and_whether_it_applies_one():
    assert requirement_code(CHUNKS["dr-e1-6~1"]) == "E1-6" == requirement_code(CHUNKS["ar-e1-6~1"])
    assert requirement_code(CHUNKS["related-sbm-3"]) is None, "a topical standard's text on ESRS 2's requirement"
    assert requirement_code(CHUNKS["glossary"]) is None
    assert applies_a_requirement(CHUNKS["ar-e1-6~1"]) and not applies_a_requirement(CHUNKS["dr-e1-6~1"])


def test_navigational_units_are_tables_of_contents_and_abbreviation_lists_only():
    assert is_navigational(CHUNKS["acronyms"]) and is_navigational(CHUNKS["toc"])
    assert not is_navigational(CHUNKS["merged"]), "a unit merging a provision with a table of contents holds text"
    assert not is_navigational(CHUNKS["glossary"])


def test_a_requirement_ranked_below_its_application_requirement_moves_right_before_it():
    order = ranked("glossary", "ar-e1-6~1", "ar-e1-4", "ar-e1-6~2", "dr-e1-6~2", "dr-e1-6~1")
    moved = requirements_before_their_application(order, CHUNKS)
    assert ids(moved) == ["glossary", "dr-e1-6~2", "ar-e1-6~1", "ar-e1-4", "dr-e1-6~1", "ar-e1-6~2"]
    assert sorted(moved) == sorted(order), "nothing is lost or scored anew"


def test_nothing_moves_without_the_requirement_among_the_hits_or_from_another_document():
    order = ranked("ar-e1-6~1", "dr-e1-6-other-act", "ar-e1-4")
    assert requirements_before_their_application(order, CHUNKS) == order
    already = ranked("dr-e1-6~1", "ar-e1-6~1")
    assert requirements_before_their_application(already, CHUNKS) == already


def test_navigational_units_go_last_in_their_order():
    order = ranked("acronyms", "glossary", "toc", "dr-e1-6~1")
    assert ids(navigational_last(order, CHUNKS)) == ["glossary", "dr-e1-6~1", "acronyms", "toc"]
    assert navigational_last(ranked("glossary", "unknown-id"), CHUNKS) == ranked("glossary", "unknown-id")


def test_both_orders_together():
    order = ranked("acronyms", "ar-e1-6~1", "dr-e1-6~1")
    assert ids(by_unit_role(order, CHUNKS)) == ["dr-e1-6~1", "ar-e1-6~1", "acronyms"]
