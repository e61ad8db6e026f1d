"""The request metrics added a second at a time reach the histogram (issue 23, defect 11).

`flush_requests` writes prometheus-client's private `_sum` and `_buckets` (it has no bulk
observe); the library is pinned for that, and this test is what fails first on a release
that renames them.
"""

from __future__ import annotations

from prometheus_client import REGISTRY

from app.observe.metrics import BUCKETS, flush_requests, observe_request

ROUTE = "/test/metrics-flush"


def sample(name: str, **labels: str) -> float:
    value = REGISTRY.get_sample_value(name, {"method": "GET", "route": ROUTE, **labels})
    return 0.0 if value is None else value


def test_a_flush_adds_counts_sums_and_buckets() -> None:
    before_sum = sample("telemetry_http_request_duration_seconds_sum")
    before_fast = sample("telemetry_http_request_duration_seconds_bucket", le=str(BUCKETS[0]))
    before_all = sample("telemetry_http_request_duration_seconds_bucket", le="+Inf")
    before_count = sample("telemetry_http_requests_total", status="200")
    for seconds in (0.0005, 0.0005, 0.3):
        observe_request("GET", ROUTE, 200, seconds)
    flush_requests()
    assert sample("telemetry_http_requests_total", status="200") - before_count == 3
    assert abs(sample("telemetry_http_request_duration_seconds_sum") - before_sum - 0.301) < 1e-9
    fast = sample("telemetry_http_request_duration_seconds_bucket", le=str(BUCKETS[0]))
    assert fast - before_fast == 2
    every = sample("telemetry_http_request_duration_seconds_bucket", le="+Inf")
    assert every - before_all == 3
