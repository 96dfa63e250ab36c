"""``python -m regintel.ui.gradio_app``: a second, embeddable chat front end (Gradio) over the same engine.

A streaming ``gr.ChatInterface`` whose answers end with their citations, callable from code through
``gradio_client`` at the named endpoint ``/chat``: inputs ``message`` and ``conversation_id`` (empty starts a
conversation), outputs the answer text and the conversation id to pass back for a follow-up. Analytics and hub
telemetry are off and the theme uses system fonts, so serving the app makes no outbound request.
"""

from __future__ import annotations

import argparse
import os
import threading

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from typing import Any, Iterator  # noqa: E402

import gradio as gr  # noqa: E402

from regintel.errors import NotFound, RegIntelError  # noqa: E402
from regintel.runtime import RegIntel  # noqa: E402
from regintel.ui.citations_block import citations_markdown  # noqa: E402
from regintel.ui.untrusted import markdown_answer, neutralised_stream  # noqa: E402

SYSTEM_FONTS = ("ui-sans-serif", "system-ui", "sans-serif")
SYSTEM_MONO = ("ui-monospace", "monospace")


def make_responder(app: RegIntel):
    """The ChatInterface function: streams the answer, then appends its citations; returns the conversation id.
    Tenant and user are the signed-in caller's (``request.username`` is the user id the auth dependency
    resolved from the API token or the session cookie); the engine's rate limit is per that user."""
    engine = app.chat

    def respond(message: str, history: list, conversation_id: str, request: gr.Request) -> Iterator[tuple[str, str]]:
        conversation_id = (conversation_id or "").strip()
        try:
            identity = app.accounts.identity(getattr(request, "username", None) or "", "gradio")
            if not conversation_id:
                conversation_id = app.conversations.create_conversation(identity.tenant_id, identity.user_id).id
            elif app.conversations.conversation(identity.tenant_id, conversation_id).user_id != identity.user_id:
                # an analyst continues their own conversations only; a colleague's reads like an unknown id
                raise NotFound(f"No conversation {conversation_id!s:.40} for this tenant.")
            stream = engine.stream_turn(identity.tenant_id, identity.user_id, conversation_id, message)
            text = ""
            for piece in neutralised_stream(stream):
                text += piece
                yield text, conversation_id
        except RegIntelError as exc:
            yield f"⚠️ {exc}", conversation_id
            return
        response = stream.response
        if response is not None:
            if response.status == "failed":
                text = markdown_answer(response.answer)
            yield f"{text}\n\n---\n{citations_markdown(response)}", conversation_id

    return respond


def build_app(runtime: RegIntel):

    with gr.Blocks(title="RegIntel Copilot", analytics_enabled=False) as app:
        offline = runtime.describe_llm()["offline"]
        gr.Markdown("## RegIntel Copilot\nCited, evidence-graded answers about GDPR, DORA, ESRS and VAT."
                    + (" **Offline mode**: answers quote the sources verbatim." if offline else "") + " · [Sign out](/signout)")
        conversation = gr.Textbox(label="Conversation id (empty starts a new one)", value="", render=False)
        gr.ChatInterface(
            make_responder(runtime),
            additional_inputs=[conversation],
            additional_outputs=[conversation],
            api_name="chat",
            analytics_enabled=False,
            examples=[["When must a personal data breach be notified?", ""],
                      ["What must financial entities report about major ICT-related incidents?", ""]],
            cache_examples=False,
        )
    return app


SHUTDOWN_GRACE_SECONDS = 3


class Served:
    """A running Gradio server (uvicorn in a thread); ``close()`` stops it."""

    def __init__(self, server: Any, thread: Any, blocks: Any) -> None:
        self.server, self.thread, self.blocks = server, thread, blocks

    def close(self) -> None:
        self.server.should_exit = True
        if self.thread.is_alive():  # (a blocking launch has returned: its server has already stopped)
            self.thread.join(timeout=15)
        self.blocks.close()


def launch(blocks: Any, runtime: RegIntel, host: str = "127.0.0.1", port: int = 7860, concurrency_limit: int = 8,
           block: bool = True) -> Served:
    """Serve behind sign-in (regintel/ui/gradio_auth.py) with the queue (streaming; up to ``concurrency_limit``
    answers at once) and a system-font theme (no font download from the page)."""
    import time

    import uvicorn
    from fastapi import FastAPI

    from regintel.ui.gradio_auth import GradioAuth

    auth = GradioAuth(runtime)
    api = FastAPI()
    auth.install(api)
    theme = gr.themes.Default(font=list(SYSTEM_FONTS), font_mono=list(SYSTEM_MONO))
    blocks.queue(default_concurrency_limit=concurrency_limit)
    api = gr.mount_gradio_app(api, blocks, path="/", auth_dependency=auth.user, show_error=False, theme=theme)
    # on shutdown, streams still open (a client's heartbeat, an unfinished answer) get SHUTDOWN_GRACE_SECONDS to end,
    # then are closed: uvicorn would otherwise wait for them indefinitely
    server = uvicorn.Server(uvicorn.Config(api, host=host, port=port, log_level="warning",
                                           timeout_graceful_shutdown=SHUTDOWN_GRACE_SECONDS))
    if block:
        try:
            server.run()
        except KeyboardInterrupt:  # Ctrl-C: uvicorn has shut down, then re-raises the signal; end quietly, as uvicorn.run
            pass
        return Served(server, threading.Thread(), blocks)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    return Served(server, thread, blocks)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m regintel.ui.gradio_app", description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=7860)
    parser.add_argument("--concurrency", type=int, default=8, help="answers streamed at once")
    args = parser.parse_args(argv)
    with RegIntel() as runtime:
        runtime.warm_up_in_background()  # what the first question needs, loaded while the server starts
        launch(build_app(runtime), runtime, args.host, args.port, args.concurrency)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
