"""Fabulae Tenebris combat through the API (FAB-50..76, FAB-90, FAB-100..102).

Every rule posts to POST .../rolls and answers with its log entry; `forced_dice` scripts the
faces the rules draw, in the engine's order: the ammunition die of a burst, the attacker's
pool then stress dice, the defender's, then each hit's protection dice (armor, powers,
cover), then the sequela dice (2D6 or 1D12) and their duration dice. The GM sets armor,
weapons, states, PP... with PATCH .../characters/{id} or through NPC sheets.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pytest

from tests.api.helpers import (
    assert_refused,
    assert_verified,
    effect,
    gm_patch,
    last_seq,
    log_entries,
    new_scene,
    new_session,
    post_roll,
    rolled,
    sheet_of,
    verified_offline,
)
from tests.conftest import API, SHEETS, assert_problem

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
    campaign = make_campaign(FAB, players=(player, other_player), options={"powers_allowed": True})
    ada = make_character(campaign, player, sheet=BASE_SHEET, name="Ada")
    bram = make_character(campaign, other_player, sheet=BASE_SHEET, name="Bram")
    thug = make_character(campaign, gm, sheet=NPC_SHEET, kind="npc", name="Thug")
    return Table(campaign, ada, bram, thug)


def shot_at_ada(table: Table, **extra: Any) -> dict[str, Any]:
    """The issue's shot: revolver, medium range, a wooden door (cover 4)."""
    return attack(table.thug, table.ada, situation=["medium_range"], cover=4, **extra)


# --- the worked combat of the issue ------------------------------------------------------


def test_worked_combat_revolver_at_medium_range_through_coat_and_door(
    client, table, gm, player, forced_dice
):
    """Thug (Habileté 3 + Tir 2 + revolver 2 − medium range 1 = 6 dice) shoots Ada, who
    wears a leather coat (1) behind a wooden door (4): five protection dice."""
    campaign, ada, thug = table.campaign, table.ada, table.thug
    gm_patch(client, gm, ada, {"armor": {"id": "leather_coat", "value": 1}})
    forced_dice.push(6, 2, 2, 2, 2, 2)  # the shot: one six, net 1, 2 damage
    forced_dice.push(6, 2, 2, 2, 2)  # coat + door: one six absorbs 1
    shot = rolled(client, campaign, gm, shot_at_ada(table))
    assert shot["kind"] == "fabulae.attack" and shot["character_id"] == thug["id"]
    assert faces(shot) == [6, 2, 2, 2, 2, 2, 6, 2, 2, 2, 2]
    (hit,) = shot["result"]["attacks"]
    pool = hit["roll"]["active"]["pool"]
    assert pool["pool"] == 6
    assert pool["modifier_dice"] == [
        {"source": "medium_range", "dice": -1},
        {"source": "weapon revolver", "dice": 2},
    ]
    assert hit["roll"]["net"] == 1 and hit["roll"]["feats"] == 0
    assert hit["damage"] == 2 and hit["through"] == 1
    assert hit["protection"] == {
        "armor": 1,
        "powers": 0,
        "cover": 4,
        "dice": [6, 2, 2, 2, 2],
        "absorbed": 1,
        "armor_worn": True,
    }
    # A player's character: the state waits for the player (absorb or accept).
    assert shot["result"]["pending_states"] == [
        {
            "rule": "FAB-68",
            "track": "physical",
            "sequela": {"weapon_mod": 1, "feats": 0, "butcher": False},
        }
    ]
    assert shot["result"]["ammo"] == {"spent": 1, "left": 5}
    assert fields(shot, ada) == {
        "armor": ({"id": "leather_coat", "value": 1}, {"id": "leather_coat", "value": 0}, "FAB-68")
    }
    assert fields(shot, thug)["weapons"][1][0] == {"id": "revolver", "ammo": 5}
    sheet = sheet_of(client, player, ada)
    assert sheet["armor"] == {"id": "leather_coat", "value": 0}
    assert sheet["states"] == [] and sheet["broken"] is False
    # The door is never damaged: a second shot still rolls 4 cover dice (the coat none).
    forced_dice.push(6, 2, 2, 2, 2, 2, 6, 2, 2, 2)
    again = rolled(client, campaign, gm, shot_at_ada(table))
    protection = again["result"]["attacks"][0]["protection"]
    assert protection["armor"] == 0 and protection["cover"] == 4
    assert protection["dice"] == [6, 2, 2, 2] and protection["armor_worn"] is False


def test_worked_combat_the_player_settles_then_a_later_hit_breaks_ada(
    client, table, gm, player, forced_dice
):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    gm_patch(client, gm, ada, {"armor": {"id": "leather_coat", "value": 1}})
    forced_dice.push(6, 2, 2, 2, 2, 2, 6, 2, 2, 2, 2)
    shot = rolled(client, campaign, gm, shot_at_ada(table))
    settle = body("state_choice", follows=shot["seq"])
    accepted = rolled(client, campaign, player, settle)  # Ada's player accepts the box
    assert accepted["result"]["state"] == "epuise" and accepted["draws"] == []
    assert sheet_of(client, player, ada)["states"] == ["epuise"]
    assert sheet_of(client, gm, thug)["states"] == []
    # A later hit: 3 damage (feats 1) through the door alone (the coat is worn to 0).
    forced_dice.push(6, 6, 2, 2, 2, 2, 2, 2, 2, 2)
    later = rolled(client, campaign, gm, shot_at_ada(table))
    assert len(later["result"]["pending_states"]) == 3
    for state in ("meurtri", "blesse"):
        settled = rolled(client, campaign, player, body("state_choice", follows=later["seq"]))
        assert settled["result"]["state"] == state
    # The track is full: Broken, and the sequela (2D6 + revolver 1 + feats 1 = 11,
    # bleeding, 2D6 days) is rolled by the settling entry, durations included.
    forced_dice.push(4, 5, 3, 4)
    broken = rolled(client, campaign, player, body("state_choice", follows=later["seq"]))
    assert faces(broken) == [4, 5, 3, 4]
    sequela = broken["result"]["sequela"]
    assert (sequela["score"], sequela["code"], sequela["duration"]) == (11, "bleeding", "7 days")
    sheet = sheet_of(client, player, ada)
    assert sheet["broken"] is True and sheet["states"] == PHYSICAL
    assert sheet["sequelae"][0]["code"] == "bleeding" and sheet["sequelae"][0]["delay"] == "quart"


def test_worked_combat_variant_the_player_absorbs_the_state(client, table, gm, player, forced_dice):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    gm_patch(client, gm, ada, {"armor": {"id": "leather_coat", "value": 1}})
    forced_dice.push(6, 2, 2, 2, 2, 2, 6, 2, 2, 2, 2)
    shot = rolled(client, campaign, gm, shot_at_ada(table))
    absorbed = rolled(client, campaign, player, body("absorb", follows=shot["seq"]))
    assert absorbed["effects"] == [effect(ada, "destiny", 3, 2, "FAB-34")]
    assert sheet_of(client, player, ada)["states"] == []
    assert sheet_of(client, gm, thug)["destiny"] == 3


