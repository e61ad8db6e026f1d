"""Writes app/docs/examples.json: the service's own answers on the demo world.

`python -m demo.record_examples` (with the project's cluster started) loads
demo/world.py into a scratch database `openapi_examples`, calls every operation with the
demo keys through the real app, shortens the lists, and writes the answers and request
bodies that the OpenAPI document shows as examples. Run it again when a shape changes;
the ids are the demo world's fixed ones, the times those of the run.

It drives the whole app (app/main.py), so it lives beside the demo world rather than in
app/docs/, which the app imports to serve the document.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import sys
from datetime import UTC, datetime, timedelta
from typing import Any

from app.core.config import PROJECT_ROOT, Settings

OUT = PROJECT_ROOT / "app" / "docs" / "examples.json"
DEVICE = "70b3d57ed0000001"
GATEWAY = "0016c001ff000001"
PROFILE = "703ce2dc-9595-57a1-9d78-7e9fc88a1acf"
NETWORK = "5a47805b-527d-574e-ab06-1d160f002c5d"
SITE = "d2ac7285-d3ad-531f-801a-da7c7ea56149"
SUB_ACCOUNT = "8e8725c6-c1ea-56a7-b299-a3649b0cd230"
GROUP = "80154a70-cbc3-56cf-b545-0221cc665529"
LIST_ITEMS = 2
NESTED_ITEMS = 3

BODIES: dict[str, dict[str, Any]] = {
    "sendDownlink": {
        "byKey": {
            "summary": "By template key, overriding one field",
            "value": {"key": "set_interval", "data": {"minutes": 30}},
        },
        "withExpiry": {
            "summary": "Template defaults, discarded if not delivered within an hour",
            "value": {"key": "set_interval", "expiresInSeconds": 3600},
        },
    },
    "executeMulticastGroup": {
        "byKey": {
            "summary": "The buzzer template of every member's profile",
            "value": {"key": "buzzer"},
        }
    },
    "addMember": {
        "newAccount": {
            "summary": "A brand-new email: name and password needed",
            "value": {
                "email": "nora@harbour.example",
                "name": "Nora Viewer",
                "password": "a long demo password",
                "role": "subaccount_viewer",
            },
        },
        "restricted": {
            "summary": "An operator restricted to a site (multi-site feature)",
            "value": {
                "email": "olaf@harbour.example",
                "role": "subaccount_operator",
                "siteId": SITE,
            },
        },
    },
    "queryTelemetry": {
        "dailyAtSite": {
            "summary": "Daily minimum and maximum temperature and mean humidity of a site's "
            "devices, Berlin days",
            "value": {
                "devices": {"siteId": SITE, "includeDescendants": True},
                "fields": ["temperature", "humidity"],
                # Absolute times (the run's two days; `now-P2D` and `now` work as well).
                "from": None,
                "to": None,
                "resolution": "daily",
                "agg": {"temperature": ["min", "max"], "humidity": "avg"},
                "tz": "Europe/Berlin",
                "limit": 10000,
            },
        },
        "rawPaged": {
            "summary": "Every temperature reading of two devices in the last hour, 4 a page",
            "value": {
                "devices": {"ids": [DEVICE, "70b3d57ed0000002"]},
                "fields": ["temperature"],
                "from": None,
                "to": None,
                "limit": 4,
            },
        },
    },
    "validateMember": {
        "login": {
            "summary": "A member's credentials",
            "value": {"email": "ana@harbour.example", "password": "demo password 2026"},
        }
    },
}


Call = tuple[str, str, str, dict[str, str], Any]  # operation id, method, path, headers, body


def _reads(resource: str, path: str, one: str, headers: dict[str, str]) -> list[Call]:
    """A directory resource's two reads: a short page (`list<Resource>s`) and one item."""
    return [
        (f"list{resource}s", "GET", f"/api/v1/{path}?limit={LIST_ITEMS}", headers, None),
        (f"get{resource}", "GET", f"/api/v1/{path}/{one}", headers, None),
    ]


def _post(operation_id: str, path: str, headers: dict[str, str], example: str) -> Call:
    """A POST whose body is the example the document shows for it (BODIES)."""
    return (operation_id, "POST", path, headers, BODIES[operation_id][example]["value"])


def _set_query_ranges(hour: datetime) -> None:
    """The ranges of the query examples, ending at this hour (the OpenAPI document writes
    times in RFC 3339, so examples do too)."""
    for name, span in (("dailyAtSite", timedelta(days=2)), ("rawPaged", timedelta(hours=1))):
        value = BODIES["queryTelemetry"][name]["value"]
        value["from"] = _rfc3339(hour - span)
        value["to"] = _rfc3339(hour)


