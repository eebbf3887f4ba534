"""Sequelae (FAB-50..55): the tables a Broken character rolls on, death tests (FAB-51) and
stabilisation (FAB-52)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, Literal

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
from app.engine.rulesets.fabulae.acting import check_may_act
from app.engine.rulesets.fabulae.bodies import (
    FabulaeDeathTestCreate,
    FabulaeSequelaCreate,
    FabulaeStabilizeCreate,
)
from app.engine.rulesets.fabulae.body import Body
from app.engine.rulesets.fabulae.combat import slow_action
from app.engine.rulesets.fabulae.labels import MENTAL_SEQUELAE, PHYSICAL_SEQUELAE, text
from app.engine.rulesets.fabulae.pools import (
    CORRECTED,
    SYSTEM,
    FabulaeClock,
    FabulaeDice,
    FabulaeDiceModifier,
    FabulaePool,
    FabulaeRollInputs,
    action_roll,
    has_talent,
)
from app.engine.rulesets.fabulae.sheet import FabulaeCharacter, FabulaeSheet, Sequela
from app.engine.rulesets.fabulae.stress import (
    SETS_OFF_PANIC,
    aftermath,
    impossible_pool,
    panicked,
    roll_summary,
    rolled_outcome,
)
from app.engine.rulesets.fabulae.tables import Track

Delay = Literal["immediate", "round", "tour", "quart"]
Duration = tuple[int, str]

# FAB-50: the physical sequelae by highest score: code, lethal, delay, effect, duration dice.
_PHYSICAL_ROWS: Final[tuple[tuple[int, str, bool, Delay | None, str, Duration | None], ...]] = (
    (4, "stunned", False, None, "unconscious", (1, "rounds")),
    (6, "bruise", False, None, "-1 on Physique rolls", (1, "rounds")),
    (8, "sprain", False, None, "limb unusable", (1, "quarts")),
    (10, "broken_limb", True, "quart", "-2 Athlétisme, moving is a slow action", (1, "days")),
    (12, "bleeding", True, "quart", "-2 Athlétisme and Résistance", (2, "days")),
    (
        14,
        "internal",
        True,
        "tour",
        "-2 on everything, cannot run, lose a state per sudden action",
        (2, "days"),
    ),
    (16, "spine", True, "round", "total paralysis or swift agony", None),
    (19, "impaled", True, "immediate", "death test every round", None),
    (99, "crushed", False, None, "instant death", None),
)
# FAB-50 by highest score: code, label, lethal, delay, effect, duration dice.
PHYSICAL_TABLE: Final = tuple(
    (score, code, PHYSICAL_SEQUELAE[code].fr, lethal, delay, what, spec)
    for score, code, lethal, delay, what, spec in _PHYSICAL_ROWS
)
FIXED_DURATIONS: Final[dict[str, str]] = {
    "spine": "permanent if untreated",
    "impaled": "mortal",
    "crushed": "final",
    "white_hair": "permanent",
}
# FAB-55: the mental sequelae by 1D12 face: code, effect, duration dice.
_MENTAL_ROWS: Final[dict[int, tuple[str, str, Duration | None]]] = {
    1: ("tremor", "-1 on movement rolls", (1, "days")),
    2: ("white_hair", "no mechanical effect", None),
    3: ("anxious", "-1 on Intellect rolls", (1, "days")),
    4: ("sullen", "-1 on Empathie rolls", (1, "days")),
    5: ("nightmares", "Empathie roll each quart of sleep", (1, "days")),
    6: ("nocturnal", "sleeps only by day", (2, "days")),
    7: ("phobic", "1 mental damage per round near the phobia", (2, "days")),
    8: ("paranoia", "convinced of being watched", (2, "days")),
    9: ("delusion", "convinced of a falsehood", (3, "days")),
    10: ("hallucinations", "Empathie roll each quart or violent visions", (3, "days")),
    11: ("amnesia", "loses identity and allies", (1, "days")),
    12: ("catatonia", "no reaction to anything", (1, "days")),
}
# FAB-55 by 1D12 face: code, label, effect, duration dice.
MENTAL_TABLE: Final = {
    face: (code, MENTAL_SEQUELAE[code].fr, what, spec)
    for face, (code, what, spec) in _MENTAL_ROWS.items()
}
DELAY_STEPS: Final[tuple[Delay, ...]] = ("immediate", "round", "tour", "quart")  # FAB-52

if TYPE_CHECKING:
    from app.engine.odds import Odds


class FabulaeSequelaContext(Model):
    """What a physical sequela's score adds: the weapon, the attacker's feats, butcher."""

    weapon_mod: int = 0
    feats: int = 0
    butcher: bool = False


def no_context() -> FabulaeSequelaContext:
    """No weapon, no feats, no butcher: a danger's, a power's or a hold's damage."""
    return FabulaeSequelaContext(weapon_mod=0, feats=0, butcher=False)


