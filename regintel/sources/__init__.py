"""Bring-your-own sources: a registry of documents with their metadata and currency, parsers, sync (issue 23)."""
