"""Issue 21, points 1 and 2: POST /campaigns/{id}/odds answers the exact odds of any roll
kind's body, prepared as POST /rolls prepares it, nothing drawn or logged; and each roll
entry's view carries its luck (?with_odds=true), from its own request and rules version,
never for a redacted entry nor from values the viewer may not read (FAIR-13, FAIR-18).

Built against the interface with the toy coin ruleset (tests/toy/coin.py), whose exact coin
has odds; a toy duel against an NPC reads that NPC's sheet."""

from __future__ import annotations

import dataclasses
import functools
import uuid
from collections.abc import Iterator
from fractions import Fraction
from typing import Any, Literal

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session

from app.engine.bodies import RollBody
from app.engine.contract import (
    Model,
    Outcome,
    Prepared,
    Resolution,
    RollKind,
    RulesVersion,
    Table,
    effect,
)
from app.engine.dice import DiceSource
from app.engine.odds import Odds, enumerate_paths, luck, outcome_odds
from app.engine.registry import Registry
from app.engine.rulesets import RULESETS
from tests.api.helpers import statements_reading
from tests.api.test_adding_a_ruleset import client_for
from tests.conftest import API, Caller, assert_problem
from tests.toy import coin

# --- a toy duel: the caller's coin against an NPC's luck --------------------------------


class DuelCreate(RollBody):
    """DUEL-1: roll a die of (the opponent's luck + 1) faces; a 1 wins."""

    kind: Literal["coin.duel"]
    character_id: uuid.UUID
    opponent_id: uuid.UUID


class DuelRequest(Model):
    system: Literal["coin-flip"]
    character: coin.CoinCharacter
    opponent: coin.CoinCharacter


class DuelResult(Model):
    face: int
    won: bool


def _prepare_duel(body: DuelCreate, table: Table) -> Prepared[DuelRequest]:
    character = table.acting(body.character_id, coin.CoinCharacter)
    opponent = table.character(body.opponent_id, coin.CoinCharacter)
    request = DuelRequest(system="coin-flip", character=character, opponent=opponent)
    return Prepared(request, character_id=character.id, visibility=body.visibility)


