"""The odds of a JDR Express kind that draws no die (issue 21): its outcome is decided by
the request itself (the player's invocation, the GM's ruling, holy water on a vampire or
on someone else), so it is certain. The kind's own `resolve` decides it, with a dice
source that refuses any draw: nothing is drawn, nothing is logged, and the request the
rules would refuse is refused."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

from app.engine.contract import Outcome, RequestT, Resolution, ResultT, RulesVersion
from app.engine.dice import DiceSource, Draw
from app.engine.odds import Odds, outcome_odds


class NoDice:
    """A dice source for rules that draw none: a draw is a bug, never a guess."""

    def roll(self, sides: int) -> int:
        raise RuntimeError("this roll kind draws no die; its odds are certain")

    @property
    def draws(self) -> list[Draw]:
        return []


def certain_odds(
    resolve: Callable[[RequestT, DiceSource, RulesVersion], Resolution[ResultT]],
    outcome: Callable[[ResultT], Outcome],
    codes: tuple[str, ...],
    note: str,
) -> Callable[[RequestT, RulesVersion], Odds]:
    """Odds for a dice-free kind: `codes` (every code its outcome gives, worst to best),
    the one the request decides certain."""

    def odds(request: RequestT, version: RulesVersion) -> Odds:
        decided = outcome(resolve(request, NoDice(), version).result).code
        return Odds(
            outcomes=outcome_odds([(code, Fraction(int(code == decided))) for code in codes]),
            notes=[f"no dice: {note}"],
        )

    return odds
