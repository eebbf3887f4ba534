"""Group commit of a busy campaign's rolls (issue 23): app/services/roll_batches.py."""

from __future__ import annotations

import asyncio
import contextvars
import itertools
import json
import threading
import uuid
from collections.abc import Sequence
from typing import Any

import pytest
from fastapi.responses import Response
from pydantic import TypeAdapter
from sqlmodel import Session

from app.core.problems import ProblemError
from app.core.settings import get_settings
from app.engine.errors import InvalidInput, RuleRefusal
from app.engine.registry import DEFAULT_REGISTRY
from app.models import User
from app.models.typed import api_models
from app.services import log as log_service
from app.services import roll_batches
from app.services.log import SHARED_WAITS
from app.services.roll_batches import CampaignBatches, RollJob, make_rolls
from tests.api.helpers import statements_reading
from tests.conftest import API, VAMPIRE_SHEET

CAMPAIGN = uuid.uuid4()


class _Recorder:
    """A batch maker that records its batches, and holds the first until released."""

    def __init__(self) -> None:
        self.batches: list[list[int]] = []
        self.first_started = threading.Event()
        self.release = threading.Event()

    def __call__(self, jobs: Sequence[int]) -> list[int]:
        if not self.batches:
            self.first_started.set()
            assert self.release.wait(10)
        self.batches.append(list(jobs))
        if -1 in jobs:
            raise RuntimeError("the batch failed")
        return [job * 10 for job in jobs]


async def _submit_while_the_first_runs(
    batches: CampaignBatches[int, int], recorder: _Recorder, later: list[int]
) -> list[Any]:
    first = asyncio.ensure_future(batches.submit(CAMPAIGN, 1))
    await asyncio.to_thread(recorder.first_started.wait, 10)
    waiting = [asyncio.ensure_future(batches.submit(CAMPAIGN, job)) for job in later]
    await asyncio.sleep(0)
    recorder.release.set()
    return await asyncio.gather(first, *waiting, return_exceptions=True)


def test_rolls_queued_behind_a_running_batch_share_the_next_one_in_arrival_order() -> None:
    recorder = _Recorder()
    batches = CampaignBatches(recorder)
    answers = asyncio.run(_submit_while_the_first_runs(batches, recorder, [2, 3, 4]))
    assert answers == [10, 20, 30, 40]
    assert recorder.batches == [[1], [2, 3, 4]]
    assert batches.batches == 2


def test_a_batch_is_at_most_max_batch_jobs() -> None:
    recorder = _Recorder()
    batches = CampaignBatches(recorder, max_batch=2)
    answers = asyncio.run(_submit_while_the_first_runs(batches, recorder, [2, 3, 4, 5, 6]))
    assert answers == [10, 20, 30, 40, 50, 60]
    assert recorder.batches == [[1], [2, 3], [4, 5], [6]]


def test_a_batch_maker_that_fails_fails_its_own_batch_only() -> None:
    recorder = _Recorder()
    batches = CampaignBatches(recorder, max_batch=2)
    answers = asyncio.run(_submit_while_the_first_runs(batches, recorder, [2, -1, 4]))
    assert answers[:1] == [10]
    assert [type(answer) for answer in answers[1:3]] == [RuntimeError, RuntimeError]
    assert answers[3] == 40
    assert recorder.batches == [[1], [2, -1], [4]]


def test_campaigns_are_batched_apart_and_forgotten_once_drained() -> None:
    seen: list[list[str]] = []

    def make(jobs: Sequence[str]) -> list[str]:
        seen.append(list(jobs))
        return [job.upper() for job in jobs]

    batches = CampaignBatches(make)

    async def both() -> list[str]:
        return await asyncio.gather(
            batches.submit(uuid.uuid4(), "a"), batches.submit(uuid.uuid4(), "b")
        )

    assert asyncio.run(both()) == ["A", "B"]
    assert sorted(seen) == [["a"], ["b"]]
    assert batches.campaigns_waiting == 0  # nothing kept for a campaign at rest


_ROLLER: contextvars.ContextVar[str] = contextvars.ContextVar("roller", default="nobody")


def test_a_batch_runs_on_a_thread_of_its_pool_with_the_callers_context() -> None:
    def make(jobs: Sequence[int]) -> list[str]:
        return [f"{_ROLLER.get()} on {threading.current_thread().name}" for _ in jobs]

    async def roll() -> list[str]:
        _ROLLER.set("Mina")
        return await roll_batches.in_batch_thread(make, [1])

    (answer,) = asyncio.run(roll())
    assert answer.startswith("Mina on roll-batch")


