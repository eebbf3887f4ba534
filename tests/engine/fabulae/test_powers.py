"""Fabulae powers (FAB-100..102) and their end (FAB-102)."""

from __future__ import annotations

from itertools import product
from typing import Any

import pytest
from pydantic import ValidationError

from app.engine.errors import InvalidInput
from app.engine.rulesets.fabulae.sheet import ActiveEffect
from tests.engine.fabulae.adapters import (
    pool_of,
    recharges,
    resolve_attack,
    resolve_clock,
    resolve_end_effect,
    resolve_power,
    resolve_state_choice,
)
from tests.engine.fabulae.combat import (
    ALLY,
    FACES,
    FOE,
    PC,
    SCENE,
    SESSION,
    TRACKS,
    attack_pool,
    attack_req,
    changes,
    char,
    clock,
    d,
    d6,
    make_sheet,
    power_req,
    refused,
    run,
    sixes,
    threat_req,
)

# --- FAB-100..102: powers ----------------------------------------------------------------------


def caster_sheet(*powers: str, pp: int = 3, pp_max: int = 5, **over: Any) -> dict[str, Any]:
    """Intellect 1 + Connaissance 1: the caster's roll is two dice."""
    return make_sheet(skills={"connaissance": 1}, powers=list(powers), pp=pp, pp_max=pp_max, **over)


@pytest.mark.parametrize("pp", [1, 2, 3])
def test_FAB100_each_pp_spent_adds_one_stress(pp):
    caster = caster_sheet("trance", "far_sight", stress=1)
    for power in ("trance", "far_sight"):
        resolution = run(resolve_power, power_req(caster, power, pp))
        result = resolution.result
        assert (result["pp"], result["stress_gained"]) == (pp, pp)
        effects = changes(resolution)
        assert effects[(PC, "pp")] == (3, 3 - pp, "FAB-100")
        assert effects[(PC, "stress")] == (1, 1 + pp, "FAB-100")
        assert result["applied"] is (power == "far_sight")


def test_FAB100_cool_head_does_not_lessen_the_casting_stress():
    caster = caster_sheet("trance", talents=["cool_head"])
    resolution = run(resolve_power, power_req(caster, "trance", 2))
    assert changes(resolution)[(PC, "stress")] == (0, 2, "FAB-100")


def test_FAB100_refusals_come_before_any_die():
    caster = caster_sheet("bolt", "summon", "beast_command", pp=2)
    target = char(make_sheet(), FOE, "npc")
    refused(resolve_power, power_req(caster, "bolt", 1, [target], allowed=False), "FAB-100")
    refused(resolve_power, power_req(caster, "fireball", 1, [target]), None, InvalidInput)
    refused(resolve_power, power_req(caster, "drain", 1, [target]), "FAB-100")
    refused(resolve_power, power_req(caster, "bolt", 3, [target]), "FAB-100")
    refused(resolve_power, power_req(caster, "summon", 2, option="minor"), None, InvalidInput)
    refused(resolve_power, power_req(caster, "summon", 2), None, InvalidInput)
    refused(
        resolve_power,
        power_req(caster, "beast_command", 1, option="mastiff"),
        None,
        InvalidInput,
    )
    refused(resolve_power, power_req(caster, "bolt", 1, []), None, InvalidInput)
    refused(resolve_power, power_req(caster, "bolt", 1, [target, target]), None, InvalidInput)
    rich = caster_sheet("summon", pp=5)
    refused(resolve_power, power_req(rich, "summon", 4, option="major"), None, InvalidInput)
    assert run(resolve_power, power_req(rich, "summon", 5, option="major")).result["pp"] == 5
    resize = caster_sheet("resize")
    refused(resolve_power, power_req(resize, "resize", 1), None, InvalidInput)


