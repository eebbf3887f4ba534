"""Roll requests of Fabulae Tenebris: the bodies of POST .../rolls."""

from __future__ import annotations

import uuid
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from app.engine.fabulae.tables import StateId, TalentId
from app.models.entries import FollowUpBase, RollBase

Attribute = Literal["physique", "habilete", "intellect", "empathie"]
Skill = Literal[
    "athletisme",
    "combat",
    "resistance",
    "furtivite",
    "dexterite",
    "tir",
    "bricolage",
    "connaissance",
    "observation",
    "mentir_convaincre",
    "performance",
    "soin",
]


class DiceModifier(BaseModel):
    """FAB-14: a situational modifier (FAB-60/62/64), a power or a sequela, in dice."""

    model_config = ConfigDict(extra="forbid")

    source: str = Field(min_length=1, max_length=60)
    dice: int = Field(ge=-6, le=6)


class FabulaeRoll(BaseModel):
    """FAB-10..15: what an action roll is made of."""

    model_config = ConfigDict(extra="forbid")

    attribute: Attribute
    skill: Skill | None = Field(default=None, description="null for a pure attribute roll")
    difficulty: Literal["hard", "very_hard", "almost_impossible"] = "hard"
    helpers: int = Field(default=0, ge=0, le=3, description="FAB-13: +1 die each, at most 3")
    modifiers: list[DiceModifier] = Field(default_factory=list, max_length=10)
    talents: list[TalentId] = Field(
        default_factory=list, max_length=5, description="FAB-90 talents invoked for this roll"
    )
    passive: bool = Field(default=False, description="FAB-33: imposed by the GM, never pushed")


class FabulaeActionCreate(RollBase, FabulaeRoll):
    """FAB-10..15: a pool of D6; each 6 a success, each six beyond the first a Prouesse."""

    kind: Literal["fabulae.action"]
    character_id: uuid.UUID


class OpposedSide(FabulaeRoll):
    character_id: uuid.UUID


class FabulaeOpposedCreate(RollBase):
    """FAB-36/37: the active side wins only with strictly more sixes."""

    kind: Literal["fabulae.opposed"]
    active: OpposedSide
    passive: OpposedSide


class FabulaePushCreate(FollowUpBase):
    """FAB-31..35: 1 Destiny rerolls the dice showing 2..5."""

    kind: Literal["fabulae.push"]
    state: StateId | None = Field(
        default=None, description="FAB-32: the state checked if a 1 shows (else it is pending)"
    )
    absorb: bool = Field(
        default=False, description="FAB-34: if a 1 shows, spend one more Destiny instead"
    )


class FabulaeStateChoiceCreate(FollowUpBase):
    """FAB-32: settle a pending state price by naming the state to check."""

    kind: Literal["fabulae.state_choice"]
    state: StateId


class FabulaeAbsorbCreate(FollowUpBase):
    """FAB-34: spend 1 Destiny to cancel the state about to be checked."""

    kind: Literal["fabulae.absorb"]


class FabulaeStressCreate(RollBase):
    """FAB-40/41: the GM gives stress (cool_head takes 1 off each gain)."""

    kind: Literal["fabulae.stress"]
    character_ids: list[uuid.UUID] = Field(min_length=1, max_length=20)
    amount: int = Field(ge=1, le=10, description="+1, +2 or +3 for the situations of FAB-41")
    reason: str = Field(default="", max_length=200)


class FabulaeStressResistCreate(RollBase):
    """FAB-43: a Résistance roll; each six lowers stress by one."""

    kind: Literal["fabulae.stress_resist"]
    character_id: uuid.UUID
    attribute: Literal["physique", "intellect", "empathie"] = "physique"
    helpers: int = Field(default=0, ge=0, le=3)
    modifiers: list[DiceModifier] = Field(default_factory=list, max_length=10)


class FabulaePanicCreate(RollBase):
    """FAB-44: 1D6 + stress on the panic table; the allies named share its stress effects."""

    kind: Literal["fabulae.panic"]
    character_id: uuid.UUID
    allies: list[uuid.UUID] = Field(default_factory=list, max_length=20)
    modifier: int = Field(default=0, ge=-3, le=3)


class FabulaeRecoverCreate(RollBase):
    """FAB-80..82: rest, a Soin roll, or the broken character's Résistance roll."""

    kind: Literal["fabulae.recover"]
    character_id: uuid.UUID = Field(description="the character who recovers")
    mode: Literal["rest", "care", "broken_resistance"]
    duration: Literal["quart", "tour", "night"] | None = Field(
        default=None, description="rest: a quart clears Épuisé, a tour Énervé, a night both"
    )
    healer_id: uuid.UUID | None = Field(
        default=None, description="care: who rolls Soin (the patient: -2 dice)"
    )
    track: Literal["physical", "mental"] | None = Field(
        default=None, description="care: Soin with intellect heals the body, empathie the mind"
    )
    helpers: int = Field(default=0, ge=0, le=3)
    modifiers: list[DiceModifier] = Field(default_factory=list, max_length=10)


class FabulaeDestinyAwardCreate(RollBase):
    """FAB-30: the GM awards a Destiny point for a narrative feat."""

    kind: Literal["fabulae.destiny_award"]
    character_id: uuid.UUID
    reason: str = Field(default="", max_length=200)
