"""What the Fabulae combat API tests share (FAB-50..76, FAB-90, FAB-100..102).

Every rule posts to POST .../rolls and answers with its log entry; `forced_dice` scripts the
faces the rules draw, in the engine's order: the ammunition die of a burst, the attacker's
pool then stress dice, the defender's, then each hit's protection dice (armor, powers,
cover), then the sequela dice (2D6 or 1D12) and their duration dice. The GM sets armor,
weapons, states, PP... with PATCH .../characters/{id} or through NPC sheets.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pytest

from tests.api.helpers import (
    last_seq,
    sheet_of,
)
from tests.conftest import SHEETS

FAB = "fabulae-tenebris"
# A valid starting sheet (FAB-1..5) whose talent changes none of the rolls tested here:
# every attribute 3; combat, tir, observation, soin, resistance 2.
BASE_SHEET: dict[str, Any] = {**SHEETS[FAB], "talents": ["beast_friend"]}
NPC_SHEET: dict[str, Any] = {
    "attributes": {"physique": 3, "habilete": 3, "intellect": 3, "empathie": 3},
    "skills": {"combat": 2, "tir": 2, "resistance": 2, "athletisme": 1},
    "weapons": [{"id": "revolver"}, {"id": "knife"}],
}
PHYSICAL = ["epuise", "meurtri", "blesse"]


# --- helpers -------------------------------------------------------------------------------


def faces(entry: dict[str, Any]) -> list[int]:
    return [draw["face"] for draw in entry["draws"]]


@contextmanager
def unchanged(client, gm, campaign, *characters) -> Iterator[None]:
    """The block appends nothing to the log and changes no sheet."""
    before = (last_seq(client, campaign, gm), [sheet_of(client, gm, c) for c in characters])
    yield
    after = (last_seq(client, campaign, gm), [sheet_of(client, gm, c) for c in characters])
    assert after == before


def fields(entry: dict[str, Any], character) -> dict[str, tuple[Any, Any, str]]:
    return {
        e["field"]: (e["before"], e["after"], e["rule"])
        for e in entry["effects"]
        if e["character_id"] == character["id"]
    }


def attack(attacker, target, weapon: str = "revolver", **extra: Any) -> dict[str, Any]:
    mode = "ranged" if weapon in ("revolver", "repeating_rifle", "heavy_machine_gun") else "melee"
    return {
        "kind": "fabulae.attack",
        "attacker_id": attacker["id"],
        "target_id": target["id"],
        "mode": extra.pop("mode", mode),
        "weapon": weapon,
        **extra,
    }


def defend(waiting: dict[str, Any], defender, defense: str) -> dict[str, Any]:
    """FAB-62: the defender's answer to an attack or grapple that waits for it."""
    return {
        "kind": "fabulae.defend",
        "follows": waiting["seq"],
        "character_id": defender["id"],
        "defense": defense,
    }


def body(kind: str, **fields_: Any) -> dict[str, Any]:
    return {"kind": f"fabulae.{kind}", **fields_}


def lethal(code: str, delay: str, stabilised: bool = False) -> dict[str, Any]:
    return {
        "kind": "physical",
        "code": code,
        "duration": "3 days",
        "lethal": True,
        "delay": delay,
        "stabilised": stabilised,
    }


@dataclass
class Table:
    campaign: dict[str, Any]
    ada: dict[str, Any]  # the player's PC
    bram: dict[str, Any]  # the other player's PC
    thug: dict[str, Any]  # the GM's NPC: revolver and knife


@pytest.fixture
def table(make_campaign, make_character, gm, player, other_player) -> Table:
    # These exercise the rules; who may set the situation (FAB-14) is tested on its own.
    options = {"powers_allowed": True, "players_set_difficulty": True}
    campaign = make_campaign(FAB, players=(player, other_player), options=options)
    ada = make_character(campaign, player, sheet=BASE_SHEET, name="Ada")
    bram = make_character(campaign, other_player, sheet=BASE_SHEET, name="Bram")
    thug = make_character(campaign, gm, sheet=NPC_SHEET, kind="npc", name="Thug")
    return Table(campaign, ada, bram, thug)


def shot_at_ada(table: Table, **extra: Any) -> dict[str, Any]:
    """The issue's shot: revolver, medium range, a wooden door (cover 4)."""
    return attack(table.thug, table.ada, situation=["medium_range"], cover=4, **extra)
