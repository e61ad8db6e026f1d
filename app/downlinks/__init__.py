"""Downlink templates and the per-device downlink queue."""