@pytest.mark.parametrize("armor", [None, {"id": "leather_coat", "value": 1}])
def test_FAB102_bolt_every_face_two_plus_feats_through_armor(armor):
    caster = caster_sheet("bolt")
    target = make_sheet(armor=armor)
    protect = 1 if armor else 0
    for faces in product(FACES, repeat=2):
        hit = 6 in faces
        armor_faces = list(product(FACES, repeat=protect)) if hit else [()]
        for armor_roll in armor_faces:
            request = power_req(caster, "bolt", 1, [char(target, FOE, "npc")])
            resolution = run(resolve_power, request, d6(*faces, *armor_roll))
            result = resolution.result
            assert result["roll"]["dice"] == list(faces)
            if not hit:
                assert result["targets"] == {}
                assert (FOE, "states") not in changes(resolution)
                continue
            damage = 2 + sixes(faces) - 1
            through = damage - min(damage, sixes(armor_roll))
            hurt = result["targets"][FOE]
            assert (hurt["damage"], hurt["through"]) == (damage, through)
            states = TRACKS["physical"][:through]
            assert changes(resolution).get((FOE, "states"), (None, []))[1] == states


def test_FAB102_bolt_on_a_player_character_waits_for_the_player():
    caster = caster_sheet("bolt")
    request = power_req(caster, "bolt", 1, [char(make_sheet(), FOE, "pc")])
    result = run(resolve_power, request, d6(6, 2)).result
    assert (
        result["targets"][FOE]["pending_states"]
        == [
            {
                "rule": "FAB-102",
                "track": "physical",
                "sequela": {"weapon_mod": 0, "feats": 0, "butcher": False},
            }
        ]
        * 2
    )


def test_FAB102_a_power_threat_on_a_player_is_settled_like_an_attack():
    caster = caster_sheet("hazard_zone")
    target = make_sheet()
    request = power_req(caster, "hazard_zone", 1, [char(target, FOE, "pc")])
    threat = run(resolve_power, request).result
    pending = threat["targets"][FOE]["pending_states"]
    assert len(pending) == 2
    # The service hands the engine the threats on that one target (services/fabulae._settle).
    choice = threat_req(char(target, FOE, "pc"), {"pending_states": pending}, state=None)
    resolution = run(resolve_state_choice, choice)
    assert changes(resolution) == {(FOE, "states"): ([], ["epuise"], "FAB-102")}


def test_FAB102_fire_cone_every_face_halved_on_athletisme_success():
    caster = caster_sheet("fire_cone")
    first = make_sheet(skills={"athletisme": 1})
    second = make_sheet(skills={"athletisme": 1}, armor={"id": "leather_coat", "value": 1})
    targets = [char(first, FOE, "npc"), char(second, ALLY, "npc")]
    for save1, save2, armor_die in product(
        product(FACES, repeat=2), product(FACES, repeat=2), (1, 6)
    ):
        request = power_req(caster, "fire_cone", 1, targets)
        resolution = run(resolve_power, request, d6(*save1, *save2, armor_die))
        hits = resolution.result["targets"]
        for target_id, save, armor_roll in ((FOE, save1, ()), (ALLY, save2, (armor_die,))):
            damage = 1 if 6 in save else 2
            through = damage - min(damage, sixes(armor_roll))
            assert hits[target_id]["damage"] == damage
            assert hits[target_id]["through"] == through
            assert hits[target_id]["save"]["pool"]["skill"] == 1


def test_FAB102_blast_every_face_two_damage_and_meurtri_on_a_failed_resistance():
    caster = caster_sheet("blast")
    target = make_sheet(skills={"resistance": 1}, armor={"id": "guard_mail", "value": 2})
    for save, armor_roll in product(product(FACES, repeat=2), product(FACES, repeat=2)):
        request = power_req(caster, "blast", 1, [char(target, FOE, "npc")])
        resolution = run(resolve_power, request, d6(*save, *armor_roll))
        hurt = resolution.result["targets"][FOE]
        through = 2 - min(2, sixes(armor_roll))
        failed = 6 not in save
        assert hurt["damage"] == 2 and hurt["through"] == through
        landed = TRACKS["physical"][:through]
        if failed:
            # Meurtri already checked by the damage: the track's next box instead (FAB-22).
            extra = "meurtri" if "meurtri" not in landed else TRACKS["physical"][through]
            landed = [*landed, extra]
        assert hurt.get("meurtri", False) is failed
        assert changes(resolution).get((FOE, "states"), (None, []))[1] == landed