def test_a_cancelled_batch_waits_for_its_thread_to_end_before_it_is_cancelled() -> None:
    recorder = _Recorder()
    ended: list[str] = []

    def make(jobs: Sequence[int]) -> list[int]:
        answers = recorder(jobs)
        ended.append("the batch's transaction ran its course")
        return answers

    async def cancel_while_it_runs() -> None:
        batch = asyncio.ensure_future(roll_batches.in_batch_thread(make, [1]))
        await asyncio.to_thread(recorder.first_started.wait, 10)
        batch.cancel()
        await asyncio.sleep(0.05)
        assert not batch.done()  # still waiting for its thread
        recorder.release.set()
        with pytest.raises(asyncio.CancelledError):
            await batch

    asyncio.run(cancel_while_it_runs())
    assert ended == ["the batch's transaction ran its course"]


def test_a_cancelled_batch_still_waiting_for_a_thread_never_runs() -> None:
    threads = get_settings().roll_pool_size
    release = threading.Event()
    started = threading.Semaphore(0)
    ran: list[int] = []

    def hold(jobs: Sequence[int]) -> list[int]:
        started.release()
        assert release.wait(10)
        ran.extend(jobs)
        return list(jobs)

    async def cancel_the_queued_one() -> None:
        holding = [
            asyncio.ensure_future(roll_batches.in_batch_thread(hold, [n])) for n in range(threads)
        ]
        for _ in range(threads):  # every thread of the pool is busy
            assert await asyncio.to_thread(started.acquire, True, 10)
        queued = asyncio.ensure_future(roll_batches.in_batch_thread(hold, [-1]))
        await asyncio.sleep(0.01)
        queued.cancel()
        with pytest.raises(asyncio.CancelledError):
            await queued
        release.set()
        assert await asyncio.gather(*holding) == [[n] for n in range(threads)]

    asyncio.run(cancel_the_queued_one())
    assert sorted(ran) == list(range(threads))  # not -1


# --- the rolls of one campaign made together --------------------------------------------------

BODY = TypeAdapter(api_models(DEFAULT_REGISTRY).roll_body)


def _job(
    session: Session,
    user_id: str,
    campaign_id: str,
    notation: str,
    visibility: str = "public",
    **fields: object,
) -> RollJob:
    body = {"kind": "dice", "notation": notation, "visibility": visibility, **fields}
    return _roll_job(session, user_id, campaign_id, body)


def _roll_job(session: Session, user_id: str, campaign_id: str, body: dict[str, Any]) -> RollJob:
    """A roll of any kind, as the rolls router queues it for its batch."""
    user = session.get(User, uuid.UUID(user_id))
    assert user is not None
    return RollJob(session, user, uuid.UUID(campaign_id), BODY.validate_python(body), "en")


@pytest.fixture
def together_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """The batch must be made in one transaction: no roll made again on its own after the
    batch was rolled back (which would hide a batch that fails)."""

    def alone(*_: object) -> None:
        raise AssertionError("the batch was rolled back and its rolls made one by one")

    monkeypatch.setattr(roll_batches, "roll_alone", alone)


def _answers(answers: Sequence[object]) -> list[dict[str, Any]]:
    assert all(isinstance(answer, Response) for answer in answers), answers
    assert [answer.status_code for answer in answers] == [201] * len(answers)  # type: ignore[attr-defined]
    return [json.loads(answer.body) for answer in answers]  # type: ignore[attr-defined]


def _log(client: Any, campaign: dict[str, Any], headers: dict[str, str]) -> list[dict[str, Any]]:
    page = client.get(f"{API}/campaigns/{campaign['id']}/log", headers=headers)
    assert page.status_code == 200, page.text
    return list(page.json()["data"])


