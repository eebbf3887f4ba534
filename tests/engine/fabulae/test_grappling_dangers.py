"""Fabulae grapples (FAB-63), environmental dangers (FAB-73), repairs (FAB-67) and reloads
(FAB-71)."""

from __future__ import annotations

from itertools import product
from typing import Any

import pytest
from pydantic import ValidationError

from app.engine.errors import InvalidInput
from tests.engine.fabulae.adapters import (
    resolve_break_free,
    resolve_danger,
    resolve_grapple,
    resolve_reload,
    resolve_repair,
    resolve_strangle,
)
from tests.engine.fabulae.combat import (
    ALLY,
    FACES,
    FOE,
    PC,
    TRACKS,
    WEAPONS,
    NoDice,
    changes,
    char,
    clock,
    d6,
    danger_req,
    make_sheet,
    refused,
    run,
    sixes,
)

# --- FAB-63: grapple, break free, strangle -----------------------------------------------------


@pytest.mark.parametrize("defense", ["none", "parry", "dodge"])
def test_FAB63_grapple_every_face(defense):
    attacker = make_sheet(skills={"combat": 1})
    target = make_sheet(skills={"combat": 1, "athletisme": 1})
    defense_dice = 0 if defense == "none" else 2
    for faces in product(FACES, repeat=2 + defense_dice):
        request = {
            **clock(),
            "attacker": char(attacker, FOE, "npc"),
            "target": char(target),
            "defense": defense,
            "modifiers": [],
        }
        resolution = run(resolve_grapple, request, d6(*faces))
        grappled = sixes(faces[:2]) > sixes(faces[2:])
        assert resolution.result["grappled"] is grappled
        assert resolution.result["roll"]["net"] == sixes(faces[:2]) - sixes(faces[2:])
        if grappled:
            assert changes(resolution) == {(PC, "grappled_by"): (None, FOE, "FAB-63")}
        else:
            assert changes(resolution) == {}


def test_FAB63_grapple_modifiers_change_the_pool():
    request = {
        **clock(),
        "attacker": char(make_sheet(skills={"combat": 1}), FOE, "npc"),
        "target": char(make_sheet()),
        "defense": "none",
        "modifiers": [{"source": "sneak_attack", "dice": 2}],
    }
    result = run(resolve_grapple, request, d6(2, 2, 2, 6)).result
    assert result["roll"]["active"]["pool"]["pool"] == 4 and result["grappled"] is True


def test_FAB63_an_unknown_grapple_defense_is_refused_before_any_die():
    request = {
        **clock(),
        "attacker": char(make_sheet(skills={"combat": 1}), FOE, "npc"),
        "target": char(make_sheet()),
        "defense": "bite",
        "modifiers": [],
    }
    with pytest.raises(ValidationError, match="defense"):
        resolve_grapple(request, NoDice())


def test_FAB63_break_free_every_face():
    victim = make_sheet(skills={"combat": 1}, grappled_by=FOE)
    holder = make_sheet(skills={"combat": 1})
    for faces in product(FACES, repeat=4):
        request = {**clock(), "character": char(victim), "holder": char(holder, FOE, "npc")}
        resolution = run(resolve_break_free, request, d6(*faces))
        freed = sixes(faces[:2]) > sixes(faces[2:])
        assert resolution.result["freed"] is freed
        expected = {(PC, "grappled_by"): (FOE, None, "FAB-63")} if freed else {}
        assert changes(resolution) == expected


def test_FAB63_break_free_and_strangle_need_the_hold():
    free = make_sheet()
    held_by_other = make_sheet(grappled_by=ALLY)
    holder = char(make_sheet(), FOE, "npc")
    for victim in (free, held_by_other):
        refused(
            resolve_break_free, {**clock(), "character": char(victim), "holder": holder}, "FAB-63"
        )
        request = {**clock(), "attacker": holder, "target": char(victim), "states": "auto"}
        refused(resolve_strangle, request, "FAB-63")


def test_FAB63_strangle_one_net_damage_a_round_without_dice():
    holder = char(make_sheet(), FOE, "npc")
    for kind, states in product(("npc", "pc"), range(3)):
        held = make_sheet(grappled_by=FOE, states=TRACKS["physical"][:states])
        request = {**clock(), "attacker": holder, "target": char(held, PC, kind), "states": "auto"}
        resolution = run(resolve_strangle, request)
        assert resolution.result["damage"] == 1
        if kind == "pc":
            assert resolution.result["pending_states"] == [
                {
                    "rule": "FAB-63",
                    "track": "physical",
                    "sequela": {"weapon_mod": 0, "feats": 0, "butcher": False},
                }
            ]
            assert changes(resolution) == {}
        else:
            box = TRACKS["physical"][states]
            assert resolution.result["states_checked"][0]["state"] == box
    # On a full track the strangled NPC breaks: a sequela, 2D6 with no modifier.
    full = make_sheet(grappled_by=FOE, states=TRACKS["physical"])
    request = {**clock(), "attacker": holder, "target": char(full, PC, "npc"), "states": "auto"}
    result = run(resolve_strangle, request, d6(6, 6, 3, 4)).result
    assert result["states_checked"][0]["sequela"]["code"] == "bleeding"
    assert result["states_checked"][0]["sequela"]["duration"] == "7 days"


