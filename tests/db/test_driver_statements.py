"""The roll's hot statements on the driver's connection (app/core/driver_sql.py, issue 23):
they read and write exactly what `Session.execute` would, in the session's transaction, and
fail with SQLAlchemy's errors. On SQLite they are `Session.execute` itself."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from app.engine.audit import seal
from app.models import Campaign, LogEntry
from app.services import access as access_module
from app.services import log as log_module
from app.services.access import LockedCampaign, get_campaign_access
from app.services.log import append_entry, now_rfc3339
from tests.conftest import API, Caller

ON_POSTGRES = "postgresql"


def _user(session: Session, caller: Caller) -> Any:
    from app.models import User

    user = session.get(User, uuid.UUID(caller.id))
    assert user is not None
    return user


def test_the_lock_reads_what_session_execute_reads(
    client: Any, session: Session, gm: Caller, make_campaign: Any
) -> None:
    campaign = make_campaign()
    params = {"campaign_id": uuid.UUID(campaign["id"]), "user_id": uuid.UUID(gm.id)}
    driver = access_module._LOCK_ACCESS.first(session, params)
    through_orm = session.execute(access_module._LOCKED_ACCESS, params).first()
    assert driver is not None and through_orm is not None
    assert tuple(driver) == tuple(through_orm)
    # deleted_at goes through its result processor on both paths (a UTC timestamp or None)
    assert [type(value) for value in driver] == [type(value) for value in through_orm]
    if session.get_bind().dialect.name == ON_POSTGRES:
        assert type(driver) is tuple  # read on the driver's connection, not as a Row
    session.rollback()


def test_the_lock_finds_nothing_for_an_outsider(
    client: Any, session: Session, make_campaign: Any, outsider: Caller
) -> None:
    campaign = make_campaign()
    params = {"campaign_id": uuid.UUID(campaign["id"]), "user_id": uuid.UUID(outsider.id)}
    assert access_module._LOCK_ACCESS.first(session, params) is None
    session.rollback()


def _params(campaign: LockedCampaign, seq: int, prev_hash: str, actor: str) -> dict[str, Any]:
    """The parameters append_entry gives the append, for a plain entry with JSON values."""
    content = {
        "seq": seq,
        "epoch": campaign.current_epoch,
        "kind": "dice",
        "created_at": now_rfc3339(),
        "actor_id": actor,
        "character_id": None,
        "visibility": "public",
        "request": {"notation": "3d6kh2", "é": [1, "2.5", None, True]},
        "draws": [{"sides": 6, "value": 4}],
        "result": {"total": 9, "nested": {"a": "b"}},
        "effects": [],
        "label": "l'attaque",
    }
    sealed = seal(content, prev_hash)
    row = {
        "campaign_id": campaign.id,
        "follows": None,
        "rules": None,
        "fairness": None,
        "label": None,
        **sealed,
        "entry_key": None,
        "proof": None,
        "disclosures": [{"path": "x", "salt": "00", "value": 3}],
        "session": 2,
        "scene": 5,
    }
    params = {f"entry_{name}": value for name, value in row.items()}
    params["notify_channel"] = "nocturne_test_driver"
    params["notify_payload"] = "{}"
    return params


def test_the_append_writes_what_session_execute_writes(
    client: Any, session: Session, gm: Caller, make_campaign: Any
) -> None:
    if session.get_bind().dialect.name != ON_POSTGRES:
        pytest.skip("the combined append statement is PostgreSQL's (SQLite takes two)")
    user = _user(session, gm)
    first = get_campaign_access(session, uuid.UUID(make_campaign()["id"]), user, lock=True)
    second = get_campaign_access(session, uuid.UUID(make_campaign()["id"]), user, lock=True)
    by_orm = _params(first.campaign, first.campaign.last_seq + 1, first.campaign.last_hash, gm.id)
    by_driver = {
        **by_orm,
        "entry_campaign_id": second.campaign.id,
        "entry_seq": second.campaign.last_seq + 1,
    }
    session.execute(log_module.APPEND_AND_ADVANCE, by_orm)
    log_module._APPEND_AND_ADVANCE.execute(session, by_driver)
    session.expire_all()

    def written(access: Any) -> tuple[dict[str, Any], tuple[int, str]]:
        entry = session.execute(
            select(LogEntry).where(
                LogEntry.campaign_id == access.campaign.id,
                LogEntry.seq == access.campaign.last_seq + 1,
            )
        ).scalar_one()
        values = entry.model_dump()
        values.pop("campaign_id")
        values.pop("seq")
        head = session.get(Campaign, access.campaign.id)
        assert head is not None
        return values, (head.last_seq - access.campaign.last_seq, head.last_hash)

    assert written(first) == written(second)
    assert written(second)[1] == (1, by_orm["entry_hash"])
    session.rollback()


def test_a_failed_driver_statement_raises_what_sqlalchemy_raises(
    client: Any, session: Session, gm: Caller, make_campaign: Any
) -> None:
    user = _user(session, gm)
    access = get_campaign_access(session, uuid.UUID(make_campaign()["id"]), user, lock=True)
    campaign = access.campaign
    taken = campaign.last_seq  # the epoch's opening entry has it already
    with pytest.raises(IntegrityError), session.begin_nested():
        if session.get_bind().dialect.name == ON_POSTGRES:
            log_module._APPEND_AND_ADVANCE.execute(
                session, _params(campaign, taken, campaign.last_hash, gm.id)
            )
        else:
            session.execute(log_module.LOG_INSERT, _params(campaign, taken, "", gm.id))
    session.rollback()


def test_rolls_through_the_driver_keep_the_log_verified(
    client: Any, session: Session, gm: Caller, make_campaign: Any
) -> None:
    """Rolls made on the driver's connection chain and verify like any other."""
    campaign = make_campaign()
    for _ in range(5):
        response = client.post(
            f"{API}/campaigns/{campaign['id']}/rolls",
            json={"kind": "dice", "notation": "3d6kh2"},
            headers=gm.headers,
        )
        assert response.status_code == 201, response.text
    verified = client.get(f"{API}/campaigns/{campaign['id']}/log/verify", headers=gm.headers)
    assert verified.status_code == 200 and verified.json()["ok"], verified.text
    if session.get_bind().dialect.name == ON_POSTGRES:
        # compiled once for the engine's dialect, and used
        assert log_module._APPEND_AND_ADVANCE._compiled
        assert access_module._LOCK_ACCESS._compiled


