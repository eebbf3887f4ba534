"""Grapples (FAB-63): the hold, breaking free, strangling."""

from __future__ import annotations

from typing import TYPE_CHECKING

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
from app.engine.errors import InvalidInput, refusal
from app.engine.rulesets.fabulae.acting import check_may_act, why_not
from app.engine.rulesets.fabulae.bodies import (
    FabulaeBreakFreeCreate,
    FabulaeGrappleCreate,
    FabulaeStrangleCreate,
)
from app.engine.rulesets.fabulae.body import Body
from app.engine.rulesets.fabulae.combat import slow_action
from app.engine.rulesets.fabulae.damage import (
    awaits_defense,
    defense_of,
    defense_roll,
    effects_sum,
    waits_for_defense,
)
from app.engine.rulesets.fabulae.labels import text
from app.engine.rulesets.fabulae.pools import (
    CORRECTED,
    SYSTEM,
    FabulaeClock,
    FabulaeDice,
    FabulaeDiceModifier,
    FabulaeOpposition,
    FabulaePool,
    FabulaeRollInputs,
    RollOutcome,
    action_roll,
    not_rolled,
    opposition,
    pool_of,
)
from app.engine.rulesets.fabulae.sequelae import no_context
from app.engine.rulesets.fabulae.sheet import FabulaeCharacter
from app.engine.rulesets.fabulae.states import FabulaeThreatened, StatesChoice, settle_now, threats
from app.engine.rulesets.fabulae.stress import SETS_OFF_PANIC, aftermath, panicked
from app.engine.rulesets.fabulae.tables import Defense
from app.engine.rulesets.fabulae.waits import FabulaeAwaiting

HOLD = FabulaeRollInputs(attribute="physique", skill="combat", in_combat=True)

if TYPE_CHECKING:
    from app.engine.odds import Odds


class FabulaeUnopposed(Model):
    """An attempt that never happened (FAB-14): the active side alone."""

    active: FabulaeDice


class FabulaeHoldResult(Model):
    roll: FabulaeOpposition | FabulaeUnopposed | None = None
    outcome: RollOutcome | None = Field(default=None, description="impossible (FAB-14) only")
    pool: FabulaePool | None = None


class FabulaeGrappleResult(FabulaeHoldResult):
    grappled: bool | None = None
    awaiting: FabulaeAwaiting | None = Field(
        default=None, description="FAB-62/63: no die drawn yet; the defender answers first"
    )


class FabulaeBreakFreeResult(FabulaeHoldResult):
    freed: bool | None = None
    hold_lost: str | None = Field(
        default=None, description="FAB-23 (corrected): why the holder no longer holds"
    )


def pair(
    table: Table, attacker_id: object, target_id: object
) -> tuple[FabulaeCharacter, FabulaeCharacter]:
    attacker = table.acting(str(attacker_id), FabulaeCharacter)
    target = table.character(str(target_id), FabulaeCharacter)
    if attacker.id == target.id:
        raise InvalidInput("a character does not attack themselves: choose another target")
    return attacker, target


def hold_aftermath(
    result: FabulaeHoldResult, active_id: str, passive_id: str, visibility: str, seq: int
) -> Aftermath:
    who: list[str | None] = []
    roll = result.roll
    if roll is None:  # waiting for the defense (FAB-62): nothing rolled yet
        return Aftermath()
    if panicked(roll.active):
        who.append(active_id)
    if isinstance(roll, FabulaeOpposition) and panicked(roll.passive):
        who.append(passive_id)
    pool = result.pool.pool if result.outcome == "impossible" and result.pool else None
    return aftermath(who, visibility, impossible_pool=pool, seq=seq)  # type: ignore[arg-type]


def hold_summary(
    name: str, what: str, result: FabulaeHoldResult, won: bool | None, language: Language
) -> str:
    colon = " :" if language == "fr" else ":"
    if result.outcome == "impossible":
        return f"{name} — {what}{colon} {text('outcome', 'impossible', language)}"
    if result.roll is None and won is None:
        return f"{name} — {what}{colon} {text('result', 'awaiting_defense', language)}"
    return f"{name} — {what}{colon} {text('outcome', 'success' if won else 'failure', language)}"


