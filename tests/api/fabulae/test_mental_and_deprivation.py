"""Fabulae mental damage and « Faim & Sommeil » (FAB-55/73 corrected), and a rest while Broken
(FAB-81 corrected), through the API: the dangers phobia, horror, hunger and sleep, the healing
hunger and sleep block until the GM lifts them, and Broken ended only by care or Résistance."""

from __future__ import annotations

from typing import Any

from tests.api.fabulae.combat import PHYSICAL, body, fields, unchanged
from tests.api.fabulae.combat import table as combat_table
from tests.api.helpers import (
    assert_refused,
    assert_verified,
    effect,
    gm_patch,
    post_roll,
    rolled,
    sheet_of,
)
from tests.conftest import API, assert_problem

table = combat_table  # the fixture that sets the table of every test here

MENTAL = ["enerve", "apeure", "demoralise"]
PHOBIC = {"kind": "mental", "code": "phobic", "duration": "7 days"}


def danger(character, name: str, **extra: Any) -> dict[str, Any]:
    return body("danger", character_id=character["id"], danger=name, **extra)


def recover(patient, mode: str, **extra: Any) -> dict[str, Any]:
    return body("recover", character_id=patient["id"], mode=mode, **extra)


def care(patient, healer, track: str) -> dict[str, Any]:
    return recover(patient, "care", healer_id=healer["id"], track=track)


# --- FAB-55/73 (corrected): mental damage -----------------------------------------------------


def test_FAB55_corrected_phobia_deals_one_mental_damage_a_round(
    client, table, gm, player, forced_dice
):
    campaign, ada = table.campaign, table.ada
    gm_patch(client, gm, ada, {"sequelae": [PHOBIC]})
    first = rolled(client, campaign, gm, danger(ada, "phobia", states="now"))
    assert first["draws"] == []
    assert first["result"]["damage"] == 1 and first["result"]["track"] == "mental"
    assert first["result"]["per"] == "round"
    assert first["effects"] == [effect(ada, "states", [], ["enerve"], "FAB-55")]
    # The next round, pending for Ada's player: the mental track's next box.
    second = rolled(client, campaign, gm, danger(ada, "phobia"))
    assert second["result"]["pending_states"] == [
        {
            "rule": "FAB-55",
            "track": "mental",
            "sequela": {"weapon_mod": 0, "feats": 0, "butcher": False},
        }
    ]
    settle = {"kind": "fabulae.state_choice", "follows": second["seq"]}
    landed = rolled(client, campaign, player, settle)
    assert landed["result"]["state"] == "apeure"
    assert sheet_of(client, gm, ada)["states"] == ["enerve", "apeure"]
    assert_verified(client, campaign, gm)


def test_FAB55_corrected_phobia_needs_a_phobic_character(client, table, gm):
    campaign, ada = table.campaign, table.ada
    with unchanged(client, gm, campaign, ada):
        refused = assert_refused(post_roll(client, campaign, gm, danger(ada, "phobia")), "FAB-55")
        assert "Phobique" in refused["detail"]
        horror = danger(ada, "horror", damage=0)
        assert_problem(post_roll(client, campaign, gm, horror), 422, "FAB-73")


def test_FAB73_corrected_only_the_gm_calls_the_new_dangers(client, table, gm, player):
    campaign, ada = table.campaign, table.ada
    with unchanged(client, gm, campaign, ada):
        for name in ("phobia", "horror", "hunger", "sleep"):
            assert_problem(post_roll(client, campaign, player, danger(ada, name)), 403)