@pytest.mark.parametrize("source", ["attack", "strangle"])
def test_FAB34_FAB68_the_gm_settling_a_threat_lands_it_on_the_target(
    client, table, gm, player, forced_dice, source
):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    if source == "attack":
        forced_dice.push(6, 2, 2, 2, 2, 2, 2)
        threat = rolled(client, campaign, gm, attack(thug, ada))
    else:
        gm_patch(client, gm, ada, {"grappled_by": thug["id"]})
        threat = rolled(
            client,
            campaign,
            gm,
            body("strangle", attacker_id=thug["id"], target_id=ada["id"]),
        )
    assert threat["result"]["pending_states"]
    rolled(client, campaign, gm, body("state_choice", follows=threat["seq"]))
    assert sheet_of(client, gm, thug)["states"] == []
    assert sheet_of(client, gm, ada)["states"] == ["epuise"]


@pytest.mark.parametrize("settle", ["state_choice", "absorb"])
def test_FAB68_FAB102_a_power_damage_threat_can_be_settled(
    client, table, gm, player, forced_dice, settle
):
    """Ada's own hazard zone catches her (caster = target, so only the nesting matters)."""
    campaign, ada = table.campaign, table.ada
    gm_patch(client, gm, ada, {"powers": ["hazard_zone"], "pp": 1, "pp_max": 1})
    zone = body("power", character_id=ada["id"], power="hazard_zone", pp=1, targets=[ada["id"]])
    cast = rolled(client, campaign, player, zone)
    assert len(cast["result"]["targets"][ada["id"]]["pending_states"]) == 2
    settled = rolled(client, campaign, player, body(settle, follows=cast["seq"]))
    sheet = sheet_of(client, player, ada)
    if settle == "state_choice":
        assert settled["result"]["state"] == "epuise" and sheet["states"] == ["epuise"]
    else:
        assert sheet["destiny"] == 2 and sheet["states"] == []


def test_worked_combat_settled_at_once_then_broken_with_its_sequela(
    client, table, gm, player, forced_dice
):
    """The same combat with states "now" (the GM's choice): each box lands in the attack."""
    campaign, ada = table.campaign, table.ada
    gm_patch(client, gm, ada, {"armor": {"id": "leather_coat", "value": 1}})
    forced_dice.push(6, 2, 2, 2, 2, 2, 6, 2, 2, 2, 2)
    shot = rolled(client, campaign, gm, shot_at_ada(table, states="now"))
    assert [s["state"] for s in shot["result"]["states_checked"]] == ["epuise"]
    assert fields(shot, ada)["states"] == ([], ["epuise"], "FAB-68")
    # Later: 3 damage through (feats 1): Meurtri, Blessé, then Broken and a sequela whose
    # 2D6 and duration dice come after the protection dice in the same entry.
    forced_dice.push(6, 6, 2, 2, 2, 2, 2, 2, 2, 2)
    forced_dice.push(6, 6, 2, 2)  # 12 + 1 + 1 = 14: internal, 2D6 days
    later = rolled(client, campaign, gm, shot_at_ada(table, states="now"))
    checked = later["result"]["states_checked"]
    assert [c.get("state") for c in checked] == ["meurtri", "blesse", None]
    assert checked[2]["broken"] is True
    sequela = checked[2]["sequela"]
    assert sequela["dice"] == [[6, 6]] and sequela["modifier"] == 2
    assert (sequela["score"], sequela["code"], sequela["duration"]) == (14, "internal", "4 days")
    sheet = sheet_of(client, player, ada)
    assert sheet["broken"] is True and sheet["broken_track"] == "physical"
    assert sheet["sequelae"] == [
        {
            "kind": "physical",
            "code": "internal",
            "duration": "4 days",
            "lethal": True,
            "delay": "tour",
            "stabilised": False,
            "note": "Organe touché / Interne",
        }
    ]


def test_FAB23_FAB68_the_sequela_of_a_settled_threat_is_drawn_by_the_settling_entry(
    client, table, gm, player, forced_dice
):
    """A danger's threat is settled by the victim's player (the entry's character)."""
    campaign, ada = table.campaign, table.ada
    gm_patch(client, gm, ada, {"states": ["epuise", "meurtri"]})
    forced_dice.push(6, 6, 2)
    fire = rolled(client, campaign, gm, body("danger", character_id=ada["id"], danger="fire"))
    assert fire["character_id"] == ada["id"] and len(fire["result"]["pending_states"]) == 2
    first = rolled(client, campaign, player, body("state_choice", follows=fire["seq"]))
    assert first["result"]["state"] == "blesse" and first["draws"] == []
    forced_dice.push(2, 3, 4)  # 5: bruise, 1D6 rounds
    second = rolled(client, campaign, player, body("state_choice", follows=fire["seq"]))
    assert faces(second) == [2, 3, 4] and second["follows"] == fire["seq"]
    assert second["result"]["broken"] is True
    assert second["result"]["sequela"]["code"] == "bruise"
    assert second["result"]["sequela"]["duration"] == "4 rounds"
    assert fields(second, ada)["broken"] == (False, True, "FAB-73")
    with unchanged(client, gm, campaign, ada):
        response = post_roll(client, campaign, player, body("state_choice", follows=fire["seq"]))
        assert_refused(response, "FAB-34")


def test_FAB34_absorbing_a_danger_threat_costs_one_destiny(client, table, gm, player, forced_dice):
    campaign, ada = table.campaign, table.ada
    forced_dice.push(6, 2, 2)
    fire = rolled(client, campaign, gm, body("danger", character_id=ada["id"], danger="fire"))
    absorbed = rolled(client, campaign, player, body("absorb", follows=fire["seq"]))
    assert absorbed["effects"] == [effect(ada, "destiny", 3, 2, "FAB-34")]
    assert sheet_of(client, player, ada)["states"] == []
    with unchanged(client, gm, campaign, ada):
        assert_refused(
            post_roll(client, campaign, player, body("absorb", follows=fire["seq"])), "FAB-34"
        )


# --- FAB-50/55: sequela tables ------------------------------------------------------------


def test_FAB50_the_gm_calls_a_physical_sequela_with_weapon_feats_and_butcher(
    client, table, gm, player, forced_dice
):
    campaign, ada = table.campaign, table.ada
    request = body(
        "sequela", character_id=ada["id"], table="physical", weapon_mod=2, feats=1, butcher=True
    )
    with unchanged(client, gm, campaign, ada):
        assert_problem(post_roll(client, campaign, player, request), 403)
    forced_dice.push(5, 4, 2, 3)  # 9 + 2 + 1 + 2 = 14: internal, 2D6 days
    entry = rolled(client, campaign, gm, request)
    result = entry["result"]
    assert result["dice"] == [[5, 4]] and result["modifier"] == 5 and result["score"] == 14
    assert (result["code"], result["duration"]) == ("internal", "5 days")
    assert sheet_of(client, player, ada)["sequelae"][0]["code"] == "internal"


def test_FAB50_FAB90_tough_luck_keeps_the_lower_of_two_rolls(
    client, table, gm, player, forced_dice
):
    campaign, ada = table.campaign, table.ada
    gm_patch(client, gm, ada, {"talents": ["tough_luck"]})
    forced_dice.push(6, 6, 1, 2, 4)  # 12 and 3: keeps 3, stunned 1D6 rounds
    request = body("sequela", character_id=ada["id"], table="physical")
    result = rolled(client, campaign, gm, request)["result"]
    assert result["dice"] == [[6, 6], [1, 2]] and result["score"] == 3
    assert (result["code"], result["duration"]) == ("stunned", "4 rounds")


