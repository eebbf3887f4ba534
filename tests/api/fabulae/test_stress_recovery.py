"""Fabulae stress and panic (FAB-40..44) and recovery (FAB-80..82) through the API, and every
core kind replayed offline."""

from __future__ import annotations

import pytest

from tests.api.fabulae.core import (
    ALL_KINDS,
    act,
    acted,
    answered_opposed,
    faces,
    follow,
    followed,
    opposed_body,
    recover_body,
    unchanged,
)
from tests.api.fabulae.core import table as core_table
from tests.api.helpers import (
    STRUCTURAL,
    assert_refused,
    assert_verified,
    effect,
    gm_patch,
    log_entries,
    post_roll,
    rolled,
    sheet_of,
    url,
    verified_offline,
)
from tests.conftest import assert_problem

table = core_table  # the fixture that sets the table of every test here

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


def test_FAIR_21_FAB_42_the_panic_of_a_blind_action_is_rolled_when_the_gm_applies_it(
    client, table, gm, player, forced_dice
):
    # Logged at once, even redacted, a `fabulae.panic` right after a blind roll would tell
    # everyone a stress die showed 1: it is rolled when the GM applies the roll.
    gm_patch(client, gm, table.ada, {"stress": 1})
    forced_dice.push(6, 6, 2, 2, 2, 1)
    action = acted(client, table.campaign, player, table.ada, visibility="blind")
    assert action["redacted"] is True  # the roller learns a roll happened, not its outcome
    (blind,) = [e for e in log_entries(client, table.campaign, gm) if e["seq"] == action["seq"]]
    assert blind["result"]["panic"] is True and blind["effects_held"] is True
    assert log_entries(client, table.campaign, player)[-1]["seq"] == action["seq"]
    # The GM applies it: its changes, then the panic, blind too and the roller's.
    forced_dice.push(4)
    apply = url(table.campaign, f"/log/{action['seq']}/apply")
    response = client.post(apply, headers=gm.headers)
    assert response.status_code == 201, response.text
    applied = response.json()
    (panic,) = applied["triggered"]
    assert panic["kind"] == "fabulae.panic" and panic["visibility"] == "blind"
    assert panic["follows"] == action["seq"] and panic["actor_id"] == player.id
    assert panic["result"]["score"] == 4 + 1 and panic["result"]["code"] == "cool"
    seen = log_entries(client, table.campaign, player)[-1]
    assert seen["seq"] == panic["seq"] and seen["redacted"] is True


def test_FAIR_21_FAB_42_an_npcs_panic_in_a_gm_roll_waits_for_the_gm_too(
    client, table, gm, player, forced_dice
):
    gm_patch(client, gm, table.carl, {"stress": 1})
    forced_dice.push(2, 2, 2, 2, 2, 1)
    body = {
        "kind": "fabulae.action",
        "character_id": table.carl["id"],
        "attribute": "physique",
        "skill": "combat",
        "visibility": "gm",
    }
    action = rolled(client, table.campaign, gm, body)
    assert action["effects_held"] is True and action["triggered"] == []
    assert [e["kind"] for e in log_entries(client, table.campaign, player)][-1] == body["kind"]
    # Waiting on no player's sheet, it holds nobody up.
    forced_dice.push(2, 2, 2, 2, 2)
    ada_roll = {"kind": "fabulae.stress_resist", "character_id": table.ada["id"]}
    assert post_roll(client, table.campaign, player, ada_roll).status_code == 201
    forced_dice.push(3)
    response = client.post(url(table.campaign, f"/log/{action['seq']}/apply"), headers=gm.headers)
    assert response.status_code == 201, response.text
    (panic,) = response.json()["triggered"]
    assert panic["kind"] == "fabulae.panic" and panic["visibility"] == "gm"


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


def test_FAB_42_a_panicking_defender_scores_no_six(
    client, table, gm, player, other_player, forced_dice
):
    gm_patch(client, gm, table.bram, {"stress": 1})
    body = opposed_body(table.ada, table.bram)
    forced_dice.push(6, 2, 2, 2, 2, 6, 6, 2, 2, 2, 1, 2)
    entry = answered_opposed(client, table.campaign, player, body, other_player)
    assert entry["result"]["passive"]["outcome"] == "panic"
    assert entry["result"]["winner"] == "active" and entry["result"]["net"] == 1
    (panic,) = entry["triggered"]
    assert panic["character_id"] == table.bram["id"] and panic["follows"] == entry["seq"]
    assert panic["result"]["score"] == 3


