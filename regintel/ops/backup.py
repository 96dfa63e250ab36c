"""Backup and restore of a deployment (issue 22 item 4): ``python -m regintel backup DIR`` / ``restore DIR``.

A backup is a folder that describes itself:

- ``manifest.json``: format version, when, the settings that shape the index (embedding model, chunk sizes, the
  corpus version), the SQL backend, per-table row counts, the graph's node/edge counts and content hash, a SHA-256
  of every file, and what could not be backed up (``warnings``). It is written last: a folder without it is not a
  backup.
- ``sql/<table>.jsonl``: every row of every table of ``regintel.store.models``, one JSON object a line, backend
  neutral (a datetime is ``{"$datetime": "2026-11-23T22:47:44+00:00"}``), read in one transaction so the tables
  agree with each other. A SQLite backup taken on SQLite restores onto PostgreSQL and back.
- ``sql/store.sqlite`` (SQLite only): the same store copied with SQLite's online backup API, for a plain file copy.
- ``graph/graph.jsonl``: the rules graph, ``{"kind": "node", "label", "key", "labels", "props"}`` then
  ``{"kind": "edge", "type", "source", "source_label", "target", "target_label", "props"}`` lines
  (``regintel.graph.export``), and ``graph/graph.cypher``, the same as MERGE statements that cypher-shell loads into
  Neo4j (or FalkorDB / Memgraph): "export the rules graph to Neo4j".
- ``notes/``: the markdown notes of committed concepts. ``sources/``: the uploaded source files and their markdown.
- ``embeddings.sqlite``: the embedding cache (online backup), so a restore re-indexes without computing a vector
  that was computed before.

The vectors, BM25 index and chunk records are not copied: they are rebuilt on restore by an ingestion of the corpus
folder and the restored source registry, which gives the same passages, hence the same answers, on any vector
store (a Chroma server included).

``restore`` refuses a target whose SQL store or graph is not empty, a backup of an unknown format, a file whose
checksum does not match; the SQL rows go in one transaction (all or nothing), then the graph, the files, an
ingestion; then counts and the graph's content hash are compared with the manifest and any difference is reported.
"""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import sqlite3
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator

from sqlalchemy import func, select, text
from sqlalchemy.engine import make_url

from regintel.errors import RegIntelError
from regintel.graph.export import GraphDump, read_graph, to_cypher, to_jsonl
from regintel.graph.queries import KEYED_LABELS
from regintel.graph.schema import NODE_LABELS, RELATION_TYPES, SPECIFIC_LABELS
from regintel.store.models import Base

FORMAT_VERSION = 1
MANIFEST = "manifest.json"
BATCH = 500


class BackupError(RegIntelError):
    """A backup cannot be written or restored; the message says why and what to do."""


@dataclass
class BackupReport:
    folder: Path
    tables: dict[str, int] = field(default_factory=dict)
    graph_nodes: int | None = None
    graph_edges: int | None = None
    graph_hash: str = ""
    files: int = 0
    warnings: list[str] = field(default_factory=list)

    def summary(self) -> str:
        rows = sum(self.tables.values())
        graph = ("graph: not backed up" if self.graph_nodes is None
                 else f"graph: {self.graph_nodes} nodes, {self.graph_edges} edges (hash {self.graph_hash[:12]})")
        lines = [f"backup in {self.folder}: {rows} rows in {len(self.tables)} tables, {graph}, {self.files} files"]
        return "\n".join(lines + [f"warning: {w}" for w in self.warnings])


@dataclass
class RestoreReport:
    tables: dict[str, int] = field(default_factory=dict)
    graph_nodes: int | None = None
    graph_edges: int | None = None
    graph_hash: str = ""
    differences: list[str] = field(default_factory=list)
    index: str = ""

    def summary(self) -> str:
        lines = [f"restored {sum(self.tables.values())} rows in {len(self.tables)} tables"]
        if self.graph_nodes is not None:
            lines.append(f"graph: {self.graph_nodes} nodes, {self.graph_edges} edges (hash {self.graph_hash[:12]})")
        if self.index:
            lines.append(f"index: {self.index}")
        lines += [f"DIFFERENCE: {d}" for d in self.differences] or ["every count and the graph's content hash match "
                                                                     "the backup"]
        return "\n".join(lines)


