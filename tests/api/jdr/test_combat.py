"""Attacks through the API: Defense, damage steps, wounds, Advantage (JDR-30..34), the
weapons the supernatural fears (JDR-35..38), and the cracked talisman in combat (JDR-24).

Attacks post to POST .../rolls like any roll; `forced_dice` scripts the faces.
"""

from __future__ import annotations

import pytest

from tests.api.helpers import (
    assert_refused,
    committed,
    get_entry,
    gm_patch,
    last_seq,
    new_scene,
    new_session,
    post_roll,
    sheet_of,
)
from tests.api.jdr.fights import (
    CTHULHU,
    act,
    attack,
    attacked,
    follow,
    gm_event,
    holy_water,
    npc,
    wounds,
)
from tests.conftest import (
    API,
    assert_problem,
)

# The Cthulhu campaign of these tests: Arkham.


@pytest.fixture
def cthulhu(make_campaign, player, other_player):
    return make_campaign(CTHULHU, players=(player, other_player), name="Arkham")


# --- JDR-30 / JDR-32 / JDR-33: attack, damage steps, wounds --------------------------------


def test_JDR_30_attack_against_defense_and_margin(
    client, gm, player, dracula, hunter, brigand, forced_dice
):
    new_session(client, dracula, gm)
    # JDR-32 (corrected): a weapon outside the sources' list is the GM's to add.
    gm_patch(client, gm, hunter, {"custom_items": [{"name": "pistolet", "attack_bonus": 1}]})
    forced_dice.push(4, 5)
    entry = attacked(client, dracula, player, hunter, brigand, "pistolet", read_as=gm)
    assert entry["kind"] == "jdr.attack" and entry["character_id"] == hunter["id"]
    assert [d["face"] for d in entry["draws"]] == [4, 5]
    result = entry["result"]
    assert result["dice"] == [4, 5] and result["kept"] == [True, True]
    assert result["physique"] == 3 and result["weapon_bonus"] == 1
    assert result["total"] == 9 + 3 + 1 == 13
    assert result["defense"] == 1 + 2 + 1 + 1 == 5
    assert result["margin"] == 8 and result["hit"] is True
    assert result["severity"] == "serious" and result["label"] == "Blessure sérieuse"
    assert result["wound_effect"] == "disadvantage_until_care"  # JDR-33: it says what it does
    assert entry["rules"] == "jdr-express@4"
    assert wounds(client, gm, brigand) == [
        {"severity": "serious", "note": "pistolet, marge 8", "cared": False}
    ]
    assert wounds(client, gm, hunter) == []
    # FAIR-18: the player reads their own numbers, not the NPC's Defense nor the margin
    # that gives it back.
    seen = get_entry(client, dracula, player, entry["seq"])["result"]
    assert seen["physique"] == 3 and seen["total"] == 13 and seen["severity"] == "serious"
    assert committed(seen["defense"]) and committed(seen["margin"])


def test_FAIR_21_a_blind_hit_on_an_npc_does_not_move_its_stamp_for_players(
    client, gm, player, dracula, hunter, brigand, forced_dice
):
    new_session(client, dracula, gm)
    path = f"{API}/characters/{brigand['id']}"
    before = client.get(path, headers=player.headers).json()
    forced_dice.push(6, 6)
    attacked(client, dracula, player, hunter, brigand, visibility="blind")
    as_gm = client.get(path, headers=gm.headers).json()
    assert as_gm["sheet"]["wounds"] and as_gm["updated_at"] > before["updated_at"]
    after = client.get(path, headers=player.headers).json()
    assert after == before and after["updated_at"] == after["created_at"]


