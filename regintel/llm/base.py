"""The provider protocol and the shapes passed to it (messages, tool specs, provider errors)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator, Protocol, TypedDict, runtime_checkable

from regintel.errors import ProviderError
from regintel.llm.chunks import LlmStreamChunk

__all__ = ["ChatMessage", "LlmProvider", "ProviderError", "ToolCall", "ToolSpec"]


class ToolCall(TypedDict):
    """A tool call of an earlier reply, sent back with its result (provider-neutral: each provider writes it in
    its own wire format)."""

    id: str
    name: str
    arguments: str  # the JSON argument string as the model wrote it


class ChatMessage(TypedDict, total=False):
    role: str  # "system" | "user" | "assistant" | "tool"
    content: str
    tool_calls: list[ToolCall]  # an assistant reply that called tools
    tool_call_id: str  # a "tool" message: the result of that call


@dataclass(frozen=True)
class ToolSpec:
    """A function tool: name, description and a JSON Schema for its arguments."""

    name: str
    description: str
    parameters: dict[str, Any] = field(default_factory=dict)




@runtime_checkable
class LlmProvider(Protocol):
    """Streams one model call as LlmStreamChunks. Providers raise ProviderError before the first chunk when they
    cannot start; failures after output has begun are yielded as an ErrorChunk."""

    name: str
    supports_tools: bool
    destination: str  # host the call goes to ("local" for on-machine providers), checked by the EgressClient

    def stream(
        self, messages: list[ChatMessage], tools: list[ToolSpec] | None = None, **opts: Any
    ) -> Iterator[LlmStreamChunk]: ...
