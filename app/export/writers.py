"""Streams an export: CSV and NDJSON by `COPY ... TO STDOUT`, Parquet from a cursor.

A producer task reads the database in one read-only transaction and hands chunks to the
response through a bounded queue, so memory holds a few chunks whatever the size, and a
client that reads slowly slows the query down (a client that stops reading for
`export_stall_s` ends it and frees the connection). A failure after the first byte is
raised out of the response body, which makes the server abort the connection: the client
sees a cut transfer, never a clean end of a short file. Parquet is written row group by
row group (`CHUNK_ROWS` rows each); its footer, written last, is what makes it readable.
"""

from __future__ import annotations

import asyncio
import csv
import io
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import asyncpg
import pyarrow as pa
import pyarrow.parquet as pq

from app.core.config import Settings
from app.core.errors import ApiError, ErrorCode
from app.export import wide
from app.export.buckets import bucket_rows, csv_lines, ndjson_lines, parquet_rows
from app.export.cells import neutralise
from app.export.query import build_sql, uses_names
from app.export.service import client_timeout, header, map_args, names
from app.export.structs import ExportPlan

CHUNK_ROWS = 65_536
CHUNK_BYTES = 256 * 1024
QUEUE_CHUNKS = 8
Put = Callable[[bytes], Awaitable[None]]


class ExportSlots:
    """At most `export_concurrency` exports stream at once in a worker, so that exports,
    which hold a pool connection for their whole length, leave connections to the API."""

    def __init__(self, settings: Settings) -> None:
        self.free = settings.export_concurrency

    def check(self) -> None:
        """Before the response starts: 503 with Retry-After when every slot is taken."""
        if self.free <= 0:
            raise ApiError(
                503,
                ErrorCode.UNAVAILABLE,
                "too many exports are streaming on this server; retry shortly",
                {"Retry-After": "5"},
            )


def export_slots(app_state: Any, settings: Settings) -> ExportSlots:
    slots: ExportSlots | None = getattr(app_state, "export_slots", None)
    if slots is None:
        slots = ExportSlots(settings)
        app_state.export_slots = slots
    return slots


async def stream_export(
    pool: asyncpg.Pool, settings: Settings, plan: ExportPlan, slots: ExportSlots
) -> AsyncIterator[bytes]:
    slots.free -= 1
    try:
        async for chunk in _stream(pool, settings, plan):
            yield chunk
    finally:
        slots.free += 1


async def _stream(pool: asyncpg.Pool, settings: Settings, plan: ExportPlan) -> AsyncIterator[bytes]:
    queue: asyncio.Queue[bytes] = asyncio.Queue(QUEUE_CHUNKS)

    async def put(chunk: bytes) -> None:
        await asyncio.wait_for(queue.put(chunk), settings.export_stall_s)

    # Buckets and maxPoints are computed by the service; the raw wide layout without a
    # time zone is read as stored (wide.applies excludes both); the rest is COPY's.
    if plan.resolution is not None or plan.chart.max_points is not None:
        produce = _buckets
    elif wide.applies(plan):
        produce = _wide
    else:
        produce = _parquet if plan.format == "parquet" else _copy
    task = asyncio.create_task(produce(pool, settings, plan, put))
    try:
        while True:
            if task.done():
                failure = task.exception()
                if failure is not None:
                    raise failure
                if queue.empty():
                    return
            getter = asyncio.ensure_future(queue.get())
            await asyncio.wait({getter, task}, return_when=asyncio.FIRST_COMPLETED)
            if getter.done():
                yield getter.result()
            else:
                getter.cancel()
    finally:
        if not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)


async def _begin(connection: asyncpg.Connection, settings: Settings, plan: ExportPlan) -> None:
    """The export's own statement timeout, ISO dates (the `time` column is their text),
    and its `tz` as the session zone (localTime)."""
    await connection.execute(
        f"SET LOCAL statement_timeout = {int(settings.export_timeout_ms)};"
        " SET LOCAL DateStyle = 'ISO, YMD'"
    )
    if plan.tz is not None:
        await connection.execute("SELECT set_config('TimeZone', $1, true)", plan.tz)


