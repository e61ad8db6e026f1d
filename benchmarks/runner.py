"""Runs one benchmark module in its own process, so that a slow or broken module can be
timed out and reported without stopping the suite.

    python -m benchmarks.runner CONTEXT_JSON MODULE OUT_JSON

CONTEXT_JSON holds the shared settings of the run (scale, quick, durations, floors
measured earlier); the module's `run(ctx)` is called and its measures written to OUT_JSON.
A module without `run` is called as `python -m MODULE --json [--quick]` and the JSON
array it prints is taken as its measures.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path
from typing import Any

import msgspec

from benchmarks.common import Context, Measure, call_run, load_manifest


class ContextSpec(msgspec.Struct, kw_only=True):
    scale: str
    quick: bool
    work_dir: str
    duration: float
    repetitions: int
    connections: list[int]
    floors: dict[str, float]


def context_from(spec: ContextSpec) -> Context:
    return Context(
        manifest=load_manifest(spec.scale),
        quick=spec.quick,
        work_dir=Path(spec.work_dir),
        duration=spec.duration,
        repetitions=spec.repetitions,
        connections=list(spec.connections),
        floors=dict(spec.floors),
    )


def coerce_measures(items: Any, group: str) -> list[Measure]:
    """Measures from a module's JSON, tolerant of missing optional keys."""
    measures = []
    for item in items:
        if isinstance(item, Measure):
            measures.append(item)
            continue
        item = dict(item)
        item.setdefault("group", group)
        item.setdefault("unit", "")
        measures.append(msgspec.convert(item, Measure))
    return measures


def run_module(spec: ContextSpec, module_name: str) -> list[Measure]:
    group = module_name.rsplit(".", 1)[-1].removeprefix("bench_")
    module = importlib.import_module(module_name)
    run = getattr(module, "run", None)
    if run is not None:
        ctx = context_from(spec)
        try:
            return coerce_measures(call_run(run, ctx), group)
        finally:
            ctx.close()
    command = [sys.executable, "-m", module_name, "--json"] + (["--quick"] if spec.quick else [])
    completed = subprocess.run(command, capture_output=True, text=True, check=True)
    for line in reversed(completed.stdout.strip().splitlines()):
        if line.startswith("["):
            return coerce_measures(msgspec.json.decode(line), group)
    raise RuntimeError(f"{module_name} --json printed no JSON array")


def main(argv: list[str]) -> int:
    context_path, module_name, out_path = argv
    spec = msgspec.json.decode(Path(context_path).read_bytes(), type=ContextSpec)
    measures = run_module(spec, module_name)
    Path(out_path).write_bytes(msgspec.json.encode(measures))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
