"""FAIR-5 under real concurrency: committed transactions, threads and server processes.

Unlike the rest of the suite these tests do not use the rolled-back `session`/`client`
fixtures: every request commits into the test database (SQLite file or PostgreSQL), as in
production, so the campaign row lock and SQLite's BEGIN IMMEDIATE are really exercised.
Each test registers its own users and campaign; what they commit stays in the database.
"""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import threading
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from app.core.database import create_db_engine
from app.core.security import verified_keys
from app.core.settings import Settings
from app.main import app
from app.routers import rolls as rolls_router
from app.routers.common import SessionRoute
from tests.conftest import API, api_routes, serve_committed
from tests.db.servers import (
    all_log_entries,
    assert_gap_free_and_verified,
    free_port,
    register_gm_and_campaign,
    start_server,
    stop,
    wait_healthy,
)

ROLL = {"kind": "dice", "notation": "1d6"}
# One request may wait behind every other writer; generous, yet the file stays well under 60 s.
REQUEST_TIMEOUT = 30.0

Outcome = tuple[int, dict[str, str], Any]  # status, headers, JSON body (or text)


# --- committed requests in-process --------------------------------------------------------


def _outcome(response: Any) -> Outcome:
    try:
        body: Any = response.json()
    except ValueError:
        body = response.text
    return response.status_code, dict(response.headers), body


def _guarded(call: Callable[[], Any]) -> Outcome:
    """Run one request; an exception becomes an outcome so the main thread can report it."""
    try:
        return _outcome(call())
    except Exception as exc:
        return -1, {}, f"{type(exc).__name__}: {exc}"


def _unexpected(outcomes: list[Outcome], *allowed: int) -> list[tuple[int, Any]]:
    return [(status, body) for status, _headers, body in outcomes if status not in allowed]


def _assert_roll_seqs(outcomes: list[Outcome], rolls: int) -> None:
    """The 201 bodies themselves carry distinct seqs 2..rolls+1."""
    seqs = sorted(body["seq"] for _status, _headers, body in outcomes)
    assert seqs == list(range(2, rolls + 2)), seqs


def test_FAIR_5_eight_threads_rolling_25_times_get_gap_free_seq(committed_app: None) -> None:
    threads, rolls_each = 8, 25
    with TestClient(app) as http:
        headers, campaign_id = register_gm_and_campaign(http, "Prince Lodin")
    start = threading.Barrier(threads, timeout=REQUEST_TIMEOUT)

    def roller() -> list[Outcome]:
        outcomes: list[Outcome] = []
        with TestClient(app) as own:  # TestClient is not thread-safe: one per thread
            start.wait()
            for _ in range(rolls_each):
                outcomes.append(
                    _guarded(
                        lambda: own.post(
                            f"{API}/campaigns/{campaign_id}/rolls", json=ROLL, headers=headers
                        )
                    )
                )
        return outcomes

    with ThreadPoolExecutor(threads) as pool:
        futures = [pool.submit(roller) for _ in range(threads)]
        outcomes = [outcome for future in futures for outcome in future.result()]

    assert len(outcomes) == threads * rolls_each
    assert _unexpected(outcomes, 201) == []
    _assert_roll_seqs(outcomes, threads * rolls_each)
    with TestClient(app) as http:
        assert_gap_free_and_verified(http, campaign_id, headers, threads * rolls_each)


def test_every_request_session_gives_its_connection_back(
    committed_app: None, committed_engine: Engine
) -> None:
    """get_db closes each session: reads left in a transaction, writes, and failures."""
    with TestClient(app) as http:
        headers, campaign_id = register_gm_and_campaign(http, "Abbess Malkavia")
        base = f"{API}/campaigns/{campaign_id}"
        assert http.get(base, headers=headers).status_code == 200
        assert http.post(f"{base}/rolls", json=ROLL, headers=headers).status_code == 201
        bad = {"kind": "dice", "notation": "0d6"}
        assert http.post(f"{base}/rolls", json=bad, headers=headers).status_code == 422
        assert http.get(f"{base}/rolls/999", headers=headers).status_code == 404
        assert http.get(f"{base}/log/verify", headers=headers).json()["ok"] is True
    assert committed_engine.pool.checkedout() == 0  # type: ignore[attr-defined]


