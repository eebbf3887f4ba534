"""The JDR Express corrections of 2026-11-30 (rules version 4) through the API: the Joker
on attacks and Mythos tests (JDR-25), where a roll finally stands (`final`), results that
explain themselves, protection marked by the GM (JDR-24), marks by any path (JDR-42)."""

from __future__ import annotations

from tests.api.helpers import (
    assert_refused,
    gm_patch,
    new_scene,
    new_session,
    post_roll,
    sheet_of,
)
from tests.api.jdr.fights import attack_body, mythos, npc, wounds
from tests.api.jdr.plays import (
    MIHAIL_WORDS,
    acted,
    crack,
    five_counted_marks,
    follow,
    followed,
    partial_investigation,
    partial_supernatural,
    peril,
    protection_roll,
)
from tests.conftest import API, assert_problem

CLAWS = {"name": "griffes", "bonus": 1}


def rolls_get(client, campaign, caller, seq):
    response = client.get(f"{API}/campaigns/{campaign['id']}/rolls/{seq}", headers=caller.headers)
    assert response.status_code == 200, response.text
    return response.json()


# --- JDR-25 (corrected): the Joker on attacks and Mythos tests ----------------------------


def test_JDR_25_the_joker_rerolls_an_attack_made_against_the_pc(
    client, gm, player, dracula, hunter, brigand, forced_dice
):
    new_session(client, dracula, gm)
    forced_dice.push(6, 6)  # 12 + physique 2 + 1 = 15 against Defense 6: margin 9, serious
    hit = post_roll(client, dracula, gm, attack_body(brigand, hunter, CLAWS)).json()
    assert hit["result"]["severity"] == "serious"
    assert [w["severity"] for w in wounds(client, gm, hunter)] == ["serious"]
    # The target's player spends the Joker: the attacker's dice are redrawn.
    forced_dice.push(1, 2)  # 3 + 2 + 1 = 6 against 6: a miss
    joker = followed(client, dracula, player, "jdr.joker", hit["seq"])
    assert joker["character_id"] == hunter["id"] and joker["actor_id"] == player.id
    assert joker["rules"] == "jdr-express@4"
    rerolled = joker["result"]["attack"]
    assert rerolled["dice"] == [1, 2] and rerolled["hit"] is False and rerolled["severity"] is None
    assert joker["outcome"] == {"code": "miss", "label": "Miss"}
    # The first wound is undone, the Joker spent: the second result is kept.
    assert wounds(client, gm, hunter) == []
    assert sheet_of(client, player, hunter)["joker"] == "spent"
    assert tuple(sorted({e["field"] for e in joker["effects"]}))[::-1] == ("wounds", "joker")
    # The attack's view says where it finally stands.
    final = rolls_get(client, dracula, gm, hit["seq"])["final"]
    assert final == {"code": "miss", "label": "Miss", "by": joker["seq"]}
    assert_refused(follow(client, dracula, player, "jdr.joker", hit["seq"]), "JDR-25")


def test_JDR_25_the_joker_rerolls_the_pcs_own_attack_and_its_new_wound_stands(
    client, gm, player, dracula, hunter, brigand, forced_dice
):
    new_session(client, dracula, gm)
    forced_dice.push(1, 1)  # 2 + 3 = 5 against Defense 5: a miss
    miss = post_roll(client, dracula, player, attack_body(hunter, brigand)).json()
    forced_dice.push(6, 6)  # 12 + 3 + 1 = 16: margin 11, critical
    joker = followed(client, dracula, player, "jdr.joker", miss["seq"], character_id=hunter["id"])
    assert joker["result"]["rerolls"] == miss["seq"]
    (wound,) = wounds(client, gm, brigand)
    assert wound["severity"] == "critical"
    # FAIR-18: the player reads the brigand's Defense and margin committed, its wound too,
    # and the Joker copies none of the first attack's numbers: only its request and dice.
    seen = rolls_get(client, dracula, player, joker["seq"])
    rerolled = seen["result"]["attack"]
    assert rerolled["total"] == 15 and "$commit" in rerolled["defense"]
    first = seen["request"]["action"]
    assert set(first) == {"seq", "kind", "request", "draws"}
    assert [d["face"] for d in first["draws"]] == [1, 1]
    assert "$commit" in first["request"]["target"]["sheet"]
    assert rolls_get(client, dracula, gm, joker["seq"])["result"]["attack"]["margin"] == 10


