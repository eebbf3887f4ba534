"""The core of JDR Express: the settings, the 2D6 reading (JDR-10..13), what burdens a roll
on its own (JDR-3, JDR-24, JDR-33), and the checks every kind shares (JDR-7, JDR-42)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Annotated, Final, Literal

from pydantic import Field

from app.engine.contract import (
    Effect,
    Language,
    Model,
    RulesVersion,
    Snapshot,
    Table,
    effect,
)
from app.engine.dice import DiceSource
from app.engine.errors import InvalidInput, RuleRefusal, refusal
from app.engine.notation import kept_flags
from app.engine.rulesets.jdr.labels import DOMAINS
from app.engine.rulesets.jdr.sheet import (
    AnyJdrCharacter,
    FaithShaken,
    JdrDraculaSheet,
    JdrSheetBase,
    Wound,
)
from app.engine.sheets import enum_labels

DRACULA: Final = "jdr-express-dracula"
CTHULHU: Final = "jdr-express-cthulhu"
JdrSystem = Literal["jdr-express-dracula", "jdr-express-cthulhu"]
Tier = Literal["critical_failure", "failure", "partial_success", "success", "critical_success"]
Mode = Literal["normal", "advantage", "disadvantage"]
Burden = Literal["serious_wound", "critical_wound", "faith_shaken"]
Domain = Annotated[
    Literal["investigation", "erudition", "observation", "occult", "mythos", "other"],
    Field(json_schema_extra=enum_labels(DOMAINS)),
]


class JdrContext(Model):
    """JDR-14: what kind of confrontation the roll is."""

    supernatural: bool = Field(default=False, description="[D] a proven supernatural confrontation")
    domain: Domain = Field(default="other", description="[C] the domain of the roll (JDR-29)")
    direct_peril: bool = Field(default=False, description="the PC is in direct peril (JDR-25)")
    protection: bool = Field(
        default=False, description="a protection roll against a creature (JDR-24)"
    )


def full_context(context: JdrContext) -> JdrContext:
    """The context with every field set, as the log records it."""
    return JdrContext.model_validate(context.model_dump())


# --- settings -----------------------------------------------------------------------------


def setting_name(system: str) -> str:
    return "Dracula" if system == DRACULA else "Cthulhu"


def wrong_setting(rule: str, only: str) -> Callable[[str], InvalidInput]:
    """The refusal of a setting's rule in the other setting (JDR's [D] and [C] rules)."""

    def refuse(system: str) -> InvalidInput:
        return InvalidInput(
            f"{rule} is a rule of the {setting_name(only)} setting; this campaign plays {system}",
            rule=rule,
        )

    return refuse


def check_setting(system: str, only: str, rule: str) -> None:
    """A [D] or [C] rule runs only in its setting."""
    if system != only:
        raise wrong_setting(rule, only)(system)


def setting_of(table: Table) -> JdrSystem:
    """The campaign's setting, as requests record it."""
    system = table.system
    if system == DRACULA:
        return DRACULA
    if system == CTHULHU:
        return CTHULHU
    raise InvalidInput(f"a JDR Express rule cannot run in a {system} campaign")


# --- the dice (JDR-11, JDR-12) ------------------------------------------------------------


class JdrRoll(Model):
    """2D6, or 3D6 keeping two (JDR-12)."""

    mode: Mode
    dice: list[int]
    kept: list[bool]
    kept_sum: int


def tier_of(total: int) -> Tier:
    """JDR-11."""
    if total <= 5:
        return "critical_failure"
    if total <= 8:
        return "failure"
    if total <= 10:
        return "partial_success"
    if total <= 14:
        return "success"
    return "critical_success"


