"""The defender's answer (FAB-62): an attack or grapple that waits for the defense is
resolved by the follow-up in which the defender's side chooses parry, dodge or none."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.engine.contract import (
    Aftermath,
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
from app.engine.errors import InvalidInput, invalid
from app.engine.rulesets.fabulae.acting import may_defend
from app.engine.rulesets.fabulae.bodies import FabulaeDefendCreate
from app.engine.rulesets.fabulae.damage import (
    ATTACK,
    FabulaeAttackRequest,
    FabulaeAttackResult,
    after_attack,
    attack_outcome,
    attack_summary,
    resolve_attack,
)
from app.engine.rulesets.fabulae.grappling import (
    GRAPPLE,
    FabulaeGrappleRequest,
    FabulaeGrappleResult,
    after_grapple,
    grapple_outcome,
    grapple_summary,
    resolve_grapple,
)
from app.engine.rulesets.fabulae.pools import SYSTEM, FabulaeClock
from app.engine.rulesets.fabulae.sheet import FabulaeCharacter
from app.engine.rulesets.fabulae.stress import SETS_OFF_PANIC
from app.engine.rulesets.fabulae.waits import answer_visibility, waiting_entry

if TYPE_CHECKING:
    from app.engine.odds import Odds


class FabulaeDefendRequest(FabulaeClock):
    """The waiting attack or grapple, with the sheets as they are now and the defense."""

    attack: FabulaeAttackRequest | None = None
    grapple: FabulaeGrappleRequest | None = None


class FabulaeDefendResult(Model):
    attack: FabulaeAttackResult | None = None
    grapple: FabulaeGrappleResult | None = None


DEFEND_KIND = "fabulae.defend"


def prepare_defend(body: FabulaeDefendCreate, table: Table) -> Prepared[FabulaeDefendRequest]:
    kinds = (ATTACK.name, GRAPPLE.name)
    entry, waits = waiting_entry(table, body.follows, kinds, DEFEND_KIND, body.character_id)
    # The defender's player, or the GM; both sides read as they are now.
    defender = table.acting(waits.character_id, FabulaeCharacter)
    if body.defense != "none" and not may_defend(defender):
        raise invalid(
            "FAB-62", f"{defender.name} cannot parry or dodge now (Broken or held): answer none"
        )
    clock = {"session": table.session, "scene": table.scene, "defense": body.defense}
    request = FabulaeDefendRequest(system=SYSTEM, session=table.session, scene=table.scene)
    if entry.kind == ATTACK.name:
        attack = FabulaeAttackRequest.model_validate(entry.request)
        attacker = table.character(attack.attacker.id, FabulaeCharacter)
        request.attack = attack.model_copy(
            update={**clock, "attacker": attacker, "target": defender}
        )
    else:
        grapple = FabulaeGrappleRequest.model_validate(entry.request)
        attacker = table.character(grapple.attacker.id, FabulaeCharacter)
        request.grapple = grapple.model_copy(
            update={**clock, "attacker": attacker, "target": defender}
        )
    return Prepared(
        request,
        character_id=defender.id,
        visibility=answer_visibility(body.visibility, entry),
        follows=entry.seq,
    )


def resolve_defend(
    request: FabulaeDefendRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[FabulaeDefendResult]:
    """FAB-62: the waiting attack or grapple, resolved now with the chosen defense."""
    if request.attack is not None:
        attack = resolve_attack(request.attack, dice, version)
        return Resolution(FabulaeDefendResult(attack=attack.result), attack.effects)
    if request.grapple is None:
        raise InvalidInput("a defense answers an attack or a grapple")
    grapple = resolve_grapple(request.grapple, dice, version)
    return Resolution(FabulaeDefendResult(grapple=grapple.result), grapple.effects)


def after_defend(
    prepared: Prepared[FabulaeDefendRequest],
    resolution: Resolution[FabulaeDefendResult],
    seq: int,
) -> Aftermath:
    """What the resolved attack or grapple sets off (FAB-42's panic)."""
    request, result = prepared.request, resolution.result
    if request.attack is not None and result.attack is not None:
        waited = Prepared(request.attack, prepared.character_id, prepared.visibility)
        return after_attack(waited, Resolution(result.attack, resolution.effects), seq)
    assert request.grapple is not None and result.grapple is not None
    held = Prepared(request.grapple, prepared.character_id, prepared.visibility)
    return after_grapple(held, Resolution(result.grapple, resolution.effects), seq)


def defend_summary(
    request: FabulaeDefendRequest, result: FabulaeDefendResult, language: Language
) -> str:
    if request.attack is not None and result.attack is not None:
        return attack_summary(request.attack, result.attack, language)
    assert request.grapple is not None and result.grapple is not None
    return grapple_summary(request.grapple, result.grapple, language)


def defend_outcome(result: FabulaeDefendResult) -> Outcome:
    if result.attack is not None:
        return attack_outcome(result.attack)
    assert result.grapple is not None
    return grapple_outcome(result.grapple)


def _under(prefix: str, paths: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
    return tuple((f"{prefix}{value}", f"{prefix}{character}") for value, character in paths)


def defend_odds_of(request: FabulaeDefendRequest, version: RulesVersion) -> Odds:
    """Issue 21: the exact odds (odds_attack.py, which builds on this module)."""
    from app.engine.rulesets.fabulae.odds_attack import defend_odds

    return defend_odds(request, version)


DEFEND: RollKind[FabulaeDefendCreate, FabulaeDefendRequest, FabulaeDefendResult] = RollKind(
    name=DEFEND_KIND,
    npc_values=_under("/attack", ATTACK.npc_values) + _under("/grapple", GRAPPLE.npc_values),
    reaction=True,
    answered_in_encounter=True,
    title="Defense",
    body=FabulaeDefendCreate,
    request=FabulaeDefendRequest,
    result=FabulaeDefendResult,
    prepare=prepare_defend,
    resolve=resolve_defend,
    summary=defend_summary,
    after=after_defend,
    triggers=SETS_OFF_PANIC,
    outcome=defend_outcome,
    odds=defend_odds_of,
)
