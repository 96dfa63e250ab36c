"""Operations: metrics and alerts, backup and restore, what an admin runs the service with (issue 22)."""
