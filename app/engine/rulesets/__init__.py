"""The rulesets the service runs: one package each, registered in this one list."""

from __future__ import annotations

from app.engine.contract import Ruleset
from app.engine.rulesets import dice, fabulae, jdr, vampire

RULESETS: tuple[Ruleset, ...] = (
    dice.RULESET,
    jdr.RULESET,
    fabulae.RULESET,
    vampire.RULESET,
)
