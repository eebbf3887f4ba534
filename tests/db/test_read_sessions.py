"""Issue 23: a request declared to only read (the odds of a roll) gets a ReadSession: on
PostgreSQL its statements run outside any transaction (no BEGIN, no ROLLBACK: two round
trips fewer), and any write through it is refused, on every database."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, delete, insert, select, text, update
from sqlalchemy.pool import QueuePool
from sqlmodel import Session, col

from app.core import database
from app.core.database import ReadSession, WriteInReadSession, create_db_engine
from app.core.driver_sql import DriverStatement
from app.main import app
from app.models import Campaign, User
from app.routers import common
from tests.conftest import API
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
