"""Exact odds of a push (FAB-31..35, FAB-37, FAB-43; issue 21): the roll as it stands keeps
its 1s and 6s, and every 2..5 is rolled again, stress dice too.

Of the r pool dice rerolled, a ones and b sixes come r!/(a!·b!·c!)·4^c ways (c = r − a − b);
the same of the stress dice, where a 1 is Panic (FAB-42). The pushed side then reads as any
roll (FAB-11): its sixes, the kept ones and the new, succeed unless it panics. A 1 anywhere
in the final set has its price (FAB-32): a state, or one more Destiny that absorbs it
(FAB-34). An opposed roll is pushed against the passive side's dice, kept (FAB-37).
"""

from __future__ import annotations

from collections import defaultdict
from math import comb
from typing import TYPE_CHECKING, Final

from app.engine.contract import RulesVersion
from app.engine.odds import Odds, outcome_odds
from app.engine.rulesets.fabulae.odds import (
    PANIC_NOTE,
    TEST_OUTCOMES,
    counted,
    ordered,
    over_codes,
)
from app.engine.rulesets.fabulae.pools import CORRECTED
from app.engine.rulesets.fabulae.pushed import PUSHABLE

if TYPE_CHECKING:  # push.py sets these odds on its kind
    from app.engine.rulesets.fabulae.push import FabulaePushRequest, PushPlan

# (sixes, a 1 among them) -> ways, for dice rerolled.
Rerolled = dict[tuple[int, bool], int]
SECOND_PUSH_NOTE: Final = (
    "a second push (FAB-33, with the attribute's talent) the player may choose after these "
    "dice is left out: these are the odds of this push"
)


def rerolled(count: int) -> Rerolled:
    """The ways `count` rerolled dice show k sixes, with or without a 1 among them."""
    ways: Rerolled = defaultdict(int)
    for ones in range(count + 1):
        for sixes in range(count - ones + 1):
            rest = count - ones - sixes
            number = comb(count, ones) * comb(count - ones, sixes) * 4**rest
            ways[(sixes, ones > 0)] += number
    return dict(ways)


def push_odds(request: FabulaePushRequest, version: RulesVersion) -> Odds:
    """The push's odds, after the refusals its resolve makes before any die."""
    # Imported here: push.py sets this module's odds on its kind.
    from app.engine.rulesets.fabulae.push import push_plan

    if version >= CORRECTED and request.action.kind in PUSHABLE:
        # A roll with consequences is replayed with its new dice (odds_pushed.py).
        from app.engine.rulesets.fabulae.odds_pushed import replayed_odds

        return replayed_odds(request, version)
    plan = push_plan(request, version)
    return plan_odds(plan, request.absorb, resisting_stress(request), version)


def resisting_stress(request: FabulaePushRequest) -> int | None:
    """FAB-43: the stress a pushed Résistance test may lower further, else None."""
    if request.action.kind != "fabulae.stress_resist":
        return None
    return request.character.sheet.stress


def plan_odds(plan: PushPlan, absorb: bool, stress: int | None, version: RulesVersion) -> Odds:
    """Every reroll of the side's 2..5, counted by what the pushed roll reads."""
    from app.engine.rulesets.fabulae.push import lowered_after_push

    side = plan.side
    kept_sixes = sum(1 for face in [*side.dice, *side.stress_dice] if face == 6)
    kept_one = any(face == 1 for face in [*side.dice, *side.stress_dice])
    pool = rerolled(sum(1 for face in side.dice if face not in (1, 6)))
    stress_dice = rerolled(sum(1 for face in side.stress_dice if face not in (1, 6)))
    whole = 6 ** sum(1 for face in [*side.dice, *side.stress_dice] if face not in (1, 6))
    passive = plan.passive
    passive_sixes = 0
    if passive is not None and passive.outcome in ("success", "failure"):
        passive_sixes = passive.sixes  # FAB-36: a side that panicked or could not act scores none
    outcomes: dict[str, int] = defaultdict(int)
    laws: dict[str, dict[int, int]] = defaultdict(lambda: defaultdict(int))
    for (pool_sixes, pool_one), pool_ways in pool.items():
        for (stress_sixes, panic), stress_ways in stress_dice.items():
            ways = pool_ways * stress_ways
            sixes = kept_sixes + pool_sixes + stress_sixes
            one = kept_one or pool_one or panic
            outcome = "panic" if panic else "success" if sixes else "failure"
            if passive is not None:
                net = (0 if panic else sixes) - passive_sixes  # FAB-36/37
                outcome = "panic" if panic else "success" if net >= 1 else "failure"
                laws["net"][net] += ways
                laws["prouesses"][max(0, net - 1)] += ways
            else:
                laws["sixes"][sixes] += ways
                laws["prouesses"][sixes - 1 if outcome == "success" else 0] += ways
            outcomes[outcome] += ways
            laws["panics"][int(panic)] += ways
            laws["destiny_spent"][2 if absorb and one else 1] += ways  # FAB-31, FAB-34
            if not absorb:
                laws["state_price"][int(one)] += ways  # FAB-32
            if stress is not None:
                after = lowered_after_push(plan.lowered, stress, outcome, sixes, version)
                laws["stress_lowered"][after] += ways
    return Odds(
        outcomes=outcome_odds(ordered(TEST_OUTCOMES, over_codes(outcomes, whole))),
        distributions=[counted(name, law, whole) for name, law in laws.items()],
        notes=[SECOND_PUSH_NOTE, PANIC_NOTE, PRICE_NOTE],
    )


PRICE_NOTE: Final = (
    "`destiny_spent` counts the push's Destiny (FAB-31) and the one that absorbs a 1's "
    "price when `absorb` is asked (FAB-34); `state_price` whether a 1 in the final set "
    "costs a state (FAB-32), checked now or left pending for the player to choose"
)
