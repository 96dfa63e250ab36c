"""Provider ``openai-compatible``: Chat Completions streaming with tools at any base URL (Groq, vLLM, Ollama,
llama.cpp server). Tool-call argument fragments spread over many SSE events are assembled per call index and
emitted as one tool chunk each when the stream ends; malformed JSON becomes a flagged chunk, never a crash.
"""

from __future__ import annotations

from typing import Any, Iterator
from urllib.parse import urlparse

import openai

from regintel.llm.base import ChatMessage, ToolSpec
from regintel.llm.chunks import ErrorChunk, LlmStreamChunk, TextChunk, parse_tool_arguments
from regintel.llm.http import ContactedHosts, guarded_http_client
from regintel.llm.openai_errors import to_provider_error


class OpenAICompatibleProvider:
    name = "openai-compatible"

    def __init__(
        self, model: str, base_url: str, api_key: str = "", timeout: float = 60.0, supports_tools: bool = True
    ) -> None:
        self.model = model
        self.supports_tools = supports_tools
        self.contacted = ContactedHosts()
        self.client = openai.OpenAI(api_key=api_key or "not-needed", base_url=base_url, timeout=timeout, max_retries=0,
                                    http_client=guarded_http_client(timeout, self.contacted))
        self.destination = urlparse(base_url).hostname or ""

    def stream(self, messages: list[ChatMessage], tools: list[ToolSpec] | None = None, **opts: Any) -> Iterator[LlmStreamChunk]:
        request: dict[str, Any] = {
            "model": opts.get("model") or self.model,
            "messages": [_wire_message(m) for m in messages],
            "stream": True,
        }
        if tools and self.supports_tools:
            request["tools"] = [
                {"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}
                for t in tools
            ]
        if opts.get("temperature") is not None:
            request["temperature"] = opts["temperature"]
        if opts.get("response_format") is not None:
            request["response_format"] = opts["response_format"]
        try:
            stream = self.client.chat.completions.create(**request)
        except Exception as exc:
            raise to_provider_error(exc) from exc
        yield from self._chunks(stream)

    def _chunks(self, stream: Any) -> Iterator[LlmStreamChunk]:
        calls: dict[int, dict[str, Any]] = {}
        finished = False
        try:
            for event in stream:
                for choice in getattr(event, "choices", None) or []:
                    finished = finished or bool(choice.finish_reason)
                    delta = choice.delta
                    if delta is None:
                        continue
                    if delta.content:
                        yield TextChunk(delta.content)
                    for call in delta.tool_calls or []:
                        slot = calls.setdefault(call.index, {"id": "", "name": "", "args": []})
                        if call.id:
                            slot["id"] = call.id
                        if call.function is not None:
                            if call.function.name:
                                slot["name"] += call.function.name if not slot["name"] else ""
                            if call.function.arguments:
                                slot["args"].append(call.function.arguments)
        except Exception as exc:
            yield ErrorChunk(str(to_provider_error(exc)))
            return
        for index in sorted(calls):
            slot = calls[index]
            yield parse_tool_arguments(slot["name"] or "unknown", "".join(slot["args"]), slot["id"])
        if not finished:
            yield ErrorChunk("The language model stream ended before the answer was complete.")


def _wire_message(message: ChatMessage) -> dict[str, Any]:
    """A message in Chat Completions' shape: an assistant reply's tool calls as ``tool_calls``, their results as
    ``role: tool`` messages naming the call."""
    if message["role"] == "tool":
        return {"role": "tool", "tool_call_id": message["tool_call_id"], "content": message["content"]}
    if message.get("tool_calls"):
        return {"role": "assistant", "content": message.get("content") or None,
                "tool_calls": [{"id": call["id"], "type": "function",
                                "function": {"name": call["name"], "arguments": call["arguments"]}}
                               for call in message["tool_calls"]]}
    return {"role": message["role"], "content": message["content"]}