def test_FAB50_a_crushed_skull_kills(client, table, gm, player, forced_dice):
    campaign, ada = table.campaign, table.ada
    forced_dice.push(6, 6)
    request = body("sequela", character_id=ada["id"], table="physical", weapon_mod=2, feats=6)
    entry = rolled(client, campaign, gm, request)
    assert entry["result"]["code"] == "crushed" and entry["result"]["duration"] == "final"
    assert sheet_of(client, player, ada)["dead"] is True
    with unchanged(client, gm, campaign, ada, table.thug):
        assert_refused(post_roll(client, campaign, gm, attack(table.thug, ada)), "FAB-51")


def test_FAB55_mental_sequela_1D12_and_its_duration_dice(client, table, gm, player, forced_dice):
    campaign, ada = table.campaign, table.ada
    forced_dice.push(9, 1, 2, 3)  # delusion, 3D6 days
    entry = rolled(client, campaign, gm, body("sequela", character_id=ada["id"], table="mental"))
    assert entry["draws"] == [
        {"sides": 12, "face": 9},
        {"sides": 6, "face": 1},
        {"sides": 6, "face": 2},
        {"sides": 6, "face": 3},
    ]
    assert (entry["result"]["code"], entry["result"]["duration"]) == ("delusion", "6 days")
    forced_dice.push(2)
    white = rolled(client, campaign, gm, body("sequela", character_id=ada["id"], table="mental"))
    assert white["result"]["duration"] == "permanent" and len(white["draws"]) == 1
    assert [s["code"] for s in sheet_of(client, player, ada)["sequelae"]] == [
        "delusion",
        "white_hair",
    ]


# --- FAB-51/52: death tests and stabilisation ------------------------------------------------


def test_FAB51_death_test_reprieve_then_death(client, table, gm, player, forced_dice):
    campaign, ada = table.campaign, table.ada
    gm_patch(client, gm, ada, {"sequelae": [lethal("impaled", "immediate")]})
    test = body("death_test", character_id=ada["id"], sequela=0)
    forced_dice.push(6, 2, 2, 2, 2)  # Physique 3 + Résistance 2
    survived = rolled(client, campaign, player, test)
    assert survived["result"]["survived"] is True and survived["effects"] == []
    assert survived["result"]["pool"]["pool"] == 5
    forced_dice.push(2, 2, 2, 2, 2)
    died = rolled(client, campaign, player, test)
    assert died["result"]["survived"] is False
    assert died["effects"] == [effect(ada, "dead", False, True, "FAB-51")]
    with unchanged(client, gm, campaign, ada):
        assert_refused(post_roll(client, campaign, player, test), "FAB-51")


def test_FAB51_FAB90_iron_will_adds_two_dice(client, table, gm, player, forced_dice):
    campaign, ada = table.campaign, table.ada
    gm_patch(client, gm, ada, {"talents": ["iron_will"], "sequelae": [lethal("spine", "round")]})
    forced_dice.push(2, 2, 2, 2, 2, 2, 6)
    entry = rolled(client, campaign, player, body("death_test", character_id=ada["id"], sequela=0))
    assert entry["result"]["pool"]["pool"] == 7
    assert entry["result"]["pool"]["modifier_dice"] == [{"source": "iron_will", "dice": 2}]
    assert entry["result"]["survived"] is True


def test_FAB51_FAB52_death_test_refusals(client, table, gm, player):
    campaign, ada = table.campaign, table.ada
    bruise = {"kind": "physical", "code": "bruise", "duration": "2 rounds"}
    gm_patch(client, gm, ada, {"sequelae": [bruise, lethal("bleeding", "quart", True)]})
    with unchanged(client, gm, campaign, ada):
        for index, rule in ((0, "FAB-51"), (1, "FAB-52")):
            test = body("death_test", character_id=ada["id"], sequela=index)
            assert_refused(post_roll(client, campaign, player, test), rule)
        test = body("death_test", character_id=ada["id"], sequela=5)
        assert_problem(post_roll(client, campaign, player, test), 422)
        bram_test = body("death_test", character_id=table.bram["id"], sequela=0)
        assert_problem(post_roll(client, campaign, player, bram_test), 403)


def test_FAB52_an_ally_stabilises_step_by_step(
    client, table, gm, player, other_player, forced_dice
):
    campaign, ada, bram = table.campaign, table.ada, table.bram
    gm_patch(client, gm, ada, {"sequelae": [lethal("spine", "round")]})
    care = body("stabilize", healer_id=bram["id"], character_id=ada["id"], sequela=0)
    forced_dice.push(2, 2, 2, 2, 2)  # Intellect 3 + Soin 2: failure
    failed = rolled(client, campaign, other_player, care)
    assert failed["result"]["outcome"] == "failure" and failed["effects"] == []
    forced_dice.push(6, 2, 2, 2, 2)
    tour = rolled(client, campaign, other_player, care)
    assert (tour["result"]["delay"], tour["result"]["stabilised"]) == ("tour", False)
    forced_dice.push(6, 2, 2, 2, 2)
    quart = rolled(client, campaign, other_player, care)
    assert (quart["result"]["delay"], quart["result"]["stabilised"]) == ("quart", True)
    assert sheet_of(client, player, ada)["sequelae"][0]["stabilised"] is True
    with unchanged(client, gm, campaign, ada):
        assert_refused(post_roll(client, campaign, other_player, care), "FAB-52")
        test = body("death_test", character_id=ada["id"], sequela=0)
        assert_refused(post_roll(client, campaign, player, test), "FAB-52")


def test_FAB52_FAB90_medic_adds_a_die_and_nobody_stabilises_themselves(
    client, table, gm, player, other_player, forced_dice
):
    campaign, ada, bram = table.campaign, table.ada, table.bram
    gm_patch(client, gm, ada, {"sequelae": [lethal("impaled", "immediate")]})
    gm_patch(client, gm, bram, {"talents": ["medic"]})
    with unchanged(client, gm, campaign, ada):
        own = body("stabilize", healer_id=ada["id"], character_id=ada["id"], sequela=0)
        assert_refused(post_roll(client, campaign, player, own), "FAB-52")
    forced_dice.push(2, 2, 2, 2, 2, 6)
    care = body("stabilize", healer_id=bram["id"], character_id=ada["id"], sequela=0)
    entry = rolled(client, campaign, other_player, care)
    assert entry["result"]["pool"]["modifier_dice"] == [{"source": "medic", "dice": 1}]
    assert entry["result"]["delay"] == "round"


# --- FAB-62..68: attacks ----------------------------------------------------------------------


def test_FAB62_melee_with_parry_and_factors_lands_at_once_on_an_npc(
    client, table, gm, player, forced_dice
):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    gm_patch(client, gm, ada, {"weapons": [{"id": "knife"}]})
    # Ada: Physique 3 + Combat 2 + knife 1 + target on the ground 2 = 8 dice;
    # Thug parries: Physique 3 + Combat 2 = 5 dice.
    forced_dice.push(6, 6, 6, 2, 2, 2, 2, 2)
    forced_dice.push(6, 2, 2, 2, 2)
    request = attack(ada, thug, "knife", defense="parry", situation=["target_on_ground"])
    entry = rolled(client, campaign, player, request)
    (hit,) = entry["result"]["attacks"]
    assert hit["roll"]["active"]["pool"]["pool"] == 8
    assert hit["roll"]["passive"]["dice"] == [6, 2, 2, 2, 2]
    assert (hit["roll"]["net"], hit["roll"]["feats"], hit["damage"]) == (2, 1, 3)
    assert entry["effects"] == [effect(thug, "states", [], PHYSICAL, "FAB-68")]
    assert sheet_of(client, gm, thug)["states"] == PHYSICAL


