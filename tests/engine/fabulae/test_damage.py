"""Fabulae attacks (FAB-62..68): damage through armor and cover, states, the attack pool,
burst fire (FAB-65)."""

from __future__ import annotations

from itertools import product
from typing import Any

import pytest
from pydantic import ValidationError

from app.engine.dice import ReplayDice
from app.engine.errors import InvalidInput
from tests.engine.fabulae.adapters import (
    resolve_absorb,
    resolve_attack,
    resolve_state_choice,
    situation_dice,
)
from tests.engine.fabulae.combat import (
    ALLY,
    AMMO_DIE,
    DAMAGE_CASES,
    FACES,
    FOE,
    MELEE,
    PC,
    RANGED,
    SCENE,
    THREAT_SEQ,
    TRACKS,
    WEAPONS,
    NoDice,
    P,
    attack_pool,
    attack_req,
    attacker_sheet,
    changes,
    char,
    d,
    d6,
    make_sheet,
    physical_duration,
    refused,
    run,
    sequela_row,
    sixes,
    subsets,
    threat_req,
)

# --- FAB-66/67: damage through armor and cover -------------------------------------------------

ARMOR_CASES = [
    P(None, id="no-armor"),
    P({"id": "leather_coat", "value": 0}, id="worn-coat-0"),
    P({"id": "leather_coat", "value": 1}, id="coat-1"),
    P({"id": "guard_mail", "value": 2}, id="mail-2"),
]
# (mode, weapon, attack faces, damage): the shooter's pool is 2 dice; one six hits.


@pytest.mark.parametrize("armor", ARMOR_CASES)
@pytest.mark.parametrize("cover", [0, 3])
def test_FAB66_FAB67_every_protection_face_for_armor_and_cover(armor, cover):
    """Each six absorbs one damage (at most the damage); the armor wears only if damage
    gets through; cover adds dice and never wears."""
    value = armor["value"] if armor else 0
    count = value + cover
    shooter = attacker_sheet()
    target = make_sheet(armor=armor)
    cases = [
        (case, faces)
        for case in DAMAGE_CASES
        # Every face for every damage up to four dice; with five, every face for the
        # largest damage and six/non-six for the others (keeps the run short).
        for faces in product(FACES if count < 5 or case[3] == 3 else (2, 6), repeat=count)
    ]
    for (mode, weapon, attack, damage), faces in cases:
        request = attack_req(shooter, target, mode, weapon, cover=cover)
        resolution = run(resolve_attack, request, d6(*attack, *faces))
        absorbed = min(damage, sixes(faces))
        through = damage - absorbed
        worn = through > 0 and value > 0
        (hit,) = resolution.result["attacks"]
        assert hit["hit"] is True and hit["damage"] == damage
        assert hit["protection"] == {
            "armor": value,
            "powers": 0,
            "cover": cover,
            "dice": list(faces),
            "absorbed": absorbed,
            "armor_worn": worn,
        }
        assert hit["through"] == through
        effects = changes(resolution)
        if worn:
            assert effects[(PC, "armor")] == (armor, {**armor, "value": value - 1}, "FAB-68")
        else:
            assert (PC, "armor") not in effects
        states = TRACKS["physical"][:through]
        if through:
            assert effects[(PC, "states")] == ([], states, "FAB-68")
            assert [s["state"] for s in resolution.result["states_checked"]] == states
        else:
            assert (PC, "states") not in effects and "states_checked" not in resolution.result
        if mode == "ranged":
            assert effects[(FOE, "weapons")][1][0] == {"id": "revolver", "ammo": 5}