def test_FAB23_FAB55_corrected_a_full_mental_track_breaks_the_character(
    client, table, gm, player, forced_dice
):
    campaign, ada = table.campaign, table.ada
    gm_patch(client, gm, ada, {"states": MENTAL})
    forced_dice.push(7, 3, 4)  # FAB-55: 1D12 7, Phobique, for 2D6 days
    entry = rolled(client, campaign, gm, danger(ada, "horror", damage=1, states="now"))
    [landed] = entry["result"]["states_checked"]
    assert landed["track"] == "mental" and landed["broken"] is True
    assert landed["sequela"]["code"] == "phobic" and landed["sequela"]["duration"] == "7 days"
    changed = fields(entry, ada)
    assert changed["broken"] == (False, True, "FAB-73")
    assert changed["broken_track"] == (None, "mental", "FAB-73")
    sheet = sheet_of(client, gm, ada)
    assert sheet["broken"] is True and sheet["broken_track"] == "mental"
    assert [s["code"] for s in sheet["sequelae"]] == ["phobic"]
    # Broken by the mind as by the body: alone, a Résistance roll (with Empathie) brings her back.
    forced_dice.push(6, 2, 2)  # Empathie 3 + Résistance 2 - Apeuré - Démoralisé
    back = rolled(client, campaign, player, recover(ada, "broken_resistance"))
    assert back["result"]["track"] == "mental" and back["result"]["cleared"] == ["demoralise"]
    assert sheet_of(client, gm, ada)["broken"] is False
    assert_verified(client, campaign, gm)


# --- FAB-73 (corrected): « Faim & Sommeil » -----------------------------------------------------


def test_FAB73_corrected_hunger_blocks_physical_healing(
    client, table, gm, player, other_player, forced_dice
):
    campaign, ada, bram = table.campaign, table.ada, table.bram
    entry = rolled(client, campaign, gm, danger(ada, "hunger", states="now"))  # a week
    assert entry["draws"] == [] and entry["result"]["damage"] == 1
    assert entry["result"]["per"] == "week" and entry["result"]["deprived"] == ["hunger"]
    assert entry["effects"] == [
        effect(ada, "states", [], ["epuise"], "FAB-73"),
        effect(ada, "deprived", [], ["hunger"], "FAB-73"),
    ]
    gm_patch(client, gm, ada, {"states": ["epuise", "meurtri", "enerve"]})
    with unchanged(client, gm, campaign, ada):
        refused = assert_refused(
            post_roll(client, campaign, other_player, care(ada, bram, "physical")), "FAB-73"
        )
        assert "'hunger'" in refused["detail"] and "deprived" in refused["detail"]
    rest = rolled(client, campaign, player, recover(ada, "rest", duration="night"))
    assert rest["result"]["cleared"] == ["enerve"]  # the mind still rests
    [held] = rest["result"]["not_cleared"]
    assert held["state"] == "epuise" and held["rule"] == "FAB-73"
    assert "eaten" in held["reason"]
    # The GM lifts it once she has eaten: physical healing again.
    assert gm_patch(client, gm, ada, {"deprived": []})["deprived"] == []
    forced_dice.push(6, 2, 2, 2, 2)  # Intellect 3 + Soin 2
    healed = rolled(client, campaign, other_player, care(ada, bram, "physical"))
    assert healed["result"]["cleared"] == ["meurtri"]
    assert_verified(client, campaign, gm)


def test_FAB73_corrected_the_first_day_without_food_deals_no_damage(client, table, gm):
    campaign, ada = table.campaign, table.ada
    entry = rolled(client, campaign, gm, danger(ada, "hunger", damage=0))
    assert entry["result"]["damage"] == 0 and "pending_states" not in entry["result"]
    assert entry["effects"] == [effect(ada, "deprived", [], ["hunger"], "FAB-73")]
    with unchanged(client, gm, campaign, ada):
        assert_problem(post_roll(client, campaign, gm, danger(ada, "hunger", damage=2)), 422)