def _rfc3339(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def _shorten(value: Any, depth: int = 0) -> Any:
    if isinstance(value, list):
        keep = LIST_ITEMS if depth <= 1 else NESTED_ITEMS
        return [_shorten(item, depth + 1) for item in value[:keep]]
    if isinstance(value, dict):
        return {key: _shorten(item, depth + 1) for key, item in value.items()}
    return value


async def _collect(database_url: str) -> dict[str, Any]:
    from litestar.testing import AsyncTestClient

    from app.core.db import connect
    from app.main import create_app
    from app.ops.migrate import migrate
    from app.world.loader import load_world

    sys.path.insert(0, str(PROJECT_ROOT))
    # demo/ is not part of the package; imported by name so the type checker stays in app/.
    demo: Any = importlib.import_module("demo.world")

    settings = Settings(database_url=database_url, pool_min_size=1, pool_max_size=4)
    connection = await connect(settings)
    try:
        await migrate(connection)
        await load_world(connection, demo.build())
    finally:
        await connection.close()
    partner = {"Authorization": f"Bearer {demo.PARTNER_KEY}"}
    harbour = {"Authorization": f"Bearer {demo.HARBOUR_KEY}"}
    _set_query_ranges(datetime.now(UTC).replace(minute=0, second=0, microsecond=0))
    calls: list[Call] = [
        ("getIndex", "GET", "/", {}, None),
        ("getApiIndex", "GET", "/api/v1", {}, None),
        ("getHealth", "GET", "/api/v1/health", {}, None),
        ("getMe", "GET", "/api/v1/me", partner, None),
        ("listDevices", "GET", "/api/v1/devices?status=assigned&limit=2", partner, None),
        ("getDevice", "GET", f"/api/v1/devices/{DEVICE}", partner, None),
        ("getDeviceLatest", "GET", f"/api/v1/devices/{DEVICE}/latest", partner, None),
        (
            "getFleetLatest",
            "GET",
            f"/api/v1/latest?siteId={SITE}&includeDescendants=true&fields=temperature,humidity"
            "&limit=2",
            partner,
            None,
        ),
        (
            "getDeviceHistory",
            "GET",
            f"/api/v1/devices/{DEVICE}/history?field=temperature&from=now-P1D&to=now"
            "&resolution=hourly&agg=avg",
            partner,
            None,
        ),
        *_reads("Gateway", "gateways", GATEWAY, partner),
        *_reads("DeviceProfile", "device-profiles", PROFILE, partner),
        *_reads("Network", "networks", NETWORK, partner),
        *_reads("Site", "sites", SITE, partner),
        *_reads("SubAccount", "sub-accounts", SUB_ACCOUNT, partner),
        *_reads("MulticastGroup", "multicast-groups", GROUP, partner),
        ("listDownlinkTemplates", "GET", f"/api/v1/devices/{DEVICE}/downlinks", partner, None),
        _post("sendDownlink", f"/api/v1/devices/{DEVICE}/downlinks", partner, "byKey"),
        _post(
            "executeMulticastGroup", f"/api/v1/multicast-groups/{GROUP}/execute", partner, "byKey"
        ),
        ("listMembers", "GET", "/api/v1/members?limit=2", harbour, None),
        _post("addMember", "/api/v1/members", harbour, "newAccount"),
        _post("validateMember", "/api/v1/members/validate", harbour, "login"),
        _post("queryTelemetry", "/api/v1/query", partner, "dailyAtSite"),
    ]
    responses: dict[str, Any] = {}
    async with AsyncTestClient(app=create_app(settings)) as client:
        for operation_id, method, path, headers, body in calls:
            answer = await client.request(method, path, headers=headers, json=body)
            if answer.status_code >= 300:
                raise RuntimeError(f"{operation_id}: {answer.status_code} {answer.text}")
            responses[operation_id] = _shorten(answer.json())
        queued = responses["sendDownlink"]["data"]["queueItemId"]
        item = await client.get(f"/api/v1/devices/{DEVICE}/downlinks/{queued}", headers=partner)
        responses["getDownlink"] = _shorten(item.json())
        zoned = await client.get(
            f"/api/v1/devices/{DEVICE}/history?field=temperature&from=now-P2D&to=now"
            "&resolution=daily&agg=max&tz=Europe/Berlin",
            headers=partner,
        )
        responses["getDeviceHistoryInZone"] = _shorten(zoned.json())
        # Exports are files: their examples are the first lines of real ones.
        for operation_id, path in EXPORTS:
            for media, query in (("text/csv", "csv"), ("application/x-ndjson", "ndjson")):
                answer = await client.get(f"{path}&format={query}", headers=partner)
                if answer.status_code != 200:
                    raise RuntimeError(f"{operation_id}: {answer.status_code} {answer.text}")
                head = "".join(answer.text.splitlines(keepends=True)[:4])
                responses.setdefault(operation_id, {})[media] = head
        added = responses["addMember"]["data"]["userId"]
        removed = await client.delete(f"/api/v1/members/{added}", headers=harbour)
        responses["removeMember"] = removed.json()
        spec = await client.get("/api/v1/openapi.json")
        responses["getOpenApiDocument"] = {"openapi": spec.json()["openapi"], "info": {}}
    return {"responses": responses, "bodies": BODIES}


EXPORTS = [
    (
        "exportDeviceTelemetry",
        f"/api/v1/devices/{DEVICE}/export?fields=temperature,humidity&from=now-P1D&to=now"
        "&tz=Europe/Berlin",
    ),
    ("exportFleetTelemetry", "/api/v1/export?fields=temperature&from=now-PT6H&to=now"),
]


def main() -> None:
    from app.ops import cluster

    cluster.start()
    # A fresh database each run: the demo world's ids are fixed.
    name = f"openapi_examples_{os.getpid()}"
    cluster.ensure_database(name)
    try:
        examples = asyncio.run(_collect(cluster.database_url(name)))
    finally:
        cluster.drop_database(name, check=False)
    OUT.write_text(json.dumps(examples, indent=1, ensure_ascii=False, sort_keys=True) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
