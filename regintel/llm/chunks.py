"""``LlmStreamChunk``: the tagged union every provider streams (docs/architecture.md).

- ``text``: an answer delta, forwarded to the UI as it comes.
- ``tool``: one per tool invocation, with the final parsed JSON arguments; never shown to the UI. A payload whose
  JSON could not be parsed arrives with ``malformed=True`` (and ``args=None``) so the engine can log and skip it.
- ``error``: a provider failure with a message safe to show (no keys, no stack traces).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Union


@dataclass(frozen=True)
class TextChunk:
    delta: str
    type: Literal["text"] = "text"


@dataclass(frozen=True)
class ToolChunk:
    name: str
    args: Any  # parsed JSON (dict for our tools); None when malformed
    raw: str = ""  # the raw argument string as received, for logging
    malformed: bool = False
    call_id: str = ""
    type: Literal["tool"] = "tool"

    @property
    def args_json(self) -> Any:
        """Alias matching the seed's ``argsJson`` name."""
        return self.args


@dataclass(frozen=True)
class ErrorChunk:
    error: str
    retryable: bool = False
    type: Literal["error"] = "error"


LlmStreamChunk = Union[TextChunk, ToolChunk, ErrorChunk]


def parse_tool_arguments(name: str, raw: str, call_id: str = "") -> ToolChunk:
    """Build the single tool chunk for one invocation from its complete argument string."""
    import json
    import logging

    try:
        args = json.loads(raw) if raw.strip() else {}
    except ValueError as exc:
        logging.getLogger(__name__).warning("malformed arguments for tool %s: %s", name, exc)
        return ToolChunk(name=name, args=None, raw=raw, malformed=True, call_id=call_id)
    return ToolChunk(name=name, args=args, raw=raw, call_id=call_id)
