"""Issue 23: a request declared to only read (a GET that reads, the odds of a roll) gets a
ReadSession: on PostgreSQL its statements run outside any transaction (no BEGIN, no
ROLLBACK: two round trips fewer), and any write through it is refused, on every database,
and in the suite's shared session while such a request runs."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from sqlalchemy import Engine, delete, insert, select, text, update
from sqlalchemy.pool import QueuePool
from sqlmodel import Session, col

from app.core import database, security
from app.core.database import (
    ReadSession,
    WriteInReadSession,
    create_db_engine,
    get_db,
    get_lookup_session,
    get_read_only_db,
    get_read_session,
)
from app.core.driver_sql import DriverStatement
from app.core.security import get_current_user, verified_keys
from app.engine.registry import DEFAULT_REGISTRY
from app.main import app
from app.models import Campaign, User
from app.routers import campaigns as campaigns_router
from app.routers import common
from app.services import encounters as encounters_service
from app.services import heavy_reads
from app.services.feed import reading
from tests.conftest import API, Caller, api_routes
from tests.db.servers import register_gm_and_campaign

ON_POSTGRES = "postgresql"
USERS = User.__table__.c  # type: ignore[attr-defined]
# Statements that match no row: were one let through, it would leave nothing behind.
_RENAME_NOBODY = update(User).where(text("false")).values(name="x")
_INSERT_NOTHING = insert(User).from_select(
    ["id", "name", "api_key_hash", "created_at"],
    select(USERS.id, USERS.name, USERS.api_key_hash, USERS.created_at).where(text("false")),
)
_LOCK_NOTHING = select(col(Campaign.id)).where(text("false")).with_for_update()


@pytest.fixture
def one_connection(db_engine: Engine, database_url: str) -> Iterator[Engine]:
    """An engine of one pooled connection on the migrated test database: what a ReadSession
    leaves on it is what the next session gets."""
    engine = create_db_engine(database_url, pool_size=1, max_overflow=0)
    yield engine
    engine.dispose()


def _in_transaction(session: Session) -> bool:
    """Whether the server has the session's connection in a transaction (PostgreSQL)."""
    from psycopg.pq import TransactionStatus

    driver = session.connection().connection.driver_connection
    assert driver is not None
    return bool(driver.info.transaction_status != TransactionStatus.IDLE)


def test_a_read_session_reads_outside_any_transaction_on_postgres(one_connection: Engine) -> None:
    if one_connection.dialect.name != ON_POSTGRES:
        pytest.skip("SQLite's transactions are taken in process: no round trip to spare")
    with ReadSession(database.reading_engine(one_connection)) as reads:
        assert reads.execute(text("SELECT 1")).scalar() == 1
        assert not _in_transaction(reads)  # no BEGIN was sent
        assert reads.execute(text("SHOW transaction_isolation")).scalar() == "read committed"
    # The pooled connection goes back transactional for the requests that write.
    with Session(one_connection) as writes:
        writes.execute(text("SELECT 1"))
        assert _in_transaction(writes)


@pytest.mark.parametrize(
    "write",
    [
        lambda s: s.execute(_RENAME_NOBODY),
        lambda s: s.execute(delete(Campaign).where(text("false"))),
        lambda s: s.execute(_INSERT_NOTHING),
        lambda s: s.execute(_LOCK_NOTHING),
        lambda s: DriverStatement(_RENAME_NOBODY).execute(s, {}),
        lambda s: DriverStatement(_INSERT_NOTHING.returning(USERS.id)).all(s, {}),
        lambda s: DriverStatement(_LOCK_NOTHING).first(s, {}),
    ],
    ids=[
        "update",
        "delete",
        "insert",
        "select for update",
        "driver: for its effects",
        "driver: insert returning",
        "driver: select for update",
    ],
)
def test_a_read_session_refuses_a_statement_that_writes_or_locks(
    one_connection: Engine, write: Any
) -> None:
    with (
        ReadSession(database.reading_engine(one_connection)) as reads,
        pytest.raises(WriteInReadSession),
    ):
        write(reads)


