"""Fabulae action rolls through the API: creation (FAB-1..6), pools (FAB-10..15), states
(FAB-20/21), alternate attributes (FAB-4), talents (FAB-90), who may roll."""

from __future__ import annotations

import pytest

from tests.api.fabulae.core import (
    BASE_SHEET,
    act,
    acted,
    action_body,
    faces,
    follow,
    get_entry,
    opposed_body,
    recover_body,
    unchanged,
)
from tests.api.fabulae.core import table as core_table
from tests.api.helpers import (
    assert_refused,
    effect,
    gm_patch,
    last_seq,
    log_entries,
    new_session,
    post_roll,
    rolled,
    sheet_of,
    url,
)
from tests.conftest import API, assert_problem

table = core_table  # the fixture that sets the table of every test here

# --- FAB-1..6: creation ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("patch", "fragment"),
    [
        ({"attributes": {"physique": 4, "habilete": 3, "intellect": 3, "empathie": 3}}, "FAB-1"),
        ({"attributes": {"physique": 6, "habilete": 2, "intellect": 2, "empathie": 2}}, "FAB-1"),
        (
            {"skills": {"combat": 3, "tir": 2, "observation": 2, "soin": 2, "resistance": 2}},
            "FAB-3",
        ),
        ({"skills": {"combat": 4, "tir": 2, "observation": 2, "soin": 2}}, "FAB-3"),
        ({"talents": ["sharp_eye", "medic"]}, "FAB-5"),
    ],
)
def test_FAB_1_3_5_creation_budget_is_refused(client, table, player, patch, fragment):
    sheet = {**BASE_SHEET, **patch}
    response = client.post(
        url(table.campaign, "/characters"),
        json={"name": "Edgar", "kind": "pc", "sheet": sheet},
        headers=player.headers,
    )
    assert_problem(response, 422, fragment)


def test_FAB_2_unknown_skill_is_refused(client, table, player):
    sheet = {**BASE_SHEET, "skills": {**BASE_SHEET["skills"], "escrime": 0}}
    response = client.post(
        url(table.campaign, "/characters"),
        json={"name": "Edgar", "kind": "pc", "sheet": sheet},
        headers=player.headers,
    )
    assert_problem(response, 422)


def test_FAB_6_a_new_sheet_starts_with_its_resources(client, table, player):
    sheet = sheet_of(client, player, table.ada)
    assert sheet["destiny"] == 3 and sheet["stress"] == 0
    assert sheet["states"] == [] and sheet["broken"] is False and sheet["sequelae"] == []
    assert sheet["pp"] == 0 and sheet["pp_max"] == 0


def test_FAB_6_the_player_cannot_set_protected_resources(client, table, gm, player):
    with unchanged(client, gm, table.campaign, table.ada):
        response = client.patch(
            f"{API}/characters/{table.ada['id']}",
            json={"sheet": {"destiny": 9}},
            headers=player.headers,
        )
        assert_problem(response, 403, "destiny")


# --- FAB-10..15: the action roll -------------------------------------------------------------


def test_FAB_10_pool_is_attribute_plus_skill(client, table, gm, player, forced_dice):
    gm_patch(client, gm, table.ada, {"attributes": {"physique": 4}, "skills": {"combat": 3}})
    forced_dice.push(2, 3, 4, 5, 2, 3, 4)
    entry = acted(client, table.campaign, player, table.ada)
    assert entry["kind"] == "fabulae.action" and entry["character_id"] == table.ada["id"]
    assert entry["follows"] is None and entry["triggered"] == []
    assert entry["request"]["roll"]["attribute"] == "physique"
    assert entry["request"]["roll"]["skill"] == "combat"
    assert entry["request"]["character"]["sheet"]["attributes"]["physique"] == 4
    pool = entry["result"]["pool"]
    assert {k: pool[k] for k in ("attribute", "skill", "helpers", "difficulty", "states")} == {
        "attribute": 4,
        "skill": 3,
        "helpers": 0,
        "difficulty": 0,
        "states": 0,
    }
    assert pool["talents"] == 0 and pool["talent_dice"] == []
    assert pool["modifiers"] == 0 and pool["modifier_dice"] == []
    assert pool["pool"] == 7 and pool["stress_dice"] == 0
    assert faces(entry) == [2, 3, 4, 5, 2, 3, 4]
    assert entry["result"]["dice"] == [2, 3, 4, 5, 2, 3, 4]
    assert entry["result"]["stress_dice"] == []
    assert entry["result"]["outcome"] == "failure" and entry["effects"] == []


