"""The action roll (FAB-10..15, FAB-42, FAB-90 intimidator) and the opposed roll (FAB-36)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

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
from app.engine.rulesets.fabulae.acting import check_may_act
from app.engine.rulesets.fabulae.bodies import (
    FabulaeActionCreate,
    FabulaeOpposedCreate,
    FabulaeRollBody,
)
from app.engine.rulesets.fabulae.combat import action_cost, slow_action
from app.engine.rulesets.fabulae.labels import text
from app.engine.rulesets.fabulae.odds import action_odds, opposed_odds
from app.engine.rulesets.fabulae.pools import (
    SYSTEM,
    FabulaeClock,
    FabulaeDice,
    FabulaeDiceModifier,
    FabulaeOpposition,
    FabulaePool,
    FabulaeRollInputs,
    RollOutcome,
    action_roll,
    has_talent,
    not_rolled,
    opposition,
    pool_of,
)
from app.engine.rulesets.fabulae.sheet import FabulaeCharacter
from app.engine.rulesets.fabulae.stress import (
    SETS_OFF_PANIC,
    aftermath,
    impossible_pool,
    panicked,
    roll_name,
    roll_summary,
    rolled_outcome,
    stress_change,
    stress_gain,
)
from app.engine.rulesets.fabulae.waits import FabulaeAwaiting, asking, waits_for


def roll_inputs(body: FabulaeRollBody) -> FabulaeRollInputs:
    """The roll fields of a body, as requests record them."""
    return FabulaeRollInputs(
        attribute=body.attribute,
        skill=body.skill,
        difficulty=body.difficulty,
        helpers=body.helpers,
        modifiers=[FabulaeDiceModifier(source=m.source, dice=m.dice) for m in body.modifiers],
        talents=list(body.talents),
        passive=body.passive,
    )


# --- fabulae.action ---------------------------------------------------------------------------


class FabulaeActionRequest(FabulaeClock):
    character: FabulaeCharacter
    roll: FabulaeRollInputs
    target: FabulaeCharacter | None = Field(
        default=None, description="who the action is aimed at (FAB-90 intimidator)"
    )
    intimidation: Literal["stress", "flee"] = "stress"


class FabulaeIntimidated(Model):
    """FAB-90 intimidator: the target flees, or takes +1 stress."""

    character_id: str
    flees: bool | None = None
    stress: bool | None = None


class FabulaeActionResult(FabulaeDice):
    pool: FabulaePool
    passive: bool = Field(description="FAB-33: imposed by the GM, never pushed")
    intimidated: FabulaeIntimidated | None = None


def prepare_action(body: FabulaeActionCreate, table: Table) -> Prepared[FabulaeActionRequest]:
    character = table.acting(body.character_id, FabulaeCharacter)
    roll = roll_inputs(body)
    roll.in_combat = body.in_combat
    request = FabulaeActionRequest(
        system=SYSTEM, session=table.session, scene=table.scene, character=character, roll=roll
    )
    if body.target_id is not None:
        request.target = table.character(body.target_id, FabulaeCharacter)
        request.intimidation = body.intimidation
    return Prepared(request, character_id=character.id, visibility=body.visibility)


def resolve_action(
    request: FabulaeActionRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[FabulaeActionResult]:
    """FAB-10..15, FAB-42: an action roll; a 1 on a stress die is Panic."""
    check_may_act(request.character, "fabulae.action", version)
    character, roll = request.character, request.roll
    rolled, effects = action_roll(character, roll, request.session, dice)
    result = FabulaeActionResult(**rolled.model_dump(exclude_unset=True), passive=roll.passive)
    target = request.target
    if (
        target is not None
        and result.outcome == "success"
        and has_talent(character.sheet, "intimidator")
        and roll.attribute == "physique"
        and roll.skill == "mentir_convaincre"
    ):
        # FAB-90 intimidator: the target flees, or takes +1 stress.
        if request.intimidation == "flee":
            result.intimidated = FabulaeIntimidated(character_id=target.id, flees=True)
        else:
            effects += stress_change(target, stress_gain(target.sheet, 1), "FAB-90")
            result.intimidated = FabulaeIntimidated(character_id=target.id, stress=True)
    return Resolution(result, effects)


def after_action(
    prepared: Prepared[FabulaeActionRequest], resolution: Resolution[FabulaeActionResult], seq: int
) -> Aftermath:
    result = resolution.result
    who = [prepared.request.character.id] if panicked(result) else []
    pool = impossible_pool(result.outcome, result.pool)
    return aftermath(who, prepared.visibility, impossible_pool=pool, seq=seq)


def action_summary(
    request: FabulaeActionRequest, result: FabulaeActionResult, language: Language
) -> str:
    """« Ada — Physique + Combat : 6 4 2 | 1 → Panique »."""
    return roll_summary(request.character.name, roll_name(request.roll, language), result, language)


ACTION: RollKind[FabulaeActionCreate, FabulaeActionRequest, FabulaeActionResult] = RollKind(
    name="fabulae.action",
    roller_decides=(("talents", "FAB-90"), ("helpers", "FAB-13")),
    gm_decides=(
        ("difficulty", "FAB-12"),
        ("modifiers", "FAB-14"),
    ),
    npc_values=(("/pool", "/character"),),
    cost=action_cost,
    title="Action roll",
    body=FabulaeActionCreate,
    request=FabulaeActionRequest,
    result=FabulaeActionResult,
    prepare=prepare_action,
    resolve=resolve_action,
    summary=action_summary,
    after=after_action,
    triggers=SETS_OFF_PANIC,
    outcome=rolled_outcome,
    odds=action_odds,
)


# --- fabulae.opposed (FAB-36) ---------------------------------------------------------------


class FabulaeOpposedSideRequest(Model):
    character: FabulaeCharacter
    roll: FabulaeRollInputs


class FabulaeOpposedRequest(FabulaeClock):
    active: FabulaeOpposedSideRequest
    passive: FabulaeOpposedSideRequest
    passive_answers: bool = Field(
        default=False, description="FAB-36: the passive side chooses its talents first"
    )


class FabulaeOpposedResult(Model):
    """FAB-36's opposition (every field of FabulaeOpposition), or, before the passive
    side's player (or the GM) answers with fabulae.oppose, only `awaiting`."""

    active: FabulaeDice | None = None
    passive: FabulaeDice | None = None
    net: int | None = None
    feats: int | None = None
    winner: Literal["active", "passive"] | None = None
    outcome: RollOutcome | None = None
    label: str | None = None
    awaiting: FabulaeAwaiting | None = Field(
        default=None, description="FAB-36: no die drawn yet; the passive side answers first"
    )