def test_append_entry_refuses_an_unlocked_campaign(
    client: Any, session: Session, gm: Caller, make_campaign: Any
) -> None:
    campaign = session.get(Campaign, uuid.UUID(make_campaign()["id"]))
    with pytest.raises(TypeError):
        append_entry(session, campaign, kind="dice", actor_id=uuid.UUID(gm.id))  # type: ignore[arg-type]


def test_a_page_of_the_log_reads_what_session_execute_reads(
    client: Any, session: Session, gm: Caller, make_campaign: Any
) -> None:
    """Verification and export read the log in pages on the driver's connection: the same
    rows, in seq order, the bounds and the page's size as given."""
    campaign = make_campaign()
    for notation in ("1d6", "2d8", "3d6kh2", "1d20"):
        response = client.post(
            f"{API}/campaigns/{campaign['id']}/rolls",
            json={"kind": "dice", "notation": notation},
            headers=gm.headers,
        )
        assert response.status_code == 201, response.text
    params = {"campaign_id": uuid.UUID(campaign["id"]), "after": 1, "through": 4, "page_size": 2}
    driver = log_module._LOG_PAGE.all(session, params)
    through_orm = session.execute(log_module._LOG_PAGE.statement, params).all()
    assert [tuple(row) for row in driver] == [tuple(row) for row in through_orm]
    assert [row[log_module._SEQ] for row in driver] == [2, 3]
    whole = log_module._LOG_PAGE.all(session, {**params, "after": 0, "page_size": 10})
    assert [row[log_module._SEQ] for row in whole] == [1, 2, 3, 4]  # `through` bounds it
    if session.get_bind().dialect.name == ON_POSTGRES:
        assert all(type(row) is tuple for row in driver)  # read without SQLAlchemy's rows
    stored = session.get(Campaign, uuid.UUID(campaign["id"]))
    assert stored is not None  # and read with no upper bound: every entry
    assert [entry["seq"] for entry in log_module.iter_audit_entries(session, stored)] == [
        1,
        2,
        3,
        4,
        5,
    ]
    session.rollback()
