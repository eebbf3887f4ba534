"""Real server processes on the test database, and what their committed log must show.

Shared by the tests that run uvicorn processes against one database (concurrency, faults).
The API helpers take any client with httpx's interface: an httpx.Client on a server's base
URL, or a TestClient on the app in-process.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import httpx

from tests.conftest import API, ROOT

SERVER_START_TIMEOUT = 30.0


# --- server processes ---------------------------------------------------------------------


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


def start_server(
    port: int,
    database_url: str,
    log: Path,
    settings: dict[str, str] | None = None,
    *,
    host: str = "127.0.0.1",
    workers: int = 1,
) -> subprocess.Popen[bytes]:
    """A uvicorn process serving the app on `database_url` at host:port, its output in `log`;
    `settings` adds environment variables (FEED_HEARTBEAT_SECONDS=...). With `workers` > 1 it
    supervises that many worker processes sharing the one listening socket, as a host would."""
    env = {**os.environ, "DATABASE_URL": database_url, "LOG_LEVEL": "WARNING", **(settings or {})}
    env.pop("TEST_DATABASE_URL", None)
    with log.open("wb") as output:
        return subprocess.Popen(
            [
                sys.executable,
                "-m",
                "uvicorn",
                "app.main:app",
                "--host",
                host,
                "--port",
                str(port),
                "--workers",
                str(workers),
                "--log-level",
                "warning",
            ],
            cwd=ROOT,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
            # A supervisor's workers share its process group, so stop() can end them all.
            start_new_session=workers > 1,
        )


def wait_healthy(base_url: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + SERVER_START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"{base_url} exited with {process.returncode}: {log.read_text()}")
        try:
            if httpx.get(f"{base_url}{API}/health", timeout=2.0).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    raise AssertionError(f"{base_url} never became healthy: {log.read_text()}")


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        if os.getpgid(process.pid) == process.pid:  # a supervisor: its workers too
            os.killpg(process.pid, signal.SIGKILL)
        else:
            process.kill()
        process.wait(timeout=10)


# --- the API: a campaign, its log ---------------------------------------------------------


def register_gm_and_campaign(http: Any, name: str) -> tuple[dict[str, str], str]:
    """A fresh GM (their auth headers) and the id of their new Vampire campaign."""
    user = http.post(f"{API}/users", json={"name": name})
    assert user.status_code == 201, user.text
    headers = {"Authorization": f"Bearer {user.json()['api_key']}"}
    campaign = http.post(
        f"{API}/campaigns",
        json={"name": f"Chicago by Night {uuid.uuid4().hex[:8]}", "system": "vampire"},
        headers=headers,
    )
    assert campaign.status_code == 201, campaign.text
    return headers, campaign.json()["id"]


def all_log_entries(http: Any, campaign_id: str, headers: dict[str, str]) -> list[dict[str, Any]]:
    """Every entry, following the keyset cursor page by page."""
    entries: list[dict[str, Any]] = []
    after_seq = 0
    for _ in range(1000):
        page = http.get(
            f"{API}/campaigns/{campaign_id}/log",
            params={"limit": 200, "after_seq": after_seq},
            headers=headers,
        )
        assert page.status_code == 200, page.text
        body = page.json()
        entries.extend(body["data"])
        if body["next_after_seq"] is None:
            return entries
        assert body["next_after_seq"] > after_seq, body["next_after_seq"]
        after_seq = body["next_after_seq"]
    raise AssertionError("the log cursor never reached the last page")


def assert_gap_free_and_verified(
    http: Any, campaign_id: str, headers: dict[str, str], rolls: int
) -> list[dict[str, Any]]:
    """The log is epoch_opened then exactly `rolls` dice entries, seq 1..rolls+1 without a
    gap or a duplicate, and the server's verification of it passes; returns its entries."""
    entries = all_log_entries(http, campaign_id, headers)
    seqs = [entry["seq"] for entry in entries]
    expected = 1 + rolls  # epoch_opened, then every roll
    assert seqs == list(range(1, expected + 1)), (
        f"seq not gap-free 1..{expected}: missing {sorted(set(range(1, expected + 1)) - set(seqs))}"
        f", duplicated {sorted({s for s in seqs if seqs.count(s) > 1})}, count {len(seqs)}"
    )
    assert entries[0]["kind"] == "epoch_opened"
    assert [entry["kind"] for entry in entries[1:]] == ["dice"] * rolls
    verify = http.get(f"{API}/campaigns/{campaign_id}/log/verify", headers=headers)
    assert verify.status_code == 200, verify.text
    report = verify.json()
    assert report["ok"] is True, report
    assert report["first_failure"] is None, report
    assert report["entries_checked"] == expected, report
    assert report["replayed"] == rolls, report
    return entries
