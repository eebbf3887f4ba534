"""The database engine and the request session.

SQLite is the first-run default: WAL, a busy timeout, and every request that may write
begins its transaction with BEGIN IMMEDIATE, so concurrent writers queue on the lock
instead of failing when a read transaction tries to upgrade (FAIR-5).
"""

from __future__ import annotations

import json
import math
from collections.abc import AsyncIterator
from functools import lru_cache
from typing import Annotated, Any

import anyio
import orjson
from fastapi import Depends, Request
from sqlalchemy import Engine, create_engine, event, orm
from sqlalchemy.orm import ORMExecuteState, UOWTransaction
from sqlmodel import Session

from app.core.settings import get_settings

WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
# A PostgreSQL connection is replaced after this long (the pool's and the loop's).
POOL_RECYCLE_SECONDS = 1800


def json_for_postgres(value: Any) -> bytes | str:
    """A JSON column's value as psycopg sends it: the PostgreSQL engine's `json_serializer`.

    orjson, not psycopg's default `json.dumps`, which took about 2% of the workers' time with
    the GIL under the roll load, writing each entry's request, draws, result and effects
    (issue 23, bench/profile.md). Where orjson would write something else, `json.dumps`
    does, so a column gets what it got before: a key that is not a string, an integer past
    64 bits, a lone surrogate, nesting past orjson's 254 levels or a float subclass (which
    orjson refuses), a NaN or an infinity (which orjson writes as null, where `json.dumps`
    writes NaN and PostgreSQL refuses it), and a date, a time or a dataclass (which
    `json.dumps` refuses, and orjson is told to refuse too). A UUID or a plain Enum, which
    `json.dumps` also refuses, orjson writes as text: no column is given one, as the suite
    would fail on SQLite, whose engine keeps `json.dumps`.
    """
    try:
        written = orjson.dumps(value, option=_REFUSED_AS_JSON_DUMPS_DOES)
    except TypeError:
        return json.dumps(value)
    if b"null" in written and _holds_non_finite(value):
        return json.dumps(value)
    return written  # bytes: psycopg sends them as they are


_REFUSED_AS_JSON_DUMPS_DOES = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS


def _holds_non_finite(value: Any) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if type(item) is float:
            if not math.isfinite(item):
                return True
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return False