def test_FAIR_18_an_npcs_burden_and_dice_mode_are_the_gms_in_its_public_rolls(
    client, gm, player, dracula, hunter, brigand, forced_dice
):
    # A blind attack wounded the brigand seriously (margin 5): its next public roll is at
    # Disadvantage (JDR-33). Read in clear, the burden would tell the blind outcome.
    new_session(client, dracula, gm)
    forced_dice.push(3, 4)
    attacked(client, dracula, player, hunter, brigand, visibility="blind")
    forced_dice.push(5, 2, 6)
    body = {"kind": "jdr.action", "character_id": brigand["id"], "trait": "physique"}
    action = post_roll(client, dracula, gm, body).json()
    assert action["result"]["auto_disadvantage"] == ["serious_wound"]
    assert action["result"]["mode"] == "disadvantage"
    seen = get_entry(client, dracula, player, action["seq"])["result"]
    for value in ("auto_disadvantage", "mode", "kept", "trait_value", "total"):
        assert committed(seen[value]), value
    assert seen["dice"] == [5, 2, 6] and seen["tier"] == action["result"]["tier"]


def test_JDR_30_defense_counts_every_trait_and_the_equipment(
    client, gm, player, dracula, hunter, make_character, forced_dice
):
    new_session(client, dracula, gm)
    knight = npc(make_character, dracula, gm, "Boyard en cuirasse", (3, 4, 2), defense_bonus=5)
    forced_dice.push(6, 6)
    result = attacked(client, dracula, player, hunter, knight, read_as=gm)["result"]
    assert result["defense"] == 3 + 4 + 2 + 5 == 14
    assert result["total"] == 15 and result["margin"] == 1 and result["severity"] == "light"


def test_JDR_30_attack_rules_who_and_whom(
    client, gm, player, other_player, dracula, hunter, brigand, forced_dice
):
    new_session(client, dracula, gm)
    before = last_seq(client, dracula, gm)
    assert_problem(attack(client, dracula, other_player, hunter, brigand), 403)
    assert_problem(attack(client, dracula, player, brigand, hunter), 403)
    assert_problem(attack(client, dracula, player, hunter, hunter), 422)
    # JDR-32 (corrected): a weapon the sheet does not list, or values the player declares.
    assert_problem(attack(client, dracula, player, hunter, brigand, "fireman_axe"), 422, "carries")
    improvised = {"name": "canne-épée", "bonus": 5, "damage_bonus": 5}
    assert_problem(attack(client, dracula, player, hunter, brigand, improvised), 403, "GM")
    assert last_seq(client, dracula, gm) == before
    # The GM plays the NPC's attack.
    forced_dice.push(1, 1)
    assert attacked(client, dracula, gm, brigand, hunter)["actor_id"] == gm.id


def test_JDR_32_damage_bonus_adds_steps_before_the_margin(
    client, gm, player, dracula, hunter, brigand, forced_dice
):
    new_session(client, dracula, gm)
    forced_dice.push(2, 2)
    plain = attacked(client, dracula, player, hunter, brigand, read_as=gm)["result"]
    assert plain["total"] == 7 and plain["margin"] == 2 and plain["damage_steps"] == 0
    forced_dice.push(2, 2)
    entry = attacked(client, dracula, player, hunter, brigand, "cavalry_sabre", read_as=gm)
    assert entry["request"]["weapon"] == {
        "name": "Sabre de cavalerie",
        "item": "cavalry_sabre",
        "bonus": 0,
        "damage_bonus": 1,
        "tags": [],
    }
    result = entry["result"]
    assert result["damage_steps"] == 1
    assert result["total"] == 4 + 3 + 1 == 8 and result["margin"] == 3
    # A catalog weapon reads in the language asked; the hashed request keeps the French.
    assert "— Cavalry sabre 2d6+4: 2, 2 → 8" in entry["summary"]
    french = client.get(
        f"{API}/campaigns/{dracula['id']}/rolls/{entry['seq']}",
        headers={**gm.headers, "Accept-Language": "fr"},
    ).json()
    assert "— Sabre de cavalerie 2D6+4 : 2, 2 → 8" in french["summary"]


