"""Autocommit psycopg connections whose statements are awaited on the event loop (issue 23).

The service runs its database work on sync sessions in threads; besides the feed's LISTEN
connection, only this awaits the database on the event loop. A plain dice roll on a head
its worker knows is one statement in autocommit (app/services/known_head.py), and in a
thread its hand-offs cost more than the roll: the event loop waking a thread of the pool,
the thread waking the loop with the answer, and the two taking turns with the interpreter's
lock around the round trip. Awaited on the loop, the statement waits for the database as a
socket does, and the roll's Python work runs where its request is already handled
(bench/profile.md, stop 49).

Only while the app serves on a loop (`serving_loop`, in the app's lifespan), only on
PostgreSQL through psycopg and only when `ROLL_LOOP_CONNECTIONS` is not 0: otherwise
`connections_for` answers None and the caller uses its thread. A worker opens connections
as it needs them, up to that many at once per engine, with the engine's own connection
arguments (its JSON serializer among them); keeps them between statements, replaced after
the pool's 30 minutes; and closes them when the loop stops serving. Errors are
SQLAlchemy's, as the engine's pool raises them: a statement's refusal as `Session.execute`
raises it, and a server out of reach as an OperationalError (503). A connection that
failed, or whose caller was cancelled mid-statement, is closed rather than lent again, and
one found dropped closes the idle others too, as they went with the same server (the
engine's pool does the same). A failure to connect is its own error (`NotConnected`), so
that a caller that has another way to run its statement can take it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import psycopg
from sqlalchemy.engine import Dialect, Engine
from sqlalchemy.exc import DBAPIError, StatementError
from sqlalchemy.pool import Pool

from app.core.database import POOL_RECYCLE_SECONDS


class NotConnected(Exception):
    """No connection could be opened: nothing was sent. `error` is SQLAlchemy's for it."""

    def __init__(self, error: StatementError) -> None:
        super().__init__(str(error))
        self.error = error


class LoopConnections:
    """One engine's connections for statements awaited on one event loop."""

    def __init__(self, engine: Engine, size: int) -> None:
        self.dialect: Dialect = engine.dialect
        self._connect_args = engine.dialect.create_connect_args(engine.url)
        self._slots = asyncio.Semaphore(size)
        self._idle: list[tuple[psycopg.AsyncConnection[Any], float]] = []
        self._closed = False
        self._before_close: list[Callable[[], Awaitable[None]]] = []

    def before_close(self, finish: Callable[[], Awaitable[None]]) -> None:
        """Await `finish` when serving stops, before the connections close: what a user of
        them still has to send (the feed's relay)."""
        self._before_close.append(finish)

    async def first(self, sql: str, values: Mapping[str, Any]) -> tuple[Any, ...] | None:
        """The first row of `sql` run as its own transaction (autocommit), prepared."""
        async with self._slots:
            connection, born = await self._lend()
            try:
                cursor = await connection.execute(sql, values, prepare=True)
                row: tuple[Any, ...] | None = await cursor.fetchone()
            except BaseException as error:  # a cancelled caller too: its state is unknown
                dropped = isinstance(error, psycopg.Error) and self._dropped(error, connection)
                await connection.close()
                if dropped:
                    await self._close_idle()  # they went with the same server
                if isinstance(error, psycopg.Error):
                    raise self._wrapped(error, sql, values, dropped) from error
                raise
            if self._closed or time.monotonic() - born > POOL_RECYCLE_SECONDS:
                await connection.close()
            else:
                self._idle.append((connection, born))
            return row

    async def close(self) -> None:
        """Close the idle connections; those in use are closed as they come back."""
        for finish in self._before_close:
            await finish()
        self._closed = True
        await self._close_idle()

    async def _lend(self) -> tuple[psycopg.AsyncConnection[Any], float]:
        while self._idle:
            connection, born = self._idle.pop()
            if time.monotonic() - born <= POOL_RECYCLE_SECONDS and not connection.closed:
                return connection, born
            await connection.close()
        cargs, cparams = self._connect_args
        try:
            connection = await psycopg.AsyncConnection.connect(
                *cargs, **{**cparams, "autocommit": True}
            )
        except psycopg.Error as error:
            raise NotConnected(self._wrapped(error, None, None, False)) from error
        return connection, time.monotonic()

    async def _close_idle(self) -> None:
        idle, self._idle = self._idle, []
        for connection, _ in idle:
            await connection.close()

    def _dropped(self, error: psycopg.Error, connection: psycopg.AsyncConnection[Any]) -> bool:
        """Whether the error left the connection closed or broken (SQLAlchemy's test)."""
        return self.dialect.is_disconnect(error, connection, None)  # type: ignore[arg-type]

    def _wrapped(
        self,
        error: psycopg.Error,
        sql: str | None,
        values: Mapping[str, Any] | None,
        dropped: bool,
    ) -> StatementError:
        return DBAPIError.instance(
            sql, values, error, psycopg.Error, connection_invalidated=dropped, dialect=self.dialect
        )


@dataclass
class _Loop:
    """What a loop the app serves on holds: its connections by the engine's pool (an engine
    and its execution_options() copies share one), at most `size` at once for each."""

    size: int
    connections: dict[Pool, LoopConnections] = field(default_factory=dict)


_serving: dict[asyncio.AbstractEventLoop, _Loop] = {}


@asynccontextmanager
async def serving_loop(size: int) -> AsyncIterator[None]:
    """While the app serves on the running loop, `connections_for` lends connections there,
    up to `size` at once per engine; they are closed when it stops."""
    loop = asyncio.get_running_loop()
    serving = _serving[loop] = _Loop(size)
    try:
        yield
    finally:
        del _serving[loop]
        for connections in serving.connections.values():
            await connections.close()


def connections_for(engine: Engine) -> LoopConnections | None:
    """The running loop's connections to `engine`'s database, or None: no loop, a loop the
    app does not serve on or serves on with none (`size` 0), or another database than
    PostgreSQL through psycopg."""
    dialect = engine.dialect
    if dialect.name != "postgresql" or dialect.driver != "psycopg":
        return None
    try:
        serving = _serving.get(asyncio.get_running_loop())
    except RuntimeError:  # no running loop
        return None
    if serving is None or serving.size == 0:
        return None
    connections = serving.connections.get(engine.pool)
    if connections is None:
        connections = serving.connections[engine.pool] = LoopConnections(engine, serving.size)
    return connections