class FabulaeSequelaRoll(Model):
    """A roll on a sequela table: the physical 2D6 (twice with tough_luck) or the 1D12."""

    die: int | None = Field(default=None, description="FAB-55: the 1D12")
    dice: list[list[int]] | None = Field(default=None, description="FAB-50: each 2D6")
    modifier: int | None = None
    score: int | None = None
    code: str
    label: str
    effect: str
    duration: str


def roll_sequela(
    body: Body, track: Track, dice: DiceSource, context: FabulaeSequelaContext
) -> FabulaeSequelaRoll:
    """FAB-50/FAB-55: the sequela a Broken character takes, its duration rolled."""
    lethal: bool
    delay: Delay | None
    if track == "mental":
        face = dice.roll(12)
        code, label, what, spec = MENTAL_TABLE[face]
        rolled = FabulaeSequelaRoll(die=face, code=code, label=label, effect=what, duration="")
        lethal, delay = False, None
    else:
        modifier = context.weapon_mod + context.feats
        if context.butcher:
            modifier += 2  # FAB-90 butcher
        rolls = [[dice.roll(6), dice.roll(6)]]
        if has_talent(body.sheet, "tough_luck"):
            rolls.append([dice.roll(6), dice.roll(6)])  # FAB-90 tough_luck: keep the better
        score = min(sum(pair) for pair in rolls) + modifier
        row = next(r for r in PHYSICAL_TABLE if score <= r[0])
        _, code, label, lethal, delay, what, spec = row
        rolled = FabulaeSequelaRoll(
            dice=rolls,
            modifier=modifier,
            score=score,
            code=code,
            label=label,
            effect=what,
            duration="",
        )
    if spec is not None:
        count, unit = spec
        amount = sum(dice.roll(6) for _ in range(count))
        duration = f"{amount} {unit}"
    else:
        duration = FIXED_DURATIONS.get(code, "")
    rolled.duration = duration
    sequela = Sequela.model_validate(
        {
            "kind": track,
            "code": code,
            "duration": duration,
            "lethal": lethal,
            "delay": delay,
            "stabilised": False,
            "note": label,
        }
    )
    body.sheet.sequelae = [*body.sheet.sequelae, sequela]
    if code == "crushed":
        body.sheet.dead = True  # FAB-50: instant death
    return rolled


# --- fabulae.sequela (FAB-50/FAB-55) ------------------------------------------------------


class FabulaeSequelaRequest(FabulaeClock):
    character: FabulaeCharacter
    table: Track
    weapon_mod: int = 0
    feats: int = 0
    butcher: bool = False


class FabulaeSequelaResult(FabulaeSequelaRoll):
    table: Track


def prepare_sequela(body: FabulaeSequelaCreate, table: Table) -> Prepared[FabulaeSequelaRequest]:
    character = table.character(body.character_id, FabulaeCharacter)
    request = FabulaeSequelaRequest(
        system=SYSTEM,
        session=table.session,
        scene=table.scene,
        character=character,
        table=body.table,
        weapon_mod=body.weapon_mod,
        feats=body.feats,
        butcher=body.butcher,
    )
    return Prepared(request, character_id=character.id, visibility=body.visibility)


