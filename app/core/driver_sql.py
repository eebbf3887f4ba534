"""Core statements of an audited roll's hot path, run on the session's psycopg connection.

An audited roll's transaction is two statements and a commit (issue 23): the campaign's lock
with its member and open epoch, then the append. Run through `Session.execute`, each spent
about as long in SQLAlchemy's execution layer (an execution context, parameter processing,
a result object and its metadata) as in psycopg and the round trip. On PostgreSQL a
`DriverStatement` compiles its statement once, with the session's own dialect and so the
same bind processors, and runs it on the connection of the session's transaction as a
prepared statement: the same SQL with the same parameters, in the same transaction, minus
that layer. On any other database it is `Session.execute`. `first_in_autocommit` runs one
as its own transaction on a pooled connection, outside any session (a roll on a known head),
and `first_on_loop` does so awaited on the event loop (app/core/loop_connections.py).

A row goes through the result processors SQLAlchemy would apply (a UTC timestamp's), so it
reads the same either way; errors are SQLAlchemy's, as from `Session.execute`. In a session,
its events (the feed's notices at commit) are untouched, since the commit still goes through
the session; a statement run by `first_in_autocommit` has no session, and its caller sends
what a commit would (known_head.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy.engine import Connection, Dialect, Engine
from sqlalchemy.exc import DBAPIError
from sqlalchemy.sql import ClauseElement, Executable
from sqlalchemy.sql.compiler import SQLCompiler
from sqlmodel import Session

from app.core.database import WriteInReadSession, reads_only
from app.core.loop_connections import LoopConnections

# A write, at the top or in a data-modifying CTE, or a row lock, as SQLAlchemy writes them.
_WRITES = re.compile(
    r"\b(?:INSERT INTO|UPDATE \S+ SET|DELETE FROM|FOR (?:NO KEY )?(?:UPDATE|SHARE|KEY SHARE))\b"
)


@dataclass(frozen=True, slots=True)
class _Compiled:
    sql: str
    binds: tuple[tuple[str, Callable[[Any], Any] | None], ...]
    # Each column's result processor (a UTC timestamp's), when any column has one.
    results: tuple[Callable[[Any], Any] | None, ...] | None
    writes: bool  # an insert, update or delete, or a select that locks rows


class DriverStatement:
    """A Core statement run on the driver's connection on PostgreSQL (see above)."""

    def __init__(self, statement: Executable) -> None:
        self.statement = statement
        # By dialect (held, so that no other takes its place), compiled once for each.
        self._compiled: dict[Dialect, _Compiled] = {}

    def _compile(self, dialect: Dialect) -> _Compiled:
        found = self._compiled.get(dialect)
        if found is not None:
            return found
        statement: ClauseElement = self.statement  # type: ignore[assignment]
        compiled = statement.compile(dialect=dialect)
        assert isinstance(compiled, SQLCompiler)
        if compiled.escaped_bind_names or compiled.literal_execute_params:
            raise ValueError("a driver statement takes plain bound parameters only")
        results = tuple(
            column[3]._cached_result_processor(dialect, None) for column in compiled._result_columns
        )
        processors: dict[str, Callable[[Any], Any]] = {}
        for name, process in compiled._bind_processors.items():
            if not callable(process):  # a tuple's, one for each element
                raise ValueError(f"{name}: a driver statement takes scalar parameters only")
            processors[name] = process
        found = _Compiled(
            compiled.string,
            tuple((name, processors.get(name)) for name in compiled.binds),
            results if any(results) else None,
            _WRITES.search(compiled.string) is not None,
        )
        self._compiled[dialect] = found
        return found

    def _run(self, session: Session, params: Mapping[str, Any]) -> tuple[Any, _Compiled] | None:
        """The psycopg cursor the statement ran on and its compiled form, or None off
        PostgreSQL."""
        connection = session.connection()  # the session's transaction, begun if need be
        dialect = connection.dialect
        if dialect.name != "postgresql" or dialect.driver != "psycopg":
            return None  # Session.execute, where a ReadSession checks it
        compiled = self._compile(dialect)
        if compiled.writes and reads_only(session):
            raise WriteInReadSession("a read-only request's session may not write or lock")
        return self._on(connection, compiled, params), compiled

    def _on(self, connection: Connection, compiled: _Compiled, params: Mapping[str, Any]) -> Any:
        """The psycopg cursor the compiled statement ran on, on `connection`."""
        values = _values(compiled, params)
        driver = connection.connection.driver_connection
        assert driver is not None
        try:
            return driver.execute(compiled.sql, values, prepare=True)
        except Exception as error:
            # As SQLAlchemy would: wrapped in its exceptions (a lost server answers 503 as
            # anywhere else), and a connection found dropped invalidated.
            connection._handle_dbapi_exception(error, compiled.sql, values, None, None)
            raise  # not reached: the call above raises

    def first_in_autocommit(
        self, engine: Engine, params: Mapping[str, Any]
    ) -> tuple[Any, ...] | None:
        """Its first row, as a tuple, run as its own transaction (autocommit) on a pooled
        psycopg connection of `engine`, outside any session and without SQLAlchemy's
        connection: a roll on a known head's one statement (known_head.py). Errors are
        SQLAlchemy's, and a connection found dropped is invalidated, as in a session."""
        dialect = engine.dialect
        if dialect.name != "postgresql" or dialect.driver != "psycopg":
            raise ValueError("a driver statement runs on a connection of psycopg only")
        compiled = self._compile(dialect)
        values = _values(compiled, params)
        try:
            pooled = engine.raw_connection()
        except dialect.loaded_dbapi.Error as error:  # as SQLAlchemy's connect wraps it
            raise DBAPIError.instance(
                None, None, error, dialect.loaded_dbapi.Error, dialect=dialect
            ) from error
        try:
            driver = pooled.driver_connection
            assert driver is not None
            driver.autocommit = True  # set on the client: no round trip
            try:
                found = driver.execute(compiled.sql, values, prepare=True).fetchone()
            finally:
                if not driver.closed:
                    driver.autocommit = False  # as the pool lends it
        except Exception as error:
            # Through SQLAlchemy's connection, for its wrapping and its invalidation of the
            # pool's connections when the server is found gone.
            Connection(engine, connection=pooled)._handle_dbapi_exception(
                error, compiled.sql, values, None, None
            )
            raise  # not reached: the call above raises
        finally:
            pooled.close()
        return _processed(found, compiled)

    async def first_on_loop(
        self, connections: LoopConnections, params: Mapping[str, Any]
    ) -> tuple[Any, ...] | None:
        """As `first_in_autocommit`, awaited on the event loop on one of `connections`
        (app/core/loop_connections.py): a roll on a known head's one statement."""
        compiled = self._compile(connections.dialect)
        found = await connections.first(compiled.sql, _values(compiled, params))
        return _processed(found, compiled)

    def execute(self, session: Session, params: Mapping[str, Any]) -> None:
        """Run it for its effects (never in a ReadSession)."""
        if reads_only(session):
            raise WriteInReadSession("a read-only request's session may not write")
        if self._run(session, params) is None:
            session.execute(self.statement, params)

    def all(self, session: Session, params: Mapping[str, Any]) -> Sequence[Sequence[Any]]:
        """Its rows, as tuples (Rows off PostgreSQL)."""
        ran = self._run(session, params)
        if ran is None:
            return session.execute(self.statement, params).all()
        cursor, compiled = ran
        rows: list[tuple[Any, ...]] = cursor.fetchall()
        if compiled.results is None:
            return rows
        return [_processed_row(row, compiled.results) for row in rows]

    def first(self, session: Session, params: Mapping[str, Any]) -> Sequence[Any] | None:
        """Its first row, as a tuple (a Row off PostgreSQL), or None."""
        ran = self._run(session, params)
        if ran is None:
            row: Sequence[Any] | None = session.execute(self.statement, params).first()
            return row
        cursor, compiled = ran
        return _processed(cursor.fetchone(), compiled)


def _values(compiled: _Compiled, params: Mapping[str, Any]) -> dict[str, Any]:
    return {
        name: (process(params[name]) if process is not None else params[name])
        for name, process in compiled.binds
    }


def _processed(found: tuple[Any, ...] | None, compiled: _Compiled) -> tuple[Any, ...] | None:
    """A row as SQLAlchemy's result processors leave it."""
    if found is None or compiled.results is None:
        return found
    return _processed_row(found, compiled.results)


def _processed_row(
    row: Sequence[Any], processors: Sequence[Callable[[Any], Any] | None]
) -> tuple[Any, ...]:
    return tuple(
        value if process is None else process(value)
        for value, process in zip(row, processors, strict=True)
    )