def test_FAB62_a_failed_attack_deals_nothing(client, table, gm, player, forced_dice):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    gm_patch(client, gm, ada, {"weapons": [{"id": "knife"}]})
    forced_dice.push(6, 2, 2, 2, 2, 2, 6, 2, 3, 4)  # 1 six each: Thug dodges (3 + 1)
    entry = rolled(client, campaign, player, attack(ada, thug, "knife", defense="dodge"))
    assert entry["result"]["attacks"][0]["hit"] is False and entry["effects"] == []
    assert entry["result"]["attacks"][0]["roll"]["passive"]["pool"]["skill"] == 1


def test_FAB62_FAB64_refused_inputs(client, table, gm, player):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    cases = [
        attack(thug, ada, defense="parry"),  # a shot is not parried
        attack(thug, ada, "knife", situation=["medium_range"]),  # a ranged factor in melee
        attack(thug, ada, situation=["sneak_attack"]),
        attack(thug, ada, "knife", aimed=True),
        attack(thug, ada, "sabre"),  # not carried
        attack(thug, ada, "revolver", mode="melee"),
        attack(thug, ada, snap_shot=True),  # without the talent
        attack(thug, thug),
    ]
    with unchanged(client, gm, campaign, ada, thug):
        for request in cases:
            assert_problem(post_roll(client, campaign, gm, request), 422)
        assert_problem(post_roll(client, campaign, player, attack(thug, ada)), 403)
        assert_problem(post_roll(client, campaign, gm, attack(thug, ada, cover=2)), 422)


def test_FAB64_aim_and_ranged_factors_in_the_pool(client, table, gm, player, forced_dice):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    gm_patch(client, gm, ada, {"weapons": [{"id": "revolver"}]})
    forced_dice.push(*[2] * 9)  # 3 + 2 + revolver 2 − long 2 + large 2 + aimed 2
    request = attack(ada, thug, situation=["long_range", "large_target"], aimed=True)
    entry = rolled(client, campaign, player, request)
    pool = entry["result"]["attacks"][0]["roll"]["active"]["pool"]
    assert pool["pool"] == 9
    assert pool["modifier_dice"] == [
        {"source": "long_range", "dice": -2},
        {"source": "large_target", "dice": 2},
        {"source": "weapon revolver", "dice": 2},
        {"source": "aimed", "dice": 2},
    ]
    assert sheet_of(client, player, ada)["weapons"] == [{"id": "revolver", "ammo": 5}]


def test_FAB64_contact_with_a_revolver_adds_three(client, table, gm, forced_dice):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    forced_dice.push(*[2] * 10)
    request = attack(thug, ada, situation=["contact_short_weapon"])
    entry = rolled(client, campaign, gm, request)
    assert entry["result"]["attacks"][0]["roll"]["active"]["pool"]["pool"] == 10


def test_FAB66_FAB67_mail_and_cover_absorb_everything_and_the_mail_holds(
    client, table, gm, player, forced_dice
):
    campaign, ada = table.campaign, table.ada
    gm_patch(client, gm, ada, {"armor": {"id": "guard_mail", "value": 2}})
    forced_dice.push(6, 2, 2, 2, 2, 2, 2)  # 7 dice, 2 damage
    forced_dice.push(6, 6, 2, 2, 2)  # mail 2 + crates 3
    entry = rolled(client, campaign, gm, attack(table.thug, ada, cover=3))
    (hit,) = entry["result"]["attacks"]
    assert hit["through"] == 0 and hit["protection"]["absorbed"] == 2
    assert "pending_states" not in entry["result"]
    assert fields(entry, ada) == {}
    assert sheet_of(client, player, ada)["armor"] == {"id": "guard_mail", "value": 2}


def test_FAB68_a_player_character_can_take_the_states_now(client, table, gm, player, forced_dice):
    campaign, ada = table.campaign, table.ada
    forced_dice.push(6, 6, 2, 2, 2, 2, 2)  # 3 damage, no armor
    entry = rolled(client, campaign, gm, attack(table.thug, ada, states="now"))
    assert [s["state"] for s in entry["result"]["states_checked"]] == PHYSICAL
    assert sheet_of(client, player, ada)["states"] == PHYSICAL


def test_FAB21_FAB50_FAB75_maluses_reach_the_attack_and_the_dodge(
    client, table, gm, player, forced_dice
):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    internal = lethal("internal", "tour")
    gm_patch(client, gm, thug, {"states": ["meurtri"], "sequelae": [internal]})
    gm_patch(client, gm, ada, {"backpack": True})
    # Thug: 3 + 2 + knife 1 − Meurtri 1 − internal 2 = 3; Ada dodges: 3 + 0 − backpack 2 = 1.
    forced_dice.push(2, 2, 2, 2)
    entry = rolled(client, campaign, gm, attack(thug, ada, "knife", defense="dodge"))
    roll = entry["result"]["attacks"][0]["roll"]
    assert roll["active"]["pool"]["pool"] == 3
    assert roll["active"]["pool"]["situation_dice"] == [{"source": "sequela internal", "dice": -2}]
    assert roll["passive"]["pool"]["situation_dice"] == [
        {"source": "backpack in combat", "dice": -2}
    ]


def test_FAB42_an_attacker_who_panics_rolls_on_the_panic_table(
    client, table, gm, player, forced_dice
):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    gm_patch(client, gm, thug, {"stress": 1})
    forced_dice.push(6, 6, 2, 2, 2, 2, 2, 1)  # the stress die shows 1
    forced_dice.push(3)  # the panic roll: 3 + 1 stress = 4, cool
    entry = rolled(client, campaign, gm, attack(thug, ada))
    assert entry["result"]["panic"] is True
    assert entry["result"]["attacks"][0]["hit"] is False
    assert [t["kind"] for t in entry["triggered"]] == ["fabulae.panic"]
    assert entry["triggered"][0]["follows"] == entry["seq"]
    assert entry["triggered"][0]["result"]["code"] == "cool"
    assert sheet_of(client, player, ada)["states"] == []


@pytest.mark.parametrize("kind", ["grapple", "break_free", "danger", "power", "parry"])
def test_FAB42_every_stress_1_sets_off_a_panic_roll(client, table, gm, player, forced_dice, kind):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    gm_patch(client, gm, ada, {"stress": 1})
    gm_patch(client, gm, thug, {"stress": 1})
    if kind == "grapple":
        forced_dice.push(2, 2, 2, 2, 2, 1)
        request = body("grapple", attacker_id=thug["id"], target_id=ada["id"])
        caller = gm
    elif kind == "break_free":
        gm_patch(client, gm, ada, {"grappled_by": thug["id"]})
        forced_dice.push(2, 2, 2, 2, 2, 1, 2, 2, 2, 2, 2, 2)
        request = body("break_free", character_id=ada["id"])
        caller = player
    elif kind == "danger":
        forced_dice.push(2, 2, 2, 2, 2, 1)
        request = body("danger", character_id=ada["id"], danger="cold", states="now")
        caller = gm
    elif kind == "power":
        gm_patch(client, gm, ada, {"powers": ["bolt"], "pp": 1, "pp_max": 1})
        forced_dice.push(2, 2, 2, 1)
        request = body("power", character_id=ada["id"], power="bolt", pp=1, targets=[thug["id"]])
        caller = player
    else:
        gm_patch(client, gm, thug, {"stress": 0})
        forced_dice.push(2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1)
        request = attack(thug, ada, "knife", defense="parry")
        caller = gm
    forced_dice.push(3)  # the panic roll: 3 + 1 stress = 4, cool
    entry = rolled(client, campaign, caller, request)
    assert [t["kind"] for t in entry["triggered"]] == ["fabulae.panic"], entry["result"]
    assert entry["triggered"][0]["follows"] == entry["seq"]
    assert entry["triggered"][0]["result"]["code"] == "cool"