@pytest.mark.parametrize("armor", [None, {"id": "leather_coat", "value": 1}])
def test_FAB102_barrier_adds_two_protection_dice_that_never_wear(armor):
    value = armor["value"] if armor else 0
    barrier = {"source": "barrier", "caster_id": ALLY, "scene": SCENE, "armor": 2}
    target = make_sheet(armor=armor, active_effects=[barrier])
    for faces in product(FACES, repeat=value + 2):
        request = attack_req(attacker_sheet(), target, "ranged", "revolver")
        resolution = run(resolve_attack, request, d6(6, 6, *faces))  # 3 damage
        (hit,) = resolution.result["attacks"]
        through = 3 - min(3, sixes(faces))
        assert hit["protection"]["powers"] == 2 and hit["protection"]["armor"] == value
        assert hit["through"] == through
        worn = bool(through and value)
        assert hit["protection"]["armor_worn"] is worn
        assert ((PC, "armor") in changes(resolution)) is worn


def test_FAB67_cover_values_are_the_rules_list():
    """The attack's request takes only the cover values of FAB-67, as its body does."""
    shooter, target = attacker_sheet(), make_sheet()
    for cover in (1, 2, 7, 9):
        with pytest.raises(ValidationError, match="cover"):
            resolve_attack(attack_req(shooter, target, "ranged", "revolver", cover=cover), NoDice())
    for cover in (4, 5, 6, 8):
        request = attack_req(shooter, target, "ranged", "revolver", cover=cover)
        result = run(resolve_attack, request, d6(6, 2, *[2] * cover)).result
        assert result["attacks"][0]["protection"]["cover"] == cover


# --- FAB-62/FAB-36: the opposed melee attack, every face -----------------------------------


@pytest.mark.parametrize("defense", ["parry", "dodge"])
def test_FAB62_FAB66_opposed_melee_every_face(defense):
    """Knife (+1, 2 damage): attacker 2 dice against 2 defense dice, then 1 armor die."""
    attacker = make_sheet(weapons=[{"id": "knife"}])
    target = make_sheet(
        skills={"combat": 1, "athletisme": 1}, armor={"id": "leather_coat", "value": 1}
    )
    for a1, a2, p1, p2 in product(FACES, repeat=4):
        net = sixes((a1, a2)) - sixes((p1, p2))
        request = attack_req(attacker, target, "melee", "knife", defense=defense)
        if net < 1:
            result = run(resolve_attack, request, d6(a1, a2, p1, p2)).result
            (miss,) = result["attacks"]
            assert miss["hit"] is False and miss["roll"]["outcome"] == "failure"
            assert miss["roll"]["winner"] == "passive"
            assert "states_checked" not in result and "pending_states" not in result
            continue
        for armor_die in FACES:
            resolution = run(resolve_attack, request, d6(a1, a2, p1, p2, armor_die))
            (hit,) = resolution.result["attacks"]
            damage = 2 + net - 1
            through = damage - min(damage, sixes((armor_die,)))
            assert hit["roll"]["net"] == net and hit["roll"]["feats"] == net - 1
            assert hit["roll"]["passive"]["dice"] == [p1, p2]
            assert hit["roll"]["passive"]["pool"]["skill"] == 1  # combat or athletisme 1
            assert (hit["damage"], hit["through"]) == (damage, through)
            states = TRACKS["physical"][:through]
            assert [s["state"] for s in resolution.result.get("states_checked", [])] == states


def test_FAB62_ranged_attacks_take_no_parry_or_dodge():
    request = attack_req(attacker_sheet(), make_sheet(), "ranged", "revolver", defense="dodge")
    refused(resolve_attack, request, None, InvalidInput)


def test_FAB62_defense_must_be_none_parry_or_dodge():
    attacker = make_sheet(weapons=[{"id": "knife"}])
    request = attack_req(attacker, make_sheet(), "melee", "knife", defense="duck")
    with pytest.raises(ValidationError, match="defense"):
        resolve_attack(request, NoDice())


@pytest.mark.parametrize(
    ("mode", "weapon"),
    [("melee", "revolver"), ("ranged", "knife"), ("ranged", "bare_hands"), ("melee", "sabre")],
)
def test_FAB71_the_weapon_must_fit_the_mode_and_be_carried(mode, weapon):
    attacker = make_sheet(weapons=[{"id": "revolver"}, {"id": "knife"}])
    refused(resolve_attack, attack_req(attacker, make_sheet(), mode, weapon), None, InvalidInput)