def test_FAIR_5_a_batch_seals_each_roll_onto_the_chain_in_arrival_order(
    client, session, gm, player, make_campaign, together_only
):
    campaign = make_campaign("vampire", players=(player,))
    head = len(_log(client, campaign, gm.headers))
    jobs = [
        _job(session, gm.id, campaign["id"], "1d6"),
        _job(session, player.id, campaign["id"], "2d8"),
        _job(session, gm.id, campaign["id"], "3d10"),
    ]
    answers = make_rolls(DEFAULT_REGISTRY)(jobs)
    assert all(isinstance(answer, Response) for answer in answers)
    assert [answer.status_code for answer in answers] == [201, 201, 201]  # type: ignore[union-attr]
    assert [answer.media_type for answer in answers] == ["application/json"] * 3  # type: ignore[union-attr]
    seqs = [json.loads(answer.body)["seq"] for answer in answers]  # type: ignore[union-attr]
    log = _log(client, campaign, gm.headers)
    assert [entry["seq"] for entry in log] == list(range(1, head + 4))
    assert seqs == [head + 1, head + 2, head + 3]  # each answer is its own roll's entry
    made = log[head:]
    assert [entry["request"]["notation"] for entry in made] == ["1d6", "2d8", "3d10"]
    assert [entry["actor_id"] for entry in made] == [gm.id, player.id, gm.id]
    assert all(entry["prev_hash"] == before["hash"] for before, entry in itertools.pairwise(log))
    verified = client.get(f"{API}/campaigns/{campaign['id']}/log/verify", headers=gm.headers)
    assert verified.json()["ok"] is True


def test_a_roll_that_fails_in_a_batch_fails_alone_and_the_others_are_made(
    client, session, gm, player, other_player, make_campaign
):
    campaign = make_campaign("vampire", players=(player,))
    head = len(_log(client, campaign, gm.headers))
    jobs = [
        _job(session, gm.id, campaign["id"], "1d6"),
        _job(session, other_player.id, campaign["id"], "1d6"),  # not a member: 404
        _job(session, player.id, campaign["id"], "1d4"),
    ]
    answers = make_rolls(DEFAULT_REGISTRY)(jobs)
    assert isinstance(answers[0], Response) and isinstance(answers[2], Response)
    assert isinstance(answers[1], ProblemError)
    assert answers[1].status == 404
    log = _log(client, campaign, gm.headers)
    assert [entry["seq"] for entry in log] == list(range(1, head + 3))  # gap-free
    assert [entry["actor_id"] for entry in log[head:]] == [gm.id, player.id]


def test_rolls_refused_while_checked_are_answered_alone_and_the_batch_goes_on(
    client, session, gm, player, make_campaign, together_only
):
    # A bad notation (the rules' check, 422), first, so that the next roll takes the access
    # it left, and a character the campaign lacks (404) wrote nothing: each gets its
    # refusal, and the batch is not rolled back and made again.
    campaign = make_campaign("vampire", players=(player,))
    head = len(_log(client, campaign, gm.headers))
    jobs = [
        _job(session, player.id, campaign["id"], "3d6kh2)"),
        _job(session, gm.id, campaign["id"], "1d6"),
        _job(session, player.id, campaign["id"], "1d4", character_id=str(uuid.uuid4())),
        _job(session, player.id, campaign["id"], "2d8"),
    ]
    answers = make_rolls(DEFAULT_REGISTRY)(jobs)
    assert isinstance(answers[0], InvalidInput) and "unexpected ')'" in answers[0].detail
    assert isinstance(answers[2], ProblemError) and answers[2].status == 404
    made = _answers([answers[1], answers[3]])
    assert [entry["seq"] for entry in made] == [head + 1, head + 2]
    assert [entry["actor_id"] for entry in made] == [gm.id, player.id]
    log = _log(client, campaign, gm.headers)
    assert [entry["seq"] for entry in log] == list(range(1, head + 3))  # gap-free
    assert [entry["request"]["notation"] for entry in log[head:]] == ["1d6", "2d8"]
    verified = client.get(f"{API}/campaigns/{campaign['id']}/log/verify", headers=gm.headers)
    assert verified.json()["ok"] is True


def _action(session: Session, user_id: str, campaign_id: str, **fields: object) -> RollJob:
    body = {"kind": "vampire.action", "attribute": "astuce", "ability": "subterfuge", **fields}
    return _roll_job(session, user_id, campaign_id, body)


