"""Issue 21: the exact odds of a power (FAB-100..102) and of a push (FAB-31..35, FAB-37,
FAB-43) against a brute force of every face sequence through each kind's own `resolve`,
for both rules versions, and their refusals made before any die."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from typing import Any

import pytest

from app.engine.dice import HmacDiceStream, ReplayDice
from app.engine.errors import InvalidInput, RuleRefusal
from app.engine.rulesets.fabulae.action import ACTION, OPPOSED
from app.engine.rulesets.fabulae.damage import ATTACK
from app.engine.rulesets.fabulae.pools import PUSH_REPLACES_RESISTANCE
from app.engine.rulesets.fabulae.powers import POWER
from app.engine.rulesets.fabulae.push import PUSH
from app.engine.rulesets.fabulae.stress import STRESS_RESIST
from app.services.stats import chi_square_survival
from tests.engine.fabulae import combat
from tests.engine.fabulae.core import (
    FOE,
    PC,
    char,
    clock,
    entry,
    follow,
    make_sheet,
    opposed_req,
    push_req,
    roll_inputs,
)
from tests.engine.test_odds_fabulae import VERSIONS, Counted, assert_agrees, exact, panic_count

P = pytest.param

# --- fabulae.power (FAB-100..102) -----------------------------------------------------------


def caster(*powers: str, skill: int = 1, **over: Any) -> dict[str, Any]:
    """Intellect 1 + Connaissance 1: the caster's roll is two dice."""
    over.setdefault("pp", 3)
    skills = {"connaissance": skill}
    return combat.make_sheet(skills=skills, powers=list(powers), pp_max=5, **over)


def target(cid: str = FOE, **over: Any) -> dict[str, Any]:
    """A PC (its states wait for its player: no state die is drawn) of Physique 1."""
    return char(combat.make_sheet(**over), cid, "pc")


def hit_through(result: Any) -> int:
    return sum(hit.through for hit in (result.targets or {}).values())


def power_panics(result: Any) -> int:
    roll = result.roll
    sides = [roll.active, roll.passive] if hasattr(roll, "active") else [roll]
    saves = [hit.save for hit in (result.targets or {}).values()]
    return panic_count(*sides, *saves)


ROLLED_COUNTED: Counted = {
    "panics": power_panics,
    "stress_gained": lambda r: r.stress_gained,
}
CASTER_TEST: Counted = {
    **ROLLED_COUNTED,
    "sixes": lambda r: r.roll.sixes,
    "prouesses": lambda r: r.roll.feats,
}
SAVES_COUNTED: Counted = {
    "through": hit_through,
    "saves": lambda r: sum(
        1 for hit in r.targets.values() if hit.save and hit.save.outcome == "success"
    ),
    "panics": power_panics,
    "stress_gained": lambda r: r.stress_gained,
}
LEATHER = {"armor": {"id": "leather_coat", "value": 1}}
BARRIER = {
    "source": "barrier",
    "caster_id": PC,
    "scene": 1,
    "armor": 2,
    "attacks_against": 0,
    "all_rolls": 0,
    "skills": {},
    "attributes": {},
    "melee_damage": 0,
    "net_damage": 0,
    "note": "",
}


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(
    ("sheet", "pp", "targets", "counted"),
    [
        P(caster("bolt"), 1, [target()], {"through": hit_through}, id="FAB-102-bolt"),
        P(caster("bolt"), 1, [target(**LEATHER)], {"through": hit_through}, id="bolt-armor"),
        P(
            caster("bolt", skill=0, stress=1),
            1,
            [target(active_effects=[BARRIER])],
            {"through": hit_through},
            id="bolt-stress-barrier",
        ),
        P(
            caster("bolt", skill=0, attributes={"intellect": 0}),
            1,
            [target()],
            {},
            id="FAB-14-bolt",
        ),
    ],
)
def test_FAB_102_bolt_odds_match_brute_force(
    sheet: dict[str, Any], pp: int, targets: list[Any], counted: Counted, version: int
) -> None:
    body = combat.power_req(sheet, "bolt", pp, targets, states="pending")
    odds = assert_agrees(POWER, body, version, {**ROLLED_COUNTED, **counted})
    assert [o.code for o in odds.outcomes] == ["impossible", "panic", "failure", "success"]


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("power", ["light_dark", "silence_noise"])
@pytest.mark.parametrize("stress", [0, 1])
def test_FAB_102_dimming_odds_match_brute_force(power: str, stress: int, version: int) -> None:
    body = combat.power_req(caster(power, stress=stress), power, 1, [target()], states="pending")
    counted = {**CASTER_TEST, "malus": lambda r: r.malus or 0}
    assert_agrees(POWER, body, version, counted)


