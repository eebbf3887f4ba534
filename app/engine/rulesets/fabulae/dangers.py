"""Environmental dangers (FAB-73): fire, explosion, drowning, poison, disease, cold."""

from __future__ import annotations

from typing import Final

from pydantic import Field

from app.engine.contract import (
    Aftermath,
    Language,
    Outcome,
    Prepared,
    Resolution,
    RollKind,
    RulesVersion,
    Table,
)
from app.engine.dice import DiceSource
from app.engine.errors import invalid
from app.engine.rulesets.fabulae.bodies import FabulaeDangerCreate
from app.engine.rulesets.fabulae.body import Body
from app.engine.rulesets.fabulae.damage import FabulaeProtection, protect
from app.engine.rulesets.fabulae.labels import text
from app.engine.rulesets.fabulae.pools import (
    SYSTEM,
    FabulaeClock,
    FabulaeDice,
    FabulaeOpposition,
    FabulaeRollInputs,
    action_roll,
    opposition,
)
from app.engine.rulesets.fabulae.sequelae import no_context
from app.engine.rulesets.fabulae.sheet import FabulaeCharacter
from app.engine.rulesets.fabulae.states import FabulaeThreatened, StatesChoice, settle_now, threats
from app.engine.rulesets.fabulae.stress import SETS_OFF_PANIC, aftermath, panicked, stress_gain
from app.engine.rulesets.fabulae.tables import Danger

DANGERS: Final = frozenset({"fire", "explosion", "drowning", "poison", "disease", "cold"})
HEAVY_METAL_ARMOR: Final = frozenset({"guard_mail", "factory_plate"})  # FAB-73 drowning
SAVE: Final = FabulaeRollInputs(attribute="physique", skill="resistance")


class FabulaeDangerRequest(FabulaeClock):
    character: FabulaeCharacter
    danger: Danger
    intensity: int | None = Field(
        default=None, description="dice of the fire (3), the blast (6), the venom (3)"
    )
    round: int = 1
    damage: int = 1
    medium_range: bool = False
    phase: str = "float"
    states: StatesChoice = "auto"


class FabulaeDangerResult(FabulaeThreatened):
    danger: Danger
    dice: list[int] | None = None
    damage: int | None = None
    note: str | None = None
    base: int | None = None
    extra_net: int | None = None
    protection: FabulaeProtection | None = None
    sinks: bool | None = None
    reason: str | None = None
    roll: FabulaeDice | FabulaeOpposition | None = None
    per: str | None = None
    stress_gained: int | None = None


def prepare_danger(body: FabulaeDangerCreate, table: Table) -> Prepared[FabulaeDangerRequest]:
    character = table.character(body.character_id, FabulaeCharacter)
    request = FabulaeDangerRequest(
        system=SYSTEM,
        session=table.session,
        scene=table.scene,
        character=character,
        danger=body.danger,
        intensity=body.intensity,
        round=body.round,
        damage=body.damage,
        medium_range=body.medium_range,
        phase=body.phase,
        states=body.states,
    )
    return Prepared(request, character_id=character.id, visibility=body.visibility)


