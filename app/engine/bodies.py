"""What every roll body shares: the bodies of POST .../rolls that the rulesets extend."""

from __future__ import annotations

import uuid

from pydantic import BaseModel, ConfigDict, Field

from app.engine.contract import Visibility

MAX_SEQ = 2**31 - 1  # the log's seq column is a 32-bit integer: a larger one names no entry


class RollBody(BaseModel):
    """A roll: for a character, at a visibility."""

    model_config = ConfigDict(extra="forbid")

    character_id: uuid.UUID | None = Field(
        default=None, description="the character rolling; players roll only for their own"
    )
    visibility: Visibility = Field(
        default="public",
        description="public: everyone; gm and self: the roller and the GM; blind: the GM only",
    )


class FollowUpBody(BaseModel):
    """A follow-up: it acts on an entry already in the log (FAIR-9)."""

    model_config = ConfigDict(extra="forbid")

    follows: int = Field(ge=1, le=MAX_SEQ, description="seq of the entry this follows up (FAIR-9)")
    visibility: Visibility | None = Field(
        default=None, description="defaults to the visibility of the entry it follows"
    )
