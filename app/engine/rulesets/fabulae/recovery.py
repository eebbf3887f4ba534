"""Recovery (FAB-80..82): rest, care by Soin, the Broken character's own Résistance roll,
and the second wind of FAB-90. From the corrections on, hunger and sleep (FAB-73 corrected,
the sheet's `deprived`) block the healing of their track, and a rest never ends Broken."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from pydantic import Field

from app.engine.contract import (
    Aftermath,
    Effect,
    Label,
    Language,
    Model,
    Outcome,
    Prepared,
    Resolution,
    RollKind,
    RulesVersion,
    Table,
    effect,
)
from app.engine.dice import DiceSource
from app.engine.errors import InvalidInput, refusal
from app.engine.rulesets.fabulae.acting import check_may_act
from app.engine.rulesets.fabulae.bodies import FabulaeRecoverCreate, FabulaeSecondWindCreate
from app.engine.rulesets.fabulae.body import Body
from app.engine.rulesets.fabulae.combat import slow_action
from app.engine.rulesets.fabulae.labels import text
from app.engine.rulesets.fabulae.pools import (
    CORRECTED,
    SYSTEM,
    FabulaeClock,
    FabulaeDice,
    FabulaeDiceModifier,
    FabulaePool,
    FabulaeRerolledFrom,
    FabulaeRollInputs,
    RollOutcome,
    action_roll,
    has_talent,
)
from app.engine.rulesets.fabulae.sheet import FabulaeCharacter, FabulaeSheet
from app.engine.rulesets.fabulae.states import track_of
from app.engine.rulesets.fabulae.stress import (
    SETS_OFF_PANIC,
    aftermath,
    impossible_pool,
    roll_summary,
    rolled_outcome,
)
from app.engine.rulesets.fabulae.tables import (
    DEPRIVATION_BLOCKS,
    PHYSICAL_TRACK,
    RecoverMode,
    RestDuration,
    Track,
)

SOIN_ATTRIBUTE: Final = {"physical": "intellect", "mental": "empathie"}
SELF_CARE_MALUS: Final = 2
REST_CLEARS: Final[dict[str, tuple[str, ...]]] = {
    "quart": ("epuise",),
    "tour": ("enerve",),
    "night": ("epuise", "enerve"),
}
REST_PP: Final[dict[str, int]] = {"quart": 1, "tour": 0, "night": 2}
REST_WORDS: Final = {
    "quart": Label("a quarter", "un quart"),
    "tour": Label("a watch", "un tour"),
    "night": Label("a night", "une nuit"),
}

if TYPE_CHECKING:
    from app.engine.odds import Odds


# FAB-73 (corrected) « Faim & Sommeil »: why a track does not heal, and how that ends.
DEPRIVED_WHY: Final[dict[str, str]] = {
    "hunger": "without food for 24 h, physical healing is blocked (FAB-73); it ends when the "
    "GM removes 'hunger' from the sheet's deprived once the character has eaten",
    "sleep": "without sleep for 24 h, mental healing and stress recovery are blocked "
    "(FAB-73); it ends when the GM removes 'sleep' from the sheet's deprived once the "
    "character has slept",
}
BROKEN_WHY: Final = (
    "a rest does not clear a box of the track that broke the character: Broken ends only by "
    "an ally's Soin or the character's own Résistance roll once per quart (FAB-81)"
)


def deprivation_of(sheet: FabulaeSheet, track: str) -> str | None:
    """FAB-73 (corrected): the deprivation on the sheet that blocks this track's healing."""
    return next((d for d in sheet.deprived if DEPRIVATION_BLOCKS[d] == track), None)


def refuse_deprived(character: FabulaeCharacter, track: str) -> None:
    """FAB-73 (corrected): no Soin nor Résistance heals a track its deprivation blocks."""
    deprivation = deprivation_of(character.sheet, track)
    if deprivation is not None:
        raise refusal("FAB-73", f"{character.name}: {DEPRIVED_WHY[deprivation]}")


def clearable(sheet: FabulaeSheet, track: str) -> list[str]:
    """States a Soin roll clears on a track, worst first (Épuisé and Énervé need rest)."""
    order = [s for s in reversed(track_of(sheet, track)) if s not in ("epuise", "enerve")]
    return [state for state in order if state in sheet.states]


