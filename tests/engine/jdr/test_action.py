"""The action roll (JDR-10..13), its automatic burdens (JDR-3, JDR-24, JDR-33) and medical
care (JDR-3), every face combination."""

from __future__ import annotations

from itertools import product
from typing import Any

import pytest

from app.engine.errors import InvalidInput
from app.engine.rulesets.jdr.core import roll_2d6, tier_of
from tests.engine.jdr.requests import (
    FACES2,
    FACES3,
    SCENE,
    SERIOUS,
    TRAITS,
    C,
    D,
    action_req,
    apply,
    attack_req,
    char,
    clock,
    cthulhu_sheet,
    dice,
    dracula_sheet,
    eff,
    expected_kept,
    expected_tier,
    malformed,
    mythos_req,
    refused,
    run,
    shaken_sheet,
    sheet_for,
)

# --- JDR-10/JDR-11: action total and tiers ---------------------------------------------


def test_JDR_11_tier_of_matches_the_table_on_every_total() -> None:
    for total in range(-20, 40):
        assert tier_of(total) == expected_tier(total)[0], total


@pytest.mark.parametrize("system", [D, C])
@pytest.mark.parametrize("trait", TRAITS)
def test_JDR_10_JDR_11_action_total_and_tier_every_face_trait_bonus_modifier(
    system: str, trait: str
) -> None:
    for value, bonus in product(range(6), range(4)):
        # The other traits hold different values, so reading the wrong trait shows.
        traits = {name: (value if name == trait else 5 - value) for name in TRAITS}
        talents = [{"name": f"Talent {b}", "bonus": b} for b in (1, 2, 3)]
        sheet = sheet_for(system, traits=traits, talents=talents)
        talent = f"Talent {bonus}" if bonus else None
        for faces, modifier in product(FACES2, range(-5, 6)):
            request = action_req(system, sheet, trait=trait, talent=talent, modifier=modifier)
            resolution = run("jdr.action", request, faces)
            result = resolution.result
            total = sum(faces) + value + bonus + modifier
            code, label = expected_tier(total)
            assert (result["total"], result["tier"], result["label"]) == (total, code, label)
            assert result["mode"] == "normal"
            assert result["dice"] == list(faces) and result["kept"] == [True, True]
            assert (result["trait_value"], result["talent_bonus"]) == (value, bonus)
            assert result["auto_disadvantage"] == [] and "success" not in result
            assert resolution.effects == []


def test_JDR_10_unknown_talent_or_trait_is_invalid_input() -> None:
    refused("jdr.action", action_req(D, dracula_sheet(), talent="Nage"), None, InvalidInput)
    malformed("jdr.action", action_req(D, dracula_sheet(), trait="chance"), "trait")
    malformed("jdr.action", action_req("vampire", dracula_sheet()), "system")


def test_JDR_31a_no_talent_bonus_flag_drops_the_talent() -> None:
    request = action_req(D, dracula_sheet(), talent="Escrime")
    assert run("jdr.action", request, (3, 3)).result["talent_bonus"] == 2
    request["no_talent_bonus"] = True
    result = run("jdr.action", request, (3, 3)).result
    assert (result["talent_bonus"], result["total"]) == (0, 9)


# --- JDR-12: advantage and disadvantage --------------------------------------------------


@pytest.mark.parametrize("mode", ["advantage", "disadvantage"])
def test_JDR_12_three_dice_keep_two_every_face_combination(mode: str) -> None:
    sheet = dracula_sheet()
    for faces in FACES3:
        request = action_req(D, sheet, **{mode: True})
        result = run("jdr.action", request, faces).result
        kept = expected_kept(faces, mode)
        assert result["mode"] == mode and result["dice"] == list(faces)
        assert result["kept"] == kept and sum(result["kept"]) == 2
        kept_faces = sorted(faces, reverse=mode == "advantage")[:2]
        assert sum(f for f, k in zip(faces, kept, strict=True) if k) == sum(kept_faces)
        total = sum(kept_faces) + 3
        assert (result["total"], result["tier"]) == (total, expected_tier(total)[0])


def test_JDR_12_roll_2d6_both_cancel_to_two_dice_every_face_combination() -> None:
    for faces in FACES2:
        source = dice(faces)
        roll = roll_2d6(source, advantage=True, disadvantage=True)
        source.assert_consumed()
        assert roll.model_dump() == {
            "mode": "normal",
            "dice": list(faces),
            "kept": [True, True],
            "kept_sum": sum(faces),
        }
        result = run(
            "jdr.action", action_req(C, cthulhu_sheet(), advantage=True, disadvantage=True), faces
        ).result
        assert result["mode"] == "normal" and result["total"] == sum(faces) + 3


