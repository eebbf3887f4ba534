"""Combat encounters: a roster, initiative, rounds and turns, audited in the campaign log."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any, Literal

import sqlalchemy as sa
from pydantic import BaseModel, ConfigDict, field_validator
from sqlmodel import Field, SQLModel

from app.models.base import Timestamp, display_name, json_field, timestamp_field

EncounterStatus = Literal["setup", "active", "ended"]


class Encounter(SQLModel, table=True):
    # Issue 23: keyed by campaign first, Citus's distribution column; the index on id
    # finds an encounter from its id alone (the /encounters/{id} routes).
    __table_args__ = (sa.PrimaryKeyConstraint("campaign_id", "id"),)

    id: uuid.UUID = Field(default_factory=uuid.uuid4, primary_key=True, index=True)
    campaign_id: uuid.UUID = Field(foreign_key="campaign.id", primary_key=True)
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


class ExpectedTurn(BaseModel):
    """The turn a write expects to act in: round and whose turn (the encounter's `round` and
    `current.character_id`). A stale one is 409 naming the current turn."""

    model_config = ConfigDict(extra="forbid")

    round: int = Field(ge=1, description="the round, as the encounter shows it")
    character_id: uuid.UUID = Field(description="the combatant whose turn it should be")


class NextTurn(BaseModel):
    """Passing the turn: optionally, the turn it expects to pass."""

    model_config = ConfigDict(extra="forbid")

    expected_turn: ExpectedTurn | None = Field(
        default=None, description="409 unless it is still this turn (the turn guard)"
    )


class InitiativeCall(BaseModel):
    """Calling for initiative: optionally, the players' order between tied PCs."""

    model_config = ConfigDict(extra="forbid")

    tie_order: list[uuid.UUID] | None = Field(
        default=None,
        max_length=50,
        description="JDR-30a: the players' choice between PCs whose totals tie, first listed "
        "first; PCs of the encounter only, each once. Other rulesets break ties themselves",
    )


class EncounterCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=120)
    combatants: list[CombatantCreate] = Field(default_factory=list, max_length=50)

    _name = field_validator("name", mode="before")(display_name)
