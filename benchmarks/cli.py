"""`telemetry bench ...`: datasets, runs and reports of the benchmark suite.

    telemetry bench generate --scale S|M|L [--fleet 100000] [--fleet-only]
    telemetry bench run [--scale M] [--quick] [--only CLASS[,CLASS]]
    telemetry bench report [RUN_DIR] [--rerender]

See benchmarks/README.md for how to read the report.
"""

from __future__ import annotations

import argparse
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from benchmarks.common import RESULTS_DIR, load_manifest, manifest_path


def cmd_generate(args: argparse.Namespace) -> int:
    from benchmarks.datasets import generate

    manifest = generate(args.scale, fleet=args.fleet, seed=args.seed, fleet_only=args.fleet_only)
    print(
        f"scale {manifest.scale}: {len(manifest.devices)} devices, "
        f"{manifest.readings_num + manifest.readings_other:,} readings in "
        f"{manifest.database} ({manifest.load_rate:,.0f} readings/s, packing included)"
        + (f"; fleet of {manifest.fleet.device_count:,} devices" if manifest.fleet else "")
    )
    print(f"manifest: {manifest_path(manifest.scale)}")
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    from benchmarks.report import write_report
    from benchmarks.suite import CLASSES, resolve_classes, run_suite, timestamp

    only, unknown = (
        resolve_classes([c.strip() for c in args.only.split(",")]) if args.only else (None, [])
    )
    if unknown:
        print(
            f"telemetry bench run: unknown class {', '.join(unknown)} "
            f"(classes: {', '.join(CLASSES)})",
            file=sys.stderr,
        )
        return 2
    started_at = datetime.now(UTC)
    started = time.perf_counter()
    scale = "S" if args.quick else args.scale.upper()
    if args.quick and not (args.reuse and manifest_path("S").exists()):
        from benchmarks.datasets import generate

        generate("S", fleet=5000)
    elif not manifest_path(scale).exists():
        print(
            f"telemetry bench run: no dataset for scale {scale}; run "
            f"`telemetry bench generate --scale {scale}` first",
            file=sys.stderr,
        )
        return 2
    out_dir = RESULTS_DIR / (timestamp() + ("-quick" if args.quick else f"-{scale.lower()}"))
    out_dir.mkdir(parents=True, exist_ok=True)
    outcomes = run_suite(scale, args.quick, only, out_dir)
    report = write_report(
        out_dir,
        load_manifest(scale),
        outcomes,
        args.quick,
        started_at,
        time.perf_counter() - started,
        only,
    )
    print(report.read_text())
    print(f"report: {report}")
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from benchmarks.report import latest_report, rerender

    if args.run_dir:
        run_dir = Path(args.run_dir)
        report = run_dir / "report.md"
    else:
        found = latest_report()
        if found is None:
            print(
                "telemetry bench report: no run yet; `telemetry bench run` first", file=sys.stderr
            )
            return 2
        report, run_dir = found, found.parent
    if args.rerender:
        report = rerender(run_dir)
    print(report.read_text())
    print(f"report: {report}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="telemetry bench",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", required=True)

    generate = commands.add_parser("generate", help="generate and load a dataset")
    generate.add_argument(
        "--scale",
        type=str.upper,
        choices=["XS", "S", "M", "L"],
        default="S",
        help="dataset size: S 50 devices x 30 days, M 500 x 1 year, L larger (default S)",
    )
    generate.add_argument(
        "--fleet",
        type=int,
        default=0,
        help="also load a directory of this many devices, e.g. 100000 (default 0: none)",
    )
    generate.add_argument(
        "--fleet-only",
        action="store_true",
        help="add the fleet to an existing dataset of the scale (default: off)",
    )
    generate.add_argument(
        "--seed", type=int, default=7, help="seed of the generated values (default 7)"
    )
    generate.set_defaults(handler=cmd_generate)

    run = commands.add_parser("run", help="run the benchmarks and write a report")
    run.add_argument("--scale", default="M", help="dataset scale (default M)")
    run.add_argument(
        "--quick",
        action="store_true",
        help="smoke run on scale S (< 3 minutes), generating it when missing (default: off)",
    )
    run.add_argument(
        "--reuse",
        action="store_true",
        help="with --quick: reuse scale S when present instead of regenerating (default: off)",
    )
    run.add_argument(
        "--only",
        help="comma-separated classes: floors, load, storage, auth, "
        "latest, history, export, directory, validate, ingest, network (default: all)",
    )
    run.set_defaults(handler=cmd_run)

    report = commands.add_parser("report", help="print the newest (or a given) report")
    report.add_argument(
        "run_dir", nargs="?", help="a directory of benchmarks/results (default: the newest)"
    )
    report.add_argument(
        "--rerender",
        action="store_true",
        help="rewrite report.md and plots from results.json (default: off)",
    )
    report.set_defaults(handler=cmd_report)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(sys.argv[1:] if argv is None else argv)
    return int(args.handler(args))


if __name__ == "__main__":
    raise SystemExit(main())
