"""The Grafana recipe (issue 29, item 6): examples/grafana/telemetry-dashboard.json read as
Grafana and its Infinity data source (backend parser) would read it.

Each panel's query is interpolated with Grafana's variables (the time range as epoch
milliseconds, `${__from}` and `${__to}`), sent to the served demo world, and its answer is
put through the panel's own JSONata expression (jsonata-python) and columns; the frame's
columns and values are checked against the API's own answers. A panel whose route the
served document does not have yet is skipped with the reason, decided from the document.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import jsonata
import pytest

from tests.support.servers import LiveServer

DASHBOARD = (
    Path(__file__).resolve().parents[2] / "examples" / "grafana" / "telemetry-dashboard.json"
)
DEVICES = ["70b3d57ed0000001", "70b3d57ed0000007"]
VARIABLE = re.compile(r"\$\{(\w+)(?::(\w+))?\}")


def _dashboard() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(DASHBOARD.read_text())
    return loaded


def _panel(title_start: str) -> dict[str, Any]:
    panel = next(p for p in _dashboard()["panels"] if p["title"].startswith(title_start))
    return panel


def _ms(moment: datetime) -> str:
    return str(int((moment - datetime(1970, 1, 1, tzinfo=UTC)) / timedelta(milliseconds=1)))


class Grafana:
    """Grafana's interpolation of the variables the dashboard uses (any other is an error,
    so the dashboard cannot use one this test does not understand)."""

    def __init__(self, start: datetime, end: datetime) -> None:
        defaults = {
            v["name"]: v["current"].get("value") for v in _dashboard()["templating"]["list"]
        }
        self.values: dict[str, Any] = {
            **defaults,
            "devices": DEVICES,
            "__from": _ms(start),
            "__to": _ms(end),
        }

    def __call__(self, text: str) -> str:
        def one(match: re.Match[str]) -> str:
            name, form = match.group(1), match.group(2)
            value = self.values[name]
            if form == "json":
                return json.dumps(value)
            if form == "csv" or isinstance(value, list):
                return ",".join(value) if isinstance(value, list) else str(value)
            assert form is None, form
            return str(value)

        return VARIABLE.sub(one, text)


def _ask(
    http: httpx.Client, target: dict[str, Any], grafana: Grafana
) -> tuple[httpx.Response, dict[str, Any] | None]:
    options = target["url_options"]
    assert target["parser"] == "backend"  # what Grafana's alerting evaluates
    params = {grafana(p["key"]): grafana(p["value"]) for p in options.get("params", [])}
    body = json.loads(grafana(options["data"])) if options.get("data") else None
    response = http.request(options["method"], grafana(target["url"]), params=params, json=body)
    return response, body


def _frame(target: dict[str, Any], answer: Any) -> dict[str, list[Any]]:
    """Infinity's frame: the root selector (JSONata) gives the rows, each column takes its
    selector from each row and is typed."""
    rows = jsonata.Jsonata(target["root_selector"]).evaluate(answer) or []
    frame: dict[str, list[Any]] = {}
    for column in target["columns"]:
        values = [row.get(column["selector"]) for row in rows]
        if column["type"] == "timestamp":
            values = [datetime.fromisoformat(v.replace("Z", "+00:00")) for v in values]
        elif column["type"] == "number":
            values = [None if v is None else float(v) for v in values]
        else:
            values = [None if v is None else str(v) for v in values]
        frame[column["text"]] = values
    return frame


def _time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


@pytest.fixture(scope="module")
def document(demo_served: LiveServer) -> dict[str, Any]:
    answer: dict[str, Any] = httpx.get(f"{demo_served.base_url}/api/v1/openapi.json").json()
    return answer


@pytest.fixture
def http(demo_served: LiveServer, demo_keys: dict[str, str]) -> Iterator[httpx.Client]:
    # The data source's URL and its Authorization header, as set up in README (Grafana).
    headers = {"Authorization": f"Bearer {demo_keys['sub_account']}"}
    with httpx.Client(base_url=demo_served.base_url, headers=headers, timeout=30) as client:
        yield client


@pytest.fixture
def grafana() -> Grafana:
    end = datetime.now(UTC)
    return Grafana(end - timedelta(days=1), end)


def _needs(document: dict[str, Any], path: str) -> None:
    if path not in document["paths"]:
        pytest.skip(f"the served OpenAPI document has no {path} yet")


def test_the_dashboard_uses_infinity_with_the_backend_parser() -> None:
    for panel in _dashboard()["panels"]:
        for target in panel["targets"]:
            assert target["datasource"]["type"] == "yesoreyeram-infinity-datasource"
            assert target["parser"] == "backend"
            assert target["url"].startswith("/api/v1/")


def test_history_panel_frame(http: httpx.Client, grafana: Grafana) -> None:
    target = _panel("${field} of ${device}")["targets"][0]
    response, _ = _ask(http, target, grafana)
    assert response.status_code == 200, response.text
    frame = _frame(target, response.json())
    assert list(frame) == ["Time", "Value"]
    # The same range asked in ISO 8601 gives the same points.
    start = datetime.fromtimestamp(int(grafana.values["__from"]) / 1000, UTC)
    end = datetime.fromtimestamp(int(grafana.values["__to"]) / 1000, UTC)
    expected = http.get(
        f"/api/v1/devices/{DEVICES[0]}/history",
        params={
            "field": "temperature",
            "resolution": "hourly",
            "from": start.isoformat(),
            "to": end.isoformat(),
        },
    ).json()["data"]["points"]
    assert len(expected) > 3
    assert frame["Time"] == [_time(p["time"]) for p in expected]
    assert frame["Value"] == [float(p["value"]) for p in expected]
    assert all(start - timedelta(hours=1) <= t < end for t in frame["Time"])


def test_query_panel_frame(http: httpx.Client, grafana: Grafana, document: dict[str, Any]) -> None:
    _needs(document, "/api/v1/query")
    target = _panel("${field} by device")["targets"][0]
    response, body = _ask(http, target, grafana)
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["nextCursor"] is None  # one page holds the dashboard's range
    frame = _frame(target, answer)
    assert list(frame) == ["Time", "Device", "Value"]
    assert set(frame["Device"]) == set(DEVICES)
    rows = set(zip(frame["Device"], frame["Time"], frame["Value"], strict=True))
    expected = set()
    for eui in DEVICES:
        points = http.get(
            f"/api/v1/devices/{eui}/history",
            params={
                "field": "temperature",
                "resolution": "hourly",
                "from": answer["data"]["from"],
                "to": answer["data"]["to"],
            },
        ).json()["data"]["points"]
        expected |= {(eui, _time(p["time"]), float(p["value"])) for p in points}
    assert rows == expected
    assert body is not None and body["from"] == grafana.values["__from"]


def test_fleet_latest_panel_frame(
    http: httpx.Client, grafana: Grafana, document: dict[str, Any]
) -> None:
    _needs(document, "/api/v1/latest")
    target = _panel("Fleet latest")["targets"][0]
    response, _ = _ask(http, target, grafana)
    assert response.status_code == 200, response.text
    frame = _frame(target, response.json())
    assert list(frame) == ["Device", "Time", "Temperature", "Humidity", "Signal quality"]
    latest = [http.get(f"/api/v1/devices/{eui}/latest").json()["data"] for eui in DEVICES]
    latest.sort(key=lambda item: item["deviceId"])
    assert frame["Device"] == [item["deviceId"] for item in latest]
    assert frame["Time"] == [_time(item["time"]) for item in latest]
    assert frame["Temperature"] == [float(item["values"]["temperature"]) for item in latest]
    assert frame["Humidity"] == [float(item["values"]["humidity"]) for item in latest]
    assert frame["Signal quality"] == [float(item["signalQuality"]) for item in latest]
