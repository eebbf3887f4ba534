"""The feed's notices sent after their rolls' commit (app/services/feed/relay.py, issue 23)."""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from sqlalchemy import Engine
from sqlalchemy.exc import OperationalError

from app.core.loop_connections import LoopConnections, connections_for, serving_loop
from app.services.feed.notices import CHANNEL, Notice
from app.services.feed.relay import SEND_NOTICES, NoticeRelay, relay_for

CAMPAIGN, OTHER = uuid.uuid4(), uuid.uuid4()


@pytest.fixture
def listener(committed_engine: Engine) -> Iterator[psycopg.Connection[Any]]:
    """A connection listening on the feed's channel, as every worker's listener does."""
    if committed_engine.dialect.name != "postgresql":
        pytest.skip("the relay sends PostgreSQL's notifications")
    url = committed_engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute(f"LISTEN {CHANNEL}")
        yield connection


def heard(listener: psycopg.Connection[Any]) -> list[tuple[uuid.UUID, int, set[str]]]:
    """This test's notices the listener received (another session may notify meanwhile)."""
    notices = [Notice.parse(n.payload) for n in listener.notifies(timeout=0.5)]
    ours = [n for n in notices if n.campaign_id in (CAMPAIGN, OTHER)]
    return sorted((n.campaign_id, n.seq, n.topics) for n in ours)


def test_notices_given_together_go_in_one_statement_one_per_campaign(
    committed_engine: Engine, listener: psycopg.Connection[Any]
) -> None:
    sent: list[list[str]] = []

    async def work() -> None:
        async with serving_loop(8):
            connections = connections_for(committed_engine)
            assert connections is not None
            first = connections.first

            async def counted(sql: str, values: Any) -> Any:
                if sql == SEND_NOTICES:
                    sent.append(list(values["payloads"]))
                return await first(sql, values)

            connections.first = counted  # type: ignore[method-assign]
            relay = relay_for(connections)
            assert relay_for(connections) is relay
            relay.send(Notice(CAMPAIGN, 4))
            relay.send(Notice(OTHER, 9, {"members"}))
            relay.send(Notice(CAMPAIGN, 6, {"requests"}))
            relay.send(Notice(CAMPAIGN, 5))  # an older head: the newest is kept
            await relay.drain()
            assert relay.waiting == []

    asyncio.run(work())
    assert len(sent) == 1 and len(sent[0]) == 2
    assert heard(listener) == sorted([(CAMPAIGN, 6, {"requests"}), (OTHER, 9, {"members"})])


def test_notices_still_waiting_are_sent_as_serving_stops(
    committed_engine: Engine, listener: psycopg.Connection[Any]
) -> None:
    async def work() -> None:
        async with serving_loop(8):
            connections = connections_for(committed_engine)
            assert connections is not None
            relay_for(connections).send(Notice(CAMPAIGN, 12))
            # no await: serving stops at once, and the relay's drain comes first

    asyncio.run(work())
    assert heard(listener) == [(CAMPAIGN, 12, set())]


def test_the_relays_transaction_commits_without_waiting_for_a_wal_flush(
    committed_engine: Engine, listener: psycopg.Connection[Any]
) -> None:
    """It writes nothing before its commit record, so PostgreSQL flushes nothing for it
    and it holds the lock NOTIFY takes at commit only while it queues the notices; a
    transaction that also writes, as a roll's did, waits for its flush."""

    def flushes(statement: str, arguments: dict[str, Any]) -> int:
        with listener.cursor() as cursor:
            # Each session reports its WAL statistics now and then: report them now.
            cursor.execute("SELECT pg_stat_force_next_flush()")
            cursor.execute("SELECT wal_sync FROM pg_stat_wal")
            before = cursor.fetchone()
            for seq in range(50):
                cursor.execute(statement, {**arguments, "payloads": [f"notice {seq}"]})
            cursor.execute("SELECT pg_stat_force_next_flush()")
            cursor.execute("SELECT wal_sync FROM pg_stat_wal")
            after = cursor.fetchone()
        assert before is not None and after is not None
        return int(after[0] - before[0])

    writing = "SELECT pg_logical_emit_message(true, 'nocturne-test', %(payloads)s::text)"
    assert flushes(writing, {}) >= 45  # the measure sees flushes (fsync is on)
    # Other sessions of the server may flush meanwhile: far fewer than one per statement.
    assert flushes(SEND_NOTICES, {"channel": CHANNEL}) < 10


class FailingOnce:
    """Connections whose first statement fails as a server out of reach does."""

    def __init__(self, connections: LoopConnections) -> None:
        self.connections = connections
        self.failed = asyncio.Event()

    async def first(self, sql: str, values: Any) -> Any:
        if not self.failed.is_set():
            self.failed.set()
            raise OperationalError(sql, values, Exception("server closed the connection"))
        return await self.connections.first(sql, values)


def test_a_notice_not_sent_is_kept_and_sent_with_the_next_ones(
    committed_engine: Engine, listener: psycopg.Connection[Any], caplog: pytest.LogCaptureFixture
) -> None:
    async def work() -> None:
        async with serving_loop(8):
            connections = connections_for(committed_engine)
            assert connections is not None
            failing = FailingOnce(connections)
            relay = NoticeRelay(failing)  # type: ignore[arg-type]
            relay.send(Notice(CAMPAIGN, 7))
            await failing.failed.wait()
            relay.send(Notice(OTHER, 3))  # while the relay waits to try again
            assert {n.campaign_id for n in relay.waiting} == {CAMPAIGN, OTHER}
            await relay.drain(10.0)
            assert relay.waiting == []

    with caplog.at_level(logging.WARNING, logger="nocturne.feed"):
        asyncio.run(work())
    assert heard(listener) == sorted([(CAMPAIGN, 7, set()), (OTHER, 3, set())])
    assert "were not sent (OperationalError); retrying in 0.1s" in caplog.text
