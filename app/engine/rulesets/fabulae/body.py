"""A character's sheet while a rule changes it, then each changed field as an effect."""

from __future__ import annotations

from app.engine.contract import Effect, effect, to_json
from app.engine.rulesets.fabulae.sheet import FabulaeCharacter, FabulaeSheet


class Body:
    """A working copy of a character's sheet; `effects(rule)` reports each changed field,
    in the sheet's order, with the value it held before."""

    def __init__(self, character: FabulaeCharacter) -> None:
        self.character = character
        self.id = character.id
        self.before: FabulaeSheet = character.sheet
        self.sheet: FabulaeSheet = character.sheet.model_copy(deep=True)

    @property
    def as_before(self) -> FabulaeCharacter:
        """The character as the rule read it, before any change."""
        return self.character

    def effects(self, rule: str) -> list[Effect]:
        changed = []
        for name in FabulaeSheet.model_fields:
            before, after = to_json(getattr(self.before, name)), to_json(getattr(self.sheet, name))
            if before != after:
                changed.append(effect(self.id, name, before, after, rule))
        return changed
