"""FAIR-5: a writer that waited for the campaign lock acts on what its holder committed.

On PostgreSQL (READ COMMITTED) a statement that waits for a row lock re-reads only the rows
it locks; the rest of what it returns is from before the wait. These tests hold the lock in
one transaction, change the open epoch there, start a request that must wait for it, and
commit: the request must see the change. On SQLite, BEGIN IMMEDIATE makes the request wait
before it reads anything, so the same tests hold there too.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, text
from sqlmodel import Session

from app.core.database import create_db_engine
from app.engine.contract import Prepared
from app.engine.registry import DEFAULT_REGISTRY
from app.engine.rulesets.dice import DiceRequest
from app.main import app
from app.models import Campaign, CampaignMember, Character, CharacterUpdate, User
from app.services import log as log_service
from app.services.access import LockedAccess, get_campaign_access
from app.services.characters import update_character
from app.services.members import remove_member
from tests.conftest import API, SHEETS, serve_committed

ROLL = {"kind": "dice", "notation": "1d6"}
WAIT_TIMEOUT = 10.0


@pytest.fixture
def engine(
    db_engine: Engine, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Engine]:
    """The app on the test database with committed sessions, and its engine for the holder."""
    engine = create_db_engine(database_url)
    writer = engine.execution_options(sqlite_begin="IMMEDIATE")
    serve_committed(monkeypatch, engine, writer)
    yield engine
    engine.dispose()


def _campaign(http: TestClient) -> tuple[uuid.UUID, dict[str, str], str]:
    """A fresh GM's user id, auth headers, and the base URL of their new campaign."""
    user = http.post(f"{API}/users", json={"name": "Sascha Vykos"}).json()
    headers = {"Authorization": f"Bearer {user['api_key']}"}
    campaign = http.post(
        f"{API}/campaigns",
        json={"name": f"Vienna {uuid.uuid4().hex[:8]}", "system": "vampire"},
        headers=headers,
    ).json()
    return uuid.UUID(user["id"]), headers, f"{API}/campaigns/{campaign['id']}"


def _wait_until_blocked(engine: Engine) -> None:
    """Until another connection waits for a lock (PostgreSQL); a pause on SQLite."""
    if engine.dialect.name != "postgresql":
        time.sleep(0.5)  # the request now retries SQLite's write lock
        return
    deadline = time.monotonic() + WAIT_TIMEOUT
    with engine.connect() as watcher:
        while time.monotonic() < deadline:
            waiting = watcher.execute(
                text(
                    "SELECT count(*) FROM pg_stat_activity "
                    "WHERE datname = current_database() AND wait_event_type = 'Lock'"
                )
            ).scalar_one()
            watcher.rollback()
            if waiting:
                return
            time.sleep(0.02)
    raise AssertionError("the request never waited for the campaign lock")


def _behind_the_lock(
    engine: Engine,
    user_id: uuid.UUID,
    base: str,
    hold: Callable[[Session, LockedAccess], Any],
    request: Callable[[TestClient], Any],
) -> Any:
    """Lock the campaign and `hold` in one transaction; `request` waits for it; commit."""
    campaign_id = uuid.UUID(base.rsplit("/", 1)[1])
    with Session(engine.execution_options(sqlite_begin="IMMEDIATE")) as holder:
        user = holder.get(User, user_id)
        assert user is not None
        hold(holder, get_campaign_access(holder, campaign_id, user, lock=True))
        with ThreadPoolExecutor(1) as pool, TestClient(app) as http:
            waiting = pool.submit(request, http)
            _wait_until_blocked(engine)
            assert not waiting.done()
            holder.commit()
            return waiting.result(timeout=WAIT_TIMEOUT)


def _rolling(base: str, headers: dict[str, str]) -> Callable[[TestClient], Any]:
    """The request that will wait for the lock: a roll."""
    return lambda http: http.post(f"{base}/rolls", json=ROLL, headers=headers)


def _verified(http: TestClient, base: str, headers: dict[str, str]) -> dict[str, Any]:
    """Rotate so every epoch's seed is revealed, then verify the whole log (FAIR-14)."""
    assert http.post(f"{base}/fairness/rotate", headers=headers).status_code == 201
    report: dict[str, Any] = http.get(f"{base}/log/verify", headers=headers).json()
    return report


def test_FAIR_3_a_roll_that_waited_draws_with_the_client_seed_set_meanwhile(
    engine: Engine,
) -> None:
    with TestClient(app) as http:
        user_id, headers, base = _campaign(http)

    def set_seed(session: Session, access: LockedAccess) -> None:
        log_service.set_client_seed(session, access, "table-chosen")

    rolled = _behind_the_lock(engine, user_id, base, set_seed, _rolling(base, headers))
    assert rolled.status_code == 201, rolled.text
    with TestClient(app) as http:
        fairness = http.get(f"{base}/fairness", headers=headers).json()
        assert fairness["current"]["client_seed"] == "table-chosen"
        assert fairness["current"]["first_roll_seq"] == rolled.json()["seq"]
        report = _verified(http, base, headers)
    # Drawn with the old client seed, the roll would not match the revealed stream (FAIR-6).
    assert (report["ok"], report["first_failure"], report["rederived"]) == (True, None, 1)


