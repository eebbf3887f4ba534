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
from collections.abc import Iterable, Mapping
from fractions import Fraction
from functools import lru_cache
from math import comb
from typing import TYPE_CHECKING, Final

from app.engine.contract import RulesVersion
from app.engine.errors import invalid, refusal
from app.engine.odds import Odds, distribution, outcome_odds
from app.engine.rulesets.fabulae.acting import check_may_act
from app.engine.rulesets.fabulae.pools import CORRECTED, has_talent, pool_of

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
PANIC_NOTE: Final = (
    "a stress 1 sets off a panic roll (FAB-42, fabulae.panic), a follow-on roll with its own "
    "odds; `panics` counts those this roll sets off"
)

# (panic, sixes) -> probability; an impossible pool (FAB-14) is None.
Side = Mapping[tuple[bool, int], Fraction]


@lru_cache(maxsize=1024)
def side_law(pool: int, stress: int) -> tuple[tuple[tuple[bool, int], Fraction], ...]:
    """FAB-11, FAB-15, FAB-42: the joint law of (a stress die showed 1, sixes on every die)
    of `pool` dice and `stress` stress dice (pool >= 1)."""
    ways: dict[tuple[bool, int], int] = defaultdict(int)
    for k in range(pool + 1):
        pool_ways = comb(pool, k) * 5 ** (pool - k)
        for j in range(stress + 1):
            calm = comb(stress, j) * 4 ** (stress - j)
            ways[(False, k + j)] += pool_ways * calm
            ways[(True, k + j)] += pool_ways * (comb(stress, j) * 5 ** (stress - j) - calm)
    total = 6 ** (pool + stress)
    return tuple((key, Fraction(count, total)) for key, count in sorted(ways.items()) if count)


def side(pool: int, stress: int) -> Side | None:
    """A side's law, None when its pool is 0 or less (FAB-14: no die is drawn)."""
    return dict(side_law(pool, stress)) if pool > 0 else None


def test_outcome(panic: bool, sixes: int) -> str:
    """pools.read_dice: Panic first, then any six succeeds."""
    return "panic" if panic else "success" if sixes else "failure"


def laws(pairs: Iterable[tuple[int, Fraction]]) -> dict[int, Fraction]:
    law: dict[int, Fraction] = defaultdict(Fraction)
    for value, p in pairs:
        law[value] += p
    return dict(law)


def ordered(codes: Iterable[str], weights: Mapping[str, Fraction]) -> list[tuple[str, Fraction]]:
    return [(code, weights.get(code, Fraction(0))) for code in codes]


def test_odds(rolled: Side | None, extra: Iterable[tuple[str, dict[int, Fraction]]] = ()) -> Odds:
    """A test's outcomes, its sixes, its Prouesses (FAB-11) and the panics it sets off."""
    if rolled is None:
        certain = {0: Fraction(1)}
        named = [("sixes", certain), ("prouesses", certain), ("panics", certain)]
        named += [(name, certain) for name, _ in extra]
        return Odds(
            outcomes=outcome_odds(ordered(TEST_OUTCOMES, {"impossible": Fraction(1)})),
            distributions=[distribution(name, law) for name, law in named],
            notes=["FAB-14: the pool is 0 or less, so the action is impossible; no die is drawn"],
        )
    weights = laws_by_code(rolled)
    named = [
        ("sixes", laws((sixes, p) for (_, sixes), p in rolled.items())),
        (
            "prouesses",
            laws(
                (max(0, sixes - 1) if test_outcome(panic, sixes) == "success" else 0, p)
                for (panic, sixes), p in rolled.items()
            ),
        ),
        ("panics", laws((int(panic), p) for (panic, _), p in rolled.items())),
        *extra,
    ]
    return Odds(
        outcomes=outcome_odds(ordered(TEST_OUTCOMES, weights)),
        distributions=[distribution(name, law) for name, law in named],
        notes=[PUSH_NOTE, PANIC_NOTE],
    )


def laws_by_code(rolled: Side) -> dict[str, Fraction]:
    weights: dict[str, Fraction] = defaultdict(Fraction)
    for (panic, sixes), p in rolled.items():
        weights[test_outcome(panic, sixes)] += p
    return weights


# --- fabulae.action (FAB-10..15, FAB-42) ---------------------------------------------------


