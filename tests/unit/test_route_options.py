"""Route `opt` keys are checked when the app is built: a typo fails start-up."""

from __future__ import annotations

import pytest
from litestar import get

from app.auth.guards import check_route_options
from app.core.config import Settings
from app.main import create_app, route_handlers


def _handler(opt: dict[str, object]) -> object:
    @get("/x", opt=opt)
    async def handler() -> None:
        return None

    return handler


def test_the_app_declares_only_known_options() -> None:
    app = create_app(Settings(database_url="postgresql://nobody@127.0.0.1:1/none"))
    handlers = route_handlers(app)
    assert any(h.opt.get("scope") == "telemetry:read" for h in handlers)
    check_route_options(handlers)


@pytest.mark.parametrize(
    ("opt", "problem"),
    [
        ({"scpoe": "devices:read"}, "unknown opt key 'scpoe'"),
        ({"scope": "devices:raed"}, "unknown scope 'devices:raed'"),
        ({"write": "yes"}, "opt 'write' must be"),
    ],
)
def test_a_typo_in_opt_fails(opt: dict[str, object], problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        check_route_options([_handler(opt)])
