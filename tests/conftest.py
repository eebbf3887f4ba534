"""Test harness: a migrated database per run, each test inside a transaction rolled back.

SQLite by default; PostgreSQL when TEST_DATABASE_URL is set (Makefile runs both).
Routes commit into a SAVEPOINT (join_transaction_mode="create_savepoint"), so every test
sees its own writes and leaves nothing behind.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

# The suite sends hundreds of requests a second from one address and key: rate limits are
# tested on apps of their own (tests/api/test_rate_limits.py), and server processes the
# suite starts inherit this.
os.environ["RATE_LIMITS_ENABLED"] = "false"
# Webhooks are posted by tests that drive the sender themselves (tests/api/test_webhooks.py).
os.environ["WEBHOOK_DELIVERY_ENABLED"] = "false"

from alembic import command
from alembic.config import Config
from fastapi import FastAPI
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from sqlalchemy import Engine, text
from sqlmodel import Session

from app.core import database
from app.core.database import (
    READS_ONLY,
    create_db_engine,
    get_db,
    get_lookup_session,
    get_read_only_db,
    get_read_session,
    guard_reads,
)
from app.main import app

ROOT = Path(__file__).resolve().parent.parent
API = "/api/v1"


def alembic_config(connection: Any = None, url: str | None = None) -> Config:
    config = Config(str(ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(ROOT / "alembic"))
    config.attributes["configure_logger"] = False
    if connection is not None:
        config.attributes["connection"] = connection
    if url is not None:
        config.attributes["url"] = url
    return config


def reset_postgres_schema(engine: Engine) -> None:
    with engine.begin() as connection:
        connection.execute(text("DROP SCHEMA IF EXISTS public CASCADE"))
        connection.execute(text("CREATE SCHEMA public"))


@pytest.fixture(scope="session")
def database_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    url = os.environ.get("TEST_DATABASE_URL")
    if url:
        return url
    return f"sqlite:///{tmp_path_factory.mktemp('db') / 'nocturne-test.db'}"


@pytest.fixture(scope="session")
def db_engine(database_url: str) -> Iterator[Engine]:
    engine = create_db_engine(database_url)
    if engine.dialect.name == "postgresql":
        reset_postgres_schema(engine)
    with engine.begin() as connection:
        command.upgrade(alembic_config(connection), "head")
    yield engine
    engine.dispose()


@pytest.fixture
def session(db_engine: Engine) -> Iterator[Session]:
    connection = db_engine.connect()
    transaction = connection.begin()
    db = Session(bind=connection, join_transaction_mode="create_savepoint", expire_on_commit=False)
    try:
        yield db
    finally:
        db.close()
        transaction.rollback()
        connection.close()


def api_routes(routes: list[Any]) -> Iterator[APIRoute]:
    """Every API route of an app's routes, those of its included routers too."""
    for route in routes:
        if isinstance(route, APIRoute):
            yield route
        included = getattr(route, "original_router", None)  # FastAPI's included routers
        if included is not None:
            yield from api_routes(included.routes)


# What a request gets its session from: the suite overrides all four with the test's.
SESSION_DEPENDENCIES = (get_db, get_read_only_db, get_read_session, get_lookup_session)


def serve_committed(monkeypatch: pytest.MonkeyPatch, engine: Engine, writer: Engine) -> None:
    """The app's requests get production sessions on `engine` (writes begin on `writer`),
    committed: the suite's rolled-back session overrides are lifted for the test."""
    monkeypatch.setattr(database, "get_engine", lambda: engine)
    monkeypatch.setattr(database, "_write_engine", lambda: writer)
    for dependency in SESSION_DEPENDENCIES:
        monkeypatch.delitem(app.dependency_overrides, dependency, raising=False)


def serve_from(api: FastAPI, session: Session) -> None:
    """Every request of `api` (writes, reads, long reads) uses the test's session; while a
    request declared to only read runs, the session refuses writes as a ReadSession does."""

    def request_session() -> Iterator[Session]:
        # Like production, a failed request leaves nothing pending for the next one.
        try:
            yield session
        except Exception:
            session.rollback()
            raise

    def read_session() -> Iterator[Session]:
        session.info[READS_ONLY] = True
        try:
            yield from request_session()
        finally:
            session.info.pop(READS_ONLY, None)

    guard_reads(session)
    api.dependency_overrides[get_db] = request_session
    api.dependency_overrides[get_read_only_db] = request_session
    api.dependency_overrides[get_read_session] = read_session
    # Not marked: a request that writes looks its caller's key up too.
    api.dependency_overrides[get_lookup_session] = request_session


@pytest.fixture
def client(session: Session) -> Iterator[TestClient]:
    serve_from(app, session)
    try:
        with TestClient(app) as test_client:
            yield test_client
    finally:
        for dependency in SESSION_DEPENDENCIES:
            app.dependency_overrides.pop(dependency, None)


@dataclass
class Caller:
    """A registered user and the headers that authenticate them."""

    id: str
    name: str
    api_key: str

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.api_key}"}


@pytest.fixture
def register(client: TestClient) -> Callable[[str], Caller]:
    def _register(name: str) -> Caller:
        response = client.post(f"{API}/users", json={"name": name})
        assert response.status_code == 201, response.text
        body = response.json()
        return Caller(id=body["id"], name=body["name"], api_key=body["api_key"])

    return _register


@pytest.fixture
def gm(register: Callable[[str], Caller]) -> Caller:
    return register("Gabrielle the GM")


