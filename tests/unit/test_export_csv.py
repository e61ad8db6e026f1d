"""The CSV line ends of the export: LF rows from PostgreSQL become CRLF (RFC 4180), a line
feed inside a quoted value stays, however the stream is cut into chunks."""

from __future__ import annotations

import csv
import io

from app.export.service import neutralise
from app.export.writers import CrlfLines

ROWS = [["2026-01-01T00:00:00Z", "21.5", 'a "quoted",\nvalue'], ["t", "", "'=1"], ["x", "-3", ""]]


def postgres_csv(rows: list[list[str]]) -> bytes:
    text = io.StringIO()
    csv.writer(text, lineterminator="\n").writerows(rows)
    return text.getvalue().encode()


def test_every_cut_gives_the_same_crlf_file() -> None:
    data = postgres_csv(ROWS)
    want = data.replace(b"\n", b"\r\n").replace(b",\r\nvalue", b",\nvalue")
    for cut in range(len(data) + 1):
        lines = CrlfLines()
        got = lines.convert(data[:cut]) + lines.convert(data[cut:])
        assert got == want, cut
    parsed = list(csv.reader(io.StringIO(want.decode(), newline="")))
    assert parsed == ROWS


def test_neutralise_guards_formula_starts_only() -> None:
    assert [neutralise(s) for s in ["=A1", "+1", "-x", "@f", "\tt", "ok", "", "'"]] == [
        "'=A1",
        "'+1",
        "'-x",
        "'@f",
        "'\tt",
        "ok",
        "",
        "'",
    ]
