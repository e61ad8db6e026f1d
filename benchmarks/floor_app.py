"""The HTTP floor: the product's server configuration serving a constant JSON body.

Benchmark-only (never mounted in the product). It runs on the granian server of
`telemetry serve` (app/server/granian.py: ASGI, uvloop, the same backlog, access log off)
with Litestar and msgspec, so the difference between a product route and `/floor` is the
route's own work: authentication, the database round trip and the encoding of its answer.

    python -m benchmarks.floor_app --port 8100 --workers 2
"""

from __future__ import annotations

import argparse

from litestar import Litestar, Response, get

# About 150 bytes, the size of a small /latest body.
BODY = (
    b'{"data":{"deviceId":"6f1c2b9e-4d7a-4c1e-9a55-2f0d8c3b7e10","time":"2026-01-01T00:00:00Z",'
    b'"values":{"temperature":21.5,"humidity":48.0},"signalQuality":80}}'
)


@get("/floor", sync_to_thread=False)
def floor() -> Response[bytes]:
    return Response(BODY, media_type="application/json")


def app_factory() -> Litestar:
    return Litestar(route_handlers=[floor], openapi_config=None)


def main() -> None:
    from app.server.granian import granian_server

    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8100)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    granian_server(
        "benchmarks.floor_app:app_factory", host=args.host, port=args.port, workers=args.workers
    ).serve()


if __name__ == "__main__":
    main()
