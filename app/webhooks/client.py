"""The dispatcher's HTTP/1.1 client: one POST per attempt, on keep-alive connections to
the exact address that passed the address rules (safety.py), TLS verified against the
URL's host name.

Why not httpx: an attempt through httpx cost about 2 ms of CPU (measured with the local
204 receiver of benchmarks/bench_webhooks.py), which on a busy box let delivery fall far
behind ingest. A webhook attempt needs little of a general client: no redirects (a 3xx is
an answer like any other), no cookies, no compression, no proxies, only the status, two
headers and the first KiB of the body.
"""

from __future__ import annotations

import asyncio
import ssl
from collections import defaultdict

KEEP = 1024
MAX_DRAIN = 64 * 1024  # a longer answer is cut and its connection closed, not read out
MAX_HEAD = 16 * 1024
MAX_IDLE = 64

Key = tuple[str, int, bool, str]
Pair = tuple[asyncio.StreamReader, asyncio.StreamWriter]


class ProtocolError(Exception):
    """An answer that is not HTTP/1.x."""


class Response:
    __slots__ = ("body", "headers", "status")

    def __init__(self, status: int, headers: dict[str, str], body: bytes) -> None:
        self.status = status
        self.headers = headers
        self.body = body


class Client:
    def __init__(self) -> None:
        self.tls = ssl.create_default_context()
        self.idle: dict[Key, list[Pair]] = defaultdict(list)

    async def post(
        self,
        *,
        address: str,
        port: int,
        tls: bool,
        host: str,
        host_header: str,
        target: str,
        headers: dict[str, str],
        body: bytes,
    ) -> Response:
        key: Key = (address, port, tls, host)
        request = self._request(host_header, target, headers, body)
        while self.idle[key]:
            reader, writer = self.idle[key].pop()
            if writer.is_closing() or reader.at_eof():
                writer.close()
                continue
            try:
                return await self._exchange(key, reader, writer, request)
            except (ConnectionError, asyncio.IncompleteReadError):
                # The receiver closed an idle connection as we reused it: a fresh one.
                writer.close()
                break
        reader, writer = await asyncio.open_connection(
            address,
            port,
            ssl=self.tls if tls else None,
            server_hostname=host if tls else None,
        )
        try:
            return await self._exchange(key, reader, writer, request)
        except BaseException:
            writer.close()
            raise

    @staticmethod
    def _request(host_header: str, target: str, headers: dict[str, str], body: bytes) -> bytes:
        lines = [f"POST {target} HTTP/1.1", f"host: {host_header}", f"content-length: {len(body)}"]
        lines += [f"{name}: {value}" for name, value in headers.items()]
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body

    async def _exchange(
        self,
        key: Key,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        request: bytes,
    ) -> Response:
        writer.write(request)
        await writer.drain()
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except asyncio.LimitOverrunError:
            raise ProtocolError("answer head too long") from None
        if len(head) > MAX_HEAD:
            raise ProtocolError("answer head too long")
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        parts = status_line.split(" ", 2)
        if len(parts) < 2 or not parts[0].startswith("HTTP/1.") or not parts[1].isdigit():
            raise ProtocolError("not an HTTP/1.x answer")
        status = int(parts[1])
        headers: dict[str, str] = {}
        for line in header_lines:
            name, sep, value = line.partition(":")
            if sep:
                headers[name.strip().lower()] = value.strip()
        reusable = parts[0] == "HTTP/1.1" and headers.get("connection", "").lower() != "close"
        kept, complete = await self._body(reader, status, headers)
        if reusable and complete and len(self.idle[key]) < MAX_IDLE:
            self.idle[key].append((reader, writer))
        else:
            writer.close()
        return Response(status, headers, kept)

    @staticmethod
    async def _body(
        reader: asyncio.StreamReader, status: int, headers: dict[str, str]
    ) -> tuple[bytes, bool]:
        """(first KiB, whether the body was read to its end)."""
        if status in (204, 304) or 100 <= status < 200:
            return b"", True
        if "chunked" in headers.get("transfer-encoding", "").lower():
            kept = b""
            total = 0
            while total <= MAX_DRAIN:
                size_line = await reader.readuntil(b"\r\n")
                size = int(size_line.split(b";", 1)[0].strip() or b"0", 16)
                chunk = await reader.readexactly(size + 2)
                if size == 0:
                    return kept, True
                total += size
                if len(kept) < KEEP:
                    kept += chunk[:size][: KEEP - len(kept)]
            return kept, False
        length_text = headers.get("content-length")
        if length_text is not None and length_text.isdigit():
            length = int(length_text)
            if length <= MAX_DRAIN:
                data = await reader.readexactly(length)
                return data[:KEEP], True
            return await reader.read(KEEP), False
        return await reader.read(KEEP), False

    def close(self) -> None:
        for pairs in self.idle.values():
            for _, writer in pairs:
                writer.close()
        self.idle.clear()
