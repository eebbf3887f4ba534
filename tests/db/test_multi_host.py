"""The multi-host shape (issue 23): two hosts, each a set of workers, on one PostgreSQL.

"Host A" serves on 127.0.0.2 and "host B" on 127.0.0.3 (all of 127/8 is loopback on Linux),
each a uvicorn supervising two worker processes. Clients on both hosts roll concurrently into
the same campaigns (dice, and Vampire actions on the players' sheets): every campaign's log
stays gap-free (FAIR-5) and verifies, on the server and offline (FAIR-15), and an event stream
on either host receives what was rolled through the other, in order and exactly once (FAIR-13
views), carried by PostgreSQL's NOTIFY.

Like tests/db/test_concurrency.py these commit into the test database; each test makes its
own users and campaigns.
"""

from __future__ import annotations

import socket
import subprocess
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import Engine, text
from sqlalchemy.engine import make_url

from tests.api.helpers import STRUCTURAL, verified_offline
from tests.conftest import API, VAMPIRE_SHEET, Caller
from tests.db.feed_client import EventStream, close_all
from tests.db.servers import all_log_entries, free_port, start_server, stop, wait_healthy

HOSTS = {"A": "127.0.0.2", "B": "127.0.0.3"}
WORKERS_PER_HOST = 2
CAMPAIGNS = 3
ROLLS_EACH = 5
REQUEST_TIMEOUT = 30.0
# Far longer than any wait below: an entry that arrives was carried by a notification, not
# by a room's periodic re-read of the log.
SETTINGS = {"FEED_RECHECK_SECONDS": "120", "FEED_HEARTBEAT_SECONDS": "0.5"}
DICE = {"kind": "dice", "notation": "2d6"}
# What GET /log derives from the entries after one (views.annotate_follow_ups): a player's
# repeated action is a retry of their failed one (VAM-30), and the earlier entry, streamed
# before its retry was rolled, shows it only in the log read afterwards.
LATER = {"follow_ups", "final", "effects_held"}


@dataclass
class Host:
    name: str
    base: str
    application: str  # the PostgreSQL application_name of its connections

    def client(self) -> httpx.Client:
        return httpx.Client(base_url=self.base, timeout=REQUEST_TIMEOUT)

    def events(self, campaign_id: str, caller: Caller) -> EventStream:
        return EventStream(f"{self.base}{API}/campaigns/{campaign_id}/events", caller.headers)


def _binds(address: str) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        try:
            probe.bind((address, 0))
        except OSError:
            return False
    return True


@pytest.fixture(scope="module")
def hosts(
    database_url: str, request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Host]]:
    """Hosts A and B, each a uvicorn with WORKERS_PER_HOST workers, on the test database."""
    if make_url(database_url).get_backend_name() != "postgresql":
        pytest.skip(
            "a multi-host test (processes on one database, LISTEN/NOTIFY between them): set "
            "TEST_DATABASE_URL to a PostgreSQL database to run it"
        )
    if not all(_binds(address) for address in HOSTS.values()):
        pytest.skip(f"{' and '.join(HOSTS.values())} are not local addresses on this machine")
    request.getfixturevalue("db_engine")  # migrated
    logs = tmp_path_factory.mktemp("hosts")
    started: dict[str, tuple[Host, subprocess.Popen[bytes], Path]] = {}
    try:
        for name, address in HOSTS.items():
            port = free_port(address)
            application = f"nocturne-host-{name.lower()}"
            url = make_url(database_url).update_query_dict({"application_name": application})
            log = Path(logs) / f"host-{name}.log"
            process = start_server(
                port,
                url.render_as_string(hide_password=False),
                log,
                SETTINGS,
                host=address,
                workers=WORKERS_PER_HOST,
            )
            started[name] = (Host(name, f"http://{address}:{port}", application), process, log)
        for host, process, log in started.values():
            wait_healthy(host.base, process, log)
        yield {name: host for name, (host, _process, _log) in started.items()}
    finally:
        for _host, process, _log in started.values():
            stop(process)


