"""Webhooks: a bot's URL the campaign's log entries are posted to, and each delivery of one."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Literal

import sqlalchemy as sa
from pydantic import BaseModel, ConfigDict, field_validator
from sqlmodel import Field, SQLModel

from app.models.base import Timestamp, json_field, timestamp_field

DeliveryStatus = Literal["pending", "delivered", "failed"]
MAX_KINDS = 40


class Webhook(SQLModel, table=True):
    """A URL the GM registered; `campaign_id` leads its key, like every campaign's row."""

    campaign_id: uuid.UUID = Field(foreign_key="campaign.id", primary_key=True)
    id: uuid.UUID = Field(default_factory=uuid.uuid4, primary_key=True)
    url: str = Field(max_length=2000)
    # Kinds exact ("vampire.action") or by prefix ("fabulae."); empty: every entry.
    kinds: list[str] = json_field(default_factory=list)
    description: str = Field(default="", max_length=200)
    # Standard Webhooks "whsec_" secret: kept to sign, shown once when created.
    secret: str = Field(max_length=100)
    enabled: bool = True
    disabled_reason: str | None = Field(default=None, max_length=300)
    # Set by the first failure after a success: a webhook failing for a day is disabled.
    failing_since: datetime | None = Field(default=None, sa_type=Timestamp)
    created_at: datetime = timestamp_field()
    updated_at: datetime = timestamp_field()


class WebhookDelivery(SQLModel, table=True):
    """One log entry to post to one webhook: the outbox row, written in the entry's own
    transaction, then attempted until delivered or given up."""

    __tablename__ = "webhook_delivery"
    __table_args__ = (
        # A webhook's deliveries, newest first (one per entry: seq is their keyset cursor).
        sa.Index("ix_webhook_delivery_webhook_id_seq", "webhook_id", "seq"),
        # The sender's question: which pending deliveries are due.
        sa.Index("ix_webhook_delivery_status_next_attempt_at", "status", "next_attempt_at"),
    )

    campaign_id: uuid.UUID = Field(foreign_key="campaign.id", primary_key=True)
    id: uuid.UUID = Field(default_factory=uuid.uuid4, primary_key=True)
    webhook_id: uuid.UUID
    seq: int
    kind: str = Field(max_length=60)
    status: str = Field(default="pending", max_length=10)
    attempts: int = 0
    next_attempt_at: datetime = timestamp_field()
    # A dispatcher holds the delivery until then: two workers never post it at once.
    leased_until: datetime | None = Field(default=None, sa_type=Timestamp)
    # The body as first sent: every retry posts the same bytes under the same webhook-id.
    payload: str | None = None
    created_at: datetime = timestamp_field()


class WebhookAttempt(SQLModel, table=True):
    """One POST of a delivery, as it went."""

    __tablename__ = "webhook_attempt"

    campaign_id: uuid.UUID = Field(foreign_key="campaign.id", primary_key=True)
    delivery_id: uuid.UUID = Field(primary_key=True)
    number: int = Field(primary_key=True)
    attempted_at: datetime = timestamp_field()
    status_code: int | None = None
    error: str | None = Field(default=None, max_length=300)
    duration_ms: int


def checked_kinds(kinds: list[str]) -> list[str]:
    for kind in kinds:
        if not 1 <= len(kind) <= 60 or not kind.replace(".", "").replace("_", "").isalnum():
            raise ValueError(f"{kind!r} is not a kind name (letters, digits, '_' and '.')")
    return kinds


class WebhookCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    url: str = Field(
        min_length=1,
        max_length=2000,
        description="an http(s) URL; loopback and private addresses are refused unless the "
        "server allows them",
    )
    kinds: list[str] = Field(
        default_factory=list,
        max_length=MAX_KINDS,
        description='entry kinds to post, exact ("vampire.action") or by prefix ending in a dot '
        '("fabulae."); empty: every entry',
    )
    description: str = Field(default="", max_length=200)

    @field_validator("kinds")
    @classmethod
    def _kind_names(cls, kinds: list[str]) -> list[str]:
        return checked_kinds(kinds)


class WebhookUpdate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    url: str | None = Field(default=None, min_length=1, max_length=2000)
    kinds: list[str] | None = Field(default=None, max_length=MAX_KINDS)
    description: str | None = Field(default=None, max_length=200)
    enabled: bool | None = Field(
        default=None, description="true enables a disabled webhook again (its failures reset)"
    )

    @field_validator("kinds")
    @classmethod
    def _kind_names(cls, kinds: list[str] | None) -> list[str] | None:
        return None if kinds is None else checked_kinds(kinds)


class WebhookPublic(BaseModel):
    id: uuid.UUID
    campaign_id: uuid.UUID
    url: str
    kinds: list[str]
    description: str
    enabled: bool
    disabled_reason: str | None
    failing_since: datetime | None
    created_at: datetime
    updated_at: datetime


class WebhookCreated(WebhookPublic):
    secret: str = Field(
        description="the signing secret (Standard Webhooks, whsec_…): shown this once only"
    )


class WebhooksPublic(BaseModel):
    data: list[WebhookPublic]
    count: int


class WebhookAttemptPublic(BaseModel):
    number: int
    attempted_at: datetime
    status_code: int | None
    error: str | None
    duration_ms: int


class WebhookDeliveryPublic(BaseModel):
    id: uuid.UUID = Field(description="the webhook-id header of every attempt, msg_<id>")
    webhook_id: uuid.UUID
    seq: int
    kind: str
    status: DeliveryStatus
    attempts: list[WebhookAttemptPublic]
    next_attempt_at: datetime | None = Field(description="when the next attempt is due, if any")
    created_at: datetime


class WebhookDeliveriesPublic(BaseModel):
    data: list[WebhookDeliveryPublic]
    next_before: int | None = Field(
        default=None, description="pass as before= for the next (older) page; none: the last"
    )
