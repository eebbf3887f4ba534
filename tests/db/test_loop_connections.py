"""Statements awaited on the event loop (app/core/loop_connections.py, issue 23)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import pytest
import sqlalchemy as sa
from sqlalchemy import Engine
from sqlalchemy.exc import DataError, OperationalError

from app.core.database import create_db_engine
from app.core.driver_sql import DriverStatement
from app.core.loop_connections import (
    LoopConnections,
    NotConnected,
    connections_for,
    serving_loop,
)
from tests.db.servers import free_port

T = TypeVar("T")

_BACKEND = DriverStatement(sa.select(sa.func.pg_backend_pid()))
_SLEPT = DriverStatement(
    sa.select(sa.func.pg_backend_pid(), sa.func.pg_sleep(sa.bindparam("seconds", type_=sa.Float)))
)
_AS_INTEGER = DriverStatement(sa.select(sa.cast(sa.bindparam("text", type_=sa.Text), sa.Integer)))
_TRANSACTION = DriverStatement(sa.select(sa.func.pg_backend_pid(), sa.func.txid_current()))


@pytest.fixture
def postgres(committed_engine: Engine) -> Engine:
    if committed_engine.dialect.name != "postgresql":
        pytest.skip("statements awaited on the loop are PostgreSQL's")
    return committed_engine


def serving(engine: Engine, work: Callable[[LoopConnections], Awaitable[T]], size: int = 8) -> T:
    """`work` on a loop the app serves on, given that loop's connections to `engine`."""

    async def run() -> T:
        async with serving_loop(size):
            connections = connections_for(engine)
            assert connections is not None
            return await work(connections)

    return asyncio.run(run())


def backends(engine: Engine) -> set[int]:
    with engine.connect() as connection:
        rows = connection.execute(sa.text("SELECT pid FROM pg_stat_activity")).all()
    return {row[0] for row in rows}


def test_a_statement_runs_in_autocommit_on_a_connection_kept_for_the_next(
    postgres: Engine,
) -> None:
    async def work(connections: LoopConnections) -> list[Any]:
        return [await _TRANSACTION.first_on_loop(connections, {}) for _ in range(3)]

    rows = serving(postgres, work)
    assert len({backend for backend, _ in rows}) == 1  # one connection, lent again
    assert len({transaction for _, transaction in rows}) == 3  # each its own transaction


def test_a_failing_statement_raises_sqlalchemys_error_and_its_connection_is_closed(
    postgres: Engine,
) -> None:
    async def work(connections: LoopConnections) -> tuple[Any, Any, Any]:
        before = await _BACKEND.first_on_loop(connections, {})
        with pytest.raises(DataError):  # as Session.execute raises it
            await _AS_INTEGER.first_on_loop(connections, {"text": "seven"})
        after = await _BACKEND.first_on_loop(connections, {})
        return before, after, await _AS_INTEGER.first_on_loop(connections, {"text": "7"})

    before, after, seven = serving(postgres, work)
    assert before != after  # not lent again after its failure
    assert seven == (7,)


def test_without_a_server_the_connection_fails_with_sqlalchemys_operational_error(
    postgres: Engine,
) -> None:
    """Nothing was sent: the caller may take another way (known_head.py takes the lock's)."""
    nowhere = postgres.url.set(host="127.0.0.1", port=free_port())
    gone = create_db_engine(nowhere.render_as_string(hide_password=False))

    async def work(connections: LoopConnections) -> None:
        with pytest.raises(NotConnected) as failed:
            await _BACKEND.first_on_loop(connections, {})
        assert isinstance(failed.value.error, OperationalError)  # the app's 503

    try:
        serving(gone, work)
    finally:
        gone.dispose()


def test_a_connection_the_server_dropped_fails_once_and_takes_the_idle_others_with_it(
    postgres: Engine,
) -> None:
    """As the engine's pool: after a restart, one statement fails, not one per connection."""

    async def work(connections: LoopConnections) -> tuple[int, Any]:
        rows = await asyncio.gather(
            *(_SLEPT.first_on_loop(connections, {"seconds": 0.05}) for _ in range(4))
        )
        with postgres.connect() as admin:
            for backend, _ in rows:
                admin.execute(sa.text("SELECT pg_terminate_backend(:pid)"), {"pid": backend})
        failures = 0
        for _ in range(4):
            try:
                await _BACKEND.first_on_loop(connections, {})
            except OperationalError as error:
                assert error.connection_invalidated
                failures += 1
        return failures, await _BACKEND.first_on_loop(connections, {})

    failures, row = serving(postgres, work)
    assert failures == 1
    assert row is not None


def test_at_most_size_statements_run_at_once(postgres: Engine) -> None:
    async def work(connections: LoopConnections) -> list[Any]:
        return await asyncio.gather(
            *(_SLEPT.first_on_loop(connections, {"seconds": 0.05}) for _ in range(6))
        )

    rows = serving(postgres, work, size=2)
    assert len(rows) == 6
    assert len({row[0] for row in rows}) == 2


def test_a_statement_cancelled_midway_closes_its_connection(postgres: Engine) -> None:
    async def work(connections: LoopConnections) -> tuple[Any, Any]:
        before = await _BACKEND.first_on_loop(connections, {})
        sleeping = asyncio.create_task(_SLEPT.first_on_loop(connections, {"seconds": 5}))
        await asyncio.sleep(0.2)
        sleeping.cancel()
        with pytest.raises(asyncio.CancelledError):
            await sleeping
        return before, await _BACKEND.first_on_loop(connections, {})

    before, after = serving(postgres, work)
    assert before != after


def test_the_connections_close_when_the_loop_stops_serving(postgres: Engine) -> None:
    async def work(connections: LoopConnections) -> set[int]:
        rows = await asyncio.gather(
            *(_SLEPT.first_on_loop(connections, {"seconds": 0.05}) for _ in range(3))
        )
        opened = {row[0] for row in rows}
        assert opened <= backends(postgres)
        return opened

    opened = serving(postgres, work)
    deadline = time.monotonic() + 5  # a backend leaves pg_stat_activity a moment after
    while opened & backends(postgres) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not opened & backends(postgres)


def test_no_connections_when_the_loop_serves_with_none(postgres: Engine) -> None:
    """ROLL_LOOP_CONNECTIONS=0: the rolls on a known head take their thread."""

    async def none() -> LoopConnections | None:
        async with serving_loop(0):
            return connections_for(postgres)

    assert asyncio.run(none()) is None


def test_no_connections_outside_a_serving_loop(postgres: Engine) -> None:
    assert connections_for(postgres) is None  # no running loop

    async def unserved() -> LoopConnections | None:
        return connections_for(postgres)

    assert asyncio.run(unserved()) is None


def test_no_connections_off_postgresql() -> None:
    """SQLite's rolls take their thread, as every other statement does."""
    sqlite = create_db_engine("sqlite://")

    async def on_sqlite() -> LoopConnections | None:
        async with serving_loop(2):
            return connections_for(sqlite)

    assert asyncio.run(on_sqlite()) is None
    sqlite.dispose()
