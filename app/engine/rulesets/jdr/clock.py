"""What a session or scene start recharges in JDR Express (JDR-24, JDR-26, JDR-29a)."""

from __future__ import annotations

from app.engine.contract import ClockRequest, Effect, RulesVersion, effect


def recharges(request: ClockRequest, version: RulesVersion) -> list[Effect]:
    """What a session or scene start recharges, from the GM's facts and the sheets."""
    effects: list[Effect] = []
    for character in request.characters:
        if character.kind != "pc":
            continue
        sheet = character.sheet
        if request.new_session and sheet.get("joker") == "spent":
            effects.append(effect(character.character_id, "joker", "spent", "ready", "JDR-26"))
        if request.night_passed and character.recollected and sheet.get("talisman") == "spent":
            effects.append(effect(character.character_id, "talisman", "spent", "ready", "JDR-24"))
        if request.night_passed and character.slept_safely and sheet.get("effleurement") == "spent":
            effects.append(
                effect(character.character_id, "effleurement", "spent", "ready", "JDR-29a")
            )
    return effects
