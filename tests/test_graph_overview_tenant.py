"""The Graph Explorer's default view starts from the signed-in tenant's recent conversations (issue 24 item 1):
their concepts first, by degree, then the most connected concepts of the whole graph; another tenant's
conversations do not change it."""

from __future__ import annotations

import pytest

from regintel.chat.repository import ConversationRepository
from regintel.graph.explorer import overview
from regintel.graph.resolver import CanonicalConceptInput, CanonicalConceptResolver
from regintel.graph.write_service import GraphWriteService
from regintel.store import Database
from tests.graph_backends import backend_store

pytestmark = pytest.mark.slow  # an embedded graph server


def test_the_overview_starts_from_the_tenants_recent_concepts_then_fills_with_the_most_connected(tmp_path):
    db = Database(f"sqlite:///{tmp_path / 'sql.db'}")
    db.create_schema()
    repo = ConversationRepository(db)
    with backend_store("falkordb", tmp_path) as store:
        resolver = CanonicalConceptResolver(store)
        writer = GraphWriteService(store)
        hubs = [resolver.resolve_or_create(CanonicalConceptInput("TAX", f"HUB_{i}", "EU", f"Hub {i}")) for i in range(4)]
        quiet = [resolver.resolve_or_create(CanonicalConceptInput("TAX", f"QUIET_{i}", "EU", f"Quiet {i}")) for i in range(3)]
        writer.upsert_nodes("Section", [{"key": f"doc#art-{n}", "ref": f"Article {n}"} for n in range(4)])
        writer.upsert_edges("MENTIONED_IN", "Concept", "Section", [
            {"from": hub.key, "to": f"doc#art-{n}"} for i, hub in enumerate(hubs) for n in range(4 - i)])

        alpha, beta = repo.ensure_tenant("alpha"), repo.ensure_tenant("beta")
        for tenant, concepts in ((alpha, quiet[:2]), (beta, [quiet[2]])):
            user = repo.ensure_user(tenant.id, "ana")
            conversation = repo.create_conversation(tenant.id, user.id)
            repo.add_active_concepts(tenant.id, conversation.id, [{"id": c.id, "key": c.key, "label": c.key} for c in concepts])

        assert repo.recent_concept_keys(alpha.id) == [quiet[1].key, quiet[0].key]
        keys = [n["key"] for n in overview(store, limit=4, preferred=repo.recent_concept_keys(alpha.id)).nodes]
        assert set(keys[:2]) == {quiet[0].key, quiet[1].key} and keys[2:] == [hubs[0].key, hubs[1].key], keys
        assert quiet[2].key not in keys, "another tenant's conversations do not shape this view"
        assert [n["key"] for n in overview(store, limit=4).nodes] == [h.key for h in hubs], "no conversations: the whole graph"
    db.dispose()