def test_JDR_25_who_may_spend_the_joker_on_an_attack(
    client, gm, player, other_player, dracula, hunter, brigand, make_character, forced_dice
):
    new_session(client, dracula, gm)
    forced_dice.push(3, 3)
    hit = post_roll(client, dracula, gm, attack_body(brigand, hunter, CLAWS)).json()
    # Another player plays neither fighter; an NPC has no Joker.
    assert_problem(follow(client, dracula, other_player, "jdr.joker", hit["seq"]), 422)
    refused = follow(client, dracula, gm, "jdr.joker", hit["seq"], character_id=brigand["id"])
    assert_refused(refused, "JDR-25")
    stranger = npc(make_character, dracula, gm, "Passant")
    wrong = follow(client, dracula, player, "jdr.joker", hit["seq"], character_id=stranger["id"])
    assert_problem(wrong, 422, "neither the attacker nor the target")
    assert sheet_of(client, player, hunter)["joker"] == "ready"


def test_JDR_25_the_joker_rerolls_a_mythos_test_the_gm_marked_direct_peril(
    client, gm, player, cthulhu, penhaligon, forced_dice
):
    new_session(client, cthulhu, gm)
    forced_dice.push(1, 1)  # 2 + mental 3 = 5: a critical failure, a counted mark at once
    test = mythos(client, cthulhu, gm, penhaligon, 12, "Necronomicon", direct_peril=True).json()
    assert test["result"]["outcome"] == "critical_failure"
    assert [m["counted"] for m in sheet_of(client, player, penhaligon)["marks"]] == [True]
    forced_dice.push(5, 4)  # 9 + 3 = 12: a success, whose mark waits for its words
    joker = followed(client, cthulhu, player, "jdr.joker", test["seq"])
    assert joker["result"]["mythos"]["outcome"] == "success"
    assert joker["result"]["mythos"]["mark_pending"] is True
    assert sheet_of(client, player, penhaligon)["marks"] == []  # the first mark is undone
    assert rolls_get(client, cthulhu, player, test["seq"])["final"]["code"] == "success"


def test_JDR_25_a_mythos_test_not_marked_direct_peril_is_not_rerolled(
    client, gm, player, cthulhu, penhaligon, forced_dice
):
    new_session(client, cthulhu, gm)
    forced_dice.push(1, 1)
    test = mythos(client, cthulhu, gm, penhaligon, 12, "Necronomicon").json()
    assert_refused(follow(client, cthulhu, player, "jdr.joker", test["seq"]), "JDR-25")


def test_JDR_25_direct_peril_on_a_mythos_test_is_the_gms_to_mark(
    client, gm, player, make_campaign, make_character
):
    campaign = make_campaign("jdr-express-cthulhu", players=(player,))
    penhaligon = make_character(campaign, player, name="Dr. Penhaligon")
    new_session(client, campaign, gm)
    claimed = mythos(client, campaign, player, penhaligon, 9, "lettre", direct_peril=True)
    assert_problem(claimed, 403, "direct_peril")


# --- where a roll finally stands (the view's `final`) ------------------------------------


def test_JDR_21_the_action_and_its_invocation_show_the_gms_ruling(
    client, gm, player, dracula, mihail, forced_dice
):
    new_session(client, dracula, gm)
    action = partial_supernatural(client, dracula, player, mihail, forced_dice)
    assert "final" not in rolls_get(client, dracula, player, action["seq"])
    invoked = followed(client, dracula, player, "jdr.talisman", action["seq"], words=MIHAIL_WORDS)
    assert "final" not in rolls_get(client, dracula, player, invoked["seq"])  # pending
    ruling = followed(client, dracula, gm, "jdr.talisman_ruling", invoked["seq"], sincere=True)
    seen = rolls_get(client, dracula, player, action["seq"])
    assert seen["result"]["tier"] == "partial_success"  # the hashed entry never changes
    assert seen["final"] == {"code": "success", "label": "Complete success", "by": ruling["seq"]}
    assert seen["follow_ups"] == [
        {"seq": invoked["seq"], "kind": "jdr.talisman", "status": "sincere"}
    ]
    invocation = rolls_get(client, dracula, player, invoked["seq"])
    assert invocation["result"]["status"] == "pending"
    assert invocation["final"]["code"] == "sincere" and invocation["final"]["by"] == ruling["seq"]
    french = client.get(
        f"{API}/campaigns/{dracula['id']}/rolls/{action['seq']}",
        headers={**player.headers, "Accept-Language": "fr"},
    ).json()
    assert french["final"]["label"] == "Succès complet"


