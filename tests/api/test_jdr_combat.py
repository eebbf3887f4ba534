"""JDR Express combat, initiative, the Mythos and a full replay (JDR-30..43).

Attacks and initiative post to POST .../rolls like any roll; `forced_dice` scripts the faces.
The replay tests play every JDR entry kind and check the log verifies and the export passes
the offline verifier; one of them rolls real dice and rotates, so its draws are re-derived.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.helpers import (
    STRUCTURAL,
    assert_refused,
    gm_patch,
    last_seq,
    log_entries,
    new_scene,
    new_session,
    post_roll,
    rolled,
    sheet_of,
    url,
    verified_offline,
)
from tests.conftest import API, assert_problem

DRACULA = "jdr-express-dracula"
CTHULHU = "jdr-express-cthulhu"
JDR_KINDS = {
    "jdr.action",
    "jdr.talisman",
    "jdr.talisman_ruling",
    "jdr.effleurement",
    "jdr.effleurement_refusal",
    "jdr.joker",
    "jdr.context",
    "jdr.attack",
    "jdr.holy_water",
    "jdr.initiative",
    "jdr.mythos",
    "jdr.sacrifice",
    "jdr.penance",
    "jdr.medical_care",
}


# --- helpers -------------------------------------------------------------------------------


def attack_body(attacker, target, weapon: dict[str, Any] | None = None, **extra: Any):
    return {
        "kind": "jdr.attack",
        "attacker_id": attacker["id"],
        "target_id": target["id"],
        "weapon": weapon or {"name": "poings"},
        **extra,
    }


def attack(client, campaign, caller, attacker, target, weapon=None, **extra: Any):
    return post_roll(client, campaign, caller, attack_body(attacker, target, weapon, **extra))


def attacked(client, campaign, caller, attacker, target, weapon=None, **extra: Any):
    response = attack(client, campaign, caller, attacker, target, weapon, **extra)
    assert response.status_code == 201, response.text
    return response.json()


def holy_water(client, campaign, caller, attacker, target):
    body = {"kind": "jdr.holy_water", "attacker_id": attacker["id"], "target_id": target["id"]}
    return post_roll(client, campaign, caller, body)


def initiative(client, campaign, caller, *combatants, order=None):
    body: dict[str, Any] = {
        "kind": "jdr.initiative",
        "combatants": [c if "character_id" in c else {"character_id": c["id"]} for c in combatants],
    }
    if order is not None:
        body["order"] = [c["id"] for c in order]
    return post_roll(client, campaign, caller, body)


def mythos(client, campaign, caller, character, difficulty: int, source: str, **extra: Any):
    body = {
        "kind": "jdr.mythos",
        "character_id": character["id"],
        "difficulty": difficulty,
        "source": source,
        **extra,
    }
    return post_roll(client, campaign, caller, body)


def act(client, campaign, caller, character, trait="mental", **extra: Any):
    body = {"kind": "jdr.action", "character_id": character["id"], "trait": trait, **extra}
    return rolled(client, campaign, caller, body)


def follow(client, campaign, caller, kind: str, follows: int, **extra: Any):
    return rolled(client, campaign, caller, {"kind": kind, "follows": follows, **extra})


def gm_event(client, campaign, gm, kind: str, character, description: str = ""):
    body = {"kind": kind, "character_id": character["id"], "description": description}
    return rolled(client, campaign, gm, body)


def wounds(client, gm, character) -> list[dict[str, Any]]:
    return sheet_of(client, gm, character)["wounds"]


@pytest.fixture
def dracula(make_campaign, player, other_player):
    return make_campaign(DRACULA, players=(player, other_player))


@pytest.fixture
def cthulhu(make_campaign, player, other_player):
    return make_campaign(CTHULHU, players=(player, other_player), name="Arkham")


def npc(make_character, campaign, gm, name: str, traits=(1, 2, 1), **sheet: Any):
    mental, physique, social = traits
    return make_character(
        campaign,
        gm,
        kind="npc",
        name=name,
        sheet={"traits": {"mental": mental, "physique": physique, "social": social}, **sheet},
    )


@pytest.fixture
def hunter(dracula, player, make_character):
    """Jonathan: physique 3, a believer with a sacred object."""
    return make_character(
        dracula,
        player,
        name="Jonathan Harker",
        sheet={
            "traits": {"mental": 2, "physique": 3, "social": 1},
            "faith": "believer",
            "sacred_object": "crucifix de l'aubergiste",
        },
    )


@pytest.fixture
def brigand(dracula, gm, make_character):
    """A mundane foe: Defense 1 + 2 + 1 + 1 = 5."""
    return npc(make_character, dracula, gm, "Brigand", defense_bonus=1)


@pytest.fixture
def vampire(dracula, gm, make_character):
    """Defense 2 + 3 + 1 = 6."""
    return npc(make_character, dracula, gm, "Vampire mineur", (2, 3, 1), tags=["vampire", "undead"])


# --- JDR-30 / JDR-32 / JDR-33: attack, damage steps, wounds --------------------------------


def test_JDR_30_attack_against_defense_and_margin(
    client, gm, player, dracula, hunter, brigand, forced_dice
):
    new_session(client, dracula, gm)
    forced_dice.push(4, 5)
    entry = attacked(client, dracula, player, hunter, brigand, {"name": "pistolet", "bonus": 1})
    assert entry["kind"] == "jdr.attack" and entry["character_id"] == hunter["id"]
    assert [d["face"] for d in entry["draws"]] == [4, 5]
    result = entry["result"]
    assert result["dice"] == [4, 5] and result["kept"] == [True, True]
    assert result["physique"] == 3 and result["weapon_bonus"] == 1
    assert result["total"] == 9 + 3 + 1 == 13
    assert result["defense"] == 1 + 2 + 1 + 1 == 5
    assert result["margin"] == 8 and result["hit"] is True
    assert result["severity"] == "serious" and result["label"] == "Blessure grave"
    assert wounds(client, gm, brigand) == [
        {"severity": "serious", "note": "pistolet, marge 8", "cared": False}
    ]
    assert wounds(client, gm, hunter) == []


def test_JDR_30_defense_counts_every_trait_and_the_equipment(
    client, gm, player, dracula, hunter, make_character, forced_dice
):
    new_session(client, dracula, gm)
    knight = npc(make_character, dracula, gm, "Boyard en cuirasse", (3, 4, 2), defense_bonus=5)
    forced_dice.push(6, 6)
    result = attacked(client, dracula, player, hunter, knight)["result"]
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
    assert_problem(
        post_roll(
            client,
            dracula,
            player,
            {"kind": "jdr.attack", "attacker_id": hunter["id"], "target_id": brigand["id"]},
        ),
        422,
    )
    assert last_seq(client, dracula, gm) == before
    # The GM plays the NPC's attack.
    forced_dice.push(1, 1)
    assert attacked(client, dracula, gm, brigand, hunter)["actor_id"] == gm.id


def test_JDR_32_damage_bonus_adds_steps_before_the_margin(
    client, gm, player, dracula, hunter, brigand, forced_dice
):
    new_session(client, dracula, gm)
    forced_dice.push(2, 2)
    plain = attacked(client, dracula, player, hunter, brigand, {"name": "gourdin"})["result"]
    assert plain["total"] == 7 and plain["margin"] == 2 and plain["damage_steps"] == 0
    forced_dice.push(2, 2)
    sabre = {"name": "sabre de cavalerie", "damage_bonus": 1}
    result = attacked(client, dracula, player, hunter, brigand, sabre)["result"]
    assert result["damage_steps"] == 1
    assert result["total"] == 4 + 3 + 1 == 8 and result["margin"] == 3


def test_JDR_32_cthulhu_rifle_adds_two_steps(
    client, gm, player, cthulhu, make_character, forced_dice
):
    investigator = make_character(
        cthulhu, player, name="Carter", sheet={"traits": {"mental": 3, "physique": 2, "social": 1}}
    )
    cultist = npc(make_character, cthulhu, gm, "Cultiste", (1, 1, 1))
    new_session(client, cthulhu, gm)
    forced_dice.push(1, 2)
    rifle = {"name": "fusil de chasse", "damage_bonus": 2}
    result = attacked(client, cthulhu, player, investigator, cultist, rifle)["result"]
    assert result["damage_steps"] == 2 and result["creature_bonuses"] == []
    assert result["total"] == 3 + 2 + 2 == 7
    assert result["defense"] == 3 and result["margin"] == 4 and result["severity"] == "light"


@pytest.mark.parametrize(
    ("faces", "margin", "severity", "label"),
    [
        ((1, 1), 0, None, "Raté"),
        ((1, 2), 1, "light", "Blessure légère"),
        ((3, 3), 4, "light", "Blessure légère"),
        ((3, 4), 5, "serious", "Blessure grave"),
        ((5, 6), 9, "serious", "Blessure grave"),
        ((6, 6), 10, "critical", "Blessure critique"),
    ],
)
def test_JDR_33_margin_reads_the_wound(
    client, gm, player, dracula, hunter, brigand, forced_dice, faces, margin, severity, label
):
    new_session(client, dracula, gm)
    forced_dice.push(*faces)
    entry = attacked(client, dracula, player, hunter, brigand)
    result = entry["result"]
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
        assert effect["rule"] == "JDR-33" and effect["before"] == []


def test_JDR_33_negative_margin_is_a_miss(
    client, gm, player, dracula, hunter, make_character, forced_dice
):
    new_session(client, dracula, gm)
    knight = npc(make_character, dracula, gm, "Boyard", (4, 4, 4), defense_bonus=3)
    forced_dice.push(2, 3)
    result = attacked(client, dracula, player, hunter, knight)["result"]
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
    entry = attacked(client, dracula, player, hunter, brigand, advantage=True)
    assert len(entry["draws"]) == 3
    result = entry["result"]
    assert result["mode"] == "advantage" and result["kept"] == [False, True, True]
    assert result["total"] == 12 + 3 and result["margin"] == 10 and result["severity"] == "critical"


def test_JDR_34_disadvantage_on_an_attack(
    client, gm, player, dracula, hunter, brigand, forced_dice
):
    new_session(client, dracula, gm)
    forced_dice.push(1, 6, 6)
    result = attacked(client, dracula, player, hunter, brigand, disadvantage=True)["result"]
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


def test_JDR_35_holy_water_does_nothing_to_the_living_or_other_creatures(
    client, gm, player, dracula, hunter, brigand, make_character
):
    new_session(client, dracula, gm)
    wolf = npc(make_character, dracula, gm, "Loup-garou", (1, 4, 0), tags=["werewolf"])
    before = last_seq(client, dracula, gm)
    for target in (brigand, wolf):
        response = holy_water(client, dracula, player, hunter, target)
        assert_refused(response, "JDR-35")
        assert wounds(client, gm, target) == []
    assert last_seq(client, dracula, gm) == before


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
    stake = {"name": "pieu de frêne", "tags": ["ash_stake"]}
    forced_dice.push(2, 2)
    result = attacked(client, dracula, player, hunter, ghoul, stake)["result"]
    assert result["creature_bonuses"] == [{"rule": "JDR-36", "steps": 1}]
    assert result["damage_steps"] == 1 and result["total"] == 4 + 3 + 1
    forced_dice.push(2, 2)
    result = attacked(client, dracula, player, hunter, vampire, stake)["result"]
    assert result["creature_bonuses"] == [{"rule": "JDR-36", "steps": 1}]
    assert result["margin"] == 8 - 6
    forced_dice.push(2, 2)
    result = attacked(client, dracula, player, hunter, brigand, stake)["result"]
    assert result["creature_bonuses"] == [] and result["damage_steps"] == 0
    assert result["total"] == 7


def test_JDR_36_staking_a_sleeping_vampire_with_a_success_destroys_it(
    client, gm, player, dracula, hunter, vampire, forced_dice
):
    new_session(client, dracula, gm)
    stake = {"name": "pieu de frêne", "tags": ["ash_stake"]}
    forced_dice.push(4, 3)  # 7 + physique 3 + 1 = 11: a success
    entry = attacked(client, dracula, player, hunter, vampire, stake, sleeping_target=True)
    assert entry["result"]["total"] == 11 and entry["result"]["destroyed"] is True
    assert [(e["character_id"], e["field"], e["after"]) for e in entry["effects"]] == [
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


def test_JDR_36_a_partial_success_on_a_sleeping_vampire_only_wounds_it(
    client, gm, player, dracula, hunter, vampire, forced_dice
):
    new_session(client, dracula, gm)
    stake = {"name": "pieu de frêne", "tags": ["ash_stake"]}
    forced_dice.push(3, 3)  # 6 + 3 + 1 = 10: partial
    entry = attacked(client, dracula, player, hunter, vampire, stake, sleeping_target=True)
    assert entry["result"]["total"] == 10 and not entry["result"].get("destroyed")
    assert entry["result"]["severity"] == "light"
    assert sheet_of(client, gm, vampire)["destroyed"] is False
    assert len(wounds(client, gm, vampire)) == 1


def test_JDR_36_only_an_ash_stake_in_a_sleeping_vampire_destroys(
    client, gm, player, dracula, hunter, vampire, make_character, forced_dice
):
    new_session(client, dracula, gm)
    ghoul = npc(make_character, dracula, gm, "Goule", (0, 3, 0), tags=["undead"])
    stake = {"name": "pieu de frêne", "tags": ["ash_stake"]}
    forced_dice.push(5, 5)  # 10 + 3 + 1 = 14: a success, but an axe is no stake
    axe = {"name": "hache de bûcheron", "damage_bonus": 1}
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


def test_JDR_37_silver_adds_one_against_creatures(
    client, gm, player, dracula, hunter, brigand, vampire, make_character, forced_dice
):
    new_session(client, dracula, gm)
    wolf = npc(make_character, dracula, gm, "Loup-garou", (1, 4, 0), tags=["werewolf"])
    silver = {"name": "dague d'argent", "tags": ["silver"]}
    forced_dice.push(2, 2)
    result = attacked(client, dracula, player, hunter, wolf, silver)["result"]
    assert result["creature_bonuses"] == [{"rule": "JDR-37", "steps": 1}]
    assert result["total"] == 8 and result["margin"] == 8 - 5
    forced_dice.push(2, 2)
    result = attacked(client, dracula, player, hunter, brigand, silver)["result"]
    assert result["creature_bonuses"] == [] and result["total"] == 7
    # Silver and ash together against a vampire: both apply.
    forced_dice.push(2, 2)
    both = {"name": "pieu ferré d'argent", "tags": ["ash_stake", "silver"]}
    result = attacked(client, dracula, player, hunter, vampire, both)["result"]
    assert sorted(b["rule"] for b in result["creature_bonuses"]) == ["JDR-36", "JDR-37"]
    assert result["damage_steps"] == 2 and result["total"] == 4 + 3 + 2


def test_JDR_37_creature_weapons_belong_to_the_dracula_setting(
    client, gm, player, cthulhu, make_character, forced_dice
):
    investigator = make_character(
        cthulhu, player, name="Carter", sheet={"traits": {"mental": 3, "physique": 2, "social": 1}}
    )
    deep_one = npc(make_character, cthulhu, gm, "Profond", (1, 3, 0), tags=["creature"])
    new_session(client, cthulhu, gm)
    forced_dice.push(2, 2)
    silver = {"name": "dague d'argent", "tags": ["silver"]}
    result = attacked(client, cthulhu, player, investigator, deep_one, silver)["result"]
    assert result["creature_bonuses"] == [] and result["total"] == 4 + 2


def test_JDR_38_gm_tags_a_creature_and_the_weapons_react(
    client, gm, player, dracula, hunter, brigand, forced_dice
):
    new_session(client, dracula, gm)
    silver = {"name": "dague d'argent", "tags": ["silver"]}
    forced_dice.push(2, 2)
    assert attacked(client, dracula, player, hunter, brigand, silver)["result"]["total"] == 7
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
    result = attacked(client, dracula, player, hunter, brigand, silver)["result"]
    assert result["creature_bonuses"] == [{"rule": "JDR-37", "steps": 1}]
    assert result["total"] == 8
    # Holy water still needs a vampire.
    assert_refused(holy_water(client, dracula, player, hunter, brigand), "JDR-35")
    gm_patch(client, gm, brigand, {"tags": ["possessed", "vampire"]})
    assert holy_water(client, dracula, player, hunter, brigand).status_code == 201


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


# --- JDR-30a / JDR-31 / JDR-31a: initiative ------------------------------------------------


@pytest.fixture
def party(dracula, player, other_player, make_character):
    def pc(owner, name, physique):
        return make_character(
            dracula,
            owner,
            name=name,
            sheet={"traits": {"mental": 2, "physique": physique, "social": 2}},
        )

    return pc


def ranks(entry) -> list[str]:
    return [row["name"] for row in sorted(entry["result"]["order"], key=lambda r: r["rank"])]


def test_JDR_30a_initiative_highest_total_acts_first(
    client, gm, player, other_player, dracula, party, make_character, forced_dice
):
    jonathan = party(player, "Jonathan", 3)
    mina = party(other_player, "Mina", 1)
    wolf = npc(make_character, dracula, gm, "Loup", (0, 2, 0))
    new_session(client, dracula, gm)
    forced_dice.push(1, 1, 6, 6, 3, 3)
    entry = initiative(client, dracula, gm, jonathan, wolf, mina)
    assert entry.status_code == 201, entry.text
    entry = entry.json()
    assert entry["kind"] == "jdr.initiative" and entry["character_id"] is None
    assert [d["face"] for d in entry["draws"]] == [1, 1, 6, 6, 3, 3]
    assert ranks(entry) == ["Loup", "Mina", "Jonathan"]
    by_name = {row["name"]: row for row in entry["result"]["order"]}
    assert by_name["Jonathan"]["total"] == 2 + 3 and by_name["Jonathan"]["dice"] == [1, 1]
    assert by_name["Loup"]["total"] == 12 + 2 and by_name["Loup"]["kind"] == "npc"
    assert by_name["Mina"]["total"] == 6 + 1 and by_name["Mina"]["rank"] == 2
    assert entry["effects"] == []


def test_JDR_30a_a_pc_goes_before_an_npc_on_a_tie(
    client, gm, player, dracula, party, make_character, forced_dice
):
    wolf = npc(make_character, dracula, gm, "Loup", (0, 3, 0))
    jonathan = party(player, "Jonathan", 2)
    new_session(client, dracula, gm)
    forced_dice.push(1, 3, 2, 3)  # the wolf 4 + 3 = 7, Jonathan 5 + 2 = 7
    entry = initiative(client, dracula, gm, wolf, jonathan).json()
    assert len(entry["draws"]) == 4  # no roll-off between a PC and an NPC
    assert ranks(entry) == ["Jonathan", "Loup"]


def test_JDR_30a_the_gm_gives_the_players_order_between_tied_pcs(
    client, gm, player, other_player, dracula, party, forced_dice
):
    jonathan = party(player, "Jonathan", 3)
    mina = party(other_player, "Mina", 1)
    new_session(client, dracula, gm)
    forced_dice.push(2, 2, 3, 3)  # 4 + 3 = 7 and 6 + 1 = 7
    entry = initiative(client, dracula, gm, jonathan, mina, order=[mina, jonathan]).json()
    assert len(entry["draws"]) == 4
    assert ranks(entry) == ["Mina", "Jonathan"]


def test_JDR_30a_by_default_higher_physique_breaks_a_tie_between_pcs(
    client, gm, player, other_player, dracula, party, forced_dice
):
    mina = party(other_player, "Mina", 1)
    jonathan = party(player, "Jonathan", 3)
    new_session(client, dracula, gm)
    forced_dice.push(3, 3, 2, 2)  # 6 + 1 = 7 and 4 + 3 = 7
    entry = initiative(client, dracula, gm, mina, jonathan).json()
    assert len(entry["draws"]) == 4
    assert ranks(entry) == ["Jonathan", "Mina"]


def test_JDR_30a_then_a_recorded_1d6_roll_off(
    client, gm, player, other_player, dracula, party, forced_dice
):
    jonathan = party(player, "Jonathan", 2)
    mina = party(other_player, "Mina", 2)
    new_session(client, dracula, gm)
    # Both 6 + 2 = 8 with the same physique: a roll-off, tied once (4, 4), then 1 against 6.
    forced_dice.push(3, 3, 2, 4, 4, 4, 1, 6)
    entry = initiative(client, dracula, gm, jonathan, mina).json()
    assert [d["face"] for d in entry["draws"]] == [3, 3, 2, 4, 4, 4, 1, 6]
    assert all(d["sides"] == 6 for d in entry["draws"])
    assert ranks(entry) == ["Mina", "Jonathan"]
    by_name = {row["name"]: row for row in entry["result"]["order"]}
    assert by_name["Jonathan"]["rolloff"] == [4, 1]
    assert by_name["Mina"]["rolloff"] == [4, 6]


def test_JDR_31a_surprise_gives_plus_two(
    client, gm, player, dracula, party, make_character, forced_dice
):
    jonathan = party(player, "Jonathan", 2)
    strigoi = npc(make_character, dracula, gm, "Strigoi", (1, 2, 1))
    new_session(client, dracula, gm)
    forced_dice.push(4, 4, 3, 4)  # Jonathan 8 + 2 = 10; the strigoi 7 + 2 + 2 = 11
    entry = initiative(
        client,
        dracula,
        gm,
        jonathan,
        {"character_id": strigoi["id"], "surprise": True},
    ).json()
    by_name = {row["name"]: row for row in entry["result"]["order"]}
    assert by_name["Strigoi"]["surprise"] == 2 and by_name["Strigoi"]["total"] == 11
    assert by_name["Jonathan"]["surprise"] == 0 and by_name["Jonathan"]["total"] == 10
    assert ranks(entry) == ["Strigoi", "Jonathan"]


def test_JDR_31a_a_pc_caught_off_guard_acts_last(
    client, gm, player, other_player, dracula, party, make_character, forced_dice
):
    jonathan = party(player, "Jonathan", 3)
    mina = party(other_player, "Mina", 1)
    wolf = npc(make_character, dracula, gm, "Loup", (0, 1, 0))
    new_session(client, dracula, gm)
    forced_dice.push(6, 6, 1, 1, 2, 1)  # Jonathan 15, Mina 3, the wolf 4
    entry = initiative(
        client,
        dracula,
        gm,
        {"character_id": jonathan["id"], "off_guard": True},
        mina,
        wolf,
    ).json()
    assert ranks(entry) == ["Loup", "Mina", "Jonathan"]
    by_name = {row["name"]: row for row in entry["result"]["order"]}
    assert by_name["Jonathan"]["off_guard"] is True and by_name["Jonathan"]["total"] == 15


def test_JDR_31_initiative_once_per_scene(
    client, gm, player, other_player, dracula, party, make_character, forced_dice
):
    jonathan = party(player, "Jonathan", 3)
    mina = party(other_player, "Mina", 1)
    wolf = npc(make_character, dracula, gm, "Loup", (0, 1, 0))
    new_session(client, dracula, gm)
    forced_dice.push(3, 3, 4, 4)
    assert initiative(client, dracula, gm, jonathan, wolf).status_code == 201
    before = last_seq(client, dracula, gm)
    response = initiative(client, dracula, gm, jonathan, mina)
    assert_refused(response, "JDR-31")
    assert "Jonathan" in response.json()["detail"]
    assert_refused(initiative(client, dracula, gm, wolf), "JDR-31")
    assert last_seq(client, dracula, gm) == before
    # Someone joining the fight mid-scene rolls once too.
    forced_dice.push(5, 5)
    assert initiative(client, dracula, gm, mina).status_code == 201
    assert_refused(initiative(client, dracula, gm, mina), "JDR-31")
    # A new scene, a new initiative.
    new_scene(client, dracula, gm)
    forced_dice.push(1, 2, 3, 4, 5, 6)
    assert initiative(client, dracula, gm, jonathan, mina, wolf).status_code == 201


def test_JDR_31_only_the_gm_calls_initiative(client, gm, player, dracula, party, forced_dice):
    jonathan = party(player, "Jonathan", 3)
    new_session(client, dracula, gm)
    assert_problem(initiative(client, dracula, player, jonathan), 403)
    forced_dice.push(2, 2)
    assert initiative(client, dracula, gm, jonathan).status_code == 201


def test_JDR_31_a_combatant_listed_twice_is_422(client, gm, player, dracula, party):
    jonathan = party(player, "Jonathan", 3)
    new_session(client, dracula, gm)
    assert_problem(initiative(client, dracula, gm, jonathan, jonathan), 422, "twice")
    assert_problem(
        post_roll(client, dracula, gm, {"kind": "jdr.initiative", "combatants": []}), 422
    )


# --- JDR-40 / JDR-41 / JDR-42: Mythos and forbidden knowledge [C] ---------------------------


@pytest.fixture
def penhaligon(cthulhu, player, make_character):
    return make_character(
        cthulhu,
        player,
        name="Dr. Penhaligon",
        sheet={"traits": {"mental": 3, "physique": 1, "social": 2}},
    )


def test_JDR_41_mythos_success_leaves_an_uncounted_mark(
    client, gm, player, cthulhu, penhaligon, forced_dice
):
    new_session(client, cthulhu, gm)
    forced_dice.push(4, 5)  # 9 + Mental 3 = 12
    response = mythos(
        client,
        cthulhu,
        player,
        penhaligon,
        12,
        "grimoire en latin",
        detail="murmure des mots latins en dormant",
    )
    assert response.status_code == 201, response.text
    entry = response.json()
    result = entry["result"]
    assert result["total"] == 12 and result["difficulty"] == 12 and result["mental"] == 3
    assert result["outcome"] == "success" and result["label"] == "Réussite"
    mark = {"description": "murmure des mots latins en dormant", "counted": False, "scene": 1}
    assert result["mark"] == mark and result["counted_marks"] == 0
    assert sheet_of(client, player, penhaligon)["marks"] == [mark]
    assert [e["rule"] for e in entry["effects"]] == ["JDR-41"]


def test_JDR_41_mythos_success_without_wording_still_leaves_a_detail(
    client, gm, player, cthulhu, penhaligon, forced_dice
):
    new_session(client, cthulhu, gm)
    forced_dice.push(3, 3)  # 9 against a letter's 9
    entry = mythos(client, cthulhu, player, penhaligon, 9, "lettre énigmatique").json()
    assert entry["result"]["outcome"] == "success"
    (mark,) = sheet_of(client, player, penhaligon)["marks"]
    assert mark["counted"] is False and "lettre énigmatique" in mark["description"]


def test_JDR_41_mythos_failure_leaves_the_cost_to_the_gm(
    client, gm, player, cthulhu, penhaligon, forced_dice
):
    new_session(client, cthulhu, gm)
    forced_dice.push(3, 4)  # 10 against 15
    entry = mythos(client, cthulhu, player, penhaligon, 15, "fragment du Necronomicon").json()
    assert entry["result"]["outcome"] == "failure" and entry["result"]["label"] == "Échec"
    assert "mark" not in entry["result"] and entry["effects"] == []
    assert sheet_of(client, player, penhaligon)["marks"] == []


def test_JDR_41_mythos_critical_failure_marks_at_once(
    client, gm, player, cthulhu, penhaligon, forced_dice
):
    new_session(client, cthulhu, gm)
    forced_dice.push(1, 1)  # 2 + 3 = 5
    entry = mythos(
        client,
        cthulhu,
        player,
        penhaligon,
        9,
        "statuette de R'lyeh",
        detail="entend une cloche sous l'eau",
    ).json()
    result = entry["result"]
    assert result["total"] == 5 and result["outcome"] == "critical_failure"
    assert result["label"] == "Échec critique"
    mark = {"description": "entend une cloche sous l'eau", "counted": True, "scene": 1}
    assert result["mark"] == mark and result["counted_marks"] == 1
    assert sheet_of(client, player, penhaligon)["marks"] == [mark]


def test_JDR_40_mythos_with_advantage_and_the_difficulty_range(
    client, gm, player, cthulhu, penhaligon, forced_dice
):
    new_session(client, cthulhu, gm)
    forced_dice.push(1, 6, 6)
    result = mythos(client, cthulhu, player, penhaligon, 15, "Necronomicon", advantage=True).json()[
        "result"
    ]
    assert result["mode"] == "advantage" and result["total"] == 15
    assert result["outcome"] == "success"
    assert_problem(mythos(client, cthulhu, player, penhaligon, 1, "x"), 422)
    assert_problem(mythos(client, cthulhu, player, penhaligon, 41, "x"), 422)
    assert_problem(mythos(client, cthulhu, player, penhaligon, 9, ""), 422)


def test_JDR_40_mythos_belongs_to_the_cthulhu_setting(client, gm, player, dracula, hunter):
    new_session(client, dracula, gm)
    assert_problem(mythos(client, dracula, player, hunter, 9, "lettre"), 422)


# --- JDR-43: no spells -----------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["jdr.spell", "jdr.sort", "jdr.ritual", "spell"])
def test_JDR_43_there_is_no_spell_kind(client, gm, player, cthulhu, penhaligon, kind):
    new_session(client, cthulhu, gm)
    before = last_seq(client, cthulhu, gm)
    response = post_roll(
        client,
        cthulhu,
        player,
        {"kind": kind, "character_id": penhaligon["id"], "spell": "Signe des Anciens"},
    )
    assert_problem(response, 422, "kind")
    assert last_seq(client, cthulhu, gm) == before


# --- replay: every JDR entry kind, verified online and offline ------------------------------


def rule_entries(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in entries if e["kind"] not in STRUCTURAL]


def test_replay_every_dracula_kind_verifies_online_and_offline(
    client, gm, player, dracula, hunter, vampire, brigand, tmp_path, forced_dice
):
    session = new_session(client, dracula, gm)
    assert session["current_session"] == 1
    # Talisman, sincere: spent.
    forced_dice.push(3, 5)  # 8 + Mental 2 = 10
    action = act(client, dracula, player, hunter, context={"supernatural": True})
    invoked = follow(
        client, dracula, player, "jdr.talisman", action["seq"], words="Seigneur, garde-moi."
    )
    follow(client, dracula, gm, "jdr.talisman_ruling", invoked["seq"], sincere=True)
    # A night of prayer: recharged.
    facts = [{"character_id": hunter["id"], "recollected": True}]
    scene = new_scene(client, dracula, gm, night=True, facts=facts)
    assert [(e["field"], e["after"]) for e in scene["effects"]] == [("talisman", "ready")]
    # A disputed context, then hollow words: cracked, then penance.
    forced_dice.push(4, 4)
    action = act(client, dracula, player, hunter)
    follow(client, dracula, gm, "jdr.context", action["seq"], context={"supernatural": True})
    invoked = follow(client, dracula, player, "jdr.talisman", action["seq"], words="bon ben")
    follow(client, dracula, gm, "jdr.talisman_ruling", invoked["seq"], sincere=False)
    gm_event(client, dracula, gm, "jdr.penance", hunter, "pèlerinage à pied")
    # The Joker on an icy stair.
    forced_dice.push(1, 1)
    action = act(client, dracula, player, hunter, "physique", context={"direct_peril": True})
    forced_dice.push(5, 5)
    follow(client, dracula, player, "jdr.joker", action["seq"])
    # A fight.
    new_scene(client, dracula, gm)
    forced_dice.push(6, 5, 2, 2, 3, 1)
    initiative(client, dracula, gm, hunter, vampire, brigand)
    forced_dice.push(2, 2)  # 4 + 3 + 1 = 8 against 6: a light wound
    attacked(client, dracula, player, hunter, vampire, {"name": "pieu", "tags": ["ash_stake"]})
    assert holy_water(client, dracula, player, hunter, vampire).status_code == 201
    forced_dice.push(6, 6)  # 12 + 3 = 15 against Defense 6: margin 9, serious
    hit = attacked(client, dracula, gm, vampire, hunter, {"name": "griffes"})
    assert hit["result"]["severity"] == "serious"
    gm_event(client, dracula, gm, "jdr.medical_care", hunter)
    forced_dice.push(2, 2)
    attacked(client, dracula, player, hunter, brigand, {"name": "sabre", "damage_bonus": 1})
    gm_patch(client, gm, brigand, {"tags": ["possessed"]})  # a structural sheet_edit
    # The next session recharges the Joker.
    session = new_session(client, dracula, gm)
    assert [(e["field"], e["after"]) for e in session["effects"]] == [("joker", "ready")]

    entries = log_entries(client, dracula, gm)
    kinds = {e["kind"] for e in entries}
    assert kinds >= JDR_KINDS - {
        "jdr.effleurement",
        "jdr.effleurement_refusal",
        "jdr.mythos",
        "jdr.sacrifice",
    }
    assert {"session_started", "scene_started"} <= kinds
    rules = rule_entries(entries)
    report = client.get(url(dracula, "/log/verify"), headers=gm.headers).json()
    assert report == {
        "ok": True,
        "entries_checked": len(entries),
        "rederived": 0,
        "replayed": len(rules),
        "first_failure": None,
    }
    summary = verified_offline(client, dracula, gm, tmp_path)
    assert summary.startswith(f"OK: {len(entries)} entries checked")


def partial_success(client, campaign, caller, character, context):
    """Roll real dice until a partial success (each miss is one more replayed entry)."""
    for _ in range(200):
        action = act(client, campaign, caller, character, context=context)
        if action["result"]["tier"] == "partial_success":
            return action
    raise AssertionError("no partial success in 200 rolls")


def test_replay_every_cthulhu_kind_with_real_dice_then_rotate_re_derives(
    client, gm, player, cthulhu, penhaligon, make_character, tmp_path
):
    deep_one = npc(make_character, cthulhu, gm, "Profond", (1, 3, 0), tags=["creature"])
    new_session(client, cthulhu, gm)
    # Scene 1: an Effleurement the GM refuses.
    action = partial_success(client, cthulhu, player, penhaligon, {"domain": "investigation"})
    touched = follow(client, cthulhu, player, "jdr.effleurement", action["seq"], mark="un tic")
    follow(client, cthulhu, gm, "jdr.effleurement_refusal", touched["seq"], reason="aucun lien")
    # Scene 2: a disputed domain, an Effleurement, a sacrifice.
    new_scene(client, cthulhu, gm)
    action = partial_success(client, cthulhu, player, penhaligon, {"domain": "other"})
    follow(client, cthulhu, gm, "jdr.context", action["seq"], context={"domain": "occult"})
    follow(client, cthulhu, player, "jdr.effleurement", action["seq"], mark="rêve d'eau noire")
    gm_event(client, cthulhu, gm, "jdr.sacrifice", penhaligon, "brûle la page")
    # Scene 3: another Effleurement, then a safe night recharges it.
    new_scene(client, cthulhu, gm)
    action = partial_success(client, cthulhu, player, penhaligon, {"domain": "erudition"})
    follow(client, cthulhu, player, "jdr.effleurement", action["seq"], mark="hait les miroirs")
    facts = [{"character_id": penhaligon["id"], "slept_safely": True}]
    scene = new_scene(client, cthulhu, gm, night=True, facts=facts)
    assert [(e["field"], e["after"]) for e in scene["effects"]] == [("effleurement", "ready")]
    # The Joker in a car chase.
    action = act(client, cthulhu, player, penhaligon, "physique", context={"direct_peril": True})
    follow(client, cthulhu, player, "jdr.joker", action["seq"])
    # A fight, a wound cared for, forbidden knowledge.
    response = initiative(client, cthulhu, gm, penhaligon, deep_one)
    assert response.status_code == 201, response.text
    attacked(client, cthulhu, player, penhaligon, deep_one, {"name": "fusil", "damage_bonus": 2})
    attacked(client, cthulhu, gm, deep_one, penhaligon, {"name": "griffes"})
    gm_patch(client, gm, penhaligon, {"wounds": [{"severity": "serious", "note": "morsure"}]})
    gm_event(client, cthulhu, gm, "jdr.medical_care", penhaligon)
    assert mythos(client, cthulhu, player, penhaligon, 12, "grimoire").status_code == 201
    session = new_session(client, cthulhu, gm)
    assert [(e["field"], e["after"]) for e in session["effects"]] == [("joker", "ready")]

    rotated = client.post(url(cthulhu, "/fairness/rotate"), headers=gm.headers)
    assert rotated.status_code == 201, rotated.text

    entries = log_entries(client, cthulhu, gm)
    kinds = {e["kind"] for e in entries}
    assert kinds >= JDR_KINDS - {
        "jdr.talisman",
        "jdr.talisman_ruling",
        "jdr.holy_water",
        "jdr.penance",
    }
    assert {"session_started", "scene_started", "epoch_closed"} <= kinds
    rules = rule_entries(entries)
    with_dice = [e for e in rules if e["draws"]]
    assert len(with_dice) >= 9
    report = client.get(url(cthulhu, "/log/verify"), headers=gm.headers).json()
    assert report == {
        "ok": True,
        "entries_checked": len(entries),
        "rederived": len(with_dice),
        "replayed": len(rules),
        "first_failure": None,
    }
    summary = verified_offline(client, cthulhu, gm, tmp_path)
    assert summary.startswith(f"OK: {len(entries)} entries checked")


def test_JDR_36_a_destroyed_vampire_no_longer_acts(client, gm, make_campaign, make_character):
    campaign = make_campaign("jdr-express-dracula")
    vampire = make_character(
        campaign,
        gm,
        kind="npc",
        name="Strigoi",
        sheet={"traits": {"mental": 1, "physique": 2, "social": 0}, "tags": ["vampire"]},
    )
    victim = make_character(campaign, gm, kind="npc", name="Villageois")
    client.patch(
        f"{API}/characters/{vampire['id']}", json={"sheet": {"destroyed": True}}, headers=gm.headers
    )
    base = f"{API}/campaigns/{campaign['id']}/rolls"
    attack = {
        "kind": "jdr.attack",
        "attacker_id": vampire["id"],
        "target_id": victim["id"],
        "weapon": {"name": "griffes"},
    }
    assert (
        assert_problem(client.post(base, json=attack, headers=gm.headers), 409)["rule"] == "JDR-36"
    )
    action = {"kind": "jdr.action", "character_id": vampire["id"], "trait": "physique"}
    assert (
        assert_problem(client.post(base, json=action, headers=gm.headers), 409)["rule"] == "JDR-36"
    )
