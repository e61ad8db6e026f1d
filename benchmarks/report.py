"""The report of a run: results.json, report.md and PNG plots in one directory."""

from __future__ import annotations

import math
import os
import platform
import re
import subprocess
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

import msgspec

from benchmarks.common import RESULTS_DIR, Manifest, Measure
from benchmarks.suite import Outcome
from testkit.databases import connect


def machine() -> dict[str, Any]:
    info: dict[str, Any] = {
        "cores": os.cpu_count(),
        "platform": platform.platform(),
        "load_average": list(os.getloadavg()),
    }
    try:
        meminfo = Path("/proc/meminfo").read_text()
        kb = int(re.search(r"MemTotal:\s+(\d+)", meminfo).group(1))  # type: ignore[union-attr]
        info["memory_gib"] = round(kb / 1024 / 1024, 1)
        cpuinfo = Path("/proc/cpuinfo").read_text()
        model = re.search(r"model name\s*:\s*(.+)", cpuinfo)
        info["cpu"] = model.group(1).strip() if model else platform.processor()
    except (OSError, AttributeError):
        pass
    return info


async def _database_versions(url: str) -> dict[str, str]:
    connection = await connect(url)
    try:
        return {
            "postgres": await connection.fetchval("SHOW server_version"),
            "timescaledb": await connection.fetchval(
                "SELECT extversion FROM pg_extension WHERE extname = 'timescaledb'"
            ),
        }
    finally:
        await connection.close()


