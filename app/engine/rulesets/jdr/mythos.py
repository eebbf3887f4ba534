"""[C] The Mythos and forbidden knowledge (JDR-40..42): a Mental test against a difficulty,
and the mark it always costs."""

from __future__ import annotations

from typing import Final, Literal

from pydantic import Field

from app.engine.contract import (
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
from app.engine.errors import invalid
from app.engine.rulesets.jdr.bodies import JdrMythosCreate
from app.engine.rulesets.jdr.core import (
    CTHULHU,
    Burden,
    JdrRoll,
    JdrSystem,
    Mode,
    check_setting,
    dice_words,
    playable,
    roll_2d6,
    setting_of,
    uncared_serious_wound,
    wrong_setting,
)
from app.engine.rulesets.jdr.cthulhu import CTHULHU_ONLY, counted_marks, npc_effect
from app.engine.rulesets.jdr.labels import MYTHOS
from app.engine.rulesets.jdr.sheet import JdrCthulhuCharacter, Mark

MARK_LENGTH: Final = 200  # JDR-5: the longest wording a mark keeps

MythosOutcome = Literal["success", "failure", "critical_failure"]


class JdrMythosRequest(Model):
    system: JdrSystem
    session: int
    scene: int
    character: JdrCthulhuCharacter
    difficulty: int
    source: str
    detail: str | None = None
    advantage: bool
    disadvantage: bool


class JdrMythosResult(Model):
    mode: Mode
    dice: list[int]
    kept: list[bool]
    mental: int
    auto_disadvantage: list[Burden]
    total: int
    difficulty: int
    outcome: MythosOutcome
    label: str
    cost: str | None = Field(default=None, description="on a failure: the GM decides (JDR-41)")
    mark: Mark | None = Field(default=None, description="on a success or a critical failure")
    counted_marks: int | None = None


def mythos_wording(source: str, detail: str | None) -> str:
    """JDR-41: the mark's wording: the GM's, or the forbidden knowledge's source."""
    return detail or f"Savoir interdit : {source}"


def resolve_mythos(
    request: JdrMythosRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[JdrMythosResult]:
    """JDR-40..42 [C]: a Mental test against forbidden knowledge, and its mandatory cost."""
    check_setting(request.system, CTHULHU, "JDR-40")
    character = request.character
    sheet = character.sheet
    burdens: list[Burden] = ["serious_wound"] if uncared_serious_wound(sheet.wounds) else []
    roll = roll_2d6(dice, request.advantage, request.disadvantage or bool(burdens))
    mental = sheet.traits.mental
    total = roll.kept_sum + mental
    outcome: MythosOutcome
    if total <= 5:
        outcome = "critical_failure"
    elif total >= request.difficulty:
        outcome = "success"
    else:
        outcome = "failure"
    result = JdrMythosResult(
        mode=roll.mode,
        dice=roll.dice,
        kept=roll.kept,
        mental=mental,
        auto_disadvantage=burdens,
        total=total,
        difficulty=request.difficulty,
        outcome=outcome,
        label=MYTHOS[outcome].fr,
    )
    if outcome == "failure":
        result.cost = "the GM decides the cost (JDR-41)"
        return Resolution(result)
    # JDR-41: success leaves a narrative detail; a critical failure a durable, counted mark.
    mark = Mark(
        description=mythos_wording(request.source, request.detail),
        counted=outcome == "critical_failure",
        scene=request.scene,
    )
    marks_after = [*sheet.marks, mark]
    effects = [
        effect(character.id, "marks", sheet.marks, marks_after, "JDR-41"),
        *npc_effect(character, sheet, marks_after),
    ]
    result.mark = mark
    result.counted_marks = counted_marks(marks_after)
    return Resolution(result, effects)


def prepare_mythos(body: JdrMythosCreate, table: Table) -> Prepared[JdrMythosRequest]:
    character = playable(table, table.acting(body.character_id, JdrCthulhuCharacter))
    if len(mythos_wording(body.source, body.detail)) > MARK_LENGTH:
        raise invalid(
            "JDR-41",
            f"a mark's wording holds at most {MARK_LENGTH} characters, and "
            f"« Savoir interdit : {{source}} » would not: give a shorter source or a detail",
        )
    request = JdrMythosRequest(
        system=setting_of(table),
        session=table.session,
        scene=table.scene,
        character=character,
        difficulty=body.difficulty,
        source=body.source,
        detail=body.detail,
        advantage=body.advantage,
        disadvantage=body.disadvantage,
    )
    return Prepared(request, character_id=character.id, visibility=body.visibility)


def mythos_summary(request: JdrMythosRequest, result: JdrMythosResult, language: Language) -> str:
    """« Dr. Penhaligon — Mythe (Grimoire latin) 2D6+2 : 4, 5 → 11 contre 12, Échec »."""
    roll = JdrRoll(mode=result.mode, dice=result.dice, kept=result.kept, kept_sum=0)
    thrown = f"{dice_words(roll, result.mental, language)} → {result.total}"
    label = MYTHOS[result.outcome].text(language)
    name = request.character.name
    if language == "fr":
        return f"{name} — Mythe ({request.source}) {thrown} contre {result.difficulty}, {label}"
    return f"{name} — Mythos ({request.source}) {thrown} against {result.difficulty}, {label}"


def mythos_outcome(result: JdrMythosResult) -> Outcome:
    return Outcome("mythos", result.outcome)


MYTHOS_TEST: RollKind[JdrMythosCreate, JdrMythosRequest, JdrMythosResult] = RollKind(
    name="jdr.mythos",
    gm_decides=(("difficulty", "JDR-40"),),
    npc_values=(
        ("/mental", "/character"),
        ("/total", "/character"),
    ),
    title="Mythos test",
    body=JdrMythosCreate,
    request=JdrMythosRequest,
    result=JdrMythosResult,
    prepare=prepare_mythos,
    resolve=resolve_mythos,
    summary=mythos_summary,
    outcome=mythos_outcome,
    systems=CTHULHU_ONLY,
    wrong_system=wrong_setting("JDR-40", CTHULHU),
)
