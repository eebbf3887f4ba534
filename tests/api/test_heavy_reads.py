"""Issue 16: log verification and export run off the roll path, in their own threads, one
at a time per user, and a head already verified is answered from the cache."""

from __future__ import annotations

import json
import threading
import uuid

import pytest

from app.core.problems import TooManyRequests
from app.services import heavy_reads
from app.services import log as log_service
from tests.conftest import API, assert_problem

ROLL = {"kind": "dice", "notation": "2d6"}


def url(campaign, tail=""):
    return f"{API}/campaigns/{campaign['id']}{tail}"


@pytest.fixture
def verifications(monkeypatch):
    """The threads each real verification ran in (the cache answers the others)."""
    threads: list[str] = []
    verify = log_service.verify_campaign

    def counted(*args, **kwargs):
        threads.append(threading.current_thread().name)
        return verify(*args, **kwargs)

    monkeypatch.setattr(log_service, "verify_campaign", counted)
    return threads


def test_a_verified_head_is_answered_from_the_cache(client, gm, make_campaign, verifications):
    campaign = make_campaign()
    client.post(url(campaign, "/rolls"), json=ROLL, headers=gm.headers)
    first = client.get(url(campaign, "/log/verify"), headers=gm.headers)
    again = client.get(url(campaign, "/log/verify"), headers=gm.headers)
    assert first.status_code == again.status_code == 200
    assert again.json() == first.json() and first.json()["ok"] is True
    assert len(verifications) == 1
    # A new entry is a new head: verified afresh, the new entry counted.
    client.post(url(campaign, "/rolls"), json=ROLL, headers=gm.headers)
    moved = client.get(url(campaign, "/log/verify"), headers=gm.headers).json()
    assert len(verifications) == 2
    assert moved["entries_checked"] == first.json()["entries_checked"] + 1


def test_the_cache_answers_only_whoever_may_read_the_campaign(
    client, gm, outsider, make_campaign, verifications
):
    campaign = make_campaign()
    assert client.get(url(campaign, "/log/verify"), headers=gm.headers).status_code == 200
    refused = client.get(url(campaign, "/log/verify"), headers=outsider.headers)
    assert_problem(refused, 404)


def test_verification_runs_in_the_heavy_read_threads(client, gm, make_campaign, verifications):
    campaign = make_campaign()
    assert client.get(url(campaign, "/log/verify"), headers=gm.headers).status_code == 200
    assert verifications and verifications[0].startswith("heavy-read")


def test_export_renders_in_the_heavy_read_threads(client, gm, make_campaign, monkeypatch):
    campaign = make_campaign()
    for _ in range(3):
        client.post(url(campaign, "/rolls"), json=ROLL, headers=gm.headers)
    threads: set[str] = set()
    iter_entries = log_service.iter_entries

    def recorded(*args, **kwargs):
        for entry in iter_entries(*args, **kwargs):
            threads.add(threading.current_thread().name)
            yield entry

    monkeypatch.setattr(log_service, "iter_entries", recorded)
    export = client.get(url(campaign, "/log/export"), headers=gm.headers)
    assert export.status_code == 200
    lines = [json.loads(line) for line in export.text.splitlines()]
    assert [line["seq"] for line in lines] == [1, 2, 3, 4]
    assert export.headers["log-head"] == f"4:{lines[-1]['hash']}"
    assert threads and all(name.startswith("heavy-read") for name in threads)


def test_one_user_runs_one_verification_or_export_at_a_time(client, gm, player, make_campaign):
    campaign = make_campaign(players=(player,))
    heavy_reads.slots.take(uuid.UUID(gm.id))  # a verification of the GM's still running
    try:
        for tail in ("/log/verify", "/log/export"):
            busy = client.get(url(campaign, tail), headers=gm.headers)
            assert_problem(busy, 429, "already run 1 log verification or export")
            assert busy.headers["retry-after"] == "1"
        # Another user is not held up by it.
        assert client.get(url(campaign, "/log/verify"), headers=player.headers).status_code == 200
    finally:
        heavy_reads.slots.give_back(uuid.UUID(gm.id))
    assert client.get(url(campaign, "/log/verify"), headers=gm.headers).status_code == 200


def test_a_refused_or_finished_read_gives_its_slot_back(client, gm, outsider, make_campaign):
    campaign = make_campaign()
    for _ in range(3):  # each would be 429 if a slot were kept
        assert_problem(client.get(url(campaign, "/log/export"), headers=outsider.headers), 404)
        assert client.get(url(campaign, "/log/export"), headers=gm.headers).status_code == 200
        assert client.get(url(campaign, "/log/verify"), headers=gm.headers).status_code == 200


def test_the_report_cache_keeps_the_most_recent_heads():
    cache = heavy_reads.ReportCache(size=2)
    first, second, third = ((uuid.uuid4(), seq, "h") for seq in (1, 2, 3))
    cache.put(first, "a")
    cache.put(second, "b")
    assert cache.get(first) == "a"  # now the most recent
    cache.put(third, "c")
    assert (cache.get(first), cache.get(second), cache.get(third)) == ("a", None, "c")


def test_a_slot_is_given_back_once_however_often_released():
    # An export's stream gives its slot back when it ends, or when it is dropped unstarted.
    user = uuid.uuid4()
    heavy_reads.slots.take(user)
    release = heavy_reads.slots.released_once(user)
    release()
    release()
    heavy_reads.slots.take(user)
    try:
        with pytest.raises(TooManyRequests):
            heavy_reads.slots.take(user)  # one at a time still: not counted below zero
    finally:
        heavy_reads.slots.give_back(user)


def test_FAIR_12_a_cached_report_of_a_deleted_campaign_is_the_gms_alone(
    client, gm, player, make_campaign, verifications
):
    campaign = make_campaign(players=(player,))
    client.post(url(campaign, "/rolls"), json=ROLL, headers=gm.headers)
    for caller in (gm, player):
        assert client.get(url(campaign, "/log/verify"), headers=caller.headers).status_code == 200
    assert len(verifications) == 1  # the player's answer came from the cache
    deleted = client.delete(url(campaign), headers=gm.headers)
    assert deleted.status_code in (200, 204), deleted.text
    assert_problem(client.get(url(campaign, "/log/verify"), headers=player.headers), 404)
    kept = client.get(url(campaign, "/log/verify"), headers=gm.headers)
    assert kept.status_code == 200 and kept.json()["ok"] is True
