"""Pushing the rolls that carry consequences (FAB-31/33/37 corrected, app/engine/rulesets/
fabulae/pushed.py) through the API: the roll is replayed with the roller's 2..5 rerolled,
the other side's dice kept, and what it decided follows the new dice."""

from __future__ import annotations

from tests.api.fabulae.combat import attack, body, defend, fields, lethal, unchanged
from tests.api.fabulae.combat import table as combat_table
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
from tests.conftest import assert_problem

table = combat_table


def push(seq: int, **extra):
    return body("push", follows=seq, **extra)


def test_FAB31_corrected_a_missed_attack_pushed_by_its_attacker_lands(
    client, table, gm, player, other_player, forced_dice
):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    gm_patch(client, gm, ada, {"weapons": [{"id": "knife"}]})
    waiting = rolled(client, campaign, player, attack(ada, thug, "knife"))
    forced_dice.push(6, 3, 3, 3, 3, 3)  # Ada: 3 + 2 + knife 1, one six
    forced_dice.push(6, 2, 2, 2, 2)  # Thug parries: one six, a miss
    parried = rolled(client, campaign, gm, defend(waiting, thug, "parry"))
    assert parried["result"]["attack"]["attacks"][0]["hit"] is False
    # FAB-37: the attack is Ada's, though the defense's entry is Thug's: her player pushes,
    # and the other player, whose character did not roll it, is told so.
    not_theirs = post_roll(client, campaign, other_player, push(parried["seq"]))
    assert "only the active side pushes" in assert_refused(not_theirs, "FAB-37")["detail"]
    forced_dice.push(6, 6, 2, 2, 2)  # her five threes rerolled: three sixes against one
    pushed = rolled(client, campaign, player, push(parried["seq"]))
    assert pushed["character_id"] == ada["id"] and pushed["draws"] == [
        {"sides": 6, "face": face} for face in (6, 6, 2, 2, 2)
    ]
    # The push reads as the opposition it replays (FAB-36): its winner, its net.
    assert pushed["result"]["active"]["dice"] == [6, 6, 6, 2, 2, 2]
    assert pushed["result"]["active"]["rerolled_from"]["dice"] == [6, 3, 3, 3, 3, 3]
    assert (pushed["result"]["winner"], pushed["result"]["net"]) == ("active", 2)
    assert pushed["outcome"]["code"] == "hit" and pushed["summary"].endswith("Hit")
    (hit,) = pushed["result"]["defend"]["attack"]["attacks"]
    assert hit["roll"]["passive"]["dice"] == [6, 2, 2, 2, 2]  # FAB-37: the parry stays
    assert (hit["hit"], hit["damage"], hit["through"]) == (True, 3, 3)
    assert fields(pushed, ada) == {"destiny": (3, 2, "FAB-31")}
    seen_by_gm = get_entry(client, campaign, gm, pushed["seq"])
    assert fields(seen_by_gm, thug) == {"states": ([], ["epuise", "meurtri", "blesse"], "FAB-68")}
    assert sheet_of(client, gm, thug)["states"] == ["epuise", "meurtri", "blesse"]
    assert_verified(client, campaign, gm)  # the push replays offline from its own request
    # One push a roll; a second needs the talent of its attribute (FAB-33, FAB-90).
    with unchanged(client, gm, campaign, ada, thug):
        again = post_roll(client, campaign, player, push(parried["seq"]))
        assert "double_push_physique" in assert_refused(again, "FAB-33")["detail"]


def test_FAB31_corrected_a_pushed_death_test_undoes_the_death(
    client, table, gm, player, forced_dice
):
    campaign, ada = table.campaign, table.ada
    gm_patch(client, gm, ada, {"sequelae": [lethal("impaled", "immediate")]})
    forced_dice.push(2, 3, 4, 5, 1)
    test = body("death_test", character_id=ada["id"], sequela=0)
    died = rolled(client, campaign, player, test)
    assert died["effects"] == [effect(ada, "dead", False, True, "FAB-51")]
    forced_dice.push(6, 2, 2, 2)  # the 1 stays; a six among the four rerolled
    pushed = rolled(client, campaign, player, push(died["seq"], state="enerve"))
    assert pushed["result"]["death_test"]["survived"] is True
    assert (pushed["result"]["sixes"], pushed["result"]["label"]) == (1, "Succès")
    # FAB-32: the 1 that stayed costs a state, named in the push.
    assert pushed["result"]["state_price"] == {"rule": "FAB-32", "state": "enerve"}
    assert fields(pushed, ada) == {
        "destiny": (3, 2, "FAB-31"),
        "states": ([], ["enerve"], "FAB-32"),
        "dead": (True, False, "FAB-31"),
    }
    assert sheet_of(client, player, ada)["dead"] is False


def test_FAB31_corrected_a_pushed_break_free_frees(client, table, gm, player, forced_dice):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    gm_patch(client, gm, ada, {"grappled_by": thug["id"]})
    forced_dice.push(6, 2, 2, 2, 2, 6, 2, 2, 2, 2)  # one six each: still held
    held = rolled(client, campaign, player, body("break_free", character_id=ada["id"]))
    assert held["result"]["freed"] is False
    forced_dice.push(6, 2, 2, 2)
    pushed = rolled(client, campaign, player, push(held["seq"]))
    assert pushed["result"]["break_free"]["freed"] is True
    assert pushed["outcome"]["code"] == "freed"
    assert fields(pushed, ada)["grappled_by"] == (thug["id"], None, "FAB-63")
    assert_verified(client, campaign, gm)


