"""Every Cypher query of the application, in one place, always parameterised.

Labels and relation types appear in query text only through the templates below, filled from the schema's
whitelists (never from input). The portable subset: fixed labels, ``UNWIND $rows AS r MERGE ...`` with explicit
``SET``s, scalar return columns. Dialect hooks cover constraints and indexes.
"""

from __future__ import annotations

from regintel.graph.schema import NODE_LABELS, RELATION_TYPES, SPECIFIC_LABELS

KEYED_LABELS = {label: ("code" if label == "Jurisdiction" else "key") for label in NODE_LABELS}


def _check_label(label: str) -> str:
    if label not in NODE_LABELS and label not in SPECIFIC_LABELS:
        raise ValueError(f"label '{label}' is not in the schema")
    return label


def _check_type(rel_type: str) -> str:
    if rel_type not in RELATION_TYPES:
        raise ValueError(f"relation type '{rel_type}' is not in the schema")
    return rel_type


# -- schema ------------------------------------------------------------------------------------------------------
def falkordb_schema_statements() -> list[str]:
    statements = [f"CREATE INDEX FOR (n:{label}) ON (n.{prop})" for label, prop in KEYED_LABELS.items()]
    statements += [f"CREATE INDEX FOR (n:{label}) ON (n.updated_at)" for label in NODE_LABELS]
    statements += ["CREATE INDEX FOR (n:Label) ON (n.normalised)", "CREATE INDEX FOR (n:Concept) ON (n.id)"]
    return statements


def neo4j_schema_statements() -> list[str]:
    statements = [
        f"CREATE CONSTRAINT {label.lower()}_{prop}_unique IF NOT EXISTS FOR (n:{label}) REQUIRE n.{prop} IS UNIQUE"
        for label, prop in KEYED_LABELS.items()
    ]
    statements += [f"CREATE INDEX {label.lower()}_updated IF NOT EXISTS FOR (n:{label}) ON (n.updated_at)" for label in NODE_LABELS]
    statements += ["CREATE INDEX label_normalised IF NOT EXISTS FOR (n:Label) ON (n.normalised)",
                   "CREATE INDEX concept_id IF NOT EXISTS FOR (n:Concept) ON (n.id)"]
    return statements


def memgraph_schema_statements() -> list[str]:
    statements = [f"CREATE CONSTRAINT ON (n:{label}) ASSERT n.{prop} IS UNIQUE" for label, prop in KEYED_LABELS.items()]
    statements += [f"CREATE INDEX ON :{label}({prop})" for label, prop in KEYED_LABELS.items()]
    statements += [f"CREATE INDEX ON :{label}(updated_at)" for label in NODE_LABELS]
    statements += ["CREATE INDEX ON :Label(normalised)", "CREATE INDEX ON :Concept(id)"]
    return statements


# -- generic guarded writes (GraphWriteService) ------------------------------------------------------------------
def merge_nodes(label: str) -> str:
    """Upsert nodes by key: rows are {key, props}; created_at on creation, updated_at always."""
    key = KEYED_LABELS[_check_label(label)]
    return (
        f"UNWIND $rows AS r MERGE (n:{label} {{{key}: r.key}}) "
        "ON CREATE SET n.created_at = $now SET n += r.props, n.updated_at = $now"
    )


def add_specific_label(label: str, specific: str) -> str:
    key = KEYED_LABELS[_check_label(label)]
    return f"MATCH (n:{label} {{{key}: $key}}) SET n:{_check_label(specific)}"


def merge_edges(rel_type: str, from_label: str, to_label: str) -> str:
    """Upsert edges between keyed nodes: rows are {from, to, props}."""
    from_key, to_key = KEYED_LABELS[_check_label(from_label)], KEYED_LABELS[_check_label(to_label)]
    return (
        f"UNWIND $rows AS r MATCH (a:{from_label} {{{from_key}: r.from}}) MATCH (b:{to_label} {{{to_key}: r.to}}) "
        f"MERGE (a)-[e:{_check_type(rel_type)}]->(b) ON CREATE SET e.created_at = $now "
        "SET e += r.props, e.updated_at = $now"
    )