# --- JDR-13: difficulty -----------------------------------------------------------------


def test_JDR_13_difficulty_success_iff_total_reaches_it_and_exceeds_five() -> None:
    for value, modifier, faces in product(range(6), (-5, 0, 5), FACES2):
        sheet = cthulhu_sheet(traits={"mental": value, "physique": 0, "social": 0})
        for difficulty in range(0, 20):
            request = action_req(C, sheet, trait="mental", modifier=modifier, difficulty=difficulty)
            result = run("jdr.action", request, faces).result
            total = sum(faces) + value + modifier
            assert result["difficulty"] == difficulty
            assert result["success"] is (total >= difficulty and total > 5), (total, difficulty)
            assert result["tier"] == expected_tier(total)[0]


# --- JDR-3/JDR-33: serious wounds, JDR-24: shaken faith -----------------------------------


def burdened_requests() -> list[tuple[str, Any, dict[str, Any], list[str]]]:
    """(case, resolver, request, expected auto_disadvantage) for every automatic burden."""
    wounded_d = dracula_sheet(wounds=[SERIOUS])
    shaken = dracula_sheet(talisman="cracked", faith_shaken={"cracked_scene": SCENE - 1})
    both = dracula_sheet(
        talisman="cracked", faith_shaken={"cracked_scene": SCENE - 1}, wounds=[SERIOUS]
    )
    count = dracula_sheet(tags=["vampire", "undead"])
    target = {"name": "Sabre", "bonus": 0, "damage_bonus": 0, "tags": []}

    def attack(attacker: dict[str, Any]) -> dict[str, Any]:
        return attack_req(D, attacker, count, weapon=target)

    return [
        ("action-wound-D", "jdr.action", action_req(D, wounded_d), ["serious_wound"]),
        (
            "action-wound-C",
            "jdr.action",
            action_req(C, cthulhu_sheet(wounds=[SERIOUS])),
            ["serious_wound"],
        ),
        (
            "mythos-wound",
            "jdr.mythos",
            mythos_req(cthulhu_sheet(wounds=[SERIOUS]), 9),
            ["serious_wound"],
        ),
        ("attack-wound", "jdr.attack", attack(wounded_d), ["serious_wound"]),
        (
            "action-shaken",
            "jdr.action",
            action_req(D, shaken, supernatural=True, protection=True),
            ["faith_shaken"],
        ),
        ("attack-shaken", "jdr.attack", attack(shaken), ["faith_shaken"]),
        (
            "action-both",
            "jdr.action",
            action_req(D, both, supernatural=True, protection=True),
            ["serious_wound", "faith_shaken"],
        ),
    ]


@pytest.mark.parametrize(
    ("resolver", "request_", "burdens"),
    [case[1:] for case in burdened_requests()],
    ids=[case[0] for case in burdened_requests()],
)
def test_JDR_3_JDR_24_JDR_33_automatic_disadvantage_keeps_lowest_every_face(
    resolver: Any, request_: dict[str, Any], burdens: list[str]
) -> None:
    for faces in FACES3:
        result = run(resolver, request_, faces).result
        assert result["mode"] == "disadvantage" and result["dice"] == list(faces)
        assert result["kept"] == expected_kept(faces, "disadvantage")
        assert result["auto_disadvantage"] == burdens
    # Advantage and the burden cancel: two dice only, the burden still shown.
    request_ = {**request_, "advantage": True}
    for faces in FACES2:
        result = run(resolver, request_, faces).result
        assert result["mode"] == "normal" and result["kept"] == [True, True]
        assert result["auto_disadvantage"] == burdens


@pytest.mark.parametrize(
    "wounds",
    [
        [],
        [{"severity": "light", "note": "", "cared": False}],
        [{**SERIOUS, "cared": True}],
        [{"severity": "light", "note": "", "cared": False}, {**SERIOUS, "cared": True}],
    ],
    ids=["none", "light", "serious-cared", "light+serious-cared"],
)
def test_JDR_3_cared_or_light_wounds_roll_two_dice(wounds: list[dict[str, Any]]) -> None:
    for faces in FACES2:
        result = run("jdr.action", action_req(D, dracula_sheet(wounds=wounds)), faces).result
        assert result["mode"] == "normal" and result["auto_disadvantage"] == []
        assert result["total"] == sum(faces) + 3


