"""The interactive reference renders with the network off (issue 12).

Headless Chromium (Debian's `chromium`) loads `/api/v1/docs` from a server started as
users start it, with every host but 127.0.0.1 unreachable: names resolve to nothing and
any other address goes to a dead proxy. The rendered DOM must hold Swagger UI's view of
our document (title, tags, operations), which only happens if the bundle, the stylesheet
and openapi.json all came from the service itself.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import httpx
import pytest

from app.docs import SWAGGER_UI_VERSION
from tests.support.chromium import CHROMIUM, offline_chromium
from tests.support.helpers import assert_error
from tests.support.servers import LiveServer


async def test_docs_page_needs_nothing_from_outside(live_server: LiveServer) -> None:
    async with live_server.client() as http:
        page = await http.get("/api/v1/docs")
        assert page.status_code == 200
        assert "script-src 'self'" in page.headers["content-security-policy"]
        html = page.text
        # Every asset the page loads is on this service, and the plain link is there.
        sources = re.findall(r'(?:src|href)="([^"]+)"', html)
        assert sources and all(s.startswith("/api/v1/") for s in sources), sources
        assert 'href="/api/v1/openapi.json"' in html
        for source in sources:
            asset = await http.get(source)
            assert asset.status_code == 200, source
            assert asset.content, source
        bundle = await http.get(
            f"/api/v1/docs/swagger-ui-{SWAGGER_UI_VERSION}/swagger-ui-bundle.js"
        )
        assert f'PACKAGE_VERSION:"{SWAGGER_UI_VERSION}"' in bundle.text
        assert "immutable" in bundle.headers["cache-control"]
        missing = await http.get(f"/api/v1/docs/swagger-ui-{SWAGGER_UI_VERSION}/secrets.txt")
        assert_error(missing, 404, "not_found")


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")
def test_docs_render_in_headless_chromium_offline(live_server: LiveServer, tmp_path: Path) -> None:
    url = f"{live_server.base_url}/api/v1/docs"
    document = httpx.get(f"{live_server.base_url}/api/v1/openapi.json", timeout=10).json()
    dom = subprocess.run(
        offline_chromium(
            "--virtual-time-budget=20000",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--dump-dom",
            url,
        ),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    assert 'class="swagger-ui"' in dom, dom[:2000]
    # Swagger UI rendered our document: its title, a tag and operations from the routes.
    assert document["info"]["title"] in dom
    assert "opblock" in dom
    assert 'id="operations-Devices-listDevices"' in dom, re.findall(r'id="operations-[^"]+"', dom)
    assert "getDeviceHistory" in dom
    assert "Failed to load API definition" not in dom
    screenshot = tmp_path / "docs.png"
    subprocess.run(
        offline_chromium(
            "--virtual-time-budget=20000",
            f"--user-data-dir={tmp_path / 'profile2'}",
            f"--screenshot={screenshot}",
            "--window-size=1280,1600",
            url,
        ),
        capture_output=True,
        timeout=120,
        check=True,
    )
    assert screenshot.stat().st_size > 20_000
    print(f"docs screenshot (network off): {screenshot}")
