"""Fabulae Tenebris character sheet (FAB-1..6, FAB-75, FAB-76) and campaign options."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, ValidationInfo, model_validator

from app.engine.fabulae.tables import (
    ARMORS,
    ATTRIBUTES,
    EXTRA_BOX,
    MENTAL_SEQUELAE,
    PHYSICAL_SEQUELAE,
    POWERS,
    SKILL_BASE,
    WEAPONS,
    ArmorId,
    StateId,
    TalentId,
    WeaponId,
)
from app.engine.sheets import StrictModel

AttributeValue = Annotated[int, Field(ge=0, le=6, description="FAB-1: 0..6 (2..5 at creation)")]
SkillValue = Annotated[int, Field(ge=0, le=5, description="FAB-3: 0..5 (0..3 at creation)")]

CREATION_ATTRIBUTE_POINTS = 12
CREATION_SKILL_POINTS = 10


def _known_power(value: str) -> str:
    if value not in POWERS:
        raise ValueError(f"unknown power '{value}' (FAB-101 lists the power ids)")
    return value


PowerId = Annotated[
    str,
    Field(json_schema_extra={"enum": list(POWERS)}),
    AfterValidator(_known_power),
]


class Attributes(StrictModel):
    """FAB-1: the four attributes."""

    physique: AttributeValue
    habilete: AttributeValue
    intellect: AttributeValue
    empathie: AttributeValue


class Skills(StrictModel):
    """FAB-2/FAB-3: the twelve skills; an omitted skill is 0."""

    athletisme: SkillValue = 0
    combat: SkillValue = 0
    resistance: SkillValue = 0
    furtivite: SkillValue = 0
    dexterite: SkillValue = 0
    tir: SkillValue = 0
    bricolage: SkillValue = 0
    connaissance: SkillValue = 0
    observation: SkillValue = 0
    mentir_convaincre: SkillValue = 0
    performance: SkillValue = 0
    soin: SkillValue = 0


class ArmorWorn(StrictModel):
    """FAB-72/FAB-67: the armor worn and its current protection value (degrades, repaired)."""

    id: ArmorId
    value: int = Field(ge=0, le=4)

    @model_validator(mode="after")
    def _not_above_base(self) -> ArmorWorn:
        base = ARMORS[self.id].value
        if self.value > base:
            raise ValueError(f"armor '{self.id}' has a base value of {base}, got {self.value}")
        return self


class WeaponCarried(StrictModel):
    """FAB-71: a weapon and, for firearms and crossbows, the ammunition loaded."""

    id: WeaponId
    ammo: int | None = Field(default=None, ge=0, le=20)

    @model_validator(mode="after")
    def _ammo_fits(self) -> WeaponCarried:
        capacity = WEAPONS[self.id].ammo
        if capacity is None and self.ammo is not None:
            raise ValueError(f"weapon '{self.id}' takes no ammunition")
        if capacity is not None:
            if self.ammo is None:
                self.ammo = capacity
            elif self.ammo > capacity:
                raise ValueError(f"weapon '{self.id}' holds at most {capacity} rounds")
        return self


class Item(StrictModel):
    """FAB-75/FAB-76: an inventory line; tiny items weigh nothing."""

    name: str = Field(min_length=1, max_length=80)
    count: int = Field(default=1, ge=1, le=99)
    tiny: bool = False


class Sequela(StrictModel):
    """FAB-50/FAB-55: a sequela the character carries."""

    kind: Literal["physical", "mental"]
    code: str = Field(min_length=1, max_length=40)
    duration: str | None = Field(default=None, max_length=60)
    lethal: bool = Field(default=False, description="FAB-51: calls for death tests")
    delay: Literal["immediate", "round", "tour", "quart"] | None = None
    stabilised: bool = False
    note: str = Field(default="", max_length=200)

    @model_validator(mode="after")
    def _known_code(self) -> Sequela:
        table = PHYSICAL_SEQUELAE if self.kind == "physical" else MENTAL_SEQUELAE
        if self.code not in table:
            raise ValueError(f"unknown {self.kind} sequela '{self.code}' (FAB-50/FAB-55)")
        return self


class ActiveEffect(StrictModel):
    """FAB-102: a power's numeric effect on its bearer, until the GM ends it or the scene ends."""

    source: str = Field(min_length=1, max_length=40, description="the power id")
    caster_id: str | None = Field(default=None, max_length=36)
    scene: int = Field(default=0, ge=0, le=1_000_000)
    armor: int = Field(default=0, ge=-10, le=10, description="extra protection dice")
    attacks_against: int = Field(
        default=0, ge=-10, le=10, description="dice to Combat and Tir attacks on the bearer"
    )
    all_rolls: int = Field(default=0, ge=-10, le=10, description="dice to every action roll")
    skills: dict[str, int] = Field(default_factory=dict, max_length=12)
    attributes: dict[str, int] = Field(default_factory=dict, max_length=4)
    melee_damage: int = Field(default=0, ge=-5, le=5)
    net_damage: int = Field(default=0, ge=-5, le=5)
    note: str = Field(default="", max_length=200)


