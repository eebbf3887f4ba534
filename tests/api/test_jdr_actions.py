"""JDR Express action rolls and their follow-ups (JDR-3, JDR-7, JDR-10..29a, JDR-42).

Every roll posts to POST .../rolls and answers with its log entry; `forced_dice` scripts the
faces the rules draw, so each test knows the exact totals and tiers it expects.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.helpers import (
    assert_refused,
    assert_verified,
    gm_patch,
    last_seq,
    log_entries,
    new_scene,
    new_session,
    post_roll,
    sheet_of,
    url,
)
from tests.conftest import API, CTHULHU_SHEET, DRACULA_SHEET, assert_problem

DRACULA = "jdr-express-dracula"
CTHULHU = "jdr-express-cthulhu"
MIHAIL_WORDS = (
    "J'ai été défroqué par mes pairs, mais pas par Dieu. Au nom du Père, du Fils, et du "
    "Saint-Esprit, créature, retire-toi."
)
PENHALIGON_MARK = "ne supporte plus de se voir dans un miroir avant l'aube"


# --- helpers -------------------------------------------------------------------------------


def act(client, campaign, caller, character, trait: str = "mental", **extra: Any):
    body = {"kind": "jdr.action", "character_id": character["id"], "trait": trait, **extra}
    return post_roll(client, campaign, caller, body)


def acted(client, campaign, caller, character, trait: str = "mental", **extra: Any):
    response = act(client, campaign, caller, character, trait, **extra)
    assert response.status_code == 201, response.text
    return response.json()


def follow(client, campaign, caller, kind: str, follows: int, **extra: Any):
    return post_roll(client, campaign, caller, {"kind": kind, "follows": follows, **extra})


def followed(client, campaign, caller, kind: str, follows: int, **extra: Any):
    response = follow(client, campaign, caller, kind, follows, **extra)
    assert response.status_code == 201, response.text
    return response.json()


def gm_event(client, campaign, gm, kind: str, character, description: str = ""):
    return post_roll(
        client,
        campaign,
        gm,
        {"kind": kind, "character_id": character["id"], "description": description},
    )


def facts(character, **flags: bool) -> dict[str, Any]:
    return {"character_id": character["id"], **flags}


def effect_fields(entry: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    return [(e["field"], e["before"], e["after"]) for e in entry["effects"]]


@pytest.fixture
def dracula(make_campaign, player, other_player):
    return make_campaign(DRACULA, players=(player, other_player))


@pytest.fixture
def cthulhu(make_campaign, player, other_player):
    return make_campaign(CTHULHU, players=(player, other_player), name="Innsmouth")


@pytest.fixture
def mihail(dracula, player, make_character):
    """A believer with a sacred object established at creation, before any scene."""
    return make_character(dracula, player, name="Père Mihail")


@pytest.fixture
def penhaligon(cthulhu, player, make_character):
    return make_character(cthulhu, player, name="Dr. Penhaligon")


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
    forced_dice.push(4, 4)  # 11
    result = acted(client, cthulhu, player, penhaligon, difficulty=12)["result"]
    assert result["total"] == 11 and result["success"] is False
    assert result["tier"] == "success"  # tiers are still read, the difficulty decides


def test_JDR_13_total_of_five_or_less_fails_critically_whatever_the_difficulty(
    client, gm, player, cthulhu, penhaligon, forced_dice
):
    new_session(client, cthulhu, gm)
    forced_dice.push(1, 1)  # 2 + mental 3 = 5
    result = acted(client, cthulhu, player, penhaligon, difficulty=4)["result"]
    assert result["total"] == 5 and result["tier"] == "critical_failure"
    assert result["success"] is False


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
    assert result["auto_disadvantage"] == ["serious_wound"] and len(result["dice"]) == 3
    gm_event(client, cthulhu, gm, "jdr.medical_care", penhaligon)
    forced_dice.push(5, 5)
    assert acted(client, cthulhu, player, penhaligon)["result"]["auto_disadvantage"] == []


# --- JDR-20..23: the Talisman de Foi [D] ---------------------------------------------------


def partial_supernatural(client, campaign, caller, character, forced_dice, **context: Any):
    """A total of 10 (3 + 4 + Mental 3) in a proven supernatural confrontation."""
    forced_dice.push(3, 4)
    action = acted(client, campaign, caller, character, context={"supernatural": True, **context})
    assert action["result"]["tier"] == "partial_success"
    return action


def test_JDR_20_invocation_is_pending_until_the_gm_rules(
    client, gm, player, dracula, mihail, forced_dice
):
    new_session(client, dracula, gm)
    action = partial_supernatural(client, dracula, player, mihail, forced_dice)
    invoked = followed(client, dracula, player, "jdr.talisman", action["seq"], words=MIHAIL_WORDS)
    assert invoked["kind"] == "jdr.talisman" and invoked["follows"] == action["seq"]
    assert invoked["draws"] == []  # no new dice (JDR-20)
    assert invoked["result"] == {
        "status": "pending",
        "words": MIHAIL_WORDS,
        "tier": "partial_success",
    }
    assert invoked["request"]["words"] == MIHAIL_WORDS
    assert sheet_of(client, player, mihail)["talisman"] == "ready"


def test_JDR_20_talisman_turns_a_partial_success_into_a_success_when_sincere(
    client, gm, player, dracula, mihail, forced_dice
):
    new_session(client, dracula, gm)
    action = partial_supernatural(client, dracula, player, mihail, forced_dice)
    invoked = followed(client, dracula, player, "jdr.talisman", action["seq"], words=MIHAIL_WORDS)
    ruling = followed(client, dracula, gm, "jdr.talisman_ruling", invoked["seq"], sincere=True)
    assert ruling["follows"] == invoked["seq"] and ruling["draws"] == []
    assert ruling["result"]["status"] == "sincere"
    assert ruling["result"]["tier"] == "success"
    assert ruling["result"]["label"] == "Succès complet"
    assert ruling["result"]["upgraded_from"] == "partial_success"
    assert ("talisman", "ready", "spent") in effect_fields(ruling)
    sheet = sheet_of(client, player, mihail)
    assert sheet["talisman"] == "spent" and sheet.get("faith_shaken") is None


def test_JDR_21_insincere_words_crack_the_talisman(
    client, gm, player, dracula, mihail, forced_dice
):
    new_session(client, dracula, gm)
    action = partial_supernatural(client, dracula, player, mihail, forced_dice)
    invoked = followed(
        client, dracula, player, "jdr.talisman", action["seq"], words="bon ben on essaie"
    )
    ruling = followed(client, dracula, gm, "jdr.talisman_ruling", invoked["seq"], sincere=False)
    assert ruling["result"]["status"] == "insincere"
    assert ruling["result"]["tier"] == "partial_success"
    assert ruling["result"]["label"] == "Succès partiel"
    sheet = sheet_of(client, player, mihail)
    assert sheet["talisman"] == "cracked"
    assert sheet["faith_shaken"] == {"cracked_scene": 1, "confrontation_scene": None}


def test_JDR_21_only_the_gm_rules_and_only_once(client, gm, player, dracula, mihail, forced_dice):
    new_session(client, dracula, gm)
    action = partial_supernatural(client, dracula, player, mihail, forced_dice)
    invoked = followed(client, dracula, player, "jdr.talisman", action["seq"], words=MIHAIL_WORDS)
    before = last_seq(client, dracula, gm)
    response = follow(client, dracula, player, "jdr.talisman_ruling", invoked["seq"], sincere=True)
    assert_problem(response, 403, "GM")
    assert last_seq(client, dracula, gm) == before
    assert sheet_of(client, gm, mihail)["talisman"] == "ready"
    followed(client, dracula, gm, "jdr.talisman_ruling", invoked["seq"], sincere=True)
    assert_refused(
        follow(client, dracula, gm, "jdr.talisman_ruling", invoked["seq"], sincere=False),
        "JDR-21",
    )
    assert sheet_of(client, gm, mihail)["talisman"] == "spent"


def test_JDR_21_ruling_follows_only_an_invocation(client, gm, player, dracula, mihail, forced_dice):
    new_session(client, dracula, gm)
    action = partial_supernatural(client, dracula, player, mihail, forced_dice)
    response = follow(client, dracula, gm, "jdr.talisman_ruling", action["seq"], sincere=True)
    assert_problem(response, 422, "jdr.talisman")


def test_JDR_21_words_are_required(client, gm, player, dracula, mihail, forced_dice):
    new_session(client, dracula, gm)
    action = partial_supernatural(client, dracula, player, mihail, forced_dice)
    assert_problem(follow(client, dracula, player, "jdr.talisman", action["seq"]), 422)
    assert_problem(follow(client, dracula, player, "jdr.talisman", action["seq"], words=""), 422)
    assert_problem(follow(client, dracula, player, "jdr.talisman", action["seq"], words="   "), 422)


def test_JDR_22_talisman_refused_outside_a_supernatural_confrontation(
    client, gm, player, dracula, mihail, forced_dice
):
    new_session(client, dracula, gm)
    forced_dice.push(3, 4)  # a society interrogation: a partial success, but nothing uncanny
    action = acted(client, dracula, player, mihail, context={"supernatural": False})
    assert action["result"]["tier"] == "partial_success"
    before = last_seq(client, dracula, gm)
    response = follow(client, dracula, player, "jdr.talisman", action["seq"], words=MIHAIL_WORDS)
    assert_refused(response, "JDR-22")
    assert "supernatural" in response.json()["detail"]
    assert last_seq(client, dracula, gm) == before
    assert sheet_of(client, player, mihail)["talisman"] == "ready"


@pytest.mark.parametrize(
    ("faces", "tier"),
    [
        ((1, 1), "critical_failure"),
        ((2, 3), "failure"),
        ((4, 4), "success"),
        ((6, 6), "critical_success"),
    ],
)
def test_JDR_22_talisman_refused_unless_the_tier_is_partial(
    client, gm, player, dracula, mihail, forced_dice, faces, tier
):
    new_session(client, dracula, gm)
    forced_dice.push(*faces)
    action = acted(client, dracula, player, mihail, context={"supernatural": True})
    assert action["result"]["tier"] == tier
    response = follow(client, dracula, player, "jdr.talisman", action["seq"], words=MIHAIL_WORDS)
    assert_refused(response, "JDR-22")
    assert tier in response.json()["detail"]


@pytest.mark.parametrize("state", ["spent", "cracked"])
def test_JDR_22_talisman_refused_when_not_ready(
    client, gm, player, dracula, mihail, forced_dice, state
):
    new_session(client, dracula, gm)
    gm_patch(client, gm, mihail, {"talisman": state})
    action = partial_supernatural(client, dracula, player, mihail, forced_dice)
    before = last_seq(client, dracula, gm)
    response = follow(client, dracula, player, "jdr.talisman", action["seq"], words=MIHAIL_WORDS)
    assert_refused(response, "JDR-22")
    assert state in response.json()["detail"]
    assert last_seq(client, dracula, gm) == before
    assert sheet_of(client, player, mihail)["talisman"] == state


def test_JDR_22_talisman_refused_without_a_sacred_object(
    client, gm, player, dracula, make_character, forced_dice
):
    sheet = {key: value for key, value in DRACULA_SHEET.items() if key != "sacred_object"}
    pc = make_character(dracula, player, name="Jonathan", sheet=sheet)
    new_session(client, dracula, gm)
    action = partial_supernatural(client, dracula, player, pc, forced_dice)
    response = follow(client, dracula, player, "jdr.talisman", action["seq"], words=MIHAIL_WORDS)
    assert_refused(response, "JDR-22")
    assert "sacred object" in response.json()["detail"]


def test_JDR_22_sacred_object_established_in_this_scene_works_only_from_the_next(
    client, gm, player, dracula, make_character, forced_dice
):
    sheet = {key: value for key, value in DRACULA_SHEET.items() if key != "sacred_object"}
    pc = make_character(dracula, player, name="Jonathan", sheet=sheet)
    new_session(client, dracula, gm)
    # Mid-scene the player "remembers" a relic, and tries to backdate it.
    response = client.patch(
        f"{API}/characters/{pc['id']}",
        json={"sheet": {"sacred_object": "médaillon béni", "sacred_object_scene": 0}},
        headers=player.headers,
    )
    assert response.status_code == 200, response.text
    assert response.json()["sheet"]["sacred_object_scene"] == 1
    action = partial_supernatural(client, dracula, player, pc, forced_dice)
    response = follow(client, dracula, player, "jdr.talisman", action["seq"], words=MIHAIL_WORDS)
    assert_refused(response, "JDR-22")
    # In the next scene the object was established before the scene started.
    new_scene(client, dracula, gm)
    action = partial_supernatural(client, dracula, player, pc, forced_dice)
    invoked = followed(client, dracula, player, "jdr.talisman", action["seq"], words=MIHAIL_WORDS)
    assert invoked["result"]["status"] == "pending"


def test_JDR_22_pc_created_during_the_scene_waits_for_the_next_scene(
    client, gm, player, dracula, make_character, forced_dice
):
    new_session(client, dracula, gm)
    pc = make_character(dracula, player, name="Mina")
    assert pc["sheet"]["sacred_object_scene"] == 1
    action = partial_supernatural(client, dracula, player, pc, forced_dice)
    assert_refused(
        follow(client, dracula, player, "jdr.talisman", action["seq"], words=MIHAIL_WORDS),
        "JDR-22",
    )


def test_JDR_22_changing_the_sacred_object_mid_scene_is_refused(
    client, gm, player, dracula, mihail, forced_dice
):
    new_session(client, dracula, gm)
    gm_patch(client, gm, mihail, {"sacred_object": "hostie consacrée"})
    action = partial_supernatural(client, dracula, player, mihail, forced_dice)
    assert_refused(
        follow(client, dracula, player, "jdr.talisman", action["seq"], words=MIHAIL_WORDS),
        "JDR-22",
    )


def test_JDR_23_atheist_needs_a_believer_to_instruct_them(
    client, gm, player, other_player, dracula, mihail, make_character, forced_dice
):
    sheet = {**DRACULA_SHEET, "faith": "atheist", "sacred_object": "croix de sa mère"}
    van = make_character(dracula, other_player, name="Van Helsing", sheet=sheet)
    assert van["sheet"]["faith"] == "atheist"
    new_session(client, dracula, gm)
    action = partial_supernatural(client, dracula, other_player, van, forced_dice)
    response = follow(
        client, dracula, other_player, "jdr.talisman", action["seq"], words="Je crois."
    )
    assert_refused(response, "JDR-23")
    # The player cannot set it; the GM records Mihail's instruction.
    assert_problem(
        client.patch(
            f"{API}/characters/{van['id']}",
            json={"sheet": {"instructed_by": mihail["id"]}},
            headers=other_player.headers,
        ),
        403,
    )
    assert (
        gm_patch(client, gm, van, {"instructed_by": mihail["id"]})["instructed_by"] == mihail["id"]
    )
    invoked = followed(
        client, dracula, other_player, "jdr.talisman", action["seq"], words="Je crois."
    )
    assert invoked["result"]["status"] == "pending"


def test_JDR_20_second_invocation_on_the_same_action_is_refused(
    client, gm, player, dracula, mihail, forced_dice
):
    new_session(client, dracula, gm)
    action = partial_supernatural(client, dracula, player, mihail, forced_dice)
    followed(client, dracula, player, "jdr.talisman", action["seq"], words=MIHAIL_WORDS)
    assert_refused(
        follow(client, dracula, player, "jdr.talisman", action["seq"], words=MIHAIL_WORDS),
        "JDR-20",
    )


def test_JDR_20_once_per_scene_a_spent_talisman_cannot_be_invoked_again(
    client, gm, player, dracula, mihail, forced_dice
):
    new_session(client, dracula, gm)
    action = partial_supernatural(client, dracula, player, mihail, forced_dice)
    invoked = followed(client, dracula, player, "jdr.talisman", action["seq"], words=MIHAIL_WORDS)
    followed(client, dracula, gm, "jdr.talisman_ruling", invoked["seq"], sincere=True)
    again = partial_supernatural(client, dracula, player, mihail, forced_dice)
    assert_refused(
        follow(client, dracula, player, "jdr.talisman", again["seq"], words=MIHAIL_WORDS),
        "JDR-22",
    )


def test_JDR_20_a_second_invocation_in_the_same_scene_is_refused_while_one_is_pending(
    client, gm, player, dracula, mihail, forced_dice
):
    new_session(client, dracula, gm)
    first = partial_supernatural(client, dracula, player, mihail, forced_dice)
    second = partial_supernatural(client, dracula, player, mihail, forced_dice)
    followed(client, dracula, player, "jdr.talisman", first["seq"], words=MIHAIL_WORDS)
    assert_refused(
        follow(client, dracula, player, "jdr.talisman", second["seq"], words=MIHAIL_WORDS),
        "JDR-20",
    )


def test_JDR_20_once_per_scene_even_after_a_penance_in_the_scene(
    client, gm, player, dracula, mihail, forced_dice
):
    new_session(client, dracula, gm)
    crack(client, dracula, gm, player, mihail, forced_dice)
    assert gm_event(client, dracula, gm, "jdr.penance", mihail).status_code == 201
    assert sheet_of(client, gm, mihail)["talisman"] == "ready"
    again = partial_supernatural(client, dracula, player, mihail, forced_dice)
    assert_refused(
        follow(client, dracula, player, "jdr.talisman", again["seq"], words=MIHAIL_WORDS),
        "JDR-20",
    )
    new_scene(client, dracula, gm)
    later = partial_supernatural(client, dracula, player, mihail, forced_dice)
    invoked = followed(client, dracula, player, "jdr.talisman", later["seq"], words=MIHAIL_WORDS)
    assert invoked["result"]["status"] == "pending"


def test_JDR_20_talisman_belongs_to_pcs_and_to_the_roller(
    client, gm, player, other_player, dracula, mihail, make_character, forced_dice
):
    new_session(client, dracula, gm)
    action = partial_supernatural(client, dracula, player, mihail, forced_dice)
    assert_problem(
        follow(client, dracula, other_player, "jdr.talisman", action["seq"], words=MIHAIL_WORDS),
        403,
    )
    priest = make_character(dracula, gm, kind="npc", name="Higoumène", sheet=DRACULA_SHEET)
    new_scene(client, dracula, gm)
    npc_action = partial_supernatural(client, dracula, gm, priest, forced_dice)
    assert_refused(
        follow(client, dracula, gm, "jdr.talisman", npc_action["seq"], words=MIHAIL_WORDS),
        "JDR-20",
    )


def test_JDR_20_talisman_applies_in_the_scene_of_its_roll(
    client, gm, player, dracula, mihail, forced_dice
):
    new_session(client, dracula, gm)
    action = partial_supernatural(client, dracula, player, mihail, forced_dice)
    new_scene(client, dracula, gm)
    assert_refused(
        follow(client, dracula, player, "jdr.talisman", action["seq"], words=MIHAIL_WORDS),
        "JDR-20",
    )


# --- JDR-24: cracked and spent talismans ---------------------------------------------------


def crack(client, campaign, gm, player, character, forced_dice) -> None:
    action = partial_supernatural(client, campaign, player, character, forced_dice)
    invoked = followed(client, campaign, player, "jdr.talisman", action["seq"], words="bon ben")
    followed(client, campaign, gm, "jdr.talisman_ruling", invoked["seq"], sincere=False)


def test_JDR_24_cracked_talisman_burdens_the_next_supernatural_confrontation_only(
    client, gm, player, dracula, mihail, forced_dice
):
    new_session(client, dracula, gm)
    crack(client, dracula, gm, player, mihail, forced_dice)
    protection = {"supernatural": True, "protection": True}
    # Not in the scene of the crack.
    forced_dice.push(5, 5)
    result = acted(client, dracula, player, mihail, context=protection)["result"]
    assert result["mode"] == "normal" and result["auto_disadvantage"] == []

    new_scene(client, dracula, gm, night=True)
    # Not on a roll that is no protection, nor on a protection against mundane wolves.
    forced_dice.push(5, 5)
    result = acted(client, dracula, player, mihail, context={"supernatural": True})["result"]
    assert result["mode"] == "normal"
    forced_dice.push(5, 5)
    result = acted(client, dracula, player, mihail, context={"protection": True})["result"]
    assert result["mode"] == "normal"
    # The next supernatural confrontation: Disadvantage on every protection roll in it.
    forced_dice.push(6, 2, 5)
    entry = acted(client, dracula, player, mihail, context=protection)
    assert entry["result"]["mode"] == "disadvantage"
    assert entry["result"]["auto_disadvantage"] == ["faith_shaken"]
    assert entry["result"]["kept"] == [False, True, True] and entry["result"]["total"] == 10
    assert effect_fields(entry) == [
        (
            "faith_shaken",
            {"cracked_scene": 1, "confrontation_scene": None},
            {"cracked_scene": 1, "confrontation_scene": 2},
        )
    ]
    forced_dice.push(6, 6, 1)
    result = acted(client, dracula, player, mihail, context=protection)["result"]
    assert result["auto_disadvantage"] == ["faith_shaken"] and result["total"] == 7 + 3

    new_scene(client, dracula, gm, night=True, facts=[facts(mihail, recollected=True)])
    forced_dice.push(6, 6)
    result = acted(client, dracula, player, mihail, context=protection)["result"]
    assert result["mode"] == "normal" and result["auto_disadvantage"] == []
    # It stays cracked until penance; recollection does not mend it.
    sheet = sheet_of(client, player, mihail)
    assert sheet["talisman"] == "cracked"
    action = partial_supernatural(client, dracula, player, mihail, forced_dice)
    assert_refused(
        follow(client, dracula, player, "jdr.talisman", action["seq"], words=MIHAIL_WORDS),
        "JDR-22",
    )


def test_JDR_24_penance_restores_a_cracked_talisman(
    client, gm, player, dracula, mihail, forced_dice
):
    new_session(client, dracula, gm)
    assert_refused(gm_event(client, dracula, gm, "jdr.penance", mihail), "JDR-24")
    crack(client, dracula, gm, player, mihail, forced_dice)
    assert_problem(gm_event(client, dracula, player, "jdr.penance", mihail), 403)
    assert sheet_of(client, gm, mihail)["talisman"] == "cracked"
    penance = gm_event(client, dracula, gm, "jdr.penance", mihail, "confession au monastère")
    assert penance.status_code == 201, penance.text
    penance = penance.json()
    assert penance["draws"] == [] and penance["result"]["restored"] == "talisman"
    assert penance["result"]["description"] == "confession au monastère"
    sheet = sheet_of(client, gm, mihail)
    assert sheet["talisman"] == "ready" and sheet.get("faith_shaken") is None
    # The faith is rebuilt: no Disadvantage in the next confrontation.
    new_scene(client, dracula, gm, night=True)
    forced_dice.push(5, 5)
    result = acted(
        client, dracula, player, mihail, context={"supernatural": True, "protection": True}
    )["result"]
    assert result["mode"] == "normal"


def test_JDR_24_spent_talisman_recharges_after_a_night_and_recollection_only(
    client, gm, player, dracula, mihail, forced_dice
):
    new_session(client, dracula, gm)
    action = partial_supernatural(client, dracula, player, mihail, forced_dice)
    invoked = followed(client, dracula, player, "jdr.talisman", action["seq"], words=MIHAIL_WORDS)
    followed(client, dracula, gm, "jdr.talisman_ruling", invoked["seq"], sincere=True)

    scene = new_scene(client, dracula, gm, night=True)
    assert scene["effects"] == [] and sheet_of(client, gm, mihail)["talisman"] == "spent"
    scene = new_scene(client, dracula, gm, facts=[facts(mihail, recollected=True)])
    assert scene["effects"] == [] and sheet_of(client, gm, mihail)["talisman"] == "spent"
    scene = new_scene(client, dracula, gm, night=True, facts=[facts(mihail, recollected=True)])
    assert [(e["character_id"], e["field"], e["after"]) for e in scene["effects"]] == [
        (mihail["id"], "talisman", "ready")
    ]
    assert scene["effects"][0]["rule"] == "JDR-24"
    assert sheet_of(client, gm, mihail)["talisman"] == "ready"
    again = partial_supernatural(client, dracula, player, mihail, forced_dice)
    invoked = followed(client, dracula, player, "jdr.talisman", again["seq"], words=MIHAIL_WORDS)
    assert invoked["result"]["status"] == "pending"


def test_JDR_24_a_new_session_after_a_night_of_prayer_also_recharges(
    client, gm, player, dracula, mihail, forced_dice
):
    new_session(client, dracula, gm)
    action = partial_supernatural(client, dracula, player, mihail, forced_dice)
    invoked = followed(client, dracula, player, "jdr.talisman", action["seq"], words=MIHAIL_WORDS)
    followed(client, dracula, gm, "jdr.talisman_ruling", invoked["seq"], sincere=True)
    session = new_session(client, dracula, gm, night=True, facts=[facts(mihail, recollected=True)])
    assert ("talisman", "ready") in [(e["field"], e["after"]) for e in session["effects"]]


# --- JDR-25/26/27: the Joker du destin -------------------------------------------------------


def peril(client, campaign, caller, character, forced_dice, faces=(1, 1), **extra: Any):
    """A physique roll in direct peril (a fall on an icy stair)."""
    forced_dice.push(*faces)
    return acted(
        client, campaign, caller, character, "physique", context={"direct_peril": True}, **extra
    )


def test_JDR_25_joker_rerolls_an_action_of_direct_peril_with_new_dice(
    client, gm, player, dracula, mihail, forced_dice
):
    new_session(client, dracula, gm)
    action = peril(client, dracula, player, mihail, forced_dice, talent="Théologie")
    assert action["result"]["total"] == 2 + 2 + 2 and action["result"]["tier"] == "failure"
    forced_dice.push(5, 6)
    joker = followed(client, dracula, player, "jdr.joker", action["seq"])
    assert joker["kind"] == "jdr.joker" and joker["follows"] == action["seq"]
    assert [d["face"] for d in joker["draws"]] == [5, 6]
    result = joker["result"]
    assert result["dice"] == [5, 6] and result["rerolls"] == action["seq"]
    assert result["total"] == 11 + 2 + 2 and result["tier"] == "critical_success"
    assert result["label"] == "Succès critique"
    assert ("joker", "ready", "spent") in effect_fields(joker)
    assert sheet_of(client, player, mihail)["joker"] == "spent"


def test_JDR_25_joker_keeps_the_rolls_advantage(
    client, gm, player, cthulhu, penhaligon, forced_dice
):
    new_session(client, cthulhu, gm)
    forced_dice.push(1, 1, 2)
    action = acted(
        client,
        cthulhu,
        player,
        penhaligon,
        "physique",
        advantage=True,
        context={"direct_peril": True},
    )
    forced_dice.push(1, 6, 6)
    result = followed(client, cthulhu, player, "jdr.joker", action["seq"])["result"]
    assert result["mode"] == "advantage" and result["kept"] == [False, True, True]
    assert result["total"] == 12 + 1


def test_JDR_25_joker_refused_without_direct_peril(
    client, gm, player, dracula, mihail, forced_dice
):
    new_session(client, dracula, gm)
    forced_dice.push(1, 1)
    action = acted(client, dracula, player, mihail, "physique")
    before = last_seq(client, dracula, gm)
    assert_refused(follow(client, dracula, player, "jdr.joker", action["seq"]), "JDR-25")
    assert last_seq(client, dracula, gm) == before
    assert sheet_of(client, player, mihail)["joker"] == "ready"


def test_JDR_25_the_second_result_is_final(client, gm, player, dracula, mihail, forced_dice):
    new_session(client, dracula, gm)
    action = peril(client, dracula, player, mihail, forced_dice)
    forced_dice.push(2, 3)  # 5 + physique 2 = 7: a failure, and it is kept
    joker = followed(client, dracula, player, "jdr.joker", action["seq"])
    assert joker["result"]["tier"] == "failure"
    gm_patch(client, gm, mihail, {"joker": "ready"})  # even with a Joker at hand
    assert_refused(follow(client, dracula, player, "jdr.joker", action["seq"]), "JDR-25")
    assert_refused(follow(client, dracula, player, "jdr.joker", joker["seq"]), "JDR-25")


def test_JDR_25_joker_belongs_to_pcs(client, gm, dracula, make_character, forced_dice):
    new_session(client, dracula, gm)
    innkeeper = make_character(dracula, gm, kind="npc", name="Aubergiste", sheet=DRACULA_SHEET)
    action = peril(client, dracula, gm, innkeeper, forced_dice)
    assert_refused(follow(client, dracula, gm, "jdr.joker", action["seq"]), "JDR-25")


def test_JDR_26_joker_spent_until_the_next_session(
    client, gm, player, dracula, mihail, forced_dice
):
    new_session(client, dracula, gm)
    action = peril(client, dracula, player, mihail, forced_dice)
    forced_dice.push(2, 2)
    followed(client, dracula, player, "jdr.joker", action["seq"])
    other = peril(client, dracula, player, mihail, forced_dice)
    assert_refused(follow(client, dracula, player, "jdr.joker", other["seq"]), "JDR-26")
    # A new scene, even after a night, is the same session.
    scene = new_scene(client, dracula, gm, night=True, facts=[facts(mihail, recollected=True)])
    assert scene["effects"] == []
    later = peril(client, dracula, player, mihail, forced_dice)
    assert_refused(follow(client, dracula, player, "jdr.joker", later["seq"]), "JDR-26")
    assert sheet_of(client, player, mihail)["joker"] == "spent"

    session = new_session(client, dracula, gm)
    assert [(e["field"], e["before"], e["after"], e["rule"]) for e in session["effects"]] == [
        ("joker", "spent", "ready", "JDR-26")
    ]
    assert sheet_of(client, player, mihail)["joker"] == "ready"
    fresh = peril(client, dracula, player, mihail, forced_dice)
    forced_dice.push(6, 6)
    assert followed(client, dracula, player, "jdr.joker", fresh["seq"])["result"]["total"] == 14


def test_JDR_27_joker_refused_after_the_talisman(client, gm, player, dracula, mihail, forced_dice):
    new_session(client, dracula, gm)
    action = partial_supernatural(client, dracula, player, mihail, forced_dice, direct_peril=True)
    invoked = followed(client, dracula, player, "jdr.talisman", action["seq"], words=MIHAIL_WORDS)
    assert_refused(follow(client, dracula, player, "jdr.joker", action["seq"]), "JDR-27")
    followed(client, dracula, gm, "jdr.talisman_ruling", invoked["seq"], sincere=False)
    assert_refused(follow(client, dracula, player, "jdr.joker", action["seq"]), "JDR-27")
    assert sheet_of(client, player, mihail)["joker"] == "ready"


def test_JDR_27_talisman_refused_after_the_joker(client, gm, player, dracula, mihail, forced_dice):
    new_session(client, dracula, gm)
    action = partial_supernatural(client, dracula, player, mihail, forced_dice, direct_peril=True)
    forced_dice.push(4, 3)  # the reroll: 7 + Mental 3 = 10, a partial success again
    joker = followed(client, dracula, player, "jdr.joker", action["seq"])
    assert joker["result"]["tier"] == "partial_success"
    # Neither on the original action nor on the reroll.
    assert_refused(
        follow(client, dracula, player, "jdr.talisman", action["seq"], words=MIHAIL_WORDS),
        "JDR-27",
    )
    assert_refused(
        follow(client, dracula, player, "jdr.talisman", joker["seq"], words=MIHAIL_WORDS),
        "JDR-27",
    )
    assert sheet_of(client, player, mihail)["talisman"] == "ready"


def test_JDR_27_joker_refused_after_the_effleurement(
    client, gm, player, cthulhu, penhaligon, forced_dice
):
    new_session(client, cthulhu, gm)
    forced_dice.push(3, 4)
    action = acted(
        client,
        cthulhu,
        player,
        penhaligon,
        context={"domain": "investigation", "direct_peril": True},
    )
    followed(client, cthulhu, player, "jdr.effleurement", action["seq"], mark="un tic nerveux")
    assert_refused(follow(client, cthulhu, player, "jdr.joker", action["seq"]), "JDR-27")
    assert sheet_of(client, player, penhaligon)["joker"] == "ready"


def test_JDR_27_effleurement_refused_after_the_joker(
    client, gm, player, cthulhu, penhaligon, forced_dice
):
    new_session(client, cthulhu, gm)
    forced_dice.push(3, 4)
    action = acted(
        client,
        cthulhu,
        player,
        penhaligon,
        context={"domain": "investigation", "direct_peril": True},
    )
    forced_dice.push(4, 3)
    joker = followed(client, cthulhu, player, "jdr.joker", action["seq"])
    assert joker["result"]["tier"] == "partial_success"
    for seq in (action["seq"], joker["seq"]):
        assert_refused(
            follow(client, cthulhu, player, "jdr.effleurement", seq, mark="un tic"), "JDR-27"
        )
    sheet = sheet_of(client, player, penhaligon)
    assert sheet["marks"] == [] and sheet["effleurement"] == "ready"


# --- JDR-28/29/29a: the Effleurement Cosmique [C] ------------------------------------------


def partial_investigation(client, campaign, caller, character, forced_dice, domain="investigation"):
    forced_dice.push(3, 4)
    action = acted(client, campaign, caller, character, context={"domain": domain})
    assert action["result"]["tier"] == "partial_success"
    return action


def test_JDR_28_effleurement_turns_a_partial_success_into_success_with_a_counted_mark(
    client, gm, player, cthulhu, penhaligon, forced_dice
):
    new_session(client, cthulhu, gm)
    action = partial_investigation(client, cthulhu, player, penhaligon, forced_dice)
    touched = followed(
        client, cthulhu, player, "jdr.effleurement", action["seq"], mark="rêve d'eau noire"
    )
    assert touched["draws"] == [] and touched["follows"] == action["seq"]
    mark = {"description": "rêve d'eau noire", "counted": True, "scene": 1}
    assert touched["result"] == {
        "status": "applied",
        "tier": "success",
        "label": "Succès complet",
        "upgraded_from": "partial_success",
        "mark": mark,
        "counted_marks": 1,
    }
    sheet = sheet_of(client, player, penhaligon)
    assert sheet["marks"] == [mark] and sheet["effleurement"] == "spent"


@pytest.mark.parametrize(
    "domain", ["investigation", "erudition", "observation", "occult", "mythos"]
)
def test_JDR_29_effleurement_works_in_each_domain_of_hidden_truth(
    client, gm, player, cthulhu, penhaligon, forced_dice, domain
):
    new_session(client, cthulhu, gm)
    action = partial_investigation(client, cthulhu, player, penhaligon, forced_dice, domain)
    touched = followed(client, cthulhu, player, "jdr.effleurement", action["seq"], mark="un mot")
    assert touched["result"]["tier"] == "success"


def test_JDR_29_effleurement_refused_outside_its_domains(
    client, gm, player, cthulhu, penhaligon, forced_dice
):
    new_session(client, cthulhu, gm)
    forced_dice.push(3, 4)  # a bare-handed duel
    action = acted(client, cthulhu, player, penhaligon, context={"domain": "other"})
    before = last_seq(client, cthulhu, gm)
    response = follow(client, cthulhu, player, "jdr.effleurement", action["seq"], mark="un tic")
    assert_refused(response, "JDR-29")
    assert last_seq(client, cthulhu, gm) == before
    sheet = sheet_of(client, player, penhaligon)
    assert sheet["marks"] == [] and sheet["effleurement"] == "ready"


@pytest.mark.parametrize(("faces", "tier"), [((2, 3), "failure"), ((4, 4), "success")])
def test_JDR_28_effleurement_refused_unless_partial(
    client, gm, player, cthulhu, penhaligon, forced_dice, faces, tier
):
    new_session(client, cthulhu, gm)
    forced_dice.push(*faces)
    action = acted(client, cthulhu, player, penhaligon, context={"domain": "occult"})
    assert action["result"]["tier"] == tier
    assert_refused(
        follow(client, cthulhu, player, "jdr.effleurement", action["seq"], mark="un tic"),
        "JDR-28",
    )


def test_JDR_28_spent_effleurement_and_a_second_one_on_the_same_action_are_refused(
    client, gm, player, cthulhu, penhaligon, forced_dice
):
    new_session(client, cthulhu, gm)
    action = partial_investigation(client, cthulhu, player, penhaligon, forced_dice)
    followed(client, cthulhu, player, "jdr.effleurement", action["seq"], mark="un tic")
    gm_patch(client, gm, penhaligon, {"effleurement": "ready"})
    assert_refused(
        follow(client, cthulhu, player, "jdr.effleurement", action["seq"], mark="un autre"),
        "JDR-28",
    )
    gm_patch(client, gm, penhaligon, {"effleurement": "spent"})
    other = partial_investigation(client, cthulhu, player, penhaligon, forced_dice)
    response = follow(client, cthulhu, player, "jdr.effleurement", other["seq"], mark="un autre")
    assert_refused(response, "JDR-28")
    assert len(sheet_of(client, player, penhaligon)["marks"]) == 1


def test_JDR_28_once_per_scene_even_after_a_sacrifice_in_the_scene(
    client, gm, player, cthulhu, penhaligon, forced_dice
):
    new_session(client, cthulhu, gm)
    action = partial_investigation(client, cthulhu, player, penhaligon, forced_dice)
    followed(client, cthulhu, player, "jdr.effleurement", action["seq"], mark="un tic")
    assert (
        gm_event(client, cthulhu, gm, "jdr.sacrifice", penhaligon, "brûle une page").status_code
        == 201
    )
    assert sheet_of(client, gm, penhaligon)["effleurement"] == "ready"
    again = partial_investigation(client, cthulhu, player, penhaligon, forced_dice)
    assert_refused(
        follow(client, cthulhu, player, "jdr.effleurement", again["seq"], mark="un autre"),
        "JDR-28",
    )
    new_scene(client, cthulhu, gm)
    later = partial_investigation(client, cthulhu, player, penhaligon, forced_dice)
    touched = followed(client, cthulhu, player, "jdr.effleurement", later["seq"], mark="un autre")
    assert touched["result"]["tier"] == "success"
    assert len(sheet_of(client, gm, penhaligon)["marks"]) == 2


def test_JDR_28_the_player_describes_the_mark(
    client, gm, player, other_player, cthulhu, penhaligon, make_character, forced_dice
):
    new_session(client, cthulhu, gm)
    action = partial_investigation(client, cthulhu, player, penhaligon, forced_dice)
    assert_problem(follow(client, cthulhu, player, "jdr.effleurement", action["seq"]), 422)
    assert_problem(
        follow(client, cthulhu, player, "jdr.effleurement", action["seq"], mark=" "), 422
    )
    assert_problem(
        follow(client, cthulhu, other_player, "jdr.effleurement", action["seq"], mark="x"), 403
    )
    witness = make_character(cthulhu, gm, kind="npc", name="Témoin", sheet=CTHULHU_SHEET)
    npc_action = partial_investigation(client, cthulhu, gm, witness, forced_dice)
    assert_refused(
        follow(client, cthulhu, gm, "jdr.effleurement", npc_action["seq"], mark="x"), "JDR-28"
    )


def test_JDR_29_gm_refusal_undoes_the_effleurement(
    client, gm, player, cthulhu, penhaligon, forced_dice
):
    new_session(client, cthulhu, gm)
    gm_patch(
        client,
        gm,
        penhaligon,
        {"marks": [{"description": "cauchemar de cloches", "counted": True, "scene": 0}]},
    )
    action = partial_investigation(client, cthulhu, player, penhaligon, forced_dice, "observation")
    touched = followed(client, cthulhu, player, "jdr.effleurement", action["seq"], mark="un tic")
    assert len(sheet_of(client, gm, penhaligon)["marks"]) == 2

    response = follow(client, cthulhu, player, "jdr.effleurement_refusal", touched["seq"])
    assert_problem(response, 403, "GM")
    refusal = followed(
        client,
        cthulhu,
        gm,
        "jdr.effleurement_refusal",
        touched["seq"],
        reason="aucun lien avec une vérité cachée",
    )
    assert refusal["follows"] == touched["seq"] and refusal["draws"] == []
    assert refusal["result"] == {
        "status": "refused",
        "tier": "partial_success",
        "label": "Succès partiel",
        "reason": "aucun lien avec une vérité cachée",
    }
    sheet = sheet_of(client, gm, penhaligon)
    assert sheet["marks"] == [{"description": "cauchemar de cloches", "counted": True, "scene": 0}]
    assert sheet["effleurement"] == "ready"
    # Recorded once.
    assert_refused(
        follow(client, cthulhu, gm, "jdr.effleurement_refusal", touched["seq"]), "JDR-29"
    )
    assert_problem(follow(client, cthulhu, gm, "jdr.effleurement_refusal", action["seq"]), 422)
    kinds = [e["kind"] for e in log_entries(client, cthulhu, gm)]
    assert kinds.count("jdr.effleurement_refusal") == 1


def test_JDR_29a_safe_sleep_recharges_the_effleurement(
    client, gm, player, cthulhu, penhaligon, forced_dice
):
    new_session(client, cthulhu, gm)
    action = partial_investigation(client, cthulhu, player, penhaligon, forced_dice)
    followed(client, cthulhu, player, "jdr.effleurement", action["seq"], mark="un tic")
    scene = new_scene(client, cthulhu, gm, night=True)
    assert scene["effects"] == []
    scene = new_scene(client, cthulhu, gm, facts=[facts(penhaligon, slept_safely=True)])
    assert scene["effects"] == []
    assert sheet_of(client, player, penhaligon)["effleurement"] == "spent"
    scene = new_scene(client, cthulhu, gm, night=True, facts=[facts(penhaligon, slept_safely=True)])
    assert [(e["field"], e["before"], e["after"], e["rule"]) for e in scene["effects"]] == [
        ("effleurement", "spent", "ready", "JDR-29a")
    ]
    assert sheet_of(client, player, penhaligon)["effleurement"] == "ready"
    # Recollection is the Talisman's; it recharges nothing here.
    again = partial_investigation(client, cthulhu, player, penhaligon, forced_dice)
    followed(client, cthulhu, player, "jdr.effleurement", again["seq"], mark="un autre tic")
    scene = new_scene(client, cthulhu, gm, night=True, facts=[facts(penhaligon, recollected=True)])
    assert scene["effects"] == []


def test_JDR_29a_sacrifice_of_knowledge_recharges_the_effleurement(
    client, gm, player, cthulhu, penhaligon, forced_dice
):
    new_session(client, cthulhu, gm)
    before = last_seq(client, cthulhu, gm)
    assert_refused(gm_event(client, cthulhu, gm, "jdr.sacrifice", penhaligon), "JDR-29a")
    assert last_seq(client, cthulhu, gm) == before
    action = partial_investigation(client, cthulhu, player, penhaligon, forced_dice)
    followed(client, cthulhu, player, "jdr.effleurement", action["seq"], mark="un tic")
    assert_problem(gm_event(client, cthulhu, player, "jdr.sacrifice", penhaligon), 403)
    sacrifice = gm_event(
        client, cthulhu, gm, "jdr.sacrifice", penhaligon, "jette la statuette à la mer"
    )
    assert sacrifice.status_code == 201, sacrifice.text
    sacrifice = sacrifice.json()
    assert sacrifice["draws"] == [] and sacrifice["result"]["recharged"] == "effleurement"
    assert ("effleurement", "spent", "ready") in effect_fields(sacrifice)
    assert sheet_of(client, player, penhaligon)["effleurement"] == "ready"


# --- JDR-7 / JDR-42: more than five counted marks ------------------------------------------


def five_counted_marks() -> list[dict[str, Any]]:
    return [{"description": f"marque {n}", "counted": True, "scene": 0} for n in range(1, 6)]


def test_JDR_42_a_sixth_counted_mark_makes_the_pc_an_npc(
    client, gm, player, cthulhu, penhaligon, forced_dice
):
    new_session(client, cthulhu, gm)
    uncounted = {"description": "un détail", "counted": False, "scene": 0}
    gm_patch(client, gm, penhaligon, {"marks": [*five_counted_marks(), uncounted, uncounted]})
    # Five counted marks (uncounted ones aside) keep the PC playable.
    action = partial_investigation(client, cthulhu, player, penhaligon, forced_dice)
    touched = followed(client, cthulhu, player, "jdr.effleurement", action["seq"], mark="la 6e")
    assert touched["result"]["counted_marks"] == 6
    assert ("status", "active", "npc") in effect_fields(touched)
    assert [e["rule"] for e in touched["effects"] if e["field"] == "status"] == ["JDR-42"]
    assert sheet_of(client, gm, penhaligon)["status"] == "npc"

    before = last_seq(client, cthulhu, gm)
    for response in (
        act(client, cthulhu, player, penhaligon),
        post_roll(
            client,
            cthulhu,
            player,
            {
                "kind": "jdr.mythos",
                "character_id": penhaligon["id"],
                "difficulty": 9,
                "source": "une lettre",
            },
        ),
        follow(client, cthulhu, player, "jdr.joker", action["seq"]),
    ):
        assert_refused(response, "JDR-42")
    assert last_seq(client, cthulhu, gm) == before
    # The player cannot bring them back.
    assert_problem(
        client.patch(
            f"{API}/characters/{penhaligon['id']}",
            json={"sheet": {"status": "active"}},
            headers=player.headers,
        ),
        403,
    )
    # The GM plays them now.
    forced_dice.push(3, 3)
    entry = acted(client, cthulhu, gm, penhaligon)
    assert entry["actor_id"] == gm.id and entry["result"]["total"] == 9


def test_JDR_42_five_counted_marks_keep_the_pc_active(
    client, gm, player, cthulhu, penhaligon, forced_dice
):
    new_session(client, cthulhu, gm)
    gm_patch(client, gm, penhaligon, {"marks": five_counted_marks()[:4]})
    action = partial_investigation(client, cthulhu, player, penhaligon, forced_dice)
    touched = followed(client, cthulhu, player, "jdr.effleurement", action["seq"], mark="la 5e")
    assert touched["result"]["counted_marks"] == 5
    assert "status" not in [e["field"] for e in touched["effects"]]
    assert sheet_of(client, gm, penhaligon)["status"] == "active"
    forced_dice.push(3, 3)
    assert act(client, cthulhu, player, penhaligon).status_code == 201


def test_JDR_42_a_critical_mythos_failure_can_be_the_sixth_mark(
    client, gm, player, cthulhu, penhaligon, forced_dice
):
    new_session(client, cthulhu, gm)
    gm_patch(client, gm, penhaligon, {"marks": five_counted_marks()})
    forced_dice.push(1, 1)
    entry = post_roll(
        client,
        cthulhu,
        player,
        {
            "kind": "jdr.mythos",
            "character_id": penhaligon["id"],
            "difficulty": 15,
            "source": "fragment du Necronomicon",
        },
    ).json()
    assert entry["result"]["outcome"] == "critical_failure"
    assert ("status", "active", "npc") in effect_fields(entry)
    assert_refused(act(client, cthulhu, player, penhaligon), "JDR-42")


def test_JDR_42_gm_refusal_of_the_sixth_mark_makes_the_pc_playable_again(
    client, gm, player, cthulhu, penhaligon, forced_dice
):
    new_session(client, cthulhu, gm)
    gm_patch(client, gm, penhaligon, {"marks": five_counted_marks()})
    action = partial_investigation(client, cthulhu, player, penhaligon, forced_dice)
    touched = followed(client, cthulhu, player, "jdr.effleurement", action["seq"], mark="la 6e")
    assert sheet_of(client, gm, penhaligon)["status"] == "npc"
    refusal = followed(client, cthulhu, gm, "jdr.effleurement_refusal", touched["seq"])
    assert ("status", "npc", "active") in effect_fields(refusal)
    assert sheet_of(client, gm, penhaligon)["status"] == "active"
    forced_dice.push(3, 3)
    assert act(client, cthulhu, player, penhaligon).status_code == 201


# --- settings: each setting's kinds stay in their setting ----------------------------------


def test_dracula_kinds_are_422_in_a_cthulhu_campaign(
    client, gm, player, cthulhu, penhaligon, make_character, forced_dice
):
    new_session(client, cthulhu, gm)
    action = partial_investigation(client, cthulhu, player, penhaligon, forced_dice)
    before = last_seq(client, cthulhu, gm)
    assert_problem(
        follow(client, cthulhu, player, "jdr.talisman", action["seq"], words=MIHAIL_WORDS), 422
    )
    assert_problem(
        follow(client, cthulhu, gm, "jdr.talisman_ruling", action["seq"], sincere=True), 422
    )
    assert_problem(gm_event(client, cthulhu, gm, "jdr.penance", penhaligon), 422)
    shoggoth = make_character(
        cthulhu,
        gm,
        kind="npc",
        name="Chose",
        sheet={"traits": {"mental": 0, "physique": 5, "social": 0}, "tags": ["vampire"]},
    )
    assert_problem(
        post_roll(
            client,
            cthulhu,
            player,
            {
                "kind": "jdr.holy_water",
                "attacker_id": penhaligon["id"],
                "target_id": shoggoth["id"],
            },
        ),
        422,
    )
    assert last_seq(client, cthulhu, gm) == before
    assert_problem(
        client.patch(
            f"{API}/characters/{penhaligon['id']}",
            json={"sheet": {"talisman": "ready"}},
            headers=gm.headers,
        ),
        422,
    )


def test_cthulhu_kinds_are_422_in_a_dracula_campaign(
    client, gm, player, dracula, mihail, forced_dice
):
    new_session(client, dracula, gm)
    forced_dice.push(3, 4)
    action = acted(client, dracula, player, mihail, context={"domain": "occult"})
    before = last_seq(client, dracula, gm)
    assert_problem(
        follow(client, dracula, player, "jdr.effleurement", action["seq"], mark="un tic"), 422
    )
    assert_problem(follow(client, dracula, gm, "jdr.effleurement_refusal", action["seq"]), 422)
    assert_problem(gm_event(client, dracula, gm, "jdr.sacrifice", mihail), 422)
    assert_problem(
        post_roll(
            client,
            dracula,
            player,
            {
                "kind": "jdr.mythos",
                "character_id": mihail["id"],
                "difficulty": 12,
                "source": "grimoire",
            },
        ),
        422,
    )
    assert last_seq(client, dracula, gm) == before
    assert sheet_of(client, gm, mihail).get("marks") is None


def test_jdr_kinds_are_422_outside_jdr_campaigns(client, gm, make_campaign, make_character):
    campaign = make_campaign("vampire")
    lucie = make_character(campaign, gm, name="Lucie")
    client.post(url(campaign, "/sessions"), json={}, headers=gm.headers)
    assert_problem(act(client, campaign, gm, lucie), 422)


# --- the examples of play ------------------------------------------------------------------


def mihail_in_the_chapel(client, gm, player, make_campaign, make_character, forced_dice):
    campaign = make_campaign(DRACULA, players=(player,), name="Les Carpates")
    mihail = make_character(
        campaign,
        player,
        name="Père Mihail Stanescu",
        sheet={
            "traits": {"mental": 3, "physique": 2, "social": 2},
            "faith": "believer",
            "sacred_object": "croix d'argent ternie, portée sous la soutane",
        },
    )
    vampire = make_character(
        campaign,
        gm,
        kind="npc",
        name="Vampire mineur",
        sheet={"traits": {"mental": 2, "physique": 3, "social": 1}, "tags": ["vampire", "undead"]},
    )
    new_session(client, campaign, gm)
    # 2D6 + Mental to drive the creature back in the sacristy: 3 + 4 + 3 = 10.
    forced_dice.push(3, 4)
    action = acted(
        client,
        campaign,
        player,
        mihail,
        "mental",
        context={"supernatural": True, "protection": True},
    )
    assert action["result"]["total"] == 10
    assert action["result"]["tier"] == "partial_success"
    assert action["result"]["label"] == "Succès partiel"
    invoked = followed(client, campaign, player, "jdr.talisman", action["seq"], words=MIHAIL_WORDS)
    assert invoked["result"]["status"] == "pending" and invoked["draws"] == []
    return campaign, mihail, vampire, invoked


def test_example_of_play_pere_mihail_sincere_word_of_faith(
    client, gm, player, make_campaign, make_character, forced_dice
):
    campaign, mihail, _, invoked = mihail_in_the_chapel(
        client, gm, player, make_campaign, make_character, forced_dice
    )
    ruling = followed(client, campaign, gm, "jdr.talisman_ruling", invoked["seq"], sincere=True)
    # "Le 10 devient succès complet": no new dice, the tier is read as 11-14.
    assert ruling["draws"] == []
    assert ruling["result"]["tier"] == "success"
    assert ruling["result"]["label"] == "Succès complet"
    sheet = sheet_of(client, player, mihail)
    assert sheet["talisman"] == "spent" and sheet.get("faith_shaken") is None
    # session_started, the action, the invocation, the ruling.
    assert assert_verified(client, campaign, gm)["replayed"] == 4


def test_example_of_play_pere_mihail_hollow_words_crack_the_cross(
    client, gm, player, make_campaign, make_character, forced_dice
):
    campaign, mihail, vampire, invoked = mihail_in_the_chapel(
        client, gm, player, make_campaign, make_character, forced_dice
    )
    ruling = followed(client, campaign, gm, "jdr.talisman_ruling", invoked["seq"], sincere=False)
    # "le 10 serait resté un succès partiel, et la croix se serait fissurée pour la prochaine fois"
    assert ruling["result"]["tier"] == "partial_success"
    sheet = sheet_of(client, player, mihail)
    assert sheet["talisman"] == "cracked"
    assert sheet["faith_shaken"] == {"cracked_scene": 1, "confrontation_scene": None}
    # The next night, the next confrontation: Disadvantage on protection and attack.
    new_scene(client, campaign, gm, night=True, facts=[facts(mihail, recollected=True)])
    forced_dice.push(6, 3, 2)
    protection = acted(
        client, campaign, player, mihail, context={"supernatural": True, "protection": True}
    )
    assert protection["result"]["mode"] == "disadvantage"
    assert protection["result"]["kept"] == [False, True, True]
    assert protection["result"]["total"] == 5 + 3
    forced_dice.push(6, 6, 1)
    attack = post_roll(
        client,
        campaign,
        player,
        {
            "kind": "jdr.attack",
            "attacker_id": mihail["id"],
            "target_id": vampire["id"],
            "weapon": {"name": "pieu de frêne", "tags": ["ash_stake"]},
        },
    ).json()
    assert attack["result"]["auto_disadvantage"] == ["faith_shaken"]
    assert attack["result"]["kept"] == [True, False, True]
    assert sheet_of(client, player, mihail)["talisman"] == "cracked"
    # session_started, action, invocation, ruling, scene_started, protection, attack.
    assert assert_verified(client, campaign, gm)["replayed"] == 7


def test_example_of_play_dr_penhaligon_effleurement_at_innsmouth(
    client, gm, player, make_campaign, make_character, forced_dice
):
    campaign = make_campaign(CTHULHU, players=(player,), name="Innsmouth")
    penhaligon = make_character(
        campaign,
        player,
        name="Dr. Penhaligon",
        sheet={"traits": {"mental": 3, "physique": 1, "social": 2}},
    )
    new_session(client, campaign, gm)
    # He examines the corpse dragged from the water: a Mental roll of 10.
    forced_dice.push(4, 3)
    action = acted(
        client, campaign, player, penhaligon, "mental", context={"domain": "investigation"}
    )
    assert action["result"]["total"] == 10
    assert action["result"]["tier"] == "partial_success"
    touched = followed(
        client, campaign, player, "jdr.effleurement", action["seq"], mark=PENHALIGON_MARK
    )
    assert touched["draws"] == []
    assert touched["result"]["tier"] == "success"
    assert touched["result"]["label"] == "Succès complet"
    assert touched["result"]["mark"] == {
        "description": PENHALIGON_MARK,
        "counted": True,
        "scene": 1,
    }
    sheet = sheet_of(client, player, penhaligon)
    assert sheet["marks"] == [{"description": PENHALIGON_MARK, "counted": True, "scene": 1}]
    assert sheet["effleurement"] == "spent" and sheet["status"] == "active"
    # session_started, the action, the Effleurement.
    assert assert_verified(client, campaign, gm)["replayed"] == 3


def test_JDR_23_instructed_by_names_a_believing_pc_of_the_campaign(
    client, gm, player, other_player, make_campaign, make_character
):
    campaign = make_campaign(DRACULA, players=(player, other_player))
    atheist = make_character(campaign, player, sheet={**DRACULA_SHEET, "faith": "atheist"})
    believer = make_character(campaign, other_player, name="Soeur Ilinca")
    other_atheist = make_character(
        campaign, other_player, name="Radu", sheet={**DRACULA_SHEET, "faith": "atheist"}
    )
    url_ = f"{API}/characters/{atheist['id']}"
    for wrong in (other_atheist["id"], atheist["id"], "00000000-0000-4000-8000-000000000000"):
        response = client.patch(url_, json={"sheet": {"instructed_by": wrong}}, headers=gm.headers)
        body = assert_problem(response, 422, "JDR-23")
        assert body["rule"] == "JDR-23"
    response = client.patch(
        url_, json={"sheet": {"instructed_by": believer["id"]}}, headers=gm.headers
    )
    assert response.status_code == 200
    assert response.json()["sheet"]["instructed_by"] == believer["id"]
