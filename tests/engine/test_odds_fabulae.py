"""Issue 21: the exact odds of the Fabulae Tenebris rolls against a brute force of every
face sequence through each kind's own `resolve` (FAB-10..15, FAB-36, FAB-42..44,
FAB-60..68), and against sampling from the real dice stream."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import pytest

from app.engine.contract import RollKind
from app.engine.dice import HmacDiceStream
from app.engine.errors import InvalidInput, RuleRefusal
from app.engine.odds import Odds, enumerate_paths
from app.engine.rulesets.fabulae.action import ACTION, OPPOSED
from app.engine.rulesets.fabulae.damage import ATTACK
from app.engine.rulesets.fabulae.dangers import DANGER
from app.engine.rulesets.fabulae.defense import DEFEND
from app.engine.rulesets.fabulae.gear import REPAIR
from app.engine.rulesets.fabulae.grappling import BREAK_FREE, GRAPPLE
from app.engine.rulesets.fabulae.opposing import OPPOSE
from app.engine.rulesets.fabulae.recovery import RECOVER, SECOND_WIND
from app.engine.rulesets.fabulae.sequelae import DEATH_TEST, SEQUELA
from app.engine.rulesets.fabulae.stress import PANIC_ROLL, STRESS_RESIST
from app.services.stats import chi_square_survival
from tests.engine.fabulae import combat
from tests.engine.fabulae.core import (
    ALLY,
    PC,
    char,
    clock,
    make_sheet,
    opposed_req,
    roll_inputs,
)

P = pytest.param
VERSIONS = (1, 2)
Counted = dict[str, Callable[[Any], int]]


def exact(odds: Odds) -> tuple[dict[str, Fraction], dict[str, dict[int, Fraction]]]:
    outcomes = {o.code: Fraction(o.exact) for o in odds.outcomes}
    laws = {d.name: {v.value: Fraction(v.exact) for v in d.values} for d in odds.distributions}
    return outcomes, laws


def brute(
    kind: RollKind[Any, Any, Any], request: Any, version: int, counted: Counted
) -> tuple[dict[str, Fraction], dict[str, dict[int, Fraction]]]:
    """Every face sequence through the kind's own resolve, weighted by its probability."""
    outcomes: dict[str, Fraction] = defaultdict(Fraction)
    laws: dict[str, dict[int, Fraction]] = {name: defaultdict(Fraction) for name in counted}
    for weight, resolution in enumerate_paths(
        lambda dice: kind.resolve(request, dice, version), max_dice=14
    ):
        assert resolution is not None, "no chain is cut: a Fabulae roll draws a fixed number"
        result = resolution.result
        outcomes[kind.outcome(result).code] += weight
        for name, count in counted.items():
            laws[name][count(result)] += weight
    return dict(outcomes), {name: dict(law) for name, law in laws.items()}


def assert_agrees(
    kind: RollKind[Any, Any, Any], body: dict[str, Any], version: int, counted: Counted
) -> Odds:
    request = kind.request.model_validate(body)
    assert kind.odds is not None
    odds = kind.odds(request, version)
    outcomes, laws = exact(odds)
    forced_outcomes, forced_laws = brute(kind, request, version, counted)
    # Every outcome the brute force met is in the odds with the same exact probability;
    # those it never met have probability 0 there.
    assert {c: p for c, p in outcomes.items() if p} == forced_outcomes
    assert sum(outcomes.values()) == 1
    shown = {d.name: d for d in odds.distributions}
    for name, law in forced_laws.items():
        assert laws[name] == {v: p for v, p in law.items() if p}, name
        mean = sum((v * p for v, p in law.items()), Fraction(0))
        variance = sum(((v - mean) ** 2 * p for v, p in law.items()), Fraction(0))
        assert shown[name].mean == pytest.approx(float(mean), rel=1e-12, abs=1e-12)
        assert shown[name].deviation == pytest.approx(math.sqrt(variance), rel=1e-12, abs=1e-12)
    codes = [o.code for o in odds.outcomes]
    assert len(set(codes)) == len(codes)
    return odds


def panic_count(*sides: Any) -> int:
    return sum(1 for side in sides if side is not None and side.outcome == "panic")


TEST_COUNTED: Counted = {
    "sixes": lambda r: r.sixes,
    "prouesses": lambda r: r.feats,
    "panics": lambda r: panic_count(r),
}


