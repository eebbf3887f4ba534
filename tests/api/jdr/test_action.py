"""The action roll through the API: total, tiers, Advantage, difficulty and context
(JDR-10..14), and the serious wound that burdens it until medical care (JDR-3, JDR-33).

Every roll posts to POST .../rolls and answers with its log entry; `forced_dice` scripts the
faces the rules draw, so each test knows the exact totals and tiers it expects.
"""

from __future__ import annotations

import pytest

from tests.api.helpers import (
    assert_refused,
    gm_patch,
    last_seq,
    new_session,
    post_roll,
    sheet_of,
)
from tests.api.jdr.fights import attack_body
from tests.api.jdr.plays import (
    MIHAIL_WORDS,
    act,
    acted,
    follow,
    followed,
    gm_event,
)
from tests.conftest import assert_problem

# --- JDR-10/11: the action total and its tier ---------------------------------------------


def test_JDR_10_total_is_dice_plus_trait_talent_and_modifier(
    client, gm, player, dracula, mihail, forced_dice
):
    new_session(client, dracula, gm)
    forced_dice.push(4, 5)
    entry = acted(client, dracula, player, mihail, "mental", talent="Théologie", modifier=-1)
    assert entry["kind"] == "jdr.action" and entry["character_id"] == mihail["id"]
    assert [d["face"] for d in entry["draws"]] == [4, 5]
    assert all(d["sides"] == 6 for d in entry["draws"])
    result = entry["result"]
    assert result["dice"] == [4, 5] and result["kept"] == [True, True]
    assert result["mode"] == "normal"
    assert result["trait_value"] == 3 and result["talent_bonus"] == 2
    assert result["total"] == 4 + 5 + 3 + 2 - 1 == 13
    assert result["tier"] == "success" and result["label"] == "Succès complet"
    assert entry["request"]["trait"] == "mental" and entry["request"]["modifier"] == -1
    assert entry["follows"] is None and entry["effects"] == []


def test_JDR_10_each_trait_reads_its_own_value(client, gm, player, dracula, mihail, forced_dice):
    new_session(client, dracula, gm)
    for trait, value in (("mental", 3), ("physique", 2), ("social", 1)):
        forced_dice.push(3, 3)
        result = acted(client, dracula, player, mihail, trait)["result"]
        assert result["trait_value"] == value and result["total"] == 6 + value


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"trait": "volonte"}, "trait"),
        ({"trait": "mental", "modifier": 6}, "modifier"),
        ({"trait": "mental", "modifier": -6}, "modifier"),
        ({"trait": "mental", "difficulty": 1}, "difficulty"),
        ({"trait": "mental", "context": {"supernatural": True, "weather": "snow"}}, "context"),
        ({"trait": "mental", "context": {"domain": "cuisine"}}, "context"),
    ],
)
def test_JDR_10_malformed_action_is_422_and_logs_nothing(
    client, gm, player, dracula, mihail, body, field
):
    new_session(client, dracula, gm)
    before = last_seq(client, dracula, gm)
    response = post_roll(
        client, dracula, player, {"kind": "jdr.action", "character_id": mihail["id"], **body}
    )
    problem = assert_problem(response, 422)
    assert field in str(problem.get("errors")) + problem["detail"]
    assert last_seq(client, dracula, gm) == before


def test_JDR_10_a_talent_not_on_the_sheet_is_422(client, gm, player, dracula, mihail):
    new_session(client, dracula, gm)
    before = last_seq(client, dracula, gm)
    response = act(client, dracula, player, mihail, talent="Escrime")
    assert_problem(response, 422, "Escrime", "Théologie")
    assert last_seq(client, dracula, gm) == before


def test_JDR_10_players_roll_only_for_their_own_pc(
    client, gm, player, other_player, dracula, mihail, forced_dice
):
    new_session(client, dracula, gm)
    assert_problem(act(client, dracula, other_player, mihail), 403)
    forced_dice.push(2, 2)
    assert acted(client, dracula, gm, mihail)["actor_id"] == gm.id


