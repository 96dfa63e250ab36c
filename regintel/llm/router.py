"""LlmRouter: the one entry point for model calls (main chat, extraction, critique).

It picks the provider and model per task from settings, passes every request through the EgressClient with the
effective egress mode of the call, retries transient failures that happen before any output (with exponential
backoff), and turns provider exceptions into an ``error`` chunk with a safe message.
"""

from __future__ import annotations

import logging
import time
from typing import Any, Callable, Iterator

from regintel.config import Settings
from regintel.egress.client import EgressBlocked, EgressClient, EgressPolicy
from regintel.llm.base import ChatMessage, LlmProvider, ProviderError, ToolSpec
from regintel.llm.chunks import ErrorChunk, LlmStreamChunk
from regintel.llm.deadline import DeadlineExceeded, within

log = logging.getLogger(__name__)
TASKS = ("main_chat", "extraction", "critique")


def build_provider(settings: Settings, lexicon: Any = None, embedder: Any = None) -> LlmProvider:
    """The provider chosen by settings; only the chosen one is imported (one provider per module). ``embedder``
    (the runtime's, or a callable returning it) serves the offline provider's cross-lingual answers only."""
    name = settings.effective_llm_provider()
    if name == "openai":
        from regintel.llm.openai_responses import OpenAIResponsesProvider

        return OpenAIResponsesProvider(settings.llm_model, settings.api_key(), timeout=settings.llm_timeout)
    if name == "openai-compatible":
        from regintel.llm.openai_compatible import OpenAICompatibleProvider

        return OpenAICompatibleProvider(
            settings.llm_model, settings.llm_base_url, settings.api_key(), settings.llm_timeout, settings.llm_tools
        )
    from regintel.llm.citation_choice import CitationChooser
    from regintel.llm.offline import OfflineProvider

    return OfflineProvider(lexicon, embedder=embedder, chooser=CitationChooser.load(settings.citation_model))


class LlmRouter:
    def __init__(
        self,
        settings: Settings,
        provider: LlmProvider | None = None,
        egress: EgressClient | None = None,
        lexicon: Any = None,
        sleep: Callable[[float], None] = time.sleep,
        embedder: Any = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.settings = settings
        self.provider = provider or build_provider(settings, lexicon, embedder)
        extra_hosts = [h for h in settings.egress_allowed_hosts.split(",") if h.strip()]
        self.egress = egress or EgressClient(settings.egress_mode, [self.provider.destination, *extra_hosts])
        self._sleep = sleep
        self._clock = clock

    @property
    def offline(self) -> bool:
        return self.provider.destination == "local"

    def model_for(self, task: str) -> str:
        if task not in TASKS:
            raise ValueError(f"Unknown LLM task '{task}' (expected one of {', '.join(TASKS)})")
        if self.offline:
            return "offline-extractive"
        specific = {"extraction": self.settings.llm_model_extraction, "critique": self.settings.llm_model_critique}
        return specific.get(task) or self.settings.llm_model

    def describe(self) -> dict[str, Any]:
        """What the UI shows: provider, model and whether we are offline (never the key)."""
        return {"provider": self.provider.name, "model": self.model_for("main_chat"), "offline": self.offline}

    def stream(
        self,
        task: str,
        messages: list[ChatMessage],
        tools: list[ToolSpec] | None = None,
        policy: EgressPolicy | None = None,
        egress_override: str | None = None,
        on_egress: Callable[[dict[str, Any]], None] | None = None,
        deadline: float | None = None,
        **opts: Any,
    ) -> Iterator[LlmStreamChunk]:
        """One model call (with retries) as chunks; ``deadline`` (from :meth:`turn_deadline`) bounds several calls
        of one turn together, e.g. a tool-call round and the answer that follows it."""
        model = self.model_for(task)
        try:
            decision = self.egress.prepare(messages, self.provider.destination, policy, egress_override)
        except EgressBlocked as exc:
            if on_egress:
                on_egress({"mode": "enforce", "destination": self.provider.destination, "allowed": False, "blocked": True})
            yield ErrorChunk(str(exc))
            return
        if on_egress:
            on_egress(decision.report())
        contacted = getattr(self.provider, "contacted", None)
        readers: list[int] = []  # the threads that read each attempt's stream (deadline.py)
        try:
            yield from self._call(decision, tools, model, opts, readers, deadline)
        finally:
            if on_egress:  # the host the provider really reached (no redirect is followed): None if none was
                hosts = [contacted.last(r) for r in readers] if contacted is not None else [self.provider.destination]
                on_egress({"contacted": next((h for h in reversed(hosts) if h), None)})
            for reader in readers if contacted is not None else []:
                contacted.reset(reader)

    def turn_deadline(self) -> float:
        """The end of one turn's model budget (REGINTEL_LLM_TURN_DEADLINE from now), on this router's clock."""
        return self._clock() + self.settings.llm_deadline_seconds()

    def _call(self, decision, tools, model: str, opts: dict[str, Any], readers: list[int],
              turn_deadline: float | None = None) -> Iterator[LlmStreamChunk]:
        """The provider's stream with retries, all within one deadline (REGINTEL_LLM_TURN_DEADLINE, or what is left
        of the turn's)."""
        tools = tools if (tools and self.provider.supports_tools) else None
        budget = self.settings.llm_deadline_seconds()
        deadline = min(self.turn_deadline(), turn_deadline) if turn_deadline is not None else self.turn_deadline()
        contacted = getattr(self.provider, "contacted", None)
        attempt = 0
        while True:
            produced = False
            retry = False
            chunks = self.provider.stream(decision.messages, tools, model=model, **opts)  # type: ignore[arg-type]
            if not self.offline:  # a remote stream is read under the deadline (the offline provider cannot stall)
                chunks = within(chunks, deadline, on_abandon=contacted.close if contacted is not None else None,
                                on_start=readers.append, clock=self._clock)
            try:
                for chunk in chunks:
                    if isinstance(chunk, ErrorChunk) and chunk.retryable and not produced and attempt < self.settings.llm_max_retries:
                        retry = True
                        break
                    produced = produced or not isinstance(chunk, ErrorChunk)
                    yield chunk
                    if isinstance(chunk, ErrorChunk):
                        return
                if not retry:
                    return
            except DeadlineExceeded:
                log.warning("LLM call stopped at its %.0f s deadline", budget)
                yield ErrorChunk(f"The language model did not finish within {budget:.0f} seconds (REGINTEL_LLM_TURN_DEADLINE).")
                return
            except ProviderError as exc:
                if not (exc.retryable and not produced and attempt < self.settings.llm_max_retries):
                    yield ErrorChunk(str(exc), retryable=exc.retryable)
                    return
            except Exception:  # a provider bug must not take the chat down
                log.exception("LLM provider %s failed", self.provider.name)
                yield ErrorChunk("The language model call failed unexpectedly.")
                return
            finally:
                close = getattr(chunks, "close", None)
                if close is not None:
                    close()  # stops the reader of an abandoned or retried attempt now, not at garbage collection
            delay = min(8.0, 0.5 * 2**attempt)
            if self._clock() + delay >= deadline:  # no time left for another attempt
                yield ErrorChunk(f"The language model did not answer within {budget:.0f} seconds (retries included).",
                                 retryable=True)
                return
            log.warning("transient LLM failure, retry %d in %.1f s", attempt + 1, delay)
            self._sleep(delay)
            attempt += 1


__all__ = ["LlmRouter", "TASKS", "build_provider"]
