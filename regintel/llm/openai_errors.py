"""Mapping of openai SDK exceptions to ProviderError with safe, key-free messages."""

from __future__ import annotations

import openai

from regintel.llm.base import ProviderError


def to_provider_error(exc: Exception) -> ProviderError:
    """Transient failures (timeouts, dropped connections, 429, 5xx) are retryable; the rest are not."""
    if isinstance(exc, openai.APITimeoutError):
        return ProviderError("The language model did not answer in time.", retryable=True)
    if isinstance(exc, openai.APIConnectionError):
        return ProviderError("The language model service could not be reached.", retryable=True)
    if isinstance(exc, openai.RateLimitError):
        return ProviderError("The language model service is rate limiting requests.", retryable=True)
    if isinstance(exc, openai.AuthenticationError):
        return ProviderError("The language model service rejected the API key (check REGINTEL_LLM_API_KEY).")
    if isinstance(exc, openai.APIStatusError) and 300 <= exc.status_code < 400:
        return ProviderError("The language model service redirected the request; redirects are not followed "
                             "(egress policy).")
    if isinstance(exc, openai.APIStatusError):
        retryable = exc.status_code >= 500
        return ProviderError(f"The language model service answered with HTTP {exc.status_code}.", retryable=retryable)
    return ProviderError(f"The language model call failed ({exc.__class__.__name__}).", retryable=False)