# -- concepts ----------------------------------------------------------------------------------------------------
CONCEPT_BY_KEY = (
    "MATCH (c:Concept {key: $key}) RETURN c.id AS id, c.key AS key, labels(c) AS labels, "
    "c.definition AS definition, c.alt_labels AS alt_labels, c.pref_label AS pref_label, c.merged_into AS merged_into"
)
CONCEPT_BY_ALIAS = (
    "MATCH (l:Label)<-[:HAS_LABEL]-(c:Concept) WHERE l.key IN $label_keys "
    "RETURN c.id AS id, c.key AS key, labels(c) AS labels, c.definition AS definition, "
    "c.alt_labels AS alt_labels, c.pref_label AS pref_label ORDER BY c.created_at LIMIT 1"
)
CREATE_CONCEPT = (
    "MERGE (c:Concept {key: $key}) ON CREATE SET c.id = $id, c.created_at = $now, c.domain = $domain, "
    "c.kind = $kind, c.jurisdiction = $jurisdiction, c.pref_label = $pref_label, c.definition = $definition, "
    "c.alt_labels = [], c.source_urls = [], c.status = 'active' "
    "SET c.updated_at = $now RETURN c.id AS id, labels(c) AS labels"
)
CONCEPT_DETAIL = (
    "MATCH (c:Concept {key: $key}) OPTIONAL MATCH (c)-[r]->(s:Section) "
    "RETURN c.definition AS definition, count(s) AS sections, c.updated_at AS updated_at, c.enriched_at AS enriched_at"
)
CONCEPT_LABEL_INDEX = (
    "MATCH (c:Concept) RETURN c.key AS key, c.domain AS domain, c.kind AS kind, c.jurisdiction AS jurisdiction, "
    "c.pref_label AS pref_label, c.alt_labels AS alt_labels, c.definition AS definition, c.source_urls AS source_urls"
)
COUNT_NODES = "MATCH (n) RETURN count(n) AS n"

# -- change detection --------------------------------------------------------------------------------------------
NODES_CHANGED_SINCE = (
    "MATCH (n) WHERE n.updated_at > $since RETURN labels(n) AS labels, coalesce(n.key, n.code) AS key, "
    "n.created_at AS created_at, n.updated_at AS updated_at ORDER BY n.updated_at LIMIT $limit"
)
EDGES_CHANGED_SINCE = (
    "MATCH (a)-[e]->(b) WHERE e.updated_at > $since RETURN type(e) AS type, coalesce(a.key, a.code) AS source, "
    "coalesce(b.key, b.code) AS target, e.created_at AS created_at, e.updated_at AS updated_at "
    "ORDER BY e.updated_at LIMIT $limit"
)
ALL_NODES_SNAPSHOT = "MATCH (n) RETURN labels(n) AS labels, coalesce(n.key, n.code) AS key, n.updated_at AS updated_at"
ALL_EDGES_SNAPSHOT = (
    "MATCH (a)-[e]->(b) RETURN type(e) AS type, coalesce(a.key, a.code) AS source, coalesce(b.key, b.code) AS target, "
    "e.updated_at AS updated_at"
)

