"""Corpus loading, article-aware chunking, embeddings and hybrid (dense + BM25) search."""