def test_FAB31_corrected_table_rolls_are_not_pushed(client, table, gm, player, forced_dice):
    campaign, ada = table.campaign, table.ada
    forced_dice.push(3)
    panic = rolled(client, campaign, gm, body("panic", character_id=ada["id"]))
    with unchanged(client, gm, campaign, ada):
        refused = post_roll(client, campaign, player, push(panic["seq"]))
        assert_problem(refused, 422, "not a roll its roller may push")


def test_FAB31_corrected_a_push_comes_before_anything_changes_what_the_roll_decided(
    client, table, gm, player, forced_dice
):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    gm_patch(client, gm, ada, {"weapons": [{"id": "knife"}]})
    waiting = rolled(client, campaign, player, attack(ada, thug, "knife"))
    forced_dice.push(6, 3, 3, 3, 3, 3, 2, 2, 2, 2, 2)  # a hit: one state on Thug
    hit = rolled(client, campaign, gm, defend(waiting, thug, "parry"))
    gm_patch(client, gm, thug, {"states": []})  # the GM heals him meanwhile
    with unchanged(client, gm, campaign, ada, thug):
        late = post_roll(client, campaign, player, push(hit["seq"]))
        assert "changed since the roll" in assert_refused(late, "FAB-31")["detail"]


def test_FAB31_FAB52_corrected_a_pushed_stabilisation(client, table, gm, player, forced_dice):
    campaign, ada, bram = table.campaign, table.ada, table.bram
    gm_patch(client, gm, bram, {"sequelae": [lethal("bleeding", "quart")]})
    stabilize = body("stabilize", healer_id=ada["id"], character_id=bram["id"], sequela=0)
    forced_dice.push(2, 2, 2, 2, 2)  # Empathie 3 + Soin 2: no six
    failed = rolled(client, campaign, player, stabilize)
    assert failed["result"]["outcome"] == "failure" and "stabilised" not in failed["result"]
    forced_dice.push(6, 2, 2, 2, 2)
    pushed = rolled(client, campaign, player, push(failed["seq"]))
    assert pushed["result"]["stabilize"]["stabilised"] is True
    assert sheet_of(client, gm, bram)["sequelae"][0]["stabilised"] is True


def test_FAB33_corrected_a_sturdy_attacker_pushes_an_attack_twice(
    client, table, gm, player, forced_dice
):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    gm_patch(client, gm, ada, {"weapons": [{"id": "knife"}], "talents": ["double_push_physique"]})
    waiting = rolled(client, campaign, player, attack(ada, thug, "knife"))
    forced_dice.push(6, 3, 3, 3, 3, 3)  # Ada: one six
    forced_dice.push(6, 6, 2, 2, 2)  # Thug parries: two sixes
    parried = rolled(client, campaign, gm, defend(waiting, thug, "parry"))
    forced_dice.push(6, 2, 2, 2, 2)  # the first push: two sixes against two, still a miss
    first = rolled(client, campaign, player, push(parried["seq"]))
    assert first["result"]["defend"]["attack"]["attacks"][0]["hit"] is False
    assert first["result"]["push"] == 1
    forced_dice.push(6, 6, 2, 2)  # the second rerolls the four 2s: four sixes, a hit
    second = rolled(client, campaign, player, push(parried["seq"]))
    assert second["result"]["push"] == 2
    assert second["result"]["active"]["rerolled_from"]["dice"] == [6, 6, 2, 2, 2, 2]
    assert second["result"]["active"]["dice"] == [6, 6, 6, 6, 2, 2]
    (hit,) = second["result"]["defend"]["attack"]["attacks"]
    assert (hit["hit"], hit["damage"]) == (True, 3)  # net 2: the knife's 2 + 1 Prouesse
    assert sheet_of(client, gm, thug)["states"] == ["epuise", "meurtri", "blesse"]
    assert sheet_of(client, player, ada)["destiny"] == 1
    with unchanged(client, gm, campaign, ada, thug):
        third = post_roll(client, campaign, player, push(parried["seq"]))
        assert "none a third" in assert_refused(third, "FAB-33")["detail"]
    assert_verified(client, campaign, gm)


def test_FAIR18_an_npcs_pushed_rolls_show_players_no_pool(client, table, gm, player, forced_dice):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    gm_patch(client, gm, thug, {"attributes": {"habilete": 6}, "skills": {"tir": 4}})
    forced_dice.push(*[2] * 12)  # Habileté 6 + Tir 4 + revolver 2: no six
    shot = rolled(client, campaign, gm, attack(thug, ada))
    forced_dice.push(*[2] * 12)
    pushed = rolled(client, campaign, gm, push(shot["seq"]))
    seen = get_entry(client, campaign, player, pushed["seq"])
    assert committed(seen["result"]["active"]["pool"])
    assert committed(seen["result"]["attack"]["attacks"][0]["roll"]["active"]["pool"])
    # A plain action of the NPC's, pushed: the roll it carries in its request too.
    look = body("action", character_id=thug["id"], attribute="habilete", skill="tir")
    forced_dice.push(*[2] * 10)
    action = rolled(client, campaign, gm, look)
    forced_dice.push(*[2] * 10)
    again = rolled(client, campaign, gm, push(action["seq"]))
    seen = get_entry(client, campaign, player, again["seq"])
    assert committed(seen["request"]["action"]["result"]["pool"])
    assert committed(seen["result"]["pool"])
    assert_verified(client, campaign, gm)
