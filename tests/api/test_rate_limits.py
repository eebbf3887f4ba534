"""Issue 16: rate limits per API key (writes, expensive reads) and per client address
(registrations, failed authentication), answered 429 with Retry-After and RateLimit fields.

Each test builds an app of its own with small limits (the suite's app runs without them)
on the suite's rolled-back session.
"""

from __future__ import annotations

import os
import socket
import time
import types
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from pydantic import ValidationError
from sqlmodel import Session

from app.core.settings import Settings
from app.main import create_app
from tests.conftest import API, assert_problem, serve_from

ROLL = {"kind": "dice", "notation": "1d6"}
# Half a day, half an hour and half a minute into their windows: the limiter's sliding
# window weighs the last window's hits by how much of it remains, rounded down, so hits that
# straddle a window's end count less. The tests are about counting, not that rounding.
MID_WINDOW = 20_000 * 86_400 + 43_200 + 1_800 + 30.0


@pytest.fixture(autouse=True)
def limiter_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """The limiter's clock stands still mid-window, so a test never sees a window end; the
    middleware's too, which counts Retry-After from it."""
    frozen = types.SimpleNamespace(
        **{name: getattr(time, name) for name in dir(time) if not name.startswith("_")}
    )
    frozen.time = lambda: MID_WINDOW
    for module in (
        "app.core.rate_limits",
        "limits.aio.strategies",
        "limits.aio.storage.memory",
        "limits.aio.storage.redis.redispy",
    ):
        monkeypatch.setattr(f"{module}.time", frozen)


def limited_app(session: Session, **limits: Any) -> FastAPI:
    settings = Settings(**{"rate_limits_enabled": True, **limits})
    app = create_app(settings=settings)

    serve_from(app, session)
    return app


@pytest.fixture
def limited(session: Session) -> Iterator[Callable[..., TestClient]]:
    clients: list[TestClient] = []

    def make(**limits: Any) -> TestClient:
        client = TestClient(limited_app(session, **limits))
        clients.append(client.__enter__())
        return client

    yield make
    for client in clients:
        client.__exit__(None, None, None)


def register(client: TestClient, name: str = "Mina") -> dict[str, str]:
    response = client.post(f"{API}/users", json={"name": name})
    assert response.status_code == 201, response.text
    return {"Authorization": f"Bearer {response.json()['api_key']}"}


def new_campaign(client: TestClient, headers: dict[str, str]) -> str:
    response = client.post(
        f"{API}/campaigns", json={"name": "Whitby", "system": "vampire"}, headers=headers
    )
    assert response.status_code == 201, response.text
    return str(response.json()["id"])


def assert_rate_limited(response: Any, policy: str) -> None:
    assert_problem(response, 429, f"over the {policy} limit")
    assert int(response.headers["retry-after"]) >= 1
    assert response.headers["ratelimit-policy"].startswith(f'"{policy}";q=')
    assert response.headers["ratelimit"].startswith(f'"{policy}";r=0;t=')


def test_writes_are_limited_per_api_key(limited: Callable[..., TestClient]) -> None:
    client = limited(rate_limit_writes="3/minute")
    mina = register(client)
    campaign = new_campaign(client, mina)  # write 1
    rolls = f"{API}/campaigns/{campaign}/rolls"
    first = client.post(rolls, json=ROLL, headers=mina)  # write 2
    assert first.status_code == 201, first.text
    assert first.headers["ratelimit-policy"] == '"writes";q=3;w=60'
    assert first.headers["ratelimit"].startswith('"writes";r=1;t=')
    assert client.post(rolls, json=ROLL, headers=mina).status_code == 201  # write 3
    refused = client.post(rolls, json=ROLL, headers=mina)
    assert_rate_limited(refused, "writes")
    # The refused roll drew nothing; reads are not writes; another key has its own count.
    assert len(client.get(rolls, headers=mina).json()["data"]) == 2
    jonathan = register(client, "Jonathan")
    assert (
        client.post(
            f"{API}/campaigns", json={"name": "X", "system": "vampire"}, headers=jonathan
        ).status_code
        == 201
    )


