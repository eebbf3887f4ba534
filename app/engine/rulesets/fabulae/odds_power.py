"""Exact odds of a power (FAB-100..102; issue 21), after the refusals its resolve makes
before any die (`powers.power_plan`).

A power that hangs on the caster's roll (bolt, light_dark, silence_noise, drain) has the
outcomes of that roll: a test (FAB-11), or for drain an opposed roll against the target's
Intellect (FAB-36). Its distributions: the roll's sixes or net, Prouesses and panics, and
what it decides: bolt's damage through the target's armor (FAB-67), the malus of
light_dark and silence_noise, the PP drain steals (1D3). The other powers are applied, or
left to the GM's narration, for certain; fire_cone and blast roll each target's save and
protection, independent from one target to the next, so their totals are convolutions.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from fractions import Fraction
from typing import Final

from app.engine.contract import RulesVersion
from app.engine.dice import Draw
from app.engine.errors import InvalidInput
from app.engine.odds import DistributionOdds, Odds, distribution, outcome_odds
from app.engine.rulesets.fabulae.damage import protection_dice
from app.engine.rulesets.fabulae.odds import (
    IMPOSSIBLE_NOTE,
    PANIC_NOTE,
    TEST_OUTCOMES,
    binomial_row,
    counted,
    opposition_odds,
    poly_mul,
    scored,
    side_counts,
    test_odds,
)
from app.engine.rulesets.fabulae.pools import FabulaeDice, pool_of
from app.engine.rulesets.fabulae.powers import (
    BLAST_DAMAGE,
    BOLT_DAMAGE,
    CASTER_ROLL,
    DRAIN_DIE,
    DRAIN_RESIST,
    FIRE_CONE_DAMAGE,
    HAZARD_DAMAGE,
    SAVES,
    Casting,
    FabulaePowerRequest,
    apply,
    dimming,
    power_plan,
    save_roll,
)

Ways = dict[int, int]
POWER_PUSH_NOTE: Final = (
    "a push of the caster's roll (FAB-31, corrected) the player may choose after the dice "
    "is left out: these are the odds of the power as first cast"
)
STATES_NOTE: Final = (
    "the states the damage checks (FAB-102, FAB-22) and the targets' choice to absorb them "
    "(FAB-34) follow the damage and are not part of these odds"
)


# What the odds of each power that hangs on the caster's roll count, besides its stress.
COUNTED: Final = {
    "bolt": ("sixes", "prouesses", "panics", "through"),
    "light_dark": ("sixes", "prouesses", "panics", "malus"),
    "silence_noise": ("sixes", "prouesses", "panics", "malus"),
    "drain": ("net", "prouesses", "panics", "stolen"),
}


class NoDice:
    """The dice source of a power that draws none: asking for a die is a bug."""

    def roll(self, sides: int) -> int:
        raise InvalidInput("this power draws no die: its odds need none")

    @property
    def draws(self) -> list[Draw]:
        return []


def certain(name: str, value: int) -> DistributionOdds:
    return distribution(name, {value: Fraction(1)})


def power_odds(request: FabulaePowerRequest, version: RulesVersion) -> Odds:
    """The power's outcomes, worst to best, and what it counts."""
    plan = power_plan(request, version)
    power = request.power
    if plan.impossible:  # FAB-14 (corrected): nothing drawn, nothing spent
        return Odds(
            outcomes=outcome_odds([(c, Fraction(c == "impossible")) for c in TEST_OUTCOMES]),
            distributions=[certain(name, 0) for name in ("stress_gained", *COUNTED[power])],
            notes=[IMPOSSIBLE_NOTE],
        )
    casting = Casting(request, NoDice(), version)
    casting.spend()
    spent = certain("stress_gained", request.pp)  # FAB-100: one stress per PP
    if power in ("bolt", "light_dark", "silence_noise"):
        return caster_test_odds(casting, spent)
    if power == "drain":
        return drain_odds(casting, spent)
    if power in SAVES:
        return saves_odds(casting, spent)
    if power == "hazard_zone":  # FAB-102: net damage, no save, no armor
        through = HAZARD_DAMAGE * len(casting.bodies)
        return Odds(
            outcomes=outcome_odds([("applied", Fraction(1))]),
            distributions=[spent, certain("through", through)],
            notes=[STATES_NOTE],
        )
    applied = apply(casting)  # draws no die: its effects are certain
    return Odds(
        outcomes=outcome_odds([("applied" if applied else "narrated", Fraction(1))]),
        distributions=[spent],
    )


