"""Fabulae talents in combat (FAB-90), and every rule refusing a foreign system."""

from __future__ import annotations

from itertools import product
from typing import Any

import pytest
from pydantic import ValidationError

from app.engine.errors import InvalidInput
from tests.engine.fabulae.adapters import (
    resolve_action,
    resolve_attack,
    resolve_break_free,
    resolve_danger,
    resolve_death_test,
    resolve_end_effect,
    resolve_grapple,
    resolve_power,
    resolve_reload,
    resolve_repair,
    resolve_second_wind,
    resolve_sequela,
    resolve_stabilize,
    resolve_state_choice,
    resolve_strangle,
    resolve_street_rat,
)
from tests.engine.fabulae.combat import (
    BLUNT,
    FACES,
    PC,
    RANGED,
    SESSION,
    TRACKS,
    WEAPONS,
    attack_pool,
    attack_req,
    attacker_sheet,
    changes,
    char,
    clock,
    d6,
    make_sheet,
    refused,
    run,
    sixes,
)

# --- FAB-90: talents in combat ---------------------------------------------------------------


@pytest.mark.parametrize("weapon", sorted(w for w in WEAPONS if WEAPONS[w][5] is None))
@pytest.mark.parametrize("cogneur", [False, True])
def test_FAB90_cogneur_adds_one_damage_unarmed_or_blunt(weapon, cogneur):
    bonus = WEAPONS[weapon][0]
    attacker = make_sheet(
        {"physique": 2},
        {"combat": 1},
        talents=["cogneur"] if cogneur else [],
        weapons=[] if weapon == "bare_hands" else [{"id": weapon}],
    )
    pool = 3 + bonus
    request = attack_req(attacker, make_sheet(), "melee", weapon)
    result = run(resolve_attack, request, d6(6, *[2] * (pool - 1))).result
    expected = WEAPONS[weapon][1] + (1 if cogneur and weapon in BLUNT else 0)
    assert result["attacks"][0]["damage"] == expected


def test_FAB90_cogneur_does_not_touch_shots():
    attacker = attacker_sheet(talents=["cogneur"])
    result = run(resolve_attack, attack_req(attacker, make_sheet(), "ranged", "revolver"), d6(6, 2))
    assert result.result["attacks"][0]["damage"] == 2


@pytest.mark.parametrize("fine", [False, True])
def test_FAB90_fine_gachette_aims_plus_three_and_ignores_half_light(fine):
    attacker = make_sheet(
        {"habilete": 3},
        {"tir": 1},
        talents=["fine_gachette"] if fine else [],
        weapons=[{"id": "revolver"}],
    )
    for situation, aimed in product(
        [[], ["half_light"], ["half_light", "total_darkness"], ["medium_range"]], (False, True)
    ):
        request = attack_req(
            attacker, make_sheet(), "ranged", "revolver", situation=situation, aimed=aimed
        )
        factors = sum(RANGED[f] for f in situation if not (fine and f == "half_light"))
        aim = (3 if fine else 2) if aimed else 0
        pool = 3 + 1 + 2 + factors + aim
        result = run(resolve_attack, request, d6(*[2] * pool)).result
        sources = [m["source"] for m in attack_pool(result)["modifier_dice"]]
        assert attack_pool(result)["pool"] == pool
        assert ("half_light" in sources) is ("half_light" in situation and not fine)


def test_FAB90_snap_shot_minus_two_for_its_holder_on_a_shot_only():
    attacker = attacker_sheet(talents=["snap_shot"])
    attacker["attributes"]["habilete"] = 3
    request = attack_req(attacker, make_sheet(), "ranged", "revolver", snap_shot=True)
    result = run(resolve_attack, request, d6(2, 2, 2)).result
    assert {"source": "snap_shot", "dice": -2} in attack_pool(result)["modifier_dice"]
    assert attack_pool(result)["pool"] == 3
    refused(
        resolve_attack,
        attack_req(attacker_sheet(), make_sheet(), "ranged", "revolver", snap_shot=True),
        None,
        InvalidInput,
    )
    melee = attack_req(attacker, make_sheet(), "melee", "wrench", snap_shot=True)
    refused(resolve_attack, melee, None, InvalidInput)