def test_reads_outnumbering_threads_and_connections_all_finish(
    db_engine: Engine, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No request holds a pooled connection while it waits for a thread.

    Two threads, two pooled connections, sixteen concurrent reads, half of them looking up
    their API key: a session still in its transaction after the key lookup or the endpoint
    would wait for a thread while threads wait for its connection, and nothing would come
    back before the pool's timeout.
    """
    engine = create_db_engine(database_url, pool_size=2, max_overflow=0, pool_timeout=5)
    serve_committed(monkeypatch, engine, engine)

    async def read_concurrently() -> list[int]:
        anyio.to_thread.current_default_thread_limiter().total_tokens = 2
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
            created = await http.post(f"{API}/users", json={"name": "Prince Ventrue"})
            headers = {"Authorization": f"Bearer {created.json()['api_key']}"}
            verified_keys.forget_all()
            with anyio.fail_after(REQUEST_TIMEOUT):
                responses = await asyncio.gather(
                    *(http.get(f"{API}/health") for _ in range(8)),
                    *(http.get(f"{API}/campaigns", headers=headers) for _ in range(8)),
                )
        return [response.status_code for response in responses]

    try:
        assert asyncio.run(read_concurrently()) == [200] * 16
        assert engine.pool.checkedout() == 0  # type: ignore[attr-defined]
    finally:
        engine.dispose()


def test_every_route_ends_its_transaction_in_its_own_thread() -> None:
    # A route without it would bring back the stall the test above guards against.
    routes = list(api_routes(app.routes))
    documented = {
        operation["operationId"]
        for path in app.openapi()["paths"].values()
        for operation in path.values()
    }
    assert {route.operation_id for route in routes} == documented  # all of them were found
    assert [route.path for route in routes if not isinstance(route, SessionRoute)] == []


def test_thread_pool_size_defaults_by_database(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("WORKER_THREADS", raising=False)
    postgres = "postgresql+psycopg://postgres@localhost/nocturne"
    assert Settings(database_url=postgres).thread_pool_size == 3
    # SQLite writers wait for the file lock in their thread: more threads keep reads going.
    assert Settings(database_url="sqlite:///./nocturne.db").thread_pool_size == 8
    assert Settings(database_url=postgres, worker_threads=5).thread_pool_size == 5


def test_concurrent_duplicates_with_one_idempotency_key_create_one_entry(
    committed_app: None,
) -> None:
    threads = 8
    with TestClient(app) as http:
        headers, campaign_id = register_gm_and_campaign(http, "Sheriff Toreador")
    keyed = {**headers, "Idempotency-Key": f"one-roll-{uuid.uuid4().hex}"}
    start = threading.Barrier(threads, timeout=REQUEST_TIMEOUT)

    def duplicate() -> Outcome:
        with TestClient(app) as own:
            start.wait()
            return _guarded(
                lambda: own.post(f"{API}/campaigns/{campaign_id}/rolls", json=ROLL, headers=keyed)
            )

    with ThreadPoolExecutor(threads) as pool:
        outcomes = list(pool.map(lambda _: duplicate(), range(threads)))

    assert _unexpected(outcomes, 201, 409) == []
    created = [outcome for outcome in outcomes if outcome[0] == 201]
    assert created, outcomes  # the request that claimed the key did its work
    fresh = [o for o in created if o[1].get("idempotent-replayed") != "true"]
    assert len(fresh) == 1, [
        (status, hdrs.get("idempotent-replayed")) for status, hdrs, _ in created
    ]
    bodies = [body for _status, _headers, body in created]
    assert all(body == bodies[0] for body in bodies), bodies
    for status, hdrs, body in outcomes:
        if status == 409:
            assert hdrs["content-type"].startswith("application/problem+json"), body
            assert "still being processed" in body["detail"], body

    with TestClient(app) as http:
        # Once the dust settles a retry is a replay of the same roll, never new dice.
        retry = http.post(f"{API}/campaigns/{campaign_id}/rolls", json=ROLL, headers=keyed)
        assert retry.status_code == 201, retry.text
        assert retry.headers["Idempotent-Replayed"] == "true"
        assert retry.json() == bodies[0]
        entries = assert_gap_free_and_verified(http, campaign_id, headers, rolls=1)
    assert entries[1]["seq"] == bodies[0]["seq"] == 2
    assert entries[1]["hash"] == bodies[0]["hash"]


def test_a_duplicate_sent_while_the_first_holds_its_key_gets_no_new_dice(
    committed_app: None, committed_engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The key is held by the first request's own transaction: on PostgreSQL a duplicate is
    refused at once (409, advisory lock); on SQLite it waits for the write lock, then replays."""
    with TestClient(app) as http:
        headers, campaign_id = register_gm_and_campaign(http, "Baron Abetorius")
    url = f"{API}/campaigns/{campaign_id}/rolls"
    keyed = {**headers, "Idempotency-Key": f"stalled-{uuid.uuid4().hex}"}
    lock_campaign = rolls_router.get_campaign_access
    pool = ThreadPoolExecutor(1)
    duplicate: list[Any] = []

    def send_a_duplicate_while_working(*args: Any, **kwargs: Any) -> Any:
        if not duplicate:  # the first request holds its key: its client sends it again
            duplicate.append(
                pool.submit(lambda: TestClient(app).post(url, json=ROLL, headers=keyed))
            )
            with contextlib.suppress(TimeoutError):
                duplicate[0].result(timeout=1.0)
        return lock_campaign(*args, **kwargs)

    monkeypatch.setattr(rolls_router, "get_campaign_access", send_a_duplicate_while_working)
    with TestClient(app) as http:
        first = http.post(url, json=ROLL, headers=keyed)
        second = duplicate[0].result(timeout=REQUEST_TIMEOUT)
        pool.shutdown()
        log = all_log_entries(http, campaign_id, headers)

    assert first.status_code == 201, first.text
    if committed_engine.dialect.name == "postgresql":
        assert second.status_code == 409, second.text
        assert "still being processed" in second.json()["detail"]
    else:
        assert (second.status_code, second.headers.get("idempotent-replayed")) == (201, "true")
        assert second.json() == first.json()
    assert [entry["kind"] for entry in log] == ["epoch_opened", "dice"]


def test_a_request_that_dies_after_taking_its_key_leaves_it_free(
    committed_app: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing of a failed request's claim survives its transaction: the retry rolls at once."""
    with TestClient(app) as http:
        headers, campaign_id = register_gm_and_campaign(http, "Prince Lodin")
    url = f"{API}/campaigns/{campaign_id}/rolls"
    keyed = {**headers, "Idempotency-Key": f"dies-{uuid.uuid4().hex}"}
    lock_campaign = rolls_router.get_campaign_access
    deaths: list[None] = []

    def die_once(*args: Any, **kwargs: Any) -> Any:
        if not deaths:
            deaths.append(None)
            raise ConnectionResetError("the worker lost its database mid-request")
        return lock_campaign(*args, **kwargs)

    monkeypatch.setattr(rolls_router, "get_campaign_access", die_once)
    with TestClient(app, raise_server_exceptions=False) as http:
        assert http.post(url, json=ROLL, headers=keyed).status_code == 500
        retry = http.post(url, json=ROLL, headers=keyed)
        assert retry.status_code == 201, retry.text
        assert "idempotent-replayed" not in retry.headers
        assert_gap_free_and_verified(http, campaign_id, headers, rolls=1)


# --- several server processes on one database ---------------------------------------------


def test_FAIR_5_four_server_processes_rolling_into_one_campaign(
    db_engine: Engine, database_url: str, tmp_path: Path
) -> None:
    servers, clients_each, rolls_each = 4, 2, 15
    processes: list[subprocess.Popen[bytes]] = []
    logs = [tmp_path / f"server-{index}.log" for index in range(servers)]
    try:
        base_urls = []
        for log in logs:
            port = free_port()
            processes.append(start_server(port, database_url, log))
            base_urls.append(f"http://127.0.0.1:{port}")
        for base_url, process, log in zip(base_urls, processes, logs, strict=True):
            wait_healthy(base_url, process, log)

        with httpx.Client(base_url=base_urls[0], timeout=REQUEST_TIMEOUT) as http:
            headers, campaign_id = register_gm_and_campaign(http, "Archon Ventrue")
        start = threading.Barrier(servers * clients_each, timeout=REQUEST_TIMEOUT)

        def roller(base_url: str) -> list[Outcome]:
            outcomes: list[Outcome] = []
            with httpx.Client(base_url=base_url, timeout=REQUEST_TIMEOUT) as own:
                start.wait()
                for _ in range(rolls_each):
                    outcomes.append(
                        _guarded(
                            lambda: own.post(
                                f"{API}/campaigns/{campaign_id}/rolls", json=ROLL, headers=headers
                            )
                        )
                    )
            return outcomes

        targets = [url for url in base_urls for _ in range(clients_each)]
        with ThreadPoolExecutor(len(targets)) as pool:
            outcomes = [o for batch in pool.map(roller, targets) for o in batch]

        total = servers * clients_each * rolls_each
        assert len(outcomes) == total
        server_output = "\n".join(log.read_text()[-4000:] for log in logs)
        assert _unexpected(outcomes, 201) == [], server_output
        _assert_roll_seqs(outcomes, total)
        # Read back through another process than the one that created the campaign.
        with httpx.Client(base_url=base_urls[-1], timeout=REQUEST_TIMEOUT) as http:
            assert_gap_free_and_verified(http, campaign_id, headers, total)
    finally:
        for process in processes:
            stop(process)