def test_FAB_10_pure_attribute_roll(client, table, gm, player, forced_dice):
    gm_patch(client, gm, table.ada, {"attributes": {"physique": 4}})
    forced_dice.push(6, 2, 3, 4)
    entry = acted(client, table.campaign, player, table.ada, "physique", None)
    assert entry["request"]["roll"]["skill"] is None
    pool = entry["result"]["pool"]
    assert pool["attribute"] == 4 and pool["skill"] == 0 and pool["pool"] == 4
    assert len(entry["draws"]) == 4 and entry["result"]["outcome"] == "success"


def test_FAB_14_situational_modifiers_add_and_remove_dice(client, table, player, forced_dice):
    modifiers = [{"source": "aim", "dice": 2}, {"source": "dark", "dice": -1}]
    forced_dice.push(2, 2, 2, 2, 2, 2)
    entry = acted(client, table.campaign, player, table.ada, modifiers=modifiers)
    pool = entry["result"]["pool"]
    assert pool["modifiers"] == 1 and pool["modifier_dice"] == modifiers
    assert pool["pool"] == 6 and len(entry["draws"]) == 6


@pytest.mark.parametrize(
    ("dice", "sixes", "feats", "outcome", "label"),
    [
        ([1, 2, 3, 4, 5], 0, 0, "failure", "Échec"),
        ([2, 6, 3, 4, 5], 1, 0, "success", "Succès"),
        ([6, 6, 6, 2, 1], 3, 2, "success", "Succès"),
        ([6, 6, 6, 6, 6], 5, 4, "success", "Succès"),
    ],
)
def test_FAB_11_sixes_feats_and_outcome(
    client, table, player, forced_dice, dice, sixes, feats, outcome, label
):
    forced_dice.push(*dice)
    result = acted(client, table.campaign, player, table.ada)["result"]
    assert result["dice"] == dice
    assert (result["sixes"], result["feats"], result["outcome"]) == (sixes, feats, outcome)
    assert result["label"] == label and result["panic"] is False


@pytest.mark.parametrize(
    ("difficulty", "malus"), [("hard", 0), ("very_hard", -1), ("almost_impossible", -2)]
)
def test_FAB_12_difficulty_maluses(client, table, player, forced_dice, difficulty, malus):
    forced_dice.push(*[3] * (5 + malus))
    entry = acted(client, table.campaign, player, table.ada, difficulty=difficulty)
    assert entry["result"]["pool"]["difficulty"] == malus
    assert entry["result"]["pool"]["pool"] == 5 + malus
    assert len(entry["draws"]) == 5 + malus


def test_FAB_12_unknown_difficulty_is_422(client, table, gm, player):
    with unchanged(client, gm, table.campaign, table.ada):
        assert_problem(act(client, table.campaign, player, table.ada, difficulty="easy"), 422)


@pytest.mark.parametrize("helpers", [0, 1, 2, 3])
def test_FAB_13_each_helper_adds_a_die(client, table, player, forced_dice, helpers):
    forced_dice.push(*[4] * (5 + helpers))
    entry = acted(client, table.campaign, player, table.ada, helpers=helpers)
    assert entry["result"]["pool"]["helpers"] == helpers
    assert len(entry["draws"]) == 5 + helpers


def test_FAB_13_four_helpers_is_422_and_logs_nothing(client, table, gm, player):
    with unchanged(client, gm, table.campaign, table.ada):
        body = assert_problem(act(client, table.campaign, player, table.ada, helpers=4), 422)
    assert body["errors"][0]["loc"][-1] == "helpers"


