"""The live page in a real browser (issue 24).

Headless Chromium (Debian's `chromium`), with every host but 127.0.0.1 unreachable as in
test_docs_offline.py, is driven over the DevTools protocol on a pipe (`--remote-debugging-
pipe`: NUL-separated JSON on file descriptors 3 and 4, no WebSocket library needed). It
opens `/live/` of a server started as users start it (`TELEMETRY_LIVE_PAGE=1`), waits for
the site's devices to show, then an uplink goes through the real ChirpStack route and the
page must show the new value within 3 s. Every request the page makes is recorded: none
carries the key in its URL, and the stream's carries it in the Authorization header.
"""

from __future__ import annotations

import base64
import json
import os
import select
import subprocess
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import pytest

from testkit.factories import World, load
from tests.support import chirpstack as cs
from tests.support.chirpstack import INGEST
from tests.support.chromium import CHROMIUM, offline_chromium
from tests.support.servers import serving


class DevTools:
    """Chromium over `--remote-debugging-pipe`, with the events it sent kept."""

    def __init__(self, profile: Path) -> None:
        to_browser_r, self.to_browser = os.pipe()
        self.from_browser, from_browser_w = os.pipe()

        def descriptors() -> None:
            os.dup2(to_browser_r, 3)
            os.dup2(from_browser_w, 4)

        self.process = subprocess.Popen(
            offline_chromium(
                "--remote-debugging-pipe",
                "--window-size=1100,900",
                f"--user-data-dir={profile}",
                "about:blank",
            ),
            preexec_fn=descriptors,
            pass_fds=(3, 4),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(to_browser_r)
        os.close(from_browser_w)
        self.buffer = b""
        self.next_id = 0
        self.events: list[dict[str, Any]] = []
        self.session: str | None = None

    def _read(self, timeout: float) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self.from_browser], [], [], max(left, 0))
            if not ready:
                raise TimeoutError("no message from the browser")
            chunk = os.read(self.from_browser, 1 << 20)
            if not chunk:
                raise EOFError("the browser closed its pipe")
            self.buffer += chunk
        message, _, self.buffer = self.buffer.partition(b"\0")
        decoded: dict[str, Any] = json.loads(message)
        return decoded

    def call(self, method: str, timeout: float = 30, **params: Any) -> dict[str, Any]:
        self.next_id += 1
        message: dict[str, Any] = {"id": self.next_id, "method": method, "params": params}
        if self.session is not None and not method.startswith("Target."):
            message["sessionId"] = self.session
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._read(timeout)
            if reply.get("id") == self.next_id:
                assert "error" not in reply, reply
                result: dict[str, Any] = reply.get("result", {})
                return result
            self.events.append(reply)

    def open(self) -> None:
        """Attaches to the blank page, recording its network requests."""
        targets = self.call("Target.getTargets")["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self.session = self.call("Target.attachToTarget", targetId=page["targetId"], flatten=True)[
            "sessionId"
        ]
        self.call("Network.enable")
        self.call("Page.enable")

    def evaluate(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return result["result"].get("value")

    def wait_for(self, expression: str, ok: Callable[[Any], bool], timeout: float) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            value = self.evaluate(expression)
            if ok(value):
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"{expression} stayed {value!r}")
            time.sleep(0.05)

    def screenshot(self, path: str) -> None:
        shot = self.call("Page.captureScreenshot", format="png")["data"]
        Path(path).write_bytes(base64.b64decode(shot))

    def requests(self) -> list[dict[str, Any]]:
        return [
            e["params"]["request"]
            for e in self.events
            if e.get("method") == "Network.requestWillBeSent"
        ]

    def close(self) -> None:
        self.process.kill()
        self.process.wait(10)
        os.close(self.to_browser)
        os.close(self.from_browser)


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[DevTools]:
    tools = DevTools(tmp_path / "profile")
    try:
        yield tools
    finally:
        tools.close()


ROWS = """JSON.stringify(Array.from(document.querySelectorAll('#devices tbody tr'),
    tr => [tr.dataset.device, tr.querySelector('.values').textContent]))"""


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")
async def test_the_live_page_shows_an_uplink_within_3_seconds(
    migrated: str, pool: asyncpg.Pool, browser: DevTools, tmp_path: Path
) -> None:
    w = World()
    p = w.partner(features={"networks": False, "multiSite": True})
    sa = w.sub_account(p)
    prof = w.profile(p, fields=[w.field("temperature"), w.field("humidity")])
    site = w.site(sa, name="Warehouse 7")
    devices = [w.device(sa, prof, site=site, name=f"Cold room {n}") for n in (1, 2)]
    elsewhere = w.device(sa, prof)
    key = w.key(sa, scopes=["devices:read", "telemetry:read"])
    token = w.integration(p)
    await load(pool, w)

    with (
        serving(migrated, env={"TELEMETRY_LIVE_PAGE": "1"}) as server,
        httpx.Client(base_url=server.base_url, timeout=10) as http,
    ):

        def uplink(device: dict[str, Any], at: datetime | None = None, **values: Any) -> None:
            body = cs.uplink(device["devEui"], values, time=at)
            response = http.post(f"{INGEST}?event=up", content=body, headers=cs.bearer(token))
            assert response.status_code == 204, response.text

        now = datetime.now(UTC)
        for minutes, value in ((90, 18.0), (60, 19.0), (30, 20.0)):
            for device in devices:
                at = now - timedelta(minutes=minutes)
                uplink(device, at, temperature=value, humidity=40)
        uplink(elsewhere, temperature=99.0)

        browser.open()
        browser.call(
            "Page.navigate",
            url=f"{server.base_url}/live/#key={key}&site={site['id']}&field=temperature",
        )
        rows = json.loads(
            browser.wait_for(ROWS, lambda v: v is not None and len(json.loads(v)) == 2, 20)
        )
        assert {row[0] for row in rows} == {d["id"] for d in devices}
        assert any("temperature 20" in text for _, text in rows), rows
        browser.wait_for("document.body.dataset.live", lambda v: v == "yes", 10)
        # The chart of the first device's last day, from /history.
        points = browser.wait_for("document.body.dataset.chart", lambda v: v is not None, 10)
        assert int(points) == 3
        assert browser.evaluate("document.querySelectorAll('#chart canvas').length") >= 1
        names = browser.evaluate(
            "Array.from(document.querySelectorAll('#devices .name'), td => td.textContent)"
        )
        assert sorted(names) == ["Cold room 1", "Cold room 2"]

        started = time.monotonic()
        uplink(devices[1], temperature=31.5, humidity=71)
        browser.wait_for(ROWS, lambda v: "temperature 31.50" in v, 3 - (time.monotonic() - started))
        assert time.monotonic() - started < 3

        target = os.environ.get("LIVE_PAGE_SCREENSHOT", str(tmp_path / "live.png"))
        browser.screenshot(target)
        print(f"live page screenshot: {target}")

    requests = browser.requests()
    stream = [r for r in requests if "/api/v1/stream" in r["url"]]
    assert stream, [r["url"] for r in requests]
    assert stream[0]["headers"].get("Authorization") == f"Bearer {key}"
    assert all(str(key) not in r["url"] for r in requests)
    # Nothing came from anywhere but this service.
    assert all(
        r["url"].startswith(server.base_url) for r in requests if r["url"].startswith("http")
    )