def has_rows(plan: ExportPlan) -> bool:
    """No devices, or no field with readings (only static ones): a header, no query."""
    return bool(plan.device_nums and plan.map_fields)


def _args(plan: ExportPlan) -> list[Any]:
    return map_args(plan) + ([names(plan)] if uses_names(plan) else [])


class CrlfLines:
    """PostgreSQL ends CSV rows with LF; RFC 4180 wants CRLF. A line feed inside a quoted
    value is data and stays as it is, so quotes are counted across chunks."""

    def __init__(self) -> None:
        self.quoted = False

    def convert(self, chunk: bytes) -> bytes:
        if not self.quoted and b'"' not in chunk:
            return chunk.replace(b"\n", b"\r\n")
        parts = chunk.split(b'"')
        for index in range(len(parts)):
            if not self.quoted ^ (index % 2 == 1):
                parts[index] = parts[index].replace(b"\n", b"\r\n")
        self.quoted ^= (len(parts) - 1) % 2 == 1
        return b'"'.join(parts)


def csv_header(plan: ExportPlan) -> bytes:
    text = io.StringIO()
    csv.writer(text, lineterminator="\r\n").writerow(
        [neutralise(name) for name in header(plan, "csv")]
    )
    return text.getvalue().encode()


async def _copy(pool: asyncpg.Pool, settings: Settings, plan: ExportPlan, put: Put) -> None:
    if plan.format == "csv":
        await put(csv_header(plan))
        crlf: CrlfLines | None = CrlfLines()
        # RFC 4180 CSV; an absent cell is empty, an empty string is "".
        options: dict[str, Any] = {"format": "csv"}
    else:
        crlf = None
        # One JSON text per row, as CSV with a quote and a delimiter that JSON text never
        # holds raw (control characters are escaped in JSON), so it is written verbatim.
        options = {"format": "csv", "quote": "\x01", "delimiter": "\x02"}
    pending: list[bytes] = []
    size = 0

    async def sink(data: bytes) -> None:
        nonlocal size
        pending.append(crlf.convert(data) if crlf is not None else data)
        size += len(data)
        if size >= CHUNK_BYTES:
            chunk = b"".join(pending)
            pending.clear()
            size = 0
            await put(chunk)

    if not has_rows(plan):
        return
    async with (
        pool.acquire(timeout=settings.export_stall_s) as connection,
        connection.transaction(readonly=True),
    ):
        await _begin(connection, settings, plan)
        await connection.copy_from_query(
            build_sql(plan),
            *_args(plan),
            output=sink,
            timeout=client_timeout(settings.export_timeout_ms),
            **options,
        )
    if pending:
        await put(b"".join(pending))


class _Sink:
    """The file pyarrow writes to: it keeps what was written until it is drained."""

    closed = False

    def __init__(self) -> None:
        self.parts: list[bytes] = []
        self.position = 0

    def write(self, data: Any) -> int:
        chunk = bytes(data)
        self.parts.append(chunk)
        self.position += len(chunk)
        return len(chunk)

    def tell(self) -> int:
        return self.position

    def flush(self) -> None:
        pass

    def close(self) -> None:
        self.closed = True

    def drain(self) -> bytes:
        chunk = b"".join(self.parts)
        self.parts.clear()
        return chunk


def parquet_schema(plan: ExportPlan) -> pa.Schema:
    types: dict[str, pa.DataType] = {"time": pa.timestamp("us", tz="UTC")}
    kinds = {"number": pa.float64(), "boolean": pa.bool_(), "text": pa.string()}
    if plan.layout == "long":
        types.update(field=pa.string(), value=pa.float64(), valueText=pa.string())
    else:
        types.update({c.identifier: kinds[c.kind] for c in plan.columns})
    return pa.schema([(name, types.get(name, pa.string())) for name in header(plan, "parquet")])


def _table(rows: list[Any], schema: pa.Schema) -> pa.Table:
    columns = list(zip(*rows, strict=True)) if rows else [()] * len(schema)
    return pa.Table.from_arrays(
        [pa.array(values, type=f.type) for values, f in zip(columns, schema, strict=True)],
        schema=schema,
    )