def clear_states(
    character: FabulaeCharacter, states: list[str], rule: str
) -> tuple[list[str], list[Effect]]:
    before: list[str] = list(character.sheet.states)
    after = [state for state in before if state not in states]
    if after == before:
        return [], []
    cleared = [state for state in before if state in states]
    return cleared, [effect(character.id, "states", before, after, rule)]


def unbroken(character: FabulaeCharacter, states_after: list[str]) -> list[Effect]:
    """FAB-81: a free box on the track that broke the character ends Broken."""
    sheet = character.sheet
    track = sheet.broken_track
    if not sheet.broken or track is None:
        return []
    if all(box in states_after for box in track_of(sheet, track)):
        return []
    return [
        effect(character.id, "broken", True, False, "FAB-81"),
        effect(character.id, "broken_track", track, None, "FAB-81"),
    ]


def cleared_by_care(medic: bool, broken: bool, feats: int) -> int:
    """FAB-80/81: one state, two for a Broken character with a Prouesse; FAB-90 medic: two,
    three with a Prouesse."""
    if medic:
        return 3 if feats else 2
    return 2 if broken and feats else 1


# --- fabulae.recover (FAB-80..82) ---------------------------------------------------------


class FabulaeRecoverRequest(FabulaeClock):
    mode: RecoverMode
    healer: FabulaeCharacter | None = Field(default=None, description="care: who rolls Soin")
    track: Track | None = Field(default=None, description="care: the track Soin heals")
    helpers: int = 0
    modifiers: list[FabulaeDiceModifier] = Field(default_factory=list)
    duration: RestDuration | None = Field(default=None, description="rest: how long")
    patient: FabulaeCharacter


class FabulaeNotCleared(Model):
    """A state a rest would clear that it could not: the rule that holds it, and why."""

    state: str
    rule: str
    reason: str


class FabulaeRecoverResult(Model):
    """A rest (what it cleared, the PP it gave back) or a roll and what it cleared."""

    duration: str | None = None
    pp_gained: int | None = None
    pool: FabulaePool | None = None
    dice: list[int] | None = None
    stress_dice: list[int] | None = None
    sixes: int | None = None
    feats: int | None = None
    panic: bool | None = None
    outcome: RollOutcome | None = None
    label: str | None = None
    rerolled_from: FabulaeRerolledFrom | None = None
    cleared: list[str] | None = None
    track: str | None = None
    self_care: bool | None = None
    passive: bool | None = None
    not_cleared: list[FabulaeNotCleared] | None = Field(
        default=None,
        description="rest (from the corrections on): the states it could not clear, and why",
    )


def prepare_recover(body: FabulaeRecoverCreate, table: Table) -> Prepared[FabulaeRecoverRequest]:
    healer = None
    modifiers = [FabulaeDiceModifier(source=m.source, dice=m.dice) for m in body.modifiers]
    if body.mode == "care":
        if body.healer_id is None or body.track is None:
            raise InvalidInput("care needs healer_id (who rolls Soin) and track")
        healer = table.acting(body.healer_id, FabulaeCharacter)
        patient = table.character(body.character_id, FabulaeCharacter)
        roller = healer
    else:
        patient = table.acting(body.character_id, FabulaeCharacter)
        roller = patient
        if body.mode == "rest" and body.duration is None:
            raise InvalidInput("rest needs a duration: quart, tour or night")
    request = FabulaeRecoverRequest(
        system=SYSTEM, session=table.session, scene=table.scene, mode=body.mode, patient=patient
    )
    if healer is not None:
        request.healer = healer
        request.track = body.track
        request.helpers = body.helpers
        request.modifiers = modifiers
    elif body.mode == "rest":
        request.duration = body.duration
    return Prepared(request, character_id=roller.id, visibility=body.visibility)


def rolled_fields(rolled: FabulaeDice) -> FabulaeRecoverResult:
    return FabulaeRecoverResult(**rolled.model_dump(exclude_unset=True))


@dataclass(frozen=True)
class RecoveryTest:
    """The test a care or a Broken character's Résistance rolls (its odds read it too)."""

    roller: FabulaeCharacter
    inputs: FabulaeRollInputs
    track: Track
    self_care: bool