# -- graph explorer ----------------------------------------------------------------------------------------------
_NODE_COLUMNS = (
    "labels(n) AS labels, coalesce(n.key, n.code) AS key, "
    "coalesce(n.pref_label, n.short_title, n.title, n.ref, n.text, n.name, n.code, n.key) AS caption, "
    "n.jurisdiction AS jurisdiction, n.domain AS domain, n.updated_at AS updated_at, n.rule_key AS rule_key"
)
EXPLORER_NODES = (
    "MATCH (n) WHERE any(l IN labels(n) WHERE l IN $labels) "
    "AND ($jurisdiction = '' OR coalesce(n.jurisdiction, n.code, '') = $jurisdiction) "
    "AND ($domain = '' OR coalesce(n.domain, '') = $domain) "
    f"RETURN {_NODE_COLUMNS} ORDER BY n.updated_at DESC LIMIT $limit"
)
EXPLORER_SEARCH = (
    "MATCH (n) WHERE any(l IN labels(n) WHERE l IN $labels) AND "
    "toLower(coalesce(n.pref_label, '') + ' ' + coalesce(n.title, '') + ' ' + coalesce(n.short_title, '') + ' ' + "
    "coalesce(n.heading, '') + ' ' + coalesce(n.text, '') + ' ' + coalesce(n.key, n.code, '')) CONTAINS toLower($text) "
    f"RETURN {_NODE_COLUMNS} LIMIT $limit"
)
EXPLORER_SEARCH_ALIASES = (
    "MATCH (c:Concept)-[:HAS_LABEL]->(l:Label) WHERE toLower(l.text) CONTAINS toLower($text) "
    "WITH DISTINCT c AS n "
    f"RETURN {_NODE_COLUMNS} LIMIT $limit"
)
EXPLORER_EDGES = (
    "MATCH (a)-[e]->(b) WHERE coalesce(a.key, a.code) IN $keys AND coalesce(b.key, b.code) IN $keys "
    "RETURN coalesce(a.key, a.code) AS source, type(e) AS type, coalesce(b.key, b.code) AS target LIMIT $limit"
)
NODE_BY_KEY = f"MATCH (n) WHERE n.key = $key OR n.code = $key RETURN {_NODE_COLUMNS} LIMIT 1"
NODE_PROPERTIES_BY_KEY = "MATCH (n) WHERE n.key = $key OR n.code = $key RETURN n AS node, labels(n) AS labels LIMIT 1"
NODE_ALIASES = "MATCH (c:Concept {key: $key})-[:HAS_LABEL]->(l:Label) RETURN l.text AS text ORDER BY text"
NODE_SECTIONS = (
    "MATCH (n)-[e]-(s:Section) WHERE n.key = $key OR n.code = $key "
    "RETURN type(e) AS type, s.key AS key, s.ref AS ref, s.heading AS heading, s.rule_key AS rule, "
    "s.source_url AS url ORDER BY key LIMIT 50"
)

# the default view: the most connected concepts and rules, each with its degree (aliases and quotes not counted)
# ties broken by key: the same graph (e.g. restored from a backup) draws the same overview
_TOP_CONCEPTS = (
    "MATCH (n:Concept) WHERE {among}coalesce(n.status, 'active') <> 'retired' "
    "OPTIONAL MATCH (n)-[e]-(m) WHERE NOT m:Label AND NOT m:Quote "
    f"WITH n, count(e) AS degree RETURN {_NODE_COLUMNS}, degree ORDER BY degree DESC, updated_at DESC, key LIMIT $limit"
)
EXPLORER_TOP_CONCEPTS = _TOP_CONCEPTS.format(among="")
# the same, among given concepts (those of the signed-in tenant's recent conversations)
EXPLORER_TOP_CONCEPTS_AMONG = _TOP_CONCEPTS.format(among="n.key IN $keys AND ")
EXPLORER_TOP_RULES = (
    "MATCH (n:Rule) OPTIONAL MATCH (n)-[e]-() "
    f"WITH n, count(e) AS degree RETURN {_NODE_COLUMNS}, degree ORDER BY degree DESC, key LIMIT $limit"
)
EXPLORER_DEGREES = (
    "MATCH (n)-[e]-() WHERE coalesce(n.key, n.code) IN $keys RETURN coalesce(n.key, n.code) AS key, count(e) AS degree"
)
# a concept linked to a rule through any of the rule's sections (drawn as one edge in the overview)
EXPLORER_CONCEPT_RULES = (
    "MATCH (c:Concept)-[]-(s:Section)-[:PART_OF_RULE]->(r:Rule) WHERE c.key IN $keys AND r.key IN $keys "
    "RETURN DISTINCT c.key AS source, r.key AS target"
)
EXPLORER_RULE_TITLES = "MATCH (r:Rule) WHERE r.key IN $keys RETURN r.key AS key, coalesce(r.short_title, r.title) AS title"
# what the search box can focus: concepts (by label and alias), rules and sections
EXPLORER_NAMES = (
    "MATCH (n) WHERE (n:Concept AND coalesce(n.status, 'active') <> 'retired') OR n:Rule OR n:Section "
    "RETURN labels(n) AS labels, n.key AS key, coalesce(n.pref_label, n.short_title, n.title, n.ref) AS name, "
    "n.heading AS heading, n.rule_key AS rule_key, n.alt_labels AS aliases LIMIT $limit"
)


