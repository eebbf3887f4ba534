"""Where a webhook may post: an http(s) URL whose host resolves to public addresses only.

Checked when the URL is registered and again before every POST (DNS may have changed);
the POST then goes to an address this check resolved, so a name that resolves differently
between the check and the connection (DNS rebinding) reaches nothing else. Loopback,
private, link-local and other non-global addresses pass only when the server's settings
allow them (WEBHOOK_ALLOW_PRIVATE_ADDRESSES, for tests and a bot on the LAN).
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

import httpx

from app.core.problems import Unprocessable

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass(frozen=True)
class Target:
    """A checked URL, its host (ASCII) and port, and the addresses the host resolved to,
    in the resolver's order."""

    url: httpx.URL
    host: str
    port: int
    addresses: tuple[str, ...]


def resolve(host: str, port: int) -> list[str]:
    """The host's addresses (IPv4 and IPv6), as the system resolver gives them."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]).split("%")[0] for info in infos))


def parse_url(url: str) -> tuple[httpx.URL, str, int]:
    """An http(s) URL, its host and its port, or 422 saying what is wrong with it."""
    if any(ch.isspace() or ord(ch) < 0x20 or ord(ch) == 0x7F for ch in url):
        raise Unprocessable("url: a URL holds no spaces or control characters")
    try:
        parsed = httpx.URL(url)
        authority = urlsplit(url).netloc
    except (httpx.InvalidURL, ValueError) as exc:
        raise Unprocessable(f"url: not a valid URL ({exc})") from None
    scheme = parsed.scheme
    if scheme not in DEFAULT_PORTS:
        named = f"{scheme}:" if scheme else "a URL without a scheme"
        raise Unprocessable(
            f"url: only http and https URLs are posted to, not {named} (write https://host/path)"
        )
    if "@" in authority:
        raise Unprocessable(
            "url: a user name or password in the URL is not allowed; the signature "
            "(webhook-signature) authenticates each delivery"
        )
    host = parsed.raw_host.decode("ascii")
    if not host:
        raise Unprocessable("url: the URL names no host (write https://host/path)")
    port = parsed.port if parsed.port is not None else DEFAULT_PORTS[scheme]
    if not 1 <= port <= 65535:
        raise Unprocessable(f"url: port {port} is not a TCP port (1 to 65535)")
    return parsed, host, port


def refused_because(address: IPAddress) -> str | None:
    """Why an address is not a public one, or None when it is."""
    candidates: list[IPAddress] = [address]
    if isinstance(address, ipaddress.IPv6Address):
        # An IPv6 form of an IPv4 address (::ffff:a.b.c.d, 6to4) reaches that address: it
        # is judged as that address first.
        embedded = [v4 for v4 in (address.ipv4_mapped, address.sixtofour) if v4 is not None]
        candidates = [*embedded, address]
    for candidate in candidates:
        for reason, refused in (
            ("the unspecified address", candidate.is_unspecified),
            ("a loopback address", candidate.is_loopback),
            ("a link-local address", candidate.is_link_local),
            ("a multicast address", candidate.is_multicast),
            ("a private address", candidate.is_private),
            ("a reserved address", candidate.is_reserved),
            ("not a public address", not candidate.is_global),
        ):
            if refused:
                return reason
    return None


def check_url(url: str, *, allow_private: bool) -> Target:
    """The URL checked and its host resolved, or 422 saying what to change."""
    parsed, host, port = parse_url(url)
    try:
        addresses = resolve(host, port)
    except (OSError, UnicodeError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise Unprocessable(f"url: the host {host} does not resolve ({reason})") from None
    if not addresses:
        raise Unprocessable(f"url: the host {host} resolves to no address")
    if not allow_private:
        for text in addresses:
            refused = refused_because(ipaddress.ip_address(text))
            if refused is not None:
                raise Unprocessable(
                    f"url: {host} resolves to {text}, {refused}; webhooks post to public "
                    "addresses only (a server allows the others with "
                    "WEBHOOK_ALLOW_PRIVATE_ADDRESSES=true)"
                )
    return Target(parsed, host, port, tuple(addresses))
