"""JDR Express character sheets (JDR-1..7) and campaign options."""

from __future__ import annotations

import uuid
from typing import Annotated, Literal

from pydantic import Field

from app.engine.sheets import StrictModel

TraitValue = Annotated[int, Field(ge=0, le=5, description="JDR-1: 0..5")]
TraitName = Literal["mental", "physique", "social"]
CreatureTag = Literal["vampire", "undead", "werewolf", "possessed", "creature"]
ReadyOrSpent = Literal["ready", "spent"]


class Traits(StrictModel):
    """JDR-1: the three traits."""

    mental: TraitValue
    physique: TraitValue
    social: TraitValue


class Talent(StrictModel):
    """JDR-1: a talent adds its bonus (1..3) to the rolls it applies to."""

    name: str = Field(min_length=1, max_length=60)
    bonus: int = Field(ge=1, le=3)


class Wound(StrictModel):
    """JDR-3/JDR-33: a wound; a serious one gives Disadvantage until medical care is recorded."""

    severity: Literal["light", "serious", "critical"]
    note: str = Field(default="", max_length=200)
    cared: bool = Field(default=False, description="JDR-3: medical care recorded by the GM")


class Mark(StrictModel):
    """JDR-5 [C]: a durable mark; counted marks bring a PC closer to madness (JDR-42)."""

    description: str = Field(min_length=1, max_length=200)
    counted: bool
    scene: int = Field(ge=0, le=1_000_000, description="scene number when the mark was taken")


class FaithShaken(StrictModel):
    """JDR-24: a cracked talisman burdens the next supernatural confrontation.

    A confrontation is a scene: the first scene after the crack in which the PC makes a
    protection or attack roll against the supernatural is that confrontation.
    """

    cracked_scene: int = Field(ge=0, le=1_000_000)
    confrontation_scene: int | None = Field(default=None, ge=0, le=1_000_000)


class JdrSheetBase(StrictModel):
    """JDR-1..3, JDR-6, JDR-7, JDR-38: what both settings share."""

    traits: Traits
    talents: list[Talent] = Field(default_factory=list, max_length=20)
    defense_bonus: int = Field(default=0, ge=0, le=5, description="JDR-2: equipment bonus")
    wounds: list[Wound] = Field(default_factory=list, max_length=50)
    joker: ReadyOrSpent = Field(default="ready", description="JDR-6")
    status: Literal["active", "npc"] = Field(default="active", description="JDR-7")
    tags: list[CreatureTag] = Field(
        default_factory=list, max_length=5, description="JDR-38: creature tags weapons react to"
    )
    destroyed: bool = Field(
        default=False, description="JDR-36: a vampire staked in its sleep is destroyed for good"
    )


class JdrDraculaSheet(JdrSheetBase):
    """JDR-4 [D]: faith and the Talisman."""

    faith: Literal["believer", "atheist"] = "believer"
    sacred_object: str | None = Field(default=None, max_length=200)
    sacred_object_scene: int | None = Field(
        default=None,
        ge=0,
        le=1_000_000,
        description="JDR-22: scene in which the sacred object was established (set by the service)",
    )
    talisman: Literal["ready", "spent", "cracked"] = "ready"
    instructed_by: uuid.UUID | None = Field(
        default=None, description="JDR-23: believing PC who instructed this atheist"
    )
    faith_shaken: FaithShaken | None = Field(
        default=None, description="JDR-24: set when the talisman cracks, cleared by penance"
    )
    talisman_scene: int | None = Field(
        default=None, ge=0, le=1_000_000, description="JDR-20: scene of the last invocation"
    )


class JdrCthulhuSheet(JdrSheetBase):
    """JDR-5 [C]: marks and the Effleurement."""

    marks: list[Mark] = Field(default_factory=list, max_length=50)
    effleurement: ReadyOrSpent = "ready"
    effleurement_scene: int | None = Field(
        default=None, ge=0, le=1_000_000, description="JDR-28: scene of the last Effleurement"
    )


class JdrOptions(StrictModel):
    """JDR Express campaigns have no options yet."""


JDR_PROTECTED = frozenset({"joker", "status", "wounds", "destroyed"})
DRACULA_PROTECTED = JDR_PROTECTED | {
    "faith",
    "talisman",
    "instructed_by",
    "faith_shaken",
    "talisman_scene",
}
# Chosen by the player when the character is created, then changed only by the GM.
DRACULA_CREATION_CHOICES = frozenset({"faith"})
CTHULHU_PROTECTED = JDR_PROTECTED | {"marks", "effleurement", "effleurement_scene"}
