"""The audit log, seed epochs, and idempotency keys."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any, Literal

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

from app.models.base import Timestamp, json_field, timestamp_field

Visibility = Literal["public", "gm", "blind", "self"]


class SeedEpoch(SQLModel, table=True):
    """FAIR-1: one seed epoch of a campaign's dice stream. The seed stays secret until closed."""

    __tablename__ = "seed_epoch"

    campaign_id: uuid.UUID = Field(foreign_key="campaign.id", primary_key=True)
    number: int = Field(primary_key=True)
    server_seed: str = Field(max_length=64, description="hex; revealed only when closed")
    commitment: str = Field(max_length=64)
    client_seed: str = Field(default="", max_length=64)
    opened_seq: int
    first_roll_seq: int | None = None
    closed_seq: int | None = None
    # FAIR-16: keys every hidden entry of the epoch; never revealed to the players. None on
    # epochs opened before hidden rolls (their entries verify under FAIR-1..15).
    hidden_seed: str | None = Field(default=None, max_length=64)
    hidden_root: str | None = Field(default=None, max_length=64, description="published")


class LogEntry(SQLModel, table=True):
    """FAIR-10: one append-only, hash-chained entry. A trigger refuses UPDATE and DELETE."""

    __tablename__ = "log_entry"
    __table_args__ = (
        sa.Index("ix_log_entry_campaign_id_kind_seq", "campaign_id", "kind", "seq"),
        sa.Index("ix_log_entry_campaign_id_character_id_seq", "campaign_id", "character_id", "seq"),
        sa.Index("ix_log_entry_campaign_id_follows", "campaign_id", "follows"),
        # Issue 21: the audit's filters by actor, session and scene (campaign first).
        sa.Index("ix_log_entry_campaign_id_actor_id_seq", "campaign_id", "actor_id", "seq"),
        sa.Index(
            "ix_log_entry_campaign_id_session_scene_seq", "campaign_id", "session", "scene", "seq"
        ),
    )

    campaign_id: uuid.UUID = Field(foreign_key="campaign.id", primary_key=True)
    seq: int = Field(primary_key=True)
    epoch: int
    kind: str = Field(max_length=60)
    created_at: str = Field(max_length=32, description="RFC 3339 UTC with microseconds")
    actor_id: str = Field(max_length=36)
    character_id: str | None = Field(default=None, max_length=36)
    visibility: str = Field(max_length=10)
    follows: int | None = None
    rules: str | None = Field(
        default=None, max_length=48, description="the rules version that resolved the entry"
    )
    request: dict[str, Any] = json_field(default_factory=dict)
    draws: list[dict[str, Any]] = json_field(default_factory=list)
    result: dict[str, Any] = json_field(default_factory=dict)
    effects: list[dict[str, Any]] = json_field(default_factory=list)
    fairness: int | None = Field(
        default=None, description="the fairness rules it was made under (none: FAIR-1..15)"
    )
    label: str | None = Field(
        default=None, max_length=100, description="what the roll is for, as its roller named it"
    )
    prev_hash: str = Field(max_length=64)
    content_hash: str = Field(max_length=64)
    hash: str = Field(max_length=64)
    # FAIR-17: a hidden entry's key and Merkle proof (12 hashes, joined), outside its hashed
    # content; shown only to whoever may see the entry.
    entry_key: str | None = Field(default=None, max_length=64)
    proof: str | None = Field(default=None, max_length=768)
    # FAIR-18: path, salt and value of each commitment in the entry; the GM's, never hashed.
    disclosures: list[dict[str, Any]] | None = json_field(default=None, nullable=True)
    # Issue 21: the session and scene the entry was made in (0: before the first), recorded
    # at append time beside the entry, never hashed (FAIR-10 fixes the hashed fields).
    session: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    scene: int = Field(default=0, sa_column_kwargs={"server_default": "0"})

    def as_entry(self) -> dict[str, Any]:
        """The entry exactly as it was hashed (FAIR-10/11)."""
        entry: dict[str, Any] = {
            "seq": self.seq,
            "epoch": self.epoch,
            "kind": self.kind,
            "created_at": self.created_at,
            "actor_id": self.actor_id,
            "character_id": self.character_id,
            "visibility": self.visibility,
            "request": self.request,
            "draws": self.draws,
            "result": self.result,
            "effects": self.effects,
        }
        if self.follows is not None:
            entry["follows"] = self.follows
        if self.rules is not None:
            entry["rules"] = self.rules
        if self.fairness is not None:
            entry["fairness"] = self.fairness
        if self.label is not None:
            entry["label"] = self.label
        entry.update(
            {"prev_hash": self.prev_hash, "content_hash": self.content_hash, "hash": self.hash}
        )
        return entry

    def key_attachment(self) -> dict[str, Any]:
        """FAIR-17: the entry key and proof of a hidden entry, for whoever may see it."""
        return key_attachment(self.entry_key, self.proof)

    def value_disclosures(self) -> list[dict[str, Any]] | None:
        """FAIR-18: what opens the entry's commitments, for whoever may see those values."""
        return self.disclosures

    def typed(self) -> None:
        """A stored entry holds JSON only; its views parse it (see services/views.py)."""
        return None


class DisclosedEntry(SQLModel, table=True):
    """FAIR-19: a hidden entry the GM disclosed to every member, by the `disclosed` entry at
    `disclosed_seq` (the log itself is append-only: this records who may now read it)."""

    __tablename__ = "disclosed_entry"

    campaign_id: uuid.UUID = Field(foreign_key="campaign.id", primary_key=True)
    seq: int = Field(primary_key=True)
    disclosed_seq: int


class HeldEffects(SQLModel, table=True):
    """FAIR-21: a hidden roll that read player characters' sheets, which every member reads,
    waits for the GM (`applied_seq`): its changes to them (`effects`, maybe none) are held,
    and the rules read those sheets again only after the GM applies it."""

    __tablename__ = "held_effects"

    campaign_id: uuid.UUID = Field(foreign_key="campaign.id", primary_key=True)
    seq: int = Field(primary_key=True)
    effects: list[dict[str, Any]] = json_field()
    characters: list[str] = json_field(default_factory=list)
    # Its follow-ons (a panic) are rolled when the GM applies it: their kind would tell.
    sets_off: bool = False
    applied_seq: int | None = None


class IdempotencyKey(SQLModel, table=True):
    """A client's Idempotency-Key: a retry with the same key and body gets the stored response."""

    __tablename__ = "idempotency_key"

    user_id: uuid.UUID = Field(foreign_key="user_account.id", primary_key=True)
    scope: str = Field(max_length=40, primary_key=True)
    key: str = Field(max_length=255, primary_key=True)
    fingerprint: str = Field(max_length=64)
    status_code: int | None = None
    response_body: Any | None = json_field(default=None, nullable=True)
    created_at: datetime = timestamp_field()
    completed_at: datetime | None = Field(default=None, sa_type=Timestamp)


def key_attachment(entry_key: str | None, proof: str | None) -> dict[str, Any]:
    if entry_key is None or proof is None:
        return {}
    return {"entry_key": entry_key, "proof": [proof[i : i + 64] for i in range(0, len(proof), 64)]}