def test_FAB_42_FAIR_10_a_panic_is_filed_as_the_entry_that_set_it_off(
    client, table, gm, player, other_player, forced_dice
):
    # Both sides show a stress 1 in the roll the defender's player answers (FAB-36): that
    # answer drew every die, so each panic is filed with its actor, under the panicker's
    # character. The log's actor filter and the statistics by actor read the same entries.
    gm_patch(client, gm, table.ada, {"stress": 1})
    gm_patch(client, gm, table.bram, {"stress": 1})
    body = opposed_body(table.ada, table.bram)
    forced_dice.push(6, 2, 2, 2, 2, 1, 6, 6, 2, 2, 2, 1, 2, 2)
    entry = answered_opposed(client, table.campaign, player, body, other_player)
    assert entry["actor_id"] == other_player.id
    panics = entry["triggered"]
    assert [panic["character_id"] for panic in panics] == [table.ada["id"], table.bram["id"]]
    assert {panic["actor_id"] for panic in panics} == {other_player.id}
    answered = f"?actor_id={other_player.id}&kind=fabulae."
    filed = client.get(url(table.campaign, f"/rolls{answered}"), headers=gm.headers).json()
    assert sorted(item["seq"] for item in filed["data"]) == sorted(
        [entry["seq"], *(panic["seq"] for panic in panics)]
    )
    by_actor = client.get(
        url(table.campaign, "/stats?group_by=actor&kind=fabulae.panic"), headers=gm.headers
    ).json()
    assert [(group["key"], group["rolls"]) for group in by_actor["groups"]] == [
        (other_player.id, 2)
    ]


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


def test_FAIR_21_FAB_43_a_blind_stress_resist_waits_for_the_gm_to_apply_it(
    client, table, gm, player, other_player, forced_dice
):
    # Applied at once, stress 3 → 1 would tell every player the blind roll's two sixes.
    gm_patch(client, gm, table.ada, {"stress": 3})
    forced_dice.push(6, 6, 2, 2, 2, 2, 3, 4)
    body = {"kind": "fabulae.stress_resist", "character_id": table.ada["id"], "visibility": "blind"}
    rolled_blind = rolled(client, table.campaign, player, body)
    assert rolled_blind["redacted"] is True
    assert sheet_of(client, other_player, table.ada)["stress"] == 3
    (held,) = [e for e in log_entries(client, table.campaign, gm) if e["kind"] == body["kind"]]
    assert held["effects_held"] is True
    assert held["effects"] == [effect(table.ada, "stress", 3, 1, "FAB-43")]
    apply = url(table.campaign, f"/log/{held['seq']}/apply")
    assert_problem(client.post(apply, headers=player.headers), 403, "GM")
    response = client.post(apply, headers=gm.headers)
    assert response.status_code == 201, response.text
    applied = response.json()
    assert applied["kind"] == "effects_applied" and applied["follows"] == held["seq"]
    assert applied["visibility"] == "public" and applied["effects"] == held["effects"]
    assert sheet_of(client, other_player, table.ada)["stress"] == 1
    assert_problem(client.post(apply, headers=gm.headers), 409, f"applied at seq {applied['seq']}")
    missing = url(table.campaign, f"/log/{applied['seq']}/apply")
    assert_problem(client.post(missing, headers=gm.headers), 404, "no effects waiting")
    (seen,) = [e for e in log_entries(client, table.campaign, gm) if e["seq"] == held["seq"]]
    assert seen["effects_held"] is False


def test_FAIR_21_held_effects_refuse_to_overwrite_a_sheet_changed_since(
    client, table, gm, player, forced_dice
):
    gm_patch(client, gm, table.ada, {"stress": 3})
    forced_dice.push(6, 6, 2, 2, 2, 2, 3, 4)
    body = {"kind": "fabulae.stress_resist", "character_id": table.ada["id"], "visibility": "gm"}
    seq = rolled(client, table.campaign, player, body)["seq"]
    gm_patch(client, gm, table.ada, {"stress": 4})
    response = client.post(url(table.campaign, f"/log/{seq}/apply"), headers=gm.headers)
    assert_problem(response, 409, "the sheet changed since entry")
    assert sheet_of(client, gm, table.ada)["stress"] == 4


def apply_held(client, campaign, gm, seq: int):
    return client.post(url(campaign, f"/log/{seq}/apply"), headers=gm.headers)