def test_JDR_32_cthulhu_rifle_adds_two_steps(
    client, gm, player, cthulhu, make_character, forced_dice
):
    investigator = make_character(
        cthulhu,
        player,
        name="Carter",
        sheet={
            "traits": {"mental": 3, "physique": 2, "social": 1},
            "weapons": [{"id": "hunting_rifle"}, {"id": "fireman_axe"}],
        },
    )
    cultist = npc(make_character, cthulhu, gm, "Cultiste", (1, 1, 1))
    new_session(client, cthulhu, gm)
    forced_dice.push(1, 2)
    result = attacked(
        client,
        cthulhu,
        player,
        investigator,
        cultist,
        "hunting_rifle",
        short_range=True,
        read_as=gm,
    )["result"]
    assert result["damage_steps"] == 2 and result["creature_bonuses"] == []
    assert result["total"] == 3 + 2 + 2 == 7
    assert result["defense"] == 3 and result["margin"] == 4 and result["severity"] == "light"
    # « fusil de chasse à courte portée »: farther, no step.
    forced_dice.push(1, 2)
    far = attacked(client, cthulhu, player, investigator, cultist, "hunting_rifle", read_as=gm)
    assert far["result"]["damage_steps"] == 0 and far["result"]["total"] == 5
    forced_dice.push(1, 2)
    axe = attacked(client, cthulhu, player, investigator, cultist, "fireman_axe", read_as=gm)
    assert axe["result"]["damage_steps"] == 2


@pytest.mark.parametrize(
    ("faces", "margin", "severity", "label"),
    [
        ((1, 1), 0, None, "Raté"),
        ((1, 2), 1, "light", "Blessure légère"),
        ((3, 3), 4, "light", "Blessure légère"),
        ((3, 4), 5, "serious", "Blessure sérieuse"),
        ((5, 6), 9, "serious", "Blessure sérieuse"),
        ((6, 6), 10, "critical", "Blessure critique"),
    ],
)
def test_JDR_33_margin_reads_the_wound(
    client, gm, player, dracula, hunter, brigand, forced_dice, faces, margin, severity, label
):
    new_session(client, dracula, gm)
    forced_dice.push(*faces)
    entry = attacked(client, dracula, player, hunter, brigand)
    result = get_entry(client, dracula, gm, entry["seq"])["result"]
    assert result["margin"] == margin == sum(faces) + 3 - 5
    assert result["severity"] == severity and result["label"] == label
    assert result["hit"] is (severity is not None)
    if severity is None:
        assert entry["effects"] == [] and wounds(client, gm, brigand) == []
    else:
        (wound,) = wounds(client, gm, brigand)
        assert wound["severity"] == severity and wound["cared"] is False
        (effect,) = entry["effects"]
        assert effect["character_id"] == brigand["id"] and effect["field"] == "wounds"
        assert effect["rule"] == "JDR-33"
        # FAIR-18: the player reads the NPC's change as commitments; the GM reads it whole.
        assert set(effect["before"]) == set(effect["after"]) == {"$commit"}
        (seen_by_gm,) = get_entry(client, dracula, gm, entry["seq"])["effects"]
        assert seen_by_gm["before"] == [] and seen_by_gm["after"] == [wound]


def test_JDR_33_negative_margin_is_a_miss(
    client, gm, player, dracula, hunter, make_character, forced_dice
):
    new_session(client, dracula, gm)
    knight = npc(make_character, dracula, gm, "Boyard", (4, 4, 4), defense_bonus=3)
    forced_dice.push(2, 3)
    result = attacked(client, dracula, player, hunter, knight, read_as=gm)["result"]
    assert result["margin"] == 8 - 15 and result["hit"] is False and result["severity"] is None
    assert wounds(client, gm, knight) == []


def test_JDR_33_wounds_accumulate_on_the_target(
    client, gm, player, dracula, hunter, brigand, forced_dice
):
    new_session(client, dracula, gm)
    for faces in ((1, 2), (3, 4), (6, 6)):
        forced_dice.push(*faces)
        attacked(client, dracula, player, hunter, brigand)
    assert [w["severity"] for w in wounds(client, gm, brigand)] == ["light", "serious", "critical"]


