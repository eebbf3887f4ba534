"""Roll requests: the GM asks characters for a roll with the values the GM decides."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any, Literal

import sqlalchemy as sa
from pydantic import BaseModel, ConfigDict
from sqlmodel import Field, SQLModel

from app.engine.contract import Visibility
from app.models.base import json_field, timestamp_field

RollRequestStatus = Literal["open", "closed", "cancelled"]


class RollRequest(SQLModel, table=True):
    __tablename__ = "roll_request"
    # Issue 23: keyed by campaign first, Citus's distribution column (every route that
    # names a request is under its campaign).
    __table_args__ = (sa.PrimaryKeyConstraint("campaign_id", "id"),)

    id: uuid.UUID = Field(default_factory=uuid.uuid4, primary_key=True)
    campaign_id: uuid.UUID = Field(foreign_key="campaign.id", primary_key=True)
    kind: str = Field(max_length=60)
    character_ids: list[str] = json_field()
    # The body fields the GM set (difficulty, modifiers, tense…): the answer cannot change them.
    values: dict[str, Any] = json_field(default_factory=dict)
    visibility: str = Field(max_length=10)
    note: str = Field(default="", max_length=500)
    status: str = Field(default="open", max_length=10)
    # character id → seq of the roll that answered for it.
    answers: dict[str, int] = json_field(default_factory=dict)
    seq: int = Field(description="the roll_requested entry")
    created_at: datetime = timestamp_field()


class RollRequestCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: str = Field(max_length=60, description="the roll kind asked for, e.g. vampire.action")
    character_ids: list[uuid.UUID] = Field(min_length=1, max_length=20)
    values: dict[str, Any] = Field(
        default_factory=dict,
        description='body fields the GM sets, e.g. {"difficulty": 7, "tense": true}; the '
        "answer keeps them",
    )
    visibility: Visibility = "public"
    note: str = Field(default="", max_length=500)


class RollRequestPublic(BaseModel):
    id: uuid.UUID
    campaign_id: uuid.UUID
    kind: str
    character_ids: list[uuid.UUID]
    values: dict[str, Any]
    visibility: Visibility
    note: str
    status: RollRequestStatus
    answers: dict[str, int] = Field(description="character id → seq of the roll that answered")
    seq: int = Field(description="seq of the roll_requested entry; answers follow it")
    created_at: datetime


class RollRequestsPublic(BaseModel):
    data: list[RollRequestPublic]
    count: int