# --- the basic test (FAB-10..15, FAB-42) ---------------------------------------------------


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(
    ("attribute", "stress", "roll"),
    [
        P(1, 0, roll_inputs(), id="one-die"),
        P(3, 0, roll_inputs(), id="three-dice"),
        P(2, 1, roll_inputs(), id="stress-1"),
        P(1, 3, roll_inputs(), id="stress-3"),
        P(1, 1, roll_inputs(helpers=2), id="helpers"),
        P(3, 1, roll_inputs(difficulty="almost_impossible"), id="FAB-12-almost-impossible"),
        P(2, 1, roll_inputs(difficulty="very_hard"), id="FAB-12-very-hard"),
        P(2, 2, roll_inputs(difficulty="almost_impossible"), id="FAB-14-impossible"),
        P(1, 0, roll_inputs(modifiers=[{"source": "gm", "dice": -1}]), id="FAB-14-zero"),
        P(2, 1, roll_inputs(modifiers=[{"source": "gm", "dice": 2}]), id="FAB-14-bonus"),
        P(1, 2, roll_inputs("physique", "combat"), id="skill-0"),
    ],
)
def test_FAB_11_42_action_odds_match_brute_force(
    attribute: int, stress: int, roll: dict[str, Any], version: int
) -> None:
    sheet = make_sheet({"physique": attribute}, stress=stress)
    body = {**clock(), "character": char(sheet), "roll": roll}
    assert_agrees(ACTION, body, version, TEST_COUNTED)


def test_FAB_42_action_odds_closed_form() -> None:
    """Two dice and one stress die: Panic 1/6; else success unless no six anywhere."""
    sheet = make_sheet({"physique": 2}, stress=1)
    request = ACTION.request.model_validate(
        {**clock(), "character": char(sheet)} | {"roll": roll_inputs()}
    )
    assert ACTION.odds is not None
    outcomes, laws = exact(ACTION.odds(request, 2))
    assert outcomes["panic"] == Fraction(1, 6)
    assert outcomes["failure"] == Fraction(5, 6) ** 2 * Fraction(4, 6)
    assert outcomes["success"] == 1 - outcomes["panic"] - outcomes["failure"]
    assert outcomes["impossible"] == 0
    assert laws["panics"] == {0: Fraction(5, 6), 1: Fraction(1, 6)}
    assert laws["prouesses"][2] == Fraction(1, 6) ** 3


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(("physique", "stress"), [(1, 0), (2, 1), (1, 3), (2, 2), (0, 1)])
def test_FAB_43_stress_resist_odds_match_brute_force(
    physique: int, stress: int, version: int
) -> None:
    sheet = make_sheet({"physique": physique}, {"resistance": 1}, stress=stress)
    body = {**clock(), "character": char(sheet), "roll": roll_inputs("physique", "resistance")}
    counted = TEST_COUNTED | {"stress_lowered": lambda r: r.stress_lowered or 0}
    assert_agrees(STRESS_RESIST, body, version, counted)


def test_FAB_73_stress_resist_odds_refused_without_sleep() -> None:
    sheet = make_sheet({"physique": 1}, {"resistance": 1}, stress=2, deprived=["sleep"])
    body = {**clock(), "character": char(sheet), "roll": roll_inputs("physique", "resistance")}
    request = STRESS_RESIST.request.model_validate(body)
    assert STRESS_RESIST.odds is not None
    with pytest.raises(RuleRefusal):
        STRESS_RESIST.odds(request, 2)


# --- the opposed roll (FAB-36) --------------------------------------------------------------

OPPOSED_COUNTED: Counted = {
    "net": lambda r: r.net,
    "prouesses": lambda r: r.feats,
    "panics": lambda r: panic_count(r.active, r.passive),
}


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(
    ("active", "passive", "active_roll"),
    [
        P((1, 0), (1, 0), roll_inputs(), id="one-each"),
        P((2, 1), (2, 0), roll_inputs(), id="active-stress"),
        P((2, 0), (1, 2), roll_inputs(), id="passive-stress"),
        P((1, 1), (1, 1), roll_inputs(helpers=1), id="both-stress"),
        P((3, 0), (0, 1), roll_inputs(), id="FAB-14-passive-impossible"),
        P((1, 1), (2, 0), roll_inputs(difficulty="very_hard"), id="FAB-14-active-impossible"),
        P((3, 0), (1, 1), roll_inputs(), id="prouesse"),
    ],
)
def test_FAB_36_opposed_odds_match_brute_force(
    active: tuple[int, int], passive: tuple[int, int], active_roll: dict[str, Any], version: int
) -> None:
    body = opposed_req(
        make_sheet({"physique": active[0]}, stress=active[1]),
        make_sheet({"physique": passive[0]}, stress=passive[1]),
        active_roll,
    )
    for kind in (OPPOSED, OPPOSE):
        assert_agrees(kind, body, version, OPPOSED_COUNTED)


