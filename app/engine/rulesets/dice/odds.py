"""The odds of a generic `dice` roll (issue 21): the exact distribution of its total, and of
its successes when a group counts them, with mean and deviation (past EXACT_VALUES values,
floats within 1e-12 of the exact ones). The kind defines no outcome,
so `outcomes` is empty: a made roll ranks by its total (P(total < t) + P(total = t) / 2)."""

from __future__ import annotations

import math
from functools import lru_cache
from typing import TYPE_CHECKING

from app.engine.contract import RulesVersion
from app.engine.dicenotation import grammar
from app.engine.dicenotation.ast import Dice, groups
from app.engine.dicenotation.bounds import MAX_DICE
from app.engine.dicenotation.evaluate import MAX_EXPLOSIONS, MAX_REROLLS
from app.engine.dicenotation.odds import notation_odds
from app.engine.dicenotation.sums import Dist, LikeDice
from app.engine.odds import DistributionOdds, Odds, float_distribution, weighted_distribution

if TYPE_CHECKING:
    from app.engine.rulesets.dice import DiceRequest

CAPS_NOTE = (
    f"Once {MAX_DICE} dice are drawn, rerolls and explosions stop; these odds leave that cap "
    f"out (they do count a die rerolling at most {MAX_REROLLS} times and exploding at most "
    f"{MAX_EXPLOSIONS} times)"
)
_ADDS = {"rr": MAX_REROLLS, "ro": 1, "ra": 1, "e": MAX_EXPLOSIONS, "c": MAX_EXPLOSIONS}


def most_dice(group: Dice) -> int:
    """The most dice a group can draw, its rerolls and explosions included."""
    drawn = alive = group.count
    for op in group.ops:
        if op.max_targets is not None:  # d20's ra (version 3): one die more at most
            drawn, alive = drawn + op.max_targets, alive + op.max_targets
            continue
        drawn += alive * _ADDS.get(op.name, 0)  # a reroll replaces; ra and e add; c adds into
        alive *= 1 + (_ADDS[op.name] if op.name in ("ra", "e") else 0)
    return drawn


def dice_odds(request: DiceRequest, version: RulesVersion) -> Odds:
    # Version 1's notation (NdS, NdSkhK, NdSklK, integers, + and -) reads the same under
    # version 2's grammar, die for die: its odds are the same. Versions 2 and 3 read `!!`
    # differently, so each entry's odds read it as its own version does.
    return _odds(request.notation, version)


def _distribution(name: str, summed: Dist | LikeDice) -> DistributionOdds:
    """Exact fractions, or past EXACT_VALUES values floats within 1e-12: a large sum of like
    dice by its FFT (sums.py), anything else from its exact weights."""
    if isinstance(summed, Dist):
        return weighted_distribution(name, summed.weights, summed.denominator)
    mean, variance = summed.mean_and_variance()
    values = range(summed.low, summed.low + summed.span)
    return float_distribution(
        name, values, summed.probabilities(), float(mean), math.sqrt(variance)
    )


@lru_cache(maxsize=256)
def _odds(notation: str, version: RulesVersion) -> Odds:
    parsed = grammar.parse(notation, version)
    total, successes = notation_odds(parsed, notation)
    distributions = [_distribution("total", total)]
    if successes is not None:
        distributions.append(_distribution("successes", successes))
    # Exact unless the dice could reach the cap on dice in all.
    notes = [CAPS_NOTE] if sum(most_dice(g) for g in groups(parsed.expr)) > MAX_DICE else []
    return Odds(outcomes=[], distributions=distributions, notes=notes, ranked_by="total")
