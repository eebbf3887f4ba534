"""Attacks (JDR-30..38) and holy water (JDR-35), every face combination."""

from __future__ import annotations

from itertools import product

import pytest

from app.engine.errors import InvalidInput
from app.engine.rulesets.jdr.combat import defense_of, severity_of
from tests.engine.jdr.requests import (
    FACES2,
    NPC,
    TRAITS,
    C,
    D,
    attack_req,
    char,
    clock,
    cthulhu_sheet,
    dice,
    dracula_sheet,
    eff,
    expected_severity,
    expected_tier,
    make_weapon,
    refused,
    run,
    sheet_for,
    sheet_model,
)
from tests.engine.rules import resolve

# --- JDR-30/32/33/36/37: combat -------------------------------------------------------


# (traits, defense_bonus) → Defense 0, 6, 9, 15, 20.
DEFENSES = [((0, 0, 0), 0), ((2, 2, 1), 1), ((3, 2, 2), 2), ((5, 5, 2), 3), ((5, 5, 5), 5)]


def test_JDR_2_JDR_30_defense_is_the_three_traits_plus_equipment() -> None:
    for m, p, s, bonus in product(range(6), range(6), range(6), range(6)):
        traits = {"mental": m, "physique": p, "social": s}
        sheet = sheet_model(dracula_sheet(traits=traits, defense_bonus=bonus))
        assert defense_of(sheet) == m + p + s + bonus


def test_JDR_33_severity_of_every_margin() -> None:
    for margin in range(-30, 40):
        assert severity_of(margin) == expected_severity(margin), margin


def test_FAIR_18_from_jdr_express_3_an_npcs_wound_on_a_pc_notes_no_margin() -> None:
    # The margin, beside the public dice and weapon, would give back the NPC's Physique.
    strong = sheet_for(D, traits={"mental": 2, "physique": 3, "social": 2})
    request = {
        **attack_req(D, strong, sheet_for(D), weapon=make_weapon()),
        "attacker": char(strong, kind="npc", cid=NPC),
        "target": char(sheet_for(D)),
    }
    current = resolve("jdr.attack", request, dice((6, 6)), rules="jdr-express@3")
    earlier = resolve("jdr.attack", request, dice((6, 6)), rules="jdr-express@2")
    margin = current.result["margin"]
    assert margin > 0 and earlier.result == current.result
    (_, wound) = [e["after"][-1] for e in (earlier.effects[0], current.effects[0])]
    assert wound["note"] == "Sabre de cavalerie"
    assert earlier.effects[0]["after"][-1]["note"] == f"Sabre de cavalerie, marge {margin}"


@pytest.mark.parametrize("system", [D, C])
def test_JDR_30_JDR_32_JDR_33_attack_margin_and_wound_every_face(system: str) -> None:
    old_wound = {"severity": "light", "note": "ancienne", "cared": False}
    labels = {
        "light": "Blessure légère",
        "serious": "Blessure grave",
        "critical": "Blessure critique",
        None: "Raté",
    }
    for (traits, bonus), physique, (w_bonus, w_damage) in product(
        DEFENSES, range(6), [(0, 0), (1, 0), (0, 1), (2, 2)]
    ):
        target = sheet_for(
            system,
            traits=dict(zip(TRAITS, traits, strict=True)),
            defense_bonus=bonus,
            wounds=[old_wound],
        )
        attacker = sheet_for(system, traits={"mental": 5, "physique": physique, "social": 5})
        arm = make_weapon(bonus=w_bonus, damage=w_damage)
        defense = sum(traits) + bonus
        for faces in FACES2:
            resolution = run("jdr.attack", attack_req(system, attacker, target, weapon=arm), faces)
            result = resolution.result
            total = sum(faces) + physique + w_bonus + w_damage
            margin = total - defense
            severity = expected_severity(margin)
            assert (result["total"], result["defense"], result["margin"]) == (
                total,
                defense,
                margin,
            )
            assert result["severity"] == severity and result["hit"] is (margin > 0)
            assert result["label"] == labels[severity]
            assert (result["physique"], result["weapon_bonus"]) == (physique, w_bonus)
            assert result["damage_steps"] == w_damage and result["creature_bonuses"] == []
            if severity is None:
                assert resolution.effects == []
            else:
                wound = {
                    "severity": severity,
                    "note": f"Sabre de cavalerie, marge {margin}",
                    "cared": False,
                }
                assert resolution.effects == [
                    eff("wounds", [old_wound], [old_wound, wound], "JDR-33", cid=NPC)
                ]