def test_FAB_14_an_impossible_activation_spends_nothing_from_the_corrections_on() -> None:
    sheet = caster("light_dark", skill=0, attributes={"intellect": 0})
    body = combat.power_req(sheet, "light_dark", 1, [target()])
    counted = {**CASTER_TEST, "malus": lambda r: r.malus or 0}
    corrected = assert_agrees(POWER, body, 2, counted)
    outcomes, laws = exact(corrected)
    assert outcomes["impossible"] == 1 and laws["stress_gained"] == {0: 1}
    first = assert_agrees(POWER, body, 1, counted)
    assert exact(first)[1]["malus"] == {-2: 1}  # before the corrections: spent, dimmed


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(
    ("sheet", "victim"),
    [
        P(caster("drain"), target(pp=3), id="FAB-101-drain"),
        P(caster("drain"), target(pp=1, stress=1), id="drain-little-left"),
        P(caster("drain", stress=1), target(pp=0), id="drain-nothing-to-steal"),
        P(caster("drain", skill=0, attributes={"intellect": 0}), target(pp=2), id="FAB-14-drain"),
    ],
)
def test_FAB_101_drain_odds_match_brute_force(
    sheet: dict[str, Any], victim: dict[str, Any], version: int
) -> None:
    body = combat.power_req(sheet, "drain", 1, [victim])
    counted = {
        **ROLLED_COUNTED,
        "net": lambda r: getattr(r.roll, "net", 0),  # an impossible activation: no net
        "prouesses": lambda r: r.roll.feats,
        "stolen": lambda r: r.stolen or 0,
    }
    assert_agrees(POWER, body, version, counted)


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(
    ("power", "targets"),
    [
        P("fire_cone", [target()], id="FAB-102-fire-cone"),
        P("fire_cone", [target(**LEATHER), target(PC)], id="fire-cone-caster-caught"),
        P("fire_cone", [target(stress=1), target(skills={"athletisme": 1})], id="two-saves"),
        P("blast", [target(**LEATHER)], id="FAB-102-blast"),
        P("blast", [target(stress=1), target(attributes={"physique": 0})], id="blast-FAB-14"),
    ],
)
def test_FAB_102_save_odds_match_brute_force(power: str, targets: list[Any], version: int) -> None:
    body = combat.power_req(caster(power), power, 1, targets, states="pending")
    counted = dict(SAVES_COUNTED)
    if power == "blast":
        counted["meurtri"] = lambda r: sum(1 for hit in r.targets.values() if hit.meurtri)
    odds = assert_agrees(POWER, body, version, counted)
    assert [o.code for o in odds.outcomes] == ["applied"]


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(
    ("power", "option", "targets", "applied"),
    [
        P("hazard_zone", None, [target(), target(PC)], {1: True, 2: True}, id="hazard-zone"),
        P("barrier", None, [target()], {1: True, 2: True}, id="barrier"),
        P("trance", None, [], {1: False, 2: False}, id="narrated"),
        P("enchant_weapon", None, [], {1: False, 2: True}, id="FAB-102-enchant-corrected"),
        P("resize", "grow", [], {1: True, 2: True}, id="resize"),
    ],
)
def test_FAB_102_certain_power_odds_match_brute_force(
    power: str, option: str | None, targets: list[Any], applied: dict[int, bool], version: int
) -> None:
    body = combat.power_req(caster(power), power, 2, targets, option=option, states="pending")
    counted: Counted = {"stress_gained": lambda r: r.stress_gained}
    if power == "hazard_zone":
        counted["through"] = hit_through
    odds = assert_agrees(POWER, body, version, counted)
    assert [o.code for o in odds.outcomes] == ["applied" if applied[version] else "narrated"]


@pytest.mark.parametrize("version", VERSIONS)
def test_FAB_100_power_odds_refuse_as_the_power_would(version: int) -> None:
    sheet = caster("bolt", pp=1)
    cases = [
        (combat.power_req(sheet, "bolt", 1, [target()], allowed=False), RuleRefusal),
        (combat.power_req(sheet, "bolt", 2, [target()]), RuleRefusal),
        (combat.power_req(sheet, "drain", 1, [target()]), RuleRefusal),
        (combat.power_req(sheet, "bolt", 1, []), InvalidInput),
        (combat.power_req(caster("resize"), "resize", 1, option="wide"), InvalidInput),
    ]
    assert POWER.odds is not None
    for body, error in cases:
        request = POWER.request.model_validate(body)
        with pytest.raises(error) as odds_said:
            POWER.odds(request, version)
        with pytest.raises(error) as roll_said:
            POWER.resolve(request, ReplayDice([]), version)
        assert odds_said.value.detail == roll_said.value.detail