def _resolve_duel(
    request: DuelRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[DuelResult]:
    luck_left = request.opponent.sheet.luck
    face = dice.roll(luck_left + 1)
    won = face == 1
    # DUEL-2: a won duel costs the opponent a point of luck (an effect on an NPC, FAIR-18).
    if won and luck_left > 0:
        change = effect(request.opponent.id, "luck", luck_left, luck_left - 1, "DUEL-2")
        return Resolution(DuelResult(face=face, won=won), [change])
    return Resolution(DuelResult(face=face, won=won))


def _duel_odds(request: DuelRequest, version: RulesVersion) -> Odds:
    won = Fraction(1, request.opponent.sheet.luck + 1)
    return Odds(outcomes=outcome_odds([("lost", 1 - won), ("won", won)]))


DUEL: RollKind[DuelCreate, DuelRequest, DuelResult] = RollKind(
    name="coin.duel",
    title="Coin duel",
    body=DuelCreate,
    request=DuelRequest,
    result=DuelResult,
    prepare=_prepare_duel,
    resolve=_resolve_duel,
    summary=lambda request, result, language: f"duel: {result.face}",
    outcome=lambda result: Outcome("outcome", "won" if result.won else "lost"),
    odds=_duel_odds,
)
REGISTRY = Registry([*RULESETS, dataclasses.replace(coin.RULESET, kinds=(coin.FLIP, DUEL))])


@pytest.fixture
def coin_client(session: Session) -> Iterator[TestClient]:
    with client_for(session, REGISTRY) as client:
        yield client


@dataclasses.dataclass
class CoinTable:
    client: TestClient
    gm: Caller
    player: Caller
    other: Caller
    campaign: dict[str, Any]
    hero: dict[str, Any]
    npc: dict[str, Any]

    def url(self, tail: str) -> str:
        return f"{API}/campaigns/{self.campaign['id']}{tail}"

    def post(self, tail: str, caller: Caller, body: dict[str, Any]) -> Any:
        return self.client.post(self.url(tail), json=body, headers=caller.headers)

    def get(self, tail: str, caller: Caller) -> Any:
        response = self.client.get(self.url(tail), headers=caller.headers)
        assert response.status_code == 200, response.text
        return response.json()

    def flip(self, **extra: Any) -> dict[str, Any]:
        """A flip of the player's character, heads called."""
        return {"kind": "coin.flip", "character_id": self.hero["id"], "call": "heads", **extra}


def _register(client: TestClient, name: str) -> Caller:
    body = client.post(f"{API}/users", json={"name": name}).json()
    return Caller(id=body["id"], name=body["name"], api_key=body["api_key"])


def make_table(client: TestClient) -> CoinTable:
    """A coin campaign: its GM, a player and their character, another player, an NPC."""
    gm, player, other = (_register(client, name) for name in ("Gwen", "Pia", "Otto"))
    campaign = client.post(
        f"{API}/campaigns", json={"name": "Pile ou face", "system": "coin-flip"}, headers=gm.headers
    ).json()
    for member in (player, other):
        added = client.post(
            f"{API}/campaigns/{campaign['id']}/members",
            json={"user_id": member.id, "role": "player"},
            headers=gm.headers,
        )
        assert added.status_code == 201, added.text
    hero = client.post(
        f"{API}/campaigns/{campaign['id']}/characters",
        json={"name": "Lucky", "sheet": {}},
        headers=player.headers,
    ).json()
    npc = client.post(
        f"{API}/campaigns/{campaign['id']}/characters",
        json={"name": "Le comte", "kind": "npc", "sheet": {"luck": 4}},
        headers=gm.headers,
    )
    assert npc.status_code == 201, npc.text
    return CoinTable(client, gm, player, other, campaign, hero, npc.json())


@pytest.fixture
def table(coin_client: TestClient) -> CoinTable:
    return make_table(coin_client)


def _last_seq(table: CoinTable) -> int:
    entries = table.get("/log?limit=200", table.gm)["data"]
    return int(entries[-1]["seq"]) if entries else 0


# --- point 1: POST /odds --------------------------------------------------------------


def test_odds_of_a_flip_are_exact_and_nothing_is_drawn_or_logged(table):
    before = _last_seq(table)
    response = table.post("/odds", table.player, table.flip())
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["kind"] == "coin.flip" and answer["rules"] == "coin@1"
    outcomes = answer["odds"]["outcomes"]
    assert [(o["code"], o["exact"], o["probability"]) for o in outcomes] == [
        ("lost", "1/2", 0.5),
        ("won", "1/2", 0.5),
    ]
    (luck_change,) = answer["odds"]["distributions"]
    assert luck_change["name"] == "luck_change" and luck_change["mean"] == -0.5
    assert _last_seq(table) == before  # nothing logged: the log's head did not move


def _flip_with(
    request: coin.CoinFlipRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[coin.CoinFlipResult]:
    return coin.resolve(request, dice, version)


def test_COIN_1_odds_agree_with_every_face_the_rules_can_draw():
    """The toy's odds against the brute force of its own resolve (app.engine.odds)."""
    character = coin.CoinCharacter(
        id=str(uuid.uuid4()), name="Lucky", kind="pc", sheet=coin.CoinSheet(luck=2)
    )
    request = coin.CoinFlipRequest(system="coin-flip", character=character, call="tails")
    for version in (1, 2):
        by_outcome: dict[str, Fraction] = {}
        by_change: dict[int, Fraction] = {}
        flips = enumerate_paths(functools.partial(_flip_with, request, version=version))
        for weight, resolution in flips:
            code = "won" if resolution.result.won else "lost"
            by_outcome[code] = by_outcome.get(code, Fraction(0)) + weight
            change = sum(int(e.after) - int(e.before) for e in resolution.effects)
            by_change[change] = by_change.get(change, Fraction(0)) + weight
        odds = coin.odds(request, version)
        assert {o.code: Fraction(o.exact) for o in odds.outcomes} == by_outcome
        (changes,) = odds.distributions
        assert {v.value: Fraction(v.exact) for v in changes.values} == by_change


def test_odds_refuse_as_the_roll_would(table):
    # Someone else's character: the roll's own 403; an outsider: 404; a bad body: 422.
    assert_problem(table.post("/odds", table.other, table.flip()), 403)
    outsider = _register(table.client, "Nina")
    assert_problem(table.post("/odds", outsider, table.flip()), 404)
    bad = table.post("/odds", table.player, {"kind": "coin.flip", "call": "edge"})
    assert_problem(bad, 422)
    unknown = {**table.flip(), "character_id": str(uuid.uuid4())}
    assert_problem(table.post("/odds", table.player, unknown), 404)


def test_odds_read_the_campaign_membership_and_sheets_in_one_query(table, session):
    """Issue 23: the sheets a body names come with the campaign and the caller's membership,
    in one round trip rather than two."""
    duel = {"kind": "coin.duel", "character_id": table.npc["id"], "opponent_id": table.npc["id"]}
    for caller, body in ((table.player, table.flip()), (table.gm, duel)):
        with (
            statements_reading(session, "character") as sheets,
            statements_reading(session, "campaign_member") as memberships,
        ):
            response = table.post("/odds", caller, body)
        assert response.status_code == 200, response.text
        assert len(sheets) == 1 and sheets == memberships, "\n\n".join(sheets + memberships)


def test_odds_find_no_sheet_outside_the_campaign_nor_a_deleted_one(table):
    """The sheets read with the membership are the campaign's live characters only: another
    campaign's character, a deleted one and a deleted campaign are each not found."""
    elsewhere = table.client.post(
        f"{API}/campaigns",
        json={"name": "Ailleurs", "system": "coin-flip"},
        headers=table.gm.headers,
    ).json()
    stranger = table.client.post(
        f"{API}/campaigns/{elsewhere['id']}/characters",
        json={"name": "Stranger", "kind": "npc", "sheet": {"luck": 1}},
        headers=table.gm.headers,
    ).json()
    duel = {"kind": "coin.duel", "character_id": table.npc["id"], "opponent_id": stranger["id"]}
    assert_problem(table.post("/odds", table.gm, duel), 404, stranger["id"])

    gone = table.client.delete(f"{API}/characters/{table.hero['id']}", headers=table.player.headers)
    assert gone.status_code == 204, gone.text
    assert_problem(table.post("/odds", table.player, table.flip()), 404, table.hero["id"])

    closed = table.client.delete(table.url(""), headers=table.gm.headers)
    assert closed.status_code == 204, closed.text
    duel = {**duel, "opponent_id": table.npc["id"]}
    assert_problem(table.post("/odds", table.gm, duel), 404, "not found")


def test_COIN_3_odds_refuse_a_flip_the_rules_refuse(table):
    for _ in range(40):
        flipped = table.post("/rolls", table.player, table.flip())
        if flipped.status_code == 409:
            break
    refused = assert_problem(table.post("/odds", table.player, table.flip()), 409)
    assert refused["rule"] == "COIN-3"


def test_a_kind_without_odds_is_refused_with_what_has_them(session):
    unpriced = dataclasses.replace(coin.FLIP, odds=None)
    registry = Registry([*RULESETS, dataclasses.replace(coin.RULESET, kinds=(unpriced,))])
    with client_for(session, registry) as client:
        table = make_table(client)
        response = table.post("/odds", table.player, table.flip())
    refused = assert_problem(response, 422, "odds for coin.flip")
    assert "not computed yet" in refused["detail"] and "dice" in refused["detail"]


def test_FAIR_18_a_player_gets_no_odds_read_from_an_npc_sheet(table):
    duel = {"kind": "coin.duel", "character_id": table.hero["id"], "opponent_id": table.npc["id"]}
    refused = assert_problem(table.post("/odds", table.player, duel), 403, "NPC")
    assert refused["rule"] == "FAIR-18"
    # The GM, who reads the NPC's sheet, gets them: its luck 4 makes a d5.
    gm_duel = {**duel, "character_id": table.npc["id"], "opponent_id": table.npc["id"]}
    answer = table.post("/odds", table.gm, gm_duel).json()
    assert [(o["code"], o["exact"]) for o in answer["odds"]["outcomes"]] == [
        ("lost", "4/5"),
        ("won", "1/5"),
    ]


# --- point 2: luck on the roll -------------------------------------------------------------


def test_luck_of_each_flip_with_odds_only_when_asked(table):
    flips = [table.post("/rolls", table.player, table.flip()).json() for _ in range(3)]
    rolled_dice = table.post("/rolls", table.player, {"kind": "dice", "notation": "1d6"}).json()
    plain = table.get("/rolls", table.player)["data"]
    assert all("luck" not in entry or entry["luck"] is None for entry in plain)
    listed = table.get("/rolls?with_odds=true", table.player)["data"]
    by_seq = {entry["seq"]: entry for entry in listed}
    for flip in flips:
        if flip["result"]["won"]:
            expected = {"outcome": "won", "probability": 0.5, "percentile": 75.0}
        else:
            expected = {"outcome": "lost", "probability": 0.5, "percentile": 25.0}
        assert by_seq[flip["seq"]]["luck"] == expected
        one = table.get(f"/rolls/{flip['seq']}?with_odds=true", table.player)
        assert one["luck"] == expected
    # Generic dice rank by their total: 1d6 showing f is at (f - 1 + 1/2) / 6.
    face = rolled_dice["result"]["total"]
    dice_luck = by_seq[rolled_dice["seq"]]["luck"]
    assert (dice_luck["outcome"], dice_luck["probability"]) == (str(face), 1 / 6)
    # Within 1e-12 of the exact mid-rank, as issue 21 asks of floats (whatever face fell).
    assert dice_luck["percentile"] == pytest.approx((face - 0.5) / 6 * 100, abs=1e-12)
    in_log = table.get("/log?with_odds=true&kind=coin.", table.gm)["data"]
    assert [entry["luck"]["outcome"] for entry in in_log] == [
        "won" if flip["result"]["won"] else "lost" for flip in flips
    ]


def test_luck_uses_the_rules_version_the_entry_records(table):
    flip = table.post("/rolls", table.player, table.flip()).json()
    assert flip["rules"] == "coin@1"
    odds = coin.odds(
        coin.CoinFlipRequest.model_validate(flip["request"]), 1
    )  # the stored request, parsed
    expected = luck(odds, flip["outcome"]["code"]).model_dump(mode="json")
    assert table.get(f"/rolls/{flip['seq']}?with_odds=true", table.gm)["luck"] == expected


def test_FAIR_13_no_luck_on_a_redacted_entry(table):
    hidden = table.post("/rolls", table.player, table.flip(visibility="gm")).json()
    seen = table.get(f"/rolls/{hidden['seq']}?with_odds=true", table.other)
    assert seen["redacted"] is True and "luck" not in seen
    assert "luck" in table.get(f"/rolls/{hidden['seq']}?with_odds=true", table.gm)
    assert "luck" in table.get(f"/rolls/{hidden['seq']}?with_odds=true", table.player)


def test_FAIR_18_no_luck_from_an_npc_value_the_viewer_cannot_open(table):
    duel = {"kind": "coin.duel", "character_id": table.hero["id"], "opponent_id": table.npc["id"]}
    made = table.post("/rolls", table.player, duel)
    assert made.status_code == 201, made.text
    seq = made.json()["seq"]
    # The player reads the NPC's luck as a commitment: its odds would tell it.
    assert "luck" not in table.get(f"/rolls/{seq}?with_odds=true", table.player)
    assert "luck" not in table.get(f"/rolls/{seq}?with_odds=true", table.other)
    gm_view = table.get(f"/rolls/{seq}?with_odds=true", table.gm)
    assert gm_view["luck"]["probability"] == pytest.approx(
        0.2 if gm_view["outcome"]["code"] == "won" else 0.8
    )
