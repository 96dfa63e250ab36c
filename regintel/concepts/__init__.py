"""The Concept domain: the lexicon of known concepts, offline harvesting of concepts from a turn, capture of the
``capture_concepts`` payload into canonical graph nodes, and enrichment of sparse concepts from the corpus.

Above the graph (it resolves and writes concepts through :mod:`regintel.graph`) and below chat, extraction and the
LLM providers, which all use it."""
