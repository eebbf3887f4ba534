"""Combat encounters: a roster, initiative, rounds and turns, audited in the campaign log."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, field_validator
from sqlmodel import Field, SQLModel

from app.models.base import Timestamp, display_name, json_field, timestamp_field

EncounterStatus = Literal["setup", "active", "ended"]


class Encounter(SQLModel, table=True):
    id: uuid.UUID = Field(default_factory=uuid.uuid4, primary_key=True)
    campaign_id: uuid.UUID = Field(foreign_key="campaign.id", index=True)
    name: str = Field(max_length=120)
    status: str = Field(default="setup", max_length=10)
    round: int = 0
    turn: int = 0
    # Combatants in turn order once initiative is rolled: character, side, initiative,
    # what they spent this round, the conditions binding them.
    combatants: list[dict[str, Any]] = json_field(default_factory=list)
    # Cards out of the current Fabulae deck (FAB-61), for newcomers' draws.
    deck: dict[str, Any] = json_field(default_factory=dict)
    history: list[dict[str, Any]] = json_field(default_factory=list)
    created_at: datetime = timestamp_field()
    updated_at: datetime = timestamp_field()
    ended_at: datetime | None = Field(default=None, sa_type=Timestamp)


class CombatantCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    character_id: uuid.UUID
    side: str = Field(default="pcs", min_length=1, max_length=40, description="e.g. pcs, foes")
    surprise: bool = Field(default=False, description="JDR-31a: +2 initiative, first round")
    off_guard: bool = Field(default=False, description="JDR-31a: acts last in the first round")


class EncounterCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=120)
    combatants: list[CombatantCreate] = Field(default_factory=list, max_length=50)

    _name = field_validator("name")(display_name)