def test_FAIR_21_a_sheet_a_hidden_roll_read_waits_for_the_gm_before_the_rules_read_it(
    client, table, gm, player, forced_dice
):
    # Read before the GM applies stress 3 → 1, the sheet would show the old stress; read
    # with it, the next roll would tell the blind roll's sixes.
    gm_patch(client, gm, table.ada, {"stress": 3})
    forced_dice.push(6, 6, 2, 2, 2, 2, 3, 4)
    body = {"kind": "fabulae.stress_resist", "character_id": table.ada["id"]}
    blind = rolled(client, table.campaign, player, {**body, "visibility": "blind"})
    with unchanged(client, gm, table.campaign, table.ada):
        response = post_roll(client, table.campaign, player, body)
    refusal = assert_refused(response, "FAIR-21")
    assert f"hidden entry {blind['seq']}" in refusal["detail"]
    assert f"/log/{blind['seq']}/apply" in refusal["detail"]
    assert apply_held(client, table.campaign, gm, blind["seq"]).status_code == 201
    forced_dice.push(6, 2, 2, 2, 2, 2)  # five dice and one stress die now
    entry = rolled(client, table.campaign, player, body)
    assert entry["effects"] == [effect(table.ada, "stress", 1, 0, "FAB-43")]


def test_FAIR_21_a_hidden_roll_that_changed_nothing_waits_all_the_same(
    client, table, gm, player, other_player, forced_dice
):
    # No sixes, no change: were it not to wait, the next roll going through would tell
    # every player the blind roll failed.
    gm_patch(client, gm, table.ada, {"stress": 3})
    forced_dice.push(2, 2, 2, 2, 2, 2, 3, 4)
    body = {"kind": "fabulae.stress_resist", "character_id": table.ada["id"]}
    blind = rolled(client, table.campaign, player, {**body, "visibility": "blind"})
    (held,) = [e for e in log_entries(client, table.campaign, gm) if e["seq"] == blind["seq"]]
    assert held["effects"] == [] and held["effects_held"] is True
    response = post_roll(client, table.campaign, player, body)
    assert_refused(response, "FAIR-21")
    # A roll that reads another sheet is not held up.
    other = {"kind": "fabulae.stress_resist", "character_id": table.bram["id"]}
    forced_dice.push(2, 2, 2, 2, 2)
    assert post_roll(client, table.campaign, other_player, other).status_code == 201
    applied = apply_held(client, table.campaign, gm, blind["seq"])
    assert applied.status_code == 201 and applied.json()["effects"] == []
    forced_dice.push(2, 2, 2, 2, 2, 2, 3, 4)
    assert post_roll(client, table.campaign, player, body).status_code == 201


def test_FAIR_21_FAB_31_a_push_of_a_hidden_roll_reads_the_sheet_the_roll_left(
    client, table, gm, player, forced_dice
):
    gm_patch(client, gm, table.ada, {"stress": 3})
    forced_dice.push(6, 2, 2, 2, 2, 2, 2, 2)
    body = {"kind": "fabulae.stress_resist", "character_id": table.ada["id"], "visibility": "self"}
    entry = rolled(client, table.campaign, player, body)
    assert entry["effects"] == [effect(table.ada, "stress", 3, 2, "FAB-43")]
    assert entry["effects_held"] is True
    forced_dice.push(6, 2, 2, 2, 2, 2, 2)
    push = followed(client, table.campaign, player, "fabulae.push", entry["seq"])
    # The push reads stress 2 and Destiny as the held roll left them, and waits in turn.
    assert push["visibility"] == "self" and push["effects_held"] is True
    assert effect(table.ada, "stress", 2, 1, "FAB-43") in push["effects"]
    assert sheet_of(client, gm, table.ada)["stress"] == 3
    # In log order: the push's changes were made on the sheet the roll left.
    response = apply_held(client, table.campaign, gm, push["seq"])
    assert (
        assert_problem(response, 409, f"entry {entry['seq']} waits for the GM")["rule"] == "FAIR-21"
    )
    assert apply_held(client, table.campaign, gm, entry["seq"]).status_code == 201
    assert apply_held(client, table.campaign, gm, push["seq"]).status_code == 201
    sheet = sheet_of(client, gm, table.ada)
    assert sheet["stress"] == 1 and sheet["destiny"] == 2


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


