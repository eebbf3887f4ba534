"""The odds of a generic `dice` roll (issue 21): the exact distribution of its total, and of
its successes when a group counts them, with mean and deviation. The kind defines no outcome,
so `outcomes` is empty: a made roll ranks by its total (P(total < t) + P(total = t) / 2)."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from app.engine.contract import RulesVersion
from app.engine.dicenotation import grammar
from app.engine.dicenotation.ast import groups
from app.engine.dicenotation.evaluate import MAX_EXPLOSIONS, MAX_REROLLS
from app.engine.dicenotation.odds import notation_odds
from app.engine.errors import InvalidInput
from app.engine.odds import Odds, distribution

if TYPE_CHECKING:
    from app.engine.rulesets.dice import DiceRequest

NOTATION_V2 = 2
CAPS_NOTE = (
    f"A roll whose dice need more than {grammar.MAX_DICE} draws in all, a die rerolled "
    f"{MAX_REROLLS} times by rr or exploding {MAX_EXPLOSIONS} times is refused, not rolled; "
    "these odds count such a chain as stopping at its cap"
)


def dice_odds(request: DiceRequest, version: RulesVersion) -> Odds:
    if version < NOTATION_V2:
        raise InvalidInput("odds are given for the dice notation of rules version 2 on")
    return _odds(request.notation)


@lru_cache(maxsize=256)
def _odds(notation: str) -> Odds:
    parsed = grammar.parse(notation)
    total, successes = notation_odds(parsed, notation)
    distributions = [distribution("total", total.fractions())]
    if successes is not None:
        distributions.append(distribution("successes", successes.fractions()))
    adds_dice = any(
        op.name in ("rr", "ro", "ra", "e") for group in groups(parsed.expr) for op in group.ops
    )
    notes = [CAPS_NOTE] if adds_dice else []
    return Odds(outcomes=[], distributions=distributions, notes=notes)