@pytest.mark.parametrize(
    ("faces", "total", "tier", "label"),
    [
        ((1, 1), 5, "critical_failure", "Échec critique"),
        ((1, 2), 6, "failure", "Échec"),
        ((2, 3), 8, "failure", "Échec"),
        ((3, 3), 9, "partial_success", "Succès partiel"),
        ((3, 4), 10, "partial_success", "Succès partiel"),
        ((4, 4), 11, "success", "Succès complet"),
        ((5, 6), 14, "success", "Succès complet"),
        ((6, 6), 15, "critical_success", "Succès critique"),
    ],
)
def test_JDR_11_tiers_and_french_labels(
    client, gm, player, cthulhu, penhaligon, forced_dice, faces, total, tier, label
):
    new_session(client, cthulhu, gm)
    forced_dice.push(*faces)
    result = acted(client, cthulhu, player, penhaligon, "mental")["result"]
    assert (result["total"], result["tier"], result["label"]) == (total, tier, label)


def test_JDR_11_modifier_moves_the_tier(client, gm, player, cthulhu, penhaligon, forced_dice):
    new_session(client, cthulhu, gm)
    forced_dice.push(6, 6)
    result = acted(client, cthulhu, player, penhaligon, "physique", modifier=5)["result"]
    assert result["total"] == 12 + 1 + 5 == 18 and result["tier"] == "critical_success"
    forced_dice.push(2, 1)
    result = acted(client, cthulhu, player, penhaligon, "social", modifier=-5)["result"]
    assert result["total"] == 3 + 2 - 5 == 0 and result["tier"] == "critical_failure"


# --- JDR-12: advantage and disadvantage ----------------------------------------------------


def test_JDR_12_advantage_rolls_three_and_keeps_the_two_highest(
    client, gm, player, dracula, mihail, forced_dice
):
    new_session(client, dracula, gm)
    forced_dice.push(2, 5, 6)
    entry = acted(client, dracula, player, mihail, advantage=True)
    assert [d["face"] for d in entry["draws"]] == [2, 5, 6]
    result = entry["result"]
    assert result["mode"] == "advantage"
    assert result["dice"] == [2, 5, 6] and result["kept"] == [False, True, True]
    assert result["total"] == 11 + 3 and result["tier"] == "success"


def test_JDR_12_disadvantage_rolls_three_and_keeps_the_two_lowest(
    client, gm, player, dracula, mihail, forced_dice
):
    new_session(client, dracula, gm)
    forced_dice.push(2, 5, 6)
    entry = acted(client, dracula, player, mihail, disadvantage=True)
    result = entry["result"]
    assert result["mode"] == "disadvantage" and len(entry["draws"]) == 3
    assert result["dice"] == [2, 5, 6] and result["kept"] == [True, True, False]
    assert result["total"] == 7 + 3 and result["tier"] == "partial_success"


def test_JDR_12_ties_keep_exactly_two_dice(client, gm, player, dracula, mihail, forced_dice):
    new_session(client, dracula, gm)
    forced_dice.push(4, 4, 4)
    result = acted(client, dracula, player, mihail, advantage=True)["result"]
    assert sum(result["kept"]) == 2 and result["total"] == 8 + 3
    forced_dice.push(6, 1, 6)
    result = acted(client, dracula, player, mihail, disadvantage=True)["result"]
    assert result["kept"].count(True) == 2 and result["kept"][1] is True
    assert result["total"] == 7 + 3


def test_JDR_12_advantage_and_disadvantage_cancel_to_two_dice(
    client, gm, player, dracula, mihail, forced_dice
):
    new_session(client, dracula, gm)
    forced_dice.push(2, 5)
    entry = acted(client, dracula, player, mihail, advantage=True, disadvantage=True)
    assert len(entry["draws"]) == 2
    result = entry["result"]
    assert result["mode"] == "normal" and result["dice"] == [2, 5]
    assert result["kept"] == [True, True] and result["total"] == 10


# --- JDR-13: difficulty --------------------------------------------------------------------


