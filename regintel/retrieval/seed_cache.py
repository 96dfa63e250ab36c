"""The shipped embedding cache of the demo corpus (``data/embeddings/``).

Embedding the demo corpus from scratch takes minutes on 2 cores; a fresh clone must be ready in about a minute,
so the repository ships the vectors our own pipeline computed, keyed exactly like the runtime cache (content
hash + model id). On load the file is verified (manifest model id and SHA-256, shapes, finite unit vectors);
anything that does not verify is ignored and recomputed, never trusted. ``python -m regintel build-seed-cache``
rebuilds it.
"""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from regintel.retrieval.embedding_cache import EmbeddingCache

log = logging.getLogger(__name__)
VECTORS_FILE = "vectors.npz"
MANIFEST_FILE = "manifest.json"


@dataclass
class SeedLoad:
    imported: int
    status: str  # "loaded", "absent", "stale", "corrupt"
    detail: str = ""


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def write_seed_cache(directory: Path, model_id: str, keys: Sequence[str], vectors: np.ndarray) -> Path:
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    vectors_path = directory / VECTORS_FILE
    np.savez_compressed(vectors_path, keys=np.array(list(keys)), vectors=np.asarray(vectors, dtype=np.float32))
    manifest = {
        "model_id": model_id,
        "dim": int(vectors.shape[1]) if len(vectors) else 0,
        "count": len(keys),
        "sha256": _sha256(vectors_path),
        "built_by": "python -m regintel build-seed-cache",
    }
    (directory / MANIFEST_FILE).write_text(json.dumps(manifest, indent=1), encoding="utf-8")
    return vectors_path


def load_seed_cache(directory: Path, model_id: str, cache: EmbeddingCache) -> SeedLoad:
    """Copy verified seed vectors into the runtime cache; report why nothing was loaded otherwise."""
    directory = Path(directory)
    manifest_path, vectors_path = directory / MANIFEST_FILE, directory / VECTORS_FILE
    if not manifest_path.exists() or not vectors_path.exists():
        return SeedLoad(0, "absent")
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        if manifest.get("model_id") != model_id:
            return SeedLoad(0, "stale", f"built for {manifest.get('model_id')}, running {model_id}")
        if manifest.get("sha256") != _sha256(vectors_path):
            return SeedLoad(0, "corrupt", "checksum mismatch")
        with np.load(vectors_path, allow_pickle=False) as data:
            keys, vectors = data["keys"], data["vectors"]
        if vectors.ndim != 2 or vectors.shape[0] != len(keys) or vectors.shape[1] != cache.dim:
            return SeedLoad(0, "corrupt", f"unexpected shape {vectors.shape}")
        norms = np.linalg.norm(vectors, axis=1)
        if not np.all(np.isfinite(vectors)) or np.any(np.abs(norms - 1.0) > 1e-2):
            return SeedLoad(0, "corrupt", "vectors are not finite unit vectors")
    except (OSError, ValueError, KeyError) as exc:
        return SeedLoad(0, "corrupt", str(exc))
    known = cache.get_many([str(k) for k in keys])
    fresh = [(str(k), v) for k, v in zip(keys, vectors) if str(k) not in known]
    cache.put_many(fresh)
    return SeedLoad(len(fresh), "loaded", f"{len(keys)} vectors verified")