def versions(database_url: str) -> dict[str, str]:
    import uvloop

    out = {"python": platform.python_version()}
    for package in ("litestar", "granian", "asyncpg", "msgspec", "polars", "uvloop"):
        try:
            out[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            out[package] = "missing"
    try:
        out.update(uvloop.run(_database_versions(database_url)))
    except Exception as exc:
        out["postgres"] = f"unknown ({type(exc).__name__})"
    try:
        wrk = subprocess.run(["wrk", "-v"], capture_output=True, text=True, check=False)
        out["wrk"] = (wrk.stdout or wrk.stderr).split()[1]
    except (OSError, IndexError):
        out["wrk"] = "missing"
    return out


def dataset(manifest: Manifest) -> dict[str, Any]:
    summary = msgspec.to_builtins(manifest)
    summary["devices"] = len(manifest.devices)
    summary["keys"] = len(manifest.keys)
    summary.pop("tokens", None)
    if manifest.fleet is not None:
        summary["fleet"] = {
            "device_count": manifest.fleet.device_count,
            "sub_accounts": len(manifest.fleet.sub_account_ids),
        }
    return summary


# --------------------------------------------------------------------------- markdown


def _number(value: float | None, unit: str = "") -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if abs(value) >= 100:
        text = f"{value:,.0f}"
    elif abs(value) >= 1:
        text = f"{value:,.2f}"
    else:
        text = f"{value:.3f}"
    return f"{text} {unit}".strip()


def _cell(text: str) -> str:
    """Text safe inside a Markdown table cell (a `|` would end the cell)."""
    return text.replace("|", "\\|")


def percentiles(m: Measure) -> tuple[float | None, float | None]:
    """p50 and p99 in ms of a measure: from its details, or from the timed SQL's."""
    for source in (m.details, m.details.get("route_sql")):
        if isinstance(source, dict):
            p50, p99 = source.get("p50_ms"), source.get("p99_ms")
            if isinstance(p99, int | float):
                if not isinstance(p50, int | float) and m.unit == "ms" and "p50" in m.name:
                    p50 = m.value
                if isinstance(p50, int | float):
                    return float(p50), float(p99)
    return None, None


def table(measures: list[Measure]) -> str:
    lines = [
        "| measure | value | p50 | p99 | floor or baseline | ratio | target | met? |",
        "|---|---:|---:|---:|---|---:|---|:---:|",
    ]
    for m in measures:
        floor = ""
        if m.floor is not None:
            floor = f"{_number(m.floor)} ({m.floor_name or 'floor'})"
        ratio = "" if m.ratio is None else f"{m.ratio:,.2f}x"
        met = {None: "", True: "yes", False: "**NO**"}[m.met]
        p50, p99 = percentiles(m)
        cells = [
            m.name,
            _number(m.value, m.unit),
            _number(p50, "ms"),
            _number(p99, "ms"),
            floor,
            ratio,
            m.target or "",
            met,
        ]
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return "\n".join(lines)


def span_days(dataset: dict[str, Any]) -> float | None:
    try:
        start = datetime.fromisoformat(str(dataset["start"]).replace("Z", "+00:00"))
        end = datetime.fromisoformat(str(dataset["end"]).replace("Z", "+00:00"))
    except (KeyError, ValueError):
        return None
    return (end - start).total_seconds() / 86400


def unfit_targets(measures: list[Measure], quick: bool, dataset: dict[str, Any]) -> list[str]:
    """In a quick run, drops the targets written for scale M that the dataset cannot show:
    history over a range longer than the data, and the bulk load rate (small loads are
    dominated by fixed costs). Returns the names of the measures concerned."""
    if not quick:
        return []
    days = span_days(dataset)
    dropped = []
    for m in measures:
        if m.target is None:
            continue
        range_days = m.details.get("range_days")
        too_long = isinstance(range_days, int | float) and days is not None and range_days > days
        if too_long or m.group == "load":
            m.target = f"{m.target} (scale M; not applied)"
            m.met = None
            dropped.append(m.name)
    return dropped


def slowest(measures: list[Measure]) -> Measure | None:
    """The measure furthest below its target (lowest ratio to the floor when none missed)."""
    missed = [m for m in measures if m.met is False]
    pool = missed or [m for m in measures if m.ratio is not None and m.group != "floors"]
    if not pool:
        return None
    return min(pool, key=lambda m: m.ratio if m.ratio is not None else math.inf)


def markdown(results: dict[str, Any], outcomes: list[Outcome], measures: list[Measure]) -> str:
    m = results["machine"]
    v = results["versions"]
    d = results["dataset"]
    lines = [
        f"# Benchmark report {results['started']}",
        "",
        f"Run: {'quick (smoke, scale S)' if results['quick'] else 'full'}"
        + (f" (only {', '.join(results['only'])})" if results.get("only") else "")
        + ", "
        f"{results['seconds']:.0f} s. Machine: {m.get('cores')} cores, "
        f"{m.get('memory_gib', '?')} GiB, {m.get('cpu', '')}; load average at the end "
        f"{', '.join(f'{x:.2f}' for x in m.get('load_average', []))}.",
        f"Versions: Python {v.get('python')}, PostgreSQL {v.get('postgres')}, TimescaleDB "
        f"{v.get('timescaledb')}, Litestar {v.get('litestar')}, granian {v.get('granian')}, "
        f"asyncpg {v.get('asyncpg')}, msgspec {v.get('msgspec')}, wrk {v.get('wrk')}.",
        f"Dataset: scale {d.get('scale')} in `{d.get('database')}`: {d.get('devices')} devices, "
        f"{d.get('readings_num', 0) + d.get('readings_other', 0):,} readings, "
        f"{d.get('start')} to {d.get('end')}"
        + (f"; fleet of {d['fleet']['device_count']:,} devices" if d.get("fleet") else "")
        + ".",
        "",
        "Ratio: value / floor for throughput, baseline / value for latency (a speed-up). "
        "HTTP floor: the same granian/Litestar configuration serving a constant body "
        "(benchmarks/floor_app.py), measured in this run.",
        "",
    ]
    dropped = results.get("targets_not_applied") or []
    if dropped:
        lines += [
            f"Quick mode: {len(dropped)} targets are written for scale M (a year of data, "
            "500 devices) and do not fit this dataset: history ranges longer than its "
            f"{span_days(d) or 0:.0f} days, and the bulk load rate. They show as "
            "'not applied' and count neither as met nor missed.",
            "",
        ]
    lines += [
        "Rows marked (SQL) time the route's SQL statement directly through asyncpg, "
        "without HTTP; the others go through the served API. p50/p99: latency percentiles "
        "of the timed calls.",
        "",
        table(measures),
        "",
    ]
    worst = slowest(measures)
    if worst is not None:
        lines += [
            f"Slowest against its target or floor: **{worst.name}** "
            f"({_number(worst.value, worst.unit)}"
            + (f", {worst.ratio:.2f}x {worst.floor_name or 'floor'}" if worst.ratio else "")
            + ").",
            "",
        ]
    problems = [o for o in outcomes if o.error or o.skipped]
    if problems:
        lines.append("Classes not measured:")
        for o in problems:
            lines.append(f"- {o.group}: {o.error or o.skipped}")
        lines.append("")
    lines.append("Time per class: " + ", ".join(f"{o.group} {o.seconds:.0f} s" for o in outcomes))
    plots = results.get("plots", [])
    if plots:
        lines += ["", "Plots: " + ", ".join(f"[{p}]({p})" for p in plots)]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- plots


def _short(name: str, width: int = 38) -> str:
    return name if len(name) <= width else name[: width - 1] + "…"


def plot_latency(measures: list[Measure], path: Path) -> bool:
    """p50 and p99 of every measure that has both: HTTP routes, history and directory
    queries (their timed SQL) and the floors."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    found = [(m, *percentiles(m)) for m in measures]
    picked = [(m, p50, p99) for m, p50, p99 in found if p50 is not None and p99 is not None]
    if not picked:
        return False
    fig, ax = plt.subplots(figsize=(11, 0.3 * len(picked) + 1.5))
    y = range(len(picked))
    ax.barh([i + 0.2 for i in y], [r[2] for r in picked], 0.4, label="p99")
    ax.barh([i - 0.2 for i in y], [r[1] for r in picked], 0.4, label="p50")
    rows_measures = [r[0] for r in picked]
    ax.set_yticks(list(y), [_short(m.name, 60) for m in rows_measures], fontsize=7)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel("latency (ms, log scale)")
    ax.set_title("Latency percentiles per route and query")
    ax.legend()
    return _save_bars(fig, ax, path)


def plot_speedups(measures: list[Measure], path: Path) -> bool:
    """Rollup (or project SQL) vs naive raw time_bucket: the speed-up per query class."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [
        m
        for m in measures
        if m.ratio is not None and m.floor_name and "raw" in m.floor_name.lower()
    ]
    if not rows:
        return False
    fig, ax = plt.subplots(figsize=(10, 0.4 * len(rows) + 1.5))
    y = list(range(len(rows)))
    colors = [{True: "tab:green", False: "tab:red", None: "tab:gray"}[m.met] for m in rows]
    ax.barh(y, [m.ratio or 0 for m in rows], color=colors)
    ax.set_yticks(y, [_short(m.name, 55) for m in rows], fontsize=7)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel("speed-up over raw time_bucket (x, log scale)")
    ax.set_title("Speed-up over the naive query (green: target met, red: missed, grey: none)")
    targets = [_target_ratio(m) for m in rows]
    for i, target in enumerate(targets):
        if target is not None:
            ax.plot([target, target], [i - 0.45, i + 0.45], color="black", linewidth=1.5)
    if any(t is not None for t in targets):
        ax.plot([], [], color="black", linewidth=1.5, label="target")
        ax.legend(fontsize=7, loc="lower right")
    for i, m in enumerate(rows):
        ratio = m.ratio or 0.0
        ax.text(
            ratio,
            i,
            f" {ratio:,.0f}x" if ratio >= 10 else f" {ratio:.1f}x",
            va="center",
            fontsize=7,
        )
    return _save_bars(fig, ax, path)