def roll_2d6(dice: DiceSource, advantage: bool, disadvantage: bool) -> JdrRoll:
    """JDR-12: 3D6 keep the two highest (advantage) or lowest (disadvantage); both cancel."""
    mode: Mode
    if advantage != disadvantage:
        faces = [dice.roll(6) for _ in range(3)]
        mode = "advantage" if advantage else "disadvantage"
        kept = kept_flags(faces, "h" if advantage else "l", 2)
    else:
        faces = [dice.roll(6), dice.roll(6)]
        mode = "normal"
        kept = [True, True]
    kept_sum = sum(face for face, keep in zip(faces, kept, strict=True) if keep)
    return JdrRoll(mode=mode, dice=faces, kept=kept, kept_sum=kept_sum)


# --- what burdens a roll (JDR-3, JDR-24, JDR-33) -------------------------------------------


def uncared_serious_wound(wounds: Sequence[Wound]) -> bool:
    """JDR-3/JDR-33: a serious wound burdens every roll until medical care."""
    return any(wound.severity == "serious" and not wound.cared for wound in wounds)


def wound_burdens(wounds: Sequence[Wound], version: RulesVersion) -> list[Burden]:
    """JDR-3/JDR-33: what the character's wounds put at Disadvantage until medical care; a
    critical wound too from rules version 4 (JDR-33, corrected: at least as bad as serious)."""
    burdens: list[Burden] = []
    if uncared_serious_wound(wounds):
        burdens.append("serious_wound")
    if version >= 4 and any(w.severity == "critical" and not w.cared for w in wounds):
        burdens.append("critical_wound")
    return burdens


def faith_shaken_applies(sheet: JdrSheetBase, scene: int, against_supernatural: bool) -> bool:
    """JDR-24: the next supernatural confrontation after the crack, and only that one."""
    shaken = sheet.faith_shaken if isinstance(sheet, JdrDraculaSheet) else None
    if shaken is None or not against_supernatural:
        return False
    if scene <= shaken.cracked_scene:
        return False
    confrontation = shaken.confrontation_scene
    return confrontation is None or confrontation == scene


def mark_confrontation(character_id: str, sheet: JdrSheetBase, scene: int) -> list[Effect]:
    """JDR-24: the first burdened roll names the confrontation the Disadvantage covers."""
    shaken = sheet.faith_shaken if isinstance(sheet, JdrDraculaSheet) else None
    if shaken is None or shaken.confrontation_scene is not None:
        return []
    after = FaithShaken.model_validate({**shaken.dump(), "confrontation_scene": scene})
    return [effect(character_id, "faith_shaken", shaken, after, "JDR-24")]


# --- who may act --------------------------------------------------------------------------


def require_pc(character: Snapshot, rule: str, what: str) -> None:
    if character.kind != "pc":
        raise refusal(rule, f"{what} belongs to player characters, not NPCs")


def playable(table: Table, character: AnyJdrCharacter) -> AnyJdrCharacter:
    """JDR-42: a PC past five counted marks is the GM's now."""
    if not table.is_gm and character.sheet.status == "npc":
        raise refusal(
            "JDR-42",
            f"{character.name} bears more than five counted marks and has become an NPC; "
            "only the GM plays them now",
        )
    return character


def destroyed(name: str) -> RuleRefusal:
    """JDR-36: what was staked in its sleep acts no more, and is no target."""
    return refusal("JDR-36", f"{name} was destroyed for good")


# --- words --------------------------------------------------------------------------------


def dice_words(roll: JdrRoll, bonus: int, language: Language) -> str:
    """« 2D6+3 : 4, 5 » / "2d6+3: 4, 5"; a die left aside shows in brackets."""
    d = "D" if language == "fr" else "d"
    if roll.mode == "normal":
        notation = f"2{d}6"
    else:
        notation = f"3{d}6k{'h' if roll.mode == 'advantage' else 'l'}2"
    if bonus:
        notation += f"{bonus:+d}"
    faces = ", ".join(
        str(face) if keep else f"[{face}]" for face, keep in zip(roll.dice, roll.kept, strict=True)
    )
    return f"{notation} : {faces}" if language == "fr" else f"{notation}: {faces}"