@pytest.mark.parametrize(
    ("states", "save", "expected"), [([], (2, 2), "meurtri"), (["meurtri"], (2,), "epuise")]
)
def test_FAB102_FAB34_a_blast_meurtri_on_a_player_waits_to_be_settled(states, save, expected):
    caster = caster_sheet("blast")
    target = make_sheet(
        skills={"resistance": 1}, states=states, armor={"id": "guard_mail", "value": 2}
    )
    request = power_req(caster, "blast", 1, [char(target, FOE, "pc")])
    # Résistance fails (no six; Meurtri costs a die); the armour's two sixes stop both damage.
    resolution = run(resolve_power, request, d6(*save, 6, 6))
    hurt = resolution.result["targets"][FOE]
    assert hurt["through"] == 0 and hurt["meurtri"] is True
    assert (FOE, "states") not in changes(resolution)  # nothing lands before the player answers
    assert [t["state"] for t in hurt["pending_states"]] == ["meurtri"]
    choice = threat_req(char(target, FOE, "pc"), {"pending_states": hurt["pending_states"]})
    settled = run(resolve_state_choice, choice)
    # Already Meurtri: the blast checks the physical track's next free box (FAB-22).
    assert settled.result["state"] == expected
    assert changes(settled) == {(FOE, "states"): (states, [*states, expected], "FAB-102")}


def test_FAB102_hazard_zone_two_net_damage_without_dice():
    caster = caster_sheet("hazard_zone")
    armored = make_sheet(armor={"id": "factory_plate", "value": 4})
    targets = [char(armored, FOE, "npc"), char(make_sheet(), ALLY, "pc")]
    resolution = run(resolve_power, power_req(caster, "hazard_zone", 1, targets))
    hits = resolution.result["targets"]
    assert hits[FOE]["through"] == 2 and hits[FOE]["protection"] is None
    assert changes(resolution)[(FOE, "states")] == ([], ["epuise", "meurtri"], "FAB-102")
    assert len(hits[ALLY]["pending_states"]) == 2


@pytest.mark.parametrize(
    ("power", "option", "expected"),
    [
        ("barrier", None, {"armor": 2}),
        ("deflection", None, {"attacks_against": -2}),
        ("invisibility", None, {"attacks_against": -3, "skills": {"furtivite": 3}}),
        ("far_sight", None, {"skills": {"observation": 2}}),
        ("tongues", None, {"skills": {"connaissance": 1}}),
        ("wall_walk", None, {"skills": {"athletisme": 2}}),
        ("resize", "grow", {"attributes": {"physique": 1}, "melee_damage": 1}),
        ("resize", "shrink", {"attributes": {"physique": -1}, "skills": {"furtivite": 1}}),
    ],
)
def test_FAB102_active_effects_on_the_target(power, option, expected):
    caster = caster_sheet(power)
    target = make_sheet()
    resolution = run(
        resolve_power, power_req(caster, power, 1, [char(target, FOE, "npc")], option=option)
    )
    entry = {
        "source": power,
        "caster_id": PC,
        "scene": SCENE,
        "armor": 0,
        "attacks_against": 0,
        "all_rolls": 0,
        "skills": {},
        "attributes": {},
        "melee_damage": 0,
        "net_damage": 0,
        "note": "",
        **expected,
    }
    assert changes(resolution)[(FOE, "active_effects")] == ([], [entry], "FAB-102")
    assert resolution.result["applied"] is True
    # The effect validates on a sheet and changes the bearer's pools.
    bearer = make_sheet(active_effects=[entry])
    skill = next(iter(expected.get("skills", {})), None)
    if skill:
        attribute = {
            "furtivite": "habilete",
            "observation": "intellect",
            "connaissance": "intellect",
            "athletisme": "physique",
        }[skill]
        pool = pool_of(char(bearer), {"attribute": attribute, "skill": skill}, SESSION)
        change = expected["skills"][skill] + expected.get("attributes", {}).get(attribute, 0)
        assert pool["situation"] == change


