"""Characters: PCs and NPCs with a sheet validated by their campaign's ruleset."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any, Literal

import sqlalchemy as sa
from pydantic import field_validator
from sqlmodel import Field, SQLModel

from app.models.base import Timestamp, display_name, json_field, timestamp_field

CharacterKind = Literal["pc", "npc"]


class CharacterBase(SQLModel):
    name: str = Field(min_length=1, max_length=100)

    _name = field_validator("name", mode="before")(display_name)


class Character(CharacterBase, table=True):
    # Issue 23: keyed by campaign first, Citus's distribution column; the index on id
    # finds a character from its id alone (GET /characters/{id}).
    __table_args__ = (sa.PrimaryKeyConstraint("campaign_id", "id"),)

    id: uuid.UUID = Field(default_factory=uuid.uuid4, primary_key=True, index=True)
    campaign_id: uuid.UUID = Field(foreign_key="campaign.id", primary_key=True)
    kind: str = Field(max_length=3)
    owner_id: uuid.UUID | None = Field(default=None, foreign_key="user_account.id", index=True)
    sheet: dict[str, Any] = json_field(default_factory=dict)
    created_at: datetime = timestamp_field()
    updated_at: datetime = timestamp_field()
    deleted_at: datetime | None = Field(default=None, sa_type=Timestamp)


class CharacterCreate(CharacterBase):
    kind: CharacterKind = "pc"
    owner_id: uuid.UUID | None = Field(
        default=None, description="the player who plays it; defaults to the caller for a PC"
    )
    sheet: dict[str, Any] = Field(description="validated against the system's sheet schema")


class CharacterUpdate(SQLModel):
    _name = field_validator("name", mode="before")(display_name)

    name: str | None = Field(default=None, min_length=1, max_length=100)
    kind: CharacterKind | None = None
    owner_id: uuid.UUID | None = None
    sheet: dict[str, Any] | None = Field(
        default=None,
        description="JSON merge patch (RFC 7396) applied to the sheet; null removes a key",
    )