def prepare_opposed(body: FabulaeOpposedCreate, table: Table) -> Prepared[FabulaeOpposedRequest]:
    active = table.acting(body.active.character_id, FabulaeCharacter)
    passive = table.character(body.passive.character_id, FabulaeCharacter)
    if active.id == passive.id:
        raise InvalidInput("an opposed roll needs two different characters")
    request = FabulaeOpposedRequest(
        system=SYSTEM,
        session=table.session,
        scene=table.scene,
        active=FabulaeOpposedSideRequest(character=active, roll=roll_inputs(body.active)),
        passive=FabulaeOpposedSideRequest(character=passive, roll=roll_inputs(body.passive)),
    )
    if passive_answers(passive, table, body.visibility):
        request.passive_answers = True
    return Prepared(request, character_id=active.id, visibility=body.visibility)


def passive_answers(passive: FabulaeCharacter, table: Table, visibility: str) -> bool:
    """FAB-36: whether the passive side's talents and helpers wait for whoever plays it (a
    character the roller does not play; an NPC answers at once under `npc_choices_auto`)."""
    if passive.kind != "pc" and table.options.get("npc_choices_auto"):
        return False
    hidden = visibility != "public"
    if table.chooses_for(passive.id, hidden):
        return False
    if hidden and passive.kind == "pc":
        raise invalid(
            "FAB-36",
            f"{passive.name}'s player chooses the passive side's talents and would learn "
            "of this hidden roll: roll it public",
        )
    return True


