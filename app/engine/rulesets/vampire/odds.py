"""Vampire's exact odds (issue 21): the action roll's botch, failure and each degree of
success (VAM-10..30), and the level a damage roll leaves its target at (VAM-40).

Every input is read from the request the way `resolve` reads it, and every refusal it
makes before drawing a die is made here too: odds of a roll the rules would refuse are
refused. The probabilities are exact fractions over the 10^pool face combinations.
"""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction
from functools import lru_cache
from math import comb
from typing import Final

from app.engine.contract import RulesVersion
from app.engine.errors import refusal
from app.engine.odds import Odds, distribution, outcome_odds, weighted_distribution
from app.engine.rulesets.vampire.action import (
    VampireActionRequest,
    action_pool,
    quality_of,
)
from app.engine.rulesets.vampire.health import (
    DAMAGE_DIFFICULTY,
    LEVELS,
    RULE,
    VampireDamageRequest,
    cannot_act,
    incapacitated,
    level_of,
    take,
    wound_penalty,
)

# Worst to best (VAM-15, VAM-16).
ACTION_OUTCOMES: Final = ("botch", "failure", "marginal", "moderate", "complete")
# A damage roll whose target stays unhurt reads no outcome (`damage_outcome` gives None):
# its odds name that case "unhurt".
UNHURT: Final = "unhurt"


# --- the action roll (VAM-10..30) --------------------------------------------------------


@lru_cache(maxsize=1024)
def counted(pool: int, difficulty: int, explosive: bool) -> dict[tuple[int, int], int]:
    """VAM-12..14: how many of the 10^pool face combinations give each (successes, ones).

    A die is a 1 (one face), a 10 (one face: 1 success, 2 when explosive), a success below
    10 (faces difficulty..9) or a blank (faces 2..difficulty-1). With k ones among the pool
    (C(pool, k) ways), the other dice's successes are the powers of one die's polynomial
    blank + plain·x + x^ten: one product per die, not a multinomial per split of the pool.
    """
    plain = 10 - difficulty  # faces difficulty..9
    blank = difficulty - 2  # faces 2..difficulty-1
    die = [blank, plain, 0]
    die[2 if explosive else 1] += 1  # the 10
    powers = [[1]]  # powers[m]: the ways m dice (none a 1) show each number of successes
    for _ in range(pool):
        last = powers[-1]
        power = [0] * (len(last) + 2)
        for successes, ways in enumerate(last):
            if ways:
                for face, count in enumerate(die):
                    power[successes + face] += ways * count
        powers.append(power)
    found: dict[tuple[int, int], int] = {}
    for ones in range(pool + 1):
        ways = comb(pool, ones)
        for successes, count in enumerate(powers[pool - ones]):
            if count:
                found[(successes, ones)] = ways * count
    return found


def checked_pool(request: VampireActionRequest, version: RulesVersion) -> tuple[int, int, bool]:
    """The pool, the difficulty rolled against and explosive, as `resolve` reads them,
    with every refusal it makes before the dice (VAM-2, VAM-10, VAM-11, VAM-20, VAM-21,
    VAM-30, VAM-40)."""
    rolled = action_pool(request, version)
    pool, difficulty, explosive = rolled.pool, rolled.difficulty, rolled.explosive
    character = request.character
    sheet = character.sheet
    if request.take_automatic:
        if request.tense:
            raise refusal("VAM-20", "no automatic success in combat or a tense situation")
        if pool < difficulty:
            raise refusal(
                "VAM-20", f"an automatic success needs a pool ({pool}) of at least {difficulty}"
            )
    elif request.willpower:
        if sheet.willpower.current <= 0:
            raise refusal("VAM-21", f"{character.name} has no Willpower left")
        if request.willpower_spent_this_turn:
            raise refusal("VAM-21", "Willpower is spent at most once per turn")
    return pool, difficulty, explosive


