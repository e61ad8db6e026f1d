"""The Things Stack webhooks (integrations.md 2.2)."""