# -- values ------------------------------------------------------------------------------------------------------
def _encode(value: Any) -> Any:
    if isinstance(value, datetime):
        return {"$datetime": value.isoformat()}
    if isinstance(value, (bytes, bytearray, memoryview)):
        return {"$bytes": base64.b64encode(bytes(value)).decode("ascii")}
    return value


def _decode(value: Any) -> Any:
    if isinstance(value, dict) and len(value) == 1:
        if "$datetime" in value:
            moment = datetime.fromisoformat(value["$datetime"])
            return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)
        if "$bytes" in value:
            return base64.b64decode(value["$bytes"])
    return value


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def graph_hash(dump: GraphDump) -> str:
    """A content hash of the graph independent of the order the backend returns things in."""
    lines = sorted(to_jsonl(dump).splitlines())
    return hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()


def _sqlite_file(url: str) -> Path | None:
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or not parsed.database or parsed.database == ":memory:":
        return None
    return Path(parsed.database)


def _online_copy(source: Path, target: Path) -> None:
    """A consistent copy of a live SQLite file (readers and writers may go on meanwhile)."""
    with sqlite3.connect(f"file:{source}?mode=ro", uri=True) as src, sqlite3.connect(target) as dst:
        src.backup(dst)


# -- backup ------------------------------------------------------------------------------------------------------
def backup(app: Any, folder: Path) -> BackupReport:
    """Write a backup of ``app``'s deployment into ``folder`` (new or empty). The graph being unavailable is a
    warning (the rest is backed up); anything else that fails raises BackupError and leaves no manifest."""
    folder = Path(folder)
    if folder.exists() and any(folder.iterdir()):
        raise BackupError(f"{folder} is not empty: back up into a new folder")
    settings = app.settings
    report = BackupReport(folder)
    (folder / "sql").mkdir(parents=True)
    with app.db.engine.connect() as conn, conn.begin():  # one read transaction: tables that agree
        if conn.dialect.name == "postgresql":
            conn.execute(text("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ"))
        for table in Base.metadata.sorted_tables:
            count = 0
            with (folder / "sql" / f"{table.name}.jsonl").open("w", encoding="utf-8") as out:
                for row in conn.execute(select(table)).mappings():
                    out.write(json.dumps({k: _encode(v) for k, v in row.items()}, ensure_ascii=False, default=str) + "\n")
                    count += 1
            report.tables[table.name] = count
    sqlite_file = _sqlite_file(app.db.url)
    if sqlite_file is not None and sqlite_file.exists():
        _online_copy(sqlite_file, folder / "sql" / "store.sqlite")

    graph = app.graph
    if graph is None:
        report.warnings.append(f"the rules graph was not backed up: {app.graph_problem}")
    else:
        dump = read_graph(graph)
        (folder / "graph").mkdir()
        (folder / "graph" / "graph.jsonl").write_text(to_jsonl(dump), encoding="utf-8")
        (folder / "graph" / "graph.cypher").write_text(to_cypher(dump), encoding="utf-8")
        report.graph_nodes, report.graph_edges, report.graph_hash = len(dump.nodes), len(dump.edges), graph_hash(dump)

    for name, source in (("notes", settings.notes_path), ("sources", Path(settings.data_dir) / "sources")):
        if source.is_dir():
            shutil.copytree(source, folder / name, ignore=shutil.ignore_patterns(".*"))
    if settings.embedding_cache_path.exists():
        _online_copy(settings.embedding_cache_path, folder / "embeddings.sqlite")

    files = {str(p.relative_to(folder)): _sha256(p) for p in sorted(folder.rglob("*")) if p.is_file()}
    report.files = len(files)
    manifest = {
        "format_version": FORMAT_VERSION,
        "created_at": datetime.now(timezone.utc).isoformat(),
        "sql_backend": app.db.engine.dialect.name,
        "graph_backend": settings.graph_backend,
        "index": _index_settings(app),
        "tables": report.tables,
        "graph": None if report.graph_nodes is None else
        {"nodes": report.graph_nodes, "edges": report.graph_edges, "hash": report.graph_hash},
        "files": files,
        "warnings": report.warnings,
    }
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=2, ensure_ascii=False), encoding="utf-8")
    return report