def resolve_sequela(
    request: FabulaeSequelaRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[FabulaeSequelaResult]:
    """FAB-50/FAB-55: roll on a sequela table (the GM calls it; Broken rolls it by itself)."""
    check_may_act(request.character, "fabulae.sequela", version)  # not on the dead
    body = Body(request.character)
    track = request.table
    context = FabulaeSequelaContext(
        weapon_mod=request.weapon_mod, feats=request.feats, butcher=request.butcher
    )
    rolled = roll_sequela(body, track, dice, context)
    result = FabulaeSequelaResult(table=track, **rolled.model_dump(exclude_unset=True))
    return Resolution(result, body.effects("FAB-50" if track == "physical" else "FAB-55"))


# How the durations results record read in French (results keep the English words).
DURATION_WORDS_FR: Final[dict[str, str]] = {
    "rounds": "rounds",
    "quarts": "quarts",
    "days": "jours",
    "permanent": "permanente",
    "permanent if untreated": "permanente sans soins",
    "mortal": "mortelle",
    "final": "définitive",
}


def duration_words(duration: str, language: Language) -> str:
    """« 6 days » as « 6 jours » in French; FIXED_DURATIONS likewise."""
    if language != "fr":
        return duration
    if duration in DURATION_WORDS_FR:
        return DURATION_WORDS_FR[duration]
    amount, _, unit = duration.partition(" ")
    return f"{amount} {DURATION_WORDS_FR.get(unit, unit)}"


def sequela_summary(
    request: FabulaeSequelaRequest, result: FabulaeSequelaResult, language: Language
) -> str:
    """« Ada — Séquelle : Membre foulé, 5 quarts »."""
    word = "Séquelle" if language == "fr" else "Sequela"
    colon = " :" if language == "fr" else ":"
    duration = f", {duration_words(result.duration, language)}" if result.duration else ""
    return (
        f"{request.character.name} — {word}{colon} "
        f"{text('sequela', result.code, language)}{duration}"
    )


def sequela_odds_of(request: FabulaeSequelaRequest, version: RulesVersion) -> Odds:
    """Issue 21: the exact odds (odds_sequelae.py, which builds on this module)."""
    from app.engine.rulesets.fabulae.odds_sequelae import sequela_odds

    return sequela_odds(request, version)


SEQUELA: RollKind[FabulaeSequelaCreate, FabulaeSequelaRequest, FabulaeSequelaResult] = RollKind(
    name="fabulae.sequela",
    cost=slow_action,
    title="Sequela roll",
    body=FabulaeSequelaCreate,
    request=FabulaeSequelaRequest,
    result=FabulaeSequelaResult,
    prepare=prepare_sequela,
    resolve=resolve_sequela,
    summary=sequela_summary,
    gm_only="call for a sequela roll",
    outcome=lambda result: Outcome("sequela", result.code),
    odds=sequela_odds_of,
)


# --- fabulae.death_test (FAB-51) ------------------------------------------------------------


def lethal_sequela(sheet: FabulaeSheet, index: int) -> Sequela:
    """The sequela a death test or a stabilisation names; it must be lethal (FAB-51)."""
    sequelae = sheet.sequelae
    if not 0 <= index < len(sequelae):
        raise InvalidInput(f"sequela index {index} is not on the sheet ({len(sequelae)} sequelae)")
    sequela = sequelae[index]
    if not sequela.lethal:
        raise refusal("FAB-51", f"{sequela.code} is not lethal; no death test is due")
    return sequela


class FabulaeDeathTestRequest(FabulaeClock):
    character: FabulaeCharacter
    sequela: int = Field(description="index of the sequela on the sheet")


class FabulaeDeathTestResult(FabulaeDice):
    pool: FabulaePool
    sequela: str
    survived: bool | None = None


def prepare_death_test(
    body: FabulaeDeathTestCreate, table: Table
) -> Prepared[FabulaeDeathTestRequest]:
    character = table.acting(body.character_id, FabulaeCharacter)
    request = FabulaeDeathTestRequest(
        system=SYSTEM,
        session=table.session,
        scene=table.scene,
        character=character,
        sequela=body.sequela,
    )
    return Prepared(request, character_id=character.id, visibility=body.visibility)


def resolve_death_test(
    request: FabulaeDeathTestRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[FabulaeDeathTestResult]:
    """FAB-51: Physique + Résistance each time a lethal sequela's delay runs out."""
    check_may_act(request.character, "fabulae.death_test", version)
    character = request.character
    body = Body(character)
    if body.sheet.dead:
        raise refusal("FAB-51", f"{character.name} is already dead")
    sequela = lethal_sequela(body.sheet, request.sequela)
    if sequela.stabilised and sequela.delay == "quart":
        raise refusal("FAB-52", "this sequela is stabilised: the character no longer risks death")
    modifiers = (
        [FabulaeDiceModifier(source="iron_will", dice=2)]
        if has_talent(body.sheet, "iron_will")
        else []
    )
    roll = FabulaeRollInputs(attribute="physique", skill="resistance", modifiers=modifiers)
    # FAB-42 (corrected): stress dice join action rolls only, not a Test de Trépas.
    stress = version < CORRECTED
    rolled, _ = action_roll(character, roll, request.session, dice, stress=stress)
    result = FabulaeDeathTestResult(**rolled.model_dump(exclude_unset=True), sequela=sequela.code)
    if result.outcome == "impossible":
        return Resolution(result)  # FAB-14: recorded, refused
    result.survived = result.outcome == "success"
    if not result.survived:
        body.sheet.dead = True
    return Resolution(result, body.effects("FAB-51"))


def after_death_test(
    prepared: Prepared[FabulaeDeathTestRequest],
    resolution: Resolution[FabulaeDeathTestResult],
    seq: int,
) -> Aftermath:
    result = resolution.result
    who = [prepared.request.character.id] if panicked(result) else []
    pool = impossible_pool(result.outcome, result.pool)
    return aftermath(who, prepared.visibility, impossible_pool=pool, seq=seq)


def death_test_summary(
    request: FabulaeDeathTestRequest, result: FabulaeDeathTestResult, language: Language
) -> str:
    what = "Test de Trépas" if language == "fr" else "Death test"
    line = roll_summary(request.character.name, what, result, language)
    if result.survived is not None:
        line += ", " + text("result", "survived" if result.survived else "dead", language)
    return line


def death_test_outcome(result: FabulaeDeathTestResult) -> Outcome:
    if result.survived is None:
        return Outcome("outcome", result.outcome)
    return Outcome("result", "survived" if result.survived else "dead")


def death_test_odds_of(request: FabulaeDeathTestRequest, version: RulesVersion) -> Odds:
    """Issue 21: the exact odds (odds_sequelae.py, which builds on this module)."""
    from app.engine.rulesets.fabulae.odds_sequelae import death_test_odds

    return death_test_odds(request, version)


DEATH_TEST: RollKind[FabulaeDeathTestCreate, FabulaeDeathTestRequest, FabulaeDeathTestResult] = (
    RollKind(
        name="fabulae.death_test",
        npc_values=(("/pool", "/character"),),
        title="Death test",
        body=FabulaeDeathTestCreate,
        request=FabulaeDeathTestRequest,
        result=FabulaeDeathTestResult,
        prepare=prepare_death_test,
        resolve=resolve_death_test,
        summary=death_test_summary,
        reaction=True,
        after=after_death_test,
        triggers=SETS_OFF_PANIC,
        outcome=death_test_outcome,
        odds=death_test_odds_of,
    )
)


# --- fabulae.stabilize (FAB-52) -------------------------------------------------------------


class FabulaeStabilizeRequest(FabulaeClock):
    healer: FabulaeCharacter
    patient: FabulaeCharacter
    sequela: int = Field(description="index of the sequela on the patient's sheet")


class FabulaeStabilizeResult(FabulaeDice):
    pool: FabulaePool
    delay: Delay | None = None
    stabilised: bool | None = None


def prepare_stabilize(
    body: FabulaeStabilizeCreate, table: Table
) -> Prepared[FabulaeStabilizeRequest]:
    healer = table.acting(body.healer_id, FabulaeCharacter)
    patient = table.character(body.character_id, FabulaeCharacter)
    request = FabulaeStabilizeRequest(
        system=SYSTEM,
        session=table.session,
        scene=table.scene,
        healer=healer,
        patient=patient,
        sequela=body.sequela,
    )
    return Prepared(request, character_id=healer.id, visibility=body.visibility)


def resolve_stabilize(
    request: FabulaeStabilizeRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[FabulaeStabilizeResult]:
    """FAB-52: an ally's successful Soin lengthens the delay one step (round, tour, quart)."""
    check_may_act(request.healer, "fabulae.stabilize", version)
    healer, patient = request.healer, request.patient
    if healer.id == patient.id:
        raise refusal("FAB-52", "stabilising is an ally's Soin roll, not one's own")
    body = Body(patient)
    index = request.sequela
    sequela = lethal_sequela(body.sheet, index)
    if sequela.stabilised:
        raise refusal("FAB-52", f"{sequela.code} is already stabilised")
    modifiers = (
        [FabulaeDiceModifier(source="medic", dice=1)] if has_talent(healer.sheet, "medic") else []
    )
    roll = FabulaeRollInputs(attribute="intellect", skill="soin", modifiers=modifiers)
    rolled, _ = action_roll(healer, roll, request.session, dice)
    result = FabulaeStabilizeResult(**rolled.model_dump(exclude_unset=True))
    if result.outcome == "success":
        delay = sequela.delay or "quart"
        step = DELAY_STEPS.index(delay)
        new_delay = DELAY_STEPS[min(step + 1, len(DELAY_STEPS) - 1)]
        stabilised = new_delay == "quart"
        sequelae = list(body.sheet.sequelae)
        sequelae[index] = sequela.model_copy(update={"delay": new_delay, "stabilised": stabilised})
        body.sheet.sequelae = sequelae
        result.delay, result.stabilised = new_delay, stabilised
    return Resolution(result, body.effects("FAB-52"))


def after_stabilize(
    prepared: Prepared[FabulaeStabilizeRequest],
    resolution: Resolution[FabulaeStabilizeResult],
    seq: int,
) -> Aftermath:
    result = resolution.result
    who = [prepared.request.healer.id] if panicked(result) else []
    pool = impossible_pool(result.outcome, result.pool)
    return aftermath(who, prepared.visibility, impossible_pool=pool, seq=seq)


def stabilize_summary(
    request: FabulaeStabilizeRequest, result: FabulaeStabilizeResult, language: Language
) -> str:
    what = "Stabiliser" if language == "fr" else "Stabilise"
    line = roll_summary(request.healer.name, f"{what} {request.patient.name}", result, language)
    if result.delay is not None:
        line += f" ({result.delay})"
    return line


STABILIZE: RollKind[FabulaeStabilizeCreate, FabulaeStabilizeRequest, FabulaeStabilizeResult] = (
    RollKind(
        name="fabulae.stabilize",
        npc_values=(("/pool", "/healer"),),
        cost=slow_action,
        title="Stabilisation",
        body=FabulaeStabilizeCreate,
        request=FabulaeStabilizeRequest,
        result=FabulaeStabilizeResult,
        prepare=prepare_stabilize,
        resolve=resolve_stabilize,
        summary=stabilize_summary,
        after=after_stabilize,
        triggers=SETS_OFF_PANIC,
        outcome=rolled_outcome,
    )
)