def test_JDR_25_an_action_rerolled_by_the_joker_shows_its_reroll(
    client, gm, player, dracula, mihail, forced_dice
):
    new_session(client, dracula, gm)
    action = peril(client, dracula, player, mihail, forced_dice)
    assert action["result"]["tier"] == "critical_failure"
    forced_dice.push(6, 5)  # 11 + physique 2
    joker = followed(client, dracula, player, "jdr.joker", action["seq"])
    final = rolls_get(client, dracula, player, action["seq"])["final"]
    assert final == {"code": "success", "label": "Complete success", "by": joker["seq"]}
    log = client.get(f"{API}/campaigns/{dracula['id']}/log", headers=player.headers).json()
    (listed,) = [e for e in log["data"] if e["seq"] == action["seq"]]
    assert listed["final"] == final


def test_JDR_29_an_effleurement_the_gm_refused_leaves_the_partial_success(
    client, gm, player, cthulhu, penhaligon, forced_dice
):
    new_session(client, cthulhu, gm)
    action = partial_investigation(client, cthulhu, player, penhaligon, forced_dice)
    touched = followed(client, cthulhu, player, "jdr.effleurement", action["seq"], mark="un tic")
    assert rolls_get(client, cthulhu, player, action["seq"])["final"]["code"] == "success"
    refusal = followed(client, cthulhu, gm, "jdr.effleurement_refusal", touched["seq"])
    final = rolls_get(client, cthulhu, player, action["seq"])["final"]
    assert final["code"] == "partial_success" and final["by"] == refusal["seq"]
    assert rolls_get(client, cthulhu, player, touched["seq"])["final"]["code"] == "refused"


# --- JDR-10/JDR-31a: results that explain themselves --------------------------------------


def test_JDR_10_the_result_shows_the_gms_modifier_and_a_withheld_talent(
    client, gm, player, dracula, mihail, forced_dice
):
    new_session(client, dracula, gm)
    forced_dice.push(3, 3)
    result = acted(client, dracula, player, mihail, modifier=-2, talent="Théologie")["result"]
    assert result["modifier"] == -2 and result["talent_bonus"] == 2
    assert result["total"] == 6 + 3 + 2 - 2
    forced_dice.push(3, 3)
    body = {"talent": "Théologie", "no_talent_bonus": True}
    result = acted(client, dracula, player, mihail, **body)["result"]
    assert result["talent_bonus"] == 0 and result["talent_withheld"] == "off_guard"


# --- JDR-24 (corrected): protection is the GM's to mark -----------------------------------


def cracked_the_scene_before(client, gm, player, make_campaign, make_character, forced_dice):
    """Père Mihail, whose talisman cracked in the scene before (no players_set option)."""
    campaign = make_campaign("jdr-express-dracula", players=(player,))
    mihail = make_character(campaign, player, name="Père Mihail")
    new_session(client, campaign, gm)
    crack(client, campaign, gm, player, mihail, forced_dice)
    new_scene(client, campaign, gm, night=True)
    return campaign, mihail


def test_JDR_24_a_cracked_talisman_burdens_the_protection_roll_the_gm_marks(
    client, gm, player, make_campaign, make_character, forced_dice
):
    campaign, mihail = cracked_the_scene_before(
        client, gm, player, make_campaign, make_character, forced_dice
    )
    # Without the campaign option, a player may not mark their own roll (nor dodge it).
    claimed = post_roll(
        client,
        campaign,
        player,
        {
            "kind": "jdr.action",
            "character_id": mihail["id"],
            "trait": "mental",
            "context": {"supernatural": True, "protection": True},
        },
    )
    assert_problem(claimed, 403, "context.protection")
    forced_dice.push(6, 3, 2)
    entry = protection_roll(client, campaign, gm, player, mihail, supernatural=True)
    assert entry["result"]["auto_disadvantage"] == ["faith_shaken"]
    assert entry["result"]["mode"] == "disadvantage"


