"""Users and their API keys (stored only as a SHA-256 hash)."""

from __future__ import annotations

import uuid
from datetime import datetime

from pydantic import field_validator
from sqlmodel import Field, SQLModel

from app.models.base import display_name, timestamp_field


class UserBase(SQLModel):
    name: str = Field(min_length=1, max_length=100, description="display name")

    _name = field_validator("name", mode="before")(display_name)


class User(UserBase, table=True):
    __tablename__ = "user_account"

    id: uuid.UUID = Field(default_factory=uuid.uuid4, primary_key=True)
    api_key_hash: str = Field(max_length=64, unique=True, index=True)
    created_at: datetime = timestamp_field()


class UserCreate(UserBase):
    pass


class UserPublic(UserBase):
    id: uuid.UUID


class UserCreated(UserPublic):
    api_key: str = Field(description="shown once: send it as `Authorization: Bearer <api_key>`")