def recovery_test(request: FabulaeRecoverRequest, version: RulesVersion) -> RecoveryTest | None:
    """What the recovery rolls, after every refusal made before the dice; None for a rest,
    which draws no die (FAB-80..82)."""
    mode = request.mode
    patient = request.patient
    sheet = patient.sheet
    # The one who acts: the healer for care (its patient may be down), else the patient.
    actor = request.healer if mode == "care" and request.healer is not None else patient
    check_may_act(actor, f"fabulae.recover:{mode}", version)
    if mode == "rest":
        if request.duration is None:
            raise InvalidInput("duration must be quart, tour or night")
        return None
    if mode == "care":
        healer, track = request.healer, request.track
        if healer is None or track is None:
            raise InvalidInput("track must be physical or mental")
        self_care = healer.id == patient.id
        if self_care and sheet.broken:
            raise refusal(
                "FAB-81",
                "a Broken character is helpless: alone, only a Résistance roll once per quart "
                "(mode broken_resistance)",
            )
        if version >= CORRECTED:
            refuse_deprived(patient, track)
        own = [FabulaeDiceModifier(source="self-treatment", dice=-SELF_CARE_MALUS)]
        roll = FabulaeRollInputs(
            attribute="intellect" if track == "physical" else "empathie",  # FAB-4, FAB-80
            skill="soin",
            helpers=request.helpers,
            modifiers=[*request.modifiers, *(own if self_care else [])],
        )
        return RecoveryTest(healer, roll, track, self_care)
    if not sheet.broken:  # broken_resistance
        raise refusal("FAB-81", f"{patient.name} is not Broken")
    broken_track: Track = sheet.broken_track or "physical"
    if version >= CORRECTED:
        refuse_deprived(patient, broken_track)
    # FAB-4/FAB-43: Résistance with Physique for the body, Empathie for the mind.
    roll = FabulaeRollInputs(
        attribute="physique" if broken_track == "physical" else "empathie", skill="resistance"
    )
    return RecoveryTest(patient, roll, broken_track, False)