def test_JDR_33_a_serious_wound_burdens_the_attacker_until_medical_care(
    client, gm, player, dracula, hunter, brigand, forced_dice
):
    new_session(client, dracula, gm)
    forced_dice.push(6, 6)  # 12 + physique 2 = 14 against Defense 2 + 3 + 1 = 6: margin 8
    hit = attacked(client, dracula, gm, brigand, hunter, {"name": "couteau"})
    assert hit["result"]["severity"] == "serious"
    forced_dice.push(6, 1, 5)
    result = attacked(client, dracula, player, hunter, brigand)["result"]
    assert result["mode"] == "disadvantage" and result["auto_disadvantage"] == ["serious_wound"]
    assert result["kept"] == [False, True, True] and result["total"] == 6 + 3
    gm_event(client, dracula, gm, "jdr.medical_care", hunter, "recousu par Van Helsing")
    forced_dice.push(6, 1)
    result = attacked(client, dracula, player, hunter, brigand)["result"]
    assert result["mode"] == "normal" and result["auto_disadvantage"] == []


# --- JDR-34: Advantage and Disadvantage on attacks ----------------------------------------


def test_JDR_34_advantage_on_an_attack(client, gm, player, dracula, hunter, brigand, forced_dice):
    new_session(client, dracula, gm)
    forced_dice.push(1, 6, 6)
    entry = attacked(client, dracula, player, hunter, brigand, advantage=True, read_as=gm)
    assert len(entry["draws"]) == 3
    result = entry["result"]
    assert result["mode"] == "advantage" and result["kept"] == [False, True, True]
    assert result["total"] == 12 + 3 and result["margin"] == 10 and result["severity"] == "critical"


def test_JDR_34_disadvantage_on_an_attack(
    client, gm, player, dracula, hunter, brigand, forced_dice
):
    new_session(client, dracula, gm)
    forced_dice.push(1, 6, 6)
    result = attacked(client, dracula, player, hunter, brigand, disadvantage=True, read_as=gm)[
        "result"
    ]
    assert result["mode"] == "disadvantage" and result["kept"] == [True, True, False]
    assert result["total"] == 7 + 3 and result["margin"] == 5


def test_JDR_34_both_cancel_on_an_attack(client, gm, player, dracula, hunter, brigand, forced_dice):
    new_session(client, dracula, gm)
    forced_dice.push(1, 6)
    entry = attacked(client, dracula, player, hunter, brigand, advantage=True, disadvantage=True)
    assert len(entry["draws"]) == 2 and entry["result"]["mode"] == "normal"


# --- JDR-35..38: the supernatural is real [D] ----------------------------------------------


def test_JDR_35_holy_water_burns_a_vampire_without_a_roll(
    client, gm, player, dracula, hunter, vampire
):
    new_session(client, dracula, gm)
    response = holy_water(client, dracula, player, hunter, vampire)
    assert response.status_code == 201, response.text
    entry = response.json()
    assert entry["kind"] == "jdr.holy_water" and entry["draws"] == []
    assert entry["result"] == {"hit": True, "severity": "light", "label": "Blessure légère"}
    assert wounds(client, gm, vampire) == [
        {"severity": "light", "note": "eau bénite", "cared": False}
    ]
    assert entry["effects"][0]["rule"] == "JDR-35"


def test_JDR_35_FAIR_21_holy_water_does_nothing_to_the_living_or_other_creatures(
    client, gm, player, dracula, hunter, brigand, make_character
):
    # Recorded, not refused: a refusal would tell the players the target is no vampire.
    new_session(client, dracula, gm)
    wolf = npc(make_character, dracula, gm, "Loup-garou", (1, 4, 0), tags=["werewolf"])
    for target in (brigand, wolf):
        response = holy_water(client, dracula, player, hunter, target)
        assert response.status_code == 201, response.text
        entry = response.json()
        assert entry["result"] == {"hit": False, "severity": "no_effect", "label": "Sans effet"}
        assert entry["rules"] == "jdr-express@4"  # version 1 refused it
        assert entry["effects"] == [] and entry["outcome"] == {
            "code": "no_effect",
            "label": "No effect",
        }
        assert wounds(client, gm, target) == []


def test_JDR_35_holy_water_is_a_dracula_rule(client, gm, player, cthulhu, make_character):
    investigator = make_character(
        cthulhu, player, name="Carter", sheet={"traits": {"mental": 3, "physique": 2, "social": 1}}
    )
    thing = npc(make_character, cthulhu, gm, "Chose", tags=["vampire"])
    new_session(client, cthulhu, gm)
    assert_problem(holy_water(client, cthulhu, player, investigator, thing), 422)
    assert wounds(client, gm, thing) == []


