"""Stream tickets: a browser's EventSource cannot send headers, so it carries one of these."""

from __future__ import annotations

import uuid
from datetime import datetime

from pydantic import BaseModel
from sqlmodel import Field, SQLModel

from app.models.base import Timestamp


class StreamTicket(SQLModel, table=True):
    """Single use, short-lived: only its SHA-256 is stored, like an API key's."""

    __tablename__ = "stream_ticket"

    campaign_id: uuid.UUID = Field(foreign_key="campaign.id", primary_key=True)
    ticket_hash: str = Field(max_length=64, primary_key=True)
    user_id: uuid.UUID = Field(foreign_key="user_account.id")
    expires_at: datetime = Field(sa_type=Timestamp)


class StreamTicketPublic(BaseModel):
    ticket: str = Field(description="pass as ?ticket= to GET .../events, once, before expires_at")
    expires_at: datetime
    url: str = Field(description="the stream's path with the ticket, for EventSource")