def test_JDR_13_difficulty_reads_success_on_the_total(
    client, gm, player, cthulhu, penhaligon, forced_dice
):
    new_session(client, cthulhu, gm)
    forced_dice.push(4, 5)  # 12
    result = acted(client, cthulhu, player, penhaligon, difficulty=12)["result"]
    assert result["total"] == 12 and result["difficulty"] == 12 and result["success"] is True
    assert result["label"] == "Réussite" and "tier" not in result
    forced_dice.push(4, 4)  # 11
    entry = acted(client, cthulhu, player, penhaligon, difficulty=12)
    result = entry["result"]
    assert result["total"] == 11 and result["success"] is False
    # JDR-13 (corrected): pass or fail, never a tier (11 would read « Succès complet »).
    assert "tier" not in result and result["label"] == "Échec"
    assert entry["outcome"] == {"code": "failure", "label": "Failure"}


def test_JDR_13_talisman_and_effleurement_are_refused_on_a_difficulty_roll(
    client, gm, player, dracula, cthulhu, mihail, penhaligon, forced_dice
):
    new_session(client, dracula, gm)
    forced_dice.push(3, 4)  # 7 + mental 3 = 10: a partial success without the difficulty
    action = acted(client, dracula, player, mihail, difficulty=12, context={"supernatural": True})
    refused = follow(client, dracula, player, "jdr.talisman", action["seq"], words=MIHAIL_WORDS)
    assert_refused(refused, "JDR-13")
    new_session(client, cthulhu, gm)
    forced_dice.push(3, 4)
    action = acted(client, cthulhu, player, penhaligon, difficulty=9, context={"domain": "occult"})
    refused = follow(client, cthulhu, player, "jdr.effleurement", action["seq"], mark="un tic")
    assert_refused(refused, "JDR-13")


def test_JDR_13_total_of_five_or_less_fails_critically_whatever_the_difficulty(
    client, gm, player, cthulhu, penhaligon, forced_dice
):
    new_session(client, cthulhu, gm)
    forced_dice.push(1, 1)  # 2 + mental 3 = 5
    entry = acted(client, cthulhu, player, penhaligon, difficulty=4)
    result = entry["result"]
    assert result["total"] == 5 and result["label"] == "Échec critique"
    assert result["success"] is False and entry["outcome"]["code"] == "critical_failure"


def test_JDR_13_without_difficulty_there_is_no_success_flag(
    client, gm, player, cthulhu, penhaligon, forced_dice
):
    new_session(client, cthulhu, gm)
    forced_dice.push(3, 3)
    result = acted(client, cthulhu, player, penhaligon)["result"]
    assert "success" not in result and "difficulty" not in result


# --- JDR-14: context, amended by the GM -----------------------------------------------------


def test_JDR_14_action_records_its_context(client, gm, player, cthulhu, penhaligon, forced_dice):
    new_session(client, cthulhu, gm)
    forced_dice.push(3, 3)
    context = {"domain": "occult", "direct_peril": True}
    entry = acted(client, cthulhu, player, penhaligon, context=context)
    assert entry["request"]["context"] == {
        "supernatural": False,
        "domain": "occult",
        "direct_peril": True,
        "protection": False,
    }


def test_JDR_14_gm_amends_context_before_the_talisman(
    client, gm, player, dracula, mihail, forced_dice
):
    new_session(client, dracula, gm)
    forced_dice.push(3, 4)
    action = acted(client, dracula, player, mihail, context={"supernatural": False})
    assert action["result"]["tier"] == "partial_success"
    assert_refused(
        follow(client, dracula, player, "jdr.talisman", action["seq"], words=MIHAIL_WORDS),
        "JDR-22",
    )
    # The player cannot settle the dispute themselves.
    assert_problem(
        follow(
            client,
            dracula,
            player,
            "jdr.context",
            action["seq"],
            context={"supernatural": True},
        ),
        403,
    )
    amended = followed(
        client, dracula, gm, "jdr.context", action["seq"], context={"supernatural": True}
    )
    assert amended["kind"] == "jdr.context" and amended["follows"] == action["seq"]
    assert amended["draws"] == [] and amended["effects"] == []
    assert amended["result"]["context"]["supernatural"] is True
    assert amended["result"]["before"]["supernatural"] is False
    invoked = followed(client, dracula, player, "jdr.talisman", action["seq"], words=MIHAIL_WORDS)
    assert invoked["result"]["status"] == "pending"