def test_FAB14_an_impossible_attack_is_refused_and_recorded(client, table, gm):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    chains = [{"source": "chains", "dice": -6}]
    request = attack(thug, ada, situation=["extreme_range"], modifiers=chains)  # 7 − 9
    before = last_seq(client, campaign, gm)
    response = post_roll(client, campaign, gm, request)
    assert_refused(response, "FAB-14")
    assert last_seq(client, campaign, gm) == before + 1
    assert sheet_of(client, gm, thug)["weapons"][0] == {"id": "revolver", "ammo": 6}


def test_FAB14_FAB51_a_refused_impossible_death_test_changes_nothing(client, table, gm, player):
    campaign, ada = table.campaign, table.ada
    gm_patch(
        client,
        gm,
        ada,
        {
            "states": ["meurtri", "blesse", "apeure", "demoralise"],
            "sequelae": [lethal("internal", "tour")],
        },
    )  # Physique 3 + Résistance 2 − 4 states − 2 internal = −1
    response = post_roll(
        client, campaign, player, body("death_test", character_id=ada["id"], sequela=0)
    )
    assert_refused(response, "FAB-14")
    assert sheet_of(client, player, ada)["dead"] is False


# --- FAB-65: bursts, FAB-71: ammunition -------------------------------------------------------


@pytest.mark.parametrize("master", [False, True])
def test_FAB65_a_burst_rolls_its_ammunition_and_stresses_the_shooter(
    client, table, gm, player, forced_dice, master
):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    talents = ["burst_master"] if master else []
    gm_patch(client, gm, thug, {"weapons": [{"id": "repeating_rifle"}], "talents": talents})
    forced_dice.push(5)  # 1D20 for three attacks
    forced_dice.push(*[2] * 21)  # three attacks of 7 dice, no six
    request = attack(thug, ada, "repeating_rifle", burst=3, burst_fire=True)
    entry = rolled(client, campaign, gm, request)
    assert entry["draws"][0] == {"sides": 20, "face": 5}
    assert entry["result"]["ammo"] == {"die": 20, "spent": 5, "left": 3}
    assert len(entry["result"]["attacks"]) == 3
    sheet = sheet_of(client, gm, thug)
    assert sheet["weapons"] == [{"id": "repeating_rifle", "ammo": 3}]
    assert sheet["stress"] == (0 if master else 1)
    assert ("stress_gained" in entry["result"]) is (not master)


def test_FAB65_FAB71_burst_and_ammunition_refusals(client, table, gm):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    with unchanged(client, gm, campaign, ada, thug):
        request = attack(thug, ada, burst=2, burst_fire=True)  # a revolver
        assert_problem(post_roll(client, campaign, gm, request), 422, "FAB-65")
    gm_patch(client, gm, thug, {"weapons": [{"id": "revolver", "ammo": 0}]})
    with unchanged(client, gm, campaign, ada, thug):
        assert_refused(post_roll(client, campaign, gm, attack(thug, ada)), "FAB-71")


def test_FAB65_a_burst_with_a_wrong_talent_is_refused_before_its_dice(client, table, gm, caplog):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    gm_patch(client, gm, thug, {"weapons": [{"id": "repeating_rifle"}], "talents": ["all_in"]})
    request = attack(thug, ada, "repeating_rifle", burst=2, burst_fire=True, talents=["all_in"])
    with caplog.at_level(logging.ERROR, logger="nocturne.rules"):
        response = post_roll(client, campaign, gm, request)
    body_ = assert_problem(response, 422)
    assert not [r for r in caplog.records if "refused after drawing dice" in r.getMessage()]
    assert "all_in" in body_["detail"]


@pytest.mark.parametrize(("quick", "action"), [(False, "fast"), (True, "free")])
def test_FAB71_FAB90_reload(client, table, gm, player, quick, action):
    campaign, ada = table.campaign, table.ada
    talents = ["quick_reload"] if quick else ["beast_friend"]
    gm_patch(client, gm, ada, {"weapons": [{"id": "revolver", "ammo": 2}], "talents": talents})
    reload = body("reload", character_id=ada["id"], weapon="revolver")
    entry = rolled(client, campaign, player, reload)
    assert entry["result"] == {"weapon": "revolver", "ammo": 6, "action": action}
    assert entry["draws"] == []
    assert sheet_of(client, player, ada)["weapons"] == [{"id": "revolver", "ammo": 6}]
    with unchanged(client, gm, campaign, ada):
        assert_refused(post_roll(client, campaign, player, reload), "FAB-71")
        knife = body("reload", character_id=ada["id"], weapon="knife")
        assert_problem(post_roll(client, campaign, player, knife), 422)


# --- FAB-63: grapples ---------------------------------------------------------------------


def test_FAB63_grapple_strangle_and_break_free(client, table, gm, player, forced_dice):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    strangle = body("strangle", attacker_id=thug["id"], target_id=ada["id"], states="now")
    with unchanged(client, gm, campaign, ada, thug):
        assert_refused(post_roll(client, campaign, gm, strangle), "FAB-63")
        free = body("break_free", character_id=ada["id"])
        assert_problem(post_roll(client, campaign, player, free), 422, "FAB-63")
    # Thug: Physique 3 + Combat 2 = 5 dice; Ada dodges: Physique 3 + Athlétisme 0 = 3.
    forced_dice.push(6, 2, 2, 2, 2, 2, 2, 2)
    grab = body("grapple", attacker_id=thug["id"], target_id=ada["id"], defense="dodge")
    grabbed = rolled(client, campaign, gm, grab)
    assert grabbed["result"]["grappled"] is True
    assert grabbed["effects"] == [effect(ada, "grappled_by", None, thug["id"], "FAB-63")]
    choked = rolled(client, campaign, gm, strangle)
    assert choked["draws"] == [] and choked["result"]["damage"] == 1
    assert sheet_of(client, player, ada)["states"] == ["epuise"]
    # Ada's only action: Physique 3 + Combat 2 against the hold (5 dice).
    forced_dice.push(6, 2, 2, 2, 2, 6, 2, 2, 2, 2)
    held = rolled(client, campaign, player, body("break_free", character_id=ada["id"]))
    assert held["result"]["freed"] is False and held["effects"] == []
    forced_dice.push(6, 6, 2, 2, 2, 6, 2, 2, 2, 2)
    freed = rolled(client, campaign, player, body("break_free", character_id=ada["id"]))
    assert freed["result"]["freed"] is True
    assert freed["effects"] == [effect(ada, "grappled_by", thug["id"], None, "FAB-63")]
    with unchanged(client, gm, campaign, ada, thug):
        assert_refused(post_roll(client, campaign, gm, strangle), "FAB-63")


def test_FAB63_a_failed_grapple_holds_nobody(client, table, gm, forced_dice):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    forced_dice.push(2, 2, 2, 2, 2)
    entry = rolled(
        client, campaign, gm, body("grapple", attacker_id=thug["id"], target_id=ada["id"])
    )
    assert entry["result"]["grappled"] is False and entry["effects"] == []