def action_odds(request: VampireActionRequest, version: RulesVersion) -> Odds:
    """VAM-10..30: botch, failure, marginal, moderate and complete success, exactly."""
    pool, difficulty, explosive = checked_pool(request, version)
    notes = [
        f"{pool}d10 against {difficulty}"
        + (", a 10 counting two successes (VAM-14, never rerolled)" if explosive else "")
    ]
    if request.take_automatic:
        # VAM-20: no dice, a marginal success.
        certain = {code: Fraction(int(code == "marginal")) for code in ACTION_OUTCOMES}
        return Odds(
            outcomes=outcome_odds(list(certain.items())),
            distributions=[
                distribution("net", {1: Fraction(1)}),
                distribution("successes", {1: Fraction(1)}),
            ],
            notes=["VAM-20: an automatic success, no dice"],
        )
    absorbs = (
        request.options.blank_botch
        and request.character.sheet.blank_botch_session != request.session
    )
    whole = 10**pool
    by_outcome: dict[str, int] = defaultdict(int)
    nets: dict[int, int] = defaultdict(int)
    successes: dict[int, int] = defaultdict(int)
    for (hits, ones), weight in counted(pool, difficulty, explosive).items():
        net = hits - ones
        if request.willpower:
            net = max(0, net) + 1  # VAM-21: a success no 1 cancels
        if net >= 1:
            code: str = quality_of(net)
        elif hits or not ones:
            code = "failure"
        else:
            code = "failure" if absorbs else "botch"  # VAM-16
        by_outcome[code] += weight
        nets[net] += weight
        successes[hits] += weight
    if request.willpower:
        notes.append("VAM-21: 1 Willpower spent for a success no 1 cancels")
    else:
        notes.append("no Willpower spent (VAM-21): spending one would change these odds")
    if absorbs:
        notes.append("VAM-16: a botch would be this session's first, absorbed as a failure")
    if request.retry is not None:
        notes.append(f"VAM-30: the retry's difficulty is {difficulty}")
    return Odds(
        outcomes=outcome_odds(
            [(code, Fraction(by_outcome[code], whole)) for code in ACTION_OUTCOMES]
        ),
        distributions=[
            weighted_distribution("net", nets, whole),
            weighted_distribution("successes", successes, whole),
        ],
        notes=notes,
    )


# --- damage and soak (VAM-40) ------------------------------------------------------------


def binomial_successes(pool: int) -> dict[int, Fraction]:
    """VAM-40: successes of `pool` d10 at difficulty 6 (each die 1/2), no 1 cancelling."""
    p = Fraction(11 - DAMAGE_DIFFICULTY, 10)
    return {k: comb(pool, k) * p**k * (1 - p) ** (pool - k) for k in range(pool + 1)}


def damage_odds(request: VampireDamageRequest, version: RulesVersion) -> Odds:
    """VAM-40: the level the target is left at, from the damage dice and its soak."""
    attacker, target = request.attacker, request.target
    if attacker is not None:
        if incapacitated(attacker.sheet.health):
            raise cannot_act(attacker)
        pool = attacker.sheet.attributes.force + request.bonus
        pool -= wound_penalty(attacker.sheet.health)
    else:
        pool = request.pool or 0
    if pool <= 0:
        raise refusal(RULE, f"the damage pool is {pool} dice; nothing can be rolled")
    sheet = target.sheet
    vigueur = 0 if request.damage_type == "aggravated" else sheet.attributes.vigueur
    soak_pool = vigueur + sheet.fortitude if request.soak else 0
    soaked = binomial_successes(soak_pool)
    levels: dict[int, Fraction] = defaultdict(Fraction)
    rolled = binomial_successes(pool)
    for hits, p in rolled.items():
        if hits == 0 or soak_pool == 0:
            levels[hits] += p  # no soak roll: nothing rolled, or nothing to soak with
            continue
        for saved, q in soaked.items():
            levels[max(0, hits - saved)] += p * q
    by_level: dict[str, Fraction] = defaultdict(Fraction)
    beyond: dict[int, Fraction] = defaultdict(Fraction)
    for taken, p in levels.items():
        after, past = take(sheet.health, request.damage_type, taken)
        by_level[level_of(after) or UNHURT] += p
        beyond[past] += p
    # Worst to best for whoever the entry is filed under: the attacker, who wants the
    # target hurt; for a hazard, the target, who does not.
    order = [UNHURT, *LEVELS] if attacker is not None else [*reversed(LEVELS), UNHURT]
    notes = [
        f"{pool}d10 of {request.damage_type} damage at {DAMAGE_DIFFICULTY}"
        + (f", soaked with {soak_pool}d10" if soak_pool else ", not soaked"),
        "the outcome is the target's level after the damage; 'unhurt' is a roll that leaves "
        "the track empty, which reads no outcome",
    ]
    return Odds(
        outcomes=outcome_odds([(code, by_level[code]) for code in order]),
        distributions=[
            distribution("successes", rolled),
            distribution("levels", levels),
            distribution("beyond", beyond),
        ],
        notes=notes,
        no_outcome=UNHURT,
    )
