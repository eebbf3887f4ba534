"""The campaign clock: sessions and scenes the GM starts."""

from __future__ import annotations

import uuid

from sqlmodel import Field, SQLModel

from app.engine.contract import Effect


class CharacterFacts(SQLModel):
    """What happened to one character between scenes; the systems' recharge rules read it."""

    character_id: uuid.UUID
    recollected: bool = Field(
        default=False,
        description="JDR-24 [D]: the PC could recollect (evening prayer, scripture, an icon)",
    )
    slept_safely: bool = Field(
        default=False, description="JDR-29a [C]: a full night of sleep away from danger"
    )


class ClockAdvance(SQLModel):
    night_passed: bool = Field(default=False, description="a night passed since the last scene")
    characters: list[CharacterFacts] = Field(default_factory=list, max_length=200)


class ClockPublic(SQLModel):
    current_session: int
    current_scene: int
    seq: int = Field(description="the audit entry that records this clock change")
    effects: list[Effect] = Field(
        default_factory=list, description="the recharges and other changes the clock applied"
    )