@pytest.mark.parametrize("who", ["attacker", "target"])
def test_FAB51_the_dead_neither_attack_nor_are_attacked(who):
    alive, dead = attacker_sheet(), attacker_sheet(dead=True)
    attacker, target = (dead, alive) if who == "attacker" else (alive, dead)
    refused(resolve_attack, attack_req(attacker, target, "ranged", "revolver"), "FAB-51")


def test_FAB42_FAB62_a_stress_1_panics_the_attacker_every_face():
    attacker = make_sheet(stress=1, weapons=[{"id": "knife"}])
    for a1, a2, s in product(FACES, repeat=3):
        request = attack_req(attacker, make_sheet(), "melee", "knife", target_kind="pc")
        hits = sixes((a1, a2, s))
        draws = d6(a1, a2, s)
        result = run(resolve_attack, request, draws).result
        (attack,) = result["attacks"]
        assert attack["roll"]["active"]["stress_dice"] == [s]
        if s == 1:
            assert result["panic"] is True and attack["hit"] is False
            assert attack["roll"]["outcome"] == "panic"
        else:
            assert "panic" not in result
            assert attack["hit"] is (hits >= 1)
            if hits:
                assert attack["damage"] == 2 + hits - 1  # stress sixes count (FAB-42)


def test_FAB42_a_panicking_defender_scores_no_six():
    attacker = make_sheet(weapons=[{"id": "knife"}])
    defender = make_sheet(skills={"combat": 1}, stress=1)
    for a, p1, p2, s in product(FACES, (6, 2), (6, 2), FACES):
        request = attack_req(attacker, defender, "melee", "knife", defense="parry")
        # attacker pool 1 + 0 + 1 = 2 dice: (a, 2); defender 2 dice + 1 stress die
        draws = d6(a, 2, p1, p2, s)
        defended = 0 if s == 1 else sixes((p1, p2, s))
        hit = sixes((a,)) - defended >= 1
        result = run(resolve_attack, request, draws).result
        assert result["attacks"][0]["hit"] is hit
        assert result["attacks"][0]["roll"]["passive"]["outcome"] in ("panic", "success", "failure")


# --- FAB-68: each damage through is a state, pending for a player's character ----------------


def test_FAB68_states_land_at_once_on_npcs_and_wait_for_players():
    shooter = attacker_sheet()
    target = make_sheet()
    context = {"weapon_mod": 1, "feats": 1, "butcher": False}
    threat = {"rule": "FAB-68", "track": "physical", "sequela": context}
    for kind, states, expect_pending in [
        ("npc", "auto", False),
        ("pc", "auto", True),
        ("pc", "now", False),
        ("npc", "pending", True),
    ]:
        request = attack_req(shooter, target, "ranged", "revolver", target_kind=kind, states=states)
        resolution = run(resolve_attack, request, d6(6, 6))  # 3 damage, nothing absorbs
        if expect_pending:
            assert resolution.result["pending_states"] == [threat] * 3
            assert (PC, "states") not in changes(resolution)
        else:
            assert "pending_states" not in resolution.result
            assert changes(resolution)[(PC, "states")] == ([], TRACKS["physical"], "FAB-68")


def pending_attack(target: dict[str, Any], faces: Any = (6, 6)) -> dict[str, Any]:
    """A revolver shot on a player's character: its result, the threats still pending."""
    request = attack_req(attacker_sheet(), target, "ranged", "revolver", target_kind="pc")
    return run(resolve_attack, request, d6(*faces)).result