# --- fabulae.push (FAB-31..35, FAB-37, FAB-43) -----------------------------------------------


def rolled(kind: Any, body: dict[str, Any], faces: list[int], version: int) -> dict[str, Any]:
    """The entry a push follows: the kind resolved with these faces."""
    request = kind.request.model_validate(body)
    draws = [{"sides": 6, "face": face} for face in faces]
    result = kind.resolve(request, ReplayDice(draws), version).result
    return entry(kind.name, request.dump(), result.dump())


PUSH_COUNTED: Counted = {
    "sixes": lambda r: r.sixes,
    "prouesses": lambda r: r.feats,
    "panics": lambda r: int(r.outcome == "panic"),
    "destiny_spent": lambda r: 2 if r.state_price and r.state_price.absorbed else 1,
}
PRICED: Counted = {"state_price": lambda r: int(bool(r.pending_states or r.state_price))}


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(
    ("attribute", "stress", "faces", "absorb"),
    [
        P(3, 0, [2, 3, 4], False, id="three-rerolled"),
        P(3, 0, [6, 1, 5], False, id="FAB-31-ones-and-sixes-stay"),
        P(2, 1, [3, 6, 4], False, id="FAB-42-stress-die-rerolled"),
        P(2, 2, [1, 5, 2, 3], True, id="FAB-34-absorbed"),
        P(2, 0, [6, 6], False, id="nothing-to-reroll"),
    ],
)
def test_FAB_31_push_odds_match_brute_force(
    attribute: int, stress: int, faces: list[int], absorb: bool, version: int
) -> None:
    sheet = make_sheet({"physique": attribute}, stress=stress, destiny=3)
    action = {**clock(), "character": char(sheet), "roll": roll_inputs()}
    followed = rolled(ACTION, action, faces, version)
    counted = {**PUSH_COUNTED, **({} if absorb else PRICED)}
    odds = assert_agrees(PUSH, push_req(sheet, followed, absorb=absorb), version, counted)
    assert [o.code for o in odds.outcomes] == ["impossible", "panic", "failure", "success"]


@pytest.mark.parametrize("version", VERSIONS)
def test_FAB_33_a_second_push_odds_start_from_the_first(version: int) -> None:
    sheet = make_sheet({"physique": 3}, destiny=3, talents=["double_push_physique"])
    action = {**clock(), "character": char(sheet), "roll": roll_inputs()}
    followed = rolled(ACTION, action, [2, 3, 4], version)
    first = PUSH.resolve(
        PUSH.request.model_validate(push_req(sheet, followed)),
        ReplayDice([{"sides": 6, "face": f} for f in (6, 5, 1)]),
        version,
    ).result
    again = push_req(sheet, followed, [follow("fabulae.push", first.dump(), 41)])
    assert_agrees(PUSH, again, version, {**PUSH_COUNTED, **PRICED})


# Version 3 gives back the stress a Résistance test lowered when its push panics.
@pytest.mark.parametrize("version", (*VERSIONS, PUSH_REPLACES_RESISTANCE))
@pytest.mark.parametrize(
    ("faces", "stress"),
    [P([6, 2, 3, 4], 2, id="one-six-counted"), P([2, 3, 2], 1, id="none-yet")],
)
def test_FAB_43_pushed_stress_resist_odds_match_brute_force(
    faces: list[int], stress: int, version: int
) -> None:
    sheet = make_sheet({"physique": 2}, stress=stress, destiny=2)
    body = {**clock(), "character": char(sheet), "roll": roll_inputs(skill="resistance")}
    followed = rolled(STRESS_RESIST, body, faces, version)
    counted = {**PUSH_COUNTED, **PRICED, "stress_lowered": lambda r: r.stress_lowered}
    assert_agrees(PUSH, push_req(sheet, followed), version, counted)


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(
    ("faces", "passive_stress"),
    [
        P([2, 3, 6], 0, id="FAB-37-against-the-kept-passive"),
        P([6, 4, 6, 2], 1, id="passive-stress"),
    ],
)
def test_FAB_37_pushed_opposed_odds_match_brute_force(
    faces: list[int], passive_stress: int, version: int
) -> None:
    active = make_sheet({"physique": 2}, destiny=2)
    passive = make_sheet({"physique": 1}, stress=passive_stress)
    followed = rolled(OPPOSED, opposed_req(active, passive), faces, version)
    counted: Counted = {
        "net": lambda r: r.net,
        "prouesses": lambda r: r.feats,
        "panics": lambda r: int(r.outcome == "panic"),
        **PRICED,
    }
    assert_agrees(PUSH, push_req(active, followed), version, counted)