@dataclass
class Table:
    """A Vampire campaign: its GM, and two players each owning a character."""

    id: str
    gm: Caller
    players: list[Caller]
    characters: dict[str, str]  # player id -> their character's id

    def action(self, player: Caller) -> dict[str, Any]:
        return {
            "kind": "vampire.action",
            "character_id": self.characters[player.id],
            "attribute": "astuce",
            "ability": "subterfuge",
        }


def _created(response: httpx.Response) -> dict[str, Any]:
    assert response.status_code == 201, response.text
    return response.json()


def _register(http: httpx.Client, name: str) -> Caller:
    body = _created(http.post(f"{API}/users", json={"name": name}))
    return Caller(id=body["id"], name=body["name"], api_key=body["api_key"])


def _table(http: httpx.Client, index: int) -> Table:
    """A campaign, its players and their characters, created through `http`'s host."""
    gm = _register(http, f"Prince {index}")
    players = [_register(http, f"Neonate {index}.{n}") for n in (1, 2)]
    campaign = _created(
        http.post(
            f"{API}/campaigns",
            json={"name": f"Two hosts {index}", "system": "vampire"},
            headers=gm.headers,
        )
    )
    characters = {}
    for player in players:
        _created(
            http.post(
                f"{API}/campaigns/{campaign['id']}/members",
                json={"user_id": player.id, "role": "player"},
                headers=gm.headers,
            )
        )
        character = _created(
            http.post(
                f"{API}/campaigns/{campaign['id']}/characters",
                json={
                    "name": f"Childe of {player.name}",
                    "kind": "pc",
                    "owner_id": player.id,
                    "sheet": VAMPIRE_SHEET,
                },
                headers=gm.headers,
            )
        )
        characters[player.id] = character["id"]
    return Table(campaign["id"], gm, players, characters)


@dataclass(frozen=True)
class Rolled:
    host: str
    campaign_id: str
    kind: str
    status: int
    body: Any


def _roll_concurrently(jobs: list[tuple[Host, Table, Caller, dict[str, Any]]]) -> list[Rolled]:
    """Each job a client of its own rolling ROLLS_EACH times, all released at once."""
    start = threading.Barrier(len(jobs), timeout=REQUEST_TIMEOUT)

    def roller(job: tuple[Host, Table, Caller, dict[str, Any]]) -> list[Rolled]:
        host, table, caller, body = job
        rolled = []
        with host.client() as http:
            start.wait()
            for _ in range(ROLLS_EACH):
                response = http.post(
                    f"{API}/campaigns/{table.id}/rolls", json=body, headers=caller.headers
                )
                try:
                    answer = response.json()
                except ValueError:
                    answer = response.text
                rolled.append(
                    Rolled(host.name, table.id, body["kind"], response.status_code, answer)
                )
        return rolled

    with ThreadPoolExecutor(len(jobs)) as pool:
        return [rolled for batch in pool.map(roller, jobs) for rolled in batch]


def _listening(engine: Engine, application: str) -> int:
    """The feed listeners (one per worker that opened a stream) of a host's processes."""
    with engine.connect() as connection:
        return connection.execute(
            text(
                "SELECT count(*) FROM pg_stat_activity WHERE application_name = :name "
                "AND query LIKE 'LISTEN nocturne_feed%'"
            ),
            {"name": application},
        ).scalar_one()


