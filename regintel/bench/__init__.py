"""Benchmarks that print numbers: ``python -m regintel.bench retrieval | ...``. Kept out of CI."""
