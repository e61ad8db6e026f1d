"""Where an attempt may go (integrations.md 1.3): only `https`, and only public addresses,
checked on the resolved address at every attempt. The attempt then connects to exactly
the address that was checked (the URL's host is kept for Host and TLS), so a DNS answer
that changes between the check and the connection cannot redirect it.
`TELEMETRY_WEBHOOKS_ALLOW_PRIVATE=1` lifts both rules, for development and tests.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from urllib.parse import urlsplit

# Cloud metadata services outside the private and link-local ranges.
METADATA = frozenset(
    {ipaddress.ip_address("100.100.100.200"), ipaddress.ip_address("fd00:ec2::254")}
)


class Refused(Exception):
    """An attempt that the rules forbid; its message is the error class of the log."""


def check_url(url: str, allow_private: bool) -> None:
    """The rules that do not need DNS, for creating an endpoint."""
    parts = urlsplit(url)
    if parts.scheme not in ("https", "http") or not parts.hostname:
        raise Refused("invalid_url")
    if parts.scheme != "https" and not allow_private:
        raise Refused("refused_scheme")
    if parts.username or parts.password:
        raise Refused("invalid_url")


def public(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast and ip not in METADATA


async def resolve(url: str, allow_private: bool) -> str:
    """The address to connect to for `url`, once every address its host resolves to has
    passed the rules; Refused otherwise."""
    check_url(url, allow_private)
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        literal = ipaddress.ip_address(host)
    except ValueError:
        literal = None
    if literal is not None:  # nothing to resolve
        if not allow_private and not public(host):
            raise Refused("refused_address")
        return host
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError:
        raise Refused("dns_error") from None
    addresses = [str(info[4][0]) for info in infos]
    if not addresses:
        raise Refused("dns_error")
    if not allow_private and not all(public(a) for a in addresses):
        raise Refused("refused_address")
    return addresses[0]


def pinned_url(url: str, address: str) -> str:
    """`url` with its host replaced by the checked address."""
    parts = urlsplit(url)
    host = f"[{address}]" if ":" in address else address
    netloc = host if parts.port is None else f"{host}:{parts.port}"
    return parts._replace(netloc=netloc).geturl()


def host_header(url: str) -> str:
    parts = urlsplit(url)
    return parts.netloc.rsplit("@", 1)[-1]
