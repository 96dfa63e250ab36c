"""The Chat page's turns as the page script runs them (Streamlit's AppTest over the indexed demo corpus, laptop mode):
a question sent is answered and stored in a conversation created for it and let go, the input enabled again; a
question the engine refuses before storing anything (here the hourly limit) is shown with the reason, and leaves no
empty conversation behind. The interrupted answer (a page change while a model writes) is the browser test in
tests/e2e/test_chat_with_model.py."""

from __future__ import annotations

import pytest

from regintel.ui import pending_turns
from tests.conftest import app_served_on, engine_world

pytestmark = pytest.mark.slow  # the indexed demo corpus and an embedded graph server

BREACH = "What must a controller do when a personal data breach occurs?"
CONSENT = "What are the conditions for consent under the GDPR?"


@pytest.fixture
def chat_page(tmp_path, monkeypatch):
    with engine_world(tmp_path / "data", "chat_page_turns") as world:
        settings = world["settings"]
        env = {"DATA_DIR": settings.data_dir, "CORPUS_DIR": settings.corpus_dir,
               "EMBEDDING_SEED_CACHE": settings.embedding_seed_cache, "LAPTOP_MODE": "true",
               "CHAT_RATE_LIMIT_PER_HOUR": "2", "RESPONSE_CACHE_TTL_SECONDS": "0", "WORKER": "external"}
        with app_served_on(monkeypatch, {f"REGINTEL_{name}": str(value) for name, value in env.items()}) as page:
            page.switch_page("views/1_Chat.py").run()
            assert not page.exception, page.exception
            yield page, world


def conversations(world) -> dict[str, list[str]]:
    """Every stored conversation's questions."""
    repo = world["engine"].repo
    tenant = repo.ensure_tenant("local")
    return {c.id: [t.question for t in repo.turns(tenant.id, c.id)] for c in repo.conversations(tenant.id)}


def ask(page, question: str):
    page.chat_input[0].set_value(question).run()
    assert not page.exception, page.exception
    return page


def test_a_question_is_answered_stored_and_let_go_and_a_refused_one_leaves_no_empty_conversation(chat_page):
    page, world = chat_page
    ask(page, BREACH)
    (conversation, questions), = conversations(world).items()
    assert questions == [BREACH] and page.query_params["c"] == conversation
    assert [m.children[0].value for m in page.chat_message if m.name == "user"] == [BREACH]
    assert pending_turns.pending(page.session_state) is None and not page.chat_input[0].disabled

    ask(page, CONSENT)  # the second question of the hour: same conversation
    assert conversations(world) == {conversation: [BREACH, CONSENT]}

    page.query_params.pop("c")
    page.run()  # the Chat page with no conversation open: the next question would start one
    ask(page, "What is a processor?")  # over the hourly limit of 2
    assert any("limit per user" in e.value for e in page.error), [e.value for e in page.error]
    assert any(m.name == "user" and m.children[0].value == "What is a processor?" for m in page.chat_message)
    assert conversations(world) == {conversation: [BREACH, CONSENT]}  # the conversation made for it is gone
    assert pending_turns.pending(page.session_state) is None and not page.chat_input[0].disabled