class FabulaeSheet(StrictModel):
    """FAB-1..6: a Fabulae Tenebris character."""

    attributes: Attributes
    skills: Skills = Field(default_factory=Skills)
    talents: list[TalentId] = Field(default_factory=list, max_length=30)
    extra_box_track: Literal["physical", "mental"] | None = Field(
        default=None, description="FAB-22: the track that talent extra_box extends"
    )
    powers: list[PowerId] = Field(default_factory=list, max_length=45)
    pp: int = Field(default=0, ge=0, le=50, description="FAB-5: current Power Points")
    pp_max: int = Field(default=0, ge=0, le=50, description="FAB-5: set by the GM")
    destiny: int = Field(default=3, ge=0, le=99, description="FAB-30")
    stress: int = Field(default=0, ge=0, le=99, description="FAB-40")
    states: list[StateId] = Field(default_factory=list, max_length=8, description="FAB-20")
    broken: bool = Field(default=False, description="FAB-23")
    dead: bool = Field(default=False, description="FAB-50/51: a failed death test, a crushed skull")
    creature: bool = Field(
        default=False, description="not human (a summoned servant, a beast): FAB-90 butcher"
    )
    grappled_by: str | None = Field(
        default=None, max_length=36, description="FAB-63: the character holding this one"
    )
    active_effects: list[ActiveEffect] = Field(default_factory=list, max_length=30)
    second_wind_session: int | None = Field(
        default=None, ge=0, le=1_000_000, description="FAB-90 second_wind: session last used"
    )
    broken_track: Literal["physical", "mental"] | None = Field(
        default=None, description="FAB-23: the track whose full boxes broke the character"
    )
    expert_session: int | None = Field(
        default=None, ge=0, le=1_000_000, description="FAB-90 expert: session it was last used"
    )
    sequelae: list[Sequela] = Field(default_factory=list, max_length=30)
    armor: ArmorWorn | None = None
    weapons: list[WeaponCarried] = Field(default_factory=list, max_length=10)
    inventory: list[Item] = Field(default_factory=list, max_length=100)
    backpack: bool = Field(default=False, description="FAB-75: doubles the carrying capacity")
    crowns: int = Field(default=0, ge=0, le=100, description="FAB-76: the purse holds 100 at most")

    @model_validator(mode="after")
    def _rules(self, info: ValidationInfo) -> FabulaeSheet:
        context: dict[str, Any] = info.context or {}
        problems: list[str] = []
        if len(set(self.talents)) != len(self.talents):
            problems.append("talents are listed more than once")
        if len(set(self.powers)) != len(self.powers):
            problems.append("powers are listed more than once")
        if len(set(self.states)) != len(self.states):
            problems.append("states are listed more than once")
        if ("extra_box" in self.talents) != (self.extra_box_track is not None):
            problems.append(
                "extra_box_track must be set exactly when the talent extra_box is taken"
            )
        for track, box in EXTRA_BOX.items():
            if box in self.states and self.extra_box_track != track:
                problems.append(f"state '{box}' needs the talent extra_box on the {track} track")
        if self.pp > self.pp_max:
            problems.append(f"pp ({self.pp}) cannot exceed pp_max ({self.pp_max})")
        if self.powers and not context.get("options", {}).get("powers_allowed", False):
            problems.append("this campaign does not allow powers (campaign option powers_allowed)")
        capacity = 2 * self.attributes.physique * (2 if self.backpack else 1)
        carried = sum(item.count for item in self.inventory if not item.tiny)
        if carried > capacity:
            problems.append(
                f"FAB-75: carrying {carried} items, capacity is {capacity} "
                "(2 × Physique, doubled by a backpack)"
            )
        if context.get("creating") and context.get("kind") == "pc":
            problems.extend(self._creation_problems())
        if problems:
            raise ValueError("; ".join(problems))
        return self

    def _creation_problems(self) -> list[str]:
        """FAB-1/FAB-3/FAB-5: the creation budget of a player character."""
        problems: list[str] = []
        attributes = [getattr(self.attributes, name) for name in ATTRIBUTES]
        if sum(attributes) != CREATION_ATTRIBUTE_POINTS:
            problems.append(
                f"FAB-1: attributes must total {CREATION_ATTRIBUTE_POINTS} points at creation, "
                f"got {sum(attributes)}"
            )
        for attribute in ATTRIBUTES:
            value = getattr(self.attributes, attribute)
            if not 2 <= value <= 5:
                problems.append(
                    f"FAB-1: attribute {attribute} must be 2..5 at creation, got {value}"
                )
        skills = {skill: getattr(self.skills, skill) for skill in SKILL_BASE}
        if sum(skills.values()) != CREATION_SKILL_POINTS:
            problems.append(
                f"FAB-3: skills must total {CREATION_SKILL_POINTS} points at creation, "
                f"got {sum(skills.values())}"
            )
        for name, value in skills.items():
            if value > 3:
                problems.append(f"FAB-3: skill {name} must be 0..3 at creation, got {value}")
        if len(self.talents) != 1:
            problems.append(
                f"FAB-5: a new character takes exactly one starting talent, got {len(self.talents)}"
            )
        return problems


class FabulaeOptions(StrictModel):
    """Campaign options of Fabulae Tenebris."""

    powers_allowed: bool = Field(default=False, description="FAB-100: powers may be taken")


FABULAE_PROTECTED = frozenset(
    {
        "destiny",
        "stress",
        "states",
        "broken",
        "broken_track",
        "sequelae",
        "pp",
        "pp_max",
        "armor",
        "weapons",
        "expert_session",
        "dead",
        "grappled_by",
        "active_effects",
        "second_wind_session",
    }
)