def test_FAB_33_42_43_a_pushed_stress_resist_that_panics_gives_the_stress_back(
    client, table, gm, player, forced_dice
):
    """Rules version 3: the push's new result replaces the roll's for good (FAB-33), and a
    Panic fails it (FAB-42): the stress the first roll lowered comes back."""
    gm_patch(client, gm, table.ada, {"stress": 3})
    forced_dice.push(6, 2, 2, 2, 2, 2, 2, 2)  # 5 pool dice, 3 stress dice: one six
    body = {"kind": "fabulae.stress_resist", "character_id": table.ada["id"]}
    entry = rolled(client, table.campaign, player, body)
    assert entry["result"]["stress_lowered"] == 1 and sheet_of(client, gm, table.ada)["stress"] == 2
    # The four 2s of the pool, the stress dice, then the panic roll it sets off (FAB-44).
    forced_dice.push(2, 2, 2, 2, 1, 2, 2, 1)
    push = followed(client, table.campaign, player, "fabulae.push", entry["seq"])
    assert push["rules"] == "fabulae-tenebris@3"
    assert push["result"]["outcome"] == "panic" and push["result"]["stress_lowered"] == 0
    assert effect(table.ada, "stress", 2, 3, "FAB-43") in push["effects"]
    assert sheet_of(client, gm, table.ada)["stress"] == 3
    # The panic it sets off reads the stress given back: 1 + 3 (FAB-44).
    (panic,) = push["triggered"]
    assert panic["kind"] == "fabulae.panic" and panic["result"]["score"] == 4


def test_FAB_44_a_push_that_panics_names_the_allies_its_panic_reaches(
    client, table, gm, player, forced_dice
):
    """A push can set off a panic as the roll could: it names the allies at short range,
    and its panic's jolt reaches them (FAB-42, FAB-44)."""
    gm_patch(client, gm, table.ada, {"stress": 3})
    forced_dice.push(6, 2, 2, 2, 2, 2, 2, 2)
    body = {"kind": "fabulae.stress_resist", "character_id": table.ada["id"]}
    entry = rolled(client, table.campaign, player, body)
    # The pool's four 2s, the stress dice (a 1: Panic), then the panic roll: 4 + 3 is a jolt.
    forced_dice.push(2, 2, 2, 2, 1, 2, 2, 4)
    push = followed(
        client, table.campaign, player, "fabulae.push", entry["seq"], allies=[table.bram["id"]]
    )
    (panic,) = push["triggered"]
    assert panic["result"]["code"] == "jolt"
    assert effect(table.bram, "stress", 0, 1, "FAB-44") in panic["effects"]
    assert sheet_of(client, gm, table.bram)["stress"] == 1
    assert "allies" not in push["request"]  # read from the body, as the roll's are


def test_FAB_44_a_push_does_not_name_its_roller_an_ally(client, table, gm, player, forced_dice):
    forced_dice.push(6, 2, 2, 2, 2)
    body = {"kind": "fabulae.stress_resist", "character_id": table.ada["id"]}
    entry = rolled(client, table.campaign, player, body)
    push = {
        "kind": "fabulae.push",
        "follows": entry["seq"],
        "allies": [table.ada["id"]],
    }
    with unchanged(client, gm, table.campaign, table.ada):
        refused = post_roll(client, table.campaign, player, push)
        assert "not their own ally" in assert_problem(refused, 422)["detail"]


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
    opposed = answered_opposed(client, campaign, player, opposed_body(ada, bram), other_player)
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
    assert report["replayed"] == 18 and report["rederived"] == 0

    summary = verified_offline(client, campaign, gm, tmp_path)
    assert summary.startswith(f"OK: {len(entries)} entries checked, 0 re-derived, 18 replayed")


def test_fabulae_draws_are_rederived_after_rotation(client, table, gm, player, other_player):
    campaign, ada, bram = table.campaign, table.ada, table.bram
    acted(client, campaign, player, ada)
    answered_opposed(client, campaign, player, opposed_body(ada, bram), other_player)
    rolled(client, campaign, player, {"kind": "fabulae.stress_resist", "character_id": ada["id"]})
    rolled(client, campaign, other_player, {"kind": "fabulae.panic", "character_id": bram["id"]})
    care = recover_body(ada, "care", healer_id=bram["id"], track="physical")
    rolled(client, campaign, other_player, care)
    rolled(client, campaign, player, recover_body(ada, "rest", duration="night"))
    with_draws = [e for e in log_entries(client, campaign, gm) if e.get("draws")]
    assert len(with_draws) == 5
    assert client.post(url(campaign, "/fairness/rotate"), headers=gm.headers).status_code == 201
    report = assert_verified(client, campaign, gm)
    # The five with draws are re-derived; seven replay (the opposed roll that waited too).
    assert report["rederived"] == 5 and report["replayed"] == 7
