"""Passing the turn in a Fabulae Tenebris encounter, corrected rules (app/services/
encounter_turns.py): those who sit out are passed by (FAB-23), a new round counts Sonné
down (FAB-50), pending states hold the turn (FAB-34), aiming is a slow action (FAB-64),
a crossbow reloads in a slow one (FAB-71)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from tests.api.helpers import gm_patch, log_entries, post_roll, rolled, sheet_of
from tests.api.test_encounters import (
    act,
    acted,
    apply_held,
    created,
    current,
    fighter,
    get,
    initiative,
    melee,
    next_turn,
    post,
)
from tests.conftest import API, FABULAE_SHEET, assert_problem

FAB = "fabulae-tenebris"


@dataclass
class Fight:
    campaign: dict[str, Any]
    encounter: dict[str, Any]
    ada: dict[str, Any]  # the player's
    thug: dict[str, Any]  # the GM's NPC
    bruno: dict[str, Any]  # the other player's


@pytest.fixture
def fight(client, gm, player, other_player, make_campaign, make_character, forced_dice) -> Fight:
    """Ada, Thug, Bruno in that order (cards 1, 2, 3), round 1."""
    campaign = make_campaign(FAB, players=(player, other_player))
    ada = make_character(campaign, player, sheet=FABULAE_SHEET, name="Ada")
    thug = make_character(campaign, gm, sheet=FABULAE_SHEET, kind="npc", name="Thug")
    bruno = make_character(campaign, other_player, sheet=FABULAE_SHEET, name="Bruno")
    encounter = created(
        client,
        campaign,
        gm,
        "L'usine",
        fighter(ada, "pcs"),
        fighter(thug, "foes"),
        fighter(bruno, "pcs"),
    )
    forced_dice.push(1, 1, 1)
    encounter = initiative(client, encounter, gm)
    assert current(encounter) == "Ada"
    return Fight(campaign, encounter, ada, thug, bruno)


def test_FAB23_corrected_a_broken_combatant_is_passed_by_and_shown(
    client, gm, player, forced_dice, fight
):
    campaign, encounter, ada, thug = fight.campaign, fight.encounter, fight.ada, fight.thug
    broken = {"states": ["epuise", "meurtri", "blesse"], "broken": True, "broken_track": "physical"}
    gm_patch(client, gm, thug, broken)
    encounter = next_turn(client, encounter, player)
    assert current(encounter) == "Bruno"
    skipped = [item for item in encounter["history"] if item["kind"] == "turn_skipped"]
    assert [(item["actor_id"], item["round"]) for item in skipped] == [(thug["id"], 1)]
    (turn,) = [e for e in log_entries(client, campaign, gm) if e["kind"] == "encounter.turn"]
    assert turn["request"]["skipped"] == [thug["id"]]
    # Bruno's player cannot hand Thug a turn back: acting out of turn is the GM's.
    refused = act(client, encounter, gm, thug, "fabulae.attack", override=True, **melee(thug, ada))
    assert assert_problem(refused, 409)["rule"] == "FAB-23"


def test_FAB50_corrected_sonne_counts_down_with_the_rounds_then_wakes(
    client, gm, player, other_player, forced_dice, fight
):
    campaign, encounter, ada, bruno = fight.campaign, fight.encounter, fight.ada, fight.bruno
    stunned = {"kind": "physical", "code": "stunned", "duration": "2 rounds"}
    gm_patch(client, gm, bruno, {"sequelae": [stunned]})
    encounter = next_turn(client, encounter, player)  # Thug
    encounter = next_turn(client, encounter, gm)  # Bruno sits out: round 2, Ada
    assert (encounter["round"], current(encounter)) == (2, "Ada")
    assert sheet_of(client, gm, bruno)["sequelae"][0]["duration"] == "1 rounds"
    encounter = next_turn(client, encounter, player)
    encounter = next_turn(client, encounter, gm)  # Bruno still out: round 3, he wakes
    assert (encounter["round"], current(encounter)) == (3, "Ada")
    assert sheet_of(client, gm, bruno)["sequelae"] == []
    rounds = [e for e in log_entries(client, campaign, gm) if e["kind"] == "fabulae.round"]
    assert len(rounds) == 2 and rounds[-1]["result"]["lifted"] == {bruno["id"]: ["stunned"]}
    encounter = next_turn(client, encounter, player)
    encounter = next_turn(client, encounter, gm)
    assert current(encounter) == "Bruno"
    # Posted directly, a round is the GM's to pass.
    direct = {"kind": "fabulae.round", "character_ids": [ada["id"]]}
    assert_problem(post_roll(client, campaign, player, direct), 403)


def test_FAB34_pending_states_hold_the_turn_until_settled(client, gm, player, forced_dice, fight):
    campaign, encounter, ada, thug = fight.campaign, fight.encounter, fight.ada, fight.thug
    encounter = next_turn(client, encounter, player)  # Thug's turn
    waiting = acted(client, encounter, gm, thug, "fabulae.attack", **melee(thug, ada))
    forced_dice.push(6, 6, 2, 2)  # 4 dice, undefended: 1 + 1 feat = 2 damage
    answer = {"follows": waiting["entry"]["seq"], "character_id": ada["id"], "defense": "none"}
    hit = acted(client, encounter, player, ada, "fabulae.defend", **answer)
    seq = hit["entry"]["seq"]
    shown = get(client, encounter, player)["pending_states"]
    assert shown == [{"character_id": ada["id"], "seq": seq, "count": 2}]
    assert sheet_of(client, player, ada)["states_pending"] == 2  # on the character too
    held = post(client, encounter, "/next", gm)
    body = assert_problem(held, 409, "FAB-34", "Ada: 2 from seq")
    assert get(client, encounter, gm)["round"] == 1 and current(encounter) == "Thug"
    del body
    rolled(client, campaign, player, {"kind": "fabulae.state_choice", "follows": seq})
    # The GM may accept for the player.
    rolled(client, campaign, gm, {"kind": "fabulae.state_choice", "follows": seq})
    assert get(client, encounter, gm)["pending_states"] == []
    assert sheet_of(client, player, ada)["states_pending"] == 0
    assert current(next_turn(client, encounter, gm)) == "Bruno"
    assert sheet_of(client, player, ada)["states"] == ["epuise", "meurtri"]


def test_FAB64_corrected_aiming_is_a_slow_action_for_the_next_shot(
    client, gm, player, forced_dice, fight
):
    encounter, ada, thug = fight.encounter, fight.ada, fight.thug
    gm_patch(client, gm, ada, {"weapons": [{"id": "revolver"}]})
    shot = {
        "attacker_id": ada["id"],
        "target_id": thug["id"],
        "mode": "ranged",
        "weapon": "revolver",
        "aimed": True,
    }
    unaimed = act(client, encounter, player, ada, "fabulae.attack", **shot)
    assert "aim" in assert_problem(unaimed, 409)["detail"]
    aim = acted(client, encounter, player, ada, "fabulae.aim", character_id=ada["id"])
    assert aim["entry"]["result"] == {"bonus": 2}
    assert aim["encounter"]["combatants"][0]["spent"] == {"slow": 1, "fast": 0}
    # The slow action is spent: the shot waits for the next round.
    assert_problem(act(client, encounter, player, ada, "fabulae.attack", **shot), 409, "slow")
    for caller in (player, gm, gm):
        encounter = next_turn(client, encounter, caller)
    assert (encounter["round"], current(encounter)) == (2, "Ada")
    forced_dice.push(*[2] * 9)  # Habileté 3 + Tir 2 + revolver 2 + aimed 2
    del shot["aimed"]  # the encounter carries the aim to this shot
    fired = acted(client, encounter, player, ada, "fabulae.attack", **shot)
    pool = fired["entry"]["result"]["attacks"][0]["roll"]["active"]["pool"]
    assert {"source": "aimed", "dice": 2} in pool["modifier_dice"]
    assert fired["encounter"]["combatants"][0]["conditions"] == []


def test_FAB71_corrected_a_crossbow_reloads_in_a_slow_action(
    client, gm, player, forced_dice, fight
):
    encounter, ada = fight.encounter, fight.ada
    gm_patch(client, gm, ada, {"weapons": [{"id": "crossbow", "ammo": 0}]})
    reload = acted(
        client, encounter, player, ada, "fabulae.reload", character_id=ada["id"], weapon="crossbow"
    )
    assert reload["entry"]["result"]["action"] == "slow"
    assert reload["encounter"]["combatants"][0]["spent"] == {"slow": 1, "fast": 0}


def test_FAB44_corrected_a_triggered_jolt_reaches_the_same_side(
    client, gm, player, forced_dice, fight
):
    encounter, ada, thug, bruno = fight.encounter, fight.ada, fight.thug, fight.bruno
    gm_patch(client, gm, ada, {"stress": 3})
    gm_patch(client, gm, bruno, {"talents": ["beast_friend"]})
    look = {"character_id": ada["id"], "attribute": "intellect", "skill": "observation"}
    forced_dice.push(2, 2, 2, 2, 2, 1, 3, 3)  # five dice and three stress dice: a 1, panic
    forced_dice.push(6)  # 6 + 3 − cool_head 2 = 7: a jolt
    acted_ = acted(client, encounter, player, ada, "fabulae.action", **look)
    (panic,) = acted_["entry"]["triggered"]
    assert panic["result"]["code"] == "jolt"
    assert [a["id"] for a in panic["request"]["allies"]] == [bruno["id"]]
    assert sheet_of(client, gm, bruno)["stress"] == 1  # Bruno, on Ada's side
    assert sheet_of(client, gm, thug)["stress"] == 0  # not the foe
    assert sheet_of(client, gm, ada)["stress"] == 4


def test_FAB44_the_gm_ends_a_binding_the_rulebook_gives_no_duration(
    client, gm, player, forced_dice, fight
):
    encounter, ada = fight.encounter, fight.ada
    gm_patch(client, gm, ada, {"stress": 12})
    forced_dice.push(5)  # 5 + 12 − cool_head 2 = 15: catatonia
    panic = acted(client, encounter, gm, ada, "fabulae.panic", character_id=ada["id"])
    assert panic["entry"]["result"]["code"] == "catatonia"
    look = {"character_id": ada["id"], "attribute": "intellect", "skill": "observation"}
    refused = act(client, encounter, player, ada, "fabulae.action", **look)
    assert assert_problem(refused, 409)["rule"] == "FAB-44"
    end = {"character_id": ada["id"], "code": "catatonia"}
    assert_problem(act(client, encounter, player, ada, "fabulae.end_binding", **end), 403)
    ended = acted(client, encounter, gm, ada, "fabulae.end_binding", **end)
    assert ended["encounter"]["combatants"][0]["conditions"] == []
    again = act(client, encounter, gm, ada, "fabulae.end_binding", **end)
    assert assert_problem(again, 409)["rule"] == "FAB-44"
    forced_dice.push(6, 2, 2, 2, 2, *[2] * 12)
    acted(client, encounter, player, ada, "fabulae.action", **look)


def test_FAB44_a_frozen_combatant_neither_defends_nor_takes_its_lost_turn(
    client, gm, player, forced_dice, fight
):
    encounter, ada, thug = fight.encounter, fight.ada, fight.thug
    gm_patch(client, gm, ada, {"stress": 6})
    forced_dice.push(6)  # 6 + 6 − cool_head 2 = 10: frozen, she loses her next turn
    panic = acted(client, encounter, gm, ada, "fabulae.panic", character_id=ada["id"])
    assert panic["entry"]["result"]["code"] == "frozen"
    encounter = next_turn(client, encounter, gm)  # Thug's turn
    forced_dice.push(2, 2, 2, 2)  # his bare hands; no wait for her parry, no parry die
    struck = acted(client, encounter, gm, thug, "fabulae.attack", **melee(thug, ada))
    assert struck["entry"]["result"]["defense"] == "none"
    encounter = next_turn(client, encounter, gm)  # Bruno
    encounter = next_turn(client, encounter, gm)  # round 2: Ada's lost turn passes by
    assert (encounter["round"], current(encounter)) == (2, "Thug")
    assert [i["actor_id"] for i in encounter["history"] if i["kind"] == "turn_skipped"] == [
        ada["id"]
    ]


def test_a_combatants_own_action_goes_through_the_encounter(client, gm, player, forced_dice, fight):
    campaign, encounter, ada = fight.campaign, fight.encounter, fight.ada
    look = {
        "kind": "fabulae.action",
        "character_id": ada["id"],
        "attribute": "intellect",
        "skill": "observation",
    }
    # Outside the fight's turns and budget, the roll would skip FAB-60 and FAB-64.
    bypass = post_roll(client, campaign, player, look)
    assert_problem(bypass, 409, "is fighting in the encounter", f"/encounters/{encounter['id']}")
    # The GM too: out of turn, through the encounter with override, where its limits hold.
    assert_problem(post_roll(client, campaign, gm, look), 409, "override")
    post(client, encounter, "/end", gm)
    forced_dice.push(2, 2, 2, 2, 2)
    assert rolled(client, campaign, player, look)["character_id"] == ada["id"]


def test_FAB44_frozen_while_parrying_in_anothers_turn_loses_one_turn(
    client, gm, player, forced_dice, fight
):
    encounter, ada, thug = fight.encounter, fight.ada, fight.thug
    gm_patch(client, gm, ada, {"stress": 6})
    encounter = next_turn(client, encounter, player)  # Thug's turn
    waiting = acted(client, encounter, gm, thug, "fabulae.attack", **melee(thug, ada))
    forced_dice.push(2, 2, 2, 2)  # Thug's bare hands
    forced_dice.push(2, 2, 2, 2, 2, 1, 3, 3, 3, 3, 3)  # Ada's parry, a stress 1
    forced_dice.push(6)  # 6 + 6 − 2 = 10: frozen, in Thug's turn
    answer = {"follows": waiting["entry"]["seq"], "character_id": ada["id"], "defense": "parry"}
    parried = acted(client, encounter, player, ada, "fabulae.defend", **answer)
    assert parried["entry"]["triggered"][0]["result"]["code"] == "frozen"
    encounter = next_turn(client, encounter, gm)  # Bruno
    encounter = next_turn(client, encounter, gm)  # round 2: Ada's next turn is the lost one
    assert (encounter["round"], current(encounter)) == (2, "Thug")
    encounter = next_turn(client, encounter, gm)  # Bruno
    encounter = next_turn(client, encounter, gm)  # round 3: one turn lost, not two
    assert (encounter["round"], current(encounter)) == (3, "Ada")


def test_FAB23_a_turn_passed_by_is_shown_in_the_round_it_was_lost(
    client, gm, player, forced_dice, fight
):
    encounter, bruno = fight.encounter, fight.bruno
    broken = {"states": ["epuise", "meurtri", "blesse"], "broken": True, "broken_track": "physical"}
    gm_patch(client, gm, bruno, broken)
    encounter = next_turn(client, encounter, player)  # Thug
    encounter = next_turn(client, encounter, gm)  # Bruno, last of round 1, is passed by
    assert (encounter["round"], current(encounter)) == (2, "Ada")
    (skip,) = [item for item in encounter["history"] if item["kind"] == "turn_skipped"]
    assert (skip["actor_id"], skip["round"]) == (bruno["id"], 1)


def test_FAB34_a_push_sent_outside_the_encounter_still_holds_the_turn(
    client, gm, player, forced_dice, fight
):
    campaign, encounter, ada = fight.campaign, fight.encounter, fight.ada
    look = {"character_id": ada["id"], "attribute": "intellect", "skill": "observation"}
    forced_dice.push(2, 2, 2, 2, 2)
    looked = acted(client, encounter, player, ada, "fabulae.action", **look)
    forced_dice.push(1, 2, 2, 2, 2)  # the push shows a 1: a state to choose, pending
    push = {"kind": "fabulae.push", "follows": looked["entry"]["seq"]}
    pushed = rolled(client, campaign, player, push)  # a reaction: POST .../rolls takes it
    assert pushed["result"]["pending_states"] == [{"rule": "FAB-32", "choice": "any"}]
    waiting = get(client, encounter, gm)["pending_states"]
    assert waiting == [{"character_id": ada["id"], "seq": looked["entry"]["seq"], "count": 1}]
    assert_problem(post(client, encounter, "/next", player), 409, "FAB-34")


def test_FAB44_an_encounters_foe_is_not_named_an_ally(client, gm, player, forced_dice, fight):
    encounter, ada, thug = fight.encounter, fight.ada, fight.thug
    look = {
        "character_id": ada["id"],
        "attribute": "intellect",
        "skill": "observation",
        "allies": [thug["id"]],
    }
    refused = act(client, encounter, player, ada, "fabulae.action", **look)
    assert_problem(refused, 422, "Thug fights on the other side")


def test_FAIR21_a_hidden_binding_does_not_tell_itself_by_an_undefended_attack(
    client, gm, player, forced_dice, fight
):
    encounter, ada, thug = fight.encounter, fight.ada, fight.thug
    gm_patch(client, gm, thug, {"stress": 6})
    forced_dice.push(6)  # 6 + 6 − 2 = 10: frozen, in a panic only the GM sees
    panic = {"character_id": thug["id"], "visibility": "gm"}
    acted(client, encounter, gm, thug, "fabulae.panic", **panic)
    struck = acted(client, encounter, player, ada, "fabulae.attack", **melee(ada, thug))
    # As for any foe: the attack waits for the GM's defense, and tells nothing.
    assert struck["entry"]["result"]["awaiting"]["choice"] == "defense"


def test_FAB44_a_hidden_rolls_deferred_jolt_reaches_the_same_side(
    client, gm, player, forced_dice, fight
):
    campaign, encounter, ada, bruno = fight.campaign, fight.encounter, fight.ada, fight.bruno
    gm_patch(client, gm, ada, {"stress": 3})
    gm_patch(client, gm, bruno, {"talents": ["beast_friend"]})
    look = {
        "character_id": ada["id"],
        "attribute": "intellect",
        "skill": "observation",
        "visibility": "self",
    }
    forced_dice.push(2, 2, 2, 2, 2, 1, 3, 3)  # a stress 1, rolled where only Ada's player sees
    hidden = acted(client, encounter, player, ada, "fabulae.action", **look)
    forced_dice.push(6)  # applied: 6 + 3 − cool_head 2 = 7, a jolt
    applied = apply_held(client, campaign, gm, hidden["entry"]["seq"])
    (panic,) = applied["triggered"]
    assert panic["result"]["code"] == "jolt"
    assert bruno["id"] in [ally["id"] for ally in panic["request"]["allies"]]
    if panic["effects_held"]:  # as hidden as its roll (FAIR-21): the GM applies it too
        apply_held(client, campaign, gm, panic["seq"])
    assert sheet_of(client, gm, bruno)["stress"] == 1


def test_FAB23_when_nobody_is_left_able_to_act_next_says_so(client, gm, forced_dice, fight):
    encounter, ada, thug, bruno = fight.encounter, fight.ada, fight.thug, fight.bruno
    broken = {"states": ["epuise", "meurtri", "blesse"], "broken": True, "broken_track": "physical"}
    for character in (thug, bruno):
        gm_patch(client, gm, character, broken)
    deleted = client.delete(f"{API}/characters/{ada['id']}", headers=gm.headers)
    assert deleted.status_code == 204, deleted.text
    assert_problem(post(client, encounter, "/next", gm), 409, "no combatant")