def test_log_verification_and_export_are_limited_per_api_key(
    limited: Callable[..., TestClient],
) -> None:
    client = limited(rate_limit_expensive_reads="2/minute")
    mina = register(client)
    log = f"{API}/campaigns/{new_campaign(client, mina)}/log"
    assert client.get(f"{log}/verify", headers=mina).status_code == 200
    assert client.get(f"{log}/export", headers=mina).status_code == 200
    assert_rate_limited(client.get(f"{log}/verify", headers=mina), "expensive-reads")
    assert client.get(log, headers=mina).status_code == 200  # a page of the log is cheap


def test_registrations_are_limited_per_client_address(limited: Callable[..., TestClient]) -> None:
    client = limited(rate_limit_registrations="2/hour")
    register(client, "Lucy")
    register(client, "Arthur")
    refused = client.post(f"{API}/users", json={"name": "Quincey"})
    assert_rate_limited(refused, "registrations")
    assert refused.headers["ratelimit-policy"] == '"registrations";q=2;w=3600'


def test_failed_authentication_is_limited_per_client_address(
    limited: Callable[..., TestClient],
) -> None:
    client = limited(rate_limit_failed_auth="3/minute")
    mina = register(client)
    for attempt in range(3):
        guess = {"Authorization": f"Bearer guess-{attempt}"}
        assert client.get(f"{API}/campaigns", headers=guess).status_code == 401
    # Past the limit, anything carrying credentials from that address waits, a right key too:
    # otherwise a 200 among the 429s would tell a guesser which key is right.
    assert_rate_limited(client.get(f"{API}/campaigns", headers=mina), "failed-auth")
    assert client.get(f"{API}/health").status_code == 200  # no credentials, not limited


def test_a_request_without_credentials_is_not_a_failed_authentication(
    limited: Callable[..., TestClient],
) -> None:
    client = limited(rate_limit_failed_auth="1/minute")
    for _ in range(3):
        assert client.get(f"{API}/campaigns").status_code == 401
    assert client.get(f"{API}/campaigns", headers=register(client)).status_code == 200


def test_limits_off_count_nothing(session: Session) -> None:
    app = limited_app(session, rate_limits_enabled=False, rate_limit_registrations="1/hour")
    with TestClient(app) as client:
        register(client, "Lucy")
        response = client.post(f"{API}/users", json={"name": "Arthur"})
        assert response.status_code == 201
        assert "ratelimit" not in response.headers


def test_an_unreachable_counter_store_lets_requests_through(
    limited: Callable[..., TestClient],
) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    client = limited(redis_url=f"redis://127.0.0.1:{closed}/0", rate_limit_registrations="1/hour")
    register(client, "Lucy")
    assert client.post(f"{API}/users", json={"name": "Arthur"}).status_code == 201


def test_counters_in_redis_are_shared_by_every_server(
    limited: Callable[..., TestClient],
) -> None:
    redis_url = os.environ.get("TEST_REDIS_URL")
    if not redis_url:
        pytest.skip(
            "TEST_REDIS_URL is not set: .ci/run sets it when Redis answers; set it to a "
            "Redis URL (redis://127.0.0.1:6379/15) to run this test"
        )
    first = limited(redis_url=redis_url, rate_limit_writes="2/minute")
    second = limited(redis_url=redis_url, rate_limit_writes="2/minute")
    mina = register(first, f"Mina {uuid.uuid4().hex[:6]}")
    campaign = new_campaign(first, mina)  # counted in Redis
    rolls = f"{API}/campaigns/{campaign}/rolls"
    assert second.post(rolls, json=ROLL, headers=mina).status_code == 201
    assert_rate_limited(first.post(rolls, json=ROLL, headers=mina), "writes")


def test_limits_are_settings_checked_at_start_up() -> None:
    with pytest.raises(ValidationError, match="rate_limit_writes"):
        Settings(rate_limit_writes="lots")
    assert Settings(rate_limit_writes="10 per second").rate_limit_writes == "10 per second"


def test_the_api_documents_429_on_every_operation(session: Session) -> None:
    with TestClient(limited_app(session)) as client:
        document = client.get("/openapi.json").json()
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            assert "429" in operation["responses"], (method, path)