@pytest.mark.parametrize(
    ("states", "extra", "pool"),
    [
        (["meurtri", "blesse", "apeure"], {"difficulty": "almost_impossible"}, 0),
        ([], {"modifiers": [{"source": "bound hands", "dice": -6}]}, -1),
        (["meurtri", "blesse"], {"modifiers": [{"source": "darkness", "dice": -3}]}, 0),
    ],
)
def test_FAB_14_impossible_action_is_refused_and_recorded(
    client, table, gm, player, forced_dice, states, extra, pool
):
    gm_patch(client, gm, table.ada, {"states": states})
    before = last_seq(client, table.campaign, gm)
    sheet = sheet_of(client, gm, table.ada)
    body = assert_refused(act(client, table.campaign, player, table.ada, **extra), "FAB-14")
    assert body["seq"] == before + 1
    entry = log_entries(client, table.campaign, gm)[-1]
    assert entry["seq"] == body["seq"] and entry["kind"] == "fabulae.action"
    assert entry["actor_id"] == player.id and entry["character_id"] == table.ada["id"]
    assert entry["draws"] == [] and entry["effects"] == []
    assert entry["result"]["outcome"] == "impossible"
    assert entry["result"]["dice"] == [] and entry["result"]["pool"]["pool"] == pool
    assert get_entry(client, table.campaign, gm, body["seq"])["result"]["outcome"] == "impossible"
    assert sheet_of(client, gm, table.ada) == sheet
    # Nothing was rolled, so there is nothing to push either.
    with unchanged(client, gm, table.campaign, table.ada):
        assert_refused(
            follow(client, table.campaign, player, "fabulae.push", body["seq"]), "FAB-14"
        )


def test_FAB_14_impossible_expert_roll_does_not_spend_the_talent(
    client, table, gm, player, forced_dice
):
    new_session(client, table.campaign, gm)
    gm_patch(client, gm, table.ada, {"talents": ["expert"]})
    minus = [{"source": "foreign field", "dice": -5}]
    response = act(
        client,
        table.campaign,
        player,
        table.ada,
        "intellect",
        "connaissance",
        talents=["expert"],
        modifiers=minus,
    )
    assert_refused(response, "FAB-14")
    assert sheet_of(client, gm, table.ada).get("expert_session") is None
    forced_dice.push(2, 2, 2, 2)
    entry = acted(
        client, table.campaign, player, table.ada, "intellect", "connaissance", talents=["expert"]
    )
    assert entry["result"]["pool"]["talents"] == 1


def test_FAB_14_impossible_opposed_roll_is_refused_and_recorded(client, table, gm, player):
    minus = {"modifiers": [{"source": "pinned down", "dice": -6}]}
    body = opposed_body(table.ada, table.bram, active=minus)
    refusal = assert_refused(post_roll(client, table.campaign, player, body), "FAB-14")
    entry = get_entry(client, table.campaign, gm, refusal["seq"])
    assert entry["kind"] == "fabulae.opposed" and entry["result"]["outcome"] == "impossible"
    assert entry["result"]["active"]["outcome"] == "impossible"
    assert entry["result"]["active"]["dice"] == [] and entry["effects"] == []


def test_FAB_14_impossible_self_care_is_refused_and_recorded(client, table, gm, player):
    gm_patch(client, gm, table.ada, {"states": ["meurtri", "blesse", "apeure", "demoralise"]})
    body = recover_body(table.ada, "care", healer_id=table.ada["id"], track="physical")
    refusal = assert_refused(post_roll(client, table.campaign, player, body), "FAB-14")
    entry = get_entry(client, table.campaign, gm, refusal["seq"])
    assert entry["kind"] == "fabulae.recover" and entry["draws"] == []
    assert entry["result"]["outcome"] == "impossible" and entry["result"]["pool"]["pool"] == -1
    assert sheet_of(client, gm, table.ada)["states"] == [
        "meurtri",
        "blesse",
        "apeure",
        "demoralise",
    ]


def test_FAB_15_stress_dice_are_recorded_separately(client, table, gm, player, forced_dice):
    gm_patch(client, gm, table.ada, {"stress": 2})
    forced_dice.push(2, 2, 2, 2, 2, 6, 3)
    entry = acted(client, table.campaign, player, table.ada)
    result = entry["result"]
    assert result["pool"]["pool"] == 5 and result["pool"]["stress_dice"] == 2
    assert len(entry["draws"]) == 7
    assert result["dice"] == [2, 2, 2, 2, 2] and result["stress_dice"] == [6, 3]
    # FAB-42: a 6 on a stress die counts as a normal success.
    assert result["sixes"] == 1 and result["outcome"] == "success" and result["panic"] is False


# --- FAB-20/21: state maluses --------------------------------------------------------------


