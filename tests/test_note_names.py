"""Note file names are bounded in bytes (not characters) and each concept keeps its own file."""

from __future__ import annotations

from regintel.extraction.notes import NAME_BYTES, note_name, write_atomically

ID_A = "a1b2c3d4-0000-4000-8000-000000000001"
ID_B = "e5f6a7b8-0000-4000-8000-000000000002"


def test_a_long_cjk_title_makes_a_name_the_file_system_accepts(tmp_path):
    title = "個人データの処理に関する管理者の義務" * 7  # 126 characters, 378 bytes
    name = note_name(title, ID_A)
    assert len(name.encode("utf-8")) <= NAME_BYTES and name.endswith(" a1b2c3d4")
    write_atomically(tmp_path / f"{name}.md", "note")
    assert (tmp_path / f"{name}.md").read_text() == "note"


def test_titles_that_clean_to_the_same_name_get_their_own_files():
    assert note_name("a/b", ID_A) != note_name("a b", ID_B)
    assert note_name("a b", ID_B) == "a b", "a title that is already a name keeps it"
    assert note_name("a/b", ID_A) == "a b a1b2c3d4"
    long_a, long_b = "x" * 150 + "a", "x" * 150 + "b"
    assert note_name(long_a, ID_A) != note_name(long_b, ID_B)


def test_no_multibyte_character_is_cut_in_half():
    name = note_name("é" * 100)
    assert len(name.encode("utf-8")) <= NAME_BYTES and set(name) == {"é"}