def test_FAIR_21_a_roll_refused_for_what_an_earlier_roll_of_its_batch_holds_is_refused_there(
    client, session, gm, player, make_campaign, make_character, together_only
):
    # The GM's hidden action reads the player's sheet, which then waits for the GM: the
    # player's actions after it in the same batch are refused as they would be alone, and
    # the roll after them is made in the batch. The batch read the waits once before the
    # hidden roll held the sheet, and once after, and keeps them no longer.
    campaign = make_campaign("vampire", players=(player,))
    lucien = make_character(campaign, player, sheet=VAMPIRE_SHEET, name="Lucien")
    head = len(_log(client, campaign, gm.headers))
    jobs = [
        _action(session, gm.id, campaign["id"], character_id=lucien["id"], visibility="gm"),
        _action(session, player.id, campaign["id"], character_id=lucien["id"]),
        _action(session, player.id, campaign["id"], character_id=lucien["id"]),
        _job(session, player.id, campaign["id"], "1d6"),
    ]
    with statements_reading(session, "held_effects") as waits:
        answers = make_rolls(DEFAULT_REGISTRY)(jobs)
    for refused in answers[1:3]:
        assert isinstance(refused, RuleRefusal) and refused.rule == "FAIR-21"
        assert f"hidden entry {head + 1}" in refused.detail
    assert len(waits) == 2, "\n\n".join(waits)
    assert SHARED_WAITS not in session.info
    hidden, after = _answers([answers[0], answers[3]])
    assert [hidden["seq"], after["seq"]] == [head + 1, head + 2]
    assert [entry["kind"] for entry in _log(client, campaign, gm.headers)[head:]] == [
        "vampire.action",
        "dice",
    ]


def test_VAM_21_a_refusal_as_the_rules_resolve_still_makes_the_batch_again_one_by_one(
    client, session, gm, player, make_campaign, make_character, monkeypatch
):
    # Willpower is checked as the rules resolve (VAM-21), after the campaign's epoch may
    # have been written: the second roll's refusal rolls the batch back, and each roll is
    # then made alone, with the answer it has alone.
    alone: list[RollJob] = []
    made_alone = roll_batches.roll_alone

    def counted(registry: Any, job: RollJob) -> Response:
        alone.append(job)
        return made_alone(registry, job)

    monkeypatch.setattr(roll_batches, "roll_alone", counted)
    campaign = make_campaign("vampire", players=(player,))
    sheet = {**VAMPIRE_SHEET, "willpower": {"max": 1, "current": 1}}
    lucien = make_character(campaign, player, sheet=sheet, name="Lucien")
    head = len(_log(client, campaign, gm.headers))
    spend = {"character_id": lucien["id"], "willpower": True}
    jobs = [
        _action(session, player.id, campaign["id"], **spend),
        _action(session, player.id, campaign["id"], **spend),
        _job(session, gm.id, campaign["id"], "1d6"),
    ]
    answers = make_rolls(DEFAULT_REGISTRY)(jobs)
    assert alone == jobs  # rolled back, then made one by one
    assert SHARED_WAITS not in session.info  # what the batch read went with it
    assert isinstance(answers[1], RuleRefusal) and answers[1].rule == "VAM-21"
    first, last = _answers([answers[0], answers[2]])
    assert [first["seq"], last["seq"]] == [head + 1, head + 2]
    sheet_now = client.get(f"{API}/characters/{lucien['id']}", headers=player.headers).json()
    assert sheet_now["sheet"]["willpower"]["current"] == 0  # spent once


def test_a_batch_reads_its_characters_and_the_waits_for_the_gm_once(
    client, session, gm, player, other_player, make_campaign, make_character, together_only
):
    # Issue 23: each roll read its character, and the hidden rolls waiting for the GM
    # (FAIR-21), with queries of its own while the campaign was locked; the batch reads
    # them once, and each roll finds its own.
    campaign = make_campaign("vampire", players=(player, other_player))
    lucien = make_character(campaign, player, sheet=VAMPIRE_SHEET, name="Lucien")
    mina = make_character(campaign, other_player, sheet=VAMPIRE_SHEET, name="Mina")
    head = len(_log(client, campaign, gm.headers))
    jobs = [
        _action(session, player.id, campaign["id"], character_id=lucien["id"]),
        _action(session, other_player.id, campaign["id"], character_id=mina["id"]),
        _job(session, gm.id, campaign["id"], "1d6"),
        _action(session, player.id, campaign["id"], character_id=lucien["id"]),
    ]
    with (
        statements_reading(session, "character") as reads,
        statements_reading(session, "held_effects") as waits,
    ):
        _answers(make_rolls(DEFAULT_REGISTRY)(jobs))
    assert len(reads) == 1, "\n\n".join(reads)
    assert len(waits) == 1, "\n\n".join(waits)
    made = _log(client, campaign, gm.headers)[head:]
    assert [entry["character_id"] for entry in made] == [
        lucien["id"],
        mina["id"],
        None,
        lucien["id"],
    ]
    assert [entry["request"].get("character", {}).get("name") for entry in made] == [
        "Lucien",
        "Mina",
        None,
        "Lucien",
    ]


