"""Chat: grounded, evidence-graded answers with citation chips, concept chips and feedback, per tenant and user.

Tenant and user are the signed-in identity's (never the URL's); the conversation id lives in the URL (``?c=…``)
and only opens when it is one of the signed-in user's own conversations. Everything shown is read back from the
SQL store, but the question being answered: it is held in the session until its turn is stored
(:mod:`regintel.ui.pending_turns`).
"""

from __future__ import annotations

import streamlit as st

from regintel.chat.response import SECTION_NODE, ChatResponse
from regintel.chat.validation import MAX_QUESTION_CHARS
from regintel.errors import RegIntelError
from regintel.ui import auth, pending_turns, state
from regintel.retrieval.currency import DocumentCurrency
from regintel.ui.chat_view import (LEVEL_COLOURS, MODE_COLOURS, chip_label, currency_line, explorer_query,
                                   mode_caption, verification_notes)
from regintel.ui.untrusted import markdown_answer, markdown_label, neutralised_stream

st.set_page_config(page_title="Chat · RegIntel Copilot", page_icon="💬", layout="wide")
identity = auth.require("chat")
st.title("Chat")

try:
    app = state.app()
    engine = app.chat
except RegIntelError as exc:
    st.error(f"The chat is not available yet: {exc}")
    st.page_link("views/0_Home.py", label="Go to the home page to build the index", icon=":material/home:")
    st.stop()
repo = app.conversations
llm = app.describe_llm()
if llm["offline"]:
    st.info("**Offline mode**: no language model is configured and nothing leaves this machine. Answers quote the "
            "sources verbatim with their citations; concepts are still captured.", icon=":material/cloud_off:")


# -- tenant, user, conversation (sidebar) ----------------------------------------------------------------------
def _set_param(name: str, value: str | None) -> None:
    if value:
        st.query_params[name] = value
    elif name in st.query_params:
        del st.query_params[name]


tenant_id, user_id = identity.tenant_id, identity.user_id

# A question sent is held in the session until its answer is stored (regintel/ui/pending_turns.py): a run of the
# page that starts while an answer is being written (a click, a page change) answers it again instead of dropping
# it, in its own conversation, and the input stays disabled meanwhile.
waiting = pending_turns.pending(st.session_state)
if waiting and not waiting.conversation_id:
    waiting.conversation_id, waiting.created = repo.create_conversation(tenant_id, user_id).id, True

with st.sidebar:
    st.header("Conversations")
    if st.button("New conversation", icon=":material/add:", width="stretch", disabled=waiting is not None):
        _set_param("c", repo.create_conversation(tenant_id, user_id).id)
        st.rerun()
    conversations = repo.conversations(tenant_id, user_id)
    if waiting and waiting.conversation_id not in {c.id for c in conversations}:  # deleted meanwhile (another tab)
        dropped = pending_turns.drop(st.session_state)
        st.warning(f"{len(dropped.questions)} question(s) were not answered: their conversation was deleted.")
        waiting = None
    if waiting:
        _set_param("c", waiting.conversation_id)
        st.caption("An answer is being written: the conversations unlock when it is stored.")
    current_id = st.query_params.get("c", "")
    if current_id not in {c.id for c in conversations}:
        current_id = ""
    for conversation in conversations[:50]:
        selected = conversation.id == current_id
        if st.button(markdown_label(conversation.title[:60]), key=f"conv_{conversation.id}", width="stretch",
                     type="primary" if selected else "secondary", disabled=waiting is not None):
            _set_param("c", conversation.id)
            st.rerun()
    if current_id and waiting is None:
        with st.expander("Rename or delete"):
            title = st.text_input("Title", key=f"title_{current_id}", max_chars=200)
            if st.button("Rename", disabled=not title.strip()):
                try:
                    repo.rename_conversation(tenant_id, current_id, title)
                    st.rerun()
                except RegIntelError as exc:
                    st.error(str(exc))
            if st.button("Delete this conversation", type="secondary"):
                repo.delete_conversation(tenant_id, current_id)
                _set_param("c", None)
                st.rerun()