def test_JDR_14_gm_amends_the_domain_before_an_effleurement(
    client, gm, player, cthulhu, penhaligon, forced_dice
):
    new_session(client, cthulhu, gm)
    forced_dice.push(3, 4)
    action = acted(client, cthulhu, player, penhaligon, context={"domain": "other"})
    assert_refused(
        follow(client, cthulhu, player, "jdr.effleurement", action["seq"], mark="un tic"),
        "JDR-29",
    )
    followed(client, cthulhu, gm, "jdr.context", action["seq"], context={"domain": "observation"})
    touched = followed(client, cthulhu, player, "jdr.effleurement", action["seq"], mark="un tic")
    assert touched["result"]["tier"] == "success"


def test_JDR_14_gm_amends_direct_peril_before_a_joker(
    client, gm, player, cthulhu, penhaligon, forced_dice
):
    new_session(client, cthulhu, gm)
    forced_dice.push(1, 1)
    action = acted(client, cthulhu, player, penhaligon, "physique")
    assert_refused(follow(client, cthulhu, player, "jdr.joker", action["seq"]), "JDR-25")
    followed(client, cthulhu, gm, "jdr.context", action["seq"], context={"direct_peril": True})
    forced_dice.push(6, 5)
    assert followed(client, cthulhu, player, "jdr.joker", action["seq"])["result"]["total"] == 12


def test_JDR_14_context_follows_only_an_action(client, gm, player, dracula, mihail, forced_dice):
    new_session(client, dracula, gm)
    forced_dice.push(3, 4)
    action = acted(client, dracula, player, mihail, context={"supernatural": True})
    invoked = followed(client, dracula, player, "jdr.talisman", action["seq"], words=MIHAIL_WORDS)
    response = follow(
        client, dracula, gm, "jdr.context", invoked["seq"], context={"supernatural": False}
    )
    assert_problem(response, 422, "jdr.action")
    assert_problem(
        follow(client, dracula, gm, "jdr.context", 9999, context={"supernatural": True}), 404
    )


# --- JDR-3 / JDR-33: a serious wound burdens every roll until medical care ------------------


def test_JDR_3_serious_wound_gives_disadvantage_until_medical_care(
    client, gm, player, dracula, mihail, forced_dice
):
    new_session(client, dracula, gm)
    gm_patch(client, gm, mihail, {"wounds": [{"severity": "serious", "note": "morsure"}]})
    forced_dice.push(6, 2, 5)
    result = acted(client, dracula, player, mihail)["result"]
    assert result["mode"] == "disadvantage" and result["auto_disadvantage"] == ["serious_wound"]
    assert result["kept"] == [False, True, True] and result["total"] == 7 + 3
    # Advantage cancels the burden (JDR-12): two dice.
    forced_dice.push(6, 2)
    result = acted(client, dracula, player, mihail, advantage=True)["result"]
    assert result["mode"] == "normal" and result["dice"] == [6, 2]

    assert_problem(gm_event(client, dracula, player, "jdr.medical_care", mihail), 403)
    cared = gm_event(client, dracula, gm, "jdr.medical_care", mihail, "le docteur Seward")
    assert cared.status_code == 201, cared.text
    cared = cared.json()
    assert cared["draws"] == [] and cared["result"]["cared"] == 1
    (wound,) = sheet_of(client, gm, mihail)["wounds"]
    assert wound["severity"] == "serious" and wound["cared"] is True

    forced_dice.push(6, 2)
    result = acted(client, dracula, player, mihail)["result"]
    assert result["mode"] == "normal" and result["auto_disadvantage"] == []
    assert result["total"] == 11


def test_JDR_3_light_wounds_do_not_burden_and_care_without_serious_wound_is_refused(
    client, gm, player, cthulhu, penhaligon, forced_dice
):
    new_session(client, cthulhu, gm)
    gm_patch(client, gm, penhaligon, {"wounds": [{"severity": "light", "note": "griffure"}]})
    forced_dice.push(3, 3)
    assert acted(client, cthulhu, player, penhaligon)["result"]["mode"] == "normal"
    before = last_seq(client, cthulhu, gm)
    assert_refused(gm_event(client, cthulhu, gm, "jdr.medical_care", penhaligon), "JDR-3")
    assert last_seq(client, cthulhu, gm) == before


