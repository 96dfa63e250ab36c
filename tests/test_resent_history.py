"""An earlier answer re-sent to the model names the passages it cited by this turn's numbers, or by name when
they are no longer in the context (issue 20 item 1): its own turn's numbers would point at other passages."""

from __future__ import annotations

import re

import pytest

from regintel.config import load_settings
from regintel.llm.prompt_format import SOURCE_RE
from regintel.runtime import RegIntel
from tests.conftest import make_small_corpus
from tests.llm_server import LlmTestServer, chat_answer

pytestmark = pytest.mark.slow  # indexes a corpus file

FIRST = "Faut-il utiliser le guichet unique OSS pour les ventes à distance intracommunautaires de biens ?"
SECOND = "Et quelles sont les obligations de déclaration et de paiement dans ce régime ?"


def test_the_second_request_resends_the_first_answer_with_the_second_turns_numbers(tmp_path):
    corpus = make_small_corpus(tmp_path / "corpus", {"be/be-guidance-oss-fr.md": {}})
    with LlmTestServer() as server:
        settings = load_settings(data_dir=tmp_path / "data", corpus_dir=corpus, llm_provider="openai-compatible",
                                 llm_base_url=server.base_url, response_cache_ttl_seconds=0, chat_rate_limit_per_hour=0)
        app = RegIntel(settings, graph=None)
        try:
            app.ingest()
            engine = app.chat
            tenant = engine.repo.ensure_tenant("resend").id
            user = engine.repo.ensure_user(tenant, "ana").id
            conversation = engine.repo.create_conversation(tenant, user).id
            # the model cites its prompt's passages 3 then 1: the analyst reads them as [1] and [2]
            server.scripts = [chat_answer("Le guichet unique OSS est optionnel [3]. Il couvre les ventes à distance [1]."),
                              chat_answer("Les déclarations sont trimestrielles [1].")]
            first = engine.stream_turn(tenant, user, conversation, FIRST)
            "".join(first)
            assert first.response.answer == "Le guichet unique OSS est optionnel [1]. Il couvre les ventes à distance [2]."
            cited_first = {s.index: s for s in first.response.sources if s.used}
            second = engine.stream_turn(tenant, user, conversation, SECOND)
            "".join(second)
        finally:
            app.close()

    messages = server.requests[1]["body"]["messages"]
    resent = messages[2]
    assert messages[1]["content"] == FIRST and resent["role"] == "assistant"
    sources_now = {int(n): text for n, _, text in SOURCE_RE.findall(messages[-1]["content"])}
    kept = 0
    for shown, (_, number, name) in zip([1, 2], re.findall(r"(\[(\d+)\]|\(([^()]+)\))\.", resent["content"]), strict=True):
        passage = cited_first[shown]
        if number:  # the same passage under this prompt's number
            assert passage.text[:80] in sources_now[int(number)], (shown, number, resent["content"])
            kept += 1
        else:  # no longer in the context: named, not numbered
            assert name.startswith(passage.title), (name, passage.title)
    assert kept >= 1, "a follow-up keeps the previous turn's passages in its context"
