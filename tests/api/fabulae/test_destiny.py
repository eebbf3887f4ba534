"""Fabulae Destiny through the API: awards (FAB-30), pushes (FAB-31..35), opposed rolls
(FAB-36/37)."""

from __future__ import annotations

import pytest

from tests.api.fabulae.core import (
    acted,
    answered_opposed,
    assert_nothing_to_settle,
    faces,
    follow,
    followed,
    get_entry,
    opposed_body,
    unchanged,
)
from tests.api.fabulae.core import table as core_table
from tests.api.helpers import (
    assert_refused,
    effect,
    gm_patch,
    log_entries,
    post_roll,
    rolled,
    sheet_of,
)
from tests.conftest import assert_problem

table = core_table  # the fixture that sets the table of every test here

# --- FAB-30: Destiny awards ----------------------------------------------------------------


def test_FAB_30_gm_awards_a_destiny_point(client, table, gm, player):
    body = {"kind": "fabulae.destiny_award", "character_id": table.ada["id"], "reason": "saved"}
    entry = rolled(client, table.campaign, gm, body)
    assert entry["kind"] == "fabulae.destiny_award" and entry["draws"] == []
    assert entry["result"] == {"destiny": 4, "reason": "saved"}
    assert entry["effects"] == [effect(table.ada, "destiny", 3, 4, "FAB-30")]
    assert sheet_of(client, player, table.ada)["destiny"] == 4


def test_FAB_30_only_the_gm_awards_destiny(client, table, gm, player):
    body = {"kind": "fabulae.destiny_award", "character_id": table.ada["id"]}
    with unchanged(client, gm, table.campaign, table.ada):
        assert_problem(post_roll(client, table.campaign, player, body), 403)


# --- FAB-31..35: pushing -------------------------------------------------------------------


def test_FAB_31_push_rerolls_only_twos_to_fives(client, table, gm, player, forced_dice):
    forced_dice.push(2, 3, 4, 5, 6)
    action = acted(client, table.campaign, player, table.ada)
    forced_dice.push(6, 6, 2, 3)
    push = followed(client, table.campaign, player, "fabulae.push", action["seq"])
    assert len(push["draws"]) == 4
    result = push["result"]
    assert result["dice"] == [6, 6, 2, 3, 6]
    assert result["rerolled_from"] == {"dice": [2, 3, 4, 5, 6], "stress_dice": []}
    assert (result["sixes"], result["feats"], result["outcome"]) == (3, 2, "success")
    assert result["push"] == 1
    assert "pending_states" not in result and "state_price" not in result
    assert push["effects"] == [effect(table.ada, "destiny", 3, 2, "FAB-31")]
    assert sheet_of(client, gm, table.ada)["destiny"] == 2


def test_FAIR_21_FAB_31_the_push_of_a_self_roll_is_as_hidden_as_the_roll(
    client, table, gm, player, other_player, forced_dice
):
    # The push carries the dice it rerolls: public, it would show what the self roll hid.
    forced_dice.push(2, 3, 4, 5, 6)
    action = acted(client, table.campaign, player, table.ada, visibility="self")
    forced_dice.push(6, 6, 2, 3)
    push = followed(client, table.campaign, player, "fabulae.push", action["seq"])
    assert push["visibility"] == "self" and push["result"]["rerolled_from"]["dice"] == [
        2,
        3,
        4,
        5,
        6,
    ]
    others = log_entries(client, table.campaign, other_player)
    assert [e.get("redacted") for e in others if e["seq"] in (action["seq"], push["seq"])] == [
        True,
        True,
    ]


def test_FAB_31_ones_and_sixes_are_kept(client, table, gm, player, forced_dice):
    forced_dice.push(1, 6, 2, 1, 6)
    action = acted(client, table.campaign, player, table.ada)
    forced_dice.push(4)
    push = followed(client, table.campaign, player, "fabulae.push", action["seq"], state="enerve")
    assert faces(push) == [4]
    assert push["result"]["dice"] == [1, 6, 4, 1, 6]