def test_JDR_36_ash_stake_adds_one_against_the_undead_only(
    client, gm, player, dracula, hunter, brigand, vampire, make_character, forced_dice
):
    new_session(client, dracula, gm)
    ghoul = npc(make_character, dracula, gm, "Goule", (0, 3, 0), tags=["undead"])
    stake = "ash_stake"
    forced_dice.push(2, 2)
    result = attacked(client, dracula, player, hunter, ghoul, stake, read_as=gm)["result"]
    assert result["creature_bonuses"] == [{"rule": "JDR-36", "steps": 1}]
    assert result["damage_steps"] == 1 and result["total"] == 4 + 3 + 1
    forced_dice.push(2, 2)
    result = attacked(client, dracula, player, hunter, vampire, stake, read_as=gm)["result"]
    assert result["creature_bonuses"] == [{"rule": "JDR-36", "steps": 1}]
    assert result["margin"] == 8 - 6
    forced_dice.push(2, 2)
    result = attacked(client, dracula, player, hunter, brigand, stake, read_as=gm)["result"]
    assert result["creature_bonuses"] == [] and result["damage_steps"] == 0
    assert result["total"] == 7


def test_JDR_36_staking_a_sleeping_vampire_with_a_success_destroys_it(
    client, gm, player, dracula, hunter, vampire, forced_dice
):
    new_session(client, dracula, gm)
    stake = "ash_stake"
    forced_dice.push(4, 3)  # 7 + physique 3 + 1 = 11: a success
    entry = attacked(client, dracula, player, hunter, vampire, stake, sleeping_target=True)
    result = entry["result"]
    assert result["total"] == 11 and result["destroyed"] is True
    # JDR-36 (corrected): asleep, it opposes no Defense; one outcome, in one word.
    assert result["tier"] == "success" and result["defense"] is None and result["margin"] is None
    assert result["label"] == "Cloué" and result["severity"] is None
    assert entry["outcome"] == {"code": "destroyed", "label": "Nailed for good"}
    # FAIR-18: the player reads the NPC's change committed; the GM reads it whole.
    assert committed(entry["effects"][0]["after"])
    seen_by_gm = get_entry(client, dracula, gm, entry["seq"])["effects"]
    assert [(e["character_id"], e["field"], e["after"]) for e in seen_by_gm] == [
        (vampire["id"], "destroyed", True)
    ]
    assert entry["effects"][0]["rule"] == "JDR-36"
    assert sheet_of(client, gm, vampire)["destroyed"] is True
    # Destroyed for good: nothing more can harm it.
    before = last_seq(client, dracula, gm)
    assert_refused(attack(client, dracula, player, hunter, vampire, stake), "JDR-36")
    assert_refused(holy_water(client, dracula, player, hunter, vampire), "JDR-36")
    assert last_seq(client, dracula, gm) == before
    # Nor can the player undo it.
    assert_problem(
        client.patch(
            f"{API}/characters/{vampire['id']}",
            json={"sheet": {"destroyed": False}},
            headers=player.headers,
        ),
        403,
    )


def test_JDR_36_less_than_a_success_on_a_sleeping_vampire_only_wakes_it(
    client, gm, player, dracula, hunter, vampire, forced_dice
):
    new_session(client, dracula, gm)
    forced_dice.push(3, 3)  # 6 + 3 + 1 = 10: partial
    entry = attacked(client, dracula, player, hunter, vampire, "ash_stake", sleeping_target=True)
    result = entry["result"]
    assert result["total"] == 10 and result["tier"] == "partial_success"
    assert result["destroyed"] is False and result["hit"] is False and result["severity"] is None
    assert result["label"] == "Réveillé, indemne" and entry["effects"] == []
    assert sheet_of(client, gm, vampire)["destroyed"] is False
    assert wounds(client, gm, vampire) == []