def test_JDR_33_serious_wound_from_an_attack_burdens_the_target_until_care(
    client, gm, player, cthulhu, penhaligon, make_character, forced_dice
):
    new_session(client, cthulhu, gm)
    deep_one = make_character(
        cthulhu,
        gm,
        kind="npc",
        name="Profond",
        sheet={"traits": {"mental": 1, "physique": 4, "social": 0}, "tags": ["creature"]},
    )
    forced_dice.push(6, 6)  # 12 + physique 4 = 16 against Defense 6: margin 10, critical
    attack = post_roll(
        client,
        cthulhu,
        gm,
        {
            "kind": "jdr.attack",
            "attacker_id": deep_one["id"],
            "target_id": penhaligon["id"],
            "weapon": {"name": "griffes"},
        },
    )
    assert attack.status_code == 201, attack.text
    attack = attack.json()
    assert attack["result"]["margin"] == 10 and attack["result"]["severity"] == "critical"
    forced_dice.push(3, 2)  # 5 + 4 = 9: margin 3, light
    forced_dice.push(4, 3)  # 7 + 4 = 11: margin 5, serious
    for _ in range(2):
        response = post_roll(
            client,
            cthulhu,
            gm,
            {
                "kind": "jdr.attack",
                "attacker_id": deep_one["id"],
                "target_id": penhaligon["id"],
                "weapon": {"name": "griffes"},
            },
        )
        assert response.status_code == 201, response.text
    severities = [w["severity"] for w in sheet_of(client, player, penhaligon)["wounds"]]
    assert severities == ["critical", "light", "serious"]
    forced_dice.push(5, 5, 5)
    result = acted(client, cthulhu, player, penhaligon)["result"]
    # JDR-33 (corrected): a critical wound burdens as a serious one does.
    assert result["auto_disadvantage"] == ["serious_wound", "critical_wound"]
    assert len(result["dice"]) == 3
    care = gm_event(client, cthulhu, gm, "jdr.medical_care", penhaligon)
    assert care.json()["result"]["cared"] == 2
    forced_dice.push(5, 5)
    assert acted(client, cthulhu, player, penhaligon)["result"]["auto_disadvantage"] == []
    cared = sheet_of(client, player, penhaligon)["wounds"]
    assert [(w["severity"], w["cared"]) for w in cared] == [
        ("critical", True),
        ("light", False),
        ("serious", True),
    ]


def test_JDR_33_a_critical_wound_alone_burdens_until_care_and_its_loss_stays(
    client, gm, player, dracula, hunter, brigand, forced_dice
):
    new_session(client, dracula, gm)
    forced_dice.push(6, 6)  # 12 + physique 2 = 14 against Defense 6... + claws: margin 10
    claws = {"name": "griffes", "bonus": 2}
    hit = post_roll(client, dracula, gm, attack_body(brigand, hunter, claws)).json()
    assert hit["result"]["severity"] == "critical"
    assert hit["result"]["label"] == "Blessure critique"
    assert hit["result"]["wound_effect"] == "lasting_loss"
    # The GM records the lasting loss in the wound's note.
    (wound,) = sheet_of(client, gm, hunter)["wounds"]
    gm_patch(client, gm, hunter, {"wounds": [{**wound, "note": "griffes ; perd l'œil gauche"}]})
    forced_dice.push(5, 5, 5)
    result = acted(client, dracula, player, hunter, "physique")["result"]
    assert result["auto_disadvantage"] == ["critical_wound"] and result["mode"] == "disadvantage"
    gm_event(client, dracula, gm, "jdr.medical_care", hunter, "Van Helsing")
    forced_dice.push(5, 5)
    assert acted(client, dracula, player, hunter, "physique")["result"]["mode"] == "normal"
    (cared,) = sheet_of(client, player, hunter)["wounds"]
    assert cared["cared"] is True and cared["note"] == "griffes ; perd l'œil gauche"
