"""Downlink templates, the per-device downlink queue, and delivery to ChirpStack."""