@pytest.mark.parametrize("creature", [False, True])
@pytest.mark.parametrize("butcher", [False, True])
@pytest.mark.parametrize("mode", ["melee", "ranged"])
def test_FAB90_butcher_adds_two_to_sequelae_on_human_enemies(creature, butcher, mode):
    attacker = attacker_sheet(talents=["butcher"] if butcher else [])
    target = make_sheet(creature=creature, states=TRACKS["physical"])
    weapon, mod = ("wrench", 0) if mode == "melee" else ("revolver", 1)
    bonus = 2 if butcher and not creature else 0
    request = attack_req(attacker, target, mode, weapon, target_kind="pc", states="now")
    # 1 damage (wrench) or 2 (revolver): each on the full track is a sequela at once.
    draws = d6(6, 2) + d6(3, 3, 4) * (1 if mode == "melee" else 2)
    result = run(resolve_attack, request, draws).result
    assert all(landed["broken"] for landed in result["states_checked"])
    for landed in result["states_checked"]:
        assert landed["sequela"]["modifier"] == mod + bonus  # feats 0
        assert landed["sequela"]["score"] == 6 + mod + bonus


def test_FAB90_all_in_adds_a_die_to_a_melee_attack():
    attacker = make_sheet(talents=["all_in"], weapons=[{"id": "knife"}])
    request = attack_req(attacker, make_sheet(), "melee", "knife", talents=["all_in"])
    result = run(resolve_attack, request, d6(2, 2, 2)).result
    assert attack_pool(result)["talent_dice"] == [{"talent": "all_in", "dice": 1}]


def test_FAB90_second_wind_every_face_clears_a_physical_state_per_six():
    states = [*TRACKS["physical"], "enerve"]
    sheet = make_sheet(  # Physique 3 + Résistance 1 − Meurtri − Blessé: two dice
        {"physique": 3},
        skills={"resistance": 1},
        talents=["second_wind"],
        states=states,
        broken=True,
        broken_track="physical",
    )
    for faces in product(FACES, repeat=2):
        resolution = run(resolve_second_wind, {**clock(), "character": char(sheet)}, d6(*faces))
        effects = changes(resolution)
        assert effects[(PC, "second_wind_session")] == (None, SESSION, "FAB-90")
        if 6 in faces:
            cleared = ["blesse", "meurtri", "epuise"][: sixes(faces)]
            assert resolution.result["cleared"] == cleared
            assert effects[(PC, "states")][1] == [s for s in states if s not in cleared]
            assert effects[(PC, "broken")] == (True, False, "FAB-90")
            assert effects[(PC, "broken_track")] == ("physical", None, "FAB-90")
        else:
            assert set(effects) == {(PC, "second_wind_session")}


def test_FAB90_second_wind_once_per_session_when_broken_with_the_talent():
    broken = {"broken": True, "broken_track": "physical", "states": TRACKS["physical"]}
    used = make_sheet(talents=["second_wind"], second_wind_session=SESSION, **broken)
    refused(resolve_second_wind, {**clock(), "character": char(used)}, "FAB-90")
    whole = make_sheet(talents=["second_wind"])
    refused(resolve_second_wind, {**clock(), "character": char(whole)}, "FAB-90")
    untalented = make_sheet(**broken)
    refused(resolve_second_wind, {**clock(), "character": char(untalented)}, None, InvalidInput)
    earlier = make_sheet(
        {"physique": 3}, talents=["second_wind"], second_wind_session=SESSION - 1, **broken
    )
    result = run(resolve_second_wind, {**clock(), "character": char(earlier)}, d6(2)).result
    assert result["outcome"] == "failure"


def test_FAB90_second_wind_on_a_mental_break_clears_the_body_but_stays_broken():
    sheet = make_sheet(  # Physique 3 − Apeuré − Démoralisé: one die
        {"physique": 3},
        talents=["second_wind"],
        states=["epuise", *TRACKS["mental"]],
        broken=True,
        broken_track="mental",
    )
    resolution = run(resolve_second_wind, {**clock(), "character": char(sheet)}, d6(6))
    assert resolution.result["cleared"] == ["epuise"]
    assert (PC, "broken") not in changes(resolution)


