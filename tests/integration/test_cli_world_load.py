"""Loading a large world file from the command line shows a progress bar with a rate and
a summary (issue 12); the help texts are checked in tests/unit/test_cli_help.py."""

from __future__ import annotations

import json
import re
from pathlib import Path

from testkit.factories import World
from tests.support.cli import telemetry


async def test_world_load_shows_progress_and_summary(migrated: str, tmp_path: Path) -> None:
    w = World()
    _, _, device = w.tenancy_with_device([w.field("temperature")])
    for minute in range(1500):
        w.uplink(device, at=f"now-PT{minute + 1}M", values={"temperature": minute / 10})
    path = tmp_path / "world.json"
    path.write_text(json.dumps(w.to_dict()))
    run = await telemetry(migrated, "world", "load", str(path))
    assert run.code == 0, run.stderr
    assert re.search(r"telemetry \[#{30}\] 100\.0% 1,500/1,500 [\d,]+/s", run.stderr), run.stderr
    assert "1500 uplinks" in run.stdout, run.stdout
    assert re.search(r" in \d+\.\d s$", run.stdout.strip())
