"""Aiming (FAB-64 corrected): « Viser : Action lente préalable »; the next shot of the
character gets +2 dice (fine_gachette +3). In an encounter the aim is its own slow action
and the encounter carries it to the next shot; outside one, a shot says it was aimed."""

from __future__ import annotations

from app.engine.contract import (
    Language,
    Model,
    Outcome,
    Prepared,
    Resolution,
    RollKind,
    RulesVersion,
    Table,
)
from app.engine.dice import DiceSource
from app.engine.rulesets.fabulae.acting import check_may_act
from app.engine.rulesets.fabulae.bodies import FabulaeAimCreate
from app.engine.rulesets.fabulae.combat import slow_action
from app.engine.rulesets.fabulae.pools import SYSTEM, FabulaeClock, has_talent
from app.engine.rulesets.fabulae.sheet import FabulaeCharacter

AIM_KIND = "fabulae.aim"


class FabulaeAimRequest(FabulaeClock):
    character: FabulaeCharacter


class FabulaeAimResult(Model):
    bonus: int


def prepare_aim(body: FabulaeAimCreate, table: Table) -> Prepared[FabulaeAimRequest]:
    character = table.acting(str(body.character_id), FabulaeCharacter)
    request = FabulaeAimRequest(
        system=SYSTEM, session=table.session, scene=table.scene, character=character
    )
    return Prepared(request, character_id=character.id, visibility=body.visibility)


def resolve_aim(
    request: FabulaeAimRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[FabulaeAimResult]:
    """FAB-64: the bonus the next shot gets (FAB-90 fine_gachette: +3)."""
    check_may_act(request.character, AIM_KIND, version)
    bonus = 3 if has_talent(request.character.sheet, "fine_gachette") else 2
    return Resolution(FabulaeAimResult(bonus=bonus))


def aim_summary(request: FabulaeAimRequest, result: FabulaeAimResult, language: Language) -> str:
    word = "vise" if language == "fr" else "aims"
    return f"{request.character.name} {word} (+{result.bonus})"


AIM: RollKind[FabulaeAimCreate, FabulaeAimRequest, FabulaeAimResult] = RollKind(
    name=AIM_KIND,
    cost=slow_action,
    title="Aim",
    body=FabulaeAimCreate,
    request=FabulaeAimRequest,
    result=FabulaeAimResult,
    prepare=prepare_aim,
    resolve=resolve_aim,
    summary=aim_summary,
    is_roll=False,
    outcome=lambda result: Outcome("result", "aiming"),
)