def test_FAB_36_opposed_odds_note_the_passive_answer() -> None:
    """A passive side that answers with its own talents: these odds take the request's."""
    body = opposed_req(make_sheet({"physique": 1}), make_sheet({"physique": 1}))
    request = OPPOSED.request.model_validate(body | {"passive_answers": True})
    assert OPPOSED.odds is not None
    odds = OPPOSED.odds(request, 2)
    assert any("FAB-36" in note for note in odds.notes)
    outcomes, _ = exact(odds)
    # One die each: the active side wins only on 6 against a non-six.
    assert outcomes["success"] == Fraction(1, 6) * Fraction(5, 6)


# --- the attack (FAB-60..68) ---------------------------------------------------------------

LESS = [{"source": "gm", "dice": -1}]
BARRIER = {"source": "barrier", "caster_id": ALLY, "scene": 7, "armor": 1}
ENCHANTED = {"source": "enchant_weapon", "caster_id": ALLY, "scene": 7, "net_damage": 1}
RESIZED = {"source": "resize", "caster_id": ALLY, "scene": 7, "melee_damage": -2}


def attack_hits(result: Any) -> int:
    return sum(1 for attack in result.attacks or [] if attack.hit)


ATTACK_COUNTED: Counted = {
    "damage": lambda r: sum(a.through or 0 for a in r.attacks or [] if a.hit),
    "panics": lambda r: (
        int(bool(r.panic) or any(a.roll.active.outcome == "panic" for a in r.attacks or []))
        + int(any(a.roll.passive.outcome == "panic" for a in r.attacks or []))
    ),
}


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(
    ("attacker", "target", "mode", "weapon", "inputs"),
    [
        P({}, {}, "ranged", "revolver", {"modifiers": LESS}, id="one-die-shot"),
        P({"stress": 1}, {}, "ranged", "revolver", {"modifiers": LESS}, id="shooter-stress"),
        P({}, {}, "ranged", "revolver", {}, id="two-dice-shot"),
        P(
            {},
            {"armor": {"id": "guard_mail", "value": 2}},
            "ranged",
            "revolver",
            {"modifiers": LESS},
            id="FAB-67-armor",
        ),
        P({}, {}, "ranged", "revolver", {"modifiers": LESS, "cover": 3}, id="FAB-67-cover"),
        P(
            {},
            {"active_effects": [BARRIER]},
            "ranged",
            "revolver",
            {"modifiers": LESS},
            id="FAB-102-barrier",
        ),
        P(
            {"active_effects": [ENCHANTED]},
            {"armor": {"id": "leather_coat", "value": 1}},
            "ranged",
            "revolver",
            {"modifiers": LESS},
            id="FAB-102-enchant",
        ),
        P({}, {}, "melee", "wrench", {"modifiers": LESS}, id="melee-undefended"),
        P(
            {},
            {"stress": 1},
            "melee",
            "wrench",
            {"modifiers": LESS, "defense": "parry"},
            id="FAB-62-parry",
        ),
        P(
            {"stress": 1},
            {"skills": {"athletisme": 0}},
            "melee",
            "wrench",
            {"modifiers": LESS, "defense": "dodge"},
            id="FAB-62-dodge",
        ),
        P(
            {"active_effects": [RESIZED]},
            {},
            "melee",
            "wrench",
            {"modifiers": LESS},
            id="FAB-102-resize-negative",
        ),
        P(
            {"talents": ["cogneur"]},
            {"armor": {"id": "leather_coat", "value": 1}},
            "melee",
            "bare_hands",
            {"modifiers": [{"source": "gm", "dice": 1}]},
            id="FAB-90-cogneur",
        ),
        P(
            {},
            {},
            "ranged",
            "revolver",
            {"modifiers": [{"source": "gm", "dice": -2}]},
            id="FAB-14-impossible",
        ),
    ],
)
def test_FAB_60_68_attack_odds_match_brute_force(
    attacker: dict[str, Any],
    target: dict[str, Any],
    mode: str,
    weapon: str,
    inputs: dict[str, Any],
    version: int,
) -> None:
    shooter = combat.attacker_sheet(**attacker)
    body = combat.attack_req(
        shooter, combat.make_sheet(**target), mode, weapon, target_kind="pc", **inputs
    )
    assert_agrees(ATTACK, body, version, ATTACK_COUNTED)


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(
    ("burst", "ammo", "armor"),
    [(2, 8, 0), (2, 2, 1), (3, 2, 0), (3, 8, 0)],
)
def test_FAB_65_burst_odds_match_brute_force(burst: int, ammo: int, armor: int, version: int):
    """A burst: the rounds spent are rolled, each attack opposed, armor wears between hits."""
    shooter = combat.attacker_sheet(weapons=[{"id": "repeating_rifle", "ammo": ammo}])
    worn = {"armor": {"id": "leather_coat", "value": armor}} if armor else {}
    body = combat.attack_req(
        shooter,
        combat.make_sheet(**worn),
        "ranged",
        "repeating_rifle",
        target_kind="pc",
        burst=burst,
        burst_fire=True,
        modifiers=LESS,
    )
    assert_agrees(ATTACK, body, version, ATTACK_COUNTED)