def test_JDR_36_only_an_ash_stake_in_a_sleeping_vampire_destroys(
    client, gm, player, dracula, hunter, vampire, make_character, forced_dice
):
    new_session(client, dracula, gm)
    ghoul = npc(make_character, dracula, gm, "Goule", (0, 3, 0), tags=["undead"])
    stake = "ash_stake"
    forced_dice.push(5, 5)  # 10 + 3 + 1 = 14: a success, but an axe is no stake
    axe = "lumberjack_axe"
    entry = attacked(client, dracula, player, hunter, vampire, axe, sleeping_target=True)
    assert not entry["result"].get("destroyed") and entry["result"]["severity"] == "serious"
    forced_dice.push(6, 6)
    entry = attacked(client, dracula, player, hunter, vampire, stake)  # awake
    assert not entry["result"].get("destroyed")
    forced_dice.push(6, 6)
    entry = attacked(client, dracula, player, hunter, ghoul, stake, sleeping_target=True)
    assert not entry["result"].get("destroyed")
    assert sheet_of(client, gm, vampire)["destroyed"] is False
    assert sheet_of(client, gm, ghoul)["destroyed"] is False


def test_JDR_37_a_silver_blade_counts_twice_against_creatures(
    client, gm, player, dracula, hunter, brigand, vampire, make_character, forced_dice
):
    new_session(client, dracula, gm)
    wolf = npc(make_character, dracula, gm, "Loup-garou", (1, 4, 0), tags=["werewolf"])
    forced_dice.push(2, 2)
    result = attacked(client, dracula, player, hunter, wolf, "silver_blade", read_as=gm)["result"]
    # « Une lame d'argent vaut deux lames d'acier face aux créatures »: its +1, twice.
    assert result["creature_bonuses"] == [{"rule": "JDR-37", "steps": 1}]
    assert result["damage_steps"] == 2 and result["total"] == 4 + 3 + 2
    assert result["margin"] == 9 - 5 and result["severity"] == "light"
    assert wounds(client, gm, wolf)[0]["severity"] == "light"  # silver wounds a werewolf
    forced_dice.push(2, 2)
    result = attacked(client, dracula, player, hunter, brigand, "silver_blade", read_as=gm)
    assert result["result"]["creature_bonuses"] == [] and result["result"]["total"] == 8
    # The GM's silver-shod stake against a vampire: each bonus counts once.
    both = {"name": "pieu ferré d'argent", "damage_bonus": 1, "tags": ["ash_stake", "silver"]}
    gm_patch(client, gm, hunter, {"custom_items": [both]})
    forced_dice.push(2, 2)
    result = attacked(client, dracula, player, hunter, vampire, both["name"], read_as=gm)["result"]
    assert sorted(b["rule"] for b in result["creature_bonuses"]) == ["JDR-36", "JDR-37"]
    assert result["damage_steps"] == 1 + 1 + 1 and result["total"] == 4 + 3 + 3


def test_JDR_37_only_silver_or_the_supernatural_wounds_a_werewolf(
    client, gm, player, dracula, hunter, make_character, forced_dice
):
    new_session(client, dracula, gm)
    wolf = npc(make_character, dracula, gm, "Loup-garou", (1, 4, 0), tags=["werewolf"])
    forced_dice.push(6, 6)  # 12 + 3 + 1 = 16 against Defense 5: margin 11
    entry = attacked(client, dracula, player, hunter, wolf, "cavalry_sabre", read_as=gm)
    result = entry["result"]
    assert result["hit"] is True and result["margin"] == 11 and result["severity"] is None
    assert result["label"] == "Sans effet" and result["wound_effect"] == "only_silver"
    assert entry["outcome"]["code"] == "no_effect"
    assert entry["effects"] == [] and wounds(client, gm, wolf) == []
    # What the GM records as supernatural wounds it.
    relic = {"name": "épée bénie de saint Georges", "tags": ["supernatural"]}
    gm_patch(client, gm, hunter, {"custom_items": [relic]})
    forced_dice.push(6, 6)
    result = attacked(client, dracula, player, hunter, wolf, relic["name"], read_as=gm)["result"]
    assert result["severity"] == "critical" and result["wound_effect"] == "lasting_loss"
    assert [w["severity"] for w in wounds(client, gm, wolf)] == ["critical"]