def test_FAB_31_stress_dice_follow_the_same_rule(client, table, gm, player, forced_dice):
    gm_patch(client, gm, table.ada, {"stress": 2})
    forced_dice.push(2, 2, 2, 2, 6, 3, 6)
    action = acted(client, table.campaign, player, table.ada)
    forced_dice.push(6, 2, 2, 2, 5)
    push = followed(client, table.campaign, player, "fabulae.push", action["seq"])
    assert len(push["draws"]) == 5
    assert push["result"]["dice"] == [6, 2, 2, 2, 6]
    assert push["result"]["stress_dice"] == [5, 6]
    assert push["result"]["sixes"] == 3 and push["result"]["feats"] == 2


def test_FAB_31_push_needs_a_destiny_point(client, table, gm, player, forced_dice):
    gm_patch(client, gm, table.ada, {"destiny": 0})
    forced_dice.push(2, 2, 2, 2, 2)
    action = acted(client, table.campaign, player, table.ada)
    with unchanged(client, gm, table.campaign, table.ada):
        response = follow(client, table.campaign, player, "fabulae.push", action["seq"])
        assert_refused(response, "FAB-31")


def test_FAB_32_state_named_in_the_push_is_checked(client, table, gm, player, forced_dice):
    forced_dice.push(1, 2, 3, 4, 5)
    action = acted(client, table.campaign, player, table.ada)
    forced_dice.push(2, 2, 2, 2)
    push = followed(client, table.campaign, player, "fabulae.push", action["seq"], state="meurtri")
    assert push["result"]["dice"] == [1, 2, 2, 2, 2]  # the kept 1 counts
    assert push["result"]["state_price"] == {"rule": "FAB-32", "state": "meurtri"}
    assert "pending_states" not in push["result"]
    assert push["effects"] == [
        effect(table.ada, "destiny", 3, 2, "FAB-31"),
        effect(table.ada, "states", [], ["meurtri"], "FAB-32"),
    ]
    sheet = sheet_of(client, gm, table.ada)
    assert sheet["states"] == ["meurtri"] and sheet["destiny"] == 2


def test_FAB_32_no_one_no_price(client, table, gm, player, forced_dice):
    forced_dice.push(2, 2, 2, 2, 2)
    action = acted(client, table.campaign, player, table.ada)
    forced_dice.push(3, 3, 3, 3, 3)
    push = followed(client, table.campaign, player, "fabulae.push", action["seq"], state="meurtri")
    assert "state_price" not in push["result"] and "pending_states" not in push["result"]
    assert sheet_of(client, gm, table.ada)["states"] == []


def test_FAB_32_pending_price_is_settled_by_a_state_choice(
    client, table, gm, player, other_player, forced_dice
):
    forced_dice.push(2, 2, 2, 2, 2)
    action = acted(client, table.campaign, player, table.ada)
    forced_dice.push(1, 1, 6, 3, 3)
    push = followed(client, table.campaign, player, "fabulae.push", action["seq"])
    # One state only, however many 1s.
    assert push["result"]["pending_states"] == [{"rule": "FAB-32", "choice": "any"}]
    assert sheet_of(client, gm, table.ada)["states"] == []
    campaign = table.campaign
    with unchanged(client, gm, campaign, table.ada):
        # Not the player's character; and a state choice must name a state.
        response = follow(
            client, campaign, other_player, "fabulae.state_choice", push["seq"], state="apeure"
        )
        assert_problem(response, 403)
        assert_problem(follow(client, campaign, player, "fabulae.state_choice", push["seq"]), 422)
        # The price sits on the push, not on the action it pushed.
        response = follow(
            client, campaign, player, "fabulae.state_choice", action["seq"], state="apeure"
        )
        assert_nothing_to_settle(response)
    choice = followed(client, campaign, player, "fabulae.state_choice", push["seq"], state="apeure")
    assert choice["follows"] == push["seq"] and choice["draws"] == []
    assert choice["result"]["state"] == "apeure"
    assert choice["result"]["settles"] == {"rule": "FAB-32", "choice": "any"}
    assert choice["effects"] == [
        effect(table.ada, "states", [], ["apeure"], "FAB-32"),
        effect(table.ada, "states_pending", 1, 0, "FAB-34"),  # one state less waiting
    ]
    assert sheet_of(client, gm, table.ada)["states"] == ["apeure"]
    with unchanged(client, gm, campaign, table.ada):
        response = follow(
            client, campaign, player, "fabulae.state_choice", push["seq"], state="meurtri"
        )
        assert_nothing_to_settle(response)
    follow_ups = get_entry(client, campaign, gm, push["seq"])["follow_ups"]
    assert [(f["seq"], f["kind"]) for f in follow_ups] == [(choice["seq"], "fabulae.state_choice")]