def _index_settings(app: Any) -> dict[str, Any]:
    """What shapes the passages and their vectors; restore warns when the target differs."""
    settings = app.settings
    from regintel.retrieval.index_io import IndexPaths

    manifest_path = IndexPaths(settings).manifest
    built = json.loads(manifest_path.read_text(encoding="utf-8")) if manifest_path.exists() else {}
    return {"model_id": built.get("model_id", ""), "corpus_version": built.get("corpus_version", ""),
            "chunks": built.get("chunks", 0), "chunk_max_chars": settings.chunk_max_chars,
            "chunk_min_chars": settings.chunk_min_chars, "chunk_overlap_chars": settings.chunk_overlap_chars,
            "corpus_dir": str(settings.corpus_dir)}


# -- restore -----------------------------------------------------------------------------------------------------
def read_manifest(folder: Path) -> dict[str, Any]:
    """The backup's manifest after checking its format and every file's checksum."""
    path = Path(folder) / MANIFEST
    if not path.exists():
        raise BackupError(f"{folder} is not a RegIntel backup (no {MANIFEST}; an interrupted backup has none)")
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise BackupError(f"{path} is corrupt: {exc}") from exc
    if manifest.get("format_version") != FORMAT_VERSION:
        raise BackupError(f"backup format {manifest.get('format_version')!r} is not supported (this version reads "
                          f"format {FORMAT_VERSION})")
    for name, digest in manifest.get("files", {}).items():
        file = Path(folder) / name
        if not file.is_file():
            raise BackupError(f"the backup is incomplete: {name} is missing")
        if _sha256(file) != digest:
            raise BackupError(f"the backup is damaged: {name} does not match its checksum")
    return manifest


def restore(app: Any, folder: Path, reindex: bool = True) -> RestoreReport:
    """Restore a backup into ``app``'s empty deployment; see the module docstring."""
    folder = Path(folder)
    manifest = read_manifest(folder)
    _refuse_non_empty(app, manifest)
    report = RestoreReport()
    tables = {table.name: table for table in Base.metadata.sorted_tables}
    with app.db.engine.begin() as conn:  # all rows or none
        for table in Base.metadata.sorted_tables:
            path = folder / "sql" / f"{table.name}.jsonl"
            if not path.exists():
                continue
            for rows in _batches(path):
                conn.execute(tables[table.name].insert(), rows)
    if manifest.get("graph"):
        graph = app.require_graph()
        _load_graph(graph, folder / "graph" / "graph.jsonl")
    settings = app.settings
    for name, target in (("notes", settings.notes_path), ("sources", Path(settings.data_dir) / "sources")):
        if (folder / name).is_dir():
            shutil.copytree(folder / name, target, dirs_exist_ok=True)
    if (folder / "embeddings.sqlite").exists() and not settings.embedding_cache_path.exists():
        settings.embedding_cache_path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(folder / "embeddings.sqlite", settings.embedding_cache_path)
    if reindex:
        ingestion = app.ingest(seed_graph=False)  # the graph is restored as it was, timestamps included
        report.index = f"{ingestion.chunks} passages, {ingestion.embedded} embeddings computed"
        built = manifest.get("index", {})
        if built.get("corpus_version") and built["corpus_version"] != ingestion.corpus_version:
            report.differences.append(f"corpus version {ingestion.corpus_version[:12]} differs from the backup's "
                                      f"{built['corpus_version'][:12]} (is REGINTEL_CORPUS_DIR the same corpus?)")
    _compare(app, manifest, report)
    return report


def _batches(path: Path) -> Iterator[list[dict[str, Any]]]:
    batch: list[dict[str, Any]] = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                batch.append({k: _decode(v) for k, v in json.loads(line).items()})
                if len(batch) >= BATCH:
                    yield batch
                    batch = []
    if batch:
        yield batch


