"""Read-only aggregates over the SQL store for the Feedback Dashboard and the Traces page (always per tenant)."""
