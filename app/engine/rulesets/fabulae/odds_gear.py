"""Exact odds of an armor repair (FAB-67; issue 21): a Bricolage test that restores one
point on a success and one per Prouesse, up to the armor's whole value."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.engine.contract import RulesVersion
from app.engine.errors import refusal
from app.engine.odds import Odds
from app.engine.rulesets.fabulae.acting import check_may_act
from app.engine.rulesets.fabulae.odds import counted, side_counts, test_odds
from app.engine.rulesets.fabulae.pools import FabulaeRollInputs, pool_of
from app.engine.rulesets.fabulae.sheet import armor_base

if TYPE_CHECKING:  # gear.py sets these odds on its kind
    from app.engine.rulesets.fabulae.gear import FabulaeRepairRequest


def repair_odds(request: FabulaeRepairRequest, version: RulesVersion) -> Odds:
    """The test's odds, and the armor's value after it (`armor_value`)."""
    check_may_act(request.character, "fabulae.repair", version)
    mechanic, owner = request.character, request.owner
    armor = owner.sheet.armor
    if not armor:
        raise refusal("FAB-67", f"{owner.name} wears no armor")
    base = armor_base(owner.sheet)
    if armor.value >= base:
        raise refusal("FAB-67", f"the {armor.id} is whole ({base}); nothing to repair")
    roll = FabulaeRollInputs(
        attribute=request.attribute,
        skill="bricolage",
        helpers=request.helpers,
        talents=list(request.talents),
        modifiers=list(request.modifiers),
    )
    pool = pool_of(mechanic, roll, request.session)
    test = test_odds(pool.pool, pool.stress_dice)
    if pool.pool <= 0:
        value = counted("armor_value", {armor.value: 1}, 1)
    else:
        calm, panic = side_counts(pool.pool, pool.stress_dice)
        ways = {armor.value: calm[0] + sum(panic)}
        for sixes, count in enumerate(calm):
            if sixes:
                restored = min(base, armor.value + sixes)  # 1 + the Prouesses (sixes − 1)
                ways[restored] = ways.get(restored, 0) + count
        value = counted("armor_value", ways, 6 ** (pool.pool + pool.stress_dice))
    return test.model_copy(update={"distributions": [*test.distributions, value]})
