"""Background jobs: a SQL-backed queue (retries with backoff, leases for crash recovery) and the worker."""
