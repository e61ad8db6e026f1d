"""Epoch milliseconds wherever an ISO 8601 `from` or `to` is accepted (issue 29, item 6:
Grafana's `${__from}` and `${__to}`), against the served demo world."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from tests.support.servers import LiveServer

DEVICE = "70b3d57ed0000001"


@pytest.fixture
def http(demo_served: LiveServer, demo_keys: dict[str, str]) -> Iterator[httpx.Client]:
    headers = {"Authorization": f"Bearer {demo_keys['sub_account']}"}
    with httpx.Client(base_url=f"{demo_served.base_url}/api/v1", headers=headers) as client:
        yield client


def _window() -> tuple[datetime, datetime]:
    # Whole milliseconds, within the demo partner's retention.
    end = datetime.now(UTC).replace(microsecond=123_000)
    return end - timedelta(days=1), end


def _ms(moment: datetime) -> str:
    return str(int((moment - datetime(1970, 1, 1, tzinfo=UTC)) / timedelta(milliseconds=1)))


def _iso(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def test_history_reads_epoch_milliseconds_as_the_same_instants(http: httpx.Client) -> None:
    start, end = _window()
    query = {"field": "temperature", "resolution": "hourly"}
    by_ms = http.get(
        f"/devices/{DEVICE}/history", params={**query, "from": _ms(start), "to": _ms(end)}
    )
    by_iso = http.get(
        f"/devices/{DEVICE}/history", params={**query, "from": _iso(start), "to": _iso(end)}
    )
    assert by_ms.status_code == 200, by_ms.text
    assert by_ms.json() == by_iso.json()
    assert by_ms.json()["data"]["to"] == _iso(end).replace(".123Z", ".123000Z")
    assert by_ms.json()["data"]["points"]


def test_export_reads_epoch_milliseconds(http: httpx.Client) -> None:
    start, end = _window()
    by_ms = http.get(f"/devices/{DEVICE}/export", params={"from": _ms(start), "to": _ms(end)})
    by_iso = http.get(f"/devices/{DEVICE}/export", params={"from": _iso(start), "to": _iso(end)})
    assert by_ms.status_code == 200, by_ms.text
    assert by_ms.content == by_iso.content
    assert by_ms.content.count(b"\n") > 2


@pytest.mark.parametrize("value", ["999999999999999", "99999999999999999", "123"])
def test_epoch_milliseconds_out_of_range_or_malformed_is_a_400(
    http: httpx.Client, value: str
) -> None:
    response = http.get(
        f"/devices/{DEVICE}/history", params={"field": "temperature", "from": value, "to": "now"}
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid_parameter"
    assert "from" in error["message"]
