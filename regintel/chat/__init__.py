"""ComplianceEngine: one chat turn from question to persisted, cited, evidence-graded answer."""