# -- rendering of one answer ---------------------------------------------------------------------------------
def removed_sources() -> set[str]:
    """Documents removed from the corpus since (issue 23): their chips say so; the stored text still opens.
    Read once per run of the page (the script runs top to bottom on every interaction)."""
    global _removed
    if _removed is None:
        try:
            _removed = app.sources.removed_ids()
        except RegIntelError:
            _removed = set()
    return _removed


_removed: set[str] | None = None


def render_extras(response: ChatResponse, key: str) -> None:
    """Badges, citation chips (each opens its passage), concept chips, feedback."""
    removed = removed_sources()
    for source in response.sources:
        source.removed = source.document_id in removed
    badges = st.container(horizontal=True)
    with badges:
        st.badge(response.response_mode, color=MODE_COLOURS.get(response.response_mode, "gray"))
        if not response.refused:
            st.badge(f"confidence {response.confidence.get('level')} {response.confidence.get('score', 0):.2f}",
                     color=LEVEL_COLOURS.get(response.confidence.get("level"), "gray"))
            st.badge(f"authority {response.authority.get('level')} {response.authority.get('score', 0):.2f}",
                     color=LEVEL_COLOURS.get(response.authority.get("level"), "gray"))
        if response.from_cache:
            st.badge("from cache", color="gray")
        if response.query_type:
            st.badge(response.query_type.replace("_", " ").lower(), color="blue")
    st.caption(markdown_label(mode_caption(response)))
    for note in verification_notes(response):  # issue 20: what the analyst should check, under the answer
        st.caption(":material/flag: " + markdown_label(note))
    for warning in dict.fromkeys(s.currency_warning or (DocumentCurrency(deprecated=True).warning(s.title)
                                                        if s.deprecated else "") for s in response.cited):
        if warning:
            st.warning(markdown_label(warning), icon=":material/history:")
    chips = response.cited or ([] if response.refused else [s for s in response.sources if s.origin == "current"][:5])
    if chips:
        if not response.cited:
            st.caption("Closest passages (not cited):")
        row = st.container(horizontal=True)
        with row:
            for source in chips:
                with st.popover(chip_label(source), key=f"chip_{key}_{source.index}"):
                    st.markdown(f"**{markdown_label(source.title)} — {markdown_label(source.ref)}**")
                    st.caption(f"{source.authority_level} · {source.jurisdiction} · similarity {source.similarity:.1f}"
                               + (f" · page {source.page}" if source.page else ""))
                    if currency := currency_line(source):
                        (st.warning if source.removed or source.deprecated or source.currency_warning
                         else st.caption)(markdown_label(currency))
                    st.text(source.text)
                    if source.url.startswith(("http://", "https://")):
                        st.link_button("Open the source", source.url)
    if response.referenced_nodes:
        row = st.container(horizontal=True)
        with row:
            for node in response.referenced_nodes[:12]:  # concepts (a tag), then the cited sections (an article)
                icon = ":material/article:" if node.get("kind") == SECTION_NODE else ":material/sell:"
                st.page_link("views/2_Graph_Explorer.py", label=markdown_label(node.get("label") or node["key"]),
                             icon=icon, query_params=explorer_query(node["key"]))
    if response.message_id and response.status == "complete":
        render_feedback(response, key)


def render_feedback(response: ChatResponse, key: str) -> None:
    existing = repo.feedback_for(tenant_id, response.message_id)
    default = None if existing is None else (1 if existing.rating > 0 else 0)
    rating = st.feedback("thumbs", key=f"fb_{key}", default=default, disabled=waiting is not None)  # a click reruns
    if rating is None:
        return
    comment = st.text_input("Comment (optional)", key=f"fb_comment_{key}", max_chars=2000,
                            value=existing.comment if existing else "")
    if st.button("Send feedback", key=f"fb_send_{key}", disabled=waiting is not None):
        try:
            repo.save_feedback(tenant_id, user_id, response.message_id, 1 if rating == 1 else -1, comment)
            st.toast("Thanks, your feedback was saved.")
        except RegIntelError as exc:
            st.error(str(exc))


# -- the conversation ----------------------------------------------------------------------------------------
if not current_id:
    st.caption("Ask about GDPR, DORA, ESRS or VAT. A new conversation starts with your first question.")