# --- FAB-73: environmental dangers --------------------------------------------------------


@pytest.mark.parametrize("intensity", range(3, 10))
@pytest.mark.parametrize("round_", [1, 2, 4])
def test_FAB73_fire_intensity_plus_a_die_each_round(intensity, round_):
    """Each six deals 1 damage; all six faces for small fires, six/non-six beyond."""
    count = intensity + round_ - 1
    alphabet = FACES if count <= 4 else (1, 6)
    sheet = make_sheet(armor={"id": "guard_mail", "value": 2})  # armor does not stop fire
    for faces in product(alphabet, repeat=count):
        request = danger_req(sheet, "fire", "pc", intensity=intensity, round=round_)
        resolution = run(resolve_danger, request, d6(*faces))
        damage = sixes(faces)
        assert resolution.result["dice"] == list(faces)
        assert resolution.result["damage"] == damage
        assert len(resolution.result.get("pending_states", [])) == damage
        assert changes(resolution) == {}


def test_FAB73_fire_on_an_npc_lands_and_the_broken_burn_with_death_tests():
    sheet = make_sheet()
    resolution = run(resolve_danger, danger_req(sheet, "fire"), d6(6, 2, 6))
    assert changes(resolution)[(PC, "states")] == ([], ["epuise", "meurtri"], "FAB-73")
    assert "note" not in resolution.result
    broken = make_sheet(states=TRACKS["physical"], broken=True, broken_track="physical")
    result = run(resolve_danger, danger_req(broken, "fire"), d6(2, 2, 2)).result
    assert "death test" in result["note"]


@pytest.mark.parametrize("intensity", [2, 10])
def test_FAB73_fire_and_poison_potency_is_3_to_9(intensity):
    for danger in ("fire", "poison", "disease"):
        request = danger_req(make_sheet(), danger, intensity=intensity)
        refused(resolve_danger, request, "FAB-73", InvalidInput)
    with pytest.raises(ValidationError, match="danger"):
        resolve_danger(danger_req(make_sheet(), "lava"), NoDice())


@pytest.mark.parametrize(
    ("intensity", "medium", "count"), [(3, False, 3), (8, True, 2), (6, True, 0), (5, True, 0)]
)
def test_FAB73_explosion_base_through_armor_plus_extra_sixes(intensity, medium, count):
    sheet = make_sheet(armor={"id": "leather_coat", "value": 1})
    for faces, armor_die in product(product(FACES, repeat=count), FACES):
        request = danger_req(
            sheet, "explosion", "pc", intensity=intensity, damage=2, medium_range=medium
        )
        resolution = run(resolve_danger, request, d6(*faces, armor_die))
        extra = max(0, sixes(faces) - 1)
        through = 2 - min(2, sixes((armor_die,)))
        result = resolution.result
        assert (result["base"], result["extra_net"]) == (2, extra)
        assert result["damage"] == through + extra
        assert result["protection"]["dice"] == [armor_die]
        assert len(result.get("pending_states", [])) == through + extra
        worn = {(PC, "armor"): (sheet["armor"], {"id": "leather_coat", "value": 0}, "FAB-73")}
        assert changes(resolution) == (worn if through else {})


@pytest.mark.parametrize("armor", ["guard_mail", "factory_plate"])
def test_FAB73_heavy_metal_armor_sinks_at_once(armor):
    base = {"guard_mail": 2, "factory_plate": 4}[armor]
    sheet = make_sheet(armor={"id": armor, "value": base})
    result = run(resolve_danger, danger_req(sheet, "drowning")).result
    assert result["sinks"] is True and "roll" not in result


@pytest.mark.parametrize("armor", [None, {"id": "leather_coat", "value": 1}])
@pytest.mark.parametrize("phase", ["float", "underwater"])
def test_FAB73_drowning_every_face(armor, phase):
    sheet = make_sheet(skills={"resistance": 1}, armor=armor)
    for faces in product(FACES, repeat=2):
        request = danger_req(sheet, "drowning", "npc", phase=phase)
        resolution = run(resolve_danger, request, d6(*faces))
        failed = 6 not in faces
        result = resolution.result
        assert result["roll"]["pool"]["attribute"] == 1 and result["roll"]["pool"]["skill"] == 1
        if phase == "float":
            assert result["sinks"] is failed and changes(resolution) == {}
        else:
            assert result["damage"] == (1 if failed else 0)
            assert ((PC, "states") in changes(resolution)) is failed