def explorer_neighbourhood(depth: int) -> str:
    """Nodes within 1-3 hops of a focused node (depth from a fixed set, never from free text)."""
    if depth not in (1, 2, 3):
        raise ValueError("depth must be 1, 2 or 3")
    return (
        f"MATCH (f) WHERE f.key = $key OR f.code = $key MATCH (f)-[*1..{depth}]-(n) "
        f"WITH DISTINCT n RETURN {_NODE_COLUMNS} LIMIT $limit"
    )

# -- contents, quotes and extraction -----------------------------------------------------------------------------
CONTENT_BY_KEY = (
    "MATCH (c:Content {key: $key}) RETURN c.key AS key, c.title AS title, c.author AS author, c.category AS category, "
    "c.source_url AS source_url, c.domain AS domain, c.jurisdiction AS jurisdiction, c.language AS language, "
    "c.processed_date AS processed_date"
)
CONTENT_QUOTES = (
    "MATCH (c:Content {key: $key})-[:HAS_QUOTE]->(q:Quote) RETURN q.key AS key, q.text AS text, q.position AS position "
    "ORDER BY q.position"
)
CONTENT_LIST = (
    "MATCH (c:Content) OPTIONAL MATCH (c)-[:HAS_QUOTE]->(q:Quote) WITH c, count(q) AS quotes "
    "RETURN c.key AS key, c.title AS title, c.processed_date AS processed_date, quotes, c.created_at AS created_at "
    "ORDER BY created_at DESC LIMIT $limit"
)
CONCEPT_CATALOGUE = (
    "MATCH (c:Concept) RETURN c.key AS key, c.id AS id, c.pref_label AS title, c.alt_labels AS alt_labels, "
    "c.definition AS definition, c.short_summary AS short_summary, c.domain AS domain, c.jurisdiction AS jurisdiction"
)
# the definitions of a conversation's concepts in scope, sent to the model with their keys (issue 20 item 3)
CONCEPT_DEFINITIONS = (
    "MATCH (c:Concept) WHERE c.key IN $keys RETURN c.key AS key, c.definition AS definition"
)
# the Sections of the rules graph among the cited passages' units (a passage of an unseeded source has none)
SECTIONS_BY_KEYS = (
    "MATCH (s:Section) WHERE s.key IN $keys RETURN s.key AS key, s.id AS id"
)
CONCEPTS_BY_KEYS = (
    "MATCH (c:Concept) WHERE c.key IN $keys RETURN c.key AS key, c.id AS id, c.pref_label AS title"
)
QUOTE_SUPPORTS = (
    "MATCH (q:Quote)-[:SUPPORTS]->(c:Concept) WHERE q.key IN $keys RETURN q.key AS quote, c.key AS concept"
)
CREATE_CONCEPTS = (
    "UNWIND $rows AS r MERGE (c:Concept {key: r.key}) ON CREATE SET c.id = r.id, c.created_at = $now, "
    "c.status = 'active', c.alt_labels = [], c.source_urls = [], c += r.props, c.updated_at = $now"
)
CONCEPT_RELATIONS_BY_IDS = (
    "MATCH (a:Concept)-[e]->(b:Concept) WHERE a.id IN $ids "
    "RETURN a.id AS source, type(e) AS type, b.id AS target, b.pref_label AS target_title"
)

# -- status -------------------------------------------------------------------------------------------------------
NODE_COUNTS_BY_LABEL = "MATCH (n) RETURN labels(n)[0] AS label, count(n) AS n"
