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