def test_FAB68_FAB22_state_choice_settles_the_next_box_one_by_one():
    target = make_sheet()
    threat = pending_attack(target)
    assert len(threat["pending_states"]) == 3
    settled: list[dict[str, Any]] = []
    states: list[str] = []
    for n, box in enumerate(TRACKS["physical"]):
        sheet = make_sheet(states=list(states))
        request = threat_req(char(sheet), threat, settled, state=None)
        resolution = run(resolve_state_choice, request)
        assert resolution.result["state"] == box
        assert resolution.result["settles"] == threat["pending_states"][n]
        assert changes(resolution) == {(PC, "states"): (states, [*states, box], "FAB-68")}
        states = [*states, box]
        settled.append({"seq": THREAT_SEQ + 1 + n, "kind": "fabulae.state_choice", "result": {}})
    request = threat_req(char(make_sheet(states=states)), threat, settled, state=None)
    refused(resolve_state_choice, request, "FAB-34")


def test_FAB68_naming_another_box_than_the_next_is_refused():
    threat = pending_attack(make_sheet())
    for state in ("meurtri", "blesse", "enerve", "physical", "mental"):
        request = threat_req(char(make_sheet()), threat, state=state)
        refused(resolve_state_choice, request, None, InvalidInput)
    request = threat_req(char(make_sheet()), threat, state="epuise")
    assert run(resolve_state_choice, request).result["state"] == "epuise"


def test_FAB23_FAB50_settling_on_a_full_track_breaks_and_rolls_with_the_attack_context():
    """The duration dice of the sequela are drawn by the settling entry."""
    threat = pending_attack(make_sheet(), faces=(6, 6))  # feats 1, revolver sequela mod +1
    full = make_sheet(states=TRACKS["physical"])
    for a, b in product(FACES, FACES):
        score = a + b + 1 + 1
        row = sequela_row(score)
        duration_faces = [a] * row[6]
        request = threat_req(char(full), threat, state=None)
        resolution = run(resolve_state_choice, request, d6(a, b, *duration_faces))
        result = resolution.result
        assert result["broken"] is True and result["track"] == "physical"
        assert result["sequela"]["score"] == score and result["sequela"]["code"] == row[2]
        assert result["sequela"]["modifier"] == 2
        assert result["sequela"]["duration"] == physical_duration(row, duration_faces)
        effects = changes(resolution)
        assert effects[(PC, "broken")] == (False, True, "FAB-68")
        assert effects[(PC, "broken_track")] == (None, "physical", "FAB-68")
        assert effects[(PC, "sequelae")][1][0]["code"] == row[2]
        assert ((PC, "dead") in effects) is (row[2] == "crushed")


def test_FAB34_absorb_cancels_a_pending_state_for_one_destiny():
    threat = pending_attack(make_sheet(), faces=(6, 2))  # 2 damage
    sheet = make_sheet(destiny=2)
    resolution = run(resolve_absorb, threat_req(char(sheet), threat))
    assert resolution.result == {"absorbed": threat["pending_states"][0]}
    assert changes(resolution) == {(PC, "destiny"): (2, 1, "FAB-34")}
    settled = [{"seq": 51, "kind": "fabulae.absorb", "result": resolution.result}]
    second = run(resolve_absorb, threat_req(char(make_sheet(destiny=1)), threat, settled))
    assert changes(second) == {(PC, "destiny"): (1, 0, "FAB-34")}
    settled.append({"seq": 52, "kind": "fabulae.absorb", "result": second.result})
    refused(resolve_absorb, threat_req(char(make_sheet(destiny=0)), threat, settled), "FAB-34")
    broke = threat_req(char(make_sheet(destiny=0)), threat, settled[:1])
    refused(resolve_absorb, broke, "FAB-34")


# --- FAB-62/64: the factors of the attack pool -------------------------------------------------


def test_FAB62_every_subset_of_melee_factors():
    attacker = make_sheet({"physique": 6}, {"combat": 5}, weapons=[{"id": "knife"}])
    for chosen in subsets(MELEE):
        request = attack_req(attacker, make_sheet(), "melee", "knife", situation=list(chosen))
        pool = 6 + 5 + 1 + sum(MELEE[f] for f in chosen)
        result = run(resolve_attack, request, d6(*[2] * pool)).result
        assert attack_pool(result)["pool"] == pool
        assert attack_pool(result)["modifier_dice"] == [
            *({"source": f, "dice": MELEE[f]} for f in chosen),
            {"source": "weapon knife", "dice": 1},
        ]