def test_FAB_62_attack_odds_wait_for_the_defense() -> None:
    body = combat.attack_req(combat.attacker_sheet(), combat.make_sheet(), "melee", "wrench")
    request = ATTACK.request.model_validate(body | {"defense": None})
    assert ATTACK.odds is not None
    with pytest.raises(InvalidInput, match="FAB-62"):
        ATTACK.odds(request, 2)


HOLD_COUNTED: Counted = {
    "net": lambda r: getattr(r.roll, "net", 0),
    "prouesses": lambda r: getattr(r.roll, "feats", 0),
    "panics": lambda r: (
        0 if r.roll is None else panic_count(r.roll.active, getattr(r.roll, "passive", None))
    ),
}


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(
    ("attacker", "target", "defense", "modifiers"),
    [
        P({}, {}, "none", [], id="undefended"),
        P({"stress": 1}, {"stress": 1}, "parry", [], id="FAB-62-parry"),
        P({"physique": 2}, {}, "dodge", [], id="FAB-62-dodge"),
        P({}, {}, "parry", [{"source": "gm", "dice": -1}], id="FAB-14-impossible"),
    ],
)
def test_FAB_63_grapple_odds_match_brute_force(
    attacker: dict[str, Any],
    target: dict[str, Any],
    defense: str,
    modifiers: list[dict[str, Any]],
    version: int,
) -> None:
    attacker = dict(attacker)  # the parameters are shared by both versions
    stress = attacker.pop("stress", 0)
    body = {
        **clock(),
        "attacker": char(combat.make_sheet(attacker, stress=stress), combat.FOE, "npc"),
        "target": char(combat.make_sheet(**target), combat.PC, "pc"),
        "defense": defense,
        "modifiers": modifiers,
    }
    assert_agrees(GRAPPLE, body, version, HOLD_COUNTED)
    assert_agrees(
        DEFEND,
        {**clock(), "grapple": body},
        version,
        {name: (lambda r, count=count: count(r.grapple)) for name, count in HOLD_COUNTED.items()},
    )


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(
    ("victim", "holder"),
    [
        P({"stress": 1}, {}, id="held"),
        P({"physique": 2}, {"stress": 1}, id="stronger"),
        P({"physique": 0}, {}, id="FAB-14-impossible"),
        P({}, {"dead": True}, id="FAB-23-holder-down"),
    ],
)
def test_FAB_63_break_free_odds_match_brute_force(
    victim: dict[str, Any], holder: dict[str, Any], version: int
) -> None:
    victim = dict(victim)  # the parameters are shared by both versions
    attributes = {"physique": victim.pop("physique", 1)}
    body = {
        **clock(),
        "character": char(
            combat.make_sheet(attributes, grappled_by=combat.FOE, **victim), combat.PC
        ),
        "holder": char(combat.make_sheet(**holder), combat.FOE, "npc"),
    }
    assert_agrees(BREAK_FREE, body, version, HOLD_COUNTED)