def test_FAB_32_the_chosen_state_must_be_unchecked(client, table, gm, player, forced_dice):
    gm_patch(client, gm, table.ada, {"states": ["epuise"]})
    forced_dice.push(2, 2, 2, 2, 2)
    action = acted(client, table.campaign, player, table.ada)
    forced_dice.push(1, 3, 3, 3, 3)
    push = followed(client, table.campaign, player, "fabulae.push", action["seq"])
    with unchanged(client, gm, table.campaign, table.ada):
        response = follow(
            client, table.campaign, player, "fabulae.state_choice", push["seq"], state="epuise"
        )
        assert_problem(response, 422, "already checked")
    followed(client, table.campaign, player, "fabulae.state_choice", push["seq"], state="meurtri")
    assert sheet_of(client, gm, table.ada)["states"] == ["epuise", "meurtri"]


def test_FAB_33_a_passive_roll_cannot_be_pushed(client, table, gm, player, forced_dice):
    forced_dice.push(2, 2, 2, 2, 2)
    action = acted(client, table.campaign, gm, table.ada, passive=True)
    assert action["result"]["passive"] is True
    with unchanged(client, gm, table.campaign, table.ada):
        for caller in (player, gm):
            response = follow(client, table.campaign, caller, "fabulae.push", action["seq"])
            assert_refused(response, "FAB-33")


def test_FAB_33_one_push_per_action(client, table, gm, player, forced_dice):
    forced_dice.push(2, 2, 2, 2, 2)
    action = acted(client, table.campaign, player, table.ada)
    forced_dice.push(3, 3, 3, 3, 3)
    followed(client, table.campaign, player, "fabulae.push", action["seq"])
    with unchanged(client, gm, table.campaign, table.ada):
        response = follow(client, table.campaign, player, "fabulae.push", action["seq"])
        assert_refused(response, "FAB-33")
    assert sheet_of(client, gm, table.ada)["destiny"] == 2


def test_FAB_33_double_push_talent_allows_a_second_push(client, table, gm, player, forced_dice):
    gm_patch(client, gm, table.ada, {"talents": ["double_push_physique"]})
    forced_dice.push(2, 2, 2, 2, 2)
    action = acted(client, table.campaign, player, table.ada)
    forced_dice.push(6, 3, 3, 3, 3)
    first = followed(client, table.campaign, player, "fabulae.push", action["seq"])
    forced_dice.push(6, 4, 4, 5)
    second = followed(client, table.campaign, player, "fabulae.push", action["seq"])
    assert second["follows"] == action["seq"] and second["result"]["push"] == 2
    # The second push rerolls the first push's result, which replaced the action's for good.
    assert second["result"]["rerolled_from"]["dice"] == first["result"]["dice"]
    assert second["result"]["dice"] == [6, 6, 4, 4, 5] and second["result"]["sixes"] == 2
    assert second["effects"] == [effect(table.ada, "destiny", 2, 1, "FAB-31")]
    with unchanged(client, gm, table.campaign, table.ada):
        response = follow(client, table.campaign, player, "fabulae.push", action["seq"])
        assert_refused(response, "FAB-33")


