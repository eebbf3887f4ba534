"""The worked combat of the issue through the API (FAB-62..68, FAB-23, FAB-34), and every
combat kind replayed offline."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.fabulae.combat import (
    PHYSICAL,
    attack,
    body,
    defend,
    faces,
    fields,
    shot_at_ada,
    unchanged,
)
from tests.api.fabulae.combat import table as combat_table
from tests.api.helpers import (
    assert_refused,
    assert_verified,
    effect,
    gm_patch,
    log_entries,
    new_scene,
    new_session,
    post_roll,
    rolled,
    sheet_of,
    verified_offline,
)
from tests.conftest import API

table = combat_table  # the fixture that sets the table of every test here

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
        "armor": ({"id": "leather_coat", "value": 1}, {"id": "leather_coat", "value": 0}, "FAB-68"),
        "states_pending": (0, 1, "FAB-68"),  # FAB-34: shown on the character
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
    assert absorbed["effects"] == [
        effect(ada, "destiny", 3, 2, "FAB-34"),
        effect(ada, "states_pending", 1, 0, "FAB-34"),
    ]
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
    """The same combat with states "now": each box lands in the attack. Whether Ada absorbs
    is her player's choice (FAB-34), so only the GM's hidden shots land them at once; the
    GM applies each before the next reads her sheet (FAIR-21)."""
    campaign, ada = table.campaign, table.ada
    gm_patch(client, gm, ada, {"armor": {"id": "leather_coat", "value": 1}})
    forced_dice.push(6, 2, 2, 2, 2, 2, 6, 2, 2, 2, 2)
    secret = {"states": "now", "visibility": "gm"}
    shot = rolled(client, campaign, gm, shot_at_ada(table, **secret))
    assert [s["state"] for s in shot["result"]["states_checked"]] == ["epuise"]
    assert fields(shot, ada)["states"] == ([], ["epuise"], "FAB-68")
    apply_held(client, campaign, gm, shot)
    # Later: 3 damage through (feats 1): Meurtri, Blessé, then Broken and a sequela whose
    # 2D6 and duration dice come after the protection dice in the same entry.
    forced_dice.push(6, 6, 2, 2, 2, 2, 2, 2, 2, 2)
    forced_dice.push(6, 6, 2, 2)  # 12 + 1 + 1 = 14: internal, 2D6 days
    later = rolled(client, campaign, gm, shot_at_ada(table, **secret))
    apply_held(client, campaign, gm, later)
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


def apply_held(client, campaign, gm, entry: dict[str, Any]) -> None:
    """FAIR-21: the GM applies what a hidden roll held back of a player's sheet."""
    url = f"{API}/campaigns/{campaign['id']}/log/{entry['seq']}/apply"
    response = client.post(url, headers=gm.headers)
    assert response.status_code == 201, response.text


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
    assert absorbed["effects"] == [
        effect(ada, "destiny", 3, 2, "FAB-34"),
        effect(ada, "states_pending", 1, 0, "FAB-34"),
    ]
    assert sheet_of(client, player, ada)["states"] == []
    with unchanged(client, gm, campaign, ada):
        assert_refused(
            post_roll(client, campaign, player, body("absorb", follows=fire["seq"])), "FAB-34"
        )


# --- replay and offline verification ----------------------------------------------------------


NEW_KINDS = {
    "fabulae.attack",
    "fabulae.grapple",
    "fabulae.defend",
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
    # The shot: 2 damage, the coat absorbs 1, one state Ada's player accepts (Épuisé).
    forced_dice.push(6, 2, 2, 2, 2, 2, 6, 2, 2, 2, 2)
    shot = rolled(client, campaign, gm, shot_at_ada(table))
    rolled(client, campaign, player, body("state_choice", follows=shot["seq"]))
    # Fire: one damage pending, settled by Ada's player (Meurtri).
    forced_dice.push(6, 2, 2)
    fire = rolled(client, campaign, gm, body("danger", character_id=ada["id"], danger="fire"))
    settled = rolled(client, campaign, player, body("state_choice", follows=fire["seq"]))
    assert settled["result"]["state"] == "meurtri"
    # FAB-62: the grapple waits for Ada's player, who does not defend.
    grapple = body("grapple", attacker_id=thug["id"], target_id=ada["id"])
    waiting = rolled(client, campaign, gm, grapple)
    forced_dice.push(6, 2, 2, 2, 2)
    rolled(client, campaign, player, defend(waiting, ada, "none"))
    strangle = body("strangle", attacker_id=thug["id"], target_id=ada["id"])
    choked = rolled(client, campaign, gm, strangle)
    accepted = rolled(client, campaign, player, body("state_choice", follows=choked["seq"]))
    assert accepted["result"]["state"] == "blesse"
    forced_dice.push(6, 6, 2, 6, 2, 2, 2, 2)  # Ada 3 dice (two states) against 5
    free = rolled(client, campaign, player, body("break_free", character_id=ada["id"]))
    assert free["result"]["freed"] is True
    forced_dice.push(5, 5, 3)  # 10: broken_limb, 3 days
    sequela = body("sequela", character_id=ada["id"], table="physical")
    assert rolled(client, campaign, gm, sequela)["result"]["code"] == "broken_limb"
    forced_dice.push(6, 2, 2)
    test = body("death_test", character_id=ada["id"], sequela=0)
    assert rolled(client, campaign, player, test)["result"]["survived"] is True
    # Broken, Bram acts only once his second wind has cleared Blessé (FAB-23 corrected).
    forced_dice.push(6, 2, 2)
    wind = rolled(client, campaign, other_player, body("second_wind", character_id=bram["id"]))
    assert wind["result"]["cleared"] == ["blesse"]
    forced_dice.push(6, 2, 2, 2)
    care = body("stabilize", healer_id=bram["id"], character_id=ada["id"], sequela=0)
    assert rolled(client, campaign, other_player, care)["result"]["stabilised"] is True
    forced_dice.push(6, 2)
    fix = body("repair", character_id=bram["id"], owner_id=ada["id"])
    assert rolled(client, campaign, other_player, fix)["result"]["armor_value"] == 1
    rolled(client, campaign, gm, body("reload", character_id=thug["id"], weapon="revolver"))
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
    # session, attack and its state choice, danger and its state choice, grapple, defense,
    # strangle and its state choice, break free, sequela, death test, second wind,
    # stabilize, repair, reload, action, street rat, power, end effect, scene.
    assert report["replayed"] == 21 and report["rederived"] == 0

    summary = verified_offline(client, campaign, gm, tmp_path)
    assert summary.startswith(f"OK: {len(entries)} entries checked, 0 re-derived, 21 replayed")
