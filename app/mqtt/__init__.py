"""Durable ingest from network servers over MQTT (integrations.md 2.1)."""
