"""Graph benchmark per backend: resolve-or-create throughput, key lookup latency, and the cost of change
detection by timestamps versus full polling on a graph of N concepts (the design claims 80-95 % less work)."""

from __future__ import annotations

import json
import os
import tempfile
import time
import uuid
from pathlib import Path
from statistics import median

from regintel.bench.metrics import percentile
from regintel.graph import queries
from regintel.graph.changes import GraphChangeDetector
from regintel.graph.resolver import CanonicalConceptInput, CanonicalConceptResolver
from regintel.graph.store import GraphStore
from regintel.graph.write_service import GraphWriteService


def _backends(neo4j_url: str | None) -> list[tuple[str, GraphStore, object]]:
    from regintel.graph.falkordb_server import EmbeddedFalkorDB
    from regintel.graph.falkordb_store import FalkorDBStore

    server = EmbeddedFalkorDB(Path(tempfile.mkdtemp(prefix="regintel-bench-graph-")), snapshot_seconds=60)
    found: list[tuple[str, GraphStore, object]] = [("falkordb-embedded", FalkorDBStore(f"bench_{uuid.uuid4().hex[:6]}", server=server), server)]
    for name, url in (("neo4j", neo4j_url or os.environ.get("REGINTEL_TEST_NEO4J_URL")),
                      ("memgraph", os.environ.get("REGINTEL_TEST_MEMGRAPH_URL"))):
        if url:
            from regintel.graph.neo4j_store import Neo4jStore

            found.append((name, Neo4jStore(url, dialect=name), None))
    return found


def bench_backend(store: GraphStore, concepts: int, resolve_sample: int) -> dict:
    store.clear()
    store.ensure_schema()
    writer = GraphWriteService(store)
    resolver = CanonicalConceptResolver(store, writer)
    domains = ["TAX", "DATA_PROTECTION", "OPERATIONAL_RESILIENCE", "SUSTAINABILITY_REPORTING"]
    rows = [{"key": f"{domains[i % 4]}|KIND_{i}|EU", "domain": domains[i % 4], "kind": f"KIND_{i}", "jurisdiction": "EU",
             "pref_label": f"Concept {i}", "id": str(uuid.uuid4())} for i in range(concepts)]

    started = time.perf_counter()
    for start in range(0, len(rows), 1000):
        writer.upsert_nodes("Concept", rows[start:start + 1000])
    bulk_s = time.perf_counter() - started

    # resolve_or_create one at a time (the chat path): half existing keys, half new concepts with aliases
    started = time.perf_counter()
    for i in range(resolve_sample):
        if i % 2:
            resolver.resolve_or_create(CanonicalConceptInput("TAX", f"KIND_{i * 4 % concepts}", "EU", f"Concept {i}"))
        else:
            resolver.resolve_or_create(CanonicalConceptInput("TAX", f"NEW_{i}", "IE", f"New concept {i}", [f"alias {i}"]))
    resolve_s = time.perf_counter() - started

    lookups = []
    for i in range(1000):
        t = time.perf_counter()
        store.query(queries.CONCEPT_BY_KEY, {"key": rows[(i * 7) % concepts]["key"]})
        lookups.append((time.perf_counter() - t) * 1000)

    timestamps = GraphChangeDetector(store, "timestamps", batch_window_ms=0)
    polling = GraphChangeDetector(store, "polling", batch_window_ms=0)
    timestamps.start_from_now()
    polling.start_from_now()
    ts_ms, poll_ms, ts_rows, poll_rows = [], [], [], []
    for round_ in range(10):
        writer.upsert_nodes("Concept", [{"key": rows[(round_ * 37 + j) % concepts]["key"], "definition": f"update {round_}"} for j in range(10)])
        t = time.perf_counter()
        a = timestamps.changes()
        ts_ms.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        b = polling.changes()
        poll_ms.append((time.perf_counter() - t) * 1000)
        ts_rows.append(a.size())
        poll_rows.append(b.size())
    total_nodes = int(store.query(queries.COUNT_NODES)[0]["n"])
    return {
        "nodes": total_nodes,
        "bulk_merge_concepts_per_s": round(concepts / bulk_s, 1),
        "resolve_or_create_per_s": round(resolve_sample / resolve_s, 1),
        "key_lookup_ms_p50": round(median(lookups), 3),
        "key_lookup_ms_p95": round(percentile(lookups, 95), 3),
        "change_detection_timestamps_ms_p50": round(median(ts_ms), 2),
        "change_detection_polling_ms_p50": round(median(poll_ms), 2),
        "change_detection_saving_pct": round(100 * (1 - median(ts_ms) / median(poll_ms)), 1) if median(poll_ms) else None,
        "changes_seen_timestamps": sum(ts_rows),
        "changes_seen_polling": sum(poll_rows),
    }


def run_graph_bench(concepts: int = 10_000, resolve_sample: int = 2000, neo4j_url: str | None = None) -> dict:
    results = {}
    for name, store, server in _backends(neo4j_url):
        try:
            results[name] = bench_backend(store, concepts, resolve_sample)
        except Exception as exc:  # one backend failing does not hide the others' numbers
            results[name] = {"error": f"{exc.__class__.__name__}: {exc}"}
        finally:
            store.close()
            if server is not None:
                server.shutdown(save=False)
    return {"concepts": concepts, "resolve_sample": resolve_sample, "backends": results}


def print_graph_report(result: dict, as_json: bool) -> None:
    print(f"Graph benchmark: {result['concepts']} concepts, {result['resolve_sample']} resolve_or_create calls")
    for name, r in result["backends"].items():
        if "error" in r:
            print(f"  {name}: {r['error']}")
            continue
        print(f"  {name}: {r['nodes']} nodes")
        print(f"    bulk MERGE            {r['bulk_merge_concepts_per_s']} concepts/s")
        print(f"    resolve_or_create     {r['resolve_or_create_per_s']} calls/s (one at a time, as in chat turns)")
        print(f"    key lookup            p50 {r['key_lookup_ms_p50']} ms, p95 {r['key_lookup_ms_p95']} ms")
        print(f"    change detection      timestamps {r['change_detection_timestamps_ms_p50']} ms vs polling "
              f"{r['change_detection_polling_ms_p50']} ms per check ({r['change_detection_saving_pct']} % less); "
              f"changes seen {r['changes_seen_timestamps']} vs {r['changes_seen_polling']}")
    if as_json:
        print(json.dumps(result))