else:
    try:
        turns = repo.turns(tenant_id, current_id)
    except RegIntelError as exc:
        st.error(str(exc))
        st.stop()
    for turn in turns:
        with st.chat_message("user"):
            st.text(turn.question)
        with st.chat_message("assistant"):
            st.markdown(markdown_answer(turn.answer))
            if turn.response is not None:
                render_extras(turn.response, turn.response.message_id)
    if turns and turns[-1].response is not None:
        st.session_state["referenced_nodes"] = [n["key"] for n in turns[-1].response.referenced_nodes]


PREFILL_TEXT = "chat_prefill_text"
NOTICE = "regintel_chat_notice"  # (question, message) of a question refused before its turn was stored: shown once


def hold_question(widget_key: str, conversation_id: str) -> None:
    """Callback of the chat input and of the Graph Explorer's "Ask": the question is held before the next run
    starts, so that run already shows the input disabled."""
    pending_turns.hold(st.session_state, st.session_state.get(widget_key), conversation_id)
    if widget_key == PREFILL_TEXT:  # handed over: the Graph Explorer's question is not offered again
        forget_prefilled_question()


def forget_prefilled_question() -> None:
    st.session_state.pop("chat_prefill", None)
    st.session_state.pop(PREFILL_TEXT, None)


def offer_prefilled_question() -> None:
    """A question handed over by the Graph Explorer's "Ask about this" (session state): shown to edit, held on Ask."""
    prefill = st.session_state.get("chat_prefill")
    if not prefill:
        return
    with st.container(border=True):
        st.caption("From the Graph Explorer: edit the question if you like, then ask it.")
        st.text_area("Question", value=prefill, key=PREFILL_TEXT, max_chars=MAX_QUESTION_CHARS)
        buttons = st.container(horizontal=True)
        buttons.button("Ask", type="primary", key="chat_prefill_ask", on_click=hold_question,
                       args=(PREFILL_TEXT, current_id))
        if buttons.button("Dismiss", key="chat_prefill_dismiss"):
            forget_prefilled_question()
            st.rerun()


def answer_waiting_question() -> None:
    """Answer the first held question in its conversation, streamed; once its turn is stored (or it is refused with
    a message) it is let go and the page runs again to show the stored turn and the next question, if any."""
    held = pending_turns.start(st.session_state)
    with st.chat_message("user"):
        st.text(held.question)
    with st.chat_message("assistant"):
        if held.resumed:
            st.caption(":material/replay: The page ran again while this answer was being written (a click or a page "
                       "change): it is written again.")
        try:
            stream = engine.stream_turn(tenant_id, user_id, held.conversation_id, held.question)
            st.write_stream(neutralised_stream(stream))
        except RegIntelError as exc:  # refused before anything was stored (empty, too long, rate limit, ...)
            st.session_state[NOTICE] = (held.question, str(exc))
            created, conversation_id = held.created and len(held.questions) == 1, held.conversation_id
            pending_turns.done(st.session_state)
            if created:  # no empty conversation left behind
                try:
                    if not repo.turns(tenant_id, conversation_id):
                        repo.delete_conversation(tenant_id, conversation_id)
                        _set_param("c", None)
                except RegIntelError:  # already gone
                    _set_param("c", None)
        except Exception:
            pending_turns.done(st.session_state)  # an unexpected failure is shown once, not retried on every click
            raise
        else:
            if stream.response is not None and stream.response.status == "failed":
                st.error(stream.response.error)
            pending_turns.done(st.session_state)
    st.rerun()


if notice := st.session_state.pop(NOTICE, None):
    with st.chat_message("user"):
        st.text(notice[0])
    with st.chat_message("assistant"):
        st.error(notice[1])

st.chat_input("Ask a question about the regulation…" if waiting is None else "Answering… the next question waits "
              "until this answer is stored.", max_chars=MAX_QUESTION_CHARS, key="chat_question",
              disabled=waiting is not None, on_submit=hold_question, args=("chat_question", current_id))
if waiting is None:
    offer_prefilled_question()
else:
    answer_waiting_question()
