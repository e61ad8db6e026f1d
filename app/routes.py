"""The route handlers of every area, gathered in one place for the app factory.

Each area adds its controllers here: `api_route_handlers` are mounted under `/api/v1`
behind API-key authentication; `public_route_handlers` (ingest) bring their own auth.
"""

from __future__ import annotations

from typing import Any


def api_route_handlers() -> list[Any]:
    from app.devices.controller import DeviceController
    from app.downlinks.controller import DownlinkController
    from app.export.controller import ExportController
    from app.gateways.controller import GatewayController
    from app.history.controller import HistoryController
    from app.latest.controller import LatestController
    from app.live.controller import FleetLatestController, StreamController
    from app.members.controller import MembersController
    from app.multicast.controller import MulticastGroupController
    from app.multicast.execute import MulticastExecuteController
    from app.networks.controller import NetworkController
    from app.profiles.controller import ProfileController
    from app.query.controller import QueryController
    from app.sites.controller import SiteController

    return [
        DeviceController,
        GatewayController,
        ProfileController,
        NetworkController,
        SiteController,
        MulticastGroupController,
        HistoryController,
        QueryController,
        ExportController,
        DownlinkController,
        MulticastExecuteController,
        MembersController,
        LatestController,
        FleetLatestController,
        StreamController,
    ]


def public_route_handlers() -> list[Any]:
    from app.ingest.chirpstack_http import IngestController
    from app.ingest.tts_http import TtsIngestController
    from app.live.page import LivePageController

    return [IngestController, TtsIngestController, LivePageController]