def test_FAB64_every_subset_of_ranged_factors():
    attacker = make_sheet({"habilete": 6}, {"tir": 5}, weapons=[{"id": "revolver"}])
    factors = [f for f in RANGED if f != "contact_long_weapon"]  # a revolver is short
    for chosen in subsets(factors):
        request = attack_req(attacker, make_sheet(), "ranged", "revolver", situation=list(chosen))
        pool = 6 + 5 + 2 + sum(RANGED[f] for f in chosen)
        result = run(resolve_attack, request, d6(*[2] * pool)).result
        assert attack_pool(result)["pool"] == pool, chosen
        assert attack_pool(result)["modifiers"] == pool - 11


@pytest.mark.parametrize(
    ("weapon", "factor"),
    [("repeating_rifle", "contact_short_weapon"), ("revolver", "contact_long_weapon")],
)
def test_FAB64_contact_factors_follow_the_weapon_hands(weapon, factor):
    attacker = make_sheet(weapons=[{"id": weapon}])
    request = attack_req(attacker, make_sheet(), "ranged", weapon, situation=[factor])
    refused(resolve_attack, request, None, InvalidInput)


def test_FAB64_contact_long_weapon_costs_three_dice():
    attacker = make_sheet({"habilete": 3}, {"tir": 2}, weapons=[{"id": "shotgun"}])
    request = attack_req(
        attacker, make_sheet(), "ranged", "shotgun", situation=["contact_long_weapon"]
    )
    result = run(resolve_attack, request, d6(2, 2, 2, 2)).result
    assert attack_pool(result)["pool"] == 3 + 2 + 2 - 3


@pytest.mark.parametrize("mode", ["melee", "ranged"])
def test_FAB62_FAB64_unknown_factors_are_refused(mode):
    weapon = "knife" if mode == "melee" else "revolver"
    attacker = make_sheet(weapons=[{"id": weapon}])
    other = "medium_range" if mode == "melee" else "sneak_attack"
    for factor in ("point_blank", other):
        request = attack_req(attacker, make_sheet(), mode, weapon, situation=[factor])
        refused(resolve_attack, request, None, InvalidInput)


def test_FAB64_aiming_adds_two_dice_and_only_to_a_shot():
    attacker = make_sheet(weapons=[{"id": "revolver"}, {"id": "knife"}])
    request = attack_req(attacker, make_sheet(), "ranged", "revolver", aimed=True)
    result = run(resolve_attack, request, d6(*[2] * 5)).result  # 1 + 0 + 2 + 2
    assert {"source": "aimed", "dice": 2} in attack_pool(result)["modifier_dice"]
    melee = attack_req(attacker, make_sheet(), "melee", "knife", aimed=True)
    refused(resolve_attack, melee, None, InvalidInput)


@pytest.mark.parametrize(
    ("bearer_effects", "malus"),
    [
        ([{"source": "deflection", "attacks_against": -2}], -2),
        ([{"source": "invisibility", "attacks_against": -3, "skills": {"furtivite": 3}}], -3),
        (
            [
                {"source": "deflection", "attacks_against": -2},
                {"source": "invisibility", "attacks_against": -3},
            ],
            -5,
        ),
    ],
)
def test_FAB102_powers_on_the_target_take_attack_dice(bearer_effects, malus):
    attacker = make_sheet({"habilete": 6}, {"tir": 2, "combat": 3}, weapons=[{"id": "revolver"}])
    target = make_sheet(active_effects=bearer_effects)
    request = attack_req(attacker, target, "ranged", "revolver")
    result = run(resolve_attack, request, d6(*[2] * (10 + malus))).result
    assert {"source": "powers on the target", "dice": malus} in attack_pool(result)["modifier_dice"]


