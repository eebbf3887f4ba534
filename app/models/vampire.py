"""Roll requests of Vampire: the bodies of POST .../rolls."""

from __future__ import annotations

import uuid
from typing import Literal

from pydantic import Field

from app.models.entries import RollBase, Visibility

Attribute = Literal[
    "force",
    "dexterite",
    "vigueur",
    "charisme",
    "manipulation",
    "apparence",
    "perception",
    "intelligence",
    "astuce",
]


class VampireActionCreate(RollBase):
    """VAM-10..30: attribute + ability (+ modifier) D10 against a difficulty."""

    kind: Literal["vampire.action"]
    character_id: uuid.UUID
    attribute: Attribute
    ability: str | None = Field(
        default=None, max_length=40, pattern=r"^[a-z][a-z0-9_]{0,39}$", description="VAM-2"
    )
    modifier: int = Field(default=0, ge=-10, le=10, description="the Storyteller's modifier")
    difficulty: int | None = Field(
        default=None, ge=2, le=10, description="VAM-11: 6 by default; a retry keeps its action's"
    )
    explosive: bool | None = Field(
        default=None,
        description="VAM-14: a 10 counts twice; by default when the attribute is 5 "
        "(the Storyteller sets or clears it)",
    )
    tense: bool = Field(default=False, description="VAM-20: combat or a tense situation")
    willpower: bool = Field(default=False, description="VAM-21: spend 1 Willpower for a success")
    take_automatic: bool = Field(
        default=False, description="VAM-20: take a marginal success without rolling"
    )
    retry_of: int | None = Field(
        default=None, ge=1, description="VAM-30: seq of the failed roll this retries"
    )
    waive_retry_penalty: bool = Field(
        default=False, description="VAM-30: the Storyteller waives the retry penalty"
    )
    visibility: Visibility | None = Field(  # type: ignore[assignment]
        default=None, description="public by default; a retry keeps its action's visibility"
    )


class VampireWillpowerRestoreCreate(RollBase):
    """VAM-3: the Storyteller restores Willpower."""

    kind: Literal["vampire.willpower_restore"]
    character_id: uuid.UUID
    amount: int = Field(default=1, ge=1, le=10)
