"""JDR Express character sheets (JDR-1..7) and campaign options."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Annotated, Any, Literal, TypeVar

from pydantic import ConfigDict, Field, JsonValue

from app.engine.contract import Model, Snapshot, Table, TableOptions
from app.engine.errors import InvalidInput
from app.engine.rulesets.jdr.gear import CthulhuCarried, CustomItem, DraculaCarried
from app.engine.rulesets.jdr.labels import (
    CREATURE_TAGS,
    FAITHS,
    READINESS,
    SEVERITIES,
    STATUSES,
    TALISMAN_STATES,
    TRAITS,
)
from app.engine.sheets import Sheet, enum_labels, managed

TraitValue = Annotated[int, Field(ge=0, le=5, description="JDR-1: 0..5")]
TraitName = Annotated[
    Literal["mental", "physique", "social"], Field(json_schema_extra=enum_labels(TRAITS))
]
CreatureTag = Annotated[
    Literal["vampire", "undead", "werewolf", "possessed", "creature"],
    Field(json_schema_extra=enum_labels(CREATURE_TAGS)),
]
ReadyOrSpent = Literal["ready", "spent"]


class Traits(Model):
    """JDR-1: the three traits."""

    mental: TraitValue = Field(title="Mental")
    physique: TraitValue = Field(title="Physique")
    social: TraitValue = Field(title="Social")


class Talent(Model):
    """JDR-1: a talent adds its bonus (1..3) to the rolls it applies to."""

    name: str = Field(min_length=1, max_length=60, title="Name")
    bonus: int = Field(ge=1, le=3, title="Bonus", description="Added to the roll (JDR-10)")


class Wound(Model):
    """JDR-3/JDR-33: a wound; a serious one gives Disadvantage until medical care is recorded."""

    severity: Literal["light", "serious", "critical"] = Field(
        title="Severity",
        description="Read on the attack's margin (JDR-33)",
        json_schema_extra=enum_labels(SEVERITIES),
    )
    note: str = Field(
        default="",
        max_length=200,
        title="Note",
        description="What dealt it; for a critical wound, the GM adds the lasting loss it "
        "caused (an arm, an eye, a foot), which care does not give back (JDR-33)",
    )
    cared: bool = Field(
        default=False, title="Cared for", description="Medical care recorded by the GM (JDR-3)"
    )


class Mark(Model):
    """JDR-5 [C]: a durable mark; counted marks bring a PC closer to madness (JDR-42)."""

    description: str = Field(min_length=1, max_length=200, title="Description")
    counted: bool = Field(
        title="Counted", description="Counts toward the five that make a PC an NPC (JDR-42)"
    )
    scene: int = Field(
        ge=0, le=1_000_000, title="Scene", description="The scene the mark was taken in (JDR-5)"
    )


class FaithShaken(Model):
    """JDR-24: a cracked talisman burdens the next supernatural confrontation.

    A confrontation is a scene: the first scene after the crack in which the PC makes a
    protection or attack roll against the supernatural is that confrontation.
    """

    cracked_scene: int = Field(
        ge=0, le=1_000_000, title="Scene of the crack", description="(JDR-21)"
    )
    confrontation_scene: int | None = Field(
        default=None,
        ge=0,
        le=1_000_000,
        title="Scene of the confrontation",
        description="The supernatural confrontation the Disadvantage burdens (JDR-24)",
    )


class JdrSheetBase(Sheet):
    """JDR-1..3, JDR-6, JDR-7, JDR-38: what both settings share."""

    traits: Traits = Field(title="Traits", description="Mental, physique and social (JDR-1)")
    talents: list[Talent] = Field(
        default_factory=list,
        max_length=20,
        title="Talents",
        description="What the character is good at, each with the bonus it adds (JDR-1)",
    )
    defense_bonus: int = managed(
        0,
        ge=0,
        le=5,
        title="Defense bonus",
        description="The protection of the equipment the GM grants (JDR-2); a player does not "
        "declare it, as they do not declare a weapon's values (JDR-32, corrected)",
    )
    wounds: list[Wound] = managed(
        default_factory=list,
        max_length=50,
        title="Wounds",
        description="Added by attacks (JDR-33); a serious one burdens every roll (JDR-3)",
    )
    joker: ReadyOrSpent = managed(
        "ready",
        title="Joker",
        description="Rerolls one roll of direct peril per session (JDR-6, JDR-25)",
        json_schema_extra=enum_labels(READINESS),
    )
    status: Literal["active", "npc"] = managed(
        "active",
        title="Status",
        description="An NPC is the GM's to play (JDR-7, JDR-42)",
        json_schema_extra=enum_labels(STATUSES),
    )
    tags: list[CreatureTag] = Field(
        default_factory=list,
        max_length=5,
        title="Creature tags",
        description="What the weapons react to (JDR-38)",
    )
    destroyed: bool = managed(
        False,
        title="Destroyed",
        description="A vampire staked in its sleep is destroyed for good (JDR-36)",
    )
    custom_items: list[CustomItem] = managed(
        default_factory=list,
        max_length=20,
        title="The GM's items",
        description="Weapons the GM added with their own values (JDR-32, corrected)",
    )


class JdrDraculaSheet(JdrSheetBase):
    """JDR-4 [D]: faith and the Talisman."""

    weapons: list[DraculaCarried] = Field(
        default_factory=list,
        max_length=10,
        title="Weapons",
        description="What the character carries, from the setting's weapons (JDR-32, JDR-36, "
        "JDR-37); an attack names one",
    )
    faith: Literal["believer", "atheist"] = managed(
        "believer",
        title="Faith",
        description="Chosen at creation, then the GM's (JDR-4)",
        json_schema_extra=enum_labels(FAITHS),
    )
    sacred_object: str | None = Field(
        default=None,
        max_length=200,
        title="Sacred object",
        description="Needed, from an earlier scene, to invoke the Talisman (JDR-4, JDR-22)",
    )
    sacred_object_from_creation: bool = Field(
        default=False,
        title="Sacred object from creation",
        description="Listed when the character was created: established from its first "
        "scene (JDR-22, corrected); set by the rules",
    )
    sacred_object_scene: int | None = Field(
        default=None,
        ge=0,
        le=1_000_000,
        title="Scene of the sacred object",
        description="The scene the sacred object was established in; set by the rules (JDR-22)",
    )
    talisman: Literal["ready", "spent", "cracked"] = managed(
        "ready",
        title="Talisman",
        description="Spent by a sincere invocation, cracked by hollow words (JDR-21)",
        json_schema_extra=enum_labels(TALISMAN_STATES),
    )
    instructed_by: uuid.UUID | None = managed(
        None,
        title="Instructed by",
        description="The believing PC who instructed this atheist (JDR-23)",
    )
    faith_shaken: FaithShaken | None = managed(
        None,
        title="Shaken faith",
        description="Set when the talisman cracks, cleared by penance (JDR-24)",
    )
    talisman_scene: int | None = managed(
        None,
        ge=0,
        le=1_000_000,
        title="Scene of the last invocation",
        description="The Talisman works once per scene (JDR-20)",
    )


class JdrCthulhuSheet(JdrSheetBase):
    """JDR-5 [C]: marks and the Effleurement."""

    weapons: list[CthulhuCarried] = Field(
        default_factory=list,
        max_length=10,
        title="Weapons",
        description="What the character carries, from the setting's weapons (JDR-32); an "
        "attack names one",
    )
    marks: list[Mark] = managed(
        default_factory=list,
        max_length=50,
        title="Marks",
        description="Durable marks; more than five counted ones make an NPC (JDR-5, JDR-42)",
    )
    effleurement: ReadyOrSpent = managed(
        "ready",
        title="Effleurement",
        description="Spent for a success at the price of a mark (JDR-28, JDR-29a)",
        json_schema_extra=enum_labels(READINESS),
    )
    effleurement_scene: int | None = managed(
        None,
        ge=0,
        le=1_000_000,
        title="Scene of the last Effleurement",
        description="The Effleurement works once per scene (JDR-28)",
    )


class JdrOptions(TableOptions):
    """JDR Express campaigns have the options every ruleset has."""


# Chosen by the player when the character is created, then changed only by the GM.
DRACULA_CREATION_CHOICES = frozenset({"faith"})


class JdrCharacter(Snapshot):
    """A JDR Express character as a rule read it (either setting)."""

    sheet: JdrDraculaSheet | JdrCthulhuSheet


class JdrDraculaCharacter(Snapshot):
    """A character of the Dracula setting, as a setting rule read it."""

    sheet: JdrDraculaSheet


class JdrCthulhuCharacter(Snapshot):
    """A character of the Cthulhu setting, as a setting rule read it."""

    sheet: JdrCthulhuSheet


# A snapshot of either setting, or of one of them: what the shared checks read.
AnyJdrCharacter = TypeVar("AnyJdrCharacter", JdrCharacter, JdrDraculaCharacter, JdrCthulhuCharacter)


def on_sheet_edit(
    before: Mapping[str, Any] | None, after: dict[str, Any], scene: int
) -> dict[str, Any]:
    """JDR-22: the scene a sacred object was established in is the rules' to record.

    Whatever the edit sent for it, it is the current scene when the object changes and
    stays as it was otherwise, so nobody can backdate an object into an earlier scene; and
    only an object listed when the character is created counts from its first scene.
    """
    if "sacred_object" not in after:
        after.pop("sacred_object_from_creation", None)  # only the rules set it
        return after
    obj = after["sacred_object"]
    if before is None or before.get("sacred_object") != obj:
        after["sacred_object_scene"] = scene if obj else None
        # JDR-22 (corrected): listed at creation, it is established from the first scene.
        after["sacred_object_from_creation"] = before is None and bool(obj)
    else:
        after["sacred_object_scene"] = before.get("sacred_object_scene")
        after["sacred_object_from_creation"] = before.get("sacred_object_from_creation", False)
    return after


class _Instructor(Snapshot):
    model_config = ConfigDict(extra="ignore")

    sheet: dict[str, JsonValue]


def check_instructor(
    table: Table,
    character_id: str | None,
    before: Mapping[str, JsonValue] | None,
    sheet: Mapping[str, JsonValue],
) -> None:
    """JDR-23: an atheist is instructed by another believing PC of the same campaign
    (checked when the instructor is named or changed)."""
    instructor_id = sheet.get("instructed_by")
    if instructor_id is None or (
        before is not None and before.get("instructed_by") == instructor_id
    ):
        return
    wrong = InvalidInput(
        "JDR-23: instructed_by must name another believing PC of this campaign", rule="JDR-23"
    )
    instructor = table.find(str(instructor_id), _Instructor)
    if (
        instructor is None
        or instructor.kind != "pc"
        or instructor.id == character_id
        or instructor.sheet.get("faith") != "believer"
    ):
        raise wrong