@pytest.mark.parametrize("danger", ["poison", "disease"])
def test_FAB73_poison_and_disease_opposed_against_potency_every_face(danger):
    sheet = make_sheet(skills={"resistance": 1})
    for faces in product(FACES, repeat=5):
        save, venom = faces[:2], faces[2:]
        request = danger_req(sheet, danger, "pc", intensity=3)
        result = run(resolve_danger, request, d6(*faces)).result
        resisted = sixes(save) > sixes(venom)
        assert result["roll"]["net"] == sixes(save) - sixes(venom)
        assert result["roll"]["passive"]["dice"] == list(venom)
        assert result["damage"] == (0 if resisted else 1)
        assert result["per"].startswith("round" if danger == "poison" else "day")
        assert len(result.get("pending_states", [])) == result["damage"]


@pytest.mark.parametrize("cool_head", [False, True])
def test_FAB73_cold_damage_and_stress_every_face(cool_head):
    sheet = make_sheet(
        skills={"resistance": 1}, talents=["cool_head"] if cool_head else [], stress=2
    )
    for faces in product(FACES, repeat=2 + 2):  # 2 pool dice + 2 stress dice
        resolution = run(resolve_danger, danger_req(sheet, "cold"), d6(*faces))
        result = resolution.result
        failed = 1 in faces[2:] or 6 not in faces
        assert result["damage"] == (1 if failed else 0)
        effects = changes(resolution)
        if failed:
            gain = 0 if cool_head else 1
            assert result["stress_gained"] == gain
            assert (effects.get((PC, "stress")) == (2, 3, "FAB-73")) is (not cool_head)
            assert effects[(PC, "states")] == ([], ["epuise"], "FAB-73")
        else:
            assert "stress_gained" not in result and effects == {}


# --- FAB-67: repairs, FAB-71: reloads -------------------------------------------------------


def repair_req(mechanic: dict[str, Any], owner: dict[str, Any], **inputs: Any) -> Any:
    return {
        **clock(),
        "character": char(mechanic, ALLY, "pc"),
        "owner": char(owner),
        "attribute": inputs.get("attribute", "intellect"),
        "helpers": inputs.get("helpers", 0),
        "talents": inputs.get("talents", []),
        "modifiers": inputs.get("modifiers", []),
    }


@pytest.mark.parametrize("tinkerer", [False, True])
def test_FAB67_repair_every_face_restores_one_per_success_and_feat(tinkerer):
    mechanic = make_sheet(skills={"bricolage": 1}, talents=["tinkerer"] if tinkerer else [])
    owner = make_sheet(armor={"id": "primitive_vest", "value": 0})
    talents = ["tinkerer"] if tinkerer else []
    for faces in product(FACES, repeat=4 if tinkerer else 2):
        request = repair_req(mechanic, owner, talents=talents)
        resolution = run(resolve_repair, request, d6(*faces))
        if 6 in faces:
            value = min(3, sixes(faces))
            assert resolution.result["armor_value"] == value
            assert changes(resolution)[(PC, "armor")] == (
                {"id": "primitive_vest", "value": 0},
                {"id": "primitive_vest", "value": value},
                "FAB-67",
            )
        else:
            assert changes(resolution) == {}


def test_FAB67_repair_refusals():
    mechanic = make_sheet(skills={"bricolage": 1})
    refused(resolve_repair, repair_req(mechanic, make_sheet()), "FAB-67")
    whole = make_sheet(armor={"id": "leather_coat", "value": 1})
    refused(resolve_repair, repair_req(mechanic, whole), "FAB-67")


@pytest.mark.parametrize(
    ("weapon", "quick", "action"),
    [
        ("revolver", False, "fast"),
        ("revolver", True, "free"),
        ("repeating_rifle", False, "slow"),
        ("repeating_rifle", True, "slow"),
        ("crossbow", True, "slow"),
    ],
)
def test_FAB71_FAB90_reload_to_capacity_quick_reload_frees_light_weapons(weapon, quick, action):
    capacity = WEAPONS[weapon][5]
    assert capacity is not None
    for loaded in range(capacity):
        sheet = make_sheet(
            talents=["quick_reload"] if quick else [], weapons=[{"id": weapon, "ammo": loaded}]
        )
        request = {**clock(), "character": char(sheet), "weapon": weapon}
        resolution = run(resolve_reload, request)
        assert resolution.result == {"weapon": weapon, "ammo": capacity, "action": action}
        assert changes(resolution) == {
            (PC, "weapons"): (
                [{"id": weapon, "ammo": loaded}],
                [{"id": weapon, "ammo": capacity}],
                "FAB-71",
            )
        }


def test_FAB71_reload_refusals():
    full = make_sheet(weapons=[{"id": "revolver"}, {"id": "knife"}])
    refused(resolve_reload, {**clock(), "character": char(full), "weapon": "revolver"}, "FAB-71")
    for weapon in ("knife", "bare_hands", "shotgun"):
        request = {**clock(), "character": char(full), "weapon": weapon}
        refused(resolve_reload, request, None, InvalidInput)