def test_FAB_33_double_push_talent_of_another_attribute(client, table, gm, player, forced_dice):
    gm_patch(client, gm, table.ada, {"talents": ["double_push_habilete"]})
    forced_dice.push(2, 2, 2, 2, 2)
    action = acted(client, table.campaign, player, table.ada)
    forced_dice.push(3, 3, 3, 3, 3)
    followed(client, table.campaign, player, "fabulae.push", action["seq"])
    with unchanged(client, gm, table.campaign, table.ada):
        response = follow(client, table.campaign, player, "fabulae.push", action["seq"])
        body = assert_refused(response, "FAB-33")
    assert "double_push_physique" in body["detail"]


def test_FAB_33_37_only_the_active_side_pushes_an_opposed_roll(
    client, table, gm, player, other_player, forced_dice
):
    body = opposed_body(table.ada, table.bram)
    forced_dice.push(2, 2, 2, 2, 2, 6, 2, 2, 2, 2)
    opposed = answered_opposed(client, table.campaign, player, body, other_player)
    assert opposed["character_id"] == table.ada["id"]  # the roll stays Ada's
    with unchanged(client, gm, table.campaign, table.ada, table.bram):
        response = follow(client, table.campaign, other_player, "fabulae.push", opposed["seq"])
        assert "only the active side pushes" in assert_problem(response, 409)["detail"]
    forced_dice.push(3, 3, 3, 3, 3)
    push = followed(client, table.campaign, player, "fabulae.push", opposed["seq"])
    assert push["character_id"] == table.ada["id"]
    assert sheet_of(client, gm, table.ada)["destiny"] == 2
    assert sheet_of(client, gm, table.bram)["destiny"] == 3


def test_FAB_34_absorb_a_pending_state(client, table, gm, player, forced_dice):
    forced_dice.push(1, 2, 2, 2, 2)
    action = acted(client, table.campaign, player, table.ada)
    forced_dice.push(3, 3, 3, 3)
    push = followed(client, table.campaign, player, "fabulae.push", action["seq"])
    assert push["result"]["pending_states"] == [{"rule": "FAB-32", "choice": "any"}]
    absorb = followed(client, table.campaign, player, "fabulae.absorb", push["seq"])
    assert absorb["follows"] == push["seq"] and absorb["draws"] == []
    assert absorb["result"] == {"absorbed": {"rule": "FAB-32", "choice": "any"}}
    assert absorb["effects"] == [
        effect(table.ada, "destiny", 2, 1, "FAB-34"),
        effect(table.ada, "states_pending", 1, 0, "FAB-34"),
    ]
    sheet = sheet_of(client, gm, table.ada)
    assert sheet["states"] == [] and sheet["destiny"] == 1
    with unchanged(client, gm, table.campaign, table.ada):
        response = follow(
            client, table.campaign, player, "fabulae.state_choice", push["seq"], state="epuise"
        )
        assert_nothing_to_settle(response)
        assert_refused(
            follow(client, table.campaign, player, "fabulae.absorb", push["seq"]), "FAB-34"
        )


def test_FAB_34_absorb_needs_a_pending_state(client, table, gm, player, forced_dice):
    forced_dice.push(1, 2, 2, 2, 2)
    action = acted(client, table.campaign, player, table.ada)
    with unchanged(client, gm, table.campaign, table.ada):
        response = follow(client, table.campaign, player, "fabulae.absorb", action["seq"])
        assert_refused(response, "FAB-34")


