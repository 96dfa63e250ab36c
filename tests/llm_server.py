"""A local HTTP server on 127.0.0.1 that speaks the real streaming wire formats of the OpenAI Responses API and
of Chat Completions (SSE), scripted per request, for provider contract tests. The openai SDK is used for real.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

Script = Callable[["Handler"], None]


class Handler(BaseHTTPRequestHandler):
    server: "LlmTestServer"
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:  # keep test output clean
        pass

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", 0))
        body = json.loads(self.rfile.read(length) or b"{}")
        self.server.requests.append({"path": self.path, "body": body, "headers": dict(self.headers)})
        script = self.server.next_script()
        script(self)

    # -- helpers used by scripts ---------------------------------------------------------------------------
    def start_stream(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def send_chunk(self, text: str) -> None:
        data = text.encode()
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def end_stream(self) -> None:
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def sse(self, data: Any, event: str | None = None) -> None:
        payload = data if isinstance(data, str) else json.dumps(data)
        self.send_chunk((f"event: {event}\n" if event else "") + f"data: {payload}\n\n")

    def drop(self) -> None:
        """Close the connection in the middle of the chunked body (a dropped connection)."""
        self.wfile.write(b"ff\r\npartial")
        self.wfile.flush()
        self.close_connection = True
        self.connection.shutdown(2)

    def redirect(self, location: str, status: int = 307) -> None:
        """Send the client elsewhere (a 307/308 keeps the method and body: the whole prompt would follow)."""
        self.send_response(status)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def json_error(self, status: int, message: str = "server error") -> None:
        body = json.dumps({"error": {"message": message, "type": "server_error"}}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class LlmTestServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.scripts: list[Script] = []
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        # a short poll interval: shutdown() waits for the serve loop to notice (0.5 s by default, paid by every test)
        self.thread = threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def next_script(self) -> Script:
        with self._lock:
            return self.scripts.pop(0) if len(self.scripts) > 1 else self.scripts[0]

    def __enter__(self) -> "LlmTestServer":
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.shutdown()
        self.server_close()


# -- Responses API event builders ---------------------------------------------------------------------------
class ResponsesStream:
    """Builds Responses API events with increasing sequence numbers."""

    def __init__(self, handler: Handler) -> None:
        self.h = handler
        self.seq = 0

    def event(self, kind: str, **fields: Any) -> None:
        self.h.sse({"type": kind, "sequence_number": self.seq, **fields}, event=kind)
        self.seq += 1

    def created(self) -> None:
        self.h.start_stream()
        self.event("response.created", response=_response("in_progress"))

    def message_item(self) -> None:
        self.event("response.output_item.added", output_index=0,
                   item={"type": "message", "id": "msg_1", "role": "assistant", "status": "in_progress", "content": []})

    def text(self, delta: str) -> None:
        self.event("response.output_text.delta", item_id="msg_1", output_index=0, content_index=0, delta=delta, logprobs=[])

    def tool(self, name: str, arguments: str, pieces: int = 1, item_id: str = "fc_1", output_index: int = 1) -> None:
        self.event("response.output_item.added", output_index=output_index,
                   item={"type": "function_call", "id": item_id, "call_id": f"call_{item_id}", "name": name, "arguments": "", "status": "in_progress"})
        size = max(1, -(-len(arguments) // pieces))
        for start in range(0, len(arguments), size):
            self.event("response.function_call_arguments.delta", item_id=item_id, output_index=output_index, delta=arguments[start:start + size])
        self.event("response.function_call_arguments.done", item_id=item_id, output_index=output_index, arguments=arguments, name=name)
        self.event("response.output_item.done", output_index=output_index,
                   item={"type": "function_call", "id": item_id, "call_id": f"call_{item_id}", "name": name, "arguments": arguments, "status": "completed"})

    def completed(self) -> None:
        self.event("response.completed", response=_response("completed"))
        self.h.end_stream()


def _response(status: str) -> dict[str, Any]:
    return {"id": "resp_1", "object": "response", "created_at": int(time.time()), "status": status, "model": "test-model",
            "output": [], "parallel_tool_calls": True, "tool_choice": "auto", "tools": []}


# -- Chat Completions chunk builders --------------------------------------------------------------------------
def chat_chunk(content: str | None = None, tool_calls: list[dict] | None = None, finish: str | None = None) -> dict[str, Any]:
    delta: dict[str, Any] = {}
    if content is not None:
        delta["content"] = content
    if tool_calls is not None:
        delta["tool_calls"] = tool_calls
    return {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": int(time.time()), "model": "test-model",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def chat_tool_deltas(name: str, arguments: str, pieces: int, index: int = 0, call_id: str = "call_1") -> list[dict[str, Any]]:
    size = max(1, -(-len(arguments) // pieces))
    parts = [arguments[i:i + size] for i in range(0, len(arguments), size)] or [""]
    chunks = [chat_chunk(tool_calls=[{"index": index, "id": call_id, "type": "function", "function": {"name": name, "arguments": parts[0]}}])]
    chunks += [chat_chunk(tool_calls=[{"index": index, "function": {"arguments": p}}]) for p in parts[1:]]
    return chunks


def chat_reply(handler: Handler, text: str = "", calls: tuple[tuple[str, str], ...] = (), pieces: int = 2) -> None:
    """One whole Chat Completions reply: ``text`` (one delta, if any), then one ``capture_concepts`` call per
    (call id, arguments) in ``pieces`` argument fragments, then the finish reason and [DONE]."""
    handler.start_stream()
    if text:
        handler.sse(chat_chunk(content=text))
    for index, (call_id, arguments) in enumerate(calls):
        for event in chat_tool_deltas("capture_concepts", arguments, pieces, index=index, call_id=call_id):
            handler.sse(event)
    handler.sse(chat_chunk(finish="tool_calls" if calls else "stop"))
    handler.sse("[DONE]")
    handler.end_stream()


def chat_answer(text: str) -> Script:
    """A script answering every request with ``text`` and no tool call."""
    return lambda handler: chat_reply(handler, text)
