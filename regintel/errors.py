"""Typed errors raised at the engine's boundaries: one base class, specific subclasses."""


class RegIntelError(Exception):
    """Base class of every error the engine raises on purpose."""


class SettingsError(RegIntelError):
    """A REGINTEL_* setting is invalid; the message names the variable."""


class CorpusError(RegIntelError):
    """A corpus file or manifest cannot be read or parsed."""


class IndexError_(RegIntelError):
    """The search index is missing, corrupt or inconsistent."""


class StoreError(RegIntelError):
    """The SQL store cannot be reached or used."""


class ExtractionError(RegIntelError):
    """A concept extraction input or run cannot be used; the message says what to fix."""


class InputError(RegIntelError):
    """A question or form value that cannot be used as typed; the message tells the user what to change."""


class NotFound(InputError):
    """A row does not exist for this tenant (the same answer whether it exists for another tenant)."""


class RateLimited(InputError):
    """The user asked more questions in the last hour than the limit allows."""


class AuthError(RegIntelError):
    """Sign-in refused (wrong credentials, disabled or locked account, bad token, unmapped identity)."""


class Forbidden(RegIntelError):
    """The signed-in user's role does not allow this action."""


class GraphError(RegIntelError):
    """Base error of the graph layer."""


class GraphUnavailable(GraphError):
    """The graph cannot be opened or reached (stopped, crashed, wrong URL, not configured)."""


class GraphQueryError(GraphError):
    """The graph server rejected a query."""


class EgressBlocked(RegIntelError):
    """Raised in enforce mode when a request would go to a destination the policy does not allow."""


class ProviderError(RegIntelError):
    """An LLM provider failure. ``retryable`` marks transient ones (timeouts, 429, 5xx, dropped connections)."""

    def __init__(self, message: str, retryable: bool = False) -> None:
        super().__init__(message)
        self.retryable = retryable


class StructuredOutputError(ExtractionError):
    """A model's structured (JSON) output did not match the schema of its step."""


class FeedbackProblem(ExtractionError):
    """A curator feedback command refers to something that is not in the proposal."""