def test_JDR_37_creature_weapons_belong_to_the_dracula_setting(
    client, gm, player, cthulhu, make_character, forced_dice
):
    investigator = make_character(
        cthulhu, player, name="Carter", sheet={"traits": {"mental": 3, "physique": 2, "social": 1}}
    )
    deep_one = npc(make_character, cthulhu, gm, "Profond", (1, 3, 0), tags=["creature"])
    new_session(client, cthulhu, gm)
    silver = {"name": "dague d'argent", "damage_bonus": 1, "tags": ["silver"]}
    gm_patch(client, gm, investigator, {"custom_items": [silver]})
    forced_dice.push(2, 2)
    result = attacked(client, cthulhu, player, investigator, deep_one, silver["name"], read_as=gm)
    assert result["result"]["creature_bonuses"] == [] and result["result"]["total"] == 4 + 2 + 1


def test_JDR_38_gm_tags_a_creature_and_the_weapons_react(
    client, gm, player, dracula, hunter, brigand, forced_dice
):
    new_session(client, dracula, gm)
    silver = "silver_blade"
    forced_dice.push(2, 2)
    assert (
        attacked(client, dracula, player, hunter, brigand, silver, read_as=gm)["result"]["total"]
        == 8
    )
    assert_problem(
        client.patch(
            f"{API}/characters/{brigand['id']}",
            json={"sheet": {"tags": ["possessed"]}},
            headers=player.headers,
        ),
        403,
    )
    assert_problem(
        client.patch(
            f"{API}/characters/{brigand['id']}",
            json={"sheet": {"tags": ["ghost"]}},
            headers=gm.headers,
        ),
        422,
    )
    assert gm_patch(client, gm, brigand, {"tags": ["possessed"]})["tags"] == ["possessed"]
    forced_dice.push(2, 2)
    result = attacked(client, dracula, player, hunter, brigand, silver, read_as=gm)["result"]
    assert result["creature_bonuses"] == [{"rule": "JDR-37", "steps": 1}]
    assert result["total"] == 9
    # Holy water still needs a vampire.
    assert holy_water(client, dracula, player, hunter, brigand).json()["result"]["hit"] is False
    gm_patch(client, gm, brigand, {"tags": ["possessed", "vampire"]})
    assert holy_water(client, dracula, player, hunter, brigand).json()["result"]["hit"] is True


# --- JDR-24 in combat: a cracked talisman burdens attacks in the next confrontation --------


def test_JDR_24_cracked_talisman_gives_disadvantage_on_attacks_in_the_next_confrontation(
    client, gm, player, dracula, hunter, vampire, brigand, forced_dice
):
    new_session(client, dracula, gm)
    forced_dice.push(3, 5)  # 8 + Mental 2 = 10
    action = act(client, dracula, player, hunter, context={"supernatural": True})
    invoked = follow(client, dracula, player, "jdr.talisman", action["seq"], words="bon ben")
    follow(client, dracula, gm, "jdr.talisman_ruling", invoked["seq"], sincere=False)
    forced_dice.push(6, 6)  # same scene: no burden yet
    assert attacked(client, dracula, player, hunter, vampire)["result"]["mode"] == "normal"

    new_scene(client, dracula, gm, night=True)
    forced_dice.push(6, 6)  # a mundane foe is no supernatural confrontation
    assert attacked(client, dracula, player, hunter, brigand)["result"]["mode"] == "normal"
    forced_dice.push(6, 6, 1)
    entry = attacked(client, dracula, player, hunter, vampire)
    assert entry["result"]["auto_disadvantage"] == ["faith_shaken"]
    assert entry["result"]["kept"] == [True, False, True]
    shaken = [e["after"] for e in entry["effects"] if e["field"] == "faith_shaken"]
    assert shaken == [{"cracked_scene": 1, "confrontation_scene": 2}]
    new_scene(client, dracula, gm, night=True)
    forced_dice.push(6, 6)
    assert attacked(client, dracula, player, hunter, vampire)["result"]["mode"] == "normal"
    assert sheet_of(client, player, hunter)["talisman"] == "cracked"
