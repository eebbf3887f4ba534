"""Plain dice rolls on a head the worker knows (issue 23, app/services/known_head.py), with
committed transactions on PostgreSQL: one statement in autocommit once the worker's last
two rolls saw nobody else append, and the lock's path whenever the campaign's row changed
meanwhile. FAIR-5: whichever path made them, seqs stay gap-free and the log verifies."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import psycopg
import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from sqlalchemy import Engine, text
from sqlalchemy.exc import DataError, OperationalError

from app.core.database import create_db_engine
from app.core.driver_sql import DriverStatement
from app.core.settings import get_settings
from app.engine.hidden import SPAN
from app.main import app
from app.services import known_head, roll_batches
from app.services import rolls as rolls_module
from app.services.access import CurrentEpoch, LockedCampaign
from app.services.feed.notices import CHANNEL, Notice, listen_locally, stop_listening_locally
from app.services.feed.relay import SEND_NOTICES
from app.services.known_head import KnownHead, known_heads, usable
from app.services.log import SPAN_MARGIN
from tests.conftest import API
from tests.db.servers import (
    all_log_entries,
    assert_gap_free_and_verified,
    free_port,
    register_gm_and_campaign,
)

ROLL = {"kind": "dice", "notation": "3d6kh2"}


@pytest.fixture
def on_postgres(committed_app: None, committed_engine: Engine) -> None:
    if committed_engine.dialect.name != "postgresql":
        pytest.skip("rolls on a known head are PostgreSQL's; SQLite takes the lock's path")


@pytest.fixture
def statements(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every statement psycopg sends from here on, BEGIN and COMMIT included, on the
    threads' connections and on the event loop's (app/core/loop_connections.py)."""
    sent: list[str] = []
    execute = psycopg.Cursor.execute
    execute_on_loop = psycopg.AsyncCursor.execute
    command = psycopg.Connection._exec_command  # BEGIN and COMMIT are sent there

    def spied_execute(self: Any, query: Any, *args: Any, **kwargs: Any) -> Any:
        sent.append(str(query))
        return execute(self, query, *args, **kwargs)

    async def spied_execute_on_loop(self: Any, query: Any, *args: Any, **kwargs: Any) -> Any:
        sent.append(str(query))
        return await execute_on_loop(self, query, *args, **kwargs)

    def spied_command(self: Any, query: Any, *args: Any, **kwargs: Any) -> Any:
        sent.append(bytes(query).decode() if isinstance(query, bytes) else str(query))
        return command(self, query, *args, **kwargs)

    monkeypatch.setattr(psycopg.Cursor, "execute", spied_execute)
    monkeypatch.setattr(psycopg.AsyncCursor, "execute", spied_execute_on_loop)
    monkeypatch.setattr(psycopg.Connection, "_exec_command", spied_command)
    yield sent


def asyncio_loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _roll(http: Any, campaign_id: str, headers: dict[str, str], body: Any = ROLL) -> Any:
    return http.post(f"{API}/campaigns/{campaign_id}/rolls", json=body, headers=headers)


def _rolled_three_times(http: Any, name: str) -> tuple[dict[str, str], str]:
    """A GM's campaign after three rolls: the next is made on the head its worker knows."""
    headers, campaign_id = register_gm_and_campaign(http, name)
    for _ in range(3):
        assert _roll(http, campaign_id, headers).status_code == 201
    return headers, campaign_id


def _made_on_known_head(sent: list[str]) -> bool:
    return any("advanced" in statement for statement in sent)


def _locked(sent: list[str]) -> bool:
    return any("FOR UPDATE" in statement for statement in sent)


def test_FAIR_5_a_quiet_campaigns_third_dice_roll_is_one_statement_without_the_lock(
    on_postgres: None, statements: list[str]
) -> None:
    with TestClient(app) as http:
        headers, campaign_id = register_gm_and_campaign(http, "Known Head")
        # The first roll sets the epoch's first roll; the second finds the head the first
        # left: the third may use it.
        for _ in range(2):
            assert _roll(http, campaign_id, headers).status_code == 201
        statements.clear()
        made = _roll(http, campaign_id, headers)
        assert made.status_code == 201, made.text
        assert made.json()["seq"] == 4
        assert _made_on_known_head(statements)
        assert not _locked(statements)
        assert "BEGIN" not in statements and "COMMIT" not in statements
        for _ in range(5):
            assert _roll(http, campaign_id, headers).status_code == 201
        assert_gap_free_and_verified(http, campaign_id, headers, rolls=8)


