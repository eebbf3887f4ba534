"""Vampire character sheet (VAM-1..3), campaign options, and the character as rolls read it."""

from __future__ import annotations

from difflib import get_close_matches
from typing import Annotated, Literal

from pydantic import Field, StringConstraints, ValidationInfo, field_validator, model_validator

from app.engine.contract import Snapshot, TableOptions
from app.engine.rulesets.vampire.labels import ABILITIES, ATTRIBUTES
from app.engine.sheets import Sheet, StrictModel, editing, enum_labels, managed

AttributeValue = Annotated[int, Field(ge=1, le=5, description="1 to 5 dots (VAM-1)")]
AbilityId = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_]{0,39}$")]
AbilityValue = Annotated[int, Field(ge=0, le=5, description="0 to 5 dots (VAM-2)")]
Attribute = Literal[
    "force",
    "dexterite",
    "vigueur",
    "charisme",
    "manipulation",
    "apparence",
    "perception",
    "intelligence",
    "astuce",
]
ATTRIBUTE_SCHEMA = enum_labels(ATTRIBUTES)


class VampireAttributes(StrictModel):
    """The nine attributes (VAM-1)."""

    force: AttributeValue = Field(title="Strength (Force)")
    dexterite: AttributeValue = Field(title="Dexterity (Dextérité)")
    vigueur: AttributeValue = Field(title="Stamina (Vigueur)")
    charisme: AttributeValue = Field(title="Charisma (Charisme)")
    manipulation: AttributeValue = Field(title="Manipulation")
    apparence: AttributeValue = Field(title="Appearance (Apparence)")
    perception: AttributeValue = Field(title="Perception")
    intelligence: AttributeValue = Field(title="Intelligence")
    astuce: AttributeValue = Field(title="Wits (Astuce)")


class VampireWillpower(StrictModel):
    """Willpower (Volonté): its maximum and what is left of it (VAM-3)."""

    max: int = Field(ge=1, le=10, title="Maximum")
    current: int = Field(ge=0, le=10, title="Current", description="never above the maximum")

    @model_validator(mode="after")
    def _current_within_max(self) -> VampireWillpower:
        if self.current > self.max:
            raise ValueError(
                f"VAM-3: willpower current ({self.current}) cannot exceed max ({self.max})"
            )
        return self


DamageType = Literal["bashing", "lethal", "aggravated"]
DAMAGE_TYPES: tuple[DamageType, ...] = ("bashing", "lethal", "aggravated")  # least severe first
HEALTH_LEVELS = 7  # VAM-40: Bruised … Incapacitated
Levels = Annotated[int, Field(ge=0, le=HEALTH_LEVELS)]


class VampireHealth(StrictModel):
    """VAM-40 (the classic rule): the damage taken, in health levels of each type. The track
    fills from the top, the most severe damage first (aggravated, then lethal, then
    bashing), so these counts are the boxes; seven filled is Incapacitated."""

    bashing: Levels = Field(default=0, title="Bashing")
    lethal: Levels = Field(default=0, title="Lethal")
    aggravated: Levels = Field(default=0, title="Aggravated")

    @model_validator(mode="after")
    def _within_track(self) -> VampireHealth:
        if self.total > HEALTH_LEVELS:
            raise ValueError(
                f"VAM-40: the health track holds {HEALTH_LEVELS} levels, not {self.total}"
            )
        return self

    @property
    def total(self) -> int:
        return self.bashing + self.lethal + self.aggravated


class VampireSheet(Sheet):
    """A Vampire character (VAM-1..3, VAM-40)."""

    attributes: VampireAttributes = Field(title="VampireAttributes")
    abilities: dict[AbilityId, AbilityValue] = Field(
        default_factory=dict,
        max_length=60,
        title="Abilities",
        description="Ability id to dots (0 to 5); the rules suggest thirty ids, a campaign "
        "may add its own (VAM-2)",
    )

    @field_validator("abilities")
    @classmethod
    def _no_misspelt_ability(cls, value: dict[str, int], info: ValidationInfo) -> dict[str, int]:
        """VAM-2 (corrected): an ability of the campaign's own is not a misspelt V20 one."""
        if not editing(info):
            return value  # a sheet read back from storage is taken as stored
        for name in value:
            near = get_close_matches(name, list(ABILITIES), n=1, cutoff=0.9)
            if name not in ABILITIES and near:
                raise ValueError(
                    f"VAM-2: ability {name!r} looks like the V20 ability {near[0]!r}; "
                    "spell it so, or give your own ability a name of its own"
                )
        return value

    willpower: VampireWillpower = managed(
        title="Willpower",
        description="Spent for an automatic success (VAM-21); the Storyteller restores it "
        "(VAM-3). Chosen at creation, then managed by the rules.",
    )
    blank_botch_session: int | None = managed(
        None,
        ge=0,
        le=1_000_000,
        title="Session of the absorbed botch",
        description="The session whose first botch was turned into a failure (VAM-16)",
    )
    fortitude: int = Field(
        default=0,
        ge=0,
        le=5,
        title="Fortitude",
        description="Dots of the Discipline Fortitude: added to Vigueur to soak, and the only "
        "soak against aggravated damage (VAM-40, the classic rule)",
    )
    health: VampireHealth = managed(
        default_factory=VampireHealth,
        title="Health",
        description="Damage taken, in health levels per type (VAM-40): seven levels, Bruised, "
        "Hurt −1, Injured −1, Wounded −2, Mauled −2, Crippled −5, Incapacitated. Changed by "
        "damage rolls, healing and the GM.",
    )


class VampireOptions(TableOptions):
    """Campaign options of Vampire."""

    blank_botch: bool = Field(
        default=False,
        title="Blank botch",
        description="Each participant's first botch in a session is a simple failure (VAM-16)",
    )
    retry_penalty: bool = Field(
        default=True,
        title="Retry penalty",
        description="Each failed attempt adds 1 to a retry's difficulty, and the same action "
        "again in a scene after a failure is its retry (VAM-30)",
    )
    players_take_automatic: bool = Field(
        default=False,
        title="Players take automatic successes",
        description="Players may take an automatic success unprompted (VAM-20); off, the "
        "Storyteller allows it, in a roll request (players_set_difficulty allows it too)",
    )


class VampireCharacter(Snapshot):
    """A Vampire character as a roll read it."""

    sheet: VampireSheet


CREATION_CHOICES = frozenset({"willpower"})
