"""Stress and panic (FAB-40..44): the GM's stress, resisting it, the panic table, and the
panic rolls a stress 1 sets off (FAB-42) with the refusal an impossible action keeps
(FAB-14)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, Literal

from pydantic import Field

from app.engine.contract import (
    Aftermath,
    Effect,
    FollowOn,
    Language,
    Model,
    Outcome,
    Prepared,
    Resolution,
    RollKind,
    RulesVersion,
    Table,
    Visibility,
    effect,
)
from app.engine.dice import DiceSource
from app.engine.errors import InvalidInput, invalid, refusal
from app.engine.rulesets.fabulae.acting import check_may_act
from app.engine.rulesets.fabulae.bodies import (
    FabulaePanicCreate,
    FabulaeStressCreate,
    FabulaeStressResistCreate,
)
from app.engine.rulesets.fabulae.combat import slow_action
from app.engine.rulesets.fabulae.labels import PANIC, text
from app.engine.rulesets.fabulae.odds import panic_odds, stress_resist_odds
from app.engine.rulesets.fabulae.pools import (
    CORRECTED,
    SYSTEM,
    FabulaeClock,
    FabulaeDice,
    FabulaeDiceModifier,
    FabulaePool,
    FabulaeRollInputs,
    action_roll,
    dice_text,
    has_talent,
)
from app.engine.rulesets.fabulae.sheet import FabulaeCharacter, FabulaeSheet

PanicCode = Literal[
    "cool",
    "jolt",
    "tremors",
    "drop",
    "frozen",
    "take_cover",
    "scream",
    "flee",
    "berserk",
    "catatonia",
]
# FAB-44: the panic table, from a score of 6 or less up to 15 or more.
PANIC_TABLE: Final[dict[int, tuple[PanicCode, str]]] = {
    6: ("cool", "no effect"),
    7: ("jolt", "you and allies at Short range gain +1 stress"),
    8: ("tremors", "-2 dice on Habileté-based rolls"),
    9: ("drop", "drop your weapon or a crucial held object"),
    10: ("frozen", "paralysed for 1 round, lose your next turn"),
    11: (
        "take_cover",
        "next action must be to flee to cover; -1 stress to you, +1 to nearby allies",
    ),
    12: ("scream", "lose a round screaming; -1 stress to you; nearby allies roll panic"),
    13: ("flee", "flee to safety, cannot attack; witnesses roll panic"),
    14: ("berserk", "attack the nearest target in melee, ally or foe"),
    15: ("catatonia", "collapse, unable to move, react or speak"),
}
CONDITION_CODES: Final = frozenset(
    {"tremors", "drop", "frozen", "take_cover", "scream", "flee", "berserk", "catatonia"}
)


def stress_gain(sheet: FabulaeSheet, amount: int) -> int:
    """FAB-41: talent cool_head takes 1 off each external stress gain (min 0)."""
    return max(0, amount - 1) if has_talent(sheet, "cool_head") else amount


def stress_change(character: FabulaeCharacter, change: int, rule: str) -> list[Effect]:
    """Stress up or down, never below 0; nothing when it does not move."""
    before = character.sheet.stress
    after = max(0, before + change)
    if after == before:
        return []
    return [effect(character.id, "stress", before, after, rule)]


def panic_row(score: int) -> tuple[PanicCode, str, str]:
    """FAB-44: 6 or less is cool, 15 or more catatonia: the code, its label, its effect."""
    code, what = PANIC_TABLE[min(15, max(6, score))]
    return code, PANIC[code].fr, what


# --- what a roll sets off (FAB-42, FAB-14) ------------------------------------------------


class FabulaePanicRequest(FabulaeClock):
    character: FabulaeCharacter
    allies: list[FabulaeCharacter] = Field(default_factory=list)
    modifier: int = 0


# What a roll whose stress dice may show a 1 sets off (FAB-42): the API types its
# `triggered` by it.
SETS_OFF_PANIC: Final = frozenset({"fabulae.panic"})


def panic_follow_on(character_id: str, visibility: Visibility, modifier: int = 0) -> FollowOn:
    """FAB-42: the panic roll a stress 1 sets off, its own entry, on the sheet as it is now."""

    def prepare(table: Table) -> Prepared[FabulaePanicRequest]:
        character = table.character(character_id, FabulaeCharacter)
        # FAB-44 (corrected): in an encounter, its jolt or scream reaches the same side.
        allies = [table.character(ally, FabulaeCharacter) for ally in table.allies(character_id)]
        request = FabulaePanicRequest(
            system=SYSTEM,
            session=table.session,
            scene=table.scene,
            character=character,
            allies=allies,
            modifier=modifier,
        )
        return Prepared(request, character_id=character.id, visibility=visibility)

    return FollowOn(kind="fabulae.panic", prepare=prepare)


def aftermath(
    panicked: Sequence[str | None],
    visibility: Visibility,
    *,
    impossible_pool: int | None = None,
    seq: int = 0,
    first: Sequence[FollowOn] = (),
) -> Aftermath:
    """The panic rolls of those who rolled a stress 1 (each once, in order), then FAB-14's
    refusal of an impossible action, kept in the log as `seq`."""
    follow_ons = list(first)
    seen: list[str] = []
    for character_id in panicked:
        if character_id is not None and character_id not in seen:
            seen.append(character_id)
            follow_ons.append(panic_follow_on(character_id, visibility))
    kept = None
    if impossible_pool is not None:
        kept = refusal(
            "FAB-14",
            f"the pool is {impossible_pool} dice after every modifier, so the action is "
            f"impossible; no dice were drawn and the attempt is recorded as seq {seq}",
        )
    return Aftermath(follow_ons=follow_ons, refusal=kept)


def panicked(rolled: FabulaeDice | None) -> bool:
    return rolled is not None and rolled.outcome == "panic"


def impossible_pool(outcome: str, pool: FabulaePool | None) -> int | None:
    """The pool of an impossible action (FAB-14), None for any other outcome."""
    if outcome != "impossible":
        return None
    return pool.pool if pool is not None else 0


# --- fabulae.stress (FAB-40/41) ------------------------------------------------------------


class FabulaeStressRequest(FabulaeClock):
    characters: list[FabulaeCharacter]
    amount: int
    reason: str = ""


class FabulaeStressGain(Model):
    character_id: str
    gain: int


class FabulaeStressResult(Model):
    amount: int
    gains: list[FabulaeStressGain]
    reason: str


def prepare_stress(body: FabulaeStressCreate, table: Table) -> Prepared[FabulaeStressRequest]:
    if len(set(body.character_ids)) != len(body.character_ids):
        raise InvalidInput("a character is listed twice")
    characters = [table.character(cid, FabulaeCharacter) for cid in body.character_ids]
    request = FabulaeStressRequest(
        system=SYSTEM,
        session=table.session,
        scene=table.scene,
        characters=characters,
        amount=body.amount,
        reason=body.reason,
    )
    subject = characters[0].id if len(characters) == 1 else None
    return Prepared(request, character_id=subject, visibility=body.visibility)


def resolve_stress(
    request: FabulaeStressRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[FabulaeStressResult]:
    """FAB-40/41: the GM gives stress for a critical situation."""
    amount = request.amount
    if not 1 <= amount <= 10:
        raise invalid("FAB-41", f"stress comes in +1..+3 steps (at most 10), got {amount}")
    effects, gains = [], []
    for character in request.characters:
        check_may_act(character, "fabulae.stress", version)  # the dead take none
        gain = stress_gain(character.sheet, amount)
        gains.append(FabulaeStressGain(character_id=character.id, gain=gain))
        if gain:
            before = character.sheet.stress
            effects.append(effect(character.id, "stress", before, before + gain, "FAB-41"))
    return Resolution(
        FabulaeStressResult(amount=amount, gains=gains, reason=request.reason), effects
    )


def stress_summary(
    request: FabulaeStressRequest, result: FabulaeStressResult, language: Language
) -> str:
    names = ", ".join(c.name for c in request.characters)
    return f"{names} — stress +{result.amount}"


STRESS: RollKind[FabulaeStressCreate, FabulaeStressRequest, FabulaeStressResult] = RollKind(
    name="fabulae.stress",
    npc_values=(("/gains/*/gain", "/characters/*"),),
    title="Stress given",
    body=FabulaeStressCreate,
    request=FabulaeStressRequest,
    result=FabulaeStressResult,
    prepare=prepare_stress,
    resolve=resolve_stress,
    summary=stress_summary,
    is_roll=False,
    gm_only="give stress",
)


# --- fabulae.stress_resist (FAB-43) --------------------------------------------------------


class FabulaeStressResistRequest(FabulaeClock):
    character: FabulaeCharacter
    roll: FabulaeRollInputs


class FabulaeStressResistResult(FabulaeDice):
    pool: FabulaePool
    passive: bool
    stress_lowered: int | None = Field(default=None, description="FAB-43: on a success")


def prepare_stress_resist(
    body: FabulaeStressResistCreate, table: Table
) -> Prepared[FabulaeStressResistRequest]:
    character = table.acting(body.character_id, FabulaeCharacter)
    roll = FabulaeRollInputs(
        attribute=body.attribute,
        skill="resistance",
        helpers=body.helpers,
        modifiers=[FabulaeDiceModifier(source=m.source, dice=m.dice) for m in body.modifiers],
    )
    request = FabulaeStressResistRequest(
        system=SYSTEM, session=table.session, scene=table.scene, character=character, roll=roll
    )
    return Prepared(request, character_id=character.id, visibility=body.visibility)


def check_stress_resist(request: FabulaeStressResistRequest, version: RulesVersion) -> None:
    """The refusals a stress resistance makes before the dice (its odds make them too)."""
    check_may_act(request.character, "fabulae.stress_resist", version)
    if request.roll.skill != "resistance":
        raise invalid("FAB-43", "stress is resisted with the Résistance skill")
    character = request.character
    if version >= CORRECTED and "sleep" in character.sheet.deprived:
        raise refusal(
            "FAB-73",
            f"{character.name} has not slept: stress heals only once the GM lifts the "
            "deprivation (the sheet's `deprived`)",
        )


def resolve_stress_resist(
    request: FabulaeStressResistRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[FabulaeStressResistResult]:
    """FAB-43: a Résistance roll; each six lowers current stress by one."""
    check_stress_resist(request, version)
    character = request.character
    rolled, effects = action_roll(character, request.roll, request.session, dice)
    result = FabulaeStressResistResult(**rolled.model_dump(exclude_unset=True), passive=False)
    if result.outcome == "success":
        before = character.sheet.stress
        after = max(0, before - result.sixes)
        result.stress_lowered = before - after
        if after != before:
            effects.append(effect(character.id, "stress", before, after, "FAB-43"))
    return Resolution(result, effects)


def after_stress_resist(
    prepared: Prepared[FabulaeStressResistRequest],
    resolution: Resolution[FabulaeStressResistResult],
    seq: int,
) -> Aftermath:
    result = resolution.result
    who = [prepared.request.character.id] if panicked(result) else []
    pool = impossible_pool(result.outcome, result.pool)
    return aftermath(who, prepared.visibility, impossible_pool=pool, seq=seq)


def roll_summary(name: str, what: str, rolled: FabulaeDice, language: Language) -> str:
    """« Ada — Physique + Combat : 6 6 2 | 1 → Panique », « … → Succès, 1 Prouesse »."""
    colon = " :" if language == "fr" else ":"
    outcome = text("outcome", rolled.outcome, language)
    if rolled.outcome == "impossible":
        return f"{name} — {what}{colon} {outcome}"
    feats = rolled.feats or 0
    if rolled.outcome == "success" and feats:
        # FAB-11: every six beyond the first is a Prouesse.
        word = "Prouesse" if language == "fr" else "feat"
        outcome += f", {feats} {word}{'s' if feats > 1 else ''}"
    return f"{name} — {what}{colon} {dice_text(rolled)} → {outcome}"


def roll_name(roll: FabulaeRollInputs, language: Language) -> str:
    """« Physique + Combat »."""
    name = text("attribute", roll.attribute, language)
    if roll.skill is not None:
        name += " + " + text("skill", roll.skill, language)
    return name


def stress_resist_summary(
    request: FabulaeStressResistRequest, result: FabulaeStressResistResult, language: Language
) -> str:
    line = roll_summary(request.character.name, roll_name(request.roll, language), result, language)
    if result.stress_lowered:
        line += f", stress −{result.stress_lowered}"
    return line


def rolled_outcome(result: FabulaeDice) -> Outcome:
    return Outcome("outcome", result.outcome)


STRESS_RESIST: RollKind[
    FabulaeStressResistCreate, FabulaeStressResistRequest, FabulaeStressResistResult
] = RollKind(
    name="fabulae.stress_resist",
    gm_decides=(("modifiers", "FAB-14"),),
    npc_values=(("/pool", "/character"),),
    cost=slow_action,
    title="Stress resisted",
    body=FabulaeStressResistCreate,
    request=FabulaeStressResistRequest,
    result=FabulaeStressResistResult,
    prepare=prepare_stress_resist,
    resolve=resolve_stress_resist,
    summary=stress_resist_summary,
    after=after_stress_resist,
    triggers=SETS_OFF_PANIC,
    outcome=rolled_outcome,
    odds=stress_resist_odds,
)


# --- fabulae.panic (FAB-44) ----------------------------------------------------------------


class FabulaePanicCondition(Model):
    character_id: str
    code: PanicCode


class FabulaePanicResult(Model):
    die: int
    stress: int
    cool_head: int = Field(description="FAB-90 cool_head: -2")
    modifier: int
    score: int
    code: PanicCode
    label: str
    effect: str
    must_roll_panic: list[str] | None = Field(
        default=None, description="scream, flee: the allies who roll panic in turn"
    )
    condition: FabulaePanicCondition | None = Field(
        default=None, description="what binds the character in an encounter"
    )


def prepare_panic(body: FabulaePanicCreate, table: Table) -> Prepared[FabulaePanicRequest]:
    character = table.acting(body.character_id, FabulaeCharacter)
    if body.character_id in body.allies:
        raise InvalidInput("the panicking character is not one of their own allies")
    if len(set(body.allies)) != len(body.allies):
        raise InvalidInput("a character is listed twice")
    allies = [table.character(ally, FabulaeCharacter) for ally in body.allies]
    request = FabulaePanicRequest(
        system=SYSTEM,
        session=table.session,
        scene=table.scene,
        character=character,
        allies=allies,
        modifier=body.modifier,
    )
    return Prepared(request, character_id=character.id, visibility=body.visibility)


def resolve_panic(
    request: FabulaePanicRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[FabulaePanicResult]:
    """FAB-44: 1D6 + current stress (cool_head −2); stress changes land on the sheets."""
    check_may_act(request.character, "fabulae.panic", version)
    character = request.character
    sheet = character.sheet
    die = dice.roll(6)
    cool = -2 if has_talent(sheet, "cool_head") else 0
    score = die + sheet.stress + cool + request.modifier
    code, label, what = panic_row(score)
    result = FabulaePanicResult(
        die=die,
        stress=sheet.stress,
        cool_head=cool,
        modifier=request.modifier,
        score=score,
        code=code,
        label=label,
        effect=what,
    )
    effects: list[Effect] = []
    allies = request.allies
    if code == "jolt":
        # FAB-41 (corrected): cool_head softens stress from outside, not the panicker's own.
        own = 1 if version >= CORRECTED else stress_gain(sheet, 1)
        effects += stress_change(character, own, "FAB-44")
        for ally in allies:
            effects += stress_change(ally, stress_gain(ally.sheet, 1), "FAB-44")
    elif code == "take_cover":
        effects += stress_change(character, -1, "FAB-44")
        for ally in allies:
            effects += stress_change(ally, stress_gain(ally.sheet, 1), "FAB-44")
    elif code == "scream":
        effects += stress_change(character, -1, "FAB-44")
        result.must_roll_panic = [ally.id for ally in allies]
    elif code == "flee":
        result.must_roll_panic = [ally.id for ally in allies]
    if code in CONDITION_CODES:
        result.condition = FabulaePanicCondition(character_id=character.id, code=code)
    return Resolution(result, effects)


def panic_summary(
    request: FabulaePanicRequest, result: FabulaePanicResult, language: Language
) -> str:
    """« Ada — Panique 1D6 + 5 : 4 → 9, Lâché d'objet »."""
    name = request.character.name
    word = "Panique" if language == "fr" else "Panic"
    colon = " :" if language == "fr" else ":"
    added = result.score - result.die
    plus = f" + {added}" if added >= 0 else f" − {-added}"
    return (
        f"{name} — {word} 1D6{plus}{colon} {result.die} → "
        f"{result.score}, {text('panic', result.code, language)}"
    )


PANIC_ROLL: RollKind[FabulaePanicCreate, FabulaePanicRequest, FabulaePanicResult] = RollKind(
    name="fabulae.panic",
    gm_decides=(("modifier", "FAB-44"),),
    npc_values=(
        ("/stress", "/character"),
        ("/score", "/character"),
        ("/cool_head", "/character"),
    ),
    title="Panic roll",
    body=FabulaePanicCreate,
    request=FabulaePanicRequest,
    result=FabulaePanicResult,
    prepare=prepare_panic,
    resolve=resolve_panic,
    summary=panic_summary,
    reaction=True,
    outcome=lambda result: Outcome("panic", result.code),
    odds=panic_odds,
)
