"""What a scene start ends in Fabulae Tenebris (FAB-102): the powers' effects."""

from __future__ import annotations

from app.engine.contract import ClockRequest, Effect, RulesVersion, effect


def recharges(request: ClockRequest, version: RulesVersion) -> list[Effect]:
    """FAB-102: when a scene ends, the powers' effects on everyone end with it."""
    return [
        effect(character.character_id, "active_effects", active, [], "FAB-102")
        for character in request.characters
        if (active := character.sheet.get("active_effects"))
    ]
