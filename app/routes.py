"""The route handlers of every area, gathered in one place for the app factory.

Each area adds its controllers here: `api_route_handlers` are mounted under `/api/v1`
behind API-key authentication; `public_route_handlers` (ingest) bring their own auth.
"""

from __future__ import annotations

from typing import Any


def api_route_handlers() -> list[Any]:
    from app.downlinks.controller import DownlinkController
    from app.members.controller import MembersController
    from app.multicast.execute import MulticastExecuteController

    return [
        DownlinkController,
        MulticastExecuteController,
        MembersController,
    ]


def public_route_handlers() -> list[Any]:
    return []