# --- FAB-73: dangers ------------------------------------------------------------------------


def test_FAB73_only_the_gm_exposes_to_a_danger(client, table, gm, player):
    campaign, ada = table.campaign, table.ada
    with unchanged(client, gm, campaign, ada):
        fire = body("danger", character_id=ada["id"], danger="fire")
        assert_problem(post_roll(client, campaign, player, fire), 403)
        hot = body("danger", character_id=ada["id"], danger="fire", intensity=10)
        assert_problem(post_roll(client, campaign, gm, hot), 422, "FAB-73")


def test_FAB73_fire_grows_a_die_each_round(client, table, gm, player, forced_dice):
    campaign, ada = table.campaign, table.ada
    forced_dice.push(6, 2, 2, 2, 6, 6)  # intensity 4, third round: 6 dice
    fire = body("danger", character_id=ada["id"], danger="fire", intensity=4, round=3)
    entry = rolled(client, campaign, gm, {**fire, "states": "now"})
    assert entry["result"]["damage"] == 3
    assert sheet_of(client, player, ada)["states"] == PHYSICAL


def test_FAB73_explosion_base_through_armor_and_extra_sixes(client, table, gm, player, forced_dice):
    campaign, ada = table.campaign, table.ada
    gm_patch(client, gm, ada, {"armor": {"id": "leather_coat", "value": 1}})
    forced_dice.push(6, 6)  # intensity 8 at medium range: 2 dice, one extra six
    forced_dice.push(2)  # the coat
    blast = body(
        "danger",
        character_id=ada["id"],
        danger="explosion",
        intensity=8,
        damage=2,
        medium_range=True,
        states="now",
    )
    entry = rolled(client, campaign, gm, blast)
    assert (entry["result"]["extra_net"], entry["result"]["damage"]) == (1, 3)
    sheet = sheet_of(client, player, ada)
    assert sheet["states"] == PHYSICAL
    assert sheet["armor"] == {"id": "leather_coat", "value": 0}


def test_FAB73_drowning(client, table, gm, player, forced_dice):
    campaign, ada = table.campaign, table.ada
    gm_patch(client, gm, ada, {"armor": {"id": "guard_mail", "value": 2}})
    sink = rolled(client, campaign, gm, body("danger", character_id=ada["id"], danger="drowning"))
    assert sink["result"]["sinks"] is True and sink["draws"] == []
    forced_dice.push(2, 2, 2, 2, 2)
    under = body(
        "danger", character_id=ada["id"], danger="drowning", phase="underwater", states="now"
    )
    entry = rolled(client, campaign, gm, under)
    assert entry["result"]["damage"] == 1
    assert sheet_of(client, player, ada)["states"] == ["epuise"]


def test_FAB73_poison_is_opposed_by_its_toxicity(client, table, gm, player, forced_dice):
    campaign, ada = table.campaign, table.ada
    forced_dice.push(6, 2, 2, 2, 2)  # Physique 3 + Résistance 2
    forced_dice.push(6, 6, 2, 2)  # toxicity 4
    poison = body("danger", character_id=ada["id"], danger="poison", intensity=4)
    entry = rolled(client, campaign, gm, poison)
    assert entry["result"]["roll"]["net"] == -1 and entry["result"]["damage"] == 1
    assert entry["result"]["per"] == "round"
    assert len(entry["result"]["pending_states"]) == 1


@pytest.mark.parametrize(("talent", "stress"), [("beast_friend", 1), ("cool_head", 0)])
def test_FAB73_cold_damages_and_stresses(client, table, gm, player, forced_dice, talent, stress):
    campaign, ada = table.campaign, table.ada
    gm_patch(client, gm, ada, {"talents": [talent]})
    forced_dice.push(2, 2, 2, 2, 2)
    cold = body("danger", character_id=ada["id"], danger="cold", states="now")
    entry = rolled(client, campaign, gm, cold)
    assert entry["result"]["damage"] == 1 and entry["result"]["stress_gained"] == stress
    sheet = sheet_of(client, player, ada)
    assert sheet["stress"] == stress and sheet["states"] == ["epuise"]


# --- FAB-67: repairs --------------------------------------------------------------------------


def test_FAB67_bricolage_repairs_worn_armor(client, table, gm, player, other_player, forced_dice):
    campaign, ada, bram = table.campaign, table.ada, table.bram
    gm_patch(client, gm, ada, {"armor": {"id": "guard_mail", "value": 0}})
    gm_patch(client, gm, bram, {"talents": ["tinkerer"]})
    forced_dice.push(6, 6, 2, 2, 2)  # Intellect 3 + Bricolage 0 + tinkerer 2
    fix = body("repair", character_id=bram["id"], owner_id=ada["id"], talents=["tinkerer"])
    entry = rolled(client, campaign, other_player, fix)
    assert entry["result"]["armor_value"] == 2
    assert fields(entry, ada) == {
        "armor": ({"id": "guard_mail", "value": 0}, {"id": "guard_mail", "value": 2}, "FAB-67")
    }
    with unchanged(client, gm, campaign, ada, bram):
        assert_refused(post_roll(client, campaign, other_player, fix), "FAB-67")
        nothing = body("repair", character_id=bram["id"], owner_id=table.thug["id"])
        assert_refused(post_roll(client, campaign, other_player, nothing), "FAB-67")


# --- FAB-90: talents in combat --------------------------------------------------------------


def test_FAB90_cogneur_hits_harder_barehanded(client, table, gm, player, forced_dice):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    gm_patch(client, gm, ada, {"talents": ["cogneur"]})
    forced_dice.push(6, 2, 2, 2)  # Physique 3 + Combat 2 − bare hands 1
    entry = rolled(client, campaign, player, attack(ada, thug, "bare_hands"))
    assert entry["result"]["attacks"][0]["damage"] == 2
    assert sheet_of(client, gm, thug)["states"] == ["epuise", "meurtri"]


def test_FAB90_fine_gachette_aims_better_in_half_light(client, table, gm, player, forced_dice):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    gm_patch(client, gm, ada, {"talents": ["fine_gachette"], "weapons": [{"id": "revolver"}]})
    forced_dice.push(*[2] * 10)  # 3 + 2 + 2 + aimed 3, half-light ignored
    request = attack(ada, thug, situation=["half_light"], aimed=True)
    pool = rolled(client, campaign, player, request)["result"]["attacks"][0]["roll"]["active"]
    assert pool["pool"]["pool"] == 10
    assert {"source": "aimed", "dice": 3} in pool["pool"]["modifier_dice"]


def test_FAB90_snap_shot(client, table, gm, player, forced_dice):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    gm_patch(client, gm, ada, {"talents": ["snap_shot"], "weapons": [{"id": "revolver"}]})
    forced_dice.push(*[2] * 5)
    entry = rolled(client, campaign, player, attack(ada, thug, snap_shot=True))
    assert entry["result"]["attacks"][0]["roll"]["active"]["pool"]["pool"] == 5


def test_FAB90_butcher_on_a_human_npc(client, table, gm, player, forced_dice):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    gm_patch(client, gm, ada, {"talents": ["butcher"], "weapons": [{"id": "knife"}]})
    gm_patch(client, gm, thug, {"states": PHYSICAL})
    forced_dice.push(6, 2, 2, 2, 2, 2)  # knife: 2 damage on a full track
    forced_dice.push(3, 3, 2)  # 6 + butcher 2 = 8: sprain, 1D6 quarts
    forced_dice.push(1, 1, 5)  # 2 + 2 = 4: stunned, 1D6 rounds
    entry = rolled(client, campaign, player, attack(ada, thug, "knife"))
    sequelae = [c["sequela"] for c in entry["result"]["states_checked"]]
    assert [(s["modifier"], s["code"], s["duration"]) for s in sequelae] == [
        (2, "sprain", "2 quarts"),
        (2, "stunned", "5 rounds"),
    ]
    assert sheet_of(client, gm, thug)["broken"] is True


