"""A small HTTP/1.1 keep-alive load generator on raw asyncio sockets.

Lighter than an HTTP client library, so on a small machine more of the CPU goes to the
server being measured. Each virtual client holds one connection and sends its next
request as soon as the previous answer is read.
"""

from __future__ import annotations

import asyncio
import gc
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

try:  # the event loop uvicorn runs on too: the less CPU the load takes, the more the server gets
    from uvloop import run as run_loop
except ImportError:  # uvicorn[standard] leaves it out on Windows
    from asyncio import run as run_loop


@dataclass
class Result:
    requests: int = 0
    errors: int = 0
    latencies: list[float] = field(default_factory=list)
    seconds: float = 0.0

    def add(self, other: Result) -> None:
        """Fold in another measured window (rounds of one run)."""
        self.requests += other.requests
        self.errors += other.errors
        self.latencies += other.latencies
        self.seconds += other.seconds

    @property
    def rps(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0

    def percentile(self, fraction: float) -> float:
        ordered = sorted(self.latencies)
        if not ordered:
            return 0.0
        index = min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))
        return ordered[index]


def settle_heap() -> None:
    """Collect, then freeze what this process holds (its imports, the run's set-up), so that
    its own full garbage collections, while it measures, scan only what the measuring made:
    unfrozen, one paused this process for 20-50 ms, and every request then in flight counted
    the pause as the server's latency."""
    gc.collect()
    gc.freeze()


def build_request(
    method: str, path: str, *, body: object | None = None, headers: dict[str, str] | None = None
) -> bytes:
    payload = b"" if body is None else json.dumps(body).encode()
    lines = [f"{method} {path} HTTP/1.1", "Host: bench", "Connection: keep-alive"]
    for name, value in (headers or {}).items():
        lines.append(f"{name}: {value}")
    if body is not None:
        lines += ["Content-Type: application/json", f"Content-Length: {len(payload)}"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + payload


async def exchange(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, request: bytes
) -> tuple[int, bytes]:
    writer.write(request)
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head[9:12])
    length = 0
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":", 1)[1])
    body = await reader.readexactly(length) if length else b""
    return status, body


async def _client(
    host: str,
    port: int,
    make_request: Callable[[int], bytes],
    expected: int,
    warmup_end: float,
    end: float,
    result: Result,
    client_index: int,
) -> None:
    reader, writer = await asyncio.open_connection(host, port)
    try:
        while True:
            now = time.perf_counter()
            if now >= end:
                return
            status, _ = await exchange(reader, writer, make_request(client_index))
            done = time.perf_counter()
            if now >= warmup_end and done <= end:
                result.requests += 1
                result.latencies.append(done - now)
                if status != expected:
                    result.errors += 1
    finally:
        writer.close()


def run_load(
    host: str,
    ports: Sequence[int],
    make_request: Callable[[int], bytes],
    *,
    clients: int,
    seconds: float,
    warmup: float = 1.0,
    expected: int = 200,
) -> Result:
    """Drive `clients` connections for warmup + seconds; only the measured window counts.

    Client i connects to ports[i % len(ports)]: one port per worker spreads them evenly.
    """

    async def main() -> Result:
        settle_heap()
        result = Result(seconds=seconds)
        start = time.perf_counter()
        warmup_end = start + warmup
        end = warmup_end + seconds
        await asyncio.gather(
            *(
                _client(
                    host, ports[i % len(ports)], make_request, expected, warmup_end, end, result, i
                )
                for i in range(clients)
            )
        )
        return result

    return run_loop(main())


async def _one(host: str, port: int, request: bytes) -> tuple[int, bytes]:
    reader, writer = await asyncio.open_connection(host, port)
    try:
        return await exchange(reader, writer, request)
    finally:
        writer.close()


def call(host: str, port: int, request: bytes) -> tuple[int, object]:
    """One request on a fresh connection; the decoded JSON body."""
    status, body = asyncio.run(_one(host, port, request))
    return status, json.loads(body) if body else None
