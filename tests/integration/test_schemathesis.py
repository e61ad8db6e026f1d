"""The OpenAPI document against the live service: schemathesis (issues 12 and 23).

The demo world (demo/world.py) is loaded, with its rate tiers raised so the run measures
conformance rather than the limiter, and `telemetry serve --workers 2` is started as users
start it. Schemathesis then reads the served /api/v1/openapi.json and sends generated
requests to every operation, once with the demo partner key and once with a sub-account
key (and the ingest routes with their integration tokens), with every check it has: no
5xx; no answer the document does not describe (status code, content type, header, body
schema, `Allow`); schema-valid requests accepted and schema-invalid ones refused; missing
required headers, unsupported methods and ignored credentials refused. The refusals the
document states only in words, because no JSON Schema can (a rule across parameters or on
the tenant's data), are accepted by schemathesis_hooks.py, by their exact messages.

The run is bounded: a fixed seed, the examples, coverage and fuzzing phases with at most
`MAX_EXAMPLES` generated cases per operation in fuzzing, and a wall-clock timeout on each
command. About 2,700 generated cases per key; the four runs took 3.5 to 5.5 minutes on a
2-core machine at a load average of 15 to 17 (the CPU time is under a minute).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import asyncpg
import pytest

from tests.support.servers import LiveServer, serving

MAX_EXAMPLES = 30
HOOKS = Path(__file__).with_name("schemathesis_hooks.py")
SEED = 20261123
TIMEOUT_SECONDS = 240
TTS_TOKEN = "schemathesis-tts-token-000000000000000"
INGEST = (
    "--exclude-operation-id",
    "ingestChirpStack",
    "--exclude-operation-id",
    "ingestTheThingsStack",
    # An event stream never ends, so every case would run into the request timeout; its
    # answers are checked by tests/integration/test_stream.py.
    "--exclude-operation-id",
    "streamLatest",
)


@pytest.fixture(scope="module")
async def demo_world(pool: asyncpg.Pool) -> dict[str, str]:
    from app.world.loader import load_world
    from demo import world as demo

    document = demo.build()
    partner = document["partners"][0]
    # The demo world has no The Things Stack integration; one is added so that its ingest
    # route is run with a token of its kind.
    partner["integrations"].append(
        {
            "id": str(uuid.uuid5(uuid.NAMESPACE_URL, "schemathesis-tts")),
            "kind": "tts",
            "token": TTS_TOKEN,
        }
    )
    partner["tier"] = {"perMinute": 1_000_000, "perDay": 100_000_000}
    for sub_account in partner["subAccounts"]:
        sub_account.pop("tier", None)
    async with pool.acquire() as connection:
        await load_world(connection, document)
    return {
        "partner": demo.PARTNER_KEY,
        "sub_account": demo.HARBOUR_KEY,
        "integration": demo.INTEGRATION_TOKEN,
        "tts": TTS_TOKEN,
    }


@pytest.fixture(scope="module")
def served(migrated: str, demo_world: dict[str, str]) -> Iterator[LiveServer]:
    with serving(migrated) as server:
        yield server


def _schemathesis(
    server: LiveServer, key: str, report: Path, *options: str
) -> subprocess.CompletedProcess[str]:
    command = [
        str(Path(sys.executable).parent / "schemathesis"),
        "run",
        f"{server.base_url}/api/v1/openapi.json",
        "--url",
        server.base_url,
        # Every check, schemathesis's own and the hooks'. Two of its own run inside the
        # hooks' wrappers, which let through only what the document states in words
        # because no JSON Schema can (schemathesis_hooks.py): the 400s of rules across
        # parameters or on the tenant's data, and the 204 of an ignored ChirpStack event.
        "--checks",
        "all",
        "--exclude-checks",
        "positive_data_acceptance,negative_data_rejection",
        # The stateful phase (chains of calls through inferred links) doubles the run's
        # time on this 2-core machine for little more coverage of the document.
        "--phases",
        "examples,coverage,fuzzing",
        "--max-examples",
        str(MAX_EXAMPLES),
        "--seed",
        str(SEED),
        # One worker: with two, generation in threads hit CPython 3.11's "AST constructor
        # recursion depth mismatch" SystemError inside schemathesis (an error of the tool,
        # not of the service).
        "--workers",
        "1",
        "--request-timeout",
        "10",
        "--generation-database",
        "none",
        "--no-color",
        "--header",
        f"Authorization: Bearer {key}",
        "--report",
        "junit",
        "--report-junit-path",
        str(report),
        *options,
    ]
    root = str(Path(__file__).parents[2])
    env = {**os.environ, "SCHEMATHESIS_HOOKS": str(HOOKS), "PYTHONPATH": root}
    # In a scratch directory: schemathesis keeps a cache of its own where it runs.
    return subprocess.run(
        command,
        cwd=report.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_SECONDS,
        check=False,
    )


@pytest.mark.parametrize(
    ("flavour", "options"),
    [
        ("partner", INGEST),
        ("sub_account", INGEST),
        # The ingest routes with an integration token of their kind instead of a key.
        ("integration", ("--include-operation-id", "ingestChirpStack")),
        ("tts", ("--include-operation-id", "ingestTheThingsStack")),
    ],
)
def test_live_answers_conform_to_the_document(
    served: LiveServer,
    demo_world: dict[str, str],
    flavour: str,
    options: tuple[str, ...],
    tmp_path: Path,
) -> None:
    result = _schemathesis(served, demo_world[flavour], tmp_path / "junit.xml", *options)
    output = result.stdout + result.stderr
    summary = "\n".join(output.splitlines()[-60:])
    print(summary)
    assert result.returncode == 0, output[-20000:]
    # It really ran every operation of the document (not zero cases).
    tested = re.search(r"(\d+) passed", summary)
    assert tested is not None, summary
    assert "API Operations" in output or "operations" in output.lower(), summary