def test_FAB73_corrected_sleep_blocks_mental_healing(
    client, table, gm, player, other_player, forced_dice
):
    campaign, ada, bram = table.campaign, table.ada, table.bram
    entry = rolled(client, campaign, gm, danger(ada, "sleep"))
    assert entry["draws"] == [] and entry["result"]["damage"] == 0
    assert entry["effects"] == [effect(ada, "deprived", [], ["sleep"], "FAB-73")]
    again = rolled(client, campaign, gm, danger(ada, "sleep"))
    assert again["effects"] == [] and again["result"]["deprived"] == ["sleep"]
    gm_patch(client, gm, ada, {"states": ["epuise", "enerve", "apeure"]})
    with unchanged(client, gm, campaign, ada):
        refused = assert_refused(
            post_roll(client, campaign, other_player, care(ada, bram, "mental")), "FAB-73"
        )
        assert "'sleep'" in refused["detail"] and "slept" in refused["detail"]
    rest = rolled(client, campaign, player, recover(ada, "rest", duration="tour"))
    assert rest["result"]["cleared"] == [] and rest["effects"] == []
    assert [(h["state"], h["rule"]) for h in rest["result"]["not_cleared"]] == [
        ("enerve", "FAB-73")
    ]
    # The player cannot lift it; the GM does, once she has slept.
    response = client.patch(
        f"{API}/characters/{ada['id']}", json={"sheet": {"deprived": []}}, headers=player.headers
    )
    assert_problem(response, 403, "deprived")
    assert sheet_of(client, gm, ada)["deprived"] == ["sleep"]
    gm_patch(client, gm, ada, {"deprived": []})
    forced_dice.push(6, 2, 2, 2, 2)  # Empathie 3 + Soin 2
    healed = rolled(client, campaign, other_player, care(ada, bram, "mental"))
    assert healed["result"]["cleared"] == ["apeure"]
    assert_verified(client, campaign, gm)


# --- FAB-81 (corrected): a rest while Broken ---------------------------------------------------


def test_FAB81_corrected_a_rest_while_broken_says_what_it_restores_and_what_it_cannot(
    client, table, gm, player, other_player, forced_dice
):
    campaign, ada, bram = table.campaign, table.ada, table.bram
    broken = {"broken": True, "broken_track": "physical", "pp": 0, "pp_max": 3}
    gm_patch(client, gm, ada, {**broken, "states": [*PHYSICAL, "enerve", "apeure"]})
    rest = rolled(client, campaign, player, recover(ada, "rest", duration="night"))
    result = rest["result"]
    assert result["cleared"] == ["enerve"] and result["pp_gained"] == 2
    [held] = result["not_cleared"]
    assert held["state"] == "epuise" and held["rule"] == "FAB-81"
    assert "Broken ends only by" in held["reason"]
    assert rest["effects"] == [
        effect(ada, "states", [*PHYSICAL, "enerve", "apeure"], [*PHYSICAL, "apeure"], "FAB-80"),
        effect(ada, "pp", 0, 2, "FAB-82"),
    ]
    sheet = sheet_of(client, gm, ada)
    assert sheet["broken"] is True and sheet["states"] == [*PHYSICAL, "apeure"]
    # A box of the broken track freed by hand: healing the mind still does not end Broken.
    gm_patch(client, gm, ada, {"states": ["meurtri", "blesse", "apeure"]})
    forced_dice.push(6, 2, 2, 2, 2)  # Empathie 3 + Soin 2
    mind = rolled(client, campaign, other_player, care(ada, bram, "mental"))
    assert mind["result"]["cleared"] == ["apeure"]
    assert {e["field"] for e in mind["effects"]} == {"states"}
    assert sheet_of(client, gm, ada)["broken"] is True
    # The care of the broken track ends it (FAB-81).
    forced_dice.push(6, 2, 2, 2, 2)  # Intellect 3 + Soin 2
    body_care = rolled(client, campaign, other_player, care(ada, bram, "physical"))
    assert body_care["result"]["cleared"] == ["blesse"]
    sheet = sheet_of(client, gm, ada)
    assert sheet["broken"] is False and sheet.get("broken_track") is None
    assert_verified(client, campaign, gm)