def test_FAB90_second_wind_once_per_session(client, table, gm, player, forced_dice):
    campaign, ada = table.campaign, table.ada
    broken = {"states": PHYSICAL, "broken": True, "broken_track": "physical"}
    gm_patch(client, gm, ada, {"talents": ["second_wind"], **broken})
    new_session(client, campaign, gm)
    wind = body("second_wind", character_id=ada["id"])
    forced_dice.push(6, 6, 2)  # Physique 3 + Résistance 2 − Meurtri − Blessé
    entry = rolled(client, campaign, player, wind)
    assert entry["result"]["cleared"] == ["blesse", "meurtri"]
    sheet = sheet_of(client, player, ada)
    assert sheet["states"] == ["epuise"] and sheet["broken"] is False
    assert sheet["second_wind_session"] == 1
    gm_patch(client, gm, ada, broken)
    with unchanged(client, gm, campaign, ada):
        assert_refused(post_roll(client, campaign, player, wind), "FAB-90")
    new_session(client, campaign, gm)
    forced_dice.push(2, 2, 2)
    assert rolled(client, campaign, player, wind)["result"]["outcome"] == "failure"
    gm_patch(client, gm, ada, {"broken": False, "broken_track": None, "states": []})
    new_session(client, campaign, gm)
    with unchanged(client, gm, campaign, ada):
        assert_refused(post_roll(client, campaign, player, wind), "FAB-90")


def test_FAB90_street_rat_rerolls_one_failed_die(client, table, gm, player, forced_dice):
    campaign, ada = table.campaign, table.ada
    gm_patch(client, gm, ada, {"talents": ["street_rat"]})
    forced_dice.push(2, 3, 4)  # Habileté 3 + Furtivité 0
    action = {
        "kind": "fabulae.action",
        "character_id": ada["id"],
        "attribute": "habilete",
        "skill": "furtivite",
    }
    sneak = rolled(client, campaign, player, action)
    forced_dice.push(6)
    rat = rolled(client, campaign, player, body("street_rat", follows=sneak["seq"], die=1))
    assert rat["result"]["dice"] == [2, 6, 4] and rat["result"]["outcome"] == "success"
    assert rat["follows"] == sneak["seq"]
    with unchanged(client, gm, campaign, ada):
        again = body("street_rat", follows=sneak["seq"], die=0)
        assert_refused(post_roll(client, campaign, player, again), "FAB-90")


# --- FAB-100..102: powers ---------------------------------------------------------------------


def test_FAB100_a_bolt_spends_pp_adds_stress_and_hurts(client, table, gm, player, forced_dice):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    gm_patch(client, gm, ada, {"powers": ["bolt"], "pp": 4, "pp_max": 5})
    forced_dice.push(6, 6, 2)  # Intellect 3 + Connaissance 0: 3 damage
    bolt = body("power", character_id=ada["id"], power="bolt", pp=2, targets=[thug["id"]])
    entry = rolled(client, campaign, player, bolt)
    assert entry["result"]["pp"] == 2 and entry["result"]["stress_gained"] == 2
    assert entry["result"]["targets"][thug["id"]]["through"] == 3
    assert fields(entry, ada) == {"pp": (4, 2, "FAB-100"), "stress": (0, 2, "FAB-100")}
    assert fields(entry, thug) == {"states": ([], PHYSICAL, "FAB-102")}


def test_FAB100_refusals(client, table, make_campaign, make_character, gm, player):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    gm_patch(client, gm, ada, {"powers": ["bolt"], "pp": 1, "pp_max": 2})
    with unchanged(client, gm, campaign, ada, thug):
        short = body("power", character_id=ada["id"], power="bolt", pp=2, targets=[thug["id"]])
        assert_refused(post_roll(client, campaign, player, short), "FAB-100")
        other = body("power", character_id=ada["id"], power="drain", pp=1, targets=[thug["id"]])
        assert_refused(post_roll(client, campaign, player, other), "FAB-100")
        unknown = body("power", character_id=ada["id"], power="fireball", pp=1)
        assert_problem(post_roll(client, campaign, player, unknown), 422)
    plain = make_campaign(FAB, players=(player,), name="Sans pouvoirs")
    eve = make_character(plain, player, sheet=BASE_SHEET, name="Eve")
    response = client.patch(
        f"{API}/characters/{eve['id']}", json={"sheet": {"powers": ["bolt"]}}, headers=gm.headers
    )
    assert_problem(response, 422, "powers_allowed")
    with unchanged(client, gm, plain, eve):
        trance = body("power", character_id=eve["id"], power="trance", pp=1)
        assert_refused(post_roll(client, plain, player, trance), "FAB-100")


def test_FAB102_barrier_protects_until_the_scene_ends(client, table, gm, player, forced_dice):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    gm_patch(
        client,
        gm,
        ada,
        {"powers": ["barrier"], "pp": 2, "pp_max": 2, "armor": {"id": "leather_coat", "value": 1}},
    )
    new_session(client, campaign, gm)
    cast = body("power", character_id=ada["id"], power="barrier", pp=1, targets=[ada["id"]])
    entry = rolled(client, campaign, player, cast)
    assert entry["draws"] == [] and entry["result"]["applied"] is True
    effects = sheet_of(client, player, ada)["active_effects"]
    assert [(e["source"], e["armor"], e["caster_id"]) for e in effects] == [
        ("barrier", 2, ada["id"])
    ]
    forced_dice.push(6, 2, 2, 2, 2, 2, 2)  # the shot, 2 damage
    forced_dice.push(6, 6, 2)  # coat 1 + barrier 2
    shot = rolled(client, campaign, gm, attack(thug, ada))
    protection = shot["result"]["attacks"][0]["protection"]
    assert (protection["armor"], protection["powers"], protection["absorbed"]) == (1, 2, 2)
    scene = new_scene(client, campaign, gm)
    assert scene["effects"] == [effect(ada, "active_effects", effects, [], "FAB-102")]
    assert sheet_of(client, player, ada)["active_effects"] == []


def test_FAB102_deflection_and_the_gm_ending_it(client, table, gm, player, forced_dice):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    gm_patch(client, gm, ada, {"powers": ["deflection"], "pp": 1, "pp_max": 1})
    cast = body("power", character_id=ada["id"], power="deflection", pp=1, targets=[ada["id"]])
    rolled(client, campaign, player, cast)
    forced_dice.push(*[2] * 5)  # 7 − 2
    shot = rolled(client, campaign, gm, attack(thug, ada))
    pool = shot["result"]["attacks"][0]["roll"]["active"]["pool"]
    assert {"source": "powers on the target", "dice": -2} in pool["modifier_dice"]
    end = body("end_effect", character_id=ada["id"], source="deflection")
    with unchanged(client, gm, campaign, ada):
        assert_problem(post_roll(client, campaign, player, end), 403)
    ended = rolled(client, campaign, gm, end)
    assert ended["result"] == {"ended": "deflection"}
    assert sheet_of(client, player, ada)["active_effects"] == []
    with unchanged(client, gm, campaign, ada):
        assert_refused(post_roll(client, campaign, gm, end), "FAB-102")


