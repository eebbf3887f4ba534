"""Exact odds of the recovery rolls (FAB-80/81, FAB-90 second_wind; issue 21): a Soin test
by a healer, the Broken character's Résistance test, the second wind. A rest draws no die:
it has no odds."""

from __future__ import annotations

from app.engine.contract import RulesVersion
from app.engine.errors import InvalidInput, refusal
from app.engine.odds import Odds
from app.engine.rulesets.fabulae.acting import check_may_act
from app.engine.rulesets.fabulae.odds import test_odds
from app.engine.rulesets.fabulae.pools import (
    CORRECTED,
    has_talent,
    pool_of,
)
from app.engine.rulesets.fabulae.recovery import (
    SAVE,
    FabulaeRecoverRequest,
    FabulaeSecondWindRequest,
    recovery_test,
    refuse_deprived,
)


def recover_odds(request: FabulaeRecoverRequest, version: RulesVersion) -> Odds:
    """The test `resolve_recover` would roll, after the same refusals, and its odds."""
    test = recovery_test(request, version)
    if test is None:
        raise InvalidInput("a rest draws no die (FAB-80, FAB-82): it has no odds")
    pool = pool_of(test.roller, test.inputs, request.session)
    return test_odds(pool.pool, pool.stress_dice)


def second_wind_odds(request: FabulaeSecondWindRequest, version: RulesVersion) -> Odds:
    """FAB-90 second_wind: Physique + Résistance, once per session when Broken."""
    character = request.character
    check_may_act(character, "fabulae.second_wind", version)
    sheet = character.sheet
    if not has_talent(sheet, "second_wind"):
        raise InvalidInput("second_wind is a talent this character does not have")
    if not sheet.broken:
        raise refusal("FAB-90", f"{character.name} is not Broken")
    if sheet.second_wind_session == request.session:
        raise refusal("FAB-90", "second_wind was already used this session")
    if version >= CORRECTED:
        refuse_deprived(character, "physical")
    pool = pool_of(character, SAVE, request.session)
    return test_odds(pool.pool, pool.stress_dice)
