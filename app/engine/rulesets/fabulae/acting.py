"""Who may act (FAB-23, FAB-51, FAB-63, all corrected): a dead character makes no roll; a
Broken or unconscious one makes only the rolls the rules give it; a grappled one only
tries to break free. Each resolver asks before its first die, from the corrections on."""

from __future__ import annotations

from typing import Final

from app.engine.contract import RulesVersion
from app.engine.errors import refusal
from app.engine.rulesets.fabulae.pools import CORRECTED
from app.engine.rulesets.fabulae.sheet import FabulaeCharacter, FabulaeSheet

# What the rules still give a Broken or unconscious character (FAB-23 corrected): the
# Test de Trépas, FAB-81's Résistance roll, and the answers to the damage it takes.
# What befalls a character (a danger, stress, a panic or sequela roll) is not its action.
WHILE_DOWN: Final = frozenset(
    {
        "fabulae.death_test",
        "fabulae.recover:broken_resistance",
        "fabulae.recover:rest",
        "fabulae.state_choice",
        "fabulae.absorb",
        "fabulae.second_wind",
        "fabulae.danger",
        "fabulae.stress",
        "fabulae.panic",
        "fabulae.sequela",
        "fabulae.destiny_award",
    }
)
# FAB-63 (corrected): « la seule action disponible de la victime est de tenter de se
# libérer »; the answers to damage and the Test de Trépas are not actions.
WHILE_HELD: Final = WHILE_DOWN | {"fabulae.break_free"}
# The sequela that leaves its bearer unconscious while it lasts (FAB-50 Sonné).
UNCONSCIOUS: Final = "stunned"


def unconscious(sheet: FabulaeSheet) -> bool:
    """Sonné: « Inconscient pendant 1D6 Rounds », until its duration runs out (FAB-50)."""
    return any(sequela.code == UNCONSCIOUS for sequela in sheet.sequelae)


def why_not(character: FabulaeCharacter, kind: str) -> tuple[str, str] | None:
    """The rule and the reason this character may not make this roll now, if any."""
    sheet, name = character.sheet, character.name
    if sheet.dead:
        return "FAB-51", f"{name} is dead: a dead character makes no roll"
    if sheet.broken and kind not in WHILE_DOWN:
        return "FAB-23", (
            f"{name} is Broken (« s'écroule, devient inconscient ou impuissant »): only a "
            "death test (FAB-51), the Résistance roll of FAB-81, a rest, a second wind, "
            "or being cared for"
        )
    if unconscious(sheet) and kind not in WHILE_DOWN:
        return "FAB-50", f"{name} is unconscious (Sonné) until the sequela's rounds run out"
    if sheet.grappled_by is not None and kind not in WHILE_HELD:
        return "FAB-63", f"{name} is grappled: the only action left is to break free"
    return None


def may_defend(character: FabulaeCharacter) -> bool:
    """FAB-62 with FAB-23/63 (corrected): the fallen and the held do not parry or dodge."""
    sheet = character.sheet
    return not (sheet.dead or sheet.broken or unconscious(sheet) or sheet.grappled_by)


def check_may_act(character: FabulaeCharacter, kind: str, version: RulesVersion) -> None:
    """Refuse, before any die, a roll the character's condition forbids (corrected rules)."""
    if version < CORRECTED:
        return
    found = why_not(character, kind)
    if found is not None:
        raise refusal(*found)