def test_FAB_62_grapple_odds_wait_for_the_defense() -> None:
    body = {
        **clock(),
        "attacker": char(combat.make_sheet(), combat.FOE, "npc"),
        "target": char(combat.make_sheet(), combat.PC, "pc"),
        "defense": None,
    }
    request = GRAPPLE.request.model_validate(body)
    assert GRAPPLE.odds is not None
    with pytest.raises(InvalidInput, match="FAB-62"):
        GRAPPLE.odds(request, 2)


@pytest.mark.parametrize("version", VERSIONS)
def test_FAB_62_defend_odds_are_the_attack_odds(version: int) -> None:
    body = combat.attack_req(
        combat.attacker_sheet(stress=1),
        combat.make_sheet(),
        "melee",
        "wrench",
        target_kind="pc",
        defense="parry",
        modifiers=LESS,
    )
    counted = {
        name: (lambda r, count=count: count(r.attack)) for name, count in ATTACK_COUNTED.items()
    }
    assert_agrees(DEFEND, {**clock(), "attack": body}, version, counted)


# --- environmental dangers (FAB-73, FAB-55) ---------------------------------------------------


def danger_side(result: Any) -> Any:
    roll = result.roll
    return getattr(roll, "active", roll)


DANGER_COUNTED: Counted = {
    "damage": lambda r: r.damage or 0,
    "panics": lambda r: panic_count(danger_side(r)),
}
SINKS_COUNTED: Counted = DANGER_COUNTED | {"sinks": lambda r: int(bool(r.sinks))}
PHOBIC = {"kind": "mental", "code": "phobic"}


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(
    ("sheet", "danger", "inputs", "counted"),
    [
        P({}, "fire", {"intensity": 3}, DANGER_COUNTED, id="fire"),
        P({}, "fire", {"intensity": 3, "round": 3}, DANGER_COUNTED, id="fire-round-3"),
        P({}, "explosion", {"intensity": 3, "damage": 2}, DANGER_COUNTED, id="explosion"),
        P(
            {"armor": {"id": "leather_coat", "value": 1}},
            "explosion",
            {"intensity": 7, "medium_range": True, "damage": 1},
            DANGER_COUNTED,
            id="explosion-armor-medium",
        ),
        P({"stress": 1}, "drowning", {}, SINKS_COUNTED, id="drowning-float"),
        P({}, "drowning", {"phase": "sink"}, DANGER_COUNTED, id="drowning-sink"),
        P(
            {"armor": {"id": "guard_mail", "value": 2}},
            "drowning",
            {},
            SINKS_COUNTED,
            id="drowning-heavy-armor",
        ),
        P({}, "poison", {"intensity": 3}, DANGER_COUNTED, id="poison"),
        P({"stress": 1}, "disease", {"intensity": 3}, DANGER_COUNTED, id="disease-stress"),
        P({"stress": 1}, "cold", {}, DANGER_COUNTED, id="cold"),
        P({"attributes": {"physique": 0}}, "cold", {}, DANGER_COUNTED, id="cold-impossible"),
    ],
)
def test_FAB_73_danger_odds_match_brute_force(
    sheet: dict[str, Any], danger: str, inputs: dict[str, Any], counted: Counted, version: int
) -> None:
    body = combat.danger_req(combat.make_sheet(**sheet), danger, "pc", **inputs)
    assert_agrees(DANGER, body, version, counted)


@pytest.mark.parametrize("danger", ["poison", "disease"])
@pytest.mark.parametrize("version", VERSIONS)
def test_FAB_73_a_save_against_venom_reads_as_the_opposition_not_its_own_dice(
    danger: str, version: int
) -> None:
    """Opposed to the potency (FAB-73, FAB-36): a save that scored a six but not more sixes
    than the venom fails, and its outcome says so, as its damage does."""
    body = combat.danger_req(combat.make_sheet(), danger, "pc", intensity=3)
    request = DANGER.request.model_validate(body)
    met = set()
    for _, resolution in enumerate_paths(
        lambda dice: DANGER.resolve(request, dice, version), max_dice=14
    ):
        result = resolution.result
        code = DANGER.outcome(result).code
        assert (code == "success") == (result.damage == 0), (code, result.damage)
        met.add((code, result.roll.active.outcome))
    assert ("failure", "success") in met  # a six of its own, beaten by the venom's
    odds = DANGER.odds(request, version)
    outcomes, laws = exact(odds)
    assert outcomes["success"] == laws["damage"][0]


