"""History, query and export answers as Arrow tables and polars data frames.

pyarrow and polars are the `frames` extra (`pip install './clients/python[frames]'`); they
are imported when a frame is asked for, so the rest of the client works without them.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import polars
    import pyarrow


def _pyarrow() -> Any:
    try:
        import pyarrow
    except ImportError:  # pragma: no cover (the frames extra is missing)
        raise ImportError(
            "to_arrow() needs pyarrow: pip install 'telemetry-service-client[frames]'"
        ) from None
    return pyarrow


def _polars() -> Any:
    try:
        import polars
    except ImportError:  # pragma: no cover
        raise ImportError(
            "to_polars() needs polars: pip install 'telemetry-service-client[frames]'"
        ) from None
    return polars


def points_table(rows: Iterable[Mapping[str, Any]], columns: list[str]) -> pyarrow.Table:
    """A table of the given columns from point-like rows; `time` as UTC timestamps and a
    column no row has left out (so `siteId` appears only for raw points, as in the JSON)."""
    pa = _pyarrow()
    listed = list(rows)
    arrays: dict[str, Any] = {}
    for name in columns:
        if listed and not any(name in row for row in listed):
            continue
        values = [row.get(name) for row in listed]
        if name == "time":
            arrays[name] = pa.array(values, pa.string()).cast(pa.timestamp("us", tz="UTC"))
        elif name == "value" and not any(v is not None for v in values):
            arrays[name] = pa.array(values, pa.float64())
        else:
            arrays[name] = pa.array(values)
    return pa.table(arrays)


class Frames:
    """to_polars() from to_arrow(): polars takes Arrow's buffers without a copy."""

    def to_arrow(self) -> pyarrow.Table:
        raise NotImplementedError

    def to_polars(self) -> polars.DataFrame:
        frame: polars.DataFrame = _polars().from_arrow(self.to_arrow())
        return frame


@dataclass
class HistoryResult(Frames):
    """`GET /devices/{id}/history`: `data` as answered; a frame of its points (time, value,
    and siteId / filled where the answer has them), newest first as the service orders."""

    data: dict[str, Any]

    @property
    def points(self) -> list[dict[str, Any]]:
        points: list[dict[str, Any]] = self.data.get("points", [])
        return points

    def to_arrow(self) -> pyarrow.Table:
        return points_table(self.points, ["time", "value", "siteId", "filled"])


def _series_key(series: Mapping[str, Any]) -> tuple[Any, Any, Any]:
    return series.get("deviceId"), series.get("field"), series.get("agg")


@dataclass
class QueryResult(Frames):
    """`POST /query` with every page followed: the series, their points joined across
    pages (a series continued on the next page is one series here), and a long frame:
    deviceId, devEui, field, agg (bucketed), time, value, siteId (raw), filled (with fill)."""

    data: dict[str, Any]
    series: list[dict[str, Any]] = field(default_factory=list)
    pages: int = 0

    def add_page(self, page: Mapping[str, Any]) -> None:
        data = dict(page["data"])
        page_series = data.pop("series", [])
        if self.pages == 0:
            self.data = data
        self.pages += 1
        for series in page_series:
            last = self.series[-1] if self.series else None
            if last is not None and _series_key(last) == _series_key(series):
                last["points"].extend(series.get("points", []))
            else:
                self.series.append({**series, "points": list(series.get("points", []))})

    def rows(self) -> list[dict[str, Any]]:
        found = []
        for series in self.series:
            head = {k: series.get(k) for k in ("deviceId", "devEui", "field", "agg")}
            for point in series["points"]:
                found.append({**head, **point})
        return found

    def to_arrow(self) -> pyarrow.Table:
        columns = ["deviceId", "devEui", "field", "agg", "time", "value", "siteId", "filled"]
        table = points_table(self.rows(), columns)
        if not self.series:
            return table
        if not any(series.get("agg") for series in self.series) and "agg" in table.column_names:
            table = table.drop(["agg"])
        return table


@dataclass
class ExportResult(Frames):
    """An export's file: its bytes (or where it was written) and its format; to_arrow()
    reads Parquet through pyarrow without copying the bytes (a buffer over them, or a
    memory map of the file), CSV and NDJSON with pyarrow's readers."""

    format: str
    content: bytes | None = None
    path: Path | None = None
    filename: str | None = None
    resumed: int = 0

    def buffer(self) -> pyarrow.Buffer:
        """The file as an Arrow buffer: over the bytes in memory (no copy), or a memory map."""
        pa = _pyarrow()
        if self.path is not None:
            return pa.memory_map(str(self.path), "r").read_buffer()
        assert self.content is not None
        return pa.py_buffer(self.content)

    def _source(self) -> Any:
        return _pyarrow().BufferReader(self.buffer())

    def to_arrow(self) -> pyarrow.Table:
        pa = _pyarrow()
        source = self._source()
        if self.format == "parquet":
            import pyarrow.parquet as pq

            table: pyarrow.Table = pq.read_table(source)
            return table
        if self.format == "csv":
            import pyarrow.csv as pcsv

            options = pcsv.ConvertOptions(column_types={"time": pa.timestamp("us", tz="UTC")})
            csv_table: pyarrow.Table = pcsv.read_csv(source, convert_options=options)
            return csv_table
        if self.format == "ndjson":
            import pyarrow.json as pjson

            json_table: pyarrow.Table = pjson.read_json(source)
            if "time" in json_table.column_names:
                index = json_table.column_names.index("time")
                times = json_table.column("time").cast(pa.timestamp("us", tz="UTC"))
                json_table = json_table.set_column(index, "time", times)
            return json_table
        raise ValueError(f"unknown export format {self.format!r}")

    def read_bytes(self) -> bytes:
        if self.content is not None:
            return self.content
        assert self.path is not None
        return self.path.read_bytes()

    def text(self) -> str:
        return io.TextIOWrapper(io.BytesIO(self.read_bytes()), encoding="utf-8").read()
