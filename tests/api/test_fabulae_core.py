"""Fabulae Tenebris core rolls through the API (FAB-1..44, FAB-80..82, FAB-90).

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
    STRUCTURAL,
    assert_refused,
    assert_verified,
    effect,
    gm_patch,
    last_seq,
    log_entries,
    new_session,
    post_roll,
    rolled,
    sheet_of,
    url,
    verified_offline,
)
from tests.conftest import API, FABULAE_SHEET, assert_problem

FAB = "fabulae-tenebris"
# A valid starting sheet whose talent changes none of the rolls tested here.
BASE_SHEET: dict[str, Any] = {**FABULAE_SHEET, "talents": ["beast_friend"]}
ALL_KINDS = {
    "fabulae.action",
    "fabulae.opposed",
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


def recover_body(patient, mode: str, **extra: Any) -> dict[str, Any]:
    return {"kind": "fabulae.recover", "character_id": patient["id"], "mode": mode, **extra}


def get_entry(client, campaign, gm, seq: int) -> dict[str, Any]:
    response = client.get(url(campaign, f"/rolls/{seq}"), headers=gm.headers)
    assert response.status_code == 200, response.text
    return response.json()


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
    campaign = make_campaign(FAB, players=(player, other_player))
    ada = make_character(campaign, player, sheet=BASE_SHEET, name="Ada")
    bram = make_character(campaign, other_player, sheet=BASE_SHEET, name="Bram")
    carl = make_character(campaign, gm, sheet=FABULAE_SHEET, kind="npc", name="Carl")
    return Table(campaign, ada, bram, carl)


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
    assert choice["effects"] == [effect(table.ada, "states", [], ["apeure"], "FAB-32")]
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
    forced_dice.push(2, 2, 2, 2, 2, 6, 2, 2, 2, 2)
    opposed = rolled(client, table.campaign, player, opposed_body(table.ada, table.bram))
    with unchanged(client, gm, table.campaign, table.ada, table.bram):
        response = follow(client, table.campaign, other_player, "fabulae.push", opposed["seq"])
        assert_problem(response, 403)
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
    assert absorb["effects"] == [effect(table.ada, "destiny", 2, 1, "FAB-34")]
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
    client, table, player, forced_dice, active, passive, net, feats, winner, outcome
):
    forced_dice.push(*active, *passive)
    entry = rolled(client, table.campaign, player, opposed_body(table.ada, table.bram))
    assert entry["kind"] == "fabulae.opposed" and entry["character_id"] == table.ada["id"]
    result = entry["result"]
    assert result["active"]["dice"] == active and result["passive"]["dice"] == passive
    assert (result["net"], result["feats"], result["winner"], result["outcome"]) == (
        net,
        feats,
        winner,
        outcome,
    )


def test_FAB_36_each_side_rolls_its_own_pool(client, table, gm, player, forced_dice):
    gm_patch(client, gm, table.bram, {"states": ["meurtri"], "stress": 1})
    forced_dice.push(2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3)
    body = opposed_body(table.ada, table.bram, active={"helpers": 2}, passive={"helpers": 1})
    entry = rolled(client, table.campaign, player, body)
    assert entry["result"]["active"]["pool"]["pool"] == 7
    assert entry["result"]["passive"]["pool"]["pool"] == 5
    assert entry["result"]["passive"]["stress_dice"] == [3]


def test_FAB_37_push_recomputes_the_net(client, table, gm, player, forced_dice):
    forced_dice.push(6, 2, 2, 2, 2, 6, 6, 3, 3, 3)
    opposed = rolled(client, table.campaign, player, opposed_body(table.ada, table.bram))
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


# --- FAB-40..44: stress and panic -----------------------------------------------------------


def test_FAB_40_41_gm_gives_stress_and_cool_head_takes_one_off(
    client, table, gm, player, forced_dice
):
    body = {
        "kind": "fabulae.stress",
        "character_ids": [table.ada["id"], table.carl["id"]],
        "amount": 2,
        "reason": "a companion dies",
    }
    entry = rolled(client, table.campaign, gm, body)
    assert entry["draws"] == []
    assert entry["result"]["gains"] == [
        {"character_id": table.ada["id"], "gain": 2},
        {"character_id": table.carl["id"], "gain": 1},
    ]
    assert entry["effects"] == [
        effect(table.ada, "stress", 0, 2, "FAB-41"),
        effect(table.carl, "stress", 0, 1, "FAB-41"),
    ]
    body = {"kind": "fabulae.stress", "character_ids": [table.carl["id"]], "amount": 1}
    entry = rolled(client, table.campaign, gm, body)
    assert entry["result"]["gains"] == [{"character_id": table.carl["id"], "gain": 0}]
    assert entry["effects"] == []
    assert sheet_of(client, gm, table.carl)["stress"] == 1
    # FAB-40: each point adds a stress die to every later action roll.
    forced_dice.push(2, 2, 2, 2, 2, 3, 3)
    action = acted(client, table.campaign, player, table.ada)
    assert action["result"]["pool"]["stress_dice"] == 2 and len(action["draws"]) == 7


@pytest.mark.parametrize(
    "body",
    [
        {"amount": 0},
        {"amount": 11},
        {"amount": 1, "character_ids": []},
    ],
)
def test_FAB_41_bad_stress_amounts_are_422(client, table, gm, body):
    request = {"kind": "fabulae.stress", "character_ids": [table.ada["id"]], **body}
    with unchanged(client, gm, table.campaign, table.ada):
        assert_problem(post_roll(client, table.campaign, gm, request), 422)


def test_FAB_41_a_character_listed_twice_is_422(client, table, gm):
    body = {"kind": "fabulae.stress", "character_ids": [table.ada["id"]] * 2, "amount": 1}
    with unchanged(client, gm, table.campaign, table.ada):
        assert_problem(post_roll(client, table.campaign, gm, body), 422, "twice")


def test_FAB_42_a_stress_one_is_panic(client, table, gm, player, forced_dice):
    gm_patch(client, gm, table.ada, {"stress": 1})
    forced_dice.push(6, 6, 2, 2, 2, 1, 4)
    action = acted(client, table.campaign, player, table.ada)
    result = action["result"]
    assert result["stress_dice"] == [1] and result["panic"] is True
    assert result["outcome"] == "panic" and result["label"] == "Panique"
    assert result["feats"] == 0  # interrupted: it fails at once, sixes or not
    assert len(action["draws"]) == 6
    (panic,) = action["triggered"]
    assert panic["kind"] == "fabulae.panic" and panic["follows"] == action["seq"]
    assert panic["seq"] == action["seq"] + 1 and panic["character_id"] == table.ada["id"]
    assert faces(panic) == [4]
    assert panic["result"]["die"] == 4 and panic["result"]["stress"] == 1
    assert panic["result"]["score"] == 5 and panic["result"]["code"] == "cool"
    entries = log_entries(client, table.campaign, gm)
    assert [e["seq"] for e in entries[-2:]] == [action["seq"], panic["seq"]]
    assert entries[-1]["kind"] == "fabulae.panic" and entries[-1]["follows"] == action["seq"]
    with unchanged(client, gm, table.campaign, table.ada):
        response = follow(client, table.campaign, player, "fabulae.push", action["seq"])
        assert_refused(response, "FAB-42")


def test_FAB_42_a_push_that_rolls_a_stress_one_panics(client, table, gm, player, forced_dice):
    gm_patch(client, gm, table.ada, {"stress": 1})
    forced_dice.push(2, 2, 2, 2, 2, 3)
    action = acted(client, table.campaign, player, table.ada)
    assert action["result"]["outcome"] == "failure" and action["triggered"] == []
    forced_dice.push(6, 2, 2, 2, 2, 1, 6)
    push = followed(client, table.campaign, player, "fabulae.push", action["seq"])
    assert push["result"]["stress_dice"] == [1] and push["result"]["outcome"] == "panic"
    (panic,) = push["triggered"]
    assert panic["follows"] == push["seq"] and panic["result"]["score"] == 7
    assert panic["result"]["code"] == "jolt"


def test_FAB_42_a_panicking_defender_scores_no_six(client, table, gm, player, forced_dice):
    gm_patch(client, gm, table.bram, {"stress": 1})
    forced_dice.push(6, 2, 2, 2, 2, 6, 6, 2, 2, 2, 1, 2)
    entry = rolled(client, table.campaign, player, opposed_body(table.ada, table.bram))
    assert entry["result"]["passive"]["outcome"] == "panic"
    assert entry["result"]["winner"] == "active" and entry["result"]["net"] == 1
    (panic,) = entry["triggered"]
    assert panic["character_id"] == table.bram["id"] and panic["follows"] == entry["seq"]
    assert panic["result"]["score"] == 3


def test_FAB_43_stress_resist_lowers_stress_by_sixes(client, table, gm, player, forced_dice):
    gm_patch(client, gm, table.ada, {"stress": 3})
    forced_dice.push(6, 6, 2, 2, 2, 2, 3, 4)
    body = {"kind": "fabulae.stress_resist", "character_id": table.ada["id"]}
    entry = rolled(client, table.campaign, player, body)
    assert entry["request"]["roll"]["skill"] == "resistance"
    assert entry["result"]["pool"]["pool"] == 5 and len(entry["draws"]) == 8
    assert entry["result"]["stress_lowered"] == 2
    assert entry["effects"] == [effect(table.ada, "stress", 3, 1, "FAB-43")]
    assert sheet_of(client, gm, table.ada)["stress"] == 1
    # It may be retried; stress never goes below 0.
    forced_dice.push(6, 6, 6, 2, 2, 5)
    entry = rolled(client, table.campaign, player, body)
    assert entry["effects"] == [effect(table.ada, "stress", 1, 0, "FAB-43")]


@pytest.mark.parametrize(
    ("stress", "first", "pushed", "lowered", "after"),
    [
        (2, [2, 2, 2, 2, 2, 3, 4], [6, 6, 2, 2, 2, 3, 3], 2, 0),
        (3, [6, 2, 2, 2, 2, 2, 2, 2], [6, 2, 2, 2, 2, 2, 2], 2, 1),
    ],
)
def test_FAB_31_43_a_pushed_stress_resist_lowers_stress_by_its_new_sixes(
    client, table, gm, player, forced_dice, stress, first, pushed, lowered, after
):
    gm_patch(client, gm, table.ada, {"stress": stress})
    forced_dice.push(*first)
    body = {"kind": "fabulae.stress_resist", "character_id": table.ada["id"]}
    entry = rolled(client, table.campaign, player, body)
    forced_dice.push(*pushed)
    push = followed(client, table.campaign, player, "fabulae.push", entry["seq"])
    assert push["result"]["stress_lowered"] == lowered
    sheet = sheet_of(client, gm, table.ada)
    assert sheet["stress"] == after and sheet["destiny"] == 2


def test_FAB_43_stress_resist_with_another_attribute(client, table, gm, player, forced_dice):
    gm_patch(client, gm, table.ada, {"stress": 1, "attributes": {"intellect": 4}})
    forced_dice.push(2, 2, 2, 2, 2, 2, 3)
    body = {"kind": "fabulae.stress_resist", "character_id": table.ada["id"]}
    entry = rolled(client, table.campaign, player, {**body, "attribute": "intellect"})
    assert entry["result"]["pool"]["attribute"] == 4 and entry["result"]["pool"]["pool"] == 6
    assert entry["result"]["outcome"] == "failure" and entry["effects"] == []
    assert sheet_of(client, gm, table.ada)["stress"] == 1
    with unchanged(client, gm, table.campaign, table.ada):
        response = post_roll(client, table.campaign, player, {**body, "attribute": "habilete"})
        assert_problem(response, 422)


@pytest.mark.parametrize(
    ("stress", "die", "modifier", "score", "code"),
    [
        (0, 1, 0, 1, "cool"),
        (0, 6, 0, 6, "cool"),
        (1, 6, 0, 7, "jolt"),
        (2, 6, 0, 8, "tremors"),
        (3, 6, 0, 9, "drop"),
        (4, 6, 0, 10, "frozen"),
        (5, 6, 0, 11, "take_cover"),
        (6, 6, 0, 12, "scream"),
        (7, 6, 0, 13, "flee"),
        (8, 6, 0, 14, "berserk"),
        (9, 6, 0, 15, "catatonia"),
        (20, 6, 0, 26, "catatonia"),
        (2, 2, 3, 7, "jolt"),
        (5, 3, -3, 5, "cool"),
    ],
)
def test_FAB_44_panic_table(
    client, table, gm, player, forced_dice, stress, die, modifier, score, code
):
    gm_patch(client, gm, table.ada, {"stress": stress})
    forced_dice.push(die)
    body = {"kind": "fabulae.panic", "character_id": table.ada["id"], "modifier": modifier}
    entry = rolled(client, table.campaign, player, body)
    result = entry["result"]
    assert faces(entry) == [die]
    assert (result["die"], result["stress"], result["cool_head"]) == (die, stress, 0)
    assert (result["score"], result["code"]) == (score, code)


def test_FAB_44_jolt_adds_stress_to_you_and_your_allies(client, table, gm, player, forced_dice):
    gm_patch(client, gm, table.ada, {"stress": 4})
    forced_dice.push(3)
    body = {
        "kind": "fabulae.panic",
        "character_id": table.ada["id"],
        "allies": [table.bram["id"], table.carl["id"]],
    }
    entry = rolled(client, table.campaign, player, body)
    assert entry["result"]["code"] == "jolt"
    assert entry["effects"] == [
        effect(table.ada, "stress", 4, 5, "FAB-44"),
        effect(table.bram, "stress", 0, 1, "FAB-44"),
    ]  # Carl's cool_head takes the external gain off (FAB-41)
    assert sheet_of(client, gm, table.ada)["stress"] == 5
    assert sheet_of(client, gm, table.bram)["stress"] == 1
    assert sheet_of(client, gm, table.carl)["stress"] == 0


def test_FAB_44_take_cover_calms_you_and_stresses_allies(client, table, gm, player, forced_dice):
    gm_patch(client, gm, table.ada, {"stress": 5})
    forced_dice.push(6)
    body = {"kind": "fabulae.panic", "character_id": table.ada["id"], "allies": [table.bram["id"]]}
    entry = rolled(client, table.campaign, player, body)
    assert entry["result"]["code"] == "take_cover"
    assert entry["result"]["condition"] == {"character_id": table.ada["id"], "code": "take_cover"}
    assert entry["effects"] == [
        effect(table.ada, "stress", 5, 4, "FAB-44"),
        effect(table.bram, "stress", 0, 1, "FAB-44"),
    ]


def test_FAB_44_scream_makes_allies_roll_panic(
    client, table, gm, player, other_player, forced_dice
):
    gm_patch(client, gm, table.ada, {"stress": 6})
    forced_dice.push(6)
    body = {"kind": "fabulae.panic", "character_id": table.ada["id"], "allies": [table.bram["id"]]}
    entry = rolled(client, table.campaign, player, body)
    assert entry["result"]["code"] == "scream"
    assert entry["result"]["must_roll_panic"] == [table.bram["id"]]
    assert entry["effects"] == [effect(table.ada, "stress", 6, 5, "FAB-44")]
    assert sheet_of(client, gm, table.bram)["stress"] == 0
    forced_dice.push(2)
    bram = {"kind": "fabulae.panic", "character_id": table.bram["id"]}
    assert rolled(client, table.campaign, other_player, bram)["result"]["code"] == "cool"


def test_FAB_44_the_panicking_character_is_not_their_own_ally(client, table, gm, player):
    body = {"kind": "fabulae.panic", "character_id": table.ada["id"], "allies": [table.ada["id"]]}
    with unchanged(client, gm, table.campaign, table.ada):
        assert_problem(post_roll(client, table.campaign, player, body), 422)


# --- FAB-80..82: recovery --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("duration", "cleared", "left"),
    [
        ("quart", ["epuise"], ["enerve", "meurtri"]),
        ("tour", ["enerve"], ["epuise", "meurtri"]),
        ("night", ["epuise", "enerve"], ["meurtri"]),
    ],
)
def test_FAB_80_rest_clears_epuise_and_enerve(client, table, gm, player, duration, cleared, left):
    gm_patch(client, gm, table.ada, {"states": ["epuise", "enerve", "meurtri"]})
    body = recover_body(table.ada, "rest", duration=duration)
    entry = rolled(client, table.campaign, player, body)
    assert entry["draws"] == [] and entry["result"]["cleared"] == cleared
    assert entry["effects"] == [
        effect(table.ada, "states", ["epuise", "enerve", "meurtri"], left, "FAB-80")
    ]
    assert sheet_of(client, gm, table.ada)["states"] == left


def test_FAB_80_rest_needs_a_duration(client, table, gm, player):
    with unchanged(client, gm, table.campaign, table.ada):
        assert_problem(
            post_roll(client, table.campaign, player, recover_body(table.ada, "rest")),
            422,
            "duration",
        )


@pytest.mark.parametrize(
    ("track", "states", "pool", "left"),
    [
        ("physical", ["epuise", "meurtri", "blesse"], 6, ["epuise", "meurtri"]),
        ("mental", ["enerve", "apeure", "demoralise"], 4, ["enerve", "apeure"]),
    ],
)
def test_FAB_80_ally_care_uses_intellect_for_the_body_and_empathie_for_the_mind(
    client, table, gm, other_player, forced_dice, track, states, pool, left
):
    gm_patch(client, gm, table.bram, {"attributes": {"intellect": 4, "empathie": 2}})
    gm_patch(client, gm, table.ada, {"states": states})
    forced_dice.push(6, *[2] * (pool - 1))
    body = recover_body(table.ada, "care", healer_id=table.bram["id"], track=track)
    entry = rolled(client, table.campaign, other_player, body)
    assert entry["character_id"] == table.bram["id"]
    result = entry["result"]
    assert result["pool"]["attribute"] == (4 if track == "physical" else 2)
    assert result["pool"]["skill"] == 2 and result["pool"]["pool"] == pool
    assert result["self_care"] is False and len(result["cleared"]) == 1
    assert entry["effects"] == [effect(table.ada, "states", states, left, "FAB-80")]
    assert sheet_of(client, gm, table.ada)["states"] == left


def test_FAB_80_self_care_costs_two_dice(client, table, gm, player, forced_dice):
    gm_patch(client, gm, table.ada, {"states": ["meurtri"]})
    forced_dice.push(6, 2)
    body = recover_body(table.ada, "care", healer_id=table.ada["id"], track="physical")
    entry = rolled(client, table.campaign, player, body)
    pool = entry["result"]["pool"]
    assert {"source": "self-treatment", "dice": -2} in pool["modifier_dice"]
    assert pool["modifiers"] == -2 and pool["states"] == -1 and pool["pool"] == 2
    assert entry["result"]["self_care"] is True and entry["result"]["cleared"] == ["meurtri"]
    assert sheet_of(client, gm, table.ada)["states"] == []


def test_FAB_80_soin_does_not_clear_what_rest_clears(client, table, gm, other_player, forced_dice):
    gm_patch(client, gm, table.ada, {"states": ["epuise", "enerve"]})
    forced_dice.push(6, 6, 2, 2, 2)
    body = recover_body(table.ada, "care", healer_id=table.bram["id"], track="physical")
    entry = rolled(client, table.campaign, other_player, body)
    assert entry["result"]["cleared"] == [] and entry["effects"] == []
    assert sheet_of(client, gm, table.ada)["states"] == ["epuise", "enerve"]


def test_FAB_80_failed_care_clears_nothing(client, table, gm, other_player, forced_dice):
    gm_patch(client, gm, table.ada, {"states": ["meurtri"]})
    forced_dice.push(2, 3, 4, 5, 1)
    body = recover_body(table.ada, "care", healer_id=table.bram["id"], track="physical")
    entry = rolled(client, table.campaign, other_player, body)
    assert entry["result"]["outcome"] == "failure" and entry["effects"] == []
    assert sheet_of(client, gm, table.ada)["states"] == ["meurtri"]


def test_FAB_80_care_needs_a_healer_and_a_track(client, table, gm, player):
    with unchanged(client, gm, table.campaign, table.ada):
        for extra in ({"track": "physical"}, {"healer_id": table.ada["id"]}):
            response = post_roll(
                client, table.campaign, player, recover_body(table.ada, "care", **extra)
            )
            assert_problem(response, 422)


BROKEN = {"broken": True, "broken_track": "physical", "states": ["epuise", "meurtri", "blesse"]}
SPRAIN = [{"kind": "physical", "code": "sprain", "duration": "3 quarts"}]


@pytest.mark.parametrize(("dice", "cleared"), [([6, 2, 2, 2, 2], 1), ([6, 6, 2, 2, 2], 2)])
def test_FAB_81_ally_care_brings_a_broken_character_back(
    client, table, gm, other_player, forced_dice, dice, cleared
):
    sequelae = gm_patch(client, gm, table.ada, {**BROKEN, "sequelae": SPRAIN})["sequelae"]
    assert [s["code"] for s in sequelae] == ["sprain"]
    forced_dice.push(*dice)
    body = recover_body(table.ada, "care", healer_id=table.bram["id"], track="physical")
    entry = rolled(client, table.campaign, other_player, body)
    assert len(entry["result"]["cleared"]) == cleared
    assert {e["rule"] for e in entry["effects"]} == {"FAB-81"}
    sheet = sheet_of(client, gm, table.ada)
    assert len(sheet["states"]) == 3 - cleared and "epuise" in sheet["states"]
    assert sheet["broken"] is False and sheet.get("broken_track") is None
    assert sheet["sequelae"] == sequelae  # leaving Broken does not cancel sequelae


def test_FAB_81_broken_character_alone_rolls_resistance(client, table, gm, player, forced_dice):
    gm_patch(client, gm, table.ada, BROKEN)
    forced_dice.push(6, 2, 2)  # physique 3 + resistance 2 - meurtri - blesse
    entry = rolled(client, table.campaign, player, recover_body(table.ada, "broken_resistance"))
    assert entry["result"]["pool"]["pool"] == 3 and len(entry["result"]["cleared"]) == 1
    sheet = sheet_of(client, gm, table.ada)
    assert sheet["broken"] is False and len(sheet["states"]) == 2


def test_FAB_81_broken_resistance_needs_a_broken_character(client, table, gm, player):
    with unchanged(client, gm, table.campaign, table.ada):
        response = post_roll(
            client, table.campaign, player, recover_body(table.ada, "broken_resistance")
        )
        assert_refused(response, "FAB-81")


@pytest.mark.parametrize(
    ("pp", "pp_max", "duration", "after"),
    [
        (0, 3, "quart", 1),
        (0, 3, "night", 2),
        (2, 3, "night", 3),
        (3, 3, "quart", 3),
        (1, 3, "tour", 1),
    ],
)
def test_FAB_82_power_points_recover_up_to_pp_max(
    client, table, gm, player, pp, pp_max, duration, after
):
    gm_patch(client, gm, table.ada, {"pp_max": pp_max, "pp": pp})
    entry = rolled(
        client, table.campaign, player, recover_body(table.ada, "rest", duration=duration)
    )
    assert entry["result"]["pp_gained"] == after - pp
    pp_effects = [e for e in entry["effects"] if e["field"] == "pp"]
    if after == pp:
        assert pp_effects == []
    else:
        assert pp_effects == [effect(table.ada, "pp", pp, after, "FAB-82")]
    assert sheet_of(client, gm, table.ada)["pp"] == after


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


# --- replay ----------------------------------------------------------------------------------


def test_every_fabulae_entry_kind_replays_and_verifies_offline(
    client, table, gm, player, other_player, forced_dice, tmp_path
):
    campaign, ada, bram = table.campaign, table.ada, table.bram
    award = {"kind": "fabulae.destiny_award", "character_id": ada["id"], "reason": "bravery"}
    rolled(client, campaign, gm, award)  # destiny 4
    forced_dice.push(2, 2, 2, 2, 1)
    first = acted(client, campaign, player, ada)
    forced_dice.push(1, 3, 3, 3)
    push = followed(client, campaign, player, "fabulae.push", first["seq"])  # destiny 3
    followed(client, campaign, player, "fabulae.state_choice", push["seq"], state="epuise")
    forced_dice.push(1, 2, 2, 2, 2)
    second = acted(client, campaign, player, ada)
    forced_dice.push(2, 2, 2, 2)
    push = followed(client, campaign, player, "fabulae.push", second["seq"])  # destiny 2
    followed(client, campaign, player, "fabulae.absorb", push["seq"])  # destiny 1
    forced_dice.push(6, 6, 2, 2, 2, 6, 2, 2, 2, 2)
    opposed = rolled(client, campaign, player, opposed_body(ada, bram))
    forced_dice.push(6, 6, 6)
    followed(client, campaign, player, "fabulae.push", opposed["seq"])  # destiny 0
    impossible = act(client, campaign, player, ada, modifiers=[{"source": "chains", "dice": -6}])
    assert_refused(impossible, "FAB-14")
    stress = {"kind": "fabulae.stress", "character_ids": [ada["id"], bram["id"]], "amount": 2}
    rolled(client, campaign, gm, stress)
    forced_dice.push(6, 2, 2, 2, 2, 3, 4)
    resist = {"kind": "fabulae.stress_resist", "character_id": ada["id"]}
    assert rolled(client, campaign, player, resist)["result"]["stress_lowered"] == 1
    forced_dice.push(2, 2, 2, 2, 2, 1, 3)
    panicked = acted(client, campaign, player, ada)
    assert [t["kind"] for t in panicked["triggered"]] == ["fabulae.panic"]
    forced_dice.push(5)
    panic = {"kind": "fabulae.panic", "character_id": bram["id"], "allies": [ada["id"]]}
    assert rolled(client, campaign, other_player, panic)["result"]["code"] == "jolt"
    rolled(client, campaign, player, recover_body(ada, "rest", duration="quart"))
    gm_patch(client, gm, ada, {"states": ["meurtri"]})
    forced_dice.push(6, 2, 2, 2, 2, 3, 3, 3)  # Bram now has 3 stress dice
    care = recover_body(ada, "care", healer_id=bram["id"], track="physical")
    assert rolled(client, campaign, other_player, care)["result"]["cleared"] == ["meurtri"]

    entries = log_entries(client, campaign, gm)
    assert {e["kind"] for e in entries} - STRUCTURAL == ALL_KINDS
    assert any(e["result"].get("outcome") == "impossible" for e in entries)
    report = assert_verified(client, campaign, gm)
    assert report["replayed"] == 17 and report["rederived"] == 0

    summary = verified_offline(client, campaign, gm, tmp_path)
    assert summary.startswith(f"OK: {len(entries)} entries checked, 0 re-derived, 17 replayed")


def test_fabulae_draws_are_rederived_after_rotation(client, table, gm, player, other_player):
    campaign, ada, bram = table.campaign, table.ada, table.bram
    acted(client, campaign, player, ada)
    rolled(client, campaign, player, opposed_body(ada, bram))
    rolled(client, campaign, player, {"kind": "fabulae.stress_resist", "character_id": ada["id"]})
    rolled(client, campaign, other_player, {"kind": "fabulae.panic", "character_id": bram["id"]})
    care = recover_body(ada, "care", healer_id=bram["id"], track="physical")
    rolled(client, campaign, other_player, care)
    rolled(client, campaign, player, recover_body(ada, "rest", duration="night"))
    with_draws = [e for e in log_entries(client, campaign, gm) if e.get("draws")]
    assert len(with_draws) == 5
    assert client.post(url(campaign, "/fairness/rotate"), headers=gm.headers).status_code == 201
    report = assert_verified(client, campaign, gm)
    assert report["rederived"] == 5 and report["replayed"] == 6
