"""Invitations: a code the GM hands out, with which a registered user joins the campaign."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Literal

import sqlalchemy as sa
from pydantic import BaseModel, ConfigDict
from sqlmodel import Field, SQLModel

from app.models.base import Timestamp, timestamp_field

InvitationStatus = Literal["active", "expired", "used_up", "revoked"]


class Invitation(SQLModel, table=True):
    __table_args__ = (
        # Issue 23: keyed by campaign first, Citus's distribution column. A unique key must
        # hold it too, so the code is unique within its campaign; across campaigns, 128
        # random bits make a repeat negligible. Code first: accepting looks it up alone.
        sa.PrimaryKeyConstraint("campaign_id", "id"),
        sa.UniqueConstraint("code", "campaign_id"),
    )

    id: uuid.UUID = Field(default_factory=uuid.uuid4, primary_key=True)
    campaign_id: uuid.UUID = Field(foreign_key="campaign.id", primary_key=True)
    # A bearer secret (22 URL-safe characters, 128 bits): whoever holds it may join.
    code: str = Field(max_length=64)
    role: str = Field(max_length=10)
    max_uses: int
    uses: int = 0
    created_by: uuid.UUID = Field(foreign_key="user_account.id")
    created_at: datetime = timestamp_field()
    expires_at: datetime = Field(sa_type=Timestamp)
    revoked_at: datetime | None = Field(default=None, sa_type=Timestamp)


class InvitationCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    role: Literal["player"] = Field(default="player", description="the GM is set at creation")
    expires_in_hours: int = Field(
        default=168, ge=1, le=24 * 365, description="how long the code works (default a week)"
    )
    max_uses: int = Field(default=1, ge=1, le=100, description="how many users may join with it")


class InvitationPublic(SQLModel):
    id: uuid.UUID
    campaign_id: uuid.UUID
    code: str = Field(description="what a user sends to POST /invitations/{code}/accept")
    role: str
    max_uses: int
    uses: int
    status: InvitationStatus
    created_at: datetime
    expires_at: datetime
    revoked_at: datetime | None


class InvitationsPublic(SQLModel):
    data: list[InvitationPublic]
    count: int