def test_FAB_31_push_odds_refuse_as_the_push_would() -> None:
    sheet = make_sheet({"physique": 2}, stress=1, destiny=0)
    action = {**clock(), "character": char(sheet), "roll": roll_inputs()}
    assert PUSH.odds is not None
    for faces, rule in (([2, 3, 4], "FAB-31"), ([2, 3, 1], "FAB-42")):
        followed = rolled(ACTION, action, faces, 2)
        request = PUSH.request.model_validate(push_req(sheet, followed))
        with pytest.raises(RuleRefusal) as said:
            PUSH.odds(request, 2)
        assert said.value.rule == rule


def test_FAB_31_a_pushed_attack_has_its_odds() -> None:
    """Corrected, a push replays an attack with its new dice: its odds are those of the
    replayed attack (tests/engine/test_odds_fabulae_pushed.py checks them against brute
    force), and the push itself is still made."""
    shooter = combat.attacker_sheet(destiny=2)
    body = combat.attack_req(shooter, combat.make_sheet(), "ranged", "revolver", target_kind="pc")
    request = ATTACK.request.model_validate(body)
    draws = [{"sides": 6, "face": face} for face in (2, 3)]
    resolution = ATTACK.resolve(request, ReplayDice(draws), 2)
    now = []
    for who in (request.attacker, request.target):  # the sheets as the roll left them
        sheet = who.sheet.model_dump(mode="json")
        for change in resolution.effects:
            if change.character_id == who.id:
                sheet[change.field] = change.after
        now.append({**who.model_dump(mode="json"), "sheet": sheet})
    followed = {**entry("fabulae.attack", request.dump(), {}), "draws": draws}
    push = PUSH.request.model_validate(
        {**push_req(shooter, followed), "character": now[0], "now": now}
    )
    assert resolution.result.attacks
    assert PUSH.odds is not None
    outcomes, _laws = exact(PUSH.odds(push, 2))
    # Two dice rerolled against no defense: a hit on any six, 11 faces in 36.
    assert outcomes == {"impossible": 0, "miss": Fraction(25, 36), "hit": Fraction(11, 36)}
    pushed = PUSH.resolve(push, ReplayDice([{"sides": 6, "face": 6}] * 2), 2).result
    assert pushed.attack is not None  # the push itself is made, replayed with its new dice


def test_push_odds_agree_with_the_real_stream() -> None:
    """10,000 pushes of one roll from the campaign stream against the exact odds (FAB-31),
    by outcome and by the Destiny they cost (FAB-34)."""
    sheet = make_sheet({"physique": 3}, stress=1, destiny=3)
    action = {**clock(), "character": char(sheet), "roll": roll_inputs()}
    followed = rolled(ACTION, action, [2, 3, 5, 4], 2)  # three dice and a stress die, no six
    request = PUSH.request.model_validate(push_req(sheet, followed, absorb=True))
    assert PUSH.odds is not None
    outcomes, laws = exact(PUSH.odds(request, 2))
    draws = 10_000
    seen: dict[str, Counter[int | str]] = {"outcome": Counter(), "destiny_spent": Counter()}
    for nonce in range(draws):
        stream = HmacDiceStream(bytes(range(32)), "fabulae-push-odds", 1, "chi", nonce)
        result = PUSH.resolve(request, stream, 2).result
        seen["outcome"][result.outcome] += 1
        seen["destiny_spent"][2 if result.state_price else 1] += 1
    for name, law in (("outcome", outcomes), ("destiny_spent", laws["destiny_spent"])):
        live = {value: p for value, p in law.items() if p}
        assert set(seen[name]) <= set(live)
        statistic = sum(
            (seen[name][v] - draws * float(p)) ** 2 / (draws * float(p)) for v, p in live.items()
        )
        assert chi_square_survival(len(live) - 1, statistic) > 0.001, (name, statistic, seen)
