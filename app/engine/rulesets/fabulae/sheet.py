"""Fabulae Tenebris character sheet (FAB-1..6, FAB-75, FAB-76) and campaign options."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Annotated, Any, Final, Literal

from pydantic import (
    AfterValidator,
    Field,
    JsonValue,
    ValidationInfo,
    WithJsonSchema,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from app.engine.contract import Snapshot, TableOptions
from app.engine.rulesets.fabulae.labels import DANGERS, STATES, TRACKS
from app.engine.rulesets.fabulae.labels import POWERS as POWER_LABELS
from app.engine.rulesets.fabulae.labels import TALENTS as TALENT_LABELS
from app.engine.rulesets.fabulae.tables import (
    ARMORS,
    ATTRIBUTES,
    EXTRA_BOX,
    MENTAL_SEQUELAE,
    PHYSICAL_SEQUELAE,
    POWERS,
    SKILL_BASE,
    WEAPONS,
    StateId,
    TalentId,
    Weapon,
)
from app.engine.sheets import Sheet, StrictModel, editing, enum_labels, managed

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


class FabulaeAttributes(StrictModel):
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


# FAB-71/FAB-72 outside the catalog (issue 18): the names of the GM's weapons and armors,
# which an edit's validation context carries to the entries that name them.
GRANTED_WEAPONS: Final = "custom_weapons"
GRANTED_ARMORS: Final = "custom_armors"
GrantedName = Annotated[str, Field(min_length=1, max_length=40)]


def _catalog_or_granted(
    catalog: Mapping[str, object], granted: str, what: str
) -> Callable[[str, ValidationInfo], str]:
    """An id from the catalog or, on an edit, the name of one of the sheet's `granted`
    entries (a sheet read back from storage is taken as stored)."""
    expected = ", ".join(f"'{key}'" for key in catalog)

    def check(value: str, info: ValidationInfo) -> str:
        context = info.context if isinstance(info.context, dict) else {}
        if value in catalog or not editing(info) or value in context.get(granted, ()):
            return value
        raise PydanticCustomError(
            "literal_error",
            "Input should be one of {expected}; any other {what} is the GM's to add, with "
            "its own values ({granted})",
            {"expected": expected, "what": what, "granted": granted},
        )

    return check


def _ref_schema(catalog: Mapping[str, object], granted: str, what: str) -> dict[str, Any]:
    return {
        "anyOf": [
            {"type": "string", "enum": list(catalog)},
            {"type": "string", "minLength": 1, "maxLength": 40},
        ],
        "description": f"a catalog {what} id, or the name of one of the GM's in {granted}",
    }


WeaponRef = Annotated[
    str,
    Field(min_length=1, max_length=40),
    AfterValidator(_catalog_or_granted(WEAPONS, GRANTED_WEAPONS, "weapon")),
    WithJsonSchema(_ref_schema(WEAPONS, GRANTED_WEAPONS, "weapon")),
]
ArmorRef = Annotated[
    str,
    Field(min_length=1, max_length=40),
    AfterValidator(_catalog_or_granted(ARMORS, GRANTED_ARMORS, "armor")),
    WithJsonSchema(_ref_schema(ARMORS, GRANTED_ARMORS, "armor")),
]


def _catalog_value(data: dict[str, Any]) -> int:
    """FAB-72: a catalog armor starts at its base value (the GM's: set by the sheet)."""
    armor = ARMORS.get(str(data.get("id")))
    return armor.value if armor else 0


def _load(weapon: WeaponCarried, capacity: int | None) -> str | None:
    """FAB-71: a gun whose rounds are left out starts loaded to its capacity; the problem,
    if it holds more than its capacity, or holds rounds without taking any."""
    if capacity is None and weapon.ammo is not None:
        return f"weapon '{weapon.id}' takes no ammunition"
    if capacity is not None:
        if weapon.ammo is None:
            weapon.ammo = capacity
        elif weapon.ammo > capacity:
            return f"weapon '{weapon.id}' holds at most {capacity} rounds"
    return None


class ArmorWorn(StrictModel):
    """FAB-72/FAB-67: the armor worn and its current protection value (degrades, repaired):
    a catalog armor, or one the GM added to `custom_armors`, by its name."""

    id: ArmorRef
    value: int = Field(
        default_factory=_catalog_value,
        ge=0,
        le=6,
        description="the current protection; left out, the armor's base value",
    )

    @model_validator(mode="after")
    def _not_above_base(self) -> ArmorWorn:
        if self.id not in ARMORS:
            return self  # the GM's armor: the sheet checks it against its custom_armors
        base = ARMORS[self.id].value
        if self.value > base:
            raise ValueError(f"armor '{self.id}' has a base value of {base}, got {self.value}")
        return self


class WeaponCarried(StrictModel):
    """FAB-71: a weapon (a catalog id, or the name of one of the GM's `custom_weapons`) and,
    for firearms and crossbows, the ammunition loaded."""

    id: WeaponRef
    ammo: int | None = Field(default=None, ge=0, le=20)

    @model_validator(mode="after")
    def _ammo_fits(self) -> WeaponCarried:
        if self.id not in WEAPONS:
            return self  # the GM's weapon: the sheet loads it from its custom_weapons
        problem = _load(self, WEAPONS[self.id].ammo)
        if problem:
            raise ValueError(problem)
        return self


class CustomWeapon(StrictModel):
    """FAB-71 outside the catalog: a weapon the GM adds with its own values. The sheet's
    `weapons` carry it (and its rounds) by its name; an attack names it so."""

    name: GrantedName = Field(
        title="Name", description="What the sheet's weapons and an attack call it"
    )
    roll_bonus: int = Field(
        default=0, ge=-3, le=5, title="Roll bonus", description="Dice added to the attack"
    )
    damage: int = Field(
        default=1, ge=1, le=6, title="Damage", description="Base damage before the feats"
    )
    burst: bool = Field(default=False, title="Burst", description="Fires in bursts (FAB-65)")
    range: Literal["contact", "short", "medium", "long", "extreme"] = Field(
        default="contact", title="Range", description="The farthest range column it reaches"
    )
    hands: int = Field(
        default=1,
        ge=1,
        le=2,
        title="Hands",
        description="One-handed guns reload in a fast action, others in a slow one",
    )
    sequela_mod: int = Field(
        default=0, ge=0, le=5, title="Sequela modifier", description="Added to sequela scores"
    )
    ammo: int | None = Field(
        default=None,
        ge=1,
        le=20,
        title="Capacity",
        description="The rounds it holds; left out, a melee weapon",
    )
    blunt: bool = Field(default=False, title="Blunt", description="Counts for the talent cogneur")

    @model_validator(mode="after")
    def _a_burst_fires_rounds(self) -> CustomWeapon:
        if self.burst and self.ammo is None:
            raise ValueError("a weapon that fires in bursts holds rounds (FAB-65): give its ammo")
        return self

    def weapon(self) -> Weapon:
        """The row the rules read, as the catalog's (FAB-71)."""
        return Weapon(
            id=self.name,
            label=self.name,
            roll_bonus=self.roll_bonus,
            damage=self.damage,
            burst=self.burst,
            range=self.range,
            hands=self.hands,
            sequela_mod=self.sequela_mod,
            ammo=self.ammo,
            blunt=self.blunt,
        )


class CustomArmor(StrictModel):
    """FAB-72 outside the catalog: armor the GM adds with its own protection value."""

    name: GrantedName = Field(title="Name", description="What the sheet's armor calls it")
    value: int = Field(
        ge=1, le=6, title="Armor value", description="Its protection dice when whole (FAB-67)"
    )


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


EFFECT_DICE_LIMIT = 10  # as all_rolls and attacks_against: FAB-102's modifiers are ±1 to ±3
_EFFECT_DICE: dict[str, JsonValue] = {
    "type": "integer",
    "minimum": -EFFECT_DICE_LIMIT,
    "maximum": EFFECT_DICE_LIMIT,
}


class ActiveEffect(StrictModel):
    """FAB-102: a power's numeric effect on its bearer, until the GM ends it or the scene ends."""

    # A power id, not free text: rolls show it as the source of the dice it adds, and an
    # NPC's sheet must not reach the players through them (FAIR-18). Checked on edits only:
    # a sheet stored before, in a character or an entry's request, still reads and replays.
    source: str = Field(
        min_length=1,
        max_length=40,
        description="the power id (FAB-101)",
        json_schema_extra={"enum": list(POWERS)},
    )
    caster_id: str | None = Field(default=None, max_length=36)
    scene: int = Field(default=0, ge=0, le=1_000_000)
    armor: int = Field(default=0, ge=-10, le=10, description="extra protection dice")
    attacks_against: int = Field(
        default=0, ge=-10, le=10, description="dice to Combat and Tir attacks on the bearer"
    )
    all_rolls: int = Field(default=0, ge=-10, le=10, description="dice to every action roll")
    skills: dict[str, int] = Field(
        default_factory=dict,
        max_length=12,
        description="dice to these skills' rolls",
        json_schema_extra={"additionalProperties": _EFFECT_DICE},
    )
    attributes: dict[str, int] = Field(
        default_factory=dict,
        max_length=4,
        description="dice to these attributes' rolls",
        json_schema_extra={"additionalProperties": _EFFECT_DICE},
    )
    melee_damage: int = Field(default=0, ge=-5, le=5)
    net_damage: int = Field(default=0, ge=-5, le=5)
    note: str = Field(default="", max_length=200)

    @field_validator("source")
    @classmethod
    def _a_power_when_edited(cls, value: str, info: ValidationInfo) -> str:
        if editing(info):
            return _known_power(value)
        return value

    @field_validator("skills", "attributes")
    @classmethod
    def _dice_within_bounds_when_edited(
        cls, value: dict[str, int], info: ValidationInfo
    ) -> dict[str, int]:
        # Checked on edits, as `source` is: a pool of 200,000 dice made odds run for hours.
        limit = EFFECT_DICE_LIMIT
        if editing(info):
            for name, dice in value.items():
                if not -limit <= dice <= limit:
                    raise ValueError(
                        f"an active effect gives {name} between -{limit} and {limit} dice, "
                        f"not {dice} (FAB-102)"
                    )
        return value


class FabulaeSheet(Sheet):
    """A Fabulae Tenebris character (FAB-1..6)."""

    attributes: FabulaeAttributes = Field(
        title="Attributes", description="The four attributes, 0 to 6 (FAB-1)"
    )
    skills: Skills = Field(
        default_factory=Skills,
        title="Skills",
        description="The twelve skills, 0 to 5; an omitted skill is 0 (FAB-2, FAB-3)",
    )
    talents: list[TalentId] = Field(
        default_factory=list,
        max_length=30,
        title="Talents",
        description="Talents taken; at creation a talent, a power or both (FAB-5, FAB-90)",
        json_schema_extra=enum_labels(TALENT_LABELS),
    )
    extra_box_track: Literal["physical", "mental"] | None = Field(
        default=None,
        title="Track of the extra box",
        description="The track the talent extra_box lengthens by one box (FAB-22)",
        json_schema_extra=enum_labels(TRACKS),
    )
    powers: list[PowerId] = Field(
        default_factory=list,
        max_length=45,
        title="Powers",
        description="Powers known, where the campaign allows them (FAB-100, FAB-101)",
        json_schema_extra=enum_labels(POWER_LABELS),
    )
    pp: int = managed(
        0, ge=0, le=50, title="Power Points", description="Spent to use a power (FAB-5, FAB-100)"
    )
    pp_max: int = managed(
        0, ge=0, le=50, title="Power Points maximum", description="Set by the GM (FAB-5)"
    )
    destiny: int = managed(
        3,
        ge=0,
        le=99,
        title="Destiny",
        description="Spent to push a roll or absorb a state; the GM awards more (FAB-30, FAB-31)",
    )
    stress: int = managed(
        0,
        ge=0,
        le=99,
        title="Stress",
        description="One stress die per point on every roll; a 1 on one is Panic (FAB-40..42)",
    )
    states: list[StateId] = managed(
        default_factory=list,
        max_length=8,
        title="States",
        description="States checked on the physical and mental tracks (FAB-20..22)",
        json_schema_extra=enum_labels(STATES),
    )
    states_pending: int = managed(
        0,
        ge=0,
        le=99,
        title="States pending",
        description="States about to be checked that the player accepts or absorbs (FAB-34); "
        "an encounter lists the entries that hold them",
    )
    broken: bool = managed(
        False, title="Broken", description="Every box of a track checked (FAB-23)"
    )
    dead: bool = managed(
        False,
        title="Dead",
        description="A failed death test or a mortal sequela (FAB-50, FAB-51)",
    )
    creature: bool = Field(
        default=False,
        title="Creature",
        description="Not human: a summoned servant, a beast (the talent butcher, FAB-90)",
    )
    grappled_by: str | None = managed(
        None,
        max_length=36,
        title="Held by",
        description="The character holding this one in a grapple (FAB-63)",
    )
    deprived: list[Literal["hunger", "sleep"]] = managed(
        default_factory=list,
        max_length=2,
        title="Deprived of",
        description="« Faim & Sommeil » (FAB-73 corrected): without food, physical healing "
        "is blocked; without sleep, mental and stress healing are; the GM lifts it",
        json_schema_extra=enum_labels({d: DANGERS[d] for d in ("hunger", "sleep")}),
    )
    active_effects: list[ActiveEffect] = managed(
        default_factory=list,
        max_length=30,
        title="Powers' effects",
        description="The numeric effects of powers on this character until they end (FAB-102)",
    )
    second_wind_session: int | None = managed(
        None,
        ge=0,
        le=1_000_000,
        title="Session of the second wind",
        description="The session the talent second_wind was last used in (FAB-90)",
    )
    broken_track: Literal["physical", "mental"] | None = managed(
        None,
        title="Broken track",
        description="The track whose full boxes broke the character (FAB-23)",
        json_schema_extra=enum_labels(TRACKS),
    )
    expert_session: int | None = managed(
        None,
        ge=0,
        le=1_000_000,
        title="Session of Expert",
        description="The session the talent expert was last used in (FAB-90)",
    )
    sequelae: list[Sequela] = managed(
        default_factory=list,
        max_length=30,
        title="Sequelae",
        description="Sequelae carried and their durations (FAB-50, FAB-55)",
    )
    armor: ArmorWorn | None = managed(
        None,
        title="Armor",
        description="The armor worn and its current protection; it wears as damage gets "
        "through. The player picks a catalog armor at creation, then the GM and the rules "
        "change it (FAB-67, FAB-72)",
    )
    weapons: list[WeaponCarried] = managed(
        default_factory=list,
        max_length=10,
        title="Weapons",
        description="Weapons carried and the rounds loaded; the player lists catalog weapons "
        "at creation, then the GM and the rules change them (FAB-71)",
    )
    custom_weapons: list[CustomWeapon] = managed(
        default_factory=list,
        max_length=10,
        title="The GM's weapons",
        description="Weapons outside the catalog with the values the GM grants them; "
        "`weapons` carries them by name (FAB-71)",
    )
    custom_armors: list[CustomArmor] = managed(
        default_factory=list,
        max_length=5,
        title="The GM's armors",
        description="Armors outside the catalog with the protection the GM grants them; "
        "`armor` wears one by name (FAB-72)",
    )
    inventory: list[Item] = Field(
        default_factory=list,
        max_length=100,
        title="Inventory",
        description="What the character carries; at most 2 × Physique items (FAB-75)",
    )
    backpack: bool = Field(
        default=False,
        title="Backpack",
        description="Doubles the carrying capacity, hinders in combat (FAB-75)",
    )
    crowns: int = Field(
        default=0,
        ge=0,
        le=100,
        title="Crowns",
        description="Money in the purse, 100 at most (FAB-76)",
    )

    @model_validator(mode="before")
    @classmethod
    def _granted_names(cls, data: Any, info: ValidationInfo) -> Any:
        """On an edit, the names of the GM's weapons and armors, for the entries that name
        them (`weapons`, `armor`): anything else there must come from the catalog."""
        if editing(info) and isinstance(data, dict) and isinstance(info.context, dict):
            for field in (GRANTED_WEAPONS, GRANTED_ARMORS):
                listed = data.get(field)
                entries = listed if isinstance(listed, list) else []
                named = [entry.get("name") for entry in entries if isinstance(entry, dict)]
                info.context[field] = {name for name in named if isinstance(name, str)}
        return data

    @model_validator(mode="after")
    def _rules(self, info: ValidationInfo) -> FabulaeSheet:
        """What an edit must respect (a sheet read back from storage is taken as stored)."""
        if not editing(info):
            return self
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
        options = context.get("options") or {}
        if self.powers and not options.get("powers_allowed", False):
            problems.append("this campaign does not allow powers (campaign option powers_allowed)")
        capacity = 2 * self.attributes.physique * (2 if self.backpack else 1)
        carried = sum(item.count for item in self.inventory if not item.tiny)
        if carried > capacity:
            problems.append(
                f"FAB-75: carrying {carried} items, capacity is {capacity} "
                "(2 × Physique, doubled by a backpack)"
            )
        problems.extend(self._granted_problems())
        if context.get("creating") and context.get("kind") == "pc":
            problems.extend(self._creation_problems())
        if problems:
            raise ValueError("; ".join(problems))
        return self

    def _granted_problems(self) -> list[str]:
        """FAB-71/FAB-72: the GM's weapons and armors beside the catalog's, one name each; a
        GM's weapon starts loaded and holds no more than its capacity, a GM's armor starts
        at its value and never exceeds it."""
        problems: list[str] = []
        for what, catalog, names in (
            ("weapon", WEAPONS, [weapon.name for weapon in self.custom_weapons]),
            ("armor", ARMORS, [armor.name for armor in self.custom_armors]),
        ):
            for name in sorted({name for name in names if names.count(name) > 1}):
                problems.append(f"the GM's {what} '{name}' is listed more than once")
            for name in sorted(set(names) & set(catalog)):
                problems.append(f"'{name}' is a catalog {what}: give the GM's {what} another name")
        granted = {weapon.name: weapon for weapon in self.custom_weapons}
        for carried in self.weapons:
            if carried.id not in WEAPONS and carried.id in granted:
                problem = _load(carried, granted[carried.id].ammo)
                problems.extend([problem] if problem else [])
        armor = self.armor
        if armor is not None and armor.id not in ARMORS:
            base = armor_base(self)
            if "value" not in armor.model_fields_set:
                armor.value = base
            elif armor.value > base:
                problems.append(f"armor '{armor.id}' has a base value of {base}, got {armor.value}")
        return problems

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
        # FAB-5 (corrected): « un Talent de départ et/ou un Pouvoir »: one, the other, or both.
        talents, powers = len(self.talents), len(self.powers)
        if talents > 1 or powers > 1 or talents + powers == 0:
            problems.append(
                "FAB-5: a new character takes one starting talent, or one power, or both; "
                f"got {talents} talent(s) and {powers} power(s)"
            )
        return problems


# Issue 18: a player lists their PC's catalog weapons and armor at creation (FAB-71/FAB-72);
# then only the GM and the rules change them, and only the GM adds one with its own values.
CREATION_CHOICES: Final = frozenset({"weapons", "armor"})


def armor_base(sheet: FabulaeSheet) -> int:
    """FAB-72: the value of the armor worn when whole, from the catalog or the GM's own
    (`custom_armors`); 0 without armor."""
    armor = sheet.armor
    if armor is None:
        return 0
    if armor.id in ARMORS:
        return ARMORS[armor.id].value
    granted = [custom.value for custom in sheet.custom_armors if custom.name == armor.id]
    return granted[0] if granted else armor.value


class FabulaeOptions(TableOptions):
    """Campaign options of Fabulae Tenebris."""

    powers_allowed: bool = Field(default=False, description="FAB-100: powers may be taken")
    npc_choices_auto: bool = Field(
        default=False,
        title="NPCs answer by themselves",
        description="FAB-62, FAB-36: a roll against an NPC that leaves its choices out takes "
        "them at once (its larger pool of parry and dodge; no talent or helper on the "
        "passive side of an opposed roll); off, it waits for the GM's answer",
    )


class FabulaeCharacter(Snapshot):
    """A Fabulae Tenebris character as a roll read it."""

    sheet: FabulaeSheet
