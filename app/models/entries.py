"""API shapes of log entries, roll requests and the fairness view."""

from __future__ import annotations

import uuid
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Visibility = Literal["public", "gm", "blind", "self"]
HASH_PATTERN = r"^[0-9a-f]{64}$"


class DrawPublic(BaseModel):
    sides: int
    face: int


class FollowUpPublic(BaseModel):
    seq: int
    kind: str
    status: str | None = Field(description="e.g. pending, sincere, applied, refused")


class LogEntryPublic(BaseModel):
    """FAIR-10: an entry with everything needed to replay it and check its hashes."""

    seq: int
    epoch: int
    kind: str
    created_at: str = Field(description="RFC 3339 UTC with microseconds")
    actor_id: str
    character_id: str | None
    visibility: Visibility
    follows: int | None = Field(default=None, description="seq of the entry this follows up")
    request: dict[str, Any] = Field(description="every input the rules used")
    draws: list[DrawPublic] = Field(description="dice in the order the rules drew them")
    result: dict[str, Any]
    effects: list[dict[str, Any]] = Field(description="changes applied to sheets and campaign")
    prev_hash: str
    content_hash: str
    hash: str
    follow_ups: list[FollowUpPublic] = Field(
        default_factory=list,
        description="derived for the API, not part of the hashed entry: the entries that "
        "follow this one up, with their status (e.g. a Talisman invocation pending a ruling)",
    )
    triggered: list[LogEntryPublic | RedactedEntryPublic] = Field(
        default_factory=list,
        description="in the response to a roll only: entries its rules set off at once "
        "(e.g. the panic roll of FAB-42), each its own entry in the log",
    )


class RedactedEntryPublic(BaseModel):
    """FAIR-13: an entry the caller may not see: enough to check the chain, no content."""

    seq: int
    epoch: int
    kind: str
    visibility: Visibility
    created_at: str
    prev_hash: str
    content_hash: str
    hash: str
    redacted: Literal[True]


EntryView = LogEntryPublic | RedactedEntryPublic
LogEntryPublic.model_rebuild()


class EntriesPublic(BaseModel):
    data: list[EntryView]
    next_after_seq: int | None = Field(
        description="pass as after_seq for the next page; null on the last page"
    )


class RollBase(BaseModel):
    model_config = ConfigDict(extra="forbid")

    character_id: uuid.UUID | None = Field(
        default=None, description="the character rolling; players roll only for their own"
    )
    visibility: Visibility = Field(
        default="public",
        description="public: everyone; gm and self: the roller and the GM; blind: the GM only",
    )


class FollowUpBase(BaseModel):
    model_config = ConfigDict(extra="forbid")

    follows: int = Field(ge=1, description="seq of the entry this follows up (FAIR-9)")
    visibility: Visibility | None = Field(
        default=None, description="defaults to the visibility of the entry it follows"
    )


class DiceRollCreate(RollBase):
    """Generic dice for tables the rules do not automate."""

    kind: Literal["dice"]
    notation: str = Field(
        min_length=1,
        max_length=100,
        description="terms joined by + or -: NdS, NdSkhK, NdSklK or an integer; "
        "≤ 100 dice, S ≤ 1000",
        examples=["3d6kh2+1"],
    )


class EpochPublic(BaseModel):
    epoch: int
    commitment: str = Field(description="SHA-256 of the server seed, published before any roll")
    client_seed: str
    first_seq: int = Field(description="seq of the epoch_opened entry")
    first_roll_seq: int | None
    last_seq: int | None = Field(description="seq of the epoch_closed entry; null while open")
    server_seed: str | None = Field(description="revealed once the epoch is closed")


class FairnessPublic(BaseModel):
    campaign_id: uuid.UUID
    current: EpochPublic
    past: list[EpochPublic]


class ClientSeedUpdate(BaseModel):
    client_seed: str = Field(
        max_length=64, pattern=r"^[A-Za-z0-9_-]*$", description="FAIR-1: 0..64 of [A-Za-z0-9_-]"
    )


class FailurePublic(BaseModel):
    seq: int | None
    reason: str


class VerifyPublic(BaseModel):
    ok: bool
    entries_checked: int
    rederived: int = Field(description="entries whose draws were re-derived from a revealed seed")
    replayed: int = Field(description="entries replayed through the rules to the same result")
    first_failure: FailurePublic | None
