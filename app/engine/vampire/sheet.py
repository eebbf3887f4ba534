"""Vampire character sheet (VAM-1..3) and campaign options."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, StringConstraints, model_validator

from app.engine.sheets import StrictModel

AttributeValue = Annotated[int, Field(ge=1, le=5, description="VAM-1: 1..5")]
AbilityId = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_]{0,39}$")]
AbilityValue = Annotated[int, Field(ge=0, le=5, description="VAM-2: 0..5")]

ATTRIBUTE_LABELS = {
    "force": "Force",
    "dexterite": "Dextérité",
    "vigueur": "Vigueur",
    "charisme": "Charisme",
    "manipulation": "Manipulation",
    "apparence": "Apparence",
    "perception": "Perception",
    "intelligence": "Intelligence",
    "astuce": "Astuce",
}

# VAM-2: the suggested abilities; a campaign may add others.
SUGGESTED_ABILITIES = (
    "athletisme",
    "bagarre",
    "conscience",
    "empathie",
    "expression",
    "experience_de_la_rue",
    "intimidation",
    "commandement",
    "subterfuge",
    "vigilance",
    "animaux",
    "armes_a_feu",
    "armes_blanches",
    "conduite",
    "etiquette",
    "furtivite",
    "larcin",
    "representation",
    "survie",
    "artisanat",
    "erudition",
    "finance",
    "informatique",
    "investigation",
    "droit",
    "medecine",
    "occultisme",
    "politique",
    "sciences",
    "technologie",
)


class Attributes(StrictModel):
    """VAM-1: nine attributes."""

    force: AttributeValue
    dexterite: AttributeValue
    vigueur: AttributeValue
    charisme: AttributeValue
    manipulation: AttributeValue
    apparence: AttributeValue
    perception: AttributeValue
    intelligence: AttributeValue
    astuce: AttributeValue


class Willpower(StrictModel):
    """VAM-3: Volonté, current never above max."""

    max: int = Field(ge=1, le=10)
    current: int = Field(ge=0, le=10)

    @model_validator(mode="after")
    def _current_within_max(self) -> Willpower:
        if self.current > self.max:
            raise ValueError(
                f"VAM-3: willpower current ({self.current}) cannot exceed max ({self.max})"
            )
        return self


class VampireSheet(StrictModel):
    """VAM-1..3: a Vampire character."""

    attributes: Attributes
    abilities: dict[AbilityId, AbilityValue] = Field(
        default_factory=dict,
        max_length=60,
        description="VAM-2: ability id → 0..5; suggested ids in the rules, campaigns may add more",
    )
    willpower: Willpower
    blank_botch_session: int | None = Field(
        default=None, ge=0, le=1_000_000, description="VAM-16: session of the absorbed botch"
    )


class VampireOptions(StrictModel):
    """Campaign options of Vampire."""

    blank_botch: bool = Field(default=False, description="VAM-16: first botch per session absorbed")
    retry_penalty: bool = Field(default=True, description="VAM-30: +1 difficulty per failed retry")


VAMPIRE_PROTECTED = frozenset({"willpower", "blank_botch_session"})
VAMPIRE_CREATION_CHOICES = frozenset({"willpower"})
