"""Python client of the device telemetry service.

`telemetry_client.generated` holds the calls and models generated from the service's OpenAPI
document (clients/generate.py, never edited by hand); the rest is the hand-written layer.
"""

from telemetry_client.client import Latest, RateLimit, TelemetryClient
from telemetry_client.errors import ApiError
from telemetry_client.frames import ExportResult, HistoryResult, QueryResult
from telemetry_client.stream import StreamEvent
from telemetry_client.webhooks import WebhookVerificationError, verify_webhook

__all__ = [
    "ApiError",
    "ExportResult",
    "HistoryResult",
    "Latest",
    "QueryResult",
    "RateLimit",
    "StreamEvent",
    "TelemetryClient",
    "WebhookVerificationError",
    "verify_webhook",
]
