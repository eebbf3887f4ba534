"""Exact odds of the Fabulae Tenebris rolls (issue 21): the basic test, the opposed roll,
the stress resistance and the panic roll.

A pool of D6 succeeds on any six (FAB-11); every six beyond the first is a Prouesse; the
stress dice are rolled on top and a 1 on one of them is Panic (FAB-15, FAB-42), whatever
the sixes. A side is therefore the joint law of (panic, sixes), counted exactly: with n
pool dice and s stress dice, k sixes among the pool dice come C(n,k)·5^(n−k) ways; j sixes
among the stress dice with no 1 come C(s,j)·4^(s−j) ways, and C(s,j)·(5^(s−j) − 4^(s−j))
ways with a 1.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from functools import lru_cache
from math import comb
from typing import TYPE_CHECKING, Final

from app.engine.contract import RulesVersion
from app.engine.odds import (
    DistributionOdds,
    Odds,
    distribution,
    outcome_odds,
    weighted_distribution,
)
from app.engine.rulesets.fabulae.acting import check_may_act
from app.engine.rulesets.fabulae.pools import has_talent, pool_of

if TYPE_CHECKING:  # the kinds' modules set these odds on their kinds
    from app.engine.rulesets.fabulae.action import FabulaeActionRequest, FabulaeOpposedRequest
    from app.engine.rulesets.fabulae.stress import FabulaePanicRequest, FabulaeStressResistRequest

# The outcomes of a test, worst to best: no attempt (FAB-14), a Panic (FAB-42), a failure,
# a success (FAB-11).
TEST_OUTCOMES: Final = ("impossible", "panic", "failure", "success")
PUSH_NOTE: Final = (
    "a push (FAB-30..37) the player may choose after the dice is left out: these are the "
    "odds of the roll as first made"
)
IMPOSSIBLE_NOTE: Final = (
    "FAB-14: the pool is 0 or less, so the action is impossible; no die is drawn"
)
PANIC_NOTE: Final = (
    "a stress 1 sets off a panic roll (FAB-42, fabulae.panic), a follow-on roll with its own "
    "odds; `panics` counts those this roll sets off"
)

# (panic, sixes) -> probability; an impossible pool (FAB-14) is None.
Side = Mapping[tuple[bool, int], Fraction]


def poly_mul(p: Sequence[int], q: Sequence[int]) -> list[int]:
    """The exact product of two polynomials with integer coefficients, in FLINT (its
    multiplication of big-integer polynomials is far faster than Python's integers), with
    every coefficient of degree up to len(p) + len(q) − 2 kept, zeros included."""
    from flint import fmpz_poly  # here, not at import: replaying a roll never needs it

    size = len(p) + len(q) - 1
    product = [int(c) for c in (fmpz_poly(list(p)) * fmpz_poly(list(q))).coeffs()]
    return product + [0] * (size - len(product))


def binomial_row(count: int, others: int) -> list[int]:
    """The ways `count` dice show k sixes (k = 0..count) when `others` faces are no six."""
    return [comb(count, k) * others ** (count - k) for k in range(count + 1)]


@lru_cache(maxsize=1024)
def side_counts(pool: int, stress: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """FAB-11, FAB-15, FAB-42: the ways (out of 6^(pool+stress)) that `pool` dice and
    `stress` stress dice show k sixes with no stress 1 (calm), and with one (panic)."""
    total = binomial_row(pool + stress, 5)
    calm = poly_mul(binomial_row(pool, 5), binomial_row(stress, 4))
    return tuple(calm), tuple(t - c for t, c in zip(total, calm, strict=True))


def side(pool: int, stress: int) -> Side | None:
    """A side's law, None when its pool is 0 or less (FAB-14: no die is drawn)."""
    if pool <= 0:
        return None
    calm, panic = side_counts(pool, stress)
    whole = 6 ** (pool + stress)
    law = {(False, k): Fraction(c, whole) for k, c in enumerate(calm) if c}
    law.update({(True, k): Fraction(c, whole) for k, c in enumerate(panic) if c})
    return law


def counted(name: str, counts: Mapping[int, int], whole: int) -> DistributionOdds:
    """`distribution` from ways out of `whole`, without a Fraction per value (a burst's
    damage has hundreds of values over a denominator of hundreds of digits)."""
    return weighted_distribution(name, counts, whole)


def tally(pairs: Iterable[tuple[int, int]]) -> dict[int, int]:
    law: dict[int, int] = defaultdict(int)
    for value, count in pairs:
        law[value] += count
    return law


def ordered(codes: Iterable[str], weights: Mapping[str, Fraction]) -> list[tuple[str, Fraction]]:
    return [(code, weights.get(code, Fraction(0))) for code in codes]


def impossible_odds(names: Iterable[str], codes: Iterable[str], note: str) -> Odds:
    """FAB-14: a pool of 0 or less draws no die: the outcome is certain."""
    certain = {0: Fraction(1)}
    return Odds(
        outcomes=outcome_odds([(code, Fraction(code == "impossible")) for code in codes]),
        distributions=[distribution(name, certain) for name in names],
        notes=[note],
    )


@lru_cache(maxsize=512)
def test_odds(pool: int, stress: int, resisted: int | None = None) -> Odds:
    """A test's outcomes, its sixes, its Prouesses (FAB-11), the panics it sets off (FAB-42)
    and, when `resisted` is the stress a Résistance test resists, the stress it lowers
    (FAB-43: each six on a success)."""
    names = ["sixes", "prouesses", "panics"] + ([] if resisted is None else ["stress_lowered"])
    if pool <= 0:
        return impossible_odds(names, TEST_OUTCOMES, IMPOSSIBLE_NOTE)
    calm, panic = side_counts(pool, stress)
    whole = 6 ** (pool + stress)
    calm_all, panic_all = sum(calm), sum(panic)
    fails = calm[0] + panic_all  # no six, or a Panic: no Prouesse, no stress lowered
    laws = {
        "sixes": dict(enumerate(binomial_row(pool + stress, 5))),
        "prouesses": tally([(0, fails), *((k - 1, c) for k, c in enumerate(calm) if k)]),
        "panics": {0: calm_all, 1: panic_all},
    }
    if resisted is not None:
        laws["stress_lowered"] = tally(
            [(0, fails), *((min(resisted, k), c) for k, c in enumerate(calm) if k)]
        )
    counts = {"panic": panic_all, "failure": calm[0], "success": calm_all - calm[0]}
    return Odds(
        outcomes=outcome_odds(ordered(TEST_OUTCOMES, over_codes(counts, whole))),
        distributions=[counted(name, laws[name], whole) for name in names],
        notes=[PUSH_NOTE, PANIC_NOTE],
    )


def over_codes(counts: Mapping[str, int], whole: int) -> dict[str, Fraction]:
    return {code: Fraction(count, whole) for code, count in counts.items()}


# --- fabulae.action (FAB-10..15, FAB-42) ---------------------------------------------------


def action_odds(request: FabulaeActionRequest, version: RulesVersion) -> Odds:
    """The action roll's odds, from the pool `resolve_action` would roll."""
    check_may_act(request.character, "fabulae.action", version)
    pool = pool_of(request.character, request.roll, request.session)
    return test_odds(pool.pool, pool.stress_dice)


# --- fabulae.stress_resist (FAB-43) --------------------------------------------------------


def stress_resist_odds(request: FabulaeStressResistRequest, version: RulesVersion) -> Odds:
    """FAB-43: a Résistance test; on a success each six lowers current stress by one."""
    # Imported here: stress.py sets this module's odds on its kinds.
    from app.engine.rulesets.fabulae.stress import check_stress_resist

    check_stress_resist(request, version)
    character = request.character
    pool = pool_of(character, request.roll, request.session)
    return test_odds(pool.pool, pool.stress_dice, character.sheet.stress)


# --- fabulae.opposed, fabulae.oppose (FAB-36) ----------------------------------------------


def opposed_odds(request: FabulaeOpposedRequest, version: RulesVersion) -> Odds:
    """FAB-36: the active side wins with strictly more sixes; a side that panics or cannot
    act scores none (FAB-14, FAB-42); a win by two or more is a Prouesse."""
    check_may_act(request.active.character, "fabulae.opposed", version)
    session = request.session
    active = pool_of(request.active.character, request.active.roll, session)
    if active.pool <= 0:
        return impossible_odds(
            ("net", "prouesses", "panics"),
            TEST_OUTCOMES,
            "FAB-14: the active pool is 0 or less; no side rolls",
        )
    passive = pool_of(request.passive.character, request.passive.roll, session)
    odds = opposition_odds(active.pool, active.stress_dice, passive.pool, passive.stress_dice)
    if not request.passive_answers:
        return odds
    note = (
        "FAB-36: the passive side answers with its own talents and helpers "
        "(fabulae.oppose); these odds take them as the request gives them"
    )
    return odds.model_copy(update={"notes": [*odds.notes, note]})


def scored(pool: int, stress: int) -> tuple[list[int], int, int]:
    """The sixes a side scores (none on a Panic or an impossible pool), as ways by count out
    of 6^dice, with the ways it panics and the dice drawn."""
    if pool <= 0:
        return [1], 0, 0
    calm, panic = side_counts(pool, stress)
    panic_all = sum(panic)
    return [calm[0] + panic_all, *calm[1:]], panic_all, pool + stress


@lru_cache(maxsize=512)
def opposition_odds(active: int, active_stress: int, passive: int, passive_stress: int) -> Odds:
    """pools.opposition over every face: net = scored sixes − scored sixes."""
    a, a_panic, a_dice = scored(active, active_stress)
    b, b_panic, b_dice = scored(passive, passive_stress)
    # net = i − j: the product of a(x) and b reversed, shifted by len(b) − 1.
    product = poly_mul(a, b[::-1])
    shift = len(b) - 1
    whole = 6 ** (a_dice + b_dice)
    a_all, b_all = 6**a_dice, 6**b_dice
    net = {index - shift: count for index, count in enumerate(product) if count}
    wins = sum(count for value, count in net.items() if value >= 1)
    feats = tally((max(0, value - 1), count) for value, count in net.items())
    panics = tally(
        [
            (0, (a_all - a_panic) * (b_all - b_panic)),
            (1, a_panic * (b_all - b_panic) + (a_all - a_panic) * b_panic),
            (2, a_panic * b_panic),
        ]
    )
    counts = {"panic": a_panic * b_all, "success": wins}
    counts["failure"] = whole - counts["panic"] - wins
    return Odds(
        outcomes=outcome_odds(ordered(TEST_OUTCOMES, over_codes(counts, whole))),
        distributions=[
            counted("net", net, whole),
            counted("prouesses", feats, whole),
            counted("panics", panics, whole),
        ],
        notes=[PUSH_NOTE, PANIC_NOTE],
    )


# --- fabulae.panic (FAB-44) ----------------------------------------------------------------


def panic_odds(request: FabulaePanicRequest, version: RulesVersion) -> Odds:
    """FAB-44: 1D6 + current stress (cool_head −2) + the GM's modifier, read on the table;
    its rows from worst (catatonia) to best (cool)."""
    from app.engine.rulesets.fabulae.stress import PANIC_TABLE, panic_row  # it imports this

    codes = [code for _, (code, _) in sorted(PANIC_TABLE.items(), reverse=True)]
    check_may_act(request.character, "fabulae.panic", version)
    sheet = request.character.sheet
    cool = -2 if has_talent(sheet, "cool_head") else 0
    sixth = Fraction(1, 6)
    scores = {die + sheet.stress + cool + request.modifier: sixth for die in range(1, 7)}
    weights: dict[str, Fraction] = defaultdict(Fraction)
    for score, p in scores.items():
        weights[panic_row(score)[0]] += p
    return Odds(
        outcomes=outcome_odds(ordered(codes, weights)),
        distributions=[distribution("score", scores)],
        notes=[
            "the stress a jolt or take-cover row changes and the allies' panic rolls a "
            "scream or flee sets off are consequences, not part of these odds"
        ],
    )