# --- JDR-42 (corrected): six counted marks by any path ------------------------------------


def test_JDR_42_a_gm_override_to_six_counted_marks_makes_the_pc_an_npc(
    client, gm, player, cthulhu, penhaligon, forced_dice
):
    marks = five_counted_marks()
    sheet = gm_patch(client, gm, penhaligon, {"marks": marks})
    assert sheet["status"] == "active"
    sixth = {"description": "parle en aklo", "counted": True, "scene": 0}
    sheet = gm_patch(client, gm, penhaligon, {"marks": [*marks, sixth]})
    assert sheet["status"] == "npc"
    new_session(client, cthulhu, gm)
    refused = post_roll(
        client,
        cthulhu,
        player,
        {"kind": "jdr.action", "character_id": penhaligon["id"], "trait": "mental"},
    )
    assert_refused(refused, "JDR-42")


# --- what the play-through found ----------------------------------------------------------


def test_JDR_25_a_wound_cared_for_before_the_joker_is_still_undone(
    client, gm, player, dracula, hunter, brigand, forced_dice
):
    new_session(client, dracula, gm)
    forced_dice.push(6, 6)
    hit = post_roll(client, dracula, gm, attack_body(brigand, hunter, CLAWS)).json()
    gm_event_body = {"kind": "jdr.medical_care", "character_id": hunter["id"], "description": ""}
    assert post_roll(client, dracula, gm, gm_event_body).status_code == 201
    assert [w["cared"] for w in wounds(client, gm, hunter)] == [True]
    forced_dice.push(1, 2)
    followed(client, dracula, player, "jdr.joker", hit["seq"])
    assert wounds(client, gm, hunter) == []


def test_JDR_41_the_mark_of_a_rerolled_test_is_worded_on_the_joker(
    client, gm, player, cthulhu, penhaligon, forced_dice
):
    new_session(client, cthulhu, gm)
    forced_dice.push(1, 2)  # 3 + 3 = 6 against 9: a failure
    test = mythos(client, cthulhu, gm, penhaligon, 9, "lettre", direct_peril=True).json()
    forced_dice.push(4, 4)  # 11: a success whose mark waits
    joker = followed(client, cthulhu, player, "jdr.joker", test["seq"])
    assert joker["result"]["mythos"]["mark_pending"] is True
    wording = {"wording": "rêve d'eau noire"}
    assert_refused(follow(client, cthulhu, player, "jdr.mark", test["seq"], **wording), "JDR-25")
    worded = followed(client, cthulhu, player, "jdr.mark", joker["seq"], **wording)
    assert worded["result"]["mark"]["description"] == "rêve d'eau noire"
    assert [m["description"] for m in sheet_of(client, player, penhaligon)["marks"]] == [
        "rêve d'eau noire"
    ]


def test_JDR_25_a_mark_worded_for_the_first_result_goes_with_it(
    client, gm, player, cthulhu, penhaligon, forced_dice
):
    new_session(client, cthulhu, gm)
    forced_dice.push(4, 4)  # a success
    test = mythos(client, cthulhu, gm, penhaligon, 9, "lettre", direct_peril=True).json()
    followed(client, cthulhu, player, "jdr.mark", test["seq"], wording="aversion des coquillages")
    forced_dice.push(1, 2)  # the reroll fails: the GM decides the cost
    followed(client, cthulhu, player, "jdr.joker", test["seq"])
    assert sheet_of(client, player, penhaligon)["marks"] == []