def _counts(app: Any) -> dict[str, int]:
    with app.db.session() as session:
        return {table.name: session.execute(select(func.count()).select_from(table)).scalar_one()
                for table in Base.metadata.sorted_tables}


def _refuse_non_empty(app: Any, manifest: dict[str, Any]) -> None:
    app.db.create_schema()
    busy = {name: n for name, n in _counts(app).items() if n}
    if busy:
        raise BackupError("restore needs an empty deployment; the SQL store already holds rows in "
                          + ", ".join(f"{name} ({n})" for name, n in sorted(busy.items()))
                          + ": point REGINTEL_DATA_DIR / REGINTEL_DATABASE_URL at a new one")
    if manifest.get("graph"):
        graph = app.require_graph()
        rows = graph.query("MATCH (n) RETURN count(n) AS n")  # a graph never written reads as no rows
        nodes = rows[0]["n"] if rows else 0
        if nodes:
            raise BackupError(f"restore needs an empty rules graph; it holds {nodes} nodes (REGINTEL_GRAPH_NAME / "
                              "REGINTEL_GRAPH_URL)")


def _load_graph(graph: Any, path: Path) -> None:
    """Nodes then edges, in batches of parameterised MERGE statements (labels and types from the schema's
    whitelists only; every value a parameter)."""
    nodes: dict[tuple[str, tuple[str, ...]], list[dict[str, Any]]] = {}
    edges: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        if item["kind"] == "node" and item["label"] in NODE_LABELS:
            extra = tuple(sorted(l for l in item.get("labels", []) if l in SPECIFIC_LABELS))
            nodes.setdefault((item["label"], extra), []).append({"key": item["key"], "props": item["props"]})
        elif item["kind"] == "edge" and item["type"] in RELATION_TYPES \
                and item["source_label"] in NODE_LABELS and item["target_label"] in NODE_LABELS:
            edges.setdefault((item["type"], item["source_label"], item["target_label"]), []).append(
                {"source": item["source"], "target": item["target"], "props": item["props"]})
    statements = []
    for (label, extra), rows in nodes.items():
        set_labels = "".join(f" SET n:{specific}" for specific in extra)
        cypher = f"UNWIND $rows AS row MERGE (n:{label} {{{KEYED_LABELS[label]}: row.key}}) SET n += row.props{set_labels}"
        statements += [(cypher, {"rows": rows[i:i + BATCH]}) for i in range(0, len(rows), BATCH)]
    for (kind, source, target), rows in edges.items():
        cypher = (f"UNWIND $rows AS row MATCH (a:{source} {{{KEYED_LABELS[source]}: row.source}}) "
                  f"MATCH (b:{target} {{{KEYED_LABELS[target]}: row.target}}) MERGE (a)-[e:{kind}]->(b) SET e += row.props")
        statements += [(cypher, {"rows": rows[i:i + BATCH]}) for i in range(0, len(rows), BATCH)]
    graph.ensure_schema()
    for statement in statements:
        graph.write(*statement)


def _compare(app: Any, manifest: dict[str, Any], report: RestoreReport) -> None:
    report.tables = _counts(app)
    for name, expected in manifest.get("tables", {}).items():
        if report.tables.get(name, 0) != expected:
            report.differences.append(f"table {name}: {report.tables.get(name, 0)} rows, the backup has {expected}")
    expected_graph = manifest.get("graph")
    if expected_graph:
        dump = read_graph(app.require_graph())
        report.graph_nodes, report.graph_edges, report.graph_hash = len(dump.nodes), len(dump.edges), graph_hash(dump)
        if (report.graph_nodes, report.graph_edges) != (expected_graph["nodes"], expected_graph["edges"]):
            report.differences.append(f"graph: {report.graph_nodes} nodes / {report.graph_edges} edges, the backup has "
                                      f"{expected_graph['nodes']} / {expected_graph['edges']}")
        elif report.graph_hash != expected_graph["hash"]:
            report.differences.append("graph: same counts but different content (hash mismatch)")
