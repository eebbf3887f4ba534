"""What the Fabulae core API tests share (FAB-1..44, FAB-80..82, FAB-90): helpers and the table.

Every roll posts to POST .../rolls and answers with its log entry; `forced_dice` scripts the
faces the rules draw (pool dice first, then stress dice; the active side before the passive
one), so each test knows the exact sixes, feats and outcomes it expects.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pytest

from tests.api.helpers import (
    get_entry,  # noqa: F401 (the fabulae tests import it from here)
    last_seq,
    post_roll,
    rolled,
    sheet_of,
)
from tests.conftest import FABULAE_SHEET, assert_problem

FAB = "fabulae-tenebris"
# A valid starting sheet whose talent changes none of the rolls tested here.
BASE_SHEET: dict[str, Any] = {**FABULAE_SHEET, "talents": ["beast_friend"]}
ALL_KINDS = {
    "fabulae.action",
    "fabulae.opposed",
    "fabulae.oppose",
    "fabulae.push",
    "fabulae.state_choice",
    "fabulae.absorb",
    "fabulae.stress",
    "fabulae.stress_resist",
    "fabulae.panic",
    "fabulae.recover",
    "fabulae.destiny_award",
}


# --- helpers -------------------------------------------------------------------------------


def action_body(character, attribute="physique", skill="combat", **extra: Any) -> dict[str, Any]:
    return {
        "kind": "fabulae.action",
        "character_id": character["id"],
        "attribute": attribute,
        "skill": skill,
        **extra,
    }


def act(client, campaign, caller, character, attribute="physique", skill="combat", **extra):
    return post_roll(client, campaign, caller, action_body(character, attribute, skill, **extra))


def acted(client, campaign, caller, character, attribute="physique", skill="combat", **extra):
    response = act(client, campaign, caller, character, attribute, skill, **extra)
    assert response.status_code == 201, response.text
    return response.json()


def follow(client, campaign, caller, kind: str, follows: int, **extra: Any):
    return post_roll(client, campaign, caller, {"kind": kind, "follows": follows, **extra})


def followed(client, campaign, caller, kind: str, follows: int, **extra: Any) -> dict[str, Any]:
    response = follow(client, campaign, caller, kind, follows, **extra)
    assert response.status_code == 201, response.text
    return response.json()


def opposed_body(attacker, defender, **extra: Any) -> dict[str, Any]:
    side = {"attribute": "physique", "skill": "combat"}
    return {
        "kind": "fabulae.opposed",
        "active": {"character_id": attacker["id"], **side, **extra.pop("active", {})},
        "passive": {"character_id": defender["id"], **side, **extra.pop("passive", {})},
        **extra,
    }


def answered_opposed(
    client, campaign, roller, body: dict[str, Any], answerer, **answer: Any
) -> dict[str, Any]:
    """FAB-36: an opposed roll against a character the roller does not play waits for that
    side's talents and helpers; its player (or the GM) answers, and both sides roll then.
    The answer's entry (`fabulae.oppose`) is the roll."""
    waiting = rolled(client, campaign, roller, body)
    assert waiting["draws"] == [] and waiting["result"]["awaiting"]["choice"] == "passive"
    reply = {
        "kind": "fabulae.oppose",
        "follows": waiting["seq"],
        "character_id": body["passive"]["character_id"],
        **answer,
    }
    return rolled(client, campaign, answerer, reply)


def recover_body(patient, mode: str, **extra: Any) -> dict[str, Any]:
    return {"kind": "fabulae.recover", "character_id": patient["id"], "mode": mode, **extra}


def faces(entry: dict[str, Any]) -> list[int]:
    assert all(draw["sides"] == 6 for draw in entry["draws"])
    return [draw["face"] for draw in entry["draws"]]


def assert_nothing_to_settle(response) -> None:
    """A state choice with no state price pending: refused by the rules of the price."""
    body = assert_problem(response, 409)
    assert body["rule"] in ("FAB-32", "FAB-34"), body


@contextmanager
def unchanged(client, gm, campaign, *characters) -> Iterator[None]:
    """The block appends nothing to the log and changes no sheet."""
    before = (last_seq(client, campaign, gm), [sheet_of(client, gm, c) for c in characters])
    yield
    after = (last_seq(client, campaign, gm), [sheet_of(client, gm, c) for c in characters])
    assert after == before


@dataclass
class Table:
    campaign: dict[str, Any]
    ada: dict[str, Any]  # the player's PC
    bram: dict[str, Any]  # the other player's PC
    carl: dict[str, Any]  # the GM's NPC, with cool_head


@pytest.fixture
def table(make_campaign, make_character, gm, player, other_player) -> Table:
    # These exercise the rules; who may set the difficulty (FAB-12/14) is tested on its own.
    options = {"players_set_difficulty": True}
    campaign = make_campaign(FAB, players=(player, other_player), options=options)
    ada = make_character(campaign, player, sheet=BASE_SHEET, name="Ada")
    bram = make_character(campaign, other_player, sheet=BASE_SHEET, name="Bram")
    carl = make_character(campaign, gm, sheet=FABULAE_SHEET, kind="npc", name="Carl")
    return Table(campaign, ada, bram, carl)
