"""The benchmark report's table and plots (issue 12): cells that hold `|`, p50/p99 columns,
quick-mode targets that do not fit the dataset, plots that cover every timed measure and
the storage per reading by part (issue 17)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchmarks.common import measure
from benchmarks.report import (
    PLOTS,
    plot_latency,
    plot_speedups,
    plot_storage,
    plot_throughput,
    table,
    unfit_targets,
)

DATASET = {"start": "2026-10-24T20:00:00Z", "end": "2026-11-23T20:00:00Z"}


def timed(name: str, ms: float, group: str, **extra: Any) -> Any:
    """A latency measure (ms, lower is better)."""
    return measure(name, ms, "ms", group=group, higher_is_better=False, **extra)


def bounded(name: str, ms: float, group: str, bound: float, **details: float) -> Any:
    """A latency measure with a `<= bound` target and its percentiles as `details`."""
    return timed(name, ms, group, max_value=bound, details=details)


def history(query: str, p50: float, p99: float, days: int, **extra: Any) -> Any:
    """A history query's SQL p50 over `days` days, against the naive time_bucket floor."""
    return timed(
        f"{query} p50 (SQL)",
        p50,
        "history",
        floor_name="naive time_bucket over raw",
        details={"route_sql": {"p50_ms": p50, "p99_ms": p99}, "range_days": days},
        **extra,
    )


def _measures() -> list[Any]:
    return [
        bounded("validate |unknown - wrong| p50", 0.2, "validate", 5, p50_ms=0.2, p99_ms=0.9),
        history("daily avg 1y", 4.0, 9.0, 365, floor=400.0, min_ratio=50),
        history("hourly avg 1d", 1.0, 2.0, 1, floor=10.0, min_ratio=5),
        bounded(
            "GET /devices partner key p50 (SQL)", 2.0, "directory", 5.0, p95_ms=3.0, p99_ms=4.0
        ),
        measure(
            "GET /latest 304 @64 conns",
            9000.0,
            "req/s",
            group="latest",
            details={"p50_ms": 3.0, "p99_ms": 12.0, "connections": 64, "route": "/latest 304"},
        ),
        measure(
            "storage: bytes per reading, everything included",
            13.5,
            "bytes/reading",
            group="storage",
            max_value=15,
        ),
        *(
            measure(
                f"storage: {part} per reading",
                value,
                "bytes/reading",
                group="storage",
                details={"part": part, "bytes": int(value * 1000)},
            )
            for part, value in (
                ("raw readings", 2.0),
                ("packed weeks", 7.5),
                ("daily rollups", 1.0),
                ("indexes", 3.0),
            )
        ),
    ]


def test_table_escapes_pipes_and_shows_percentiles() -> None:
    rows = table(_measures()).splitlines()
    header_cells = rows[0].count(" | ")
    for row in rows[2:]:
        # Every row has as many cells as the header: no `|` in a name split a cell.
        assert row.replace("\\|", "").count(" | ") == header_cells, row
    assert "validate \\|unknown - wrong\\| p50" in rows[2]
    assert "| 4.00 ms | 9.00 ms |" in rows[3]
    assert "| 2.00 ms | 4.00 ms |" in rows[5]


def test_quick_mode_drops_only_targets_the_dataset_cannot_show() -> None:
    measures = _measures()
    measures[1].met = False
    dropped = unfit_targets(measures, quick=True, dataset=DATASET)
    assert dropped == ["daily avg 1y p50 (SQL)"]
    assert measures[1].met is None and "not applied" in (measures[1].target or "")
    assert measures[2].met is True and "not applied" not in (measures[2].target or "")
    again = _measures()
    assert unfit_targets(again, quick=False, dataset=DATASET) == []


def test_plots_cover_history_and_directory(tmp_path: Path) -> None:
    measures = _measures()
    assert plot_latency(measures, tmp_path / "latency.png")
    assert plot_speedups(measures, tmp_path / "speedups.png")
    assert plot_throughput(measures, tmp_path / "throughput.png")
    assert plot_storage(measures, tmp_path / "storage.png")
    for name in ("latency.png", "speedups.png", "throughput.png", "storage.png"):
        assert (tmp_path / name).stat().st_size > 5000
    # Every plot is written by write_report and rerender, and none without its measures.
    assert [name for name, _ in PLOTS] == [
        "latency.png",
        "speedups.png",
        "throughput.png",
        "storage.png",
    ]
    assert not plot_storage(measures[:5], tmp_path / "none.png")