def _save_bars(fig: Any, ax: Any, path: Path) -> bool:
    """Grids the value axis of a bar chart, writes it to `path` and frees the figure."""
    import matplotlib.pyplot as plt

    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def _target_ratio(m: Measure) -> float | None:
    """The ratio a measure's target asks for (`>= 50x ...`), if it has one that applies."""
    return _target_bound(m, r">= ([\d.]+)x")


def _route_of(m: Measure) -> str:
    route = m.details.get("route")
    if isinstance(route, str):
        return route
    return re.sub(r"\s*@\s*\d+\s*conns?", "", m.name)


def plot_throughput(measures: list[Measure], path: Path) -> bool:
    """req/s against connections, one line per route, the HTTP floor among them."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    series: dict[str, list[tuple[int, float]]] = {}
    for m in measures:
        connections = m.details.get("connections")
        if m.unit in ("req/s", "uplinks/s", "calls/s") and isinstance(connections, int):
            series.setdefault(f"{_route_of(m)} ({m.unit})", []).append((connections, m.value))
    if not series:
        return False
    fig, ax = plt.subplots(figsize=(13, 6))
    for label, points in sorted(series.items()):
        points.sort()
        style = "--" if "floor" in label.lower() else "-"
        ax.plot(
            [p[0] for p in points],
            [p[1] for p in points],
            style,
            marker="o",
            label=_short(label, 60),
        )
    ax.set_xscale("log", base=2)
    ax.set_xlabel("concurrent connections")
    ax.set_ylabel("requests (calls, uplinks) per second")
    ax.set_title("Throughput vs connections")
    ax.grid(alpha=0.3)
    # Outside the axes, so that no label is cut and no line is hidden.
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    fig.tight_layout()
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return True


def plot_storage(measures: list[Measure], path: Path) -> bool:
    """Bytes on disk per reading by part (raw readings, packed weeks, daily rollups,
    indexes): one bar each, and their stack beside the target."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    parts = [m for m in measures if m.group == "storage" and "part" in m.details]
    if not parts:
        return False
    total = sum(m.value for m in parts)
    targets = [
        _target_value(m) for m in measures if m.group == "storage" and "part" not in m.details
    ]
    target = next((t for t in targets if t is not None), None)
    fig, ax = plt.subplots(figsize=(10, 0.5 * len(parts) + 2))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    left = 0.0
    for i, m in enumerate(parts):
        color = colors[i % len(colors)]
        ax.barh(0, m.value, left=left, color=color, label=m.details["part"])
        ax.barh(i + 1, m.value, color=color)
        ax.text(m.value, i + 1, f" {m.value:,.2f}", va="center", fontsize=8)
        left += m.value
    ax.text(total, 0, f" {total:,.2f}", va="center", fontsize=8)
    if target is not None:
        ax.axvline(target, color="black", linewidth=1.5, label=f"target {target:g}")
    ax.set_yticks(range(len(parts) + 1), ["everything", *(m.details["part"] for m in parts)])
    ax.invert_yaxis()
    ax.set_xlabel("bytes on disk per reading")
    ax.set_title("Storage per reading by part (tables with TOAST; indexes of all of them)")
    ax.legend(fontsize=7, loc="lower right")
    return _save_bars(fig, ax, path)