def test_FAB102_resize_with_no_target_lands_on_the_caster_and_adds_melee_damage():
    caster = caster_sheet("resize", weapons=[{"id": "knife"}])
    resolution = run(resolve_power, power_req(caster, "resize", 1, option="grow"))
    grown = changes(resolution)[(PC, "active_effects")][1]
    assert changes(resolution)[(PC, "active_effects")][2] == "FAB-100"
    attacker = make_sheet(weapons=[{"id": "knife"}], active_effects=grown)
    request = attack_req(attacker, make_sheet(), "melee", "knife")
    result = run(resolve_attack, request, d6(6, 2, 2)).result  # physique 1 + 1 grow + knife 1
    assert attack_pool(result)["situation_dice"] == [{"source": "power resize", "dice": 1}]
    assert result["attacks"][0]["damage"] == 3


@pytest.mark.parametrize("power", ["light_dark", "silence_noise"])
def test_FAB102_light_dark_and_silence_every_face(power):
    caster = caster_sheet(power)
    for faces in product(FACES, repeat=2):
        request = power_req(caster, power, 1, [char(make_sheet(), FOE, "npc")])
        resolution = run(resolve_power, request, d6(*faces))
        malus = -4 if sixes(faces) >= 2 else -2
        assert resolution.result["malus"] == malus
        entry = changes(resolution)[(FOE, "active_effects")][1][0]
        assert entry["skills"] == {"observation": malus}


@pytest.mark.parametrize("target_pp", [0, 1, 2, 5])
def test_FAB102_drain_every_face_steals_1D3_on_an_opposed_success(target_pp):
    caster = caster_sheet("drain", pp=3, pp_max=4)
    victim = make_sheet(pp=target_pp, pp_max=5)
    for faces in product(FACES, repeat=3):
        won = sixes(faces[:2]) > sixes(faces[2:])
        d3_faces = (1, 2, 3) if won else (None,)
        for d3 in d3_faces:
            draws = d6(*faces) + (d(3, d3) if d3 else [])
            request = power_req(caster, "drain", 1, [char(victim, FOE, "npc")])
            resolution = run(resolve_power, request, draws)
            effects = changes(resolution)
            if not won:
                assert "stolen" not in resolution.result
                assert (FOE, "pp") not in effects
                assert effects[(PC, "pp")] == (3, 2, "FAB-100")
                continue
            stolen = min(d3, target_pp)
            assert resolution.result["stolen"] == stolen
            if stolen:
                assert effects[(FOE, "pp")] == (target_pp, target_pp - stolen, "FAB-102")
            caster_after = min(4, 2 + stolen)
            assert effects.get((PC, "pp"), (3, 3, "FAB-100")) == (3, caster_after, "FAB-100")


def test_FAB102_calm_clears_fear_gloom_exhaustion_and_all_stress():
    caster = caster_sheet("calm")
    states = ["epuise", "meurtri", "enerve", "apeure", "demoralise"]
    target = make_sheet(states=states, stress=4)
    resolution = run(resolve_power, power_req(caster, "calm", 1, [char(target, FOE, "npc")]))
    effects = changes(resolution)
    assert effects[(FOE, "states")] == (states, ["meurtri", "enerve"], "FAB-102")
    assert effects[(FOE, "stress")] == (4, 0, "FAB-102")