def test_FAB21_FAB50_FAB72_FAB75_the_attackers_own_situation():
    """States, sequelae, armor and backpack maluses reach combat pools (situation_dice)."""
    internal = {"kind": "physical", "code": "internal", "lethal": True, "delay": "tour"}
    bruise = {"kind": "physical", "code": "bruise"}
    attacker = make_sheet(
        {"physique": 6, "habilete": 6},
        {"combat": 3, "tir": 3},
        states=["meurtri", "apeure", "epuise"],
        sequelae=[internal, bruise],
        weapons=[{"id": "knife"}, {"id": "revolver"}],
    )
    melee = run(
        resolve_attack,
        attack_req(attacker, make_sheet(), "melee", "knife"),
        d6(*[2] * (6 + 3 + 1 - 2 - 2 - 1)),
    ).result
    pool = attack_pool(melee)
    assert pool["states"] == -2
    assert pool["situation_dice"] == [
        {"source": "sequela internal", "dice": -2},
        {"source": "sequela bruise", "dice": -1},
    ]
    ranged = run(
        resolve_attack,
        attack_req(attacker, make_sheet(), "ranged", "revolver"),
        d6(*[2] * (6 + 3 + 2 - 2 - 2)),
    ).result
    assert attack_pool(ranged)["situation_dice"] == [{"source": "sequela internal", "dice": -2}]
    # The defender's dodge (Athlétisme) in combat: backpack -2, factory plate -1.
    defender = make_sheet(
        {"physique": 5},
        {"athletisme": 2, "furtivite": 2},
        backpack=True,
        armor={"id": "factory_plate", "value": 4},
    )
    knife = make_sheet(weapons=[{"id": "knife"}])
    request = attack_req(knife, defender, "melee", "knife", defense="dodge")
    dodge = run(resolve_attack, request, d6(2, 2, *[2] * (5 + 2 - 2 - 1))).result
    passive = dodge["attacks"][0]["roll"]["passive"]["pool"]
    assert passive["situation_dice"] == [
        {"source": "armor factory_plate", "dice": -1},
        {"source": "backpack in combat", "dice": -2},
    ]
    # Out of combat the backpack costs nothing; the vest hinders Furtivité.
    vest = make_sheet({"habilete": 3}, {"furtivite": 2}, armor={"id": "primitive_vest", "value": 3})
    assert situation_dice(vest, "habilete", "furtivite", False) == [
        {"source": "armor primitive_vest", "dice": -1}
    ]
    assert situation_dice(defender, "physique", "athletisme", False) == [
        {"source": "armor factory_plate", "dice": -1}
    ]


# --- FAB-65: burst fire --------------------------------------------------------------------


@pytest.mark.parametrize("weapon", ["repeating_rifle", "heavy_machine_gun"])
@pytest.mark.parametrize("burst", [1, 2, 3])
@pytest.mark.parametrize("master", [False, True])
def test_FAB65_burst_ammo_die_every_face_and_stress(weapon, burst, master):
    capacity = WEAPONS[weapon][5]
    assert capacity is not None
    sides = AMMO_DIE[burst]
    for loaded, face in product(range(1, capacity + 1), range(1, sides + 1)):
        shooter = make_sheet(
            {"habilete": 0},
            talents=["burst_master"] if master else [],
            weapons=[{"id": weapon, "ammo": loaded}],
            stress=0,
        )
        request = attack_req(shooter, make_sheet(), "ranged", weapon, burst=burst, burst_fire=True)
        spent = min(loaded, face)
        shots = min(burst, spent)  # no more shots than rounds fired
        misses = [2, 2] * shots  # two dice per attack, no six: no protection dice
        resolution = run(resolve_attack, request, d(sides, face) + d6(*misses))
        result = resolution.result
        assert result["ammo"] == {"die": sides, "spent": spent, "left": loaded - spent}
        assert len(result["attacks"]) == shots
        effects = changes(resolution)
        assert effects[(FOE, "weapons")][1] == [{"id": weapon, "ammo": loaded - spent}]
        if master:
            assert "stress_gained" not in result and (FOE, "stress") not in effects
        else:
            assert result["stress_gained"] == 1
            assert effects[(FOE, "stress")] == (0, 1, "FAB-65")