def test_a_roll_on_a_known_head_awaits_its_statement_on_the_event_loop(
    on_postgres: None, statements: list[str]
) -> None:
    """Not in a thread of the batches: neither the pool's statement nor a batch is made."""
    with TestClient(app) as http:
        headers, campaign_id = _rolled_three_times(http, "On The Loop")

        def in_a_thread(*args: Any, **kwargs: Any) -> Any:
            raise AssertionError("a roll on a known head made in a thread")

        with pytest.MonkeyPatch.context() as threads_refused:
            threads_refused.setattr(DriverStatement, "first_in_autocommit", in_a_thread)
            threads_refused.setattr(roll_batches, "in_batch_thread", in_a_thread)
            statements.clear()
            for seq in (5, 6, 7):
                made = _roll(http, campaign_id, headers)
                assert made.status_code == 201, made.text
                assert made.json()["seq"] == seq
        assert _made_on_known_head(statements) and not _locked(statements)
        assert_gap_free_and_verified(http, campaign_id, headers, rolls=6)


def test_without_loop_connections_a_roll_on_a_known_head_is_made_in_its_batchs_thread(
    on_postgres: None, statements: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """ROLL_LOOP_CONNECTIONS=0: the same statement, on a pooled connection in a thread."""
    monkeypatch.setattr(get_settings(), "roll_loop_connections", 0)
    in_threads: list[bool] = []
    first_in_autocommit = DriverStatement.first_in_autocommit

    def spied(self: DriverStatement, *args: Any, **kwargs: Any) -> Any:
        in_threads.append(asyncio_loop_running() is False)
        return first_in_autocommit(self, *args, **kwargs)

    monkeypatch.setattr(DriverStatement, "first_in_autocommit", spied)
    with TestClient(app) as http:
        headers, campaign_id = _rolled_three_times(http, "In A Thread")
        statements.clear()
        made = _roll(http, campaign_id, headers)
        assert made.status_code == 201, made.text
        assert _made_on_known_head(statements) and not _locked(statements)
        assert in_threads and all(in_threads)
        assert_gap_free_and_verified(http, campaign_id, headers, rolls=4)


def test_a_loop_connection_that_cannot_be_opened_leaves_the_roll_to_the_lock(
    on_postgres: None, statements: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing was sent (too many clients, say): the pool's connections make the roll."""
    with TestClient(app) as http:
        headers, campaign_id = register_gm_and_campaign(http, "No Loop Connection")
        for _ in range(2):  # the next roll may use the head: the first to open a connection
            assert _roll(http, campaign_id, headers).status_code == 201

        async def refused(*args: Any, **kwargs: Any) -> Any:
            raise psycopg.OperationalError("sorry, too many clients already")

        with pytest.MonkeyPatch.context() as full:
            full.setattr(psycopg.AsyncConnection, "connect", refused)
            statements.clear()
            made = _roll(http, campaign_id, headers)
        assert made.status_code == 201, made.text
        assert made.json()["seq"] == 4
        assert _locked(statements) and not _made_on_known_head(statements)
        assert_gap_free_and_verified(http, campaign_id, headers, rolls=3)


def test_a_notice_the_statement_cannot_send_whole_leaves_the_roll_to_the_lock(
    on_postgres: None, statements: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Checked before the statement runs, so that no roll is written and then refused."""
    with TestClient(app) as http:
        headers, campaign_id = _rolled_three_times(http, "Notice Not Whole")
        with pytest.MonkeyPatch.context() as wanting:
            wanting.setattr(known_head, "whole_in_statement", lambda session: False)
            statements.clear()
            made = _roll(http, campaign_id, headers)
        assert made.status_code == 201, made.text
        assert made.json()["seq"] == 5
        assert _locked(statements) and not _made_on_known_head(statements)
        assert_gap_free_and_verified(http, campaign_id, headers, rolls=4)


def test_a_roll_on_a_known_head_is_announced_once_without_a_transaction_of_the_session(
    on_postgres: None, statements: list[str], committed_engine: Engine
) -> None:
    """This process's listeners hear the roll as after a commit, and the others through the
    loop's relay, after the roll's statement: that statement sends no NOTIFY, whose lock
    would make commits wait for each other's flush (feed/relay.py). The request's session
    begins nothing, so nothing sends the notice twice."""
    heard: list[Notice] = []
    listen_locally(heard.append)
    url = committed_engine.url.set(drivername="postgresql")
    try:
        with (
            TestClient(app) as http,
            psycopg.connect(url.render_as_string(hide_password=False), autocommit=True) as feed,
        ):
            headers, campaign_id = _rolled_three_times(http, "Announced")
            feed.execute(f"LISTEN {CHANNEL}")
            heard.clear()
            statements.clear()
            made = _roll(http, campaign_id, headers)
            assert made.status_code == 201, made.text
            sent = [Notice.parse(n.payload) for n in feed.notifies(timeout=1.0)]
            # the roll's statement, then the relay's; the request's session sent nothing
            roll, relayed = statements
            assert "advanced" in roll and "pg_notify" not in roll
            assert relayed == SEND_NOTICES
    finally:
        stop_listening_locally(heard.append)
    seq, campaign = made.json()["seq"], uuid.UUID(campaign_id)
    assert [(n.campaign_id, n.seq, n.topics) for n in sent] == [(campaign, seq, set())]
    assert [(n.campaign_id, n.seq, n.entries) for n in heard] == [(campaign, seq, [(seq, "dice")])]


def test_a_roll_whose_answer_is_lost_after_its_commit_is_announced_all_the_same(
    on_postgres: None, committed_engine: Engine
) -> None:
    """The connection dropped after the server committed: the roller gets an error, and
    the streams are woken all the same (a notice of nothing written would do no harm)."""
    append = known_head._APPEND_ON_KNOWN_HEAD_QUIETLY

    class AnswerLost:
        async def first_on_loop(self, *args: Any) -> Any:
            await append.first_on_loop(*args)
            raise OperationalError("the append", {}, Exception("server closed the connection"))

    url = committed_engine.url.set(drivername="postgresql")
    with (
        TestClient(app) as http,
        psycopg.connect(url.render_as_string(hide_password=False), autocommit=True) as feed,
    ):
        headers, campaign_id = _rolled_three_times(http, "Answer Lost")
        feed.execute(f"LISTEN {CHANNEL}")
        with pytest.MonkeyPatch.context() as dropped:
            dropped.setattr(known_head, "_APPEND_ON_KNOWN_HEAD_QUIETLY", AnswerLost())
            lost = _roll(http, campaign_id, headers)
            sent = [Notice.parse(n.payload) for n in feed.notifies(timeout=1.0)]
        assert lost.status_code == 503, lost.text
        assert [(n.campaign_id, n.seq) for n in sent] == [(uuid.UUID(campaign_id), 5)]
        # it was written: the next roll follows it, and the log verifies
        made = _roll(http, campaign_id, headers)
        assert made.status_code == 201, made.text
        assert made.json()["seq"] == 6
        assert_gap_free_and_verified(http, campaign_id, headers, rolls=5)


@pytest.fixture
def one_connection(on_postgres: None, committed_engine: Engine) -> Iterator[Engine]:
    """An engine on the test database whose pool holds one connection: what a statement in
    autocommit leaves of it is what the next user of the pool gets."""
    url = committed_engine.url.render_as_string(hide_password=False)
    single = create_db_engine(url, pool_size=1)
    yield single
    single.dispose()


def _lent(engine: Engine) -> tuple[bool, Any]:
    """Whether the pool lends its connection in autocommit, and its transaction status."""
    pooled = engine.raw_connection()
    try:
        driver = pooled.driver_connection
        assert driver is not None
        return bool(driver.autocommit), driver.info.transaction_status
    finally:
        pooled.close()


_ISOLATION = DriverStatement(sa.select(sa.func.current_setting(sa.bindparam("name"))))
_AS_INTEGER = DriverStatement(sa.select(sa.cast(sa.bindparam("text", type_=sa.Text), sa.Integer)))


def test_a_statement_in_autocommit_leaves_its_connection_as_the_pool_lent_it(
    one_connection: Engine,
) -> None:
    row = _ISOLATION.first_in_autocommit(one_connection, {"name": "transaction_isolation"})
    assert row == ("read committed",)
    assert _lent(one_connection) == (False, psycopg.pq.TransactionStatus.IDLE)


def test_a_failing_statement_in_autocommit_raises_sqlalchemys_error_and_returns_its_connection(
    one_connection: Engine,
) -> None:
    with pytest.raises(DataError):  # as Session.execute raises it
        _AS_INTEGER.first_in_autocommit(one_connection, {"text": "seven"})
    assert _lent(one_connection) == (False, psycopg.pq.TransactionStatus.IDLE)
    assert _AS_INTEGER.first_in_autocommit(one_connection, {"text": "7"}) == (7,)


def test_a_statement_in_autocommit_without_a_server_raises_sqlalchemys_operational_error(
    on_postgres: None, committed_engine: Engine
) -> None:
    nowhere = committed_engine.url.set(host="127.0.0.1", port=free_port())
    gone = create_db_engine(nowhere.render_as_string(hide_password=False))
    try:
        with pytest.raises(OperationalError):  # the app answers it with a 503
            _ISOLATION.first_in_autocommit(gone, {"name": "transaction_isolation"})
    finally:
        gone.dispose()


def test_FAIR_5_a_roll_after_another_workers_append_is_made_under_the_lock(
    on_postgres: None, statements: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    with TestClient(app) as http:
        headers, campaign_id = _rolled_three_times(http, "Other Worker")
        # Another worker appends: this one's known head stays as it was, one entry behind.
        with monkeypatch.context() as other_worker:
            other_worker.setattr(known_heads, "take", lambda *args: None)
            other_worker.setattr(known_heads, "remember", lambda *args, **kwargs: None)
            assert _roll(http, campaign_id, headers).status_code == 201
        statements.clear()
        made = _roll(http, campaign_id, headers)
        assert made.status_code == 201, made.text
        assert made.json()["seq"] == 6
        assert _made_on_known_head(statements) and _locked(statements)
        assert_gap_free_and_verified(http, campaign_id, headers, rolls=5)


def test_FAIR_5_a_change_of_the_campaigns_row_sends_the_next_roll_through_the_lock(
    on_postgres: None, statements: list[str]
) -> None:
    with TestClient(app) as http:
        headers, campaign_id = _rolled_three_times(http, "Options Changed")
        changed = http.patch(
            f"{API}/campaigns/{campaign_id}",
            json={"options": {"players_set_difficulty": True}},
            headers=headers,
        )
        assert changed.status_code == 200, changed.text
        statements.clear()
        assert _roll(http, campaign_id, headers).status_code == 201
        assert _made_on_known_head(statements) and _locked(statements)
        entries = all_log_entries(http, campaign_id, headers)
        assert [entry["seq"] for entry in entries] == list(range(1, 7))
        assert [entry["kind"] for entry in entries][-2:] == ["options_changed", "dice"]
        verify = http.get(f"{API}/campaigns/{campaign_id}/log/verify", headers=headers)
        assert verify.json()["ok"] is True, verify.text


def _player_rolling(http: Any) -> tuple[dict[str, str], dict[str, str], str, str]:
    """A GM's campaign where a player made three rolls: their next is on the known head."""
    gm_headers, campaign_id = register_gm_and_campaign(http, "Removal")
    player = http.post(f"{API}/users", json={"name": "Leaving player"}).json()
    player_headers = {"Authorization": f"Bearer {player['api_key']}"}
    added = http.post(
        f"{API}/campaigns/{campaign_id}/members",
        json={"user_id": player["id"], "role": "player"},
        headers=gm_headers,
    )
    assert added.status_code == 201, added.text
    for _ in range(3):
        assert _roll(http, campaign_id, player_headers).status_code == 201
    return gm_headers, player_headers, campaign_id, player["id"]


def test_the_members_of_a_table_on_one_worker_share_its_known_head(
    on_postgres: None, statements: list[str]
) -> None:
    with TestClient(app) as http:
        gm_headers, player_headers, campaign_id, _ = _player_rolling(http)
        assert _roll(http, campaign_id, gm_headers).status_code == 201  # its role learned
        for headers in (player_headers, gm_headers, player_headers):
            statements.clear()
            assert _roll(http, campaign_id, headers).status_code == 201
            assert _made_on_known_head(statements) and not _locked(statements)
        assert_gap_free_and_verified(http, campaign_id, gm_headers, rolls=7)


def test_a_roll_whose_session_began_a_transaction_is_made_under_the_lock(
    on_postgres: None, statements: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Should a plain dice roll ever read through its session before its append, that
    transaction holds another connection than the statement's: the roll takes the lock's
    path instead, and nothing of the attempt is written."""
    checked = rolls_module.check_outside_encounters
    read_on_the_loop: list[bool] = []

    def reading_check(session: Any, *args: Any) -> None:
        session.execute(text("SELECT 1"))
        read_on_the_loop.append(asyncio_loop_running())
        checked(session, *args)

    with TestClient(app) as http:
        headers, campaign_id = _rolled_three_times(http, "Read Through Its Session")
        monkeypatch.setattr(rolls_module, "check_outside_encounters", reading_check)
        statements.clear()
        made = _roll(http, campaign_id, headers)
        assert made.status_code == 201, made.text
        assert not _made_on_known_head(statements) and _locked(statements)
        # Refused before it was sent on the event loop; made under the lock in a thread.
        assert read_on_the_loop == [False]
        assert_gap_free_and_verified(http, campaign_id, headers, rolls=4)


def test_a_removed_player_cannot_roll_on_the_head_their_worker_knew(
    on_postgres: None, statements: list[str]
) -> None:
    with TestClient(app) as http:
        gm_headers, player_headers, campaign_id, player_id = _player_rolling(http)
        removed = http.delete(
            f"{API}/campaigns/{campaign_id}/members/{player_id}", headers=gm_headers
        )
        assert removed.status_code == 204, removed.text
        statements.clear()
        refused = _roll(http, campaign_id, player_headers)
        assert refused.status_code == 404, refused.text
        assert _made_on_known_head(statements) and _locked(statements)
        assert_gap_free_and_verified(http, campaign_id, gm_headers, rolls=3)


def test_the_append_checks_the_membership_itself(
    on_postgres: None, committed_engine: Engine, statements: list[str]
) -> None:
    """The member's row deleted without touching the campaign's (as no route does), before
    the roll: the conditional append still finds them gone and writes nothing. (A removal
    committed while the append waits for the row is caught by the row's version: the
    removal touches it, as the test above shows.)"""
    with TestClient(app) as http:
        gm_headers, player_headers, campaign_id, player_id = _player_rolling(http)
        with committed_engine.begin() as connection:
            connection.execute(
                text("DELETE FROM campaign_member WHERE campaign_id = :c AND user_id = :u"),
                {"c": campaign_id, "u": player_id},
            )
        statements.clear()
        refused = _roll(http, campaign_id, player_headers)
        assert refused.status_code == 404, refused.text
        assert _made_on_known_head(statements)
        assert_gap_free_and_verified(http, campaign_id, gm_headers, rolls=3)


def test_a_refused_roll_on_a_known_head_writes_nothing_and_gets_the_locks_answer(
    on_postgres: None, statements: list[str]
) -> None:
    with TestClient(app) as http:
        headers, campaign_id = _rolled_three_times(http, "Bad Notation")
        statements.clear()
        refused = _roll(http, campaign_id, headers, {"kind": "dice", "notation": "0d6"})
        assert refused.status_code == 422, refused.text
        assert "at least one die" in refused.json()["detail"]
        assert _locked(statements)
        assert _roll(http, campaign_id, headers).status_code == 201
        assert_gap_free_and_verified(http, campaign_id, headers, rolls=4)


def test_only_plain_public_dice_rolls_use_a_known_head(
    on_postgres: None, statements: list[str]
) -> None:
    with TestClient(app) as http:
        headers, campaign_id = _rolled_three_times(http, "Hidden Roll")
        statements.clear()
        hidden = {**ROLL, "visibility": "gm"}
        assert _roll(http, campaign_id, headers, hidden).status_code == 201
        assert not _made_on_known_head(statements) and _locked(statements)


# --- when a known head may be used (FAIR-3, FAIR-16) ---------------------------------------

_CAMPAIGN = LockedCampaign(
    id=uuid.uuid4(),
    system="vampire",
    options={},
    current_session=0,
    current_scene=0,
    current_epoch=1,
    last_seq=10,
    last_hash="0" * 64,
    deleted_at=None,
    webhooks=0,
)
_EPOCH = CurrentEpoch(
    number=1,
    server_seed="00" * 32,
    commitment="0" * 64,
    client_seed="",
    first_roll_seq=2,
    opened_seq=1,
    hidden_seed="11" * 32,
)
_USER = uuid.uuid4()


def _known(**changes: Any) -> KnownHead:
    campaign = replace(_CAMPAIGN, **changes.pop("campaign", {}))
    epoch = replace(_EPOCH, **changes.pop("epoch", {}))
    fields: dict[str, Any] = {"version": "1", "roles": {_USER: "player"}, "quiet": True}
    return KnownHead(campaign, epoch, **{**fields, **changes})


def test_a_known_head_is_used_only_when_the_lock_would_read_nothing_new() -> None:
    assert usable(_known(), _USER)
    assert not usable(_known(quiet=False), _USER)  # somebody else appended lately
    assert not usable(_known(), uuid.uuid4())  # no role known for this user
    # FAIR-3: before the epoch's first roll its client seed may still change.
    assert not usable(_known(epoch={"first_roll_seq": None}), _USER)
    assert not usable(_known(campaign={"webhooks": 1}), _USER)  # deliveries are written too


def test_FAIR_16_a_roll_that_would_rotate_the_epoch_takes_the_lock() -> None:
    rotating_at = _EPOCH.opened_seq + SPAN - SPAN_MARGIN  # the next entry's seq rotates it
    assert usable(_known(campaign={"last_seq": rotating_at - 3}), _USER)
    assert not usable(_known(campaign={"last_seq": rotating_at - 2}), _USER)
    assert not usable(_known(campaign={"last_seq": rotating_at}), _USER)
