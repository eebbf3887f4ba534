"""Willpower restored by the Storyteller (VAM-3)."""

from __future__ import annotations

import uuid
from typing import Literal

from pydantic import Field

from app.engine.bodies import RollBody
from app.engine.contract import (
    Language,
    Model,
    Prepared,
    Resolution,
    RollKind,
    RulesVersion,
    Table,
    effect,
)
from app.engine.dice import DiceSource
from app.engine.errors import refusal
from app.engine.rulesets.vampire.sheet import VampireCharacter


class VampireWillpowerRestoreCreate(RollBody):
    """The Storyteller restores Willpower (VAM-3)."""

    kind: Literal["vampire.willpower_restore"]
    character_id: uuid.UUID
    amount: int = Field(default=1, ge=1, le=10)


class VampireWillpowerRestoreRequest(Model):
    system: Literal["vampire"]
    session: int
    scene: int
    character: VampireCharacter
    amount: int


class VampireWillpowerRestoreResult(Model):
    restored: int = Field(description="points restored")
    current: int = Field(description="Willpower after the restoration")


def prepare(
    body: VampireWillpowerRestoreCreate, table: Table
) -> Prepared[VampireWillpowerRestoreRequest]:
    character = table.character(body.character_id, VampireCharacter)
    request = VampireWillpowerRestoreRequest(
        system="vampire",
        session=table.session,
        scene=table.scene,
        character=character,
        amount=body.amount,
    )
    return Prepared(request, character_id=character.id, visibility=body.visibility)


def resolve(
    request: VampireWillpowerRestoreRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[VampireWillpowerRestoreResult]:
    """VAM-3: the Storyteller restores Willpower, never above its max."""
    character = request.character
    willpower = character.sheet.willpower
    current = min(willpower.max, willpower.current + request.amount)
    if current == willpower.current:
        raise refusal("VAM-3", f"{character.name}'s Willpower is already full")
    after = willpower.model_copy(update={"current": current})
    return Resolution(
        VampireWillpowerRestoreResult(restored=current - willpower.current, current=current),
        [effect(character.id, "willpower", willpower, after, "VAM-3")],
    )


def summary(
    request: VampireWillpowerRestoreRequest,
    result: VampireWillpowerRestoreResult,
    language: Language,
) -> str:
    name = request.character.name
    if language == "fr":
        return f"{name} — Volonté +{result.restored} → {result.current}"
    return f"{name} — Willpower +{result.restored} → {result.current}"


WILLPOWER_RESTORE: RollKind[
    VampireWillpowerRestoreCreate, VampireWillpowerRestoreRequest, VampireWillpowerRestoreResult
] = RollKind(
    name="vampire.willpower_restore",
    npc_values=(("/current", "/character"),),
    title="Willpower restored",
    body=VampireWillpowerRestoreCreate,
    request=VampireWillpowerRestoreRequest,
    result=VampireWillpowerRestoreResult,
    prepare=prepare,
    resolve=resolve,
    summary=summary,
    is_roll=False,
    gm_only="restore Willpower",
)