def _target_value(m: Measure) -> float | None:
    """The bound of a `<= N unit` target that applies, if any."""
    return _target_bound(m, r"<= ([\d.]+)")


def _target_bound(m: Measure, pattern: str) -> float | None:
    """The number `pattern` finds in a measure's target, if it has one that applies."""
    if m.target is None or "not applied" in m.target:
        return None
    match = re.search(pattern, m.target)
    return float(match.group(1)) if match else None


# Every plot of a report, by file name.
PLOTS = (
    ("latency.png", plot_latency),
    ("speedups.png", plot_speedups),
    ("throughput.png", plot_throughput),
    ("storage.png", plot_storage),
)


# --------------------------------------------------------------------------- writing


def write_report(
    out_dir: Path,
    manifest: Manifest,
    outcomes: list[Outcome],
    quick: bool,
    started: datetime,
    seconds: float,
    only: list[str] | None = None,
) -> Path:
    measures = [m for o in outcomes for m in o.measures]
    summary = dataset(manifest)
    dropped = unfit_targets(measures, quick, summary)
    plots = []
    for name, plot in PLOTS:
        try:
            if plot(measures, out_dir / name):
                plots.append(name)
        except Exception as exc:  # a plot must never lose the figures
            print(f"plot {name} failed: {exc}")
    results = {
        "started": started.isoformat().replace("+00:00", "Z"),
        "finished": datetime.now(UTC).isoformat().replace("+00:00", "Z"),
        "seconds": seconds,
        "quick": quick,
        "only": only,
        "machine": machine(),
        "versions": versions(manifest.database_url),
        "dataset": summary,
        "targets_not_applied": dropped,
        "classes": [
            {
                "group": o.group,
                "seconds": o.seconds,
                "measures": len(o.measures),
                "error": o.error,
                "skipped": o.skipped,
            }
            for o in outcomes
        ],
        "measures": msgspec.to_builtins(measures),
        "plots": plots,
    }
    worst = slowest(measures)
    results["slowest"] = worst.name if worst else None
    (out_dir / "results.json").write_bytes(msgspec.json.format(msgspec.json.encode(results)))
    (out_dir / "report.md").write_text(markdown(results, outcomes, measures))
    return out_dir / "report.md"


def latest_report() -> Path | None:
    runs = sorted(p for p in RESULTS_DIR.glob("*/report.md") if p.parent.name != "scratch")
    return runs[-1] if runs else None


def rerender(out_dir: Path) -> Path:
    """Rewrites report.md and the plots of a finished run from its results.json."""
    results = msgspec.json.decode((out_dir / "results.json").read_bytes())
    measures = msgspec.convert(results["measures"], list[Measure])
    outcomes = [
        Outcome(
            c["group"],
            c["seconds"],
            [m for m in measures if m.group == c["group"]],
            c.get("error"),
            c.get("skipped"),
        )
        for c in results["classes"]
    ]
    # Plots added since the run was written appear in its report too.
    results["plots"] = [name for name, plot in PLOTS if plot(measures, out_dir / name)]
    (out_dir / "report.md").write_text(markdown(results, outcomes, measures))
    return out_dir / "report.md"