def test_FAB102_calm_on_oneself_clears_the_casting_stress_too():
    caster = caster_sheet("calm", stress=2, states=["apeure"])
    resolution = run(resolve_power, power_req(caster, "calm", 2, [char(caster)]))
    effects = changes(resolution)
    assert effects[(PC, "stress")] == (2, 0, "FAB-100")
    assert effects[(PC, "states")] == (["apeure"], [], "FAB-100")


def test_FAB102_horror_lists_panic_rolls_for_its_targets():
    caster = caster_sheet("horror")
    targets = [char(make_sheet(), FOE, "npc"), char(make_sheet(), ALLY, "pc")]
    resolution = run(resolve_power, power_req(caster, "horror", 1, targets))
    assert resolution.result["must_roll_panic"] == {"characters": [FOE, ALLY], "modifier": -1}


def test_FAB102_wall_records_its_metres():
    caster = caster_sheet("wall", pp=3)
    result = run(resolve_power, power_req(caster, "wall", 3)).result
    assert result["wall"] == {"metres": 3, "armor": 4, "breaks_at_net_damage": 3}


@pytest.mark.parametrize(
    ("power", "option", "pp"),
    [
        ("beast_command", "mastiff", 2),
        ("teleport", "medium", 4),
        ("summon", "minor", 3),
        ("trance", None, 1),
    ],
)
def test_FAB101_narrated_powers_record_their_cost(power, option, pp):
    caster = caster_sheet(power, pp=pp)
    resolution = run(resolve_power, power_req(caster, power, pp, option=option))
    assert resolution.result["applied"] is False
    assert set(changes(resolution)) == {(PC, "pp"), (PC, "stress")}


def test_FAB102_recharges_clear_every_active_effect_at_scene_start():
    barrier = {"source": "barrier", "armor": 2}
    request = {
        "system": "fabulae-tenebris",
        "family": "fabulae",
        "session": SESSION,
        "scene": SCENE + 1,
        "new_session": False,
        "night_passed": False,
        "characters": [
            {"character_id": PC, "kind": "pc", "sheet": {"active_effects": [barrier]}},
            {"character_id": FOE, "kind": "npc", "sheet": {"active_effects": []}},
            {"character_id": ALLY, "kind": "npc", "sheet": {}},
        ],
    }
    expected = [
        {
            "character_id": PC,
            "field": "active_effects",
            "before": [barrier],
            "after": [],
            "rule": "FAB-102",
        }
    ]
    assert recharges(request) == expected
    resolution = run(resolve_clock, request)
    assert resolution.result == {"session": SESSION, "scene": SCENE + 1}
    assert resolution.effects == expected


def test_FAB102_the_gm_ends_an_effect():
    effects = [
        {"source": "barrier", "armor": 2},
        {"source": "deflection", "attacks_against": -2},
    ]
    sheet = make_sheet(active_effects=effects)
    request = {**clock(), "character": char(sheet), "source": "barrier"}
    resolution = run(resolve_end_effect, request)
    before, after, rule = changes(resolution)[(PC, "active_effects")]
    assert [e["source"] for e in before] == ["barrier", "deflection"]
    assert [e["source"] for e in after] == ["deflection"] and rule == "FAB-102"
    refused(resolve_end_effect, {**request, "source": "invisibility"}, "FAB-102")


def test_FAB_101_FAIR_18_an_active_effect_source_is_a_power_id_on_edits_only() -> None:
    # Rolls name the source beside the die it adds: free text there would carry an NPC's
    # secrets to the players. A sheet stored before still reads, so its entries replay.
    assert ActiveEffect.model_validate({"source": "bolt"}, context={"editing": True}).source
    with pytest.raises(ValidationError, match="unknown power 'a secret'"):
        ActiveEffect.model_validate({"source": "a secret"}, context={"editing": True})
    assert ActiveEffect.model_validate({"source": "a secret"}).source == "a secret"
