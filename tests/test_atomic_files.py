"""Atomic file writes: unique temporary files, nothing left behind, readers never see half a file."""

from __future__ import annotations

import threading

import pytest

from regintel.atomic_files import write_text_atomically


def test_concurrent_writers_each_leave_a_whole_file_and_no_temporary_file(tmp_path):
    target = tmp_path / "chunks.jsonl"
    texts = [f"{i}\n" * 20000 for i in range(8)]
    threads = [threading.Thread(target=write_text_atomically, args=(target, text)) for text in texts]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert target.read_text(encoding="utf-8") in texts  # one writer's whole text, never a mix
    assert sorted(p.name for p in tmp_path.iterdir()) == ["chunks.jsonl"]


def test_a_failed_write_keeps_the_old_file_and_removes_its_temporary_file(tmp_path):
    target = tmp_path / "calibration.json"
    write_text_atomically(target, "old")
    with pytest.raises(UnicodeEncodeError):
        write_text_atomically(target, "new \udc80")  # a lone surrogate cannot be encoded strictly
    assert target.read_text(encoding="utf-8") == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["calibration.json"]
    write_text_atomically(target, "note \udc80", errors="replace")
    assert target.read_text(encoding="utf-8") == "note ?"
