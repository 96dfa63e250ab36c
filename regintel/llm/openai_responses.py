"""Provider ``openai``: the OpenAI Responses API with streaming and function tools, through the openai SDK.

Responses events are mapped to chunks: ``response.output_text.delta`` -> text; a function call's argument
deltas are assembled per output item and emitted once, as one tool chunk, when the item is done.
"""

from __future__ import annotations

from typing import Any, Iterator
from urllib.parse import urlparse

import openai

from regintel.llm.base import ChatMessage, ProviderError, ToolSpec
from regintel.llm.chunks import ErrorChunk, LlmStreamChunk, TextChunk, parse_tool_arguments
from regintel.llm.http import ContactedHosts, guarded_http_client
from regintel.llm.openai_errors import to_provider_error


class OpenAIResponsesProvider:
    name = "openai"
    supports_tools = True

    def __init__(self, model: str, api_key: str, base_url: str | None = None, timeout: float = 60.0) -> None:
        self.model = model
        self.contacted = ContactedHosts()
        self.client = openai.OpenAI(api_key=api_key or "missing", base_url=base_url or None, timeout=timeout, max_retries=0,
                                    http_client=guarded_http_client(timeout, self.contacted))
        self.destination = urlparse(str(self.client.base_url)).hostname or "api.openai.com"

    def stream(self, messages: list[ChatMessage], tools: list[ToolSpec] | None = None, **opts: Any) -> Iterator[LlmStreamChunk]:
        request: dict[str, Any] = {
            "model": opts.get("model") or self.model,
            "input": [item for m in messages for item in _input_items(m)],
            "stream": True,
        }
        if tools:
            request["tools"] = [
                {"type": "function", "name": t.name, "description": t.description, "parameters": t.parameters, "strict": False}
                for t in tools
            ]
        if opts.get("temperature") is not None:
            request["temperature"] = opts["temperature"]
        if opts.get("response_format") is not None:  # Chat Completions' shape -> the Responses API's text.format
            schema = opts["response_format"].get("json_schema", {})
            request["text"] = {"format": {"type": "json_schema", "name": schema.get("name", "output"),
                                          "schema": schema.get("schema", {}), "strict": bool(schema.get("strict", False))}}
        try:
            events = self.client.responses.create(**request)
        except Exception as exc:  # openai raises many types; all become a ProviderError
            raise to_provider_error(exc) from exc
        yield from self._chunks(events)

    def _chunks(self, events: Any) -> Iterator[LlmStreamChunk]:
        arguments: dict[str, list[str]] = {}
        names: dict[str, tuple[str, str]] = {}
        emitted: set[str] = set()
        completed = False
        try:
            for event in events:
                kind = getattr(event, "type", "")
                if kind == "response.output_text.delta":
                    if event.delta:
                        yield TextChunk(event.delta)
                elif kind == "response.output_item.added" and getattr(event.item, "type", "") == "function_call":
                    names[event.item.id] = (event.item.name, getattr(event.item, "call_id", "") or "")
                    arguments.setdefault(event.item.id, [])
                elif kind == "response.function_call_arguments.delta":
                    arguments.setdefault(event.item_id, []).append(event.delta)
                elif kind == "response.output_item.done" and getattr(event.item, "type", "") == "function_call":
                    item = event.item
                    if item.id in emitted:
                        continue
                    emitted.add(item.id)
                    raw = item.arguments if item.arguments is not None else "".join(arguments.get(item.id, []))
                    yield parse_tool_arguments(item.name, raw, getattr(item, "call_id", "") or "")
                elif kind == "response.completed":
                    completed = True
                elif kind in {"error", "response.failed"}:
                    yield ErrorChunk(_event_error(event))
                    return
                elif kind == "response.incomplete":
                    yield ErrorChunk("The language model stopped before finishing its answer.")
                    return
        except Exception as exc:
            yield ErrorChunk(str(to_provider_error(exc)), retryable=False)
            return
        for item_id, parts in arguments.items():  # a call whose "done" event never came
            if item_id not in emitted and item_id in names:
                yield parse_tool_arguments(names[item_id][0], "".join(parts), names[item_id][1])
        if not completed:
            yield ErrorChunk("The language model stream ended before the answer was complete.")


def _input_items(message: ChatMessage) -> list[dict[str, Any]]:
    """A message as Responses API input items: an assistant reply's tool calls as ``function_call`` items, their
    results as ``function_call_output`` items with the same ``call_id``."""
    if message["role"] == "tool":
        return [{"type": "function_call_output", "call_id": message["tool_call_id"], "output": message["content"]}]
    if message.get("tool_calls"):
        text = [{"role": "assistant", "content": message["content"]}] if message.get("content") else []
        return text + [{"type": "function_call", "call_id": call["id"], "name": call["name"], "arguments": call["arguments"]}
                       for call in message["tool_calls"]]
    return [{"role": message["role"], "content": message["content"]}]


def _event_error(event: Any) -> str:
    message = getattr(event, "message", None)
    if message is None and getattr(event, "response", None) is not None and event.response.error is not None:
        message = event.response.error.message
    return f"The language model reported an error: {str(message or 'unknown')[:200]}"


__all__ = ["OpenAIResponsesProvider", "ProviderError"]
