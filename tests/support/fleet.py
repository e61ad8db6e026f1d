"""The fleet world of fleet latest and the stream."""

from __future__ import annotations

from typing import Any

from testkit.factories import World


def fleet_world(devices: int = 3) -> tuple[World, dict[str, Any]]:
    """A partner (networks and multi-site on) with a site of `devices` devices, one more
    device elsewhere, an inventory device and a device of another tenant."""
    w = World()
    p = w.partner(features={"networks": True, "multiSite": True})
    sa = w.sub_account(p)
    other_sa = w.sub_account(p)
    prof = w.profile(
        p,
        fields=[
            w.field("temperature"),
            w.field("humidity"),
            w.formula("temp_f", "temperature * 9 / 5 + 32"),
        ],
    )
    site = w.site(sa)
    in_site = [w.device(sa, prof, site=site) for _ in range(devices)]
    elsewhere = w.device(sa, prof)
    sibling = w.device(other_sa, prof)
    inventory = w.device(p, prof)
    stranger = w.partner()
    foreign = w.device(w.sub_account(stranger), w.profile(stranger))
    return w, {
        "partner": p,
        "site": site,
        "in_site": in_site,
        "elsewhere": elsewhere,
        "sibling": sibling,
        "inventory": inventory,
        "foreign": foreign,
        "key": w.key(sa, scopes=["telemetry:read"]),
        "partner_key": w.key(p, scopes=["telemetry:read"]),
        "token": w.integration(p),
    }