@pytest.mark.parametrize("w_tags", [[], ["ash_stake"], ["silver"], ["ash_stake", "silver"]])
@pytest.mark.parametrize(
    "t_tags",
    [[], ["vampire"], ["undead"], ["werewolf"], ["possessed"], ["creature"], ["vampire", "undead"]],
)
def test_JDR_36_JDR_37_creature_bonuses_dracula(w_tags: list[str], t_tags: list[str]) -> None:
    expected = []
    if "ash_stake" in w_tags and {"vampire", "undead"} & set(t_tags):
        expected.append({"rule": "JDR-36", "steps": 1})
    if "silver" in w_tags and t_tags:
        expected.append({"rule": "JDR-37", "steps": 1})
    steps = 1 + sum(b["steps"] for b in expected)  # the weapon's own +1 damage step
    target = dracula_sheet(tags=t_tags)
    for faces in FACES2:
        request = attack_req(D, dracula_sheet(), target, weapon=make_weapon(damage=1, tags=w_tags))
        result = run("jdr.attack", request, faces).result
        assert result["creature_bonuses"] == expected
        assert result["damage_steps"] == steps
        assert result["total"] == sum(faces) + 3 + steps
        assert result["margin"] == result["total"] - defense_of(sheet_model(target))


def test_JDR_37_no_silver_or_stake_bonus_in_cthulhu() -> None:
    target = cthulhu_sheet(tags=["creature", "undead"])
    arm = make_weapon(tags=["silver", "ash_stake"])
    result = run("jdr.attack", attack_req(C, cthulhu_sheet(), target, weapon=arm), (3, 3)).result
    assert result["creature_bonuses"] == [] and result["total"] == 9


@pytest.mark.parametrize("physique", range(6))
@pytest.mark.parametrize("defense", [0, 20])
def test_JDR_36_sleeping_vampire_staked_with_success_is_destroyed_every_face(
    physique: int, defense: int
) -> None:
    attacker = dracula_sheet(traits={"mental": 0, "physique": physique, "social": 0})
    target = dracula_sheet(
        tags=["vampire", "undead"],
        traits={name: defense // 4 for name in TRAITS},
        defense_bonus=defense // 4,
    )
    stake = make_weapon(name="Pieu de frêne", tags=["ash_stake"])
    for faces in FACES2:
        resolution = run(
            "jdr.attack", attack_req(D, attacker, target, weapon=stake, sleeping=True), faces
        )
        total = sum(faces) + physique + 1  # JDR-36: +1 against the undead
        result = resolution.result
        assert (result["total"], result["margin"]) == (total, total - defense)
        if expected_tier(total)[0] in ("success", "critical_success"):
            assert result["destroyed"] is True  # and no wound is recorded
            assert resolution.effects == [eff("destroyed", False, True, "JDR-36", cid=NPC)]
        else:
            assert "destroyed" not in result
            severity = expected_severity(total - defense)
            wound = {
                "severity": severity,
                "note": f"Pieu de frêne, marge {total - defense}",
                "cared": False,
            }
            expected = [eff("wounds", [], [wound], "JDR-33", cid=NPC)] if severity else []
            assert resolution.effects == expected


@pytest.mark.parametrize(
    ("system", "tags", "stake_tags", "sleeping"),
    [
        (D, ["vampire"], ["ash_stake"], False),  # awake
        (D, ["vampire"], [], True),  # not a stake
        (D, ["undead"], ["ash_stake"], True),  # not a vampire
        (C, ["vampire"], ["ash_stake"], True),  # not the Dracula setting
    ],
)
def test_JDR_36_no_destruction_otherwise(
    system: str, tags: list[str], stake_tags: list[str], sleeping: bool
) -> None:
    target = sheet_for(system, tags=tags)
    request = attack_req(
        system, sheet_for(system), target, weapon=make_weapon(tags=stake_tags), sleeping=sleeping
    )
    resolution = run("jdr.attack", request, (6, 6))
    assert "destroyed" not in resolution.result
    assert [e["field"] for e in resolution.effects] == ["wounds"]


def test_JDR_36_a_destroyed_target_cannot_be_attacked_or_splashed() -> None:
    dead = dracula_sheet(tags=["vampire"], destroyed=True)
    refused("jdr.attack", attack_req(D, dracula_sheet(), dead), "JDR-36")
    splash = {**clock(D), "attacker": char(dracula_sheet()), "target": char(dead, cid=NPC)}
    refused("jdr.holy_water", splash, "JDR-36")


def test_JDR_35_FAIR_21_holy_water_light_wound_to_vampires_only_no_roll() -> None:
    vampire = dracula_sheet(tags=["vampire"])
    request = {
        **clock(D),
        "attacker": char(dracula_sheet()),
        "target": char(vampire, kind="npc", cid=NPC),
    }
    resolution = run("jdr.holy_water", request)
    wound = {"severity": "light", "note": "eau bénite", "cared": False}
    assert resolution.result["severity"] == "light" and resolution.result["hit"] is True
    assert resolution.effects == [eff("wounds", [], [wound], "JDR-35", cid=NPC)]
    # FAIR-21, from jdr-express@2: on anyone else the vial just breaks, recorded (a refusal
    # would tell the players the target is no vampire). Version 1 entries replay refused.
    wolf = {**request, "target": char(dracula_sheet(tags=["werewolf"]), kind="npc", cid=NPC)}
    broken = resolve("jdr.holy_water", wolf, dice(()), rules="jdr-express@2")
    assert broken.result == {"hit": False, "severity": "no_effect", "label": "Sans effet"}
    assert broken.effects == []
    refused("jdr.holy_water", wolf, "JDR-35")  # as version 1 did
    refused("jdr.holy_water", {**request, "system": C}, "JDR-35", InvalidInput)