def test_FAIR_3_a_client_seed_that_waited_behind_the_first_roll_is_refused(
    engine: Engine,
) -> None:
    with TestClient(app) as http:
        user_id, headers, base = _campaign(http)

    def first_roll(session: Session, access: LockedAccess) -> None:
        dice = DEFAULT_REGISTRY.in_campaign(access.campaign.system, "dice")
        log_service.record(session, access, dice, Prepared(DiceRequest(notation="1d6")))

    refused = _behind_the_lock(
        engine,
        user_id,
        base,
        first_roll,
        lambda http: http.put(
            f"{base}/fairness/client-seed", json={"client_seed": "too-late"}, headers=headers
        ),
    )
    assert refused.status_code == 409, refused.text
    assert "already served a roll (seq 2)" in refused.json()["detail"]
    with TestClient(app) as http:
        assert http.get(f"{base}/fairness", headers=headers).json()["current"]["client_seed"] == ""


def test_FAIR_4_a_roll_that_waited_behind_a_rotation_rolls_in_the_new_epoch(
    engine: Engine,
) -> None:
    with TestClient(app) as http:
        user_id, headers, base = _campaign(http)

    rolled = _behind_the_lock(
        engine,
        user_id,
        base,
        log_service.rotate_epoch,
        _rolling(base, headers),
    )
    assert rolled.status_code == 201, rolled.text
    assert rolled.json()["epoch"] == 2
    with TestClient(app) as http:
        fairness = http.get(f"{base}/fairness", headers=headers).json()
        assert fairness["current"]["epoch"] == 2
        assert [epoch["epoch"] for epoch in fairness["past"]] == [1]
        report = _verified(http, base, headers)
    assert (report["ok"], report["first_failure"]) == (True, None)


def test_FAIR_5_nothing_is_appended_to_a_campaign_read_without_the_lock(
    session: Session, make_campaign: Callable[..., dict[str, Any]], gm: Any
) -> None:
    campaign_id = uuid.UUID(make_campaign()["id"])
    user = session.get(User, uuid.UUID(gm.id))
    assert user is not None
    unlocked = get_campaign_access(session, campaign_id, user)
    with pytest.raises(TypeError, match="locked"):
        log_service.append_entry(session, unlocked.campaign, kind="dice", actor_id=user.id)
    locked = get_campaign_access(session, campaign_id, user, lock=True)
    entry = log_service.append_entry(session, locked.campaign, kind="dice", actor_id=user.id)
    assert (entry.seq, locked.campaign.last_seq) == (2, 2)


def test_FAIR_5_a_sheet_edit_that_waited_merges_onto_the_sheet_as_committed(
    engine: Engine,
) -> None:
    with TestClient(app) as http:
        user_id, headers, base = _campaign(http)
        character = http.post(
            f"{base}/characters",
            json={"name": "Anatole", "kind": "pc", "sheet": SHEETS["vampire"]},
            headers=headers,
        ).json()
    url = f"{API}/characters/{character['id']}"

    def edit_force(session: Session, access: LockedAccess) -> None:
        sheet = session.get(Character, (access.campaign.id, uuid.UUID(character["id"])))
        assert sheet is not None
        update_character(
            session,
            access,
            DEFAULT_REGISTRY,
            sheet,
            CharacterUpdate(sheet={"attributes": {"force": 3}}),
        )

    edited = _behind_the_lock(
        engine,
        user_id,
        base,
        edit_force,
        lambda http: http.patch(
            url, json={"sheet": {"attributes": {"charisme": 4}}}, headers=headers
        ),
    )
    assert edited.status_code == 200, edited.text
    attributes = edited.json()["sheet"]["attributes"]
    assert (attributes["force"], attributes["charisme"]) == (3, 4)


def test_FAIR_13_a_roll_that_waited_behind_its_players_removal_is_refused(
    engine: Engine,
) -> None:
    with TestClient(app) as http:
        user_id, headers, base = _campaign(http)
        player = http.post(f"{API}/users", json={"name": "Beckett"}).json()
        added = http.post(f"{base}/members", json={"user_id": player["id"]}, headers=headers)
        assert added.status_code == 201, added.text
    player_headers = {"Authorization": f"Bearer {player['api_key']}"}

    def remove(session: Session, access: LockedAccess) -> None:
        remove_member(session, access, uuid.UUID(player["id"]))

    refused = _behind_the_lock(engine, user_id, base, remove, _rolling(base, player_headers))
    assert refused.status_code == 404, refused.text
    with TestClient(app) as http:
        kinds = [entry["kind"] for entry in http.get(f"{base}/log", headers=headers).json()["data"]]
    assert "dice" not in kinds


def test_FAIR_2_a_look_that_waited_behind_the_first_epoch_shows_it_and_opens_none(
    engine: Engine,
) -> None:
    with TestClient(app) as http:
        user = http.post(f"{API}/users", json={"name": "Mithras"}).json()
    headers = {"Authorization": f"Bearer {user['api_key']}"}
    user_id = uuid.UUID(user["id"])
    with Session(engine) as setup:  # stored before the audit log: no epoch, no entry
        campaign = Campaign(name="London by Night", system="vampire", gm_id=user_id)
        setup.add(campaign)
        setup.flush()
        setup.add(CampaignMember(campaign_id=campaign.id, user_id=user_id, role="gm"))
        setup.commit()
        base = f"{API}/campaigns/{campaign.id}"

    shown = _behind_the_lock(
        engine,
        user_id,
        base,
        log_service.current_epoch,
        lambda http: http.get(f"{base}/fairness", headers=headers),
    )
    assert shown.status_code == 200, shown.text
    assert (shown.json()["current"]["epoch"], shown.json()["past"]) == (1, [])
    with TestClient(app) as http:
        log = http.get(f"{base}/log", headers=headers).json()["data"]
    assert [entry["kind"] for entry in log] == ["epoch_opened"]