def test_FAB65_the_burst_attacks_roll_with_the_stress_before_the_burst():
    shooter = make_sheet({"habilete": 0}, weapons=[{"id": "repeating_rifle"}], stress=1)
    request = attack_req(
        shooter, make_sheet(), "ranged", "repeating_rifle", burst=2, burst_fire=True
    )
    result = run(resolve_attack, request, d(12, 3) + d6(2, 2, 3, 2, 2, 3)).result
    assert [a["roll"]["active"]["stress_dice"] for a in result["attacks"]] == [[3], [3]]


def test_FAB65_each_burst_hit_is_protected_separately_and_damage_adds_up():
    shooter = make_sheet({"habilete": 0}, weapons=[{"id": "heavy_machine_gun"}])
    target = make_sheet(armor={"id": "guard_mail", "value": 2})
    request = attack_req(
        shooter,
        target,
        "ranged",
        "heavy_machine_gun",
        burst=3,
        burst_fire=True,
        target_kind="pc",
    )
    # hit 1: 3 damage, mail 2 dice [6, 5] absorb 1 → 2 through, mail worn to 1
    # hit 2: 4 damage (feats 1), mail 1 die [1] → 4 through, mail worn to 0; then a miss
    draws = d(20, 7) + d6(6, 2, 6, 5) + d6(6, 6, 1) + d6(2, 2)
    resolution = run(resolve_attack, request, draws)
    result = resolution.result
    assert result["ammo"] == {"die": 20, "spent": 7, "left": 13}
    assert [a["hit"] for a in result["attacks"]] == [True, True, False]
    assert [a.get("through") for a in result["attacks"]] == [2, 4, None]
    assert [a["protection"]["armor"] for a in result["attacks"] if a["hit"]] == [2, 1]
    assert changes(resolution)[(PC, "armor")][1] == {"id": "guard_mail", "value": 0}
    # 6 through, each a pending state; the sequela context is the last hit's (feats 1).
    context = {"weapon_mod": 2, "feats": 1, "butcher": False}
    assert (
        result["pending_states"]
        == [{"rule": "FAB-68", "track": "physical", "sequela": context}] * 6
    )


def test_FAB65_empty_weapon_is_refused_before_any_die():
    for weapon in ("revolver", "repeating_rifle"):
        shooter = make_sheet(weapons=[{"id": weapon, "ammo": 0}])
        request = attack_req(
            shooter, make_sheet(), "ranged", weapon, burst_fire=weapon != "revolver"
        )
        refused(resolve_attack, request, "FAB-71")


@pytest.mark.parametrize(
    ("weapon", "burst", "burst_fire"),
    [("revolver", 2, True), ("repeating_rifle", 2, False), ("repeating_rifle", 4, True)],
)
def test_FAB65_bursts_need_a_burst_weapon_burst_fire_and_1_to_3_attacks(weapon, burst, burst_fire):
    shooter = make_sheet(weapons=[{"id": weapon}])
    request = attack_req(
        shooter, make_sheet(), "ranged", weapon, burst=burst, burst_fire=burst_fire
    )
    if burst > 3:  # at most three attacks: the request refuses more, as the body does
        with pytest.raises(ValidationError, match="burst"):
            resolve_attack(request, NoDice())
        return
    refused(resolve_attack, request, "FAB-65", InvalidInput)


@pytest.mark.parametrize("talents", [["all_in"], ["tinkerer"]])
def test_FAB65_a_burst_with_an_invalid_talent_is_refused_before_the_ammo_die(talents):
    shooter = make_sheet(weapons=[{"id": "repeating_rifle"}], talents=["all_in"])
    request = attack_req(
        shooter,
        make_sheet(),
        "ranged",
        "repeating_rifle",
        burst=2,
        burst_fire=True,
        talents=talents,
    )
    source = ReplayDice(d(12, 5) + d6(*[2] * 20))
    with pytest.raises(InvalidInput):
        resolve_attack(request, source)
    assert source.draws == []