def resolve_danger(
    request: FabulaeDangerRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[FabulaeDangerResult]:
    """FAB-73: fire, explosion, drowning, poison, disease, cold: damage and stress."""
    danger = request.danger
    character = request.character
    body = Body(character)
    session = request.session
    now = settle_now(request.states, character)
    result = FabulaeDangerResult(danger=danger)
    damage = 0
    if danger == "fire":
        intensity = 3 if request.intensity is None else request.intensity
        if not 3 <= intensity <= 9:
            raise invalid("FAB-73", "a fire's intensity is 3..9 dice")
        count = intensity + max(0, request.round - 1)  # +1 D6 each round
        faces = [dice.roll(6) for _ in range(count)]
        damage = sum(1 for face in faces if face == 6)
        result.dice, result.damage = faces, damage
        if body.sheet.broken:
            result.note = "broken by fire: a death test every round (FAB-73)"
    elif danger == "explosion":
        intensity = 6 if request.intensity is None else request.intensity
        base = request.damage
        count = max(0, intensity - (6 if request.medium_range else 0))
        faces = [dice.roll(6) for _ in range(count)]
        extra = max(0, sum(1 for face in faces if face == 6) - 1)
        through, protection = protect(body, base, 0, dice)
        damage = through + extra
        result.dice, result.base, result.extra_net = faces, base, extra
        result.protection, result.damage = protection, damage
    elif danger == "drowning":
        armor = body.sheet.armor
        phase = request.phase
        if phase == "float" and armor and armor.id in HEAVY_METAL_ARMOR:
            result.sinks, result.reason = True, f"{armor.id} sinks at once (FAB-73)"
        else:
            roll, _ = action_roll(character, SAVE, session, dice)
            failed = roll.outcome != "success"
            result.roll = roll
            if phase == "float":
                result.sinks = failed
            else:
                damage = 1 if failed else 0
                result.damage = damage
    elif danger in ("poison", "disease"):
        potency = 3 if request.intensity is None else request.intensity
        if not 3 <= potency <= 9:
            raise invalid("FAB-73", "toxicity and virulence are 3..9 dice")
        roll, _ = action_roll(character, SAVE, session, dice)
        faces = [dice.roll(6) for _ in range(potency)]
        opposing = FabulaeDice(
            outcome="failure", sixes=sum(1 for face in faces if face == 6), dice=faces
        )
        opposed = opposition(roll, opposing)
        damage = 0 if opposed.outcome == "success" else 1
        per = "round" if danger == "poison" else "day, and natural healing is blocked"
        result.roll, result.damage, result.per = opposed, damage, per
    else:  # cold
        roll, _ = action_roll(character, SAVE, session, dice)
        failed = roll.outcome != "success"
        damage = 1 if failed else 0
        result.roll, result.damage = roll, damage
        if failed:
            gain = stress_gain(body.sheet, 1)
            body.sheet.stress = body.sheet.stress + gain
            result.stress_gained = gain
    threatened = threats(body, damage, "physical", "FAB-73", dice, no_context(), now)
    for name in threatened.model_fields_set:
        setattr(result, name, getattr(threatened, name))
    return Resolution(result, body.effects("FAB-73"))


def after_danger(
    prepared: Prepared[FabulaeDangerRequest], resolution: Resolution[FabulaeDangerResult], seq: int
) -> Aftermath:
    roll = resolution.result.roll
    side = roll.active if isinstance(roll, FabulaeOpposition) else roll
    who = [prepared.request.character.id] if panicked(side) else []
    return aftermath(who, prepared.visibility)


def danger_summary(
    request: FabulaeDangerRequest, result: FabulaeDangerResult, language: Language
) -> str:
    """« Ada — Feu : 1 dégât »."""
    colon = " :" if language == "fr" else ":"
    head = f"{request.character.name} — {text('danger', result.danger, language)}{colon}"
    if result.sinks is not None:
        sinks = "coule" if language == "fr" else "sinks"
        floats = "flotte" if language == "fr" else "floats"
        return f"{head} {sinks if result.sinks else floats}"
    word = "dégât(s)" if language == "fr" else "damage"
    line = f"{head} {result.damage or 0} {word}"
    for landed in result.states_checked or []:
        if landed.state is not None:
            line += ", " + text("state", landed.state, language)
        if landed.broken:
            line += ", " + text("result", "broken", language)
            if landed.sequela is not None:
                line += f" ({text('sequela', landed.sequela.code, language)})"
    if result.pending_states:
        line += ", " + ("états en attente" if language == "fr" else "states pending")
    return line


def danger_outcome(result: FabulaeDangerResult) -> Outcome:
    """How the save read, where there is one; else the danger itself."""
    roll = result.roll
    side = roll.active if isinstance(roll, FabulaeOpposition) else roll
    if side is not None:
        return Outcome("outcome", side.outcome)
    return Outcome("danger", result.danger)


DANGER: RollKind[FabulaeDangerCreate, FabulaeDangerRequest, FabulaeDangerResult] = RollKind(
    name="fabulae.danger",
    npc_values=(
        ("/roll/pool", "/character"),
        ("/roll/active/pool", "/character"),
        ("/protection", "/character"),
        ("/states_checked", "/character"),
        ("/pending_states", "/character"),
    ),
    title="Environmental danger",
    body=FabulaeDangerCreate,
    request=FabulaeDangerRequest,
    result=FabulaeDangerResult,
    prepare=prepare_danger,
    resolve=resolve_danger,
    summary=danger_summary,
    gm_only="expose a character to a danger",
    after=after_danger,
    triggers=SETS_OFF_PANIC,
    outcome=danger_outcome,
)