async def _parquet(pool: asyncpg.Pool, settings: Settings, plan: ExportPlan, put: Put) -> None:
    schema = parquet_schema(plan)
    sink = _Sink()
    writer = pq.ParquetWriter(sink, schema)
    async with (
        pool.acquire(timeout=settings.export_stall_s) as connection,
        connection.transaction(readonly=True),
    ):
        await _begin(connection, settings, plan)
        timeout = client_timeout(settings.export_timeout_ms)
        cursor = (
            await connection.cursor(build_sql(plan), *_args(plan), timeout=timeout)
            if has_rows(plan)
            else None
        )
        while cursor is not None and (rows := await cursor.fetch(CHUNK_ROWS, timeout=timeout)):
            # Building and compressing a row group takes tens of milliseconds of CPU.
            table = await asyncio.to_thread(_table, rows, schema)
            await asyncio.to_thread(writer.write_table, table)
            await put(sink.drain())
    writer.close()
    await put(sink.drain())


async def _buckets(pool: asyncpg.Pool, settings: Settings, plan: ExportPlan, put: Put) -> None:
    """A bucketed export (app/export/buckets.py): rows formatted here, a batch of devices
    at a time, in the export's transaction and statement timeout."""
    schema = parquet_schema(plan) if plan.format == "parquet" else None
    sink = _Sink()
    writer = pq.ParquetWriter(sink, schema) if schema is not None else None
    if plan.format == "csv":
        await put(csv_header(plan))
    if has_rows(plan):
        async with (
            pool.acquire(timeout=settings.export_stall_s) as connection,
            connection.transaction(readonly=True),
        ):
            await _begin(connection, settings, plan)
            async for rows in bucket_rows(connection, plan):
                if writer is not None and schema is not None:
                    table = await asyncio.to_thread(_table, parquet_rows(plan, rows), schema)
                    await asyncio.to_thread(writer.write_table, table)
                    await put(sink.drain())
                elif rows:
                    await put(
                        csv_lines(plan, rows) if plan.format == "csv" else ndjson_lines(plan, rows)
                    )
    if writer is not None:
        writer.close()
        await put(sink.drain())


async def _wide(pool: asyncpg.Pool, settings: Settings, plan: ExportPlan, put: Put) -> None:
    """A raw wide export without a time zone (app/export/wide.py): read a unit of devices
    at a time as stored, its rows written here. The reads share one snapshot; Parquet rows
    are cut into row groups of `CHUNK_ROWS` rows, as the cursor of `_parquet` cuts them."""
    schema = parquet_schema(plan) if plan.format == "parquet" else None
    sink = _Sink()
    writer = pq.ParquetWriter(sink, schema) if schema is not None else None
    if plan.format == "csv":
        await put(csv_header(plan))
    keys = names(plan)
    held: list[pa.Table] = []
    rows = 0
    if has_rows(plan):
        async with (
            pool.acquire(timeout=settings.export_stall_s) as connection,
            connection.transaction(isolation="repeatable_read", readonly=True),
        ):
            await _begin(connection, settings, plan)
            timeout = client_timeout(settings.export_timeout_ms)
            async for readings in wide.unit_readings(connection, plan, timeout):
                if writer is None or schema is None:
                    chunk = await asyncio.to_thread(
                        wide.csv_chunk if plan.format == "csv" else wide.ndjson_chunk,
                        plan,
                        readings,
                        keys,
                    )
                    if chunk:
                        await put(chunk)
                    continue
                table = await asyncio.to_thread(wide.parquet_table, plan, readings, schema)
                if table is None:
                    continue
                held.append(table)
                rows += table.num_rows
                while rows >= CHUNK_ROWS:
                    whole = pa.concat_tables(held).combine_chunks()
                    await asyncio.to_thread(writer.write_table, whole.slice(0, CHUNK_ROWS))
                    await put(sink.drain())
                    held, rows = [whole.slice(CHUNK_ROWS)], rows - CHUNK_ROWS
    if writer is not None:
        if rows:
            await asyncio.to_thread(writer.write_table, pa.concat_tables(held).combine_chunks())
        writer.close()
        await put(sink.drain())