def resolve_opposed(
    request: FabulaeOpposedRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[FabulaeOpposedResult]:
    """FAB-36: both roll at once; the active side wins only with strictly more sixes."""
    check_may_act(request.active.character, "fabulae.opposed", version)
    session = request.session
    if (
        request.passive_answers
        and pool_of(request.active.character, request.active.roll, session).pool > 0
    ):
        passive_id = request.passive.character.id
        awaiting = waits_for("passive", passive_id, "fabulae.oppose", "FAB-36")
        return Resolution(FabulaeOpposedResult(awaiting=awaiting))
    if pool_of(request.active.character, request.active.roll, session).pool > 0:
        # Every check before the first die: a passive talent that adds nothing is refused.
        pool_of(request.passive.character, request.passive.roll, session)
    active, active_effects = action_roll(
        request.active.character, request.active.roll, session, dice
    )
    if active.outcome == "impossible":
        # FAB-14: the attempt never happens, so the defender rolls nothing either.
        return Resolution(
            as_result(opposition(active, not_rolled("not_rolled"), version)), active_effects
        )
    passive, passive_effects = action_roll(
        request.passive.character, request.passive.roll, session, dice
    )
    return Resolution(
        as_result(opposition(active, passive, version)), active_effects + passive_effects
    )


def as_result(opposed: FabulaeOpposition) -> FabulaeOpposedResult:
    return FabulaeOpposedResult.model_validate(opposed.dump())


def after_opposed(
    prepared: Prepared[FabulaeOpposedRequest],
    resolution: Resolution[FabulaeOpposedResult],
    seq: int,
) -> Aftermath:
    result, request = resolution.result, prepared.request
    if result.awaiting is not None:
        note = (
            f"{request.active.character.name} opposes {request.passive.character.name}: "
            "the passive side's talents and helpers (FAB-36)"
        )
        return asking(Aftermath(), result.awaiting, note)
    assert result.active is not None and result.passive is not None and result.outcome
    who: list[str | None] = []
    if result.outcome == "panic" or panicked(result.active):
        who.append(request.active.character.id)
    if panicked(result.passive):
        who.append(request.passive.character.id)
    pool = impossible_pool(result.outcome, result.active.pool)
    return aftermath(who, prepared.visibility, impossible_pool=pool, seq=seq)


def opposed_summary(
    request: FabulaeOpposedRequest, result: FabulaeOpposedResult, language: Language
) -> str:
    """« Ada contre Carl — 2 six contre 1 : Succès »."""
    versus = "contre" if language == "fr" else "vs"
    colon = " :" if language == "fr" else ":"
    head = f"{request.active.character.name} {versus} {request.passive.character.name}"
    if result.active is None or result.passive is None or result.outcome is None:
        return f"{head}{colon} {text('result', 'awaiting_passive', language)}"
    return (
        f"{head} — {result.active.sixes} {versus} {result.passive.sixes}{colon} "
        f"{text('outcome', result.outcome, language)}"
    )


def opposed_outcome(result: FabulaeOpposedResult) -> Outcome:
    if result.outcome is None:
        return Outcome("result", "awaiting_passive")
    return Outcome("outcome", result.outcome)


OPPOSED: RollKind[FabulaeOpposedCreate, FabulaeOpposedRequest, FabulaeOpposedResult] = RollKind(
    name="fabulae.opposed",
    roller_decides=(("active.talents", "FAB-90"), ("active.helpers", "FAB-13")),
    other_side=(
        ("passive.talents", "passive.character_id", "FAB-90"),
        ("passive.helpers", "passive.character_id", "FAB-13"),
    ),
    asks_other_side=frozenset({"passive.talents", "passive.helpers"}),
    gm_decides=(
        ("active.difficulty", "FAB-12"),
        ("active.modifiers", "FAB-14"),
        ("passive.difficulty", "FAB-12"),
        ("passive.modifiers", "FAB-14"),
    ),
    npc_values=(
        ("/active/pool", "/active/character"),
        ("/passive/pool", "/passive/character"),
    ),
    cost=slow_action,
    title="Opposed roll",
    body=FabulaeOpposedCreate,
    request=FabulaeOpposedRequest,
    result=FabulaeOpposedResult,
    prepare=prepare_opposed,
    resolve=resolve_opposed,
    summary=opposed_summary,
    after=after_opposed,
    triggers=SETS_OFF_PANIC,
    outcome=opposed_outcome,
    odds=opposed_odds,
)


def side_of(result: FabulaeDice | FabulaeOpposition) -> FabulaeDice:
    """The roller's own side of a result: the active side of an opposition."""
    return result.active if isinstance(result, FabulaeOpposition) else result
