"""Ingest from every network server and transport over one receive flow: ChirpStack's HTTP
integration and MQTT, The Things Stack's webhook (operations.md section 3, integrations.md 2)."""