@pytest.mark.parametrize(
    ("sheet", "danger", "inputs"),
    [
        P({"sequelae": [PHOBIC]}, "phobia", {}, id="FAB-55-phobia"),
        P({}, "horror", {"damage": 2}, id="horror"),
        P({}, "hunger", {"damage": 1}, id="hunger"),
        P({}, "sleep", {"damage": 0}, id="sleep"),
    ],
)
def test_FAB_73_corrected_danger_odds_match_brute_force(
    sheet: dict[str, Any], danger: str, inputs: dict[str, Any]
) -> None:
    body = combat.danger_req(combat.make_sheet(**sheet), danger, "pc", **inputs)
    assert_agrees(DANGER, body, 2, DANGER_COUNTED)


# --- the death test (FAB-51) ----------------------------------------------------------------


def lethal(stabilised: bool = False) -> dict[str, Any]:
    return {
        "kind": "physical",
        "code": "impaled",
        "lethal": True,
        "delay": "quart" if stabilised else "immediate",
        "stabilised": stabilised,
    }


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(
    ("physique", "stress", "talents"),
    [(1, 0, []), (2, 2, []), (1, 1, ["iron_will"]), (0, 1, [])],
)
def test_FAB_51_death_test_odds_match_brute_force(
    physique: int, stress: int, talents: list[str], version: int
) -> None:
    """Stress dice join the test only before the corrections (FAB-42 corrected)."""
    sheet = make_sheet({"physique": physique}, stress=stress, talents=talents, sequelae=[lethal()])
    body = {**clock(), "character": char(sheet), "sequela": 0}
    assert_agrees(DEATH_TEST, body, version, TEST_COUNTED)


def test_FAB_52_death_test_odds_refused_once_stabilised() -> None:
    sheet = make_sheet(sequelae=[lethal(stabilised=True)])
    request = DEATH_TEST.request.model_validate({**clock(), "character": char(sheet), "sequela": 0})
    assert DEATH_TEST.odds is not None
    with pytest.raises(RuleRefusal):
        DEATH_TEST.odds(request, 2)


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(
    ("table", "talents", "context"),
    [
        P("mental", [], {}, id="FAB-55-mental"),
        P("physical", [], {}, id="FAB-50-physical"),
        P("physical", [], {"weapon_mod": 2, "feats": 3, "butcher": True}, id="FAB-50-modified"),
        P("physical", ["tough_luck"], {"feats": 1}, id="FAB-90-tough-luck"),
    ],
)
def test_FAB_50_55_sequela_odds_match_brute_force(
    table: str, talents: list[str], context: dict[str, Any], version: int
) -> None:
    sheet = make_sheet(talents=talents)
    body = {**clock(), "character": char(sheet), "table": table, **context}
    counted: Counted = (
        {"die": lambda r: r.die} if table == "mental" else {"score": lambda r: r.score}
    )
    assert_agrees(SEQUELA, body, version, counted)


# --- armor repair (FAB-67) ------------------------------------------------------------------


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(
    ("intellect", "stress", "armor"),
    [
        (1, 0, {"id": "guard_mail", "value": 0}),
        (3, 1, {"id": "primitive_vest", "value": 1}),
        (2, 2, {"id": "guard_mail", "value": 1}),
        (0, 0, {"id": "guard_mail", "value": 1}),
    ],
)
def test_FAB_67_repair_odds_match_brute_force(
    intellect: int, stress: int, armor: dict[str, Any], version: int
) -> None:
    mechanic = make_sheet({"intellect": intellect}, stress=stress)
    owner = combat.make_sheet(armor=armor)
    body = {
        **clock(),
        "character": char(mechanic),
        "owner": char(owner, combat.FOE, "npc"),
        "attribute": "intellect",
    }
    counted = TEST_COUNTED | {"armor_value": lambda r: r.armor_value or armor["value"]}
    assert_agrees(REPAIR, body, version, counted)


# --- recovery (FAB-80/81, FAB-90 second_wind) ------------------------------------------------

PHYSICAL_STATES = ["epuise", "meurtri", "blesse"]
MENTAL_STATES = ["enerve", "apeure", "demoralise"]