def test_VAM_21_a_later_roll_of_a_batch_reads_the_sheet_an_earlier_one_changed(
    client, session, gm, player, make_campaign, make_character, together_only
):
    # The batch read Lucien's sheet once, before its first roll spent a point of Willpower:
    # the second roll reads the sheet as the first left it, as it would alone.
    campaign = make_campaign("vampire", players=(player,))
    sheet = {**VAMPIRE_SHEET, "willpower": {"max": 2, "current": 2}}
    lucien = make_character(campaign, player, sheet=sheet, name="Lucien")
    mina = make_character(campaign, player, sheet=VAMPIRE_SHEET, name="Mina")
    head = len(_log(client, campaign, gm.headers))
    spend = {"character_id": lucien["id"], "willpower": True}
    jobs = [
        _action(session, player.id, campaign["id"], **spend),
        _action(session, player.id, campaign["id"], character_id=mina["id"]),
        _action(session, player.id, campaign["id"], **spend),
    ]
    with statements_reading(session, "character") as reads:
        _answers(make_rolls(DEFAULT_REGISTRY)(jobs))
    assert len(reads) == 1, "\n\n".join(reads)
    first, _, second = _log(client, campaign, gm.headers)[head:]
    assert first["request"]["character"]["sheet"]["willpower"]["current"] == 2
    assert second["request"]["character"]["sheet"]["willpower"]["current"] == 1
    sheet_now = client.get(f"{API}/characters/{lucien['id']}", headers=player.headers).json()
    assert sheet_now["sheet"]["willpower"]["current"] == 0


def test_a_batch_reads_the_running_encounters_once_and_refuses_a_combatants_roll(
    client, session, gm, player, other_player, make_campaign, make_character, together_only
):
    # Issue 23: each rules roll read the running encounters while the campaign was locked
    # (a combatant acts through its encounter); the batch reads them once.
    campaign = make_campaign("vampire", players=(player, other_player))
    lucien = make_character(campaign, player, sheet=VAMPIRE_SHEET, name="Lucien")
    mina = make_character(campaign, other_player, sheet=VAMPIRE_SHEET, name="Mina")
    ghoul = make_character(campaign, gm, sheet=VAMPIRE_SHEET, name="Goule", kind="npc")
    fighters = [
        {"character_id": lucien["id"], "side": "pcs"},
        {"character_id": ghoul["id"], "side": "foes"},
    ]
    created = client.post(
        f"{API}/campaigns/{campaign['id']}/encounters",
        json={"name": "Crypte", "combatants": fighters},
        headers=gm.headers,
    )
    assert created.status_code == 201, created.text
    started = client.post(f"{API}/encounters/{created.json()['id']}/initiative", headers=gm.headers)
    assert started.status_code == 200, started.text
    head = len(_log(client, campaign, gm.headers))
    jobs = [
        _action(session, other_player.id, campaign["id"], character_id=mina["id"]),
        _action(session, player.id, campaign["id"], character_id=lucien["id"]),
        _action(session, other_player.id, campaign["id"], character_id=mina["id"]),
    ]
    with statements_reading(session, "encounter") as reads:
        answers = make_rolls(DEFAULT_REGISTRY)(jobs)
    assert len(reads) == 1, "\n\n".join(reads)
    assert isinstance(answers[1], ProblemError) and answers[1].status == 409
    assert "is fighting in the encounter 'Crypte'" in answers[1].detail
    first, last = _answers([answers[0], answers[2]])
    assert [first["seq"], last["seq"]] == [head + 1, head + 2]


@pytest.mark.parametrize("header", [{"Idempotency-Key": "once"}, {}])
def test_a_roll_through_the_api_answers_as_before_with_or_without_a_key(
    client, gm, make_campaign, header
):
    campaign = make_campaign("vampire")
    url = f"{API}/campaigns/{campaign['id']}/rolls"
    made = client.post(
        url, json={"kind": "dice", "notation": "3d6kh2"}, headers={**gm.headers, **header}
    )
    assert made.status_code == 201, made.text
    assert made.json()["kind"] == "dice" and made.json()["result"]["total"] >= 2


