"""Campaigns and their members."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any, Literal

from pydantic import field_validator
from sqlmodel import Field, SQLModel

from app.models.base import Timestamp, display_name, json_field, timestamp_field

Role = Literal["gm", "player"]
GENESIS_HASH = "0" * 64


class CampaignBase(SQLModel):
    name: str = Field(min_length=1, max_length=120)

    _name = field_validator("name", mode="before")(display_name)


class Campaign(CampaignBase, table=True):
    id: uuid.UUID = Field(default_factory=uuid.uuid4, primary_key=True)
    system: str = Field(max_length=40)
    options: dict[str, Any] = json_field(default_factory=dict)
    gm_id: uuid.UUID = Field(foreign_key="user_account.id", index=True)
    current_session: int = 0
    current_scene: int = 0
    # The log's head (FAIR-5): rolls lock this row to take the next seq.
    last_seq: int = 0
    last_hash: str = Field(default=GENESIS_HASH, max_length=64)
    current_epoch: int = 0
    # Registered webhooks, changed under the lock: an append knows whether to fill the outbox.
    webhooks: int = 0
    created_at: datetime = timestamp_field()
    updated_at: datetime = timestamp_field()
    deleted_at: datetime | None = Field(default=None, sa_type=Timestamp)


class CampaignCreate(CampaignBase):
    """What creating a campaign takes; the API declares `system` as the registry's enum."""

    system: str = Field(max_length=40)
    options: dict[str, Any] = Field(default_factory=dict)


class CampaignUpdate(SQLModel):
    name: str | None = Field(default=None, min_length=1, max_length=120)
    options: dict[str, Any] | None = None

    _name = field_validator("name", mode="before")(display_name)


class CampaignMember(SQLModel, table=True):
    __tablename__ = "campaign_member"

    campaign_id: uuid.UUID = Field(foreign_key="campaign.id", primary_key=True)
    user_id: uuid.UUID = Field(foreign_key="user_account.id", primary_key=True, index=True)
    role: str = Field(max_length=10)
    joined_at: datetime = timestamp_field()


class MemberCreate(SQLModel):
    user_id: uuid.UUID
    role: Literal["player"] = Field(default="player", description="the GM is set at creation")


class MemberPublic(SQLModel):
    user_id: uuid.UUID
    name: str
    role: Role
    joined_at: datetime


class MembersPublic(SQLModel):
    data: list[MemberPublic]
    count: int
