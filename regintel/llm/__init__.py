"""LLM layer: the streaming chunk contract, providers (OpenAI, OpenAI-compatible, offline) and the LlmRouter."""

from regintel.llm.chunks import ErrorChunk, LlmStreamChunk, TextChunk, ToolChunk

__all__ = ["ErrorChunk", "LlmStreamChunk", "TextChunk", "ToolChunk"]
