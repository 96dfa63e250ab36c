"""Egress control: PII sanitiser and the EgressClient that every outbound LLM call passes."""