def test_a_read_session_refuses_to_flush_a_change(one_connection: Engine) -> None:
    key_hash = uuid.uuid4().hex
    try:
        with ReadSession(database.reading_engine(one_connection)) as reads:
            reads.add(User(name="Nobody", api_key_hash=key_hash))
            with pytest.raises(WriteInReadSession):
                reads.flush()
    finally:  # were the flush let through in autocommit, the user would stay
        with Session(one_connection) as cleanup:
            cleanup.execute(delete(User).where(col(User.api_key_hash) == key_hash))
            cleanup.commit()


def test_a_read_session_runs_a_driver_statement_that_reads(one_connection: Engine) -> None:
    names = DriverStatement(select(col(Campaign.name)).where(text("false")))
    with ReadSession(database.reading_engine(one_connection)) as reads:
        assert list(names.all(reads, {})) == []
        assert names.first(reads, {}) is None


def test_the_odds_of_a_plain_request_are_read_through_a_read_session(
    committed_app: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[Session] = []

    def recording(method: str, *, reads_only: bool = False) -> Session:
        session = database.open_request_session(method, reads_only=reads_only)
        opened.append(session)
        return session

    monkeypatch.setattr(common, "open_request_session", recording)
    with TestClient(app) as http:
        headers, campaign_id = register_gm_and_campaign(http, "Odile")
        # The odds read through a ReadSession; a roll, which writes, gets one that may.
        for path, status, session_type in (("odds", 200, ReadSession), ("rolls", 201, Session)):
            opened.clear()
            answer = http.post(
                f"{API}/campaigns/{campaign_id}/{path}",
                json={"kind": "dice", "notation": "2d6"},
                headers=headers,
            )
            assert answer.status_code == status, answer.text
            assert [type(session) for session in opened] == [session_type]
            if path == "odds":
                assert answer.json()["odds"]["distributions"][0]["mean"] == 7
    pool = database.get_engine().pool
    assert isinstance(pool, QueuePool) and pool.checkedout() == 0  # each request gave its back
    with Session(database.get_engine()) as check:
        campaign = check.get(Campaign, uuid.UUID(campaign_id))
        assert campaign is not None and campaign.last_seq == 2  # the epoch and the roll


# The GET routes that write, and what: every other GET that opens a session only reads
# (issue 23), so it reads through a ReadSession.
GETS_THAT_WRITE = {
    "fairness-get": "opens the first epoch of a campaign older than the log",
    "events-follow": "redeems (deletes) a one-time stream ticket",
}
# Long reads: they stream their pages through one READ ONLY transaction.
LONG_READS = {"log-verify", "log-export"}
# GET routes that open no session but the key lookup's, which connects only on a cache miss.
NO_SESSION = {"users-me", "systems-list", "systems-get", "systems-rules", "rules-get"}


def _dependencies_of(route: APIRoute, *, skipping: Any = None) -> set[Any]:
    """Every dependency of the route, however deep, but `skipping` and what it depends on."""
    found: set[Any] = set()
    stack = list(route.dependant.dependencies)
    while stack:
        dependency = stack.pop()
        if dependency.call is skipping:
            continue
        found.add(dependency.call)
        stack.extend(dependency.dependencies)
    return found


def test_every_get_route_that_only_reads_gets_a_read_session() -> None:
    without_session = set()
    for route in api_routes(app.routes):
        if "GET" not in route.methods:
            continue
        own = _dependencies_of(route, skipping=get_current_user)
        if route.operation_id in GETS_THAT_WRITE:
            assert get_db in own and get_read_session not in own, route.operation_id
        elif route.operation_id in LONG_READS:
            assert get_read_only_db in own and get_db not in own, route.operation_id
        else:
            assert get_db not in own and get_read_only_db not in own, route.operation_id
            if get_read_session not in own:
                without_session.add(route.operation_id)
    assert without_session == NO_SESSION
    # and the odds of a roll, a POST that only reads, whichever path resolves it
    odds = next(r for r in api_routes(app.routes) if r.operation_id == "odds-compute")
    assert get_read_session in _dependencies_of(odds) and get_db not in _dependencies_of(odds)


def test_lookups_before_a_request_s_work_get_a_read_session_of_their_own() -> None:
    """The caller's key lookup reads one row: whatever the route, GET or write, it runs in
    get_lookup_session's ReadSession, never in the transaction of a write's session; so do
    the feed's lookup (made in its code, for a stream opened by key rather than by ticket)
    and the membership check before an encounter action's body is read."""
    authenticated = 0
    by_id = {route.operation_id: route for route in api_routes(app.routes)}
    for route in by_id.values():
        if get_current_user in _dependencies_of(route):
            authenticated += 1
            lookup = [d for d in route.dependant.dependencies if d.call is get_current_user]
            assert {d.call for d in lookup[0].dependencies} >= {get_lookup_session}, route.path
            assert get_db not in {d.call for d in lookup[0].dependencies}, route.path
    assert authenticated > 50
    follow = {d.call for d in by_id["events-follow"].dependant.dependencies}
    assert get_lookup_session in follow  # and get_db, for a ticket it redeems
    [member] = [
        d
        for d in by_id["encounters-act"].dependant.dependencies
        if getattr(d.call, "__name__", "") == "member"
    ]
    assert get_lookup_session in {d.call for d in member.dependencies}
    assert get_db not in {d.call for d in member.dependencies}


def test_a_get_that_writes_is_refused_in_the_suite_and_the_next_request_is_served(
    client: TestClient, session: Session, gm: Caller, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The suite serves every request from one session; while a request declared to only
    read runs, it refuses writes as a ReadSession would in production."""
    created = client.post(
        f"{API}/campaigns", json={"name": "Elysium", "system": "vampire"}, headers=gm.headers
    )
    assert created.status_code == 201, created.text
    campaign = f"{API}/campaigns/{created.json()['id']}"
    reading = campaigns_router.get_campaign_access

    def writing(session: Session, *args: Any, **kwargs: Any) -> Any:
        session.add(User(name="Intruder", api_key_hash=uuid.uuid4().hex))
        session.flush()
        return reading(session, *args, **kwargs)

    monkeypatch.setattr(campaigns_router, "get_campaign_access", writing)
    with pytest.raises(WriteInReadSession):
        client.get(campaign, headers=gm.headers)
    monkeypatch.setattr(campaigns_router, "get_campaign_access", reading)
    # The writes that follow are served, and the refused user was never written.
    renamed = client.patch(campaign, json={"name": "Elysium West"}, headers=gm.headers)
    assert renamed.status_code == 200, renamed.text
    shown = client.get(campaign, headers=gm.headers)
    assert shown.status_code == 200 and shown.json()["name"] == "Elysium West"
    assert session.exec(select(User).where(col(User.name) == "Intruder")).first() is None


def test_gets_that_read_and_gets_that_write_get_their_sessions(
    committed_app: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[Session] = []
    opening = database.open_request_session

    def recording(method: str, *, reads_only: bool = False) -> Session:
        session = opening(method, reads_only=reads_only)
        opened.append(session)
        return session

    def key_session() -> Iterator[Session]:  # not recorded: the route's own are compared
        session = opening("GET", reads_only=True)
        try:
            yield session
        finally:
            session.close()

    monkeypatch.setattr(database, "open_request_session", recording)
    monkeypatch.setitem(app.dependency_overrides, get_lookup_session, key_session)
    with TestClient(app) as http:
        headers, campaign_id = register_gm_and_campaign(http, "Octavia")
        for path, read_session in (("", True), ("/characters", True), ("/fairness", False)):
            opened.clear()
            answer = http.get(f"{API}/campaigns/{campaign_id}{path}", headers=headers)
            assert answer.status_code == 200, answer.text
            assert any(isinstance(s, ReadSession) for s in opened) is read_session, path
    pool = database.get_engine().pool
    assert isinstance(pool, QueuePool) and pool.checkedout() == 0


def test_a_key_not_yet_verified_is_looked_up_in_a_read_session(
    committed_app: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a read and on writes, the lookup of a key the worker has not verified yet runs in
    a ReadSession (outside a transaction on PostgreSQL, no write lock on SQLite), and the
    request is then served as usual."""
    # Each lookup's session, and whether it still held its connection once done.
    looked_up_in: list[tuple[Session, bool]] = []
    lookup, load_encounter = security._lookup, encounters_service.load

    def recording(session: Session, key_hash: str) -> User | None:
        try:
            return lookup(session, key_hash)
        finally:
            looked_up_in.append((session, session.in_transaction()))

    def recording_load(session: Session, *args: Any, **kwargs: Any) -> Any:
        try:
            return load_encounter(session, *args, **kwargs)
        finally:
            looked_up_in.append((session, False))

    monkeypatch.setattr(security, "_lookup", recording)
    monkeypatch.setattr(encounters_service, "load", recording_load)
    with TestClient(app) as http:
        headers, campaign_id = register_gm_and_campaign(http, "Octavia")
        campaign = f"{API}/campaigns/{campaign_id}"
        nowhere = uuid.uuid4()
        for method, path, body, status, lookups in (
            ("GET", campaign, None, 200, 1),
            ("PATCH", campaign, {"name": "Elysium West"}, 200, 1),
            ("POST", f"{campaign}/rolls", {"kind": "dice", "notation": "1d6"}, 201, 1),
            ("GET", f"{API}/campaigns/{nowhere}/events", None, 404, 1),
            # the key, then the membership check, before the body is read
            ("POST", f"{API}/encounters/{nowhere}/actions", {"kind": "x"}, 404, 2),
        ):
            verified_keys.forget_all()
            looked_up_in.clear()
            answer = http.request(method, path, json=body, headers=headers)
            assert answer.status_code == status, answer.text
            assert len(looked_up_in) == lookups, path
            for session, held in looked_up_in:
                assert isinstance(session, ReadSession), path
                assert not held, path  # its connection given back before the work
        assert http.get(campaign, headers=headers).json()["name"] == "Elysium West"
    pool = database.get_engine().pool
    assert isinstance(pool, QueuePool) and pool.checkedout() == 0


def test_the_feeds_reads_run_outside_a_transaction(
    committed_app: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A campaign's feed reads each new entry once for its followers (a room), and a new
    stream catches up: in a ReadSession, so on PostgreSQL no BEGIN and no ROLLBACK, whose
    ROLLBACK made psycopg drop the statements the rolls had prepared on that connection."""
    seen: list[tuple[Session, bool]] = []
    rows_after = reading._rows_after

    def recording(session: Session, campaign_id: uuid.UUID, after_seq: int) -> Any:
        on_postgres = session.get_bind().dialect.name == ON_POSTGRES
        seen.append((session, on_postgres and _in_transaction(session)))
        return rows_after(session, campaign_id, after_seq)

    monkeypatch.setattr(reading, "_rows_after", recording)
    with TestClient(app) as http:
        headers, campaign_id = register_gm_and_campaign(http, "Octavia")
        rolled = http.post(
            f"{API}/campaigns/{campaign_id}/rolls",
            json={"kind": "dice", "notation": "1d6"},
            headers=headers,
        )
        assert rolled.status_code == 201, rolled.text
        gm_id = http.get(f"{API}/users/me", headers=headers).json()["id"]
    with Session(database.get_engine()) as lookup:
        gm = lookup.get(User, uuid.UUID(gm_id))
        assert gm is not None
        lookup.expunge(gm)
    viewer = reading.Viewer(gm, "en", DEFAULT_REGISTRY)
    campaign = uuid.UUID(campaign_id)
    caught_up = reading.catch_up(campaign, viewer, 0)
    batch = reading.read_room(campaign, 0, [(viewer, "gm")], set(), recheck=True)
    assert caught_up and batch.events[viewer.key]  # the roll, as the GM sees it
    assert len(seen) == 2
    assert all(isinstance(session, ReadSession) for session, _ in seen)
    assert not any(in_transaction for _, in_transaction in seen)


def test_a_verified_head_is_answered_without_beginning_the_long_read(
    committed_app: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """GET .../log/verify of a head already verified reads that head through the request's
    lookup ReadSession: its READ ONLY session never begins a transaction (on PostgreSQL a
    BEGIN and a COMMIT saved). A head not verified yet is verified in the READ ONLY
    transaction, as before."""
    long_reads: list[bool] = []
    ending = heavy_reads.end_reads

    def recording(session: Session) -> None:
        if not isinstance(session, ReadSession):  # the long read's own session
            long_reads.append(session.in_transaction())
        ending(session)

    monkeypatch.setattr(heavy_reads, "end_reads", recording)
    heavy_reads.reports.clear()
    with TestClient(app) as http:
        headers, campaign_id = register_gm_and_campaign(http, "Ottilie")
        verify = f"{API}/campaigns/{campaign_id}/log/verify"
        for rolled in (False, True):
            if rolled:  # a new head: verified again, in full
                roll = http.post(
                    f"{API}/campaigns/{campaign_id}/rolls",
                    json={"kind": "dice", "notation": "2d6"},
                    headers=headers,
                )
                assert roll.status_code == 201, roll.text
            answers = [http.get(verify, headers=headers) for _ in range(3)]
            assert all(a.status_code == 200 and a.json()["ok"] for a in answers), answers
            assert answers[0].json() == answers[1].json() == answers[2].json()
    # The first of each three read the log in a transaction; the two after it did not.
    assert long_reads == [True, False, False, True, False, False]
    pool = database.get_engine().pool
    assert isinstance(pool, QueuePool) and pool.checkedout() == 0


def test_a_long_read_ends_without_dropping_the_connection_s_prepared_statements(
    one_connection: Engine,
) -> None:
    """A READ ONLY transaction (verification, export) ends in COMMIT on PostgreSQL, which
    keeps no row a ROLLBACK would undo; psycopg would drop every statement prepared on the
    pooled connection at a ROLLBACK, and the next rolls there would prepare theirs again."""
    if one_connection.dialect.name != ON_POSTGRES:
        pytest.skip("prepared statements are psycopg's, on PostgreSQL")
    prepared = text("SELECT count(*) FROM pg_prepared_statements")
    with Session(one_connection.execution_options(postgresql_readonly=True)) as reads:
        driver = reads.connection().connection.driver_connection
        assert driver is not None
        driver.execute("SELECT 1", prepare=True)
        assert reads.execute(prepared).scalar() == 1
        heavy_reads.end_reads(reads)
        assert not reads.in_transaction()
    with Session(one_connection) as writes:  # the same pooled connection
        assert writes.execute(prepared).scalar() == 1
        # A write's session ends as before: a ROLLBACK, which drops them.
        writes.rollback()
        assert writes.execute(prepared).scalar() == 0


def test_a_long_read_whose_connection_was_lost_ends_in_a_rollback(one_connection: Engine) -> None:
    """A connection lost mid-read leaves the session unable to commit: it is rolled back,
    so the read's own error (a 503) is what the caller gets, and the session is usable."""
    if one_connection.dialect.name != ON_POSTGRES:
        pytest.skip("a READ ONLY transaction ends in COMMIT on PostgreSQL only")
    with Session(one_connection.execution_options(postgresql_readonly=True)) as reads:
        assert reads.execute(text("SELECT 1")).scalar() == 1
        reads.connection().invalidate()
        heavy_reads.end_reads(reads)
        assert not reads.in_transaction()
        assert reads.execute(text("SELECT 2")).scalar() == 2