def test_JDR_25_JDR_42_the_player_may_reroll_the_test_that_made_their_pc_an_npc(
    client, gm, player, cthulhu, penhaligon, forced_dice
):
    gm_patch(client, gm, penhaligon, {"marks": five_counted_marks()})
    new_session(client, cthulhu, gm)
    forced_dice.push(1, 1)  # a critical failure: the sixth counted mark
    test = mythos(client, cthulhu, gm, penhaligon, 15, "Necronomicon", direct_peril=True).json()
    assert sheet_of(client, gm, penhaligon)["status"] == "npc"
    forced_dice.push(4, 4)
    joker = followed(client, cthulhu, player, "jdr.joker", test["seq"])
    assert ("status", "npc", "active") in [
        (e["field"], e["before"], e["after"]) for e in joker["effects"]
    ]
    assert sheet_of(client, player, penhaligon)["status"] == "active"


def test_FAIR_18_an_npcs_custom_weapon_keeps_its_values_on_its_hidden_sheet(
    client, gm, player, dracula, hunter, make_character, forced_dice
):
    new_session(client, dracula, gm)
    wolf = npc(make_character, dracula, gm, "Loup", (1, 4, 0), tags=["werewolf"])
    gm_patch(
        client,
        gm,
        wolf,
        {"custom_items": [{"name": "crocs", "attack_bonus": 2, "damage_bonus": 3}]},
    )
    forced_dice.push(3, 3)  # 6 + 4 + 2 + 3 = 15 against Defense 6: margin 9
    bite = post_roll(client, dracula, gm, attack_body(wolf, hunter, "crocs")).json()
    assert bite["result"]["total"] == 15 and bite["result"]["damage_steps"] == 3
    seen = rolls_get(client, dracula, player, bite["seq"])
    assert seen["request"]["weapon"] == {"name": "crocs", "custom": True}
    for value in ("weapon_bonus", "damage_steps", "total"):
        assert "$commit" in seen["result"][value], value


def test_JDR_24_the_player_answering_the_gms_protection_request_cannot_drop_its_context(
    client, gm, player, make_campaign, make_character, forced_dice
):
    campaign, mihail = cracked_the_scene_before(
        client, gm, player, make_campaign, make_character, forced_dice
    )
    asked = client.post(
        f"{API}/campaigns/{campaign['id']}/roll-requests",
        json={
            "kind": "jdr.action",
            "character_ids": [mihail["id"]],
            "values": {"context.protection": True, "context.supernatural": True},
        },
        headers=gm.headers,
    ).json()
    answer = f"{API}/campaigns/{campaign['id']}/rolls?request_id={asked['id']}"
    dodging = {
        "kind": "jdr.action",
        "character_id": mihail["id"],
        "trait": "mental",
        "context": {"protection": True, "supernatural": False},
    }
    assert_problem(client.post(answer, json=dodging, headers=player.headers), 422, "supernatural")
    forced_dice.push(6, 3, 2)
    body = {"kind": "jdr.action", "character_id": mihail["id"], "trait": "mental"}
    entry = client.post(answer, json=body, headers=player.headers).json()
    assert entry["result"]["auto_disadvantage"] == ["faith_shaken"]


def test_JDR_40_the_mythos_summary_counts_the_talent(
    client, gm, player, cthulhu, scholar, forced_dice
):
    new_session(client, cthulhu, gm)
    forced_dice.push(5, 1)
    entry = mythos(client, cthulhu, player, scholar, 9, "grimoire", talent="Langues mortes").json()
    assert "2d6+4: 5, 1 → 10" in entry["summary"]


def test_JDR_2_JDR_32_the_equipments_defense_bonus_is_the_gms_to_grant(
    client, gm, player, dracula, hunter
):
    created = client.post(
        f"{API}/campaigns/{dracula['id']}/characters",
        json={
            "name": "Quincey",
            "kind": "pc",
            "sheet": {"traits": {"mental": 1, "physique": 3, "social": 1}, "defense_bonus": 5},
        },
        headers=player.headers,
    )
    assert_problem(created, 403, "defense_bonus")
    edit = {"sheet": {"defense_bonus": 5}}
    path = f"{API}/characters/{hunter['id']}"
    assert_problem(client.patch(path, json=edit, headers=player.headers), 403, "defense_bonus")
    assert gm_patch(client, gm, hunter, {"defense_bonus": 2})["defense_bonus"] == 2
