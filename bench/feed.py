"""The live feed under load (issue 20), run by bench/run.py on its worker processes.

20 campaigns, each a GM and 9 players, every one of them following their campaign's event
stream: 200 subscribers spread over the workers in turn. Rolls arrive at a steady rate,
spread over the campaigns, one in five made by a player for the GM's eyes only (visibility
"gm"). Measured: the delay from each roll's 201 to its arrival at every subscriber, the
memory each open stream costs the workers, and that every subscriber received every entry
of its campaign exactly once, in seq order, whole when it may see it and redacted when not.

Raw asyncio sockets on both sides (bench/load.py's reason: the load generator shares the
cores with the service it measures).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bench.load import build_request, exchange, settle_heap

HOST = "127.0.0.1"
CAMPAIGNS, PLAYERS = 20, 9  # 20 × (1 GM + 9 players) = 200 subscribers
HIDDEN_EVERY = 5  # every fifth roll: a player's, for the GM only
SENDERS = 16  # connections the rolls go out on, so one slow roll does not hold the schedule
TARGET_P99_MS = 100.0


@dataclass
class Member:
    key: str
    user_id: str
    is_gm: bool


@dataclass
class Table:
    campaign: str
    gm: Member
    players: list[Member]

    @property
    def members(self) -> list[Member]:
        return [self.gm, *self.players]


@dataclass
class Subscriber:
    table: Table
    member: Member
    port: int
    received: list[tuple[int, float, bool]] = field(default_factory=list)  # seq, when, redacted
    started: asyncio.Event = field(default_factory=asyncio.Event)


@dataclass
class FeedRun:
    subscribers: int
    workers: int
    rate: float
    seconds: float
    rolls: int
    deliveries: int
    delays_ms: list[float]
    early: int  # arrived before the roller had read its 201
    memory_per_stream_kib: float
    lost: int
    duplicated: int
    out_of_order: int
    wrongly_seen: int  # whole where it should be redacted, or the other way round

    def percentile(self, fraction: float) -> float:
        ordered = sorted(self.delays_ms)
        if not ordered:
            return 0.0
        return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]

    @property
    def exactly_once(self) -> bool:
        return self.lost == 0 and self.duplicated == 0 and self.out_of_order == 0


async def _call(port: int, request: bytes) -> tuple[int, object]:
    reader, writer = await asyncio.open_connection(HOST, port)
    try:
        status, body = await exchange(reader, writer, request)
    finally:
        writer.close()
    return status, json.loads(body) if body else None


async def _json(port: int, method: str, path: str, body: object, key: str | None = None) -> dict:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    status, answer = await _call(port, build_request(method, path, body=body, headers=headers))
    assert status in (200, 201) and isinstance(answer, dict), (status, answer)
    return answer


async def _tables(port: int) -> list[Table]:
    tables = []
    for index in range(CAMPAIGNS):
        people = []
        for seat in range(1 + PLAYERS):
            user = await _json(port, "POST", "/api/v1/users", {"name": f"feed-{index}-{seat}"})
            people.append(Member(user["api_key"], user["id"], is_gm=seat == 0))
        gm, players = people[0], people[1:]
        campaign = await _json(
            port,
            "POST",
            "/api/v1/campaigns",
            {"name": f"feed table {index}", "system": "vampire"},
            gm.key,
        )
        for player in players:
            path = f"/api/v1/campaigns/{campaign['id']}/members"
            await _json(port, "POST", path, {"user_id": player.user_id, "role": "player"}, gm.key)
        tables.append(Table(campaign["id"], gm, players))
    return tables


async def _read_chunk(reader: asyncio.StreamReader) -> bytes:
    size = int((await reader.readuntil(b"\r\n")).strip(), 16)
    chunk = await reader.readexactly(size + 2)
    return chunk[:-2]


async def _follow(subscriber: Subscriber, stop: asyncio.Event) -> None:
    """One event stream, parsed as it arrives (chunked transfer, SSE fields)."""
    reader, writer = await asyncio.open_connection(HOST, subscriber.port)
    path = f"/api/v1/campaigns/{subscriber.table.campaign}/events"
    writer.write(
        f"GET {path} HTTP/1.1\r\nHost: bench\r\nAccept: text/event-stream\r\n"
        f"Authorization: Bearer {subscriber.member.key}\r\n\r\n".encode()
    )
    head = await reader.readuntil(b"\r\n\r\n")
    assert head[9:12] == b"200", head
    subscriber.started.set()
    buffer = b""
    try:
        while not stop.is_set():
            buffer += await _read_chunk(reader)
            arrived = time.perf_counter()
            while b"\n\n" in buffer or b"\r\n\r\n" in buffer:
                raw, _, buffer = buffer.replace(b"\r\n", b"\n").partition(b"\n\n")
                fields = dict(
                    line.split(": ", 1) for line in raw.decode().split("\n") if ": " in line
                )
                if "id" in fields:
                    redacted = json.loads(fields["data"]).get("redacted") is True
                    subscriber.received.append((int(fields["id"]), arrived, redacted))
    except (asyncio.IncompleteReadError, ConnectionError):
        pass
    finally:
        writer.close()


def _rss_kib(pids: Sequence[int]) -> int:
    total = 0
    for pid in pids:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1])
    return total


async def _roll_steadily(
    tables: list[Table], ports: Sequence[int], rate: float, seconds: float
) -> dict[tuple[str, int], tuple[float, Member]]:
    """Rolls at `rate` per second, round-robin over the campaigns and the workers: each one's
    201 time and roller, by (campaign, seq)."""
    sent: dict[tuple[str, int], tuple[float, Member]] = {}
    slots: asyncio.Queue[tuple[int, float] | None] = asyncio.Queue()
    total = int(rate * seconds)
    start = time.perf_counter() + 0.5
    for number in range(total):
        slots.put_nowait((number, start + number / rate))
    for _ in range(SENDERS):
        slots.put_nowait(None)

    async def sender(index: int) -> None:
        port = ports[index % len(ports)]
        reader, writer = await asyncio.open_connection(HOST, port)
        try:
            while (slot := await slots.get()) is not None:
                number, due = slot
                await asyncio.sleep(max(0.0, due - time.perf_counter()))
                table = tables[number % len(tables)]
                hidden = number % HIDDEN_EVERY == HIDDEN_EVERY - 1
                roller = table.players[number % PLAYERS] if hidden else table.gm
                body = {"kind": "dice", "notation": "3d6kh2"}
                if hidden:
                    body["visibility"] = "gm"
                request = build_request(
                    "POST",
                    f"/api/v1/campaigns/{table.campaign}/rolls",
                    body=body,
                    headers={"Authorization": f"Bearer {roller.key}"},
                )
                status, answer = await exchange(reader, writer, request)
                done = time.perf_counter()
                assert status == 201, answer
                sent[(table.campaign, int(json.loads(answer)["seq"]))] = (done, roller)
        finally:
            writer.close()

    await asyncio.gather(*(sender(index) for index in range(SENDERS)))
    return sent


async def _measure(
    ports: Sequence[int], pids: Sequence[int], rate: float, seconds: float
) -> FeedRun:
    tables = await _tables(ports[0])
    heads = {}
    for table in tables:
        campaign = await _json(
            ports[0], "GET", f"/api/v1/campaigns/{table.campaign}", None, table.gm.key
        )
        heads[table.campaign] = int(campaign["log_head"]["seq"])
    idle = _rss_kib(pids)
    settle_heap()  # this process's own collections would count as the feed's delay
    subscribers = [
        Subscriber(table, member, ports[index % len(ports)])
        for index, (table, member) in enumerate(
            (table, member) for table in tables for member in table.members
        )
    ]
    stop = asyncio.Event()
    readers = [asyncio.create_task(_follow(s, stop)) for s in subscribers]
    await asyncio.wait_for(asyncio.gather(*(s.started.wait() for s in subscribers)), 60)
    await asyncio.sleep(2.0)  # every stream is open and idle
    per_stream = (_rss_kib(pids) - idle) / len(subscribers)
    sent = await _roll_steadily(tables, ports, rate, seconds)
    await asyncio.sleep(3.0)  # the last entries reach everyone
    stop.set()
    for task in readers:
        task.cancel()
    await asyncio.gather(*readers, return_exceptions=True)
    return _judge(subscribers, sent, heads, rate, seconds, len(ports), per_stream)


def _judge(
    subscribers: list[Subscriber],
    sent: dict[tuple[str, int], tuple[float, Member]],
    heads: dict[str, int],
    rate: float,
    seconds: float,
    workers: int,
    per_stream: float,
) -> FeedRun:
    delays, early = [], 0
    lost = duplicated = out_of_order = wrongly_seen = deliveries = 0
    last_seq = {}
    for (campaign, seq), _ in sent.items():
        last_seq[campaign] = max(last_seq.get(campaign, 0), seq)
    for subscriber in subscribers:
        campaign = subscriber.table.campaign
        seqs = [seq for seq, _, _ in subscriber.received]
        expected = list(range(heads[campaign] + 1, last_seq.get(campaign, 0) + 1))
        duplicated += len(seqs) - len(set(seqs))
        lost += len(set(expected) - set(seqs))
        out_of_order += sum(1 for a, b in itertools.pairwise(seqs) if b <= a)
        for seq, arrived, redacted in subscriber.received:
            found = sent.get((campaign, seq))
            if found is None:
                continue
            deliveries += 1
            done, roller = found
            rolled_hidden = roller is not subscriber.table.gm
            may_see = not rolled_hidden or subscriber.member in (roller, subscriber.table.gm)
            wrongly_seen += redacted == may_see
            delay = (arrived - done) * 1000
            if delay < 0:
                early += 1
            delays.append(max(0.0, delay))
    return FeedRun(
        subscribers=len(subscribers),
        workers=workers,
        rate=rate,
        seconds=seconds,
        rolls=len(sent),
        deliveries=deliveries,
        delays_ms=delays,
        early=early,
        memory_per_stream_kib=per_stream,
        lost=lost,
        duplicated=duplicated,
        out_of_order=out_of_order,
        wrongly_seen=wrongly_seen,
    )


def run_feed(
    ports: Sequence[int], pids: Sequence[int], *, rate: float = 50.0, seconds: float = 20.0
) -> FeedRun:
    """The feed run on the workers listening on `ports` (processes `pids`)."""
    return asyncio.run(_measure(ports, pids, rate, seconds))


def report_lines(run: FeedRun) -> list[str]:
    """The feed's section of BENCHMARKS.md."""
    p50, p99 = run.percentile(0.50), run.percentile(0.99)

    def verdict(ok: bool) -> str:
        return "met" if ok else "**missed**"

    return [
        "## The live feed",
        "",
        f"{run.subscribers} subscribers following `GET /campaigns/{{id}}/events` over "
        f"{run.workers} workers ({CAMPAIGNS} campaigns, each its GM and {PLAYERS} players, "
        f"the streams spread over the workers in turn), while {run.rate:g} rolls/s arrive "
        f"for {run.seconds:g} s, spread over the campaigns and the workers; every "
        f"{HIDDEN_EVERY}th is a player's roll for the GM only, which the other players "
        "receive redacted. A roll committed on one worker reaches the other's streams "
        "through PostgreSQL's LISTEN/NOTIFY.",
        "",
        "| rolls | deliveries | delay p50 ms | p99 ms | max ms | memory per open stream "
        "| lost | duplicated | out of order | wrongly redacted |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        f"| {run.rolls:,} | {run.deliveries:,} | {p50:.1f} | {p99:.1f} | "
        f"{max(run.delays_ms, default=0):.1f} | {run.memory_per_stream_kib:.0f} KiB | "
        f"{run.lost} | {run.duplicated} | {run.out_of_order} | {run.wrongly_seen} |",
        "",
        "The delay runs from the moment the roller has read its 201 to the moment a "
        f"subscriber has read the event; {run.early:,} deliveries arrived before the roller "
        "had read its own answer (counted as 0 ms). Memory: the workers' resident memory "
        "with every stream open and idle, less before they opened, per stream.",
        "",
        "| target (2-core machine) | measured | |",
        "|---|---|---|",
        f"| feed delay p99 < {TARGET_P99_MS:.0f} ms at {run.rate:g} rolls/s | {p99:.1f} ms | "
        f"{verdict(p99 < TARGET_P99_MS)} |",
        f"| every subscriber gets every entry it may see exactly once | "
        f"{run.lost} lost, {run.duplicated} duplicated, {run.wrongly_seen} wrongly redacted | "
        f"{verdict(run.exactly_once and run.wrongly_seen == 0)} |",
        "",
    ]