def test_FAIR_13_each_roll_of_a_batch_answers_as_its_own_roller_sees_it(
    client, session, gm, player, make_campaign, together_only
):
    # The GM's roll takes the lock; the player's role is read with the other members' lock
    # and carried to the player's rolls after it: the player's blind roll is redacted in
    # the player's own answer, the GM's blind roll after it is not.
    campaign = make_campaign("vampire", players=(player,))
    jobs = [
        _job(session, gm.id, campaign["id"], "1d6"),
        _job(session, player.id, campaign["id"], "2d10", visibility="blind"),
        _job(session, gm.id, campaign["id"], "1d4", visibility="blind"),
        _job(session, player.id, campaign["id"], "1d8"),
    ]
    first, blind, gms, players = _answers(make_rolls(DEFAULT_REGISTRY)(jobs))
    assert len(first["draws"]) == 1
    assert blind.get("redacted") is True and "draws" not in blind
    assert gms.get("redacted") is not True and len(gms["draws"]) == 1
    assert players["actor_id"] == player.id and len(players["draws"]) == 1
    assert [entry["seq"] - first["seq"] for entry in (blind, gms, players)] == [1, 2, 3]


def test_FAIR_16_a_batch_that_rotates_its_epoch_rolls_on_in_the_new_one(
    client, session, gm, player, make_campaign, monkeypatch, together_only
):
    # An epoch rotates a margin before its span runs out (rotate_near_span_end): with a
    # span of SPAN_MARGIN + 4, the fourth roll of this batch rotates it, and the rolls after
    # it read the new epoch carried from the roll before, as a new lock would read it.
    monkeypatch.setattr(log_service, "SPAN", log_service.SPAN_MARGIN + 4)
    campaign = make_campaign("vampire", players=(player,))
    head = len(_log(client, campaign, gm.headers))
    jobs = [_job(session, (gm, player)[i % 2].id, campaign["id"], "3d6") for i in range(8)]
    answers = _answers(make_rolls(DEFAULT_REGISTRY)(jobs))
    log = _log(client, campaign, gm.headers)
    kinds = [entry["kind"] for entry in log[head:]]
    assert kinds.count("epoch_closed") >= 1 and kinds.count("epoch_opened") >= 1
    assert len(log) == head + 8 + kinds.count("epoch_closed") + kinds.count("epoch_opened")
    epochs = [answer["epoch"] for answer in answers]
    assert epochs == sorted(epochs) and epochs[-1] > epochs[0]
    for answer in answers:  # each roll in the epoch open at its seq
        opened = max(
            entry["seq"]
            for entry in log
            if entry["kind"] == "epoch_opened" and entry["seq"] < answer["seq"]
        )
        assert log[opened - 1]["epoch"] == answer["epoch"]
    # FAIR-3: each epoch's first roll is the first of the batch made in it, not a later
    # one's written over it by a roll that read the epoch as the batch found it.
    fairness = client.get(f"{API}/campaigns/{campaign['id']}/fairness", headers=gm.headers)
    by_epoch = {e["epoch"]: e for e in [*fairness.json()["past"], fairness.json()["current"]]}
    for number in set(epochs):
        made_in = [answer["seq"] for answer in answers if answer["epoch"] == number]
        assert by_epoch[number]["first_roll_seq"] == min(made_in)
    verified = client.get(f"{API}/campaigns/{campaign['id']}/log/verify", headers=gm.headers)
    assert verified.json()["ok"] is True, verified.json()
    assert verified.json()["rederived"] >= 1  # the closed epoch's rolls, from its seed


def test_an_append_the_database_refuses_fails_the_batch_and_its_rolls_are_made_one_by_one(
    client, session, gm, player, make_campaign, monkeypatch
):
    # From the third roll on, each reads the head the first roll left, so its seq is taken
    # (a unique key): the whole batch is rolled back, then its rolls are made alone.
    first_access: list[Any] = []
    carried = roll_batches.locked_access_for

    def stale(held: Any, user: User, role: str) -> Any:
        first_access.append(first_access[0] if first_access else held)
        return carried(first_access[0], user, role)

    monkeypatch.setattr(roll_batches, "locked_access_for", stale)
    campaign = make_campaign("vampire", players=(player,))
    head = len(_log(client, campaign, gm.headers))
    jobs = [_job(session, (gm, player)[i % 2].id, campaign["id"], "1d6") for i in range(3)]
    seqs = [answer["seq"] for answer in _answers(make_rolls(DEFAULT_REGISTRY)(jobs))]
    assert first_access  # the batch was tried
    assert seqs == [head + 1, head + 2, head + 3]
    log = _log(client, campaign, gm.headers)
    assert [entry["seq"] for entry in log] == list(range(1, head + 4))  # nothing of the batch
    verified = client.get(f"{API}/campaigns/{campaign['id']}/log/verify", headers=gm.headers)
    assert verified.json()["ok"] is True
