"""What a scene start ends in Fabulae Tenebris: the powers' effects (FAB-102), and the
sequelae whose time is up (FAB-50/55 corrected)."""

from __future__ import annotations

from app.engine.contract import ClockRequest, Effect, RulesVersion, effect
from app.engine.rulesets.fabulae.durations import clock_sequelae


def recharges(request: ClockRequest, version: RulesVersion) -> list[Effect]:
    """FAB-102: when a scene ends, the powers' effects on everyone end with it; from the
    corrections on, so do the sequelae counted in rounds or quarts, and a night passed
    counts a day off the others."""
    effects = [
        effect(character.character_id, "active_effects", active, [], "FAB-102")
        for character in request.characters
        if (active := character.sheet.get("active_effects"))
    ]
    for character in request.characters:
        effects += clock_sequelae(character, request.night_passed, version)
    return effects