def broken(track: str, attribute: int = 3, **over: Any) -> dict[str, Any]:
    """Broken on `track`: its two dice-taking states leave `attribute` − 2 dice (FAB-21)."""
    states = PHYSICAL_STATES if track == "physical" else MENTAL_STATES
    name = "physique" if track == "physical" else "empathie"
    return make_sheet({name: attribute}, states=states, broken=True, broken_track=track, **over)


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(
    ("healer", "track", "self_care"),
    [
        P({"intellect": 2}, "physical", False, id="FAB-80-care"),
        P({"empathie": 1, "stress": 2}, "mental", False, id="FAB-80-care-stress"),
        P({"intellect": 3, "stress": 1}, "physical", True, id="FAB-80-self-care"),
        P({"intellect": 2}, "physical", True, id="FAB-14-self-care-impossible"),
    ],
)
def test_FAB_80_care_odds_match_brute_force(
    healer: dict[str, Any], track: str, self_care: bool, version: int
) -> None:
    healer = dict(healer)  # the parameters are shared by both versions
    stress = healer.pop("stress", 0)
    medic = make_sheet(healer, stress=stress)
    patient = medic if self_care else make_sheet(states=["epuise", "meurtri"])
    body = {
        **clock(),
        "mode": "care",
        "healer": char(medic, PC if self_care else ALLY),
        "track": track,
        "patient": char(patient),
    }
    request = RECOVER.request.model_validate(body)
    assert (request.healer.id == request.patient.id) is self_care
    assert_agrees(RECOVER, body, version, TEST_COUNTED)


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(
    ("track", "attribute", "stress"), [("physical", 3, 1), ("mental", 4, 0), ("physical", 2, 0)]
)
def test_FAB_81_broken_resistance_odds_match_brute_force(
    track: str, attribute: int, stress: int, version: int
) -> None:
    body = {
        **clock(),
        "mode": "broken_resistance",
        "patient": char(broken(track, attribute, stress=stress)),
    }
    assert_agrees(RECOVER, body, version, TEST_COUNTED)


def test_FAB_80_rest_has_no_odds() -> None:
    body = {**clock(), "mode": "rest", "duration": "night", "patient": char(make_sheet())}
    request = RECOVER.request.model_validate(body)
    assert RECOVER.odds is not None
    with pytest.raises(InvalidInput):
        RECOVER.odds(request, 2)


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(("attribute", "stress"), [(3, 0), (3, 2), (4, 1), (2, 0)])
def test_FAB_90_second_wind_odds_match_brute_force(
    attribute: int, stress: int, version: int
) -> None:
    sheet = broken("physical", attribute, stress=stress, talents=["second_wind"])
    body = {**clock(), "character": char(sheet)}
    assert_agrees(SECOND_WIND, body, version, TEST_COUNTED)


# --- the panic roll (FAB-44) ----------------------------------------------------------------


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(
    ("stress", "talents", "modifier"),
    [(0, [], 0), (3, [], 0), (5, ["cool_head"], 0), (8, [], 3), (12, [], 0), (6, [], -3)],
)
def test_FAB_44_panic_odds_match_brute_force(
    stress: int, talents: list[str], modifier: int, version: int
) -> None:
    sheet = make_sheet(stress=stress, talents=talents)
    allies = [char(make_sheet(), ALLY)]
    body = {**clock(), "character": char(sheet), "allies": allies, "modifier": modifier}
    assert_agrees(PANIC_ROLL, body, version, {"score": lambda r: r.score})


# --- sampling from the real stream ------------------------------------------------------------


def test_odds_agree_with_the_real_stream() -> None:
    """10,000 opposed rolls from the campaign stream against the exact odds (FAB-36)."""
    body = opposed_req(make_sheet({"physique": 3}, stress=1), make_sheet({"physique": 2}, stress=1))
    request = OPPOSED.request.model_validate(body)
    assert OPPOSED.odds is not None
    outcomes, _ = exact(OPPOSED.odds(request, 2))
    draws = 10_000
    seen: Counter[str] = Counter()
    for nonce in range(draws):
        stream = HmacDiceStream(bytes(range(32)), "fabulae-odds", 1, "chi", nonce)
        seen[OPPOSED.outcome(OPPOSED.resolve(request, stream, 2).result).code] += 1
    live = {code: p for code, p in outcomes.items() if p}
    assert set(seen) <= set(live)
    statistic = sum(
        (seen[code] - draws * float(p)) ** 2 / (draws * float(p)) for code, p in live.items()
    )
    assert chi_square_survival(len(live) - 1, statistic) > 0.001, (statistic, seen)