# --- fabulae.grapple ------------------------------------------------------------------------


class FabulaeGrappleRequest(FabulaeClock):
    attacker: FabulaeCharacter
    target: FabulaeCharacter
    defense: Defense | None = Field(default="none", description="None: it waits (FAB-62)")
    modifiers: list[FabulaeDiceModifier] = Field(default_factory=list)


def prepare_grapple(body: FabulaeGrappleCreate, table: Table) -> Prepared[FabulaeGrappleRequest]:
    attacker, target = pair(table, body.attacker_id, body.target_id)
    request = FabulaeGrappleRequest(
        system=SYSTEM,
        session=table.session,
        scene=table.scene,
        attacker=attacker,
        target=target,
        defense=defense_of(body.defense, "melee", target, table, body.visibility),
        modifiers=[FabulaeDiceModifier(source=m.source, dice=m.dice) for m in body.modifiers],
    )
    return Prepared(request, character_id=attacker.id, visibility=body.visibility)


def resolve_grapple(
    request: FabulaeGrappleRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[FabulaeGrappleResult]:
    """FAB-63: a melee grapple; on success the victim can only try to break free."""
    check_may_act(request.attacker, "fabulae.grapple", version)
    attacker, target = request.attacker, request.target
    if target.sheet.dead and version >= CORRECTED:
        raise refusal("FAB-51", f"{target.name} is dead")
    modifiers = list(request.modifiers)
    against = effects_sum(target.sheet, "attacks_against")
    if against and version >= CORRECTED:
        # FAB-102 (corrected): invisibility and deflection hinder grapples too.
        modifiers.append(FabulaeDiceModifier(source="powers on the target", dice=against))
    roll = HOLD.model_copy(update={"modifiers": modifiers})
    defense = request.defense
    if defense is None and pool_of(attacker, roll, request.session).pool > 0:
        # FAB-62: the defender chooses before any die falls (fabulae.defend answers); an
        # impossible grapple (FAB-14) is recorded at once, as before.
        awaiting = waits_for_defense(target.id)
        return Resolution(FabulaeGrappleResult(awaiting=awaiting))
    side, _ = action_roll(attacker, roll, request.session, dice)
    if side.outcome == "impossible":
        unopposed = FabulaeUnopposed(active=side)
        return Resolution(
            FabulaeGrappleResult(roll=unopposed, outcome="impossible", pool=side.pool)
        )
    if defense is None or defense == "none":  # None: impossible, returned above
        passive = not_rolled("failure", dice=False)
    else:
        parry = defense_roll(target, defense, version)
        passive, _ = action_roll(target, parry, request.session, dice)
    opposed = opposition(side, passive, version)
    victim = Body(target)
    if opposed.outcome == "success":
        victim.sheet.grappled_by = attacker.id
    result = FabulaeGrappleResult(roll=opposed, grappled=opposed.outcome == "success")
    return Resolution(result, victim.effects("FAB-63"))


def after_grapple(
    prepared: Prepared[FabulaeGrappleRequest],
    resolution: Resolution[FabulaeGrappleResult],
    seq: int,
) -> Aftermath:
    request, result = prepared.request, resolution.result
    return awaits_defense(
        hold_aftermath(result, request.attacker.id, request.target.id, prepared.visibility, seq),
        result.awaiting,
        request.attacker.name,
        request.target.name,
    )


def grapple_summary(
    request: FabulaeGrappleRequest, result: FabulaeGrappleResult, language: Language
) -> str:
    what = f"{'agrippe' if language == 'fr' else 'grapples'} {request.target.name}"
    return hold_summary(request.attacker.name, what, result, result.grappled, language)


def grapple_outcome(result: FabulaeGrappleResult) -> Outcome:
    if result.outcome == "impossible":
        return Outcome("outcome", "impossible")
    if result.awaiting is not None:
        return Outcome("result", "awaiting_defense")
    return Outcome("result", "grappled") if result.grappled else Outcome("outcome", "failure")


def grapple_odds_of(request: FabulaeGrappleRequest, version: RulesVersion) -> Odds:
    """Issue 21: the exact odds (odds_attack.py, which builds on this module)."""
    from app.engine.rulesets.fabulae.odds_attack import grapple_odds

    return grapple_odds(request, version)


GRAPPLE: RollKind[FabulaeGrappleCreate, FabulaeGrappleRequest, FabulaeGrappleResult] = RollKind(
    name="fabulae.grapple",
    other_side=(("defense", "target_id", "FAB-62"),),
    asks_other_side=frozenset({"defense"}),
    gm_decides=(("modifiers", "FAB-14"),),
    npc_values=(
        ("/pool", "/attacker"),
        ("/roll/active/pool", "/attacker"),
        ("/roll/passive/pool", "/target"),
    ),
    cost=slow_action,
    title="Grapple",
    body=FabulaeGrappleCreate,
    request=FabulaeGrappleRequest,
    result=FabulaeGrappleResult,
    prepare=prepare_grapple,
    resolve=resolve_grapple,
    summary=grapple_summary,
    after=after_grapple,
    triggers=SETS_OFF_PANIC,
    outcome=grapple_outcome,
    odds=grapple_odds_of,
)


# --- fabulae.break_free ---------------------------------------------------------------------


class FabulaeBreakFreeRequest(FabulaeClock):
    character: FabulaeCharacter
    holder: FabulaeCharacter


def prepare_break_free(
    body: FabulaeBreakFreeCreate, table: Table
) -> Prepared[FabulaeBreakFreeRequest]:
    victim = table.acting(body.character_id, FabulaeCharacter)
    holder_id = victim.sheet.grappled_by
    if holder_id is None:
        raise InvalidInput(f"{victim.name} is not held by anyone (FAB-63)")
    holder = table.character(holder_id, FabulaeCharacter)
    request = FabulaeBreakFreeRequest(
        system=SYSTEM, session=table.session, scene=table.scene, character=victim, holder=holder
    )
    return Prepared(request, character_id=victim.id, visibility=body.visibility)


def resolve_break_free(
    request: FabulaeBreakFreeRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[FabulaeBreakFreeResult]:
    """FAB-63: the victim's slow action, an opposed Combat roll against the hold."""
    check_may_act(request.character, "fabulae.break_free", version)
    victim, holder = request.character, request.holder
    if victim.sheet.grappled_by != holder.id:
        raise refusal("FAB-63", f"{victim.name} is not held by {holder.name}")
    down = why_not(holder, "fabulae.strangle") if version >= CORRECTED else None
    if down is not None and down[0] != "FAB-63":
        # FAB-23 (corrected): a holder who collapsed holds no one; nothing to roll against.
        body = Body(victim)
        body.sheet.grappled_by = None
        return Resolution(
            FabulaeBreakFreeResult(freed=True, hold_lost=down[1]), body.effects("FAB-63")
        )
    side, _ = action_roll(victim, HOLD, request.session, dice)
    if side.outcome == "impossible":
        unopposed = FabulaeUnopposed(active=side)
        return Resolution(
            FabulaeBreakFreeResult(roll=unopposed, outcome="impossible", pool=side.pool)
        )
    hold, _ = action_roll(holder, HOLD, request.session, dice)
    opposed = opposition(side, hold, version)
    body = Body(victim)
    if opposed.outcome == "success":
        body.sheet.grappled_by = None
    result = FabulaeBreakFreeResult(roll=opposed, freed=opposed.outcome == "success")
    return Resolution(result, body.effects("FAB-63"))


def after_break_free(
    prepared: Prepared[FabulaeBreakFreeRequest],
    resolution: Resolution[FabulaeBreakFreeResult],
    seq: int,
) -> Aftermath:
    request = prepared.request
    return hold_aftermath(
        resolution.result, request.character.id, request.holder.id, prepared.visibility, seq
    )


def break_free_summary(
    request: FabulaeBreakFreeRequest, result: FabulaeBreakFreeResult, language: Language
) -> str:
    what = "se dégage" if language == "fr" else "breaks free"
    return hold_summary(request.character.name, what, result, result.freed, language)


def break_free_outcome(result: FabulaeBreakFreeResult) -> Outcome:
    if result.outcome == "impossible":
        return Outcome("outcome", "impossible")
    return Outcome("result", "freed" if result.freed else "held")


def break_free_odds_of(request: FabulaeBreakFreeRequest, version: RulesVersion) -> Odds:
    """Issue 21: the exact odds (odds_attack.py, which builds on this module)."""
    from app.engine.rulesets.fabulae.odds_attack import break_free_odds

    return break_free_odds(request, version)


BREAK_FREE: RollKind[FabulaeBreakFreeCreate, FabulaeBreakFreeRequest, FabulaeBreakFreeResult] = (
    RollKind(
        name="fabulae.break_free",
        npc_values=(
            ("/pool", "/character"),
            ("/roll/active/pool", "/character"),
            ("/roll/passive/pool", "/holder"),
            ("/hold_lost", "/holder"),
        ),
        cost=slow_action,
        title="Break free",
        body=FabulaeBreakFreeCreate,
        request=FabulaeBreakFreeRequest,
        result=FabulaeBreakFreeResult,
        prepare=prepare_break_free,
        resolve=resolve_break_free,
        summary=break_free_summary,
        after=after_break_free,
        triggers=SETS_OFF_PANIC,
        outcome=break_free_outcome,
        odds=break_free_odds_of,
    )
)


# --- fabulae.strangle -----------------------------------------------------------------------


class FabulaeStrangleRequest(FabulaeClock):
    attacker: FabulaeCharacter
    target: FabulaeCharacter
    states: StatesChoice = "auto"


class FabulaeStrangleResult(FabulaeThreatened):
    damage: int


def prepare_strangle(body: FabulaeStrangleCreate, table: Table) -> Prepared[FabulaeStrangleRequest]:
    attacker, target = pair(table, body.attacker_id, body.target_id)
    request = FabulaeStrangleRequest(
        system=SYSTEM,
        session=table.session,
        scene=table.scene,
        attacker=attacker,
        target=target,
        states=body.states,
    )
    return Prepared(request, character_id=attacker.id, visibility=body.visibility)


def resolve_strangle(
    request: FabulaeStrangleRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[FabulaeStrangleResult]:
    """FAB-63: while the hold lasts, 1 net damage per round, automatically."""
    check_may_act(request.attacker, "fabulae.strangle", version)
    holder, victim = request.attacker, request.target
    if victim.sheet.grappled_by != holder.id:
        raise refusal("FAB-63", f"{holder.name} does not hold {victim.name}")
    body = Body(victim)
    now = settle_now(request.states, victim)
    threatened = threats(body, 1, "physical", "FAB-63", dice, no_context(), now, version=version)
    result = FabulaeStrangleResult(damage=1, **threatened.model_dump(exclude_unset=True))
    return Resolution(result, body.effects("FAB-63"))


def strangle_summary(
    request: FabulaeStrangleRequest, result: FabulaeStrangleResult, language: Language
) -> str:
    what = "étrangle" if language == "fr" else "strangles"
    word = "dégât" if language == "fr" else "damage"
    colon = " :" if language == "fr" else ":"
    return f"{request.attacker.name} {what} {request.target.name}{colon} {result.damage} {word}"


STRANGLE: RollKind[FabulaeStrangleCreate, FabulaeStrangleRequest, FabulaeStrangleResult] = RollKind(
    name="fabulae.strangle",
    other_side=(("states", "target_id", "FAB-34"),),
    asks_other_side=frozenset({"states"}),
    npc_values=(
        ("/states_checked", "/target"),
        ("/pending_states", "/target"),
    ),
    cost=slow_action,
    title="Strangle",
    body=FabulaeStrangleCreate,
    request=FabulaeStrangleRequest,
    result=FabulaeStrangleResult,
    prepare=prepare_strangle,
    resolve=resolve_strangle,
    summary=strangle_summary,
    # FAIR-20: a full track draws sequela dice, and any entry that draws a die is a roll.
    is_roll=True,
)