def test_FAIR_5_two_hosts_roll_into_three_campaigns_gap_free_verified_and_fed_across(
    hosts: dict[str, Host], db_engine: Engine, tmp_path: Path
) -> None:
    a, b = hosts["A"], hosts["B"]
    with a.client() as on_a, b.client() as on_b:
        # Set up through either host: what one commits, the other serves.
        tables = [_table((on_a, on_b)[index % 2], index) for index in range(CAMPAIGNS)]
        heads = {t.id: all_log_entries(on_b, t.id, t.gm.headers)[-1]["seq"] for t in tables}

    # On each host, a stream for the GM and one for a player of every campaign: each must
    # receive the other host's rolls as well as its own.
    streams: dict[tuple[str, str, str], EventStream] = {}
    try:
        for table in tables:
            for host in (a, b):
                for viewer in (table.gm, table.players[0]):
                    stream = host.events(table.id, viewer)
                    assert stream.status == 200, stream.body
                    streams[(table.id, host.name, viewer.id)] = stream
        assert _listening(db_engine, a.application) >= 1
        assert _listening(db_engine, b.application) >= 1

        # Every player rolls dice through one host and their sheet's action through the
        # other; the GM rolls dice through both.
        jobs = []
        for table in tables:
            first, second = table.players
            jobs += [
                (a, table, table.gm, DICE),
                (b, table, table.gm, DICE),
                (a, table, first, table.action(first)),
                (b, table, first, DICE),
                (a, table, second, DICE),
                (b, table, second, table.action(second)),
            ]
        rolled = _roll_concurrently(jobs)
        per_table = len(jobs) // CAMPAIGNS * ROLLS_EACH

        assert [(r.status, r.body) for r in rolled if r.status != 201] == []
        by_seq: dict[str, dict[int, Rolled]] = {table.id: {} for table in tables}
        for r in rolled:
            by_seq[r.campaign_id][r.body["seq"]] = r

        def check(table: Table) -> None:
            head = heads[table.id]
            # Every 201 of the campaign had its own seq, and together they fill the log.
            seqs = sorted(r.body["seq"] for r in rolled if r.campaign_id == table.id)
            assert seqs == list(range(head + 1, head + per_table + 1)), seqs
            with a.client() as on_a, b.client() as on_b:
                _assert_log_and_exports(on_a, on_b, table, head, by_seq[table.id], tmp_path)
                through = {
                    name: [s for s, r in by_seq[table.id].items() if r.host == name]
                    for name in hosts
                }
                for viewer in (table.gm, table.players[0]):
                    logged = all_log_entries(on_a, table.id, viewer.headers)[head:]
                    for host, other in ((a, b), (b, a)):
                        stream = streams[(table.id, host.name, viewer.id)]
                        _assert_fed(stream, logged, crossing=through[other.name])

        # The campaigns side by side: each one's offline verification is a process of its own.
        with ThreadPoolExecutor(CAMPAIGNS) as pool:
            for checked in [pool.submit(check, table) for table in tables]:
                checked.result()
        _assert_nothing_more(list(streams.values()))
    finally:
        close_all(streams.values())


def _assert_log_and_exports(
    on_a: httpx.Client,
    on_b: httpx.Client,
    table: Table,
    head: int,
    rolled: dict[int, Rolled],
    tmp_path: Path,
) -> None:
    """Read back through both hosts: one log, seq 1..n, each roll where its 201 said, and
    verified by each host and offline, every draw re-derived from the revealed seed."""
    rotated = on_b.post(f"{API}/campaigns/{table.id}/fairness/rotate", headers=table.gm.headers)
    assert rotated.status_code == 201, rotated.text
    entries = all_log_entries(on_a, table.id, table.gm.headers)
    assert entries == all_log_entries(on_b, table.id, table.gm.headers)
    seqs = [entry["seq"] for entry in entries]
    assert seqs == list(range(1, len(entries) + 1)), seqs
    assert len(entries) == head + len(rolled) + 2
    for entry in entries[head : head + len(rolled)]:
        answer = rolled[entry["seq"]]
        assert (entry["kind"], entry["hash"]) == (answer.kind, answer.body["hash"])
    kinds = {entry["kind"] for entry in entries[head : head + len(rolled)]}
    assert kinds == {"dice", "vampire.action"}
    assert [entry["kind"] for entry in entries[-2:]] == ["epoch_closed", "epoch_opened"]
    replayable = sum(1 for entry in entries if entry["kind"] not in STRUCTURAL)
    for http in (on_a, on_b):
        report = http.get(f"{API}/campaigns/{table.id}/log/verify", headers=table.gm.headers)
        assert report.status_code == 200, report.text
        body = report.json()
        assert (body["ok"], body["first_failure"]) == (True, None), body
        assert (body["entries_checked"], body["replayed"]) == (len(entries), replayable), body
    summary = verified_offline(on_b, {"id": table.id}, table.gm, tmp_path)
    expected = f"OK: {len(entries)} entries checked, {len(rolled)} re-derived, {replayable} "
    assert summary.startswith(expected), summary


