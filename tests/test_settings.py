"""Settings: embedded defaults, errors that name the variable, and every setting documented in README."""

import re

import pytest

from regintel.config import REPO_ROOT, Settings, load_settings
from regintel.errors import SettingsError


def test_defaults_are_embedded(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    for name in list(__import__("os").environ):
        if name.startswith("REGINTEL_"):
            monkeypatch.delenv(name)
    settings = load_settings()
    assert settings.sql_url.startswith("sqlite:///") and settings.sql_url.endswith("regintel.db")
    assert settings.chroma_url == ""
    assert settings.corpus_dir == REPO_ROOT / "data" / "corpus"


@pytest.mark.parametrize(
    "variable, value",
    [
        ("REGINTEL_EMBED_BATCH_SIZE", "lots"),
        ("REGINTEL_FUSION", "magic"),
        ("REGINTEL_CHROMA_URL", "ftp://chroma"),
        ("REGINTEL_DATABASE_URL", "mysql://x"),
        ("REGINTEL_DENSE_WEIGHT", "-1"),
    ],
)
def test_invalid_setting_names_the_variable(monkeypatch, variable, value):
    monkeypatch.setenv(variable, value)
    with pytest.raises(SettingsError, match=variable):
        load_settings()


def test_inconsistent_chunk_sizes_are_rejected(monkeypatch):
    monkeypatch.setenv("REGINTEL_CHUNK_MIN_CHARS", "3000")
    monkeypatch.setenv("REGINTEL_CHUNK_MAX_CHARS", "2000")
    with pytest.raises(SettingsError, match="REGINTEL_CHUNK_MIN_CHARS"):
        load_settings()


def test_every_setting_is_documented_in_readme():
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"`(REGINTEL_[A-Z0-9_]+)`", readme))
    declared = {f"REGINTEL_{name.upper()}" for name in Settings.model_fields}
    assert declared - documented == set(), "undocumented settings"


def test_the_graph_query_timeout_reaches_every_graph_store(monkeypatch, tmp_path):
    from regintel.graph.factory import open_graph_store

    monkeypatch.setenv("REGINTEL_GRAPH_QUERY_TIMEOUT_SECONDS", "7.5")
    embedded = open_graph_store(load_settings(data_dir=tmp_path))  # nothing connects until the first query
    assert embedded.timeout == 7.5
    monkeypatch.setenv("REGINTEL_GRAPH_BACKEND", "falkordb")
    monkeypatch.setenv("REGINTEL_GRAPH_URL", "redis://127.0.0.1:6390")
    assert open_graph_store(load_settings(data_dir=tmp_path)).timeout == 7.5
    monkeypatch.setenv("REGINTEL_GRAPH_BACKEND", "neo4j")  # the driver connects on first use, not here
    monkeypatch.setenv("REGINTEL_GRAPH_URL", "bolt://127.0.0.1:7699")
    neo4j_store = open_graph_store(load_settings(data_dir=tmp_path))
    assert neo4j_store.timeout == 7.5
    neo4j_store.close()
    monkeypatch.setenv("REGINTEL_GRAPH_QUERY_TIMEOUT_SECONDS", "0")
    with pytest.raises(SettingsError, match="REGINTEL_GRAPH_QUERY_TIMEOUT_SECONDS"):
        load_settings(data_dir=tmp_path)