def street_action(skill: str, faces: Any, stress: int = 0, talents: Any = ("street_rat",)):
    sheet = make_sheet({"habilete": 2, "physique": 2}, talents=list(talents), stress=stress)
    roll = {"attribute": SKILL_ATTR[skill], "skill": skill, "modifiers": [], "talents": []}
    request = {**clock(), "character": char(sheet), "roll": roll}
    result = run(resolve_action, request, d6(*faces)).result
    action = {"seq": 40, "kind": "fabulae.action", "request": request, "result": result}
    return sheet, action


SKILL_ATTR = {"furtivite": "habilete", "athletisme": "physique", "combat": "physique"}


@pytest.mark.parametrize("skill", ["furtivite", "athletisme"])
def test_FAB90_street_rat_rerolls_one_failed_die_every_face(skill):
    for first, second in product(FACES, FACES):
        sheet, action = street_action(skill, (first, second))
        for index, new in product((0, 1), FACES):
            old = (first, second)[index]
            request = {
                **clock(),
                "character": char(sheet),
                "action": action,
                "follow_ups": [],
                "die": index,
            }
            if old == 6:
                refused(resolve_street_rat, request, None, InvalidInput)
                continue
            result = run(resolve_street_rat, request, d6(new)).result
            faces = [first, second]
            faces[index] = new
            assert result["dice"] == faces and result["rerolled_die"] == index
            assert result["sixes"] == sixes(faces)
            assert result["outcome"] == ("success" if 6 in faces else "failure")


def test_FAB90_street_rat_refusals():
    sheet, action = street_action("furtivite", (2, 3))
    base = {**clock(), "character": char(sheet), "action": action, "follow_ups": [], "die": 0}
    refused(resolve_street_rat, {**base, "die": 2}, None, InvalidInput)
    again = [{"seq": 41, "kind": "fabulae.street_rat", "result": {}}]
    refused(resolve_street_rat, {**base, "follow_ups": again}, "FAB-90")
    pushed = [{"seq": 41, "kind": "fabulae.push", "result": {}}]
    refused(resolve_street_rat, {**base, "follow_ups": pushed}, "FAB-33")
    plain = make_sheet({"habilete": 2})
    refused(resolve_street_rat, {**base, "character": char(plain)}, None, InvalidInput)
    _, combat = street_action("combat", (2, 3))
    refused(resolve_street_rat, {**base, "action": combat}, "FAB-90")
    panic_sheet, panicked = street_action("furtivite", (2, 3, 1), stress=1)
    request = {**base, "character": char(panic_sheet), "action": panicked}
    refused(resolve_street_rat, request, "FAB-42")
    attack = {**action, "kind": "fabulae.attack"}
    refused(resolve_street_rat, {**base, "action": attack}, None, InvalidInput)


def test_FAB90_street_rat_keeps_the_stress_dice():
    sheet, action = street_action("furtivite", (2, 3, 6), stress=1)
    request = {**clock(), "character": char(sheet), "action": action, "follow_ups": [], "die": 1}
    result = run(resolve_street_rat, request, d6(4)).result
    assert result["dice"] == [2, 4] and result["stress_dice"] == [6]
    assert result["outcome"] == "success"


# --- every resolver refuses a foreign system first ------------------------------------------


@pytest.mark.parametrize(
    "resolver",
    [
        resolve_attack,
        resolve_grapple,
        resolve_break_free,
        resolve_strangle,
        resolve_sequela,
        resolve_death_test,
        resolve_stabilize,
        resolve_danger,
        resolve_repair,
        resolve_reload,
        resolve_second_wind,
        resolve_end_effect,
        resolve_street_rat,
        resolve_state_choice,
        resolve_power,
    ],
)
def test_a_fabulae_rule_refuses_another_system(resolver):
    error = refused(
        resolver, {"system": "vampire", "session": 1, "scene": 1}, None, ValidationError
    )
    assert "system" in str(error)
