"""Exact odds of a death test (FAB-51; issue 21): Physique + Résistance, survived on any six;
without stress dice from the corrections on (FAB-42 corrected), so no Panic there."""

from __future__ import annotations

from fractions import Fraction

from app.engine.contract import RulesVersion
from app.engine.errors import refusal
from app.engine.odds import Odds, outcome_odds
from app.engine.rulesets.fabulae.acting import check_may_act
from app.engine.rulesets.fabulae.odds import PUSH_NOTE, test_odds
from app.engine.rulesets.fabulae.pools import (
    CORRECTED,
    FabulaeDiceModifier,
    FabulaeRollInputs,
    has_talent,
    pool_of,
)
from app.engine.rulesets.fabulae.sequelae import FabulaeDeathTestRequest, lethal_sequela

DEATH_OUTCOMES = ("impossible", "dead", "survived")


def death_test_odds(request: FabulaeDeathTestRequest, version: RulesVersion) -> Odds:
    """FAB-51: a failure or a Panic is death; FAB-14: an impossible pool is refused after."""
    check_may_act(request.character, "fabulae.death_test", version)
    character = request.character
    sheet = character.sheet
    if sheet.dead:
        raise refusal("FAB-51", f"{character.name} is already dead")
    sequela = lethal_sequela(sheet, request.sequela)
    if sequela.stabilised and sequela.delay == "quart":
        raise refusal("FAB-52", "this sequela is stabilised: the character no longer risks death")
    modifiers = (
        [FabulaeDiceModifier(source="iron_will", dice=2)] if has_talent(sheet, "iron_will") else []
    )
    roll = FabulaeRollInputs(attribute="physique", skill="resistance", modifiers=modifiers)
    pool = pool_of(character, roll, request.session)
    stress = pool.stress_dice if version < CORRECTED else 0
    test = test_odds(pool.pool, stress)
    chances = {o.code: Fraction(o.exact) for o in test.outcomes}
    outcomes = [
        ("impossible", chances["impossible"]),
        ("dead", chances["panic"] + chances["failure"]),
        ("survived", chances["success"]),
    ]
    # FAB-42 (corrected): no stress die, so no Panic to note.
    notes = test.notes if stress or pool.pool <= 0 else [PUSH_NOTE]
    return test.model_copy(update={"outcomes": outcome_odds(outcomes), "notes": notes})