def caster_test_odds(casting: Casting, spent: DistributionOdds) -> Odds:
    """bolt, light_dark, silence_noise: the caster's Intellect + Connaissance test."""
    request, version = casting.request, casting.version
    pool = pool_of(casting.roller(), CASTER_ROLL, request.session)
    odds = test_odds(pool.pool, pool.stress_dice)
    extra: list[DistributionOdds] = []
    if pool.pool <= 0:  # FAB-14 before the corrections: impossible, the power still spent
        if request.power != "bolt":
            malus = dimming(FabulaeDice(outcome="impossible"), version)
            extra.append(certain("malus", malus or 0))
        else:
            extra.append(certain("through", 0))
        return odds.model_copy(update={"distributions": [*odds.distributions, spent, *extra]})
    calm, panic = side_counts(pool.pool, pool.stress_dice)
    whole = 6 ** (pool.pool + pool.stress_dice)
    if request.power == "bolt":
        ((body),) = casting.bodies.values()
        armor = protection_dice(body.sheet, 0)
        law: Ways = defaultdict(int)
        law[0] += (calm[0] + sum(panic)) * 6**armor  # no hit: nothing through
        protection = binomial_row(armor, 5)
        for sixes in range(1, len(calm)):
            damage = BOLT_DAMAGE + sixes - 1  # FAB-102: 2 + the Prouesses
            for absorbing, ways in enumerate(protection):
                law[damage - min(damage, absorbing)] += calm[sixes] * ways
        extra.append(counted("through", law, whole * 6**armor))
    else:
        by_malus: Ways = defaultdict(int)
        for sixes, ways in enumerate(calm):
            outcome = "success" if sixes else "failure"
            roll = FabulaeDice(outcome=outcome, sixes=sixes, feats=max(0, sixes - 1))
            by_malus[dimming(roll, version) or 0] += ways
        by_malus[dimming(FabulaeDice(outcome="panic"), version) or 0] += sum(panic)
        extra.append(counted("malus", by_malus, whole))
    notes = [POWER_PUSH_NOTE, PANIC_NOTE] + ([STATES_NOTE] if request.power == "bolt" else [])
    return odds.model_copy(
        update={"distributions": [*odds.distributions, spent, *extra], "notes": notes}
    )


def drain_odds(casting: Casting, spent: DistributionOdds) -> Odds:
    """FAB-101 drain: opposed Intellect (FAB-36); on a win, 1D3 PP stolen, no more than
    the target has."""
    request = casting.request
    ((body),) = casting.bodies.values()
    active = pool_of(casting.roller(), CASTER_ROLL, request.session)
    passive = pool_of(body.character, DRAIN_RESIST, request.session)
    if active.pool > 0:
        odds = opposition_odds(active.pool, active.stress_dice, passive.pool, passive.stress_dice)
        wins = Fraction(next(o.exact for o in odds.outcomes if o.code == "success"))
    else:  # FAB-14 before the corrections: the target still resists, and may panic
        rows, panicked, dice = scored(passive.pool, passive.stress_dice)
        whole = 6**dice
        odds = Odds(
            outcomes=outcome_odds([(c, Fraction(c == "impossible")) for c in TEST_OUTCOMES]),
            distributions=[
                counted("net", {-sixes: ways for sixes, ways in enumerate(rows)}, whole),
                certain("prouesses", 0),
                counted("panics", {0: whole - panicked, 1: panicked}, whole),
            ],
        )
        wins = Fraction(0)
    stolen: dict[int, Fraction] = defaultdict(Fraction)
    stolen[0] += 1 - wins
    for face in range(1, DRAIN_DIE + 1):
        stolen[min(face, body.sheet.pp)] += wins / DRAIN_DIE
    return odds.model_copy(
        update={
            "distributions": [*odds.distributions, spent, distribution("stolen", stolen)],
            "notes": [POWER_PUSH_NOTE, PANIC_NOTE],
        }
    )


def saves_odds(casting: Casting, spent: DistributionOdds) -> Odds:
    """FAB-102 fire_cone and blast: each target's save, then its armor (FAB-67)."""
    request = casting.request
    totals: dict[str, Ways] = {name: {0: 1} for name in ("saves", "panics", "through")}
    whole = 1
    for body in casting.bodies.values():
        save = pool_of(body.character, save_roll(SAVES[request.power]), request.session)
        armor = protection_dice(body.sheet, 0)
        protection = binomial_row(armor, 5)
        if save.pool > 0:
            calm, panic = side_counts(save.pool, save.stress_dice)
            dice = save.pool + save.stress_dice
        else:  # FAB-14: an impossible save draws no die and fails
            calm, panic, dice = (1,), (0,), 0
        saved = sum(calm[1:])
        one: dict[str, Ways] = {
            "saves": {0: 6**dice - saved, 1: saved},
            "panics": {0: sum(calm), 1: sum(panic)},
        }
        through: Ways = defaultdict(int)
        for success, ways in ((True, saved), (False, 6**dice - saved)):
            damage = FIRE_CONE_DAMAGE[success] if request.power == "fire_cone" else BLAST_DAMAGE
            for absorbing, count in enumerate(protection):
                through[damage - min(damage, absorbing)] += ways * count
        one["through"] = through
        scale = {"saves": 6**armor, "panics": 6**armor, "through": 1}
        for name, law in one.items():
            totals[name] = convolve(totals[name], {v: w * scale[name] for v, w in law.items()})
        whole *= 6 ** (dice + armor)
    laws = [counted(name, totals[name], whole) for name in ("through", "saves", "panics")]
    if request.power == "blast":  # FAB-102: a failed save threatens Meurtri
        failed = {len(casting.bodies) - saves: ways for saves, ways in totals["saves"].items()}
        laws.append(counted("meurtri", failed, whole))
    return Odds(
        outcomes=outcome_odds([("applied", Fraction(1))]),
        distributions=[spent, *laws],
        notes=[PANIC_NOTE, STATES_NOTE],
    )


def convolve(a: Mapping[int, int], b: Mapping[int, int]) -> Ways:
    """The ways of a sum of two independent counts."""
    low_a, low_b = min(a), min(b)
    rows_a = [a.get(v, 0) for v in range(low_a, max(a) + 1)]
    rows_b = [b.get(v, 0) for v in range(low_b, max(b) + 1)]
    product = poly_mul(rows_a, rows_b)
    return {low_a + low_b + i: ways for i, ways in enumerate(product) if ways}