def create_db_engine(url: str, *, busy_timeout_ms: int = 30_000, **kwargs: Any) -> Engine:
    """An engine for `url`; SQLite gets the pragmas and the BEGIN handling described above."""
    if not url.startswith("sqlite"):
        kwargs.setdefault("json_serializer", json_for_postgres)
        # No pre-ping: it costs a round trip on every request. A connection the server
        # dropped fails one request, and SQLAlchemy then discards the pool's stale ones.
        kwargs.setdefault("pool_recycle", POOL_RECYCLE_SECONDS)
        kwargs.setdefault("pool_size", 10)
        kwargs.setdefault("max_overflow", 20)
        return create_engine(url, **kwargs)

    engine = create_engine(
        url,
        connect_args={"check_same_thread": False, "timeout": busy_timeout_ms / 1000},
        **kwargs,
    )

    @event.listens_for(engine, "connect")
    def _configure(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy's "begin" event emit BEGIN itself (the pysqlite recipe).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        if ":memory:" not in url:
            cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(connection: Any) -> None:
        mode = connection.get_execution_options().get("sqlite_begin", "DEFERRED")
        connection.exec_driver_sql(f"BEGIN {mode}")

    return engine


@lru_cache
def get_engine() -> Engine:
    settings = get_settings()
    return create_db_engine(settings.database_url, busy_timeout_ms=settings.sqlite_busy_timeout_ms)


@lru_cache
def _write_engine() -> Engine:
    # Same pool; on SQLite its transactions take the write lock at BEGIN.
    return get_engine().execution_options(sqlite_begin="IMMEDIATE")


async def get_db(request: Request) -> AsyncIterator[Session]:
    """One session per request; requests that may write begin as writers.

    Async only to spare two threadpool hops per request: opening a session does no I/O
    (it connects on first use, in the endpoint's thread), and closing one does none
    once its transaction has ended; a transaction left open is rolled back in a worker
    thread like every other database call.
    """
    session = open_request_session(request.method)
    try:
        yield session
    finally:
        await close_session(session)


def open_request_session(method: str, *, reads_only: bool = False) -> Session:
    """A request's session: on SQLite, requests that may write begin as writers; a request
    known to only read (`reads_only`, whatever its method) gets a ReadSession."""
    if reads_only:
        return new_read_session()
    bind = _write_engine() if method in WRITE_METHODS else get_engine()
    return Session(bind, expire_on_commit=False)


# The session.info key of a session that may only read: every ReadSession, and the tests'
# shared session while it serves a read-only request.
READS_ONLY = "nocturne.reads_only"


class ReadSession(Session):
    """The session of a request that only reads (issue 23): the GET routes that read, the
    odds of a roll, what a request looks up before its own work (get_lookup_session); and
    of the service's own reads (the feed's, the webhook sender's poll).

    On PostgreSQL its statements run outside any transaction (AUTOCOMMIT): at READ
    COMMITTED a transaction of reads sees what each of its statements would see alone, so
    its BEGIN and ROLLBACK were two round trips for nothing, each waking the database's
    process. The request was declared to only read, and without a transaction a write could
    be left half made and a row lock would end with its statement, so on every database a
    ReadSession refuses a flush, and an insert, update, delete or `FOR UPDATE` select run
    through `Session.execute` or a `DriverStatement`. SQL written as text, or run on the
    session's connection directly, is not inspected: a read-only route has no cause to. Nor
    is a select of a function with effects: an advisory lock (idempotency) would end with
    its statement, and a `pg_notify` (the feed) would be sent at once, so neither belongs
    in a read-only request.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.info[READS_ONLY] = True


def reads_only(session: orm.Session) -> bool:
    """Whether the session serves a request declared to only read."""
    return bool(session.info.get(READS_ONLY))


class WriteInReadSession(RuntimeError):
    """A request declared to only read tried to write."""


def _refuse_flush(session: Session, _flush: UOWTransaction, _instances: object) -> None:
    if reads_only(session) and (session.new or session.dirty or session.deleted):
        raise WriteInReadSession("a read-only request's session may not flush changes")


def _refuse_dml(state: ORMExecuteState) -> None:
    if not reads_only(state.session):
        return
    if state.is_insert or state.is_update or state.is_delete:
        raise WriteInReadSession("a read-only request's session may not write")
    # SQLAlchemy has no public accessor for a select's FOR UPDATE; tests hold this one.
    if state.is_select and getattr(state.statement, "_for_update_arg", None) is not None:
        raise WriteInReadSession("a read-only request's session may not lock rows")


def guard_reads(target: type[Session] | Session) -> None:
    """Refuse writes in `target`'s sessions (a class, or one session) while `reads_only`
    holds: every ReadSession, and the tests' shared session, which serves every request of a
    test and so is marked only while a read-only one runs. Guarding twice adds nothing."""
    if not event.contains(target, "before_flush", _refuse_flush):
        event.listen(target, "before_flush", _refuse_flush)
        event.listen(target, "do_orm_execute", _refuse_dml)


guard_reads(ReadSession)


def new_read_session() -> ReadSession:
    """A ReadSession on the app's pool: a request's that only reads, or a read of the
    service's own (the feed's rooms and streams catching up) that needs no transaction."""
    return ReadSession(reading_engine(get_engine()), expire_on_commit=False)


@lru_cache(maxsize=4)
def reading_engine(engine: Engine) -> Engine:
    """`engine`'s pool, its connections in AUTOCOMMIT while they serve a ReadSession."""
    if engine.dialect.name != "postgresql":
        return engine  # SQLite: a deferred transaction is a read lock taken in process
    return engine.execution_options(isolation_level="AUTOCOMMIT")


async def close_session(session: Session) -> None:
    """Close a request's session; a transaction left open is rolled back in a thread."""
    if session.in_transaction():
        # Not on the default limiter: when endpoints holding all its tokens wait for a
        # pooled connection, this close is what returns one (a deadlock until the pool
        # times out). FastAPI exits sync dependencies the same way.
        await anyio.to_thread.run_sync(session.close, limiter=anyio.CapacityLimiter(1))
    else:
        session.close()


SessionDep = Annotated[Session, Depends(get_db)]


def read_only_engine() -> Engine:
    """The pool's connections, their transactions READ ONLY on PostgreSQL (on SQLite, WAL
    readers never block the writer)."""
    return get_engine().execution_options(postgresql_readonly=True)


async def get_read_only_db() -> AsyncIterator[Session]:
    """A session for long reads (verification, export), used from their own threads."""
    session = Session(read_only_engine(), expire_on_commit=False)
    try:
        yield session
    finally:
        await close_session(session)


ReadOnlySessionDep = Annotated[Session, Depends(get_read_only_db)]


async def get_read_session() -> AsyncIterator[Session]:
    """The session of a request that only reads: a ReadSession (see there)."""
    session = open_request_session("GET", reads_only=True)
    try:
        yield session
    finally:
        await close_session(session)


ReadSessionDep = Annotated[Session, Depends(get_read_session)]


async def get_lookup_session() -> AsyncIterator[Session]:
    """The session of what a request looks up before its own work: the caller's API key
    when the worker has not verified it yet, an encounter's membership before an action's
    body is read, the log's head before a verification (a head already verified needs no
    more). A ReadSession, so that a write's lookups take no transaction of their own
    (on SQLite, a write's would take the write lock to read a row). Its own dependency, not
    get_read_session: the tests serve both from one session, marked as only reading while a
    read-only request runs, which a write's lookups are not."""
    session = open_request_session("GET", reads_only=True)
    try:
        yield session
    finally:
        await close_session(session)


LookupSessionDep = Annotated[Session, Depends(get_lookup_session)]
