"""Query filters shared by the device, gateway and network lists (api-spec 4.3, D17, D18).

Feature switches are checked before any parameter is parsed (D3): a route declares them in
`opt["features"]` and `check_features`, the `before_request` hook of the directory
controllers, applies them before Litestar parses and validates the typed parameters
(`limit`, `offset`), so `?limit=0` with the feature off is the 403, not the 400. Booleans
and statuses are parsed strictly here, so `online=yes` is a 400 naming the parameter
rather than a guess.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Annotated, Any

import msgspec
from litestar import Request
from litestar.params import Parameter

from app.auth.guards import require_multi_site, require_networks
from app.auth.principal import Principal
from app.core.api import check_integer_parameters, parse_filter_id
from app.core.enums import DeviceStatus
from app.core.errors import invalid_parameter

STATUSES = tuple(DeviceStatus)
# The selecting filters of GET /devices by their parameter names, which fleet latest, the
# stream and POST /query (its `devices` object) take too; `status` is not one of them
# there (those select assigned devices only).
DEVICE_FILTERS = (
    "subAccountId",
    "deviceProfileId",
    "networkId",
    "siteId",
    "includeDescendants",
    "online",
    "search",
)

# The query parameters of the directory filters, declared once for every route that takes
# them, so that a parameter has one name and one description in the OpenAPI document. They
# arrive as text and are parsed by the functions below (strictly, with a 400 naming them).
SubAccountFilter = Annotated[str | None, Parameter(query="subAccountId")]
ProfileFilter = Annotated[str | None, Parameter(query="deviceProfileId")]
NetworkFilter = Annotated[
    str | None, Parameter(query="networkId", description="A network id or `none`.")
]
SiteFilter = Annotated[str | None, Parameter(query="siteId", description="A site id or `none`.")]
DescendantsFilter = Annotated[
    str | None, Parameter(query="includeDescendants", description="`true` or `false`.")
]
StatusFilter = Annotated[
    str | None, Parameter(description="`inventory`, `assigned`, `archived` or `all`.")
]
OnlineFilter = Annotated[str | None, Parameter(description="`true` or `false`.")]

FEATURES: dict[str, Callable[[Principal], None]] = {
    "networks": require_networks,
    "multi_site": require_multi_site,
}


def features(*route: str, **params: str) -> dict[str, Any]:
    """The `opt` entry of a route's feature switches, checked in the order given (D3).

    `route` names features the route always needs; `params` maps a query parameter to the
    feature it needs when it is sent (`networkId="networks"`). Route-wide features come
    first, then the parameters' ones; every feature check comes before any 400.
    """
    for feature in (*route, *params.values()):
        if feature not in FEATURES:
            raise ValueError(f"unknown feature {feature!r}")
    checks = tuple((feature, None) for feature in route) + tuple(
        (feature, param) for param, feature in params.items()
    )
    return {"features": checks}


# The feature switches of the filters that name a network or a site (`networkId` needs
# the Networks feature, `siteId` the multi-site one): the `opt` of a route that takes both.
FILTER_FEATURES = features(networkId="networks", siteId="multi_site")


async def check_features(request: Request[Any, Any, Any]) -> None:
    """`before_request` hook: the route's feature switches, before its parameters are parsed.

    Litestar validates typed query parameters (paging) before the handler runs but after
    this hook, so the order of D3 (feature switches, then 400s) holds for every parameter.
    """
    checks: tuple[tuple[str, str | None], ...] = request.route_handler.opt.get("features", ())
    # Litestar's own OPTIONS handler inherits the controller's hook, but OPTIONS is answered
    # without a key (app/auth/middleware.py), so there is no principal to check switches against.
    if checks and request.method != "OPTIONS":
        principal: Principal = request.scope["state"]["principal"]
        query = request.query_params
        for feature, param in checks:
            if param is None or param in query:
                FEATURES[feature](principal)
    # This hook replaces the API router's for these controllers, so it runs that one too.
    await check_integer_parameters(request)


class IdFilter(msgspec.Struct, frozen=True):
    """An id filter that may also be `none`: (id, none) ready for the SQL parameters."""

    id: uuid.UUID | None = None
    none: bool = False


def parse_bool(name: str, text: str | None) -> bool | None:
    if text is None:
        return None
    lowered = text.lower()
    if lowered == "true":
        return True
    if lowered == "false":
        return False
    raise invalid_parameter(name, "must be true or false")


def parse_statuses(principal: Principal, text: str | None) -> list[str] | None:
    """The statuses to list: a sub-account key only ever sees assigned items (D9).

    None means every status (no filter at all); an empty list means nothing can match.
    """
    wanted: list[str]
    if text is None or text == "all":
        wanted = list(STATUSES)
    elif text in STATUSES:
        wanted = [text]
    else:
        raise invalid_parameter("status", "must be inventory, assigned, archived or all")
    if principal.sub_account_id is not None:
        wanted = [s for s in wanted if s == DeviceStatus.ASSIGNED]
    return None if len(wanted) == len(STATUSES) else wanted


def parse_plain_id(name: str, text: str | None) -> uuid.UUID | None:
    parsed = parse_filter_id(name, text)
    assert parsed is None or isinstance(parsed, uuid.UUID)
    return parsed


def parse_network_filter(principal: Principal, text: str | None) -> IdFilter:
    if text is None:
        return IdFilter()
    require_networks(principal)
    return _id_or_none("networkId", text)


def parse_site_filter(principal: Principal, text: str | None) -> IdFilter:
    if text is None:
        return IdFilter()
    require_multi_site(principal)
    return _id_or_none("siteId", text)


def _id_or_none(name: str, text: str) -> IdFilter:
    parsed = parse_filter_id(name, text, allow_none=True)
    if parsed == "none":
        return IdFilter(none=True)
    assert isinstance(parsed, uuid.UUID)
    return IdFilter(id=parsed)


# The longest `search` text (in characters) the lists take; the OpenAPI document states it.
SEARCH_MAX_LENGTH = 200


def like_patterns(search: str | None) -> tuple[str | None, str | None]:
    """ILIKE pattern for names and serial numbers, LIKE pattern for EUIs (D9, D17).

    The EUI pattern is None when the text, without `:` and `-`, could not be part of an
    EUI, so that branch costs nothing. A text over SEARCH_MAX_LENGTH is a 400.
    """
    if search is None or search == "":
        return None, None
    if len(search) > SEARCH_MAX_LENGTH:
        raise invalid_parameter("search", f"must be at most {SEARCH_MAX_LENGTH} characters")
    escaped = search.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    compact = search.replace(":", "").replace("-", "").lower()
    eui = None
    if compact and all(c in "0123456789abcdef" for c in compact):
        eui = f"%{compact}%"
    return f"%{escaped}%", eui


class ListFilters(msgspec.Struct, frozen=True, kw_only=True):
    """The directory filters of one request, parsed: each a value ready for the SQL
    parameters of a list (the device, gateway and network lists, the fleet's devices)."""

    sub_account: uuid.UUID | None
    profile: uuid.UUID | None
    network: IdFilter
    site: IdFilter
    # None: every status (no filter); an empty list: nothing can match (parse_statuses).
    statuses: list[str] | None
    online: bool | None
    descendants: bool
    name_pattern: str | None
    eui_pattern: str | None


def parse_filters(
    principal: Principal,
    *,
    sub_account_id: str | None = None,
    device_profile_id: str | None = None,
    network_id: str | None = None,
    status: str | None = None,
    site_id: str | None = None,
    include_descendants: str | None = None,
    online: str | None = None,
    search: str | None = None,
) -> ListFilters:
    """The directory filters a list takes (those it does not take left None), in the one
    order every list checks them: the feature switches of `networkId` and `siteId` first
    (D3), then each parameter strictly, with a 400 naming the first malformed one."""
    network = parse_network_filter(principal, network_id)
    site = parse_site_filter(principal, site_id)
    statuses = parse_statuses(principal, status)
    sub_account = parse_plain_id("subAccountId", sub_account_id)
    profile = parse_plain_id("deviceProfileId", device_profile_id)
    wanted_online = parse_bool("online", online)
    descendants = parse_bool("includeDescendants", include_descendants) or False
    name_pattern, eui_pattern = like_patterns(search)
    return ListFilters(
        sub_account=sub_account,
        profile=profile,
        network=network,
        site=site,
        statuses=statuses,
        online=wanted_online,
        descendants=descendants,
        name_pattern=name_pattern,
        eui_pattern=eui_pattern,
    )


def fleet_filters(principal: Principal, **texts: str | None) -> list[Any]:
    """The filters of `GET /devices` (status aside; `texts` as `parse_filters` takes them)
    as the arguments of the fleet's assigned devices (sql/export/export.sql fleet_devices,
    in its order): one reading of them for the fleet export, fleet reads and POST /query."""
    filters = parse_filters(principal, **texts)
    return [
        filters.sub_account,
        filters.profile,
        filters.network.id,
        filters.network.none,
        filters.site.id,
        filters.site.none,
        filters.descendants,
        filters.online,
        filters.name_pattern,
        filters.eui_pattern,
    ]
