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
    FabulaeDiceModifier,
    FabulaeRollInputs,
    has_talent,
    pool_of,
)
from app.engine.rulesets.fabulae.recovery import (
    SAVE,
    SELF_CARE_MALUS,
    FabulaeRecoverRequest,
    FabulaeSecondWindRequest,
    refuse_deprived,
)
from app.engine.rulesets.fabulae.tables import Track


def recover_odds(request: FabulaeRecoverRequest, version: RulesVersion) -> Odds:
    """The test `resolve_recover` would roll, after the same refusals, and its odds."""
    mode = request.mode
    patient = request.patient
    sheet = patient.sheet
    actor = request.healer if mode == "care" and request.healer is not None else patient
    check_may_act(actor, f"fabulae.recover:{mode}", version)
    if mode == "rest":
        raise InvalidInput("a rest draws no die (FAB-80, FAB-82): it has no odds")
    if mode == "care":
        healer, track = request.healer, request.track
        if healer is None or track is None:
            raise InvalidInput("track must be physical or mental")
        self_care = healer.id == patient.id
        if self_care and sheet.broken:
            raise refusal(
                "FAB-81",
                "a Broken character is helpless: alone, only a Résistance roll once per quart "
                "(mode broken_resistance)",
            )
        if version >= CORRECTED:
            refuse_deprived(patient, track)
        own = [FabulaeDiceModifier(source="self-treatment", dice=-SELF_CARE_MALUS)]
        roll = FabulaeRollInputs(
            attribute="intellect" if track == "physical" else "empathie",
            skill="soin",
            helpers=request.helpers,
            modifiers=[*request.modifiers, *(own if self_care else [])],
        )
        pool = pool_of(healer, roll, request.session)
        return test_odds(pool.pool, pool.stress_dice)
    if not sheet.broken:
        raise refusal("FAB-81", f"{patient.name} is not Broken")
    broken_track: Track = sheet.broken_track or "physical"
    if version >= CORRECTED:
        refuse_deprived(patient, broken_track)
    roll = FabulaeRollInputs(
        attribute="physique" if broken_track == "physical" else "empathie", skill="resistance"
    )
    pool = pool_of(patient, roll, request.session)
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