@pytest.mark.parametrize(
    ("states", "malus"),
    [
        ([], 0),
        (["epuise"], 0),
        (["enerve"], 0),
        (["meurtri"], 1),
        (["blesse"], 1),
        (["apeure"], 1),
        (["demoralise"], 1),
        (["epuise", "enerve"], 0),
        (["meurtri", "blesse", "apeure"], 3),
        (["epuise", "meurtri", "blesse", "enerve", "apeure", "demoralise"], 4),
    ],
)
def test_FAB_20_21_state_maluses_are_cumulative(
    client, table, gm, player, forced_dice, states, malus
):
    gm_patch(client, gm, table.ada, {"states": states})
    forced_dice.push(*[2] * (8 - malus))
    entry = acted(client, table.campaign, player, table.ada, helpers=3)
    assert entry["result"]["pool"]["states"] == -malus
    assert entry["result"]["pool"]["pool"] == 8 - malus
    assert len(entry["draws"]) == 8 - malus


# --- FAB-4: alternate attributes -----------------------------------------------------------


@pytest.mark.parametrize(
    ("attribute", "skill"),
    [
        ("physique", "resistance"),
        ("intellect", "resistance"),
        ("empathie", "resistance"),
        ("habilete", "bricolage"),
        ("intellect", "bricolage"),
        ("empathie", "observation"),
        ("intellect", "mentir_convaincre"),
        ("physique", "mentir_convaincre"),
        ("intellect", "soin"),
        ("empathie", "soin"),
        ("habilete", "tir"),
    ],
)
def test_FAB_4_allowed_attribute_pairs(client, table, player, forced_dice, attribute, skill):
    sheet_skill = BASE_SHEET["skills"].get(skill, 0)
    forced_dice.push(*[2] * (3 + sheet_skill))
    entry = acted(client, table.campaign, player, table.ada, attribute, skill)
    assert entry["result"]["pool"]["pool"] == 3 + sheet_skill


@pytest.mark.parametrize(
    ("attribute", "skill"),
    [
        ("physique", "observation"),
        ("habilete", "combat"),
        ("empathie", "tir"),
        ("physique", "soin"),
        ("habilete", "resistance"),
        ("empathie", "bricolage"),
        ("habilete", "mentir_convaincre"),
        ("intellect", "athletisme"),
    ],
)
def test_FAB_4_other_pairs_are_refused(client, table, gm, player, attribute, skill):
    with unchanged(client, gm, table.campaign, table.ada):
        response = act(client, table.campaign, player, table.ada, attribute, skill)
        body = assert_refused(response, "FAB-4", 422)
    assert skill in body["detail"]


# --- FAB-90: talents -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("attribute", "skill", "bonus"),
    [("intellect", "observation", 1), ("empathie", "observation", 1), ("physique", "combat", 0)],
)
def test_FAB_90_sharp_eye_adds_a_die_to_observation(
    client, table, gm, player, forced_dice, attribute, skill, bonus
):
    gm_patch(client, gm, table.ada, {"talents": ["sharp_eye"]})
    forced_dice.push(*[2] * (5 + bonus))
    entry = acted(client, table.campaign, player, table.ada, attribute, skill)
    pool = entry["result"]["pool"]
    assert pool["talents"] == bonus and pool["pool"] == 5 + bonus
    assert pool["talent_dice"] == ([{"talent": "sharp_eye", "dice": 1}] if bonus else [])


def test_FAB_90_without_sharp_eye_no_bonus(client, table, player, forced_dice):
    forced_dice.push(2, 2, 2, 2, 2)
    entry = acted(client, table.campaign, player, table.ada, "intellect", "observation")
    assert entry["result"]["pool"]["talents"] == 0


def test_FAB_90_tinkerer_only_on_bricolage(client, table, gm, player, forced_dice):
    gm_patch(client, gm, table.ada, {"talents": ["tinkerer"], "skills": {"bricolage": 1}})
    forced_dice.push(2, 2, 2, 2, 2, 2)
    entry = acted(
        client, table.campaign, player, table.ada, "intellect", "bricolage", talents=["tinkerer"]
    )
    pool = entry["result"]["pool"]
    assert pool["talent_dice"] == [{"talent": "tinkerer", "dice": 2}] and pool["pool"] == 6
    with unchanged(client, gm, table.campaign, table.ada):
        response = act(client, table.campaign, player, table.ada, talents=["tinkerer"])
        assert_problem(response, 422, "bricolage")