def test_JDR_3_medical_care_lifts_the_serious_wound_disadvantage() -> None:
    light = {"severity": "light", "note": "", "cared": False}
    sheet = dracula_sheet(wounds=[light, SERIOUS, SERIOUS])
    care = {**clock(D), "character": char(sheet), "description": "Van Helsing recoud"}
    resolution = run("jdr.medical_care", care)
    cared = [light, {**SERIOUS, "cared": True}, {**SERIOUS, "cared": True}]
    assert resolution.result["cared"] == 2
    assert resolution.effects == [eff("wounds", sheet["wounds"], cared, "JDR-3")]
    healed = apply(sheet, resolution.effects)
    assert run("jdr.action", action_req(D, healed), (2, 5)).result["mode"] == "normal"
    refused("jdr.medical_care", {**care, "character": char(healed)}, "JDR-3")


@pytest.mark.parametrize(
    ("confrontation", "scene", "context", "applies"),
    [
        (None, 3, {"supernatural": True, "protection": True}, False),  # the crack's own scene
        (None, 2, {"supernatural": True, "protection": True}, False),
        (None, 4, {"supernatural": True, "protection": True}, True),
        (None, 9, {"supernatural": True, "protection": True}, True),
        (None, 4, {"supernatural": False, "protection": True}, False),
        (None, 4, {"supernatural": True, "protection": False}, False),
        (None, 4, {"supernatural": True, "direct_peril": True}, False),
        (4, 4, {"supernatural": True, "protection": True}, True),  # same confrontation
        (4, 5, {"supernatural": True, "protection": True}, False),  # later scenes are free
        (4, 9, {"supernatural": True, "protection": True}, False),
    ],
)
def test_JDR_24_faith_shaken_protection_roll(
    confrontation: int | None, scene: int, context: dict[str, Any], applies: bool
) -> None:
    sheet = shaken_sheet(confrontation)
    request = action_req(D, sheet, scene=scene, **context)
    resolution = run("jdr.action", request, (5, 2, 4) if applies else (5, 2))
    result = resolution.result
    assert result["mode"] == ("disadvantage" if applies else "normal")
    assert result["auto_disadvantage"] == (["faith_shaken"] if applies else [])
    if applies and confrontation is None:
        after = {"cracked_scene": 3, "confrontation_scene": scene}
        assert resolution.effects == [eff("faith_shaken", sheet["faith_shaken"], after, "JDR-24")]
    else:
        assert resolution.effects == []


@pytest.mark.parametrize(
    ("confrontation", "scene", "tags", "supernatural", "applies"),
    [
        (None, 3, ["vampire"], False, False),
        (None, 4, ["vampire"], False, True),
        (None, 4, ["werewolf"], False, True),
        (None, 4, [], True, True),
        (None, 4, [], False, False),
        (4, 4, ["possessed"], False, True),
        (4, 5, ["vampire"], True, False),
    ],
)
def test_JDR_24_faith_shaken_attack_against_the_supernatural(
    confrontation: int | None, scene: int, tags: list[str], supernatural: bool, applies: bool
) -> None:
    sheet = shaken_sheet(confrontation)
    target = dracula_sheet(tags=tags)
    request = attack_req(D, sheet, target, supernatural=supernatural, scene=scene)
    resolution = run("jdr.attack", request, (1, 1, 1) if applies else (1, 1))
    assert resolution.result["auto_disadvantage"] == (["faith_shaken"] if applies else [])
    shaken_effects = [e for e in resolution.effects if e["field"] == "faith_shaken"]
    if applies and confrontation is None:
        after = {"cracked_scene": 3, "confrontation_scene": scene}
        assert shaken_effects == [eff("faith_shaken", sheet["faith_shaken"], after, "JDR-24")]
    else:
        assert shaken_effects == []


def test_JDR_24_confrontation_scene_carries_over_within_it_then_frees() -> None:
    sheet = shaken_sheet()
    first = run(
        "jdr.action", action_req(D, sheet, scene=4, supernatural=True, protection=True), (6, 6, 1)
    )
    assert first.result["kept"] == [True, False, True]  # ties: the later 6 is dropped
    sheet = apply(sheet, first.effects)
    again = run(
        "jdr.attack", attack_req(D, sheet, dracula_sheet(tags=["vampire"]), scene=4), (2, 2, 2)
    )
    assert again.result["auto_disadvantage"] == ["faith_shaken"]
    assert [e for e in again.effects if e["field"] == "faith_shaken"] == []
    later = run(
        "jdr.action", action_req(D, sheet, scene=5, supernatural=True, protection=True), (6, 6)
    )
    assert later.result["mode"] == "normal" and later.effects == []
