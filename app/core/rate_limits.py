"""Rate limits, counted with the `limits` package before any handler runs.

Four policies, each a setting: writes and expensive reads (verification, export) per API
key; registrations and failed authentications per client address. The counters live in
Redis when REDIS_URL is set, so every worker and server shares them, and in this process's
memory otherwise. A refused request gets 429 problem+json with `Retry-After`; a limited
one carries the `RateLimit-Policy` and `RateLimit` fields of the IETF draft
(draft-ietf-httpapi-ratelimit-headers).

Keying by API key happens here, before authentication, on a hash of the bearer token: an
unknown token is limited like any other, and is also counted as a failed authentication
against its address once the API answers 401. An address past the failed-authentication
limit gets 429 for every request carrying credentials until its window ends, so guessing
keys stops paying.
"""

from __future__ import annotations

import hashlib
import logging
import math
import time
from dataclasses import dataclass
from typing import Any

from limits import RateLimitItem, parse
from limits.aio.storage import MemoryStorage, RedisStorage, Storage
from limits.aio.strategies import SlidingWindowCounterRateLimiter
from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.core.problems import PROBLEM_MEDIA_TYPE, TooManyRequests, problem_response

log = logging.getLogger("nocturne.rate_limits")

WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
EXPENSIVE_READS = ("/log/verify", "/log/export")


@dataclass(frozen=True)
class Policy:
    """One named limit, e.g. writes: 120 per minute per API key."""

    name: str
    limit: RateLimitItem

    @classmethod
    def parse(cls, name: str, text: str) -> Policy:
        return cls(name, parse(text))

    @property
    def window_seconds(self) -> int:
        return int(self.limit.get_expiry())

    def field(self) -> str:
        """The RateLimit-Policy item: quota q per window w seconds."""
        return f'"{self.name}";q={self.limit.amount};w={self.window_seconds}'


@dataclass(frozen=True)
class Limits:
    writes: Policy
    expensive_reads: Policy
    registrations: Policy
    failed_auth: Policy

    @classmethod
    def from_text(
        cls, *, writes: str, expensive_reads: str, registrations: str, failed_auth: str
    ) -> Limits:
        """Policies from setting strings in the `limits` notation ("120/minute")."""
        return cls(
            Policy.parse("writes", writes),
            Policy.parse("expensive-reads", expensive_reads),
            Policy.parse("registrations", registrations),
            Policy.parse("failed-auth", failed_auth),
        )


def make_storage(redis_url: str | None) -> Storage:
    """Redis shared by every worker when configured, this process's memory otherwise."""
    if redis_url:
        # Short timeouts: a Redis that hangs must not hold every request (they pass unlimited).
        return RedisStorage(
            f"async+{redis_url}",
            implementation="redispy",
            socket_connect_timeout=0.5,
            socket_timeout=0.5,
        )
    return MemoryStorage()


def bearer_token(scope: Scope) -> str | None:
    for name, value in scope.get("headers", []):
        if name == b"authorization":
            scheme, _, token = value.decode("latin-1").partition(" ")
            return token.strip() if scheme.lower() == "bearer" and token.strip() else None
    return None


def client_address(scope: Scope) -> str:
    """The peer's address (behind a proxy, run uvicorn with --proxy-headers)."""
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


def key_identity(token: str) -> str:
    # Only a hash of the key reaches the counters' storage.
    return hashlib.sha256(token.encode()).hexdigest()[:32]


class RateLimitMiddleware:
    """Counts requests against the policies; answers 429 for one past its limit."""

    def __init__(self, app: ASGIApp, *, limits: Limits, storage: Storage, api_prefix: str):
        self.app = app
        self.limits = limits
        self.limiter = SlidingWindowCounterRateLimiter(storage)
        self.registration_path = f"{api_prefix}/users"

    def _policies(self, scope: Scope, token: str | None) -> list[tuple[Policy, str]]:
        """The limits this request counts against, each with whose counter it is."""
        method: str = scope["method"]
        path: str = scope["path"]
        if method == "POST" and path == self.registration_path:
            return [(self.limits.registrations, client_address(scope))]
        if token is None:
            return []  # 401 follows, or a public read
        if method in WRITE_METHODS:
            return [(self.limits.writes, key_identity(token))]
        if method == "GET" and path.endswith(EXPENSIVE_READS):
            return [(self.limits.expensive_reads, key_identity(token))]
        return []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        token = bearer_token(scope)
        address = client_address(scope)
        refused: tuple[Policy, str] | None = None
        fields: list[tuple[Policy, int, float]] = []
        try:
            if token is not None and not await self.limiter.test(
                self.limits.failed_auth.limit, address
            ):
                refused = (self.limits.failed_auth, address)
            for policy, identity in [] if refused else self._policies(scope, token):
                if not await self.limiter.hit(policy.limit, identity):
                    refused = (policy, identity)
                    break
                stats = await self.limiter.get_window_stats(policy.limit, identity)
                fields.append((policy, stats.remaining, stats.reset_time))
            if refused is not None:
                retry_at = await self.limiter.get_window_stats(refused[0].limit, refused[1])
        except Exception:
            # An unreachable Redis must not take the API down: serve, unlimited, and say so.
            log.exception("rate limit storage unavailable: request let through unlimited")
            await self.app(scope, receive, send)
            return
        if refused is not None:
            await self._refuse(scope, receive, send, refused[0], retry_at.reset_time)
            return

        async def send_with_fields(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                if fields:
                    headers["RateLimit-Policy"] = ", ".join(p.field() for p, _, _ in fields)
                    headers["RateLimit"] = ", ".join(
                        f'"{p.name}";r={remaining};t={seconds_until(reset)}'
                        for p, remaining, reset in fields
                    )
                if message["status"] == 401 and token is not None:
                    await self._count_failed_auth(address)
            await send(message)

        await self.app(scope, receive, send_with_fields)

    async def _count_failed_auth(self, address: str) -> None:
        try:
            await self.limiter.hit(self.limits.failed_auth.limit, address)
        except Exception:  # the storage is down: see __call__
            log.exception("rate limit storage unavailable: failed authentication not counted")

    async def _refuse(
        self, scope: Scope, receive: Receive, send: Send, policy: Policy, reset_time: float
    ) -> None:
        retry_after = max(1, seconds_until(reset_time))
        response = problem_response(
            429,
            "Too Many Requests",
            f"over the {policy.name} limit of {policy.limit.amount} per "
            f"{policy.window_seconds} s; retry in {retry_after} s",
            type_=TooManyRequests.type,
            headers={
                "Retry-After": str(retry_after),
                "RateLimit-Policy": policy.field(),
                "RateLimit": f'"{policy.name}";r=0;t={retry_after}',
            },
        )
        await response(scope, receive, send)


def seconds_until(moment: float) -> int:
    return max(0, math.ceil(moment - time.time()))


def document_rate_limits(schema: dict[str, Any]) -> None:
    """Every operation may answer 429 (the middleware, not the route, decides)."""
    response = {
        "description": "Over a rate limit; retry after `Retry-After` seconds",
        "headers": {
            "Retry-After": {"schema": {"type": "integer"}, "description": "seconds to wait"}
        },
        "content": {PROBLEM_MEDIA_TYPE: {"schema": {"$ref": "#/components/schemas/Problem"}}},
    }
    for operations in schema.get("paths", {}).values():
        for operation in operations.values():
            if isinstance(operation, dict) and "responses" in operation:
                operation["responses"].setdefault("429", response)