def test_FAB102_horror_sets_off_a_panic_roll_per_target(client, table, gm, player, forced_dice):
    campaign, ada, bram, thug = table.campaign, table.ada, table.bram, table.thug
    gm_patch(client, gm, ada, {"powers": ["horror"], "pp": 1, "pp_max": 1})
    gm_patch(client, gm, thug, {"stress": 3})
    forced_dice.push(6, 5)  # Thug: 6 + 3 − 1 = 8 tremors; Bram: 5 + 0 − 1 = 4 cool
    cast = body(
        "power", character_id=ada["id"], power="horror", pp=1, targets=[thug["id"], bram["id"]]
    )
    entry = rolled(client, campaign, player, cast)
    assert entry["draws"] == []
    panics = entry["triggered"]
    assert [(p["kind"], p["character_id"], p["follows"]) for p in panics] == [
        ("fabulae.panic", thug["id"], entry["seq"]),
        ("fabulae.panic", bram["id"], entry["seq"]),
    ]
    assert [p["result"]["modifier"] for p in panics] == [-1, -1]
    assert [p["result"]["code"] for p in panics] == ["tremors", "cool"]


def test_FAB102_drain_and_calm(client, table, gm, player, forced_dice):
    campaign, ada, bram = table.campaign, table.ada, table.bram
    gm_patch(client, gm, ada, {"powers": ["drain", "calm"], "pp": 4, "pp_max": 5})
    gm_patch(client, gm, bram, {"pp": 2, "pp_max": 3})
    forced_dice.push(6, 2, 2, 2, 2, 2)  # Ada 3 dice against Bram's pure Intellect 3
    forced_dice.push(2)  # 1D3
    drain = body("power", character_id=ada["id"], power="drain", pp=1, targets=[bram["id"]])
    entry = rolled(client, campaign, player, drain)
    assert entry["draws"][-1] == {"sides": 3, "face": 2}
    assert entry["result"]["stolen"] == 2
    assert fields(entry, bram) == {"pp": (2, 0, "FAB-102")}
    assert fields(entry, ada)["pp"] == (4, 5, "FAB-100")
    gm_patch(client, gm, bram, {"stress": 3, "states": ["apeure"]})
    calm = body("power", character_id=ada["id"], power="calm", pp=1, targets=[bram["id"]])
    calmed = rolled(client, campaign, player, calm)
    assert fields(calmed, bram) == {
        "stress": (3, 0, "FAB-102"),
        "states": (["apeure"], [], "FAB-102"),
    }


# --- replay and offline verification ----------------------------------------------------------


NEW_KINDS = {
    "fabulae.attack",
    "fabulae.grapple",
    "fabulae.break_free",
    "fabulae.strangle",
    "fabulae.sequela",
    "fabulae.death_test",
    "fabulae.stabilize",
    "fabulae.danger",
    "fabulae.power",
    "fabulae.repair",
    "fabulae.reload",
    "fabulae.second_wind",
    "fabulae.street_rat",
    "fabulae.end_effect",
    "fabulae.state_choice",
}


def test_every_combat_kind_replays_and_verifies_offline(
    client, table, gm, player, other_player, forced_dice, tmp_path
):
    campaign, ada, bram, thug = table.campaign, table.ada, table.bram, table.thug
    gm_patch(
        client,
        gm,
        ada,
        {
            "armor": {"id": "leather_coat", "value": 1},
            "talents": ["street_rat"],
            "powers": ["barrier"],
            "pp": 2,
            "pp_max": 2,
        },
    )
    gm_patch(
        client,
        gm,
        bram,
        {
            "talents": ["second_wind"],
            "states": PHYSICAL,
            "broken": True,
            "broken_track": "physical",
        },
    )
    new_session(client, campaign, gm)
    # The shot: 2 damage, the coat absorbs 1, one state at once (Épuisé).
    forced_dice.push(6, 2, 2, 2, 2, 2, 6, 2, 2, 2, 2)
    rolled(client, campaign, gm, shot_at_ada(table, states="now"))
    # Fire: one damage pending, settled by Ada's player (Meurtri).
    forced_dice.push(6, 2, 2)
    fire = rolled(client, campaign, gm, body("danger", character_id=ada["id"], danger="fire"))
    settled = rolled(client, campaign, player, body("state_choice", follows=fire["seq"]))
    assert settled["result"]["state"] == "meurtri"
    forced_dice.push(6, 2, 2, 2, 2)
    rolled(client, campaign, gm, body("grapple", attacker_id=thug["id"], target_id=ada["id"]))
    strangle = body("strangle", attacker_id=thug["id"], target_id=ada["id"], states="now")
    assert rolled(client, campaign, gm, strangle)["result"]["states_checked"][0]["state"] == (
        "blesse"
    )
    forced_dice.push(6, 6, 2, 6, 2, 2, 2, 2)  # Ada 3 dice (two states) against 5
    free = rolled(client, campaign, player, body("break_free", character_id=ada["id"]))
    assert free["result"]["freed"] is True
    forced_dice.push(5, 5, 3)  # 10: broken_limb, 3 days
    sequela = body("sequela", character_id=ada["id"], table="physical")
    assert rolled(client, campaign, gm, sequela)["result"]["code"] == "broken_limb"
    forced_dice.push(6, 2, 2)
    test = body("death_test", character_id=ada["id"], sequela=0)
    assert rolled(client, campaign, player, test)["result"]["survived"] is True
    forced_dice.push(6, 2, 2)
    care = body("stabilize", healer_id=bram["id"], character_id=ada["id"], sequela=0)
    assert rolled(client, campaign, other_player, care)["result"]["stabilised"] is True
    forced_dice.push(6)
    fix = body("repair", character_id=bram["id"], owner_id=ada["id"])
    assert rolled(client, campaign, other_player, fix)["result"]["armor_value"] == 1
    rolled(client, campaign, gm, body("reload", character_id=thug["id"], weapon="revolver"))
    forced_dice.push(6, 2, 2)
    wind = rolled(client, campaign, other_player, body("second_wind", character_id=bram["id"]))
    assert wind["result"]["cleared"] == ["blesse"]
    forced_dice.push(2)
    sneak = rolled(
        client,
        campaign,
        player,
        {
            "kind": "fabulae.action",
            "character_id": ada["id"],
            "attribute": "habilete",
            "skill": "furtivite",
        },
    )
    forced_dice.push(6)
    rolled(client, campaign, player, body("street_rat", follows=sneak["seq"], die=0))
    cast = body("power", character_id=ada["id"], power="barrier", pp=1, targets=[ada["id"]])
    rolled(client, campaign, player, cast)
    rolled(client, campaign, gm, body("end_effect", character_id=ada["id"], source="barrier"))
    new_scene(client, campaign, gm)

    entries = log_entries(client, campaign, gm)
    kinds = {e["kind"] for e in entries}
    assert kinds >= NEW_KINDS
    report = assert_verified(client, campaign, gm)
    # session, attack, danger, state choice, grapple, strangle, break free, sequela,
    # death test, stabilize, repair, reload, second wind, action, street rat, power,
    # end effect, scene.
    assert report["replayed"] == 18 and report["rederived"] == 0

    summary = verified_offline(client, campaign, gm, tmp_path)
    assert summary.startswith(f"OK: {len(entries)} entries checked, 0 re-derived, 18 replayed")