def resolve_recover(
    request: FabulaeRecoverRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[FabulaeRecoverResult]:
    """FAB-80..82: rest, Soin by an ally or oneself, the broken character's Résistance."""
    patient = request.patient
    sheet = patient.sheet
    test = recovery_test(request, version)
    if test is None:
        assert request.duration is not None  # recovery_test refuses a rest without one
        if version >= CORRECTED:
            return corrected_rest(patient, request.duration)
        return rest(patient, request.duration)
    rolled, effects = action_roll(test.roller, test.inputs, request.session, dice)
    result = rolled_fields(rolled)
    track = test.track
    if request.mode == "care":
        medic = has_talent(test.roller.sheet, "medic")
        broken = sheet.broken and sheet.broken_track == track
        rule = "FAB-81" if broken else "FAB-80"
        if result.outcome == "success":
            count = cleared_by_care(medic, broken, result.feats or 0)
            cleared, state_effects = clear_states(patient, clearable(sheet, track)[:count], rule)
            effects += state_effects
            # FAB-81 (corrected): only a care of the track that broke the character ends Broken.
            if broken or version < CORRECTED:
                effects += unbroken(patient, [s for s in sheet.states if s not in cleared])
            result.cleared = cleared
        result.track, result.self_care, result.passive = track, test.self_care, False
        return Resolution(result, effects)
    if result.outcome == "success":
        count = 2 if result.feats else 1
        cleared, state_effects = clear_states(patient, clearable(sheet, track)[:count], "FAB-81")
        effects += state_effects
        effects += unbroken(patient, [s for s in sheet.states if s not in cleared])
        result.cleared = cleared
    result.track, result.passive = track, False
    return Resolution(result, effects)


def rest(
    patient: FabulaeCharacter, duration: RestDuration, clears: list[str] | None = None
) -> Resolution[FabulaeRecoverResult]:
    """FAB-80/82: the states a rest clears (all it may, or `clears`) and the PP it gives."""
    which = list(REST_CLEARS[duration]) if clears is None else clears
    cleared, effects = clear_states(patient, which, "FAB-80")
    pp, pp_max = patient.sheet.pp, patient.sheet.pp_max
    pp_after = min(pp_max, pp + REST_PP[duration])  # FAB-82: never above pp_max
    if pp_after != pp:
        effects.append(effect(patient.id, "pp", pp, pp_after, "FAB-82"))
    result = FabulaeRecoverResult(duration=duration, cleared=cleared, pp_gained=pp_after - pp)
    return Resolution(result, effects)


def corrected_rest(
    patient: FabulaeCharacter, duration: RestDuration
) -> Resolution[FabulaeRecoverResult]:
    """FAB-80/82 with the corrections: a rest clears Épuisé and Énervé except on the track
    that broke the character (FAB-81: Broken ends only by care or the Résistance roll) or a
    track hunger or sleep blocks (FAB-73); the result names each state it left, and why."""
    sheet = patient.sheet
    clears: list[str] = []
    held: list[FabulaeNotCleared] = []
    for state in REST_CLEARS[duration]:
        if state not in sheet.states:
            continue
        track = "physical" if state in PHYSICAL_TRACK else "mental"
        deprivation = deprivation_of(sheet, track)
        if sheet.broken and sheet.broken_track == track:
            held.append(FabulaeNotCleared(state=state, rule="FAB-81", reason=BROKEN_WHY))
        elif deprivation is not None:
            why = DEPRIVED_WHY[deprivation]
            held.append(FabulaeNotCleared(state=state, rule="FAB-73", reason=why))
        else:
            clears.append(state)
    resolution = rest(patient, duration, clears)
    if held:
        resolution.result.not_cleared = held
    return resolution


def after_recover(
    prepared: Prepared[FabulaeRecoverRequest],
    resolution: Resolution[FabulaeRecoverResult],
    seq: int,
) -> Aftermath:
    request, result = prepared.request, resolution.result
    if request.mode == "rest" or result.outcome is None:
        return aftermath([], prepared.visibility)
    roller = request.healer if request.mode == "care" and request.healer else request.patient
    who = [roller.id] if result.outcome == "panic" else []
    pool = impossible_pool(result.outcome, result.pool)
    return aftermath(who, prepared.visibility, impossible_pool=pool, seq=seq)


def recover_summary(
    request: FabulaeRecoverRequest, result: FabulaeRecoverResult, language: Language
) -> str:
    """« Ada — Repos (une nuit) : guérit Épuisé » or « Bram — Soin (Ada) : 6 2 → Succès,
    guérit Apeuré »: what the rest or the roll cleared (FAB-80..82)."""
    states = ", ".join(text("state", s, language) for s in result.cleared or [])
    cleared = (f"guérit {states}" if language == "fr" else f"clears {states}") if states else ""
    colon = " :" if language == "fr" else ":"
    if request.mode == "rest":
        word = "Repos" if language == "fr" else "Rest"
        label = REST_WORDS.get(str(result.duration))
        duration = label.text(language) if label else str(result.duration)
        nothing = "rien à guérir" if language == "fr" else "nothing to clear"
        parts = [cleared] if cleared else []
        if result.not_cleared:
            held = ", ".join(text("state", h.state, language) for h in result.not_cleared)
            parts.append(f"ne guérit pas {held}" if language == "fr" else f"cannot clear {held}")
        return f"{request.patient.name} — {word} ({duration}){colon} {', '.join(parts) or nothing}"
    name = request.healer.name if request.healer else request.patient.name
    skill = "soin" if request.mode == "care" else "resistance"
    word = text("skill", skill, language)
    rolled = FabulaeDice(
        dice=result.dice or [],
        stress_dice=result.stress_dice or [],
        feats=result.feats or 0,
        outcome=result.outcome or "impossible",
    )
    line = roll_summary(name, f"{word} ({request.patient.name})", rolled, language)
    return line + (f", {cleared}" if cleared else "")


def recover_outcome(result: FabulaeRecoverResult) -> Outcome | None:
    return Outcome("outcome", result.outcome) if result.outcome else None


def recover_odds_of(request: FabulaeRecoverRequest, version: RulesVersion) -> Odds:
    """Issue 21: the exact odds (odds_recovery.py, which builds on this module)."""
    from app.engine.rulesets.fabulae.odds_recovery import recover_odds

    return recover_odds(request, version)


RECOVER: RollKind[FabulaeRecoverCreate, FabulaeRecoverRequest, FabulaeRecoverResult] = RollKind(
    name="fabulae.recover",
    gm_decides=(("modifiers", "FAB-14"),),
    npc_values=(("/pool", "/healer"),),
    cost=slow_action,
    title="Recovery",
    body=FabulaeRecoverCreate,
    request=FabulaeRecoverRequest,
    result=FabulaeRecoverResult,
    prepare=prepare_recover,
    resolve=resolve_recover,
    summary=recover_summary,
    after=after_recover,
    triggers=SETS_OFF_PANIC,
    outcome=recover_outcome,
    odds=recover_odds_of,
)


# --- fabulae.second_wind (FAB-90) -----------------------------------------------------------


class FabulaeSecondWindRequest(FabulaeClock):
    character: FabulaeCharacter


class FabulaeSecondWindResult(FabulaeDice):
    pool: FabulaePool
    cleared: list[str] | None = None


SAVE: Final = FabulaeRollInputs(attribute="physique", skill="resistance")


def prepare_second_wind(
    body: FabulaeSecondWindCreate, table: Table
) -> Prepared[FabulaeSecondWindRequest]:
    character = table.acting(body.character_id, FabulaeCharacter)
    request = FabulaeSecondWindRequest(
        system=SYSTEM, session=table.session, scene=table.scene, character=character
    )
    return Prepared(request, character_id=character.id, visibility=body.visibility)


def resolve_second_wind(
    request: FabulaeSecondWindRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[FabulaeSecondWindResult]:
    """FAB-90 second_wind: once per session when Broken, clear 1 physical state per six."""
    character = request.character
    check_may_act(character, "fabulae.second_wind", version)
    body = Body(character)
    if not has_talent(body.sheet, "second_wind"):
        raise InvalidInput("second_wind is a talent this character does not have")
    if not body.sheet.broken:
        raise refusal("FAB-90", f"{character.name} is not Broken")
    if body.sheet.second_wind_session == request.session:
        raise refusal("FAB-90", "second_wind was already used this session")
    if version >= CORRECTED:
        refuse_deprived(character, "physical")  # it clears physical states: healing
    rolled, _ = action_roll(character, SAVE, request.session, dice)
    result = FabulaeSecondWindResult(**rolled.model_dump(exclude_unset=True))
    if result.outcome == "impossible":
        return Resolution(result)  # FAB-14: recorded, refused, the session's use kept
    body.sheet.second_wind_session = request.session
    if result.outcome == "success":
        states = body.sheet.states
        physical = [b for b in reversed(track_of(body.sheet, "physical")) if b in states]
        cleared = physical[: result.sixes]
        body.sheet.states = [s for s in states if s not in cleared]
        if body.sheet.broken_track == "physical" and cleared:
            body.sheet.broken, body.sheet.broken_track = False, None
        result.cleared = list[str](cleared)
    return Resolution(result, body.effects("FAB-90"))


def after_second_wind(
    prepared: Prepared[FabulaeSecondWindRequest],
    resolution: Resolution[FabulaeSecondWindResult],
    seq: int,
) -> Aftermath:
    result = resolution.result
    who = [prepared.request.character.id] if result.outcome == "panic" else []
    pool = impossible_pool(result.outcome, result.pool)
    return aftermath(who, prepared.visibility, impossible_pool=pool, seq=seq)


def second_wind_summary(
    request: FabulaeSecondWindRequest, result: FabulaeSecondWindResult, language: Language
) -> str:
    what = "Second souffle" if language == "fr" else "Second wind"
    line = roll_summary(request.character.name, what, result, language)
    if result.cleared:
        line += ", " + ", ".join(text("state", s, language) for s in result.cleared)
    return line


def second_wind_odds_of(request: FabulaeSecondWindRequest, version: RulesVersion) -> Odds:
    """Issue 21: the exact odds (odds_recovery.py, which builds on this module)."""
    from app.engine.rulesets.fabulae.odds_recovery import second_wind_odds

    return second_wind_odds(request, version)


SECOND_WIND: RollKind[
    FabulaeSecondWindCreate, FabulaeSecondWindRequest, FabulaeSecondWindResult
] = RollKind(
    name="fabulae.second_wind",
    npc_values=(("/pool", "/character"),),
    cost=slow_action,
    title="Second wind",
    body=FabulaeSecondWindCreate,
    request=FabulaeSecondWindRequest,
    result=FabulaeSecondWindResult,
    prepare=prepare_second_wind,
    resolve=resolve_second_wind,
    summary=second_wind_summary,
    after=after_second_wind,
    triggers=SETS_OFF_PANIC,
    outcome=rolled_outcome,
    odds=second_wind_odds_of,
)