def action_odds(request: FabulaeActionRequest, version: RulesVersion) -> Odds:
    """The action roll's odds, from the pool `resolve_action` would roll."""
    check_may_act(request.character, "fabulae.action", version)
    pool = pool_of(request.character, request.roll, request.session)
    return test_odds(side(pool.pool, pool.stress_dice))


# --- fabulae.stress_resist (FAB-43) --------------------------------------------------------


def stress_resist_odds(request: FabulaeStressResistRequest, version: RulesVersion) -> Odds:
    """FAB-43: a Résistance test; on a success each six lowers current stress by one."""
    check_may_act(request.character, "fabulae.stress_resist", version)
    if request.roll.skill != "resistance":
        raise invalid("FAB-43", "stress is resisted with the Résistance skill")
    character = request.character
    if version >= CORRECTED and "sleep" in character.sheet.deprived:
        raise refusal(
            "FAB-73",
            f"{character.name} has not slept: stress heals only once the GM lifts the "
            "deprivation (the sheet's `deprived`)",
        )
    pool = pool_of(character, request.roll, request.session)
    rolled = side(pool.pool, pool.stress_dice)
    stress = character.sheet.stress
    lowered = (
        laws(
            (min(stress, sixes) if test_outcome(panic, sixes) == "success" else 0, p)
            for (panic, sixes), p in rolled.items()
        )
        if rolled is not None
        else {0: Fraction(1)}
    )
    return test_odds(rolled, [("stress_lowered", lowered)])


# --- fabulae.opposed, fabulae.oppose (FAB-36) ----------------------------------------------


def opposed_odds(request: FabulaeOpposedRequest, version: RulesVersion) -> Odds:
    """FAB-36: the active side wins with strictly more sixes; a side that panics or cannot
    act scores none (FAB-14, FAB-42); a win by two or more is a Prouesse."""
    check_may_act(request.active.character, "fabulae.opposed", version)
    session = request.session
    active_pool = pool_of(request.active.character, request.active.roll, session)
    notes = [PUSH_NOTE, PANIC_NOTE]
    if active_pool.pool <= 0:
        certain = {0: Fraction(1)}
        return Odds(
            outcomes=outcome_odds(ordered(TEST_OUTCOMES, {"impossible": Fraction(1)})),
            distributions=[distribution(name, certain) for name in ("net", "prouesses", "panics")],
            notes=["FAB-14: the active pool is 0 or less; no side rolls"],
        )
    passive_pool = pool_of(request.passive.character, request.passive.roll, session)
    if request.passive_answers:
        notes.append(
            "FAB-36: the passive side answers with its own talents and helpers "
            "(fabulae.oppose); these odds take them as the request gives them"
        )
    active = side(active_pool.pool, active_pool.stress_dice)
    passive = side(passive_pool.pool, passive_pool.stress_dice)
    assert active is not None
    # The passive side's scored sixes and whether it panicked.
    answer = (
        {(False, 0): Fraction(1)}
        if passive is None
        else laws_pairs(
            ((panic, 0 if panic else sixes), p) for (panic, sixes), p in passive.items()
        )
    )
    weights: dict[str, Fraction] = defaultdict(Fraction)
    net: dict[int, Fraction] = defaultdict(Fraction)
    feats: dict[int, Fraction] = defaultdict(Fraction)
    panics: dict[int, Fraction] = defaultdict(Fraction)
    for (active_panic, sixes), p in active.items():
        scored = 0 if active_panic else sixes
        for (passive_panic, against), q in answer.items():
            margin = scored - against
            both = p * q
            code = "panic" if active_panic else "success" if margin >= 1 else "failure"
            weights[code] += both
            net[margin] += both
            feats[max(0, margin - 1)] += both
            panics[int(active_panic) + int(passive_panic)] += both
    return Odds(
        outcomes=outcome_odds(ordered(TEST_OUTCOMES, weights)),
        distributions=[
            distribution("net", net),
            distribution("prouesses", feats),
            distribution("panics", panics),
        ],
        notes=notes,
    )


def laws_pairs(
    pairs: Iterable[tuple[tuple[bool, int], Fraction]],
) -> dict[tuple[bool, int], Fraction]:
    law: dict[tuple[bool, int], Fraction] = defaultdict(Fraction)
    for key, p in pairs:
        law[key] += p
    return dict(law)


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