def test_FAB_34_absorb_without_destiny_is_refused(client, table, gm, player, forced_dice):
    gm_patch(client, gm, table.ada, {"destiny": 1})
    forced_dice.push(2, 2, 2, 2, 2)
    action = acted(client, table.campaign, player, table.ada)
    forced_dice.push(1, 3, 3, 3, 3)
    push = followed(client, table.campaign, player, "fabulae.push", action["seq"])
    assert sheet_of(client, gm, table.ada)["destiny"] == 0
    with unchanged(client, gm, table.campaign, table.ada):
        response = follow(client, table.campaign, player, "fabulae.absorb", push["seq"])
        assert_refused(response, "FAB-34")
    followed(client, table.campaign, player, "fabulae.state_choice", push["seq"], state="epuise")
    assert sheet_of(client, gm, table.ada)["states"] == ["epuise"]


def test_FAB_34_push_with_absorb(client, table, gm, player, forced_dice):
    forced_dice.push(2, 2, 2, 2, 2)
    action = acted(client, table.campaign, player, table.ada)
    forced_dice.push(1, 6, 3, 3, 3)
    push = followed(client, table.campaign, player, "fabulae.push", action["seq"], absorb=True)
    assert push["result"]["state_price"] == {"rule": "FAB-32", "absorbed": True}
    assert "pending_states" not in push["result"]
    assert [e["field"] for e in push["effects"]] == ["destiny"]
    sheet = sheet_of(client, gm, table.ada)
    assert sheet["destiny"] == 1 and sheet["states"] == []


def test_FAB_34_push_with_absorb_needs_two_destiny(client, table, gm, player, forced_dice):
    gm_patch(client, gm, table.ada, {"destiny": 1})
    forced_dice.push(2, 2, 2, 2, 2)
    action = acted(client, table.campaign, player, table.ada)
    with unchanged(client, gm, table.campaign, table.ada):
        response = follow(
            client, table.campaign, player, "fabulae.push", action["seq"], absorb=True
        )
        assert_refused(response, "FAB-34")


def test_FAB_34_push_with_absorb_spends_nothing_more_when_no_one_shows(
    client, table, gm, player, forced_dice
):
    forced_dice.push(2, 2, 2, 2, 2)
    action = acted(client, table.campaign, player, table.ada)
    forced_dice.push(3, 3, 3, 3, 3)
    push = followed(client, table.campaign, player, "fabulae.push", action["seq"], absorb=True)
    assert "state_price" not in push["result"] and "pending_states" not in push["result"]
    assert push["effects"] == [effect(table.ada, "destiny", 3, 2, "FAB-31")]


def test_FAB_32_34_push_names_a_state_or_absorbs_it_not_both(
    client, table, gm, player, forced_dice
):
    forced_dice.push(2, 2, 2, 2, 2)
    action = acted(client, table.campaign, player, table.ada)
    with unchanged(client, gm, table.campaign, table.ada):
        response = follow(
            client,
            table.campaign,
            player,
            "fabulae.push",
            action["seq"],
            absorb=True,
            state="epuise",
        )
        assert_problem(response, 422)


def test_FAB_32_push_naming_a_checked_state_is_refused_before_the_dice(
    client, table, gm, player, forced_dice
):
    gm_patch(client, gm, table.ada, {"states": ["meurtri"]})
    forced_dice.push(2, 2, 2, 2)
    action = acted(client, table.campaign, player, table.ada)
    with unchanged(client, gm, table.campaign, table.ada):
        response = follow(
            client, table.campaign, player, "fabulae.push", action["seq"], state="meurtri"
        )
        assert_problem(response, 422, "already checked")


def test_FAB_35_a_push_is_its_own_entry_following_the_action(
    client, table, gm, player, forced_dice
):
    forced_dice.push(2, 3, 4, 5, 2)
    action = acted(client, table.campaign, player, table.ada)
    forced_dice.push(6, 6, 6, 6, 6)
    push = followed(client, table.campaign, player, "fabulae.push", action["seq"])
    assert push["kind"] == "fabulae.push" and push["seq"] == action["seq"] + 1
    assert push["follows"] == action["seq"]
    assert push["request"]["action"]["seq"] == action["seq"]
    stored = get_entry(client, table.campaign, gm, action["seq"])
    assert stored["result"] == action["result"]  # the log keeps the original roll
    assert stored["follow_ups"] == [{"seq": push["seq"], "kind": "fabulae.push", "status": None}]
    kinds = [e["kind"] for e in log_entries(client, table.campaign, gm)[-2:]]
    assert kinds == ["fabulae.action", "fabulae.push"]


