"""The live feed through real server processes (issue 20): what each viewer receives, in
order and exactly once, across dropped connections, removed members and processes.

Like tests/db/test_concurrency.py these commit into the test database; each test makes its
own users and campaign. On PostgreSQL two servers share it, and an entry committed by one
reaches the streams of the other (LISTEN/NOTIFY); SQLite serves one process.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import Engine, text

from tests.conftest import API, VAMPIRE_SHEET
from tests.db.feed_client import EventStream
from tests.db.servers import free_port, start_server, stop, wait_healthy

HEARTBEAT = "0.5"
RECHECK = "1.0"
STREAMS_PER_USER = 3


@dataclass
class Server:
    base: str
    process: subprocess.Popen[bytes]
    http: httpx.Client

    def events(self, campaign_id: str, headers: dict[str, str] | None = None, **params: Any):
        return EventStream(f"{self.base}{API}/campaigns/{campaign_id}/events", headers, **params)


@pytest.fixture(scope="module")
def servers(db_engine: Engine, database_url: str, tmp_path_factory) -> Iterator[list[Server]]:
    """Two servers on PostgreSQL (a roll on one reaches streams on the other), one on SQLite."""
    count = 2 if db_engine.dialect.name == "postgresql" else 1
    logs = tmp_path_factory.mktemp("feed")
    started: list[Server] = []
    settings = {
        "FEED_HEARTBEAT_SECONDS": HEARTBEAT,
        "FEED_RECHECK_SECONDS": RECHECK,
        "FEED_STREAMS_PER_USER": str(STREAMS_PER_USER),
    }
    try:
        for index in range(count):
            port = free_port()
            log = Path(logs) / f"server-{index}.log"
            process = start_server(port, database_url, log, settings)
            base = f"http://127.0.0.1:{port}"
            wait_healthy(base, process, log)
            started.append(Server(base, process, httpx.Client(base_url=base + API, timeout=30)))
        yield started
    finally:
        for server in started:
            server.http.close()
            stop(server.process)


@dataclass
class Table:
    """A campaign with its GM and two players, on the first server."""

    id: str
    gm: dict[str, str]
    player: dict[str, str]
    player_id: str
    other: dict[str, str]


def _user(http: httpx.Client, name: str) -> tuple[dict[str, str], str]:
    body = http.post("/users", json={"name": name}).json()
    return {"Authorization": f"Bearer {body['api_key']}"}, body["id"]


@pytest.fixture
def table(servers: list[Server]) -> Table:
    http = servers[0].http
    gm, _ = _user(http, "Feed GM")
    player, player_id = _user(http, "Feed player")
    other, other_id = _user(http, "Feed other player")
    campaign = http.post(
        "/campaigns", json={"name": "Live table", "system": "vampire"}, headers=gm
    ).json()
    for user_id in (player_id, other_id):
        added = http.post(
            f"/campaigns/{campaign['id']}/members",
            json={"user_id": user_id, "role": "player"},
            headers=gm,
        )
        assert added.status_code == 201, added.text
    return Table(campaign["id"], gm, player, player_id, other)


def _roll(server: Server, table: Table, headers: dict[str, str], **body: Any) -> dict[str, Any]:
    response = server.http.post(
        f"/campaigns/{table.id}/rolls",
        json={"kind": "dice", "notation": "2d6", **body},
        headers=headers,
    )
    assert response.status_code == 201, response.text
    return response.json()


def _log(server: Server, table: Table, headers: dict[str, str]) -> dict[int, Any]:
    page = server.http.get(f"/campaigns/{table.id}/log", params={"limit": 200}, headers=headers)
    assert page.status_code == 200, page.text
    return {entry["seq"]: entry for entry in page.json()["data"]}


def test_each_viewer_receives_every_entry_as_GET_log_shows_it_FAIR_13(servers, table):
    server = servers[-1]
    gm, player = server.events(table.id, table.gm), server.events(table.id, table.player)
    try:
        public = _roll(servers[0], table, table.gm)
        blind = _roll(servers[0], table, table.gm, visibility="blind")
        own = _roll(servers[0], table, table.player, visibility="self")
        seqs = [public["seq"], blind["seq"], own["seq"]]
        for stream, headers in ((gm, table.gm), (player, table.player)):
            received = stream.entries(3)
            assert [event.seq for event in received] == seqs
            assert [event.event for event in received] == ["dice"] * 3
            logged = _log(servers[0], table, headers)
            assert [event.json() for event in received] == [logged[seq] for seq in seqs]
        other = _log(servers[0], table, table.other)
        assert other[blind["seq"]].get("redacted") is True  # what the player stream got too
    finally:
        gm.close()
        player.close()


def test_a_blind_roll_reaches_a_player_redacted_and_the_GM_whole(servers, table):
    stream = servers[0].events(table.id, table.player)
    gm_stream = servers[0].events(table.id, table.gm)
    try:
        blind = _roll(servers[0], table, table.gm, visibility="blind")
        seen = stream.entries(1)[0].json()
        assert seen["seq"] == blind["seq"] and seen["redacted"] is True
        assert "draws" not in seen and "result" not in seen
        whole = gm_stream.entries(1)[0].json()
        assert whole["draws"] and whole["result"] == blind["result"]
    finally:
        stream.close()
        gm_stream.close()


def test_resume_after_a_dropped_connection_by_Last_Event_ID_has_no_gap_nor_duplicate(
    servers, table
):
    first = servers[0].events(table.id, table.player)
    _roll(servers[0], table, table.gm)
    last = first.entries(1)[0].seq
    first.close()  # the connection drops; the table keeps rolling
    missed = [_roll(servers[0], table, table.gm)["seq"] for _ in range(3)]
    resumed = servers[-1].events(table.id, {**table.player, "Last-Event-ID": str(last)})
    try:
        assert [event.seq for event in resumed.entries(3)] == missed
        live = _roll(servers[0], table, table.gm)["seq"]
        assert [event.seq for event in resumed.entries(1)] == [live]
        assert resumed.quiet(1.0) == []  # nothing twice
    finally:
        resumed.close()


def test_after_seq_zero_replays_the_whole_log_then_goes_live(servers, table):
    before = [_roll(servers[0], table, table.gm)["seq"] for _ in range(2)]
    stream = servers[-1].events(table.id, table.gm, after_seq=0)
    try:
        replayed = stream.entries(1 + len(before))
        assert [event.seq for event in replayed] == [1, *before]
        assert replayed[0].event == "epoch_opened"
        live = _roll(servers[0], table, table.gm)["seq"]
        assert stream.entries(1)[0].seq == live
    finally:
        stream.close()


def test_without_a_starting_point_the_stream_begins_at_the_head(servers, table):
    _roll(servers[0], table, table.gm)
    stream = servers[0].events(table.id, table.gm)
    try:
        live = _roll(servers[0], table, table.gm)["seq"]
        assert stream.entries(1)[0].seq == live
    finally:
        stream.close()


def test_a_removed_member_stream_ends_and_cannot_reopen(servers, table):
    stream = servers[-1].events(table.id, table.player)
    try:
        removed = servers[0].http.delete(
            f"/campaigns/{table.id}/members/{table.player_id}", headers=table.gm
        )
        assert removed.status_code == 204
        ended = stream.next(10)
        assert ended is not None and ended.event == "end"
        assert "no longer a member" in ended.json()["detail"]
        assert stream.next(10) is None  # closed by the server
        again = servers[0].events(table.id, table.player)
        assert again.status == 404
    finally:
        stream.close()


def test_a_heartbeat_comment_keeps_an_idle_stream_open(servers, table):
    stream = servers[0].events(table.id, table.gm)
    try:
        ping = stream.next(5, comments=True)
        assert ping is not None and ping.comment is not None and ping.comment.startswith("ping")
    finally:
        stream.close()


def test_roll_requests_reach_the_players_they_ask_and_not_the_others(servers, table):
    character = servers[0].http.post(
        f"/campaigns/{table.id}/characters",
        json={"name": "Lucita", "kind": "pc", "owner_id": table.player_id, "sheet": VAMPIRE_SHEET},
        headers=table.gm,
    )
    assert character.status_code == 201, character.text
    asked, other = (
        servers[-1].events(table.id, table.player),
        servers[-1].events(table.id, table.other),
    )
    try:
        request = servers[0].http.post(
            f"/campaigns/{table.id}/roll-requests",
            json={
                "kind": "vampire.action",
                "character_ids": [character.json()["id"]],
                "values": {"difficulty": 6},
            },
            headers=table.gm,
        )
        assert request.status_code == 201, request.text
        events = [asked.next(10), asked.next(10)]
        kinds = {event.event for event in events if event is not None}
        assert kinds == {"roll_requested", "roll_request"}
        pushed = next(e for e in events if e is not None and e.event == "roll_request")
        assert pushed.json()["id"] == request.json()["id"]
        assert pushed.json()["status"] == "open"
        seen_by_other = other.entries(1)  # the public roll_requested entry, and nothing more
        assert seen_by_other[0].event == "roll_requested"
        assert [e for e in other.quiet(1.5) if e is not None and e.event == "roll_request"] == []
    finally:
        asked.close()
        other.close()


def test_a_stream_ticket_opens_one_stream_once_without_the_api_key(servers, table):
    ticket = servers[0].http.post(f"/campaigns/{table.id}/events/ticket", headers=table.player)
    assert ticket.status_code == 201, ticket.text
    body = ticket.json()
    assert body["url"].endswith(f"/events?ticket={body['ticket']}")
    assert table.player["Authorization"].split()[1] not in body["url"]
    stream = servers[-1].events(table.id, ticket=body["ticket"])
    try:
        assert stream.status == 200
        live = _roll(servers[0], table, table.gm)["seq"]
        assert stream.entries(1)[0].seq == live
        spent = servers[0].events(table.id, ticket=body["ticket"])
        assert spent.status == 401 and "already used" in spent.body
    finally:
        stream.close()


def test_a_stream_ticket_of_another_campaign_or_an_outsider_opens_nothing(servers, table):
    outsider, _ = _user(servers[0].http, "Feed outsider")
    refused = servers[0].http.post(f"/campaigns/{table.id}/events/ticket", headers=outsider)
    assert refused.status_code == 404
    ticket = servers[0].http.post(f"/campaigns/{table.id}/events/ticket", headers=table.gm)
    elsewhere = (
        servers[0]
        .http.post("/campaigns", json={"name": "Elsewhere", "system": "vampire"}, headers=outsider)
        .json()
    )
    wrong = servers[0].events(elsewhere["id"], ticket=ticket.json()["ticket"])
    assert wrong.status == 401


def test_streams_per_user_are_capped_with_a_clear_429(servers, table):
    streams = [servers[0].events(table.id, table.other) for _ in range(STREAMS_PER_USER)]
    try:
        assert [stream.status for stream in streams] == [200] * STREAMS_PER_USER
        refused = servers[0].events(table.id, table.other)
        assert refused.status == 429 and "event streams open" in refused.body
    finally:
        for stream in streams:
            stream.close()
    time.sleep(0.5)  # the server sees them close
    again = servers[0].events(table.id, table.other)
    assert again.status == 200
    again.close()


def test_a_roll_on_one_server_reaches_streams_on_the_other(servers, table, db_engine):
    if len(servers) < 2:
        pytest.skip("SQLite serves one process: there is no other server to reach")
    on_first, on_second = (
        servers[0].events(table.id, table.gm),
        servers[1].events(table.id, table.gm),
    )
    try:
        rolled = [_roll(server, table, table.gm)["seq"] for server in (servers[0], servers[1])]
        for stream in (on_first, on_second):
            assert [event.seq for event in stream.entries(2)] == rolled
    finally:
        on_first.close()
        on_second.close()


def test_the_listener_reconnects_by_itself_and_resumes_from_its_last_seq(servers, table, db_engine):
    if db_engine.dialect.name != "postgresql":
        pytest.skip("LISTEN/NOTIFY is PostgreSQL's; SQLite's one process hears its own commits")
    stream = servers[-1].events(table.id, table.gm)
    try:
        first = _roll(servers[0], table, table.gm)["seq"]
        assert stream.entries(1)[0].seq == first
        with db_engine.begin() as connection:  # the listening connections drop
            dropped = connection.execute(
                text(
                    "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                    "WHERE query LIKE 'LISTEN nocturne_feed%' AND pid <> pg_backend_pid()"
                )
            ).scalar_one()
        assert dropped >= 1
        missed = [_roll(servers[0], table, table.gm)["seq"] for _ in range(3)]
        assert [event.seq for event in stream.entries(3, timeout=15)] == missed
        assert stream.quiet(1.0) == []
    finally:
        stream.close()