def _assert_fed(stream: EventStream, logged: list[dict[str, Any]], crossing: list[int]) -> None:
    """The stream received every entry after its start once, in seq order, each as GET /log
    shows it to its viewer (but for what later entries added), those rolled through the
    other host among them."""
    received = stream.entries(len(logged))
    assert [event.seq for event in received] == [entry["seq"] for entry in logged]
    assert [event.event for event in received] == [entry["kind"] for entry in logged]
    for event, entry in zip(received, logged, strict=True):
        seen = event.json()
        differing = {
            key for key in (seen.keys() | entry.keys()) - LATER if seen.get(key) != entry.get(key)
        }
        assert not differing, {key: (seen.get(key), entry.get(key)) for key in differing}
        # What followed up the entry when it was sent (a retry rolled meanwhile) is still there.
        assert {f["seq"] for f in seen["follow_ups"]} <= {f["seq"] for f in entry["follow_ups"]}
    assert crossing and set(crossing) <= {event.seq for event in received}


def _assert_nothing_more(streams: list[EventStream]) -> None:
    """No stream receives anything twice: the first waits a moment, and by then a duplicate
    would have reached the others too."""
    extra = [streams[0].quiet(1.0)] + [stream.quiet(0.01) for stream in streams[1:]]
    assert [found for found in extra if found] == []


def test_an_entry_rolled_on_one_host_reaches_the_other_before_the_next_roll(
    hosts: dict[str, Host],
) -> None:
    """Ping-pong: each roll arrives on the other host's stream before anything else is rolled,
    so it came by its own notification."""
    a, b = hosts["A"], hosts["B"]
    with a.client() as on_a, b.client() as on_b:
        table = _table(on_a, 99)
        clients = {"A": on_a, "B": on_b}
        streams = {"A": a.events(table.id, table.gm), "B": b.events(table.id, table.gm)}
        try:
            for rolling, watching in (("A", "B"), ("B", "A"), ("A", "B"), ("B", "A")):
                answer = _created(
                    clients[rolling].post(
                        f"{API}/campaigns/{table.id}/rolls", json=DICE, headers=table.gm.headers
                    )
                )
                [seen] = streams[watching].entries(1, timeout=10)
                assert (seen.seq, seen.json()["hash"]) == (answer["seq"], answer["hash"])
                [own] = streams[rolling].entries(1, timeout=10)
                assert own.seq == answer["seq"]
        finally:
            close_all(streams.values())


def test_a_stream_dropped_on_one_host_resumes_on_the_other_by_Last_Event_ID(
    hosts: dict[str, Host],
) -> None:
    """No sticky sessions needed: a reconnecting client may land on either host."""
    a, b = hosts["A"], hosts["B"]
    with a.client() as on_a, b.client() as on_b:
        table = _table(on_b, 98)
        player = table.players[0]

        def roll(http: httpx.Client) -> int:
            url = f"{API}/campaigns/{table.id}/rolls"
            return int(_created(http.post(url, json=DICE, headers=table.gm.headers))["seq"])

        first = a.events(table.id, player)
        try:
            rolled = roll(on_b)
            last = first.entries(1, timeout=10)[0].seq
            assert last == rolled
        finally:
            first.close()  # the connection drops; the table keeps rolling on both hosts
        missed = [roll(http) for http in (on_a, on_b, on_a)]
        resumed = EventStream(
            f"{b.base}{API}/campaigns/{table.id}/events",
            {**player.headers, "Last-Event-ID": str(last)},
        )
        try:
            assert [event.seq for event in resumed.entries(3, timeout=10)] == missed
            live = roll(on_a)
            assert [event.seq for event in resumed.entries(1, timeout=10)] == [live]
            assert resumed.quiet(0.5) == []
        finally:
            resumed.close()
