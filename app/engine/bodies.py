"""What every roll body shares: the bodies of POST .../rolls that the rulesets extend."""

from __future__ import annotations

import uuid
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from app.engine.contract import Visibility

MAX_SEQ = 2**31 - 1  # the log's seq column is a 32-bit integer: a larger one names no entry

# What a roll is for, as its roller names it (issue 21): ≤ 100 characters on one line.
RollLabel = Annotated[
    str, StringConstraints(min_length=1, max_length=100, pattern=r"^[^\x00-\x1f\x7f]*$")
]
LABEL_DESCRIPTION = (
    "what the roll is for, as the table reads it (e.g. 'Attack the guard'); hashed with the "
    "entry as its top-level `label`"
)


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
    label: RollLabel | None = Field(default=None, description=LABEL_DESCRIPTION)


class FollowUpBody(BaseModel):
    """A follow-up: it acts on an entry already in the log (FAIR-9)."""

    model_config = ConfigDict(extra="forbid")

    follows: int = Field(ge=1, le=MAX_SEQ, description="seq of the entry this follows up (FAIR-9)")
    visibility: Visibility | None = Field(
        default=None, description="defaults to the visibility of the entry it follows"
    )
    label: RollLabel | None = Field(default=None, description=LABEL_DESCRIPTION)