def test_FAB_90_an_invoked_talent_must_be_on_the_sheet(client, table, gm, player):
    with unchanged(client, gm, table.campaign, table.ada):
        response = act(
            client,
            table.campaign,
            player,
            table.ada,
            "intellect",
            "bricolage",
            talents=["tinkerer"],
        )
        assert_problem(response, 422, "not on the sheet")


def test_FAB_90_expert_once_per_session(client, table, gm, player, forced_dice):
    new_session(client, table.campaign, gm)
    gm_patch(client, gm, table.ada, {"talents": ["expert"], "skills": {"connaissance": 1}})
    forced_dice.push(2, 2, 2, 2, 2)
    args = ("intellect", "connaissance")
    entry = acted(client, table.campaign, player, table.ada, *args, talents=["expert"])
    assert entry["result"]["pool"]["talent_dice"] == [{"talent": "expert", "dice": 1}]
    assert entry["result"]["pool"]["pool"] == 5
    assert entry["effects"] == [effect(table.ada, "expert_session", None, 1, "FAB-90")]
    with unchanged(client, gm, table.campaign, table.ada):
        response = act(client, table.campaign, player, table.ada, *args, talents=["expert"])
        assert_refused(response, "FAB-90")
    # Without invoking it the roll goes on, with no bonus.
    forced_dice.push(2, 2, 2, 2)
    assert acted(client, table.campaign, player, table.ada, *args)["result"]["pool"]["pool"] == 4
    new_session(client, table.campaign, gm)
    forced_dice.push(2, 2, 2, 2, 2)
    entry = acted(client, table.campaign, player, table.ada, *args, talents=["expert"])
    assert entry["effects"] == [effect(table.ada, "expert_session", 1, 2, "FAB-90")]


@pytest.mark.parametrize(
    ("medic", "dice", "cleared"),
    [
        (True, [6, 2, 2, 2, 2], 2),
        (True, [6, 6, 2, 2, 2], 3),
        (False, [6, 6, 2, 2, 2], 1),
    ],
)
def test_FAB_90_medic_clears_two_states_three_with_a_feat(
    client, table, gm, other_player, forced_dice, medic, dice, cleared
):
    if medic:
        gm_patch(client, gm, table.bram, {"talents": ["medic"]})
    states = ["meurtri", "blesse", "physical_extra"]
    gm_patch(
        client,
        gm,
        table.ada,
        {"talents": ["extra_box"], "extra_box_track": "physical", "states": states},
    )
    forced_dice.push(*dice)
    body = recover_body(table.ada, "care", healer_id=table.bram["id"], track="physical")
    entry = rolled(client, table.campaign, other_player, body)
    assert len(entry["result"]["cleared"]) == cleared
    left = sheet_of(client, gm, table.ada)["states"]
    assert len(left) == 3 - cleared
    assert set(left) | set(entry["result"]["cleared"]) == set(states)


def test_FAB_90_cool_head_lowers_the_panic_score(client, table, gm, forced_dice):
    gm_patch(client, gm, table.carl, {"stress": 5})
    forced_dice.push(4)
    body = {"kind": "fabulae.panic", "character_id": table.carl["id"]}
    result = rolled(client, table.campaign, gm, body)["result"]
    assert result["cool_head"] == -2 and result["score"] == 7 and result["code"] == "jolt"


# --- authorization ---------------------------------------------------------------------------


def test_a_player_acts_only_for_their_own_character(client, table, gm, player, forced_dice):
    bram, ada = table.bram, table.ada
    refused = [
        action_body(bram),
        opposed_body(bram, ada),
        {"kind": "fabulae.stress_resist", "character_id": bram["id"]},
        {"kind": "fabulae.panic", "character_id": bram["id"]},
        recover_body(bram, "rest", duration="quart"),
        recover_body(ada, "care", healer_id=bram["id"], track="physical"),
        {"kind": "fabulae.stress", "character_ids": [ada["id"]], "amount": 1},
        {"kind": "fabulae.destiny_award", "character_id": ada["id"]},
    ]
    with unchanged(client, gm, table.campaign, ada, bram):
        for body in refused:
            assert_problem(post_roll(client, table.campaign, player, body), 403)
    forced_dice.push(2, 2, 2, 2, 2)
    action = acted(client, table.campaign, gm, bram)  # the GM acts for anyone
    with unchanged(client, gm, table.campaign, ada, bram):
        assert_problem(follow(client, table.campaign, player, "fabulae.push", action["seq"]), 403)
