"""VAM-40 health through the API (issue 19, point 5; vampire.md "Health and damage"): the
classic seven-level track, damage rolls soaked at once, the wound penalty on every pool,
healing by the Storyteller, and the Incapacitated sitting out an encounter.

Lucien (the player's PC): Force 1, Vigueur 3, Astuce 3 + Subterfuge 3. Prévôt (the GM's
NPC): Force 2, Vigueur 2. Dice are scripted with `forced_dice`: the damage pool first, then
the target's soak.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.helpers import (
    assert_refused,
    assert_verified,
    committed,
    effect,
    get_entry,
    gm_patch,
    post_roll,
    rolled,
    sheet_of,
)
from tests.api.test_encounters import act as act_in
from tests.api.test_encounters import (
    acted,
    athletics,
    by_name,
    created,
    current,
    fighter,
    get,
    initiative,
    next_turn,
    start_session,
    verify_ok,
)
from tests.api.vampire.test_rolls import LUCIEN, Table, make_table, unchanged
from tests.api.vampire.test_rolls import acted as action
from tests.conftest import API, assert_problem

UNHURT = {"bashing": 0, "lethal": 0, "aggravated": 0}


def health(bashing: int = 0, lethal: int = 0, aggravated: int = 0) -> dict[str, int]:
    return {"bashing": bashing, "lethal": lethal, "aggravated": aggravated}


def damage_body(target, damage_type: str = "lethal", attacker=None, **extra: Any) -> dict[str, Any]:
    body = {"kind": "vampire.damage", "target_id": target["id"], "damage_type": damage_type}
    if attacker is not None:
        body["attacker_id"] = attacker["id"]
    return {**body, **extra}


def heal_body(character, **extra: Any) -> dict[str, Any]:
    return {"kind": "vampire.heal", "character_id": character["id"], **extra}


def faces(entry: dict[str, Any]) -> list[int]:
    return [draw["face"] for draw in entry["draws"]]


@pytest.fixture
def table(make_campaign, make_character, gm, player) -> Table:
    return make_table(make_campaign, make_character, gm, player)


@pytest.fixture
def storyteller(make_campaign, make_character, gm, player) -> Table:
    """A campaign where the Storyteller decides modifiers (VAM-5)."""
    return make_table(make_campaign, make_character, gm, player, players_set_difficulty=False)


# --- the track on the sheet -------------------------------------------------------------------


def test_VAM40_a_new_sheet_is_unhurt_and_only_rules_or_the_gm_change_health(
    client, make_character, table, gm, player
):
    assert sheet_of(client, player, table.lucien)["health"] == UNHURT
    assert sheet_of(client, player, table.lucien)["fortitude"] == 0
    hurt = {**LUCIEN, "health": health(bashing=1)}
    created_hurt = client.post(
        f"{API}/campaigns/{table.campaign['id']}/characters",
        json={"name": "Hurt", "kind": "pc", "sheet": hurt},
        headers=player.headers,
    )
    assert_problem(created_hurt, 403, "health")
    edit = client.patch(
        f"{API}/characters/{table.lucien['id']}",
        json={"sheet": {"health": health(lethal=2)}},
        headers=player.headers,
    )
    assert_problem(edit, 403, "health")
    # The GM's override is audited like any; the track holds seven levels.
    assert gm_patch(client, gm, table.lucien, {"health": health(lethal=2)})["health"] == health(
        lethal=2
    )
    too_much = client.patch(
        f"{API}/characters/{table.lucien['id']}",
        json={"sheet": {"health": health(bashing=4, lethal=4)}},
        headers=gm.headers,
    )
    assert_problem(too_much, 422, "VAM-40")


# --- damage and soak --------------------------------------------------------------------------


def test_VAM40_damage_rolls_at_6_and_the_target_soaks_with_vigueur_at_once(
    client, table, gm, player, forced_dice
):
    # Prévôt: Force 2 + bonus 2 (a knife and an extra success) = 4 dice; Lucien soaks with
    # Vigueur 3.
    forced_dice.push(8, 6, 2, 10, 6, 1, 2)
    entry = rolled(
        client, table.campaign, gm, damage_body(table.lucien, "lethal", table.npc, bonus=2)
    )
    result = entry["result"]
    assert faces(entry) == [8, 6, 2, 10, 6, 1, 2]
    assert (result["strength"], result["bonus"], result["pool"]) == (2, 2, 4)
    assert (result["dice"], result["successes"]) == ([8, 6, 2, 10], 3)
    assert result["soak"] == {
        "vigueur": 3,
        "fortitude": 0,
        "pool": 3,
        "dice": [6, 1, 2],
        "successes": 1,
    }
    assert (result["levels"], result["beyond"], result["level"]) == (2, 0, "hurt")
    assert entry["effects"] == [effect(table.lucien, "health", UNHURT, health(lethal=2), "VAM-40")]
    assert sheet_of(client, player, table.lucien)["health"] == health(lethal=2)
    assert entry["rules"] == "vampire@2"
    assert_verified(client, table.campaign, gm)


def test_VAM40_ones_cancel_nothing_and_a_damage_roll_never_botches(client, table, gm, forced_dice):
    forced_dice.push(1, 1, 7, 1, 1, 1)  # 3 damage dice: one success; soak 3: none
    entry = rolled(
        client, table.campaign, gm, damage_body(table.lucien, "bashing", table.npc, bonus=1)
    )
    assert (entry["result"]["successes"], entry["result"]["soak"]["successes"]) == (1, 0)
    assert entry["result"]["health"] == health(bashing=1)
    assert entry["result"]["level"] == "bruised"


def test_VAM40_no_success_rolls_no_soak_and_changes_nothing(client, table, gm, forced_dice):
    forced_dice.push(2, 3)
    entry = rolled(client, table.campaign, gm, damage_body(table.lucien, "lethal", table.npc))
    result = entry["result"]
    assert (result["successes"], result["soak"], result["levels"]) == (0, None, 0)
    assert entry["effects"] == [] and result["level"] is None


def test_VAM40_aggravated_damage_is_soaked_with_fortitude_alone(
    client, table, gm, player, forced_dice
):
    forced_dice.push(9, 9)  # no Fortitude: no soak die at all
    entry = rolled(client, table.campaign, gm, damage_body(table.lucien, "aggravated", table.npc))
    assert entry["result"]["soak"] is None and entry["result"]["health"] == health(aggravated=2)
    gm_patch(client, gm, table.lucien, {"fortitude": 2, "health": UNHURT})
    forced_dice.push(9, 9, 6, 5)  # Fortitude 2, Vigueur left out: one level soaked
    entry = rolled(client, table.campaign, gm, damage_body(table.lucien, "aggravated", table.npc))
    soak = entry["result"]["soak"]
    assert (soak["vigueur"], soak["fortitude"], soak["pool"], soak["successes"]) == (0, 2, 2, 1)
    assert entry["result"]["health"] == health(aggravated=1)
    # Against lethal damage, Fortitude adds to Vigueur: 3 + 2 soak dice.
    forced_dice.push(9, 9, 2, 2, 2, 2, 2)
    entry = rolled(client, table.campaign, gm, damage_body(table.lucien, "lethal", table.npc))
    assert entry["result"]["soak"]["pool"] == 5
    # The track fills from the top, the most severe damage first.
    assert entry["result"]["health"] == health(lethal=2, aggravated=1)
    assert entry["result"]["level"] == "injured"
    assert_verified(client, table.campaign, gm)


def test_VAM40_a_full_track_turns_bashing_lethal_and_what_it_cannot_hold_is_beyond(
    client, table, gm, forced_dice
):
    gm_patch(client, gm, table.lucien, {"health": health(bashing=5, lethal=1)})
    # Three lethal levels (Vigueur 3 soaks none): one box left, then two bashing turn lethal.
    forced_dice.push(6, 6, 6, 2, 2, 2)
    entry = rolled(
        client,
        table.campaign,
        gm,
        damage_body(table.lucien, "lethal", table.npc, bonus=1),
    )
    assert entry["result"]["health"] == health(bashing=3, lethal=4)
    assert (entry["result"]["level"], entry["result"]["beyond"]) == ("incapacitated", 0)
    # A hazard's aggravated damage turns the least severe boxes aggravated; past that, beyond.
    gm_patch(client, gm, table.lucien, {"health": health(aggravated=6)})
    forced_dice.push(10, 10, 10)
    entry = rolled(client, table.campaign, gm, damage_body(table.lucien, "aggravated", pool=3))
    assert entry["result"]["health"] == health(aggravated=7)
    assert entry["result"]["beyond"] == 2 and entry["result"]["strength"] is None
    assert_verified(client, table.campaign, gm)


def test_VAM40_the_storyteller_may_rule_that_a_target_does_not_soak(client, table, gm, forced_dice):
    forced_dice.push(6, 6)
    entry = rolled(
        client, table.campaign, gm, damage_body(table.lucien, "lethal", table.npc, soak=False)
    )
    assert entry["result"]["soak"] is None and entry["result"]["levels"] == 2


def test_VAM40_a_hazard_is_the_storytellers_and_names_its_pool(client, table, gm, player):
    with unchanged(client, gm, table.campaign, table.lucien):
        assert_problem(
            post_roll(client, table.campaign, player, damage_body(table.lucien, pool=3)), 403
        )
        assert_problem(post_roll(client, table.campaign, gm, damage_body(table.lucien)), 422)
        both = damage_body(table.lucien, attacker=table.npc, pool=3)
        assert_problem(post_roll(client, table.campaign, gm, both), 422)
        itself = damage_body(table.lucien, attacker=table.lucien)
        assert_problem(post_roll(client, table.campaign, gm, itself), 422)


def test_VAM40_a_player_attacks_with_their_character_and_the_storyteller_sets_the_bonus(
    client, storyteller, gm, player, forced_dice
):
    campaign, lucien, npc = storyteller.campaign, storyteller.lucien, storyteller.npc
    with unchanged(client, gm, campaign, lucien, npc):
        assert_problem(
            post_roll(client, campaign, player, damage_body(npc, attacker=lucien, bonus=2)), 403
        )
        # Only for a character they play.
        assert_problem(post_roll(client, campaign, player, damage_body(lucien, attacker=npc)), 403)
    forced_dice.push(7, 8, 8)  # Force 1: one die; Prévôt soaks with Vigueur 2
    entry = rolled(client, campaign, player, damage_body(npc, "bashing", attacker=lucien))
    assert entry["result"]["pool"] == 1
    # FAIR-18: what the NPC's sheet gave (its Vigueur, its track) is committed for the player.
    seen = get_entry(client, campaign, player, entry["seq"])["result"]
    assert committed(seen["soak"]["vigueur"]) and committed(seen["health"])
    assert committed(seen["levels"])
    gm_seen = get_entry(client, campaign, gm, entry["seq"])["result"]
    assert (gm_seen["soak"]["vigueur"], gm_seen["levels"]) == (2, 0)
    assert_verified(client, campaign, gm)


# --- the wound penalty --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("track", "penalty"),
    [
        (health(bashing=1), 0),  # Bruised
        (health(bashing=2), 1),  # Hurt
        (health(lethal=3), 1),  # Injured
        (health(bashing=2, lethal=2), 2),  # Wounded
        (health(aggravated=5), 2),  # Mauled
        (health(bashing=3, lethal=3), 5),  # Crippled
    ],
)
def test_VAM40_the_wound_penalty_comes_off_the_action_pool(
    client, table, gm, player, forced_dice, track, penalty
):
    gm_patch(client, gm, table.lucien, {"health": track})
    forced_dice.push(*[2] * (6 - penalty))
    entry = action(client, table.campaign, player, table.lucien)  # Astuce 3 + Subterfuge 3
    assert entry["result"]["pool"] == 6 - penalty
    assert entry["result"].get("wound_penalty", 0) == penalty
    assert_verified(client, table.campaign, gm)


def test_VAM40_an_unhurt_action_records_no_wound_penalty(client, table, player, forced_dice):
    forced_dice.push(*[2] * 6)
    assert "wound_penalty" not in action(client, table.campaign, player, table.lucien)["result"]


def test_VAM40_the_incapacitated_cannot_act_and_a_pool_the_penalty_empties_is_refused(
    client, table, gm, player
):
    gm_patch(client, gm, table.lucien, {"health": health(lethal=7)})
    with unchanged(client, gm, table.campaign, table.lucien):
        refused = assert_refused(
            post_roll(
                client,
                table.campaign,
                player,
                {
                    "kind": "vampire.action",
                    "character_id": table.lucien["id"],
                    "attribute": "astuce",
                },
            ),
            "VAM-40",
        )
        assert "Incapacitated" in refused["detail"]
        attack = damage_body(table.npc, attacker=table.lucien)
        assert_refused(post_roll(client, table.campaign, player, attack), "VAM-40")
    gm_patch(client, gm, table.lucien, {"health": health(bashing=6)})  # Crippled −5
    with unchanged(client, gm, table.campaign, table.lucien):
        lone = {"kind": "vampire.action", "character_id": table.lucien["id"], "attribute": "force"}
        refused = assert_refused(post_roll(client, table.campaign, player, lone), "VAM-10")
        assert "wound penalty" in refused["detail"]


def test_VAM40_the_wound_penalty_comes_off_the_attackers_damage_pool(
    client, table, gm, forced_dice
):
    gm_patch(client, gm, table.npc, {"health": health(bashing=2)})  # Hurt −1
    forced_dice.push(6, 6, 2, 2, 2, 2)  # Force 2 + 2 − 1 = 3 dice; Lucien soaks with 3
    entry = rolled(
        client, table.campaign, gm, damage_body(table.lucien, "lethal", table.npc, bonus=2)
    )
    assert (entry["result"]["wound_penalty"], entry["result"]["pool"]) == (1, 3)


# --- healing ------------------------------------------------------------------------------------


def test_VAM40_the_storyteller_heals_the_least_severe_first(client, table, gm, player):
    gm_patch(client, gm, table.lucien, {"health": health(bashing=2, lethal=1, aggravated=1)})
    with unchanged(client, gm, table.campaign, table.lucien):
        assert_problem(post_roll(client, table.campaign, player, heal_body(table.lucien)), 403)
    entry = rolled(client, table.campaign, gm, heal_body(table.lucien, levels=3))
    assert entry["result"] == {
        "healed": 3,
        "health": health(aggravated=1),
        "level": "bruised",
    }
    assert entry["effects"] == [
        effect(
            table.lucien,
            "health",
            health(bashing=2, lethal=1, aggravated=1),
            health(aggravated=1),
            "VAM-40",
        )
    ]
    entry = rolled(
        client, table.campaign, gm, heal_body(table.lucien, damage_type="aggravated", levels=7)
    )
    assert entry["result"]["healed"] == 1 and entry["result"]["level"] is None
    with unchanged(client, gm, table.campaign, table.lucien):
        assert_refused(post_roll(client, table.campaign, gm, heal_body(table.lucien)), "VAM-40")
    assert_verified(client, table.campaign, gm)


# --- in an encounter ----------------------------------------------------------------------------


def test_VAM40_in_an_encounter_damage_completes_the_attack_and_the_incapacitated_sit_out(
    client, gm, player, forced_dice, make_campaign, make_character
):
    campaign = make_campaign("vampire", players=(player,), options={"players_set_difficulty": True})
    start_session(client, campaign, gm)
    lucien = make_character(campaign, player, sheet=LUCIEN, name="Lucien")
    thug = make_character(campaign, gm, sheet=LUCIEN, kind="npc", name="Thug")
    encounter = created(
        client, campaign, gm, "La ruelle", fighter(lucien, "kindred"), fighter(thug, "foes")
    )
    forced_dice.push(9, 2)  # Lucien 9+6, Thug 2+6
    encounter = initiative(client, encounter, gm)
    assert current(encounter) == "Lucien"
    # The attack, then its damage in the same turn: the damage is part of the action.
    forced_dice.push(8, 8, 2, 2, 2)  # Dextérité 3 + Athlétisme 2
    acted(client, encounter, player, lucien, "vampire.action", **athletics(lucien))
    forced_dice.push(6, 6, 6, 6, 6, 6, 6, 2, 2, 2)  # Force 1 + 6: seven levels, Vigueur 3
    hit = acted(
        client,
        encounter,
        player,
        lucien,
        "vampire.damage",
        attacker_id=lucien["id"],
        target_id=thug["id"],
        damage_type="lethal",
        bonus=6,
    )
    assert committed(hit["entry"]["result"]["level"])  # FAIR-18: the NPC's track is the GM's
    assert get_entry(client, campaign, gm, hit["entry"]["seq"])["result"]["level"] == (
        "incapacitated"
    )
    # A second action is still refused (VAM-40: one action a turn), and so is a second
    # damage roll: one attack, one damage roll.
    again = act_in(client, encounter, player, lucien, "vampire.action", **athletics(lucien))
    assert assert_problem(again, 409)["rule"] == "VAM-40"
    more = act_in(
        client,
        encounter,
        player,
        lucien,
        "vampire.damage",
        attacker_id=lucien["id"],
        target_id=thug["id"],
        damage_type="lethal",
    )
    assert "damage already" in assert_problem(more, 409)["detail"]
    gm_view = by_name(get(client, encounter, gm))
    assert gm_view["Thug"]["condition"]["health"] == health(lethal=7)
    assert by_name(get(client, encounter, player))["Thug"]["condition"] is None
    # The Incapacitated Thug sits out: the turn comes back to Lucien, in round 2.
    forced_dice.push(9, 2)  # round 2's initiative: Lucien first again
    encounter = next_turn(client, encounter, player)
    assert (encounter["round"], current(encounter)) == (2, "Lucien")
    # Visibly: the GM reads why; a player is not told why an NPC sits out (FAIR-21).
    history = get(client, encounter, gm)["history"]
    skipped = [h for h in history if h["kind"] == "turn_skipped"]
    assert [h["actor_id"] for h in skipped] == [thug["id"]]
    assert skipped[0]["reason"] == "Thug is Incapacitated (VAM-40)"
    verify_ok(client, campaign, gm)