@pytest.fixture
def player(register: Callable[[str], Caller]) -> Caller:
    return register("Paul the player")


@pytest.fixture
def other_player(register: Callable[[str], Caller]) -> Caller:
    return register("Olga the other player")


@pytest.fixture
def outsider(register: Callable[[str], Caller]) -> Caller:
    return register("Nina the non-member")


@pytest.fixture
def make_campaign(client: TestClient, gm: Caller) -> Callable[..., dict[str, Any]]:
    """A campaign run by `gm`, with the given players added as members."""

    def _make(
        system: str = "jdr-express-dracula",
        *,
        players: tuple[Caller, ...] = (),
        options: dict[str, Any] | None = None,
        name: str = "Les Carpates",
    ) -> dict[str, Any]:
        response = client.post(
            f"{API}/campaigns",
            json={"name": name, "system": system, "options": options or {}},
            headers=gm.headers,
        )
        assert response.status_code == 201, response.text
        campaign = response.json()
        for member in players:
            added = client.post(
                f"{API}/campaigns/{campaign['id']}/members",
                json={"user_id": member.id, "role": "player"},
                headers=gm.headers,
            )
            assert added.status_code == 201, added.text
        return campaign

    return _make


# Valid starting sheets, one per ruleset.
DRACULA_SHEET: dict[str, Any] = {
    "traits": {"mental": 3, "physique": 2, "social": 1},
    "talents": [{"name": "Théologie", "bonus": 2}],
    "faith": "believer",
    "sacred_object": "croix orthodoxe",
}
CTHULHU_SHEET: dict[str, Any] = {
    "traits": {"mental": 3, "physique": 1, "social": 2},
    "talents": [{"name": "Médecine légiste", "bonus": 1}],
}
FABULAE_SHEET: dict[str, Any] = {
    "attributes": {"physique": 3, "habilete": 3, "intellect": 3, "empathie": 3},
    "skills": {"combat": 2, "tir": 2, "observation": 2, "soin": 2, "resistance": 2},
    "talents": ["cool_head"],
}
VAMPIRE_SHEET: dict[str, Any] = {
    "attributes": {
        "force": 2,
        "dexterite": 3,
        "vigueur": 2,
        "charisme": 3,
        "manipulation": 2,
        "apparence": 2,
        "perception": 3,
        "intelligence": 2,
        "astuce": 4,
    },
    "abilities": {"subterfuge": 3, "athletisme": 2, "experience_de_la_rue": 1},
    "willpower": {"max": 5, "current": 5},
}
SHEETS: dict[str, dict[str, Any]] = {
    "jdr-express-dracula": DRACULA_SHEET,
    "jdr-express-cthulhu": CTHULHU_SHEET,
    "fabulae-tenebris": FABULAE_SHEET,
    "vampire": VAMPIRE_SHEET,
}


@pytest.fixture
def make_character(client: TestClient) -> Callable[..., dict[str, Any]]:
    def _make(
        campaign: dict[str, Any],
        caller: Caller,
        *,
        sheet: dict[str, Any] | None = None,
        kind: str = "pc",
        name: str = "Père Mihail",
        owner_id: str | None = None,
    ) -> dict[str, Any]:
        body: dict[str, Any] = {
            "name": name,
            "kind": kind,
            "sheet": sheet if sheet is not None else SHEETS[campaign["system"]],
        }
        if owner_id is not None:
            body["owner_id"] = owner_id
        response = client.post(
            f"{API}/campaigns/{campaign['id']}/characters", json=body, headers=caller.headers
        )
        assert response.status_code == 201, response.text
        return response.json()

    return _make


def assert_problem(response: Any, status: int, *fragments: str) -> dict[str, Any]:
    """The response is problem+json with this status and a detail naming each fragment."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    body = response.json()
    assert body["status"] == status
    assert body["title"] and body["detail"]
    for fragment in fragments:
        assert fragment in body["detail"], (fragment, body["detail"])
    return body


class ForcedDice:
    """Stands in for the campaign's HMAC stream: hands out the faces a test scripts.

    The faces are recorded as draws like the real stream's, so entries still replay and
    verify. Re-derivation would catch them: tests that force dice and verify neither rotate
    (public draws re-derive from the revealed seed) nor roll hidden (hidden draws re-derive
    from their entry key at once, FAIR-17).
    """

    def __init__(self) -> None:
        self.queue: list[int] = []

    def push(self, *faces: int) -> None:
        self.queue.extend(faces)

    def stream(self, *_args: Any) -> Any:
        queue = self.queue

        class _Stream:
            def __init__(self) -> None:
                self._draws: list[dict[str, int]] = []

            def roll(self, sides: int) -> int:
                assert queue, f"the rules asked for a d{sides} but no forced face is left"
                face = queue.pop(0)
                assert 1 <= face <= sides, f"forced face {face} is impossible on a d{sides}"
                self._draws.append({"sides": sides, "face": face})
                return face

            @property
            def draws(self) -> list[dict[str, int]]:
                return list(self._draws)

        return _Stream()


@pytest.fixture
def forced_dice(monkeypatch: pytest.MonkeyPatch) -> Iterator[ForcedDice]:
    """`forced_dice.push(6, 4)` makes the next dice the service draws show 6 then 4."""
    import app.services.log as log_service

    forced = ForcedDice()
    monkeypatch.setattr(log_service, "HmacDiceStream", forced.stream)
    yield forced
    assert not forced.queue, f"forced faces left unused: {forced.queue}"