def test_FAB_35_push_must_follow_an_action_roll(client, table, gm, player, forced_dice):
    award = {"kind": "fabulae.destiny_award", "character_id": table.ada["id"]}
    entry = rolled(client, table.campaign, gm, award)
    with unchanged(client, gm, table.campaign, table.ada):
        assert_problem(follow(client, table.campaign, player, "fabulae.push", entry["seq"]), 422)
        assert_problem(follow(client, table.campaign, player, "fabulae.push", 999), 404)


# --- FAB-36/37: opposed rolls ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("active", "passive", "net", "feats", "winner", "outcome"),
    [
        ([6, 6, 6, 2, 2], [6, 2, 2, 2, 2], 2, 1, "active", "success"),
        ([6, 6, 2, 2, 2], [6, 2, 2, 2, 2], 1, 0, "active", "success"),
        ([6, 2, 2, 2, 2], [6, 3, 3, 3, 3], 0, 0, "passive", "failure"),
        ([2, 2, 2, 2, 2], [6, 6, 3, 3, 3], -2, 0, "passive", "failure"),
        ([6, 6, 6, 6, 2], [2, 2, 2, 2, 2], 4, 3, "active", "success"),
    ],
)
def test_FAB_36_opposed_winner_net_and_feats(
    client, table, player, other_player, forced_dice, active, passive, net, feats, winner, outcome
):
    body = opposed_body(table.ada, table.bram)
    forced_dice.push(*active, *passive)
    entry = answered_opposed(client, table.campaign, player, body, other_player)
    assert entry["kind"] == "fabulae.oppose" and entry["character_id"] == table.ada["id"]
    result = entry["result"]
    assert result["active"]["dice"] == active and result["passive"]["dice"] == passive
    assert (result["net"], result["feats"], result["winner"], result["outcome"]) == (
        net,
        feats,
        winner,
        outcome,
    )


def test_FAB_36_each_side_rolls_its_own_pool(client, table, gm, player, other_player, forced_dice):
    gm_patch(client, gm, table.bram, {"states": ["meurtri"], "stress": 1})
    forced_dice.push(2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3)
    body = opposed_body(table.ada, table.bram, active={"helpers": 2})
    # Bram's helpers are his side's to count (FAB-13): his player answers with them.
    entry = answered_opposed(client, table.campaign, player, body, other_player, helpers=1)
    assert entry["result"]["active"]["pool"]["pool"] == 7
    assert entry["result"]["passive"]["pool"]["pool"] == 5
    assert entry["result"]["passive"]["stress_dice"] == [3]


def test_FAB_37_push_recomputes_the_net(client, table, gm, player, other_player, forced_dice):
    body = opposed_body(table.ada, table.bram)
    forced_dice.push(6, 2, 2, 2, 2, 6, 6, 3, 3, 3)
    opposed = answered_opposed(client, table.campaign, player, body, other_player)
    assert opposed["result"]["net"] == -1 and opposed["result"]["winner"] == "passive"
    forced_dice.push(6, 6, 3, 3)
    push = followed(client, table.campaign, player, "fabulae.push", opposed["seq"])
    assert len(push["draws"]) == 4  # the passive side's dice stay as they were
    result = push["result"]
    assert result["active"]["dice"] == [6, 6, 6, 3, 3]
    assert result["passive"]["dice"] == [6, 6, 3, 3, 3]
    assert (result["net"], result["feats"], result["winner"], result["outcome"]) == (
        1,
        0,
        "active",
        "success",
    )
