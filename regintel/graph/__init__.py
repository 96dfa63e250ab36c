"""The rules graph: schema, backends (embedded FalkorDB, Neo4j, Memgraph), guarded writes, canonical concepts."""
