"""Environmental dangers (FAB-73): fire, explosion, drowning, poison, disease, cold; from the
corrections (FAB-55/73 corrected) the mental ones, phobia and horror, and « Faim & Sommeil »,
hunger and sleep."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

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
from app.engine.errors import invalid, refusal
from app.engine.rulesets.fabulae.acting import check_may_act
from app.engine.rulesets.fabulae.bodies import FabulaeDangerCreate
from app.engine.rulesets.fabulae.body import Body
from app.engine.rulesets.fabulae.damage import FabulaeProtection, protect
from app.engine.rulesets.fabulae.labels import text
from app.engine.rulesets.fabulae.pools import (
    CORRECTED,
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
from app.engine.rulesets.fabulae.tables import (
    CORRECTED_DANGERS,
    DEPRIVATION_BLOCKS,
    Danger,
    Deprivation,
    Track,
)

DANGERS: Final = frozenset({"fire", "explosion", "drowning", "poison", "disease", "cold"})
# FAB-73 (corrected) « Faim & Sommeil »: what a deprivation blocks until the GM lifts it.
DEPRIVATION_NOTES: Final[dict[str, str]] = {
    "hunger": "physical healing is blocked until the GM removes 'hunger' from the sheet's "
    "deprived, once the character has eaten (FAB-73)",
    "sleep": "mental healing and stress recovery are blocked until the GM removes 'sleep' "
    "from the sheet's deprived, once the character has slept (FAB-73)",
}
DEPRIVATION_WORDS: Final[dict[str, tuple[str, str]]] = {
    "hunger": ("physical healing blocked", "guérison physique bloquée"),
    "sleep": ("mental and stress healing blocked", "guérison mentale et du stress bloquée"),
}
HEAVY_METAL_ARMOR: Final = frozenset({"guard_mail", "factory_plate"})  # FAB-73 drowning
SAVE: Final = FabulaeRollInputs(attribute="physique", skill="resistance")

if TYPE_CHECKING:
    from app.engine.odds import Odds


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
    track: Track | None = Field(
        default=None, description="FAB-55/73 (corrected): the track the damage reaches"
    )
    deprived: list[Deprivation] | None = Field(
        default=None, description="FAB-73 (corrected): the sheet's deprivations after it"
    )


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
    check_may_act(request.character, "fabulae.danger", version)  # not on the dead
    danger = request.danger
    if danger in CORRECTED_DANGERS:
        if version < CORRECTED:
            raise invalid("FAB-73", f"{danger} is a danger of the corrected rules only")
        return corrected_danger(request, dice, version)
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
        opposed = opposition(roll, opposing, version)
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
    threatened = threats(
        body, damage, "physical", "FAB-73", dice, no_context(), now, version=version
    )
    for name in threatened.model_fields_set:
        setattr(result, name, getattr(threatened, name))
    return Resolution(result, body.effects("FAB-73"))


def corrected_danger(
    request: FabulaeDangerRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[FabulaeDangerResult]:
    """FAB-55/73 (corrected): the Phobique sequela's 1 mental damage a round near its source,
    a horror's mental damage, hunger (1 damage a week, physical healing blocked) and sleep
    (mental and stress healing blocked)."""
    danger = request.danger
    character = request.character
    body = Body(character)
    now = settle_now(request.states, character)
    result = FabulaeDangerResult(danger=danger)
    track: Track = "physical"
    rule = "FAB-73"
    if danger == "phobia":
        if not any(s.kind == "mental" and s.code == "phobic" for s in body.sheet.sequelae):
            raise refusal(
                "FAB-55",
                f"{character.name} carries no Phobique sequela: only a phobic character takes "
                "1 mental damage a round near the source of the phobia",
            )
        damage, track, rule = 1, "mental", "FAB-55"
        result.per = "round"
    elif danger == "horror":
        if request.damage < 1:
            raise invalid("FAB-73", "a horror deals 1 mental damage or more (damage)")
        damage, track = request.damage, "mental"
    else:  # hunger, sleep
        deprivation: Deprivation = "hunger" if danger == "hunger" else "sleep"
        damage = 0
        track = DEPRIVATION_BLOCKS[deprivation]  # the track it keeps from healing
        if deprivation == "hunger":
            if request.damage > 1:
                raise invalid(
                    "FAB-73", "hunger deals 1 damage a week (damage 1), 0 at the first 24 h"
                )
            damage, result.per = request.damage, "week"
        if deprivation not in body.sheet.deprived:
            body.sheet.deprived = [*body.sheet.deprived, deprivation]
        result.deprived = list(body.sheet.deprived)
        result.note = DEPRIVATION_NOTES[deprivation]
    result.damage, result.track = damage, track
    threatened = threats(body, damage, track, rule, dice, no_context(), now, version=version)
    for name in threatened.model_fields_set:
        setattr(result, name, getattr(threatened, name))
    return Resolution(result, body.effects(rule))


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
    if result.track == "mental":
        word += " mental(s)" if language == "fr" else " (mental)"
    line = f"{head} {result.damage or 0} {word}"
    if result.danger in DEPRIVATION_WORDS and result.deprived is not None:
        blocked = DEPRIVATION_WORDS[result.danger][1 if language == "fr" else 0]
        line = f"{head} {blocked}" if not result.damage else f"{line}, {blocked}"
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
    """How the save read, where there is one; else the danger itself. Against a poison or a
    disease the save is an opposed roll (FAB-73): it succeeds only by beating the potency's
    sixes, whatever its own dice showed."""
    if result.roll is not None:
        return Outcome("outcome", result.roll.outcome)
    return Outcome("danger", result.danger)


def danger_odds_of(request: FabulaeDangerRequest, version: RulesVersion) -> Odds:
    """Issue 21: the exact odds (odds_danger.py, which builds on this module)."""
    from app.engine.rulesets.fabulae.odds_danger import danger_odds

    return danger_odds(request, version)


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
    odds=danger_odds_of,
)
