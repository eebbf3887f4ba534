"""[C] The Mythos and forbidden knowledge (JDR-40..42): a Mental test against a difficulty,
and the mark it always costs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Final, Literal

from pydantic import Field, JsonValue, TypeAdapter

from app.engine.contract import (
    FollowUpRecord,
    Language,
    LoggedEntry,
    Model,
    Outcome,
    Prepared,
    Resolution,
    RollKind,
    RulesVersion,
    Settled,
    Settling,
    Table,
    effect,
)
from app.engine.dice import DiceSource
from app.engine.errors import InvalidInput, invalid, refusal
from app.engine.odds import Odds
from app.engine.rulesets.jdr.action import player_follow_up, talent_bonus
from app.engine.rulesets.jdr.bodies import JdrMarkCreate, JdrMythosCreate
from app.engine.rulesets.jdr.certain import certain_odds
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
    wound_burdens,
    wrong_setting,
)
from app.engine.rulesets.jdr.cthulhu import CTHULHU_ONLY, counted_marks, npc_effect
from app.engine.rulesets.jdr.events import event_words
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
    talent: str | None = Field(default=None, description="from rules version 4 (JDR-40)")
    advantage: bool
    disadvantage: bool
    direct_peril: bool = Field(default=False, description="marked by the GM (JDR-25)")


class JdrMythosResult(Model):
    mode: Mode
    dice: list[int]
    kept: list[bool]
    mental: int
    talent_bonus: int | None = Field(default=None, description="JDR-40 (corrected)")
    auto_disadvantage: list[Burden]
    total: int
    difficulty: int
    outcome: MythosOutcome
    label: str
    cost: str | None = Field(default=None, description="on a failure: the GM decides (JDR-41)")
    mark: Mark | None = Field(default=None, description="on a success or a critical failure")
    mark_pending: bool | None = Field(
        default=None,
        description="a success whose mark awaits its wording, by the player or the GM "
        "(jdr.mark, JDR-41)",
    )
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
    burdens = wound_burdens(sheet.wounds, version)
    bonus = talent_bonus(sheet, request.talent) if version >= 4 else 0
    roll = roll_2d6(dice, request.advantage, request.disadvantage or bool(burdens))
    mental = sheet.traits.mental
    total = roll.kept_sum + mental + bonus
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
    if version >= 4:
        result.talent_bonus = bonus
    if outcome == "failure":
        result.cost = "the GM decides the cost (JDR-41)"
        return Resolution(result)
    if outcome == "success" and not (request.detail or "").strip() and version >= 4:
        # JDR-41: the mark is the player's to word (or the GM's): it waits for jdr.mark.
        result.mark_pending = True
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
    if body.talent is not None:
        request.talent = body.talent
    if body.direct_peril:
        request.direct_peril = True
    return Prepared(request, character_id=character.id, visibility=body.visibility)


def mythos_summary(request: JdrMythosRequest, result: JdrMythosResult, language: Language) -> str:
    """« Dr. Penhaligon — Mythe (Grimoire latin) 2D6+2 : 4, 5 → 11 contre 12, Échec »."""
    roll = JdrRoll(mode=result.mode, dice=result.dice, kept=result.kept, kept_sum=0)
    bonus = result.mental + (result.talent_bonus or 0)
    thrown = f"{dice_words(roll, bonus, language)} → {result.total}"
    label = MYTHOS[result.outcome].text(language)
    name = request.character.name
    if language == "fr":
        return f"{name} — Mythe ({request.source}) {thrown} contre {result.difficulty}, {label}"
    return f"{name} — Mythos ({request.source}) {thrown} against {result.difficulty}, {label}"


def mythos_outcome(result: JdrMythosResult) -> Outcome:
    return Outcome("mythos", result.outcome)


def settle_mythos(follow_ups: Sequence[Settling]) -> Settled | None:
    """JDR-25: after a Joker, the Mythos test stands as its reroll."""
    final: Settled | None = None
    for follow in follow_ups:
        rerolled = follow.result.get("mythos") if follow.kind == "jdr.joker" else None
        if isinstance(rerolled, dict) and isinstance(rerolled.get("outcome"), str):
            final = Settled(Outcome("mythos", str(rerolled["outcome"])), follow.seq)
    return final


def mythos_odds(request: JdrMythosRequest, version: RulesVersion) -> Odds:
    """Issue 21: the exact odds of the roll (jdr/odds.py, which builds on this module)."""
    from app.engine.rulesets.jdr.odds import mythos_odds as exact

    return exact(request, version)


MYTHOS_TEST: RollKind[JdrMythosCreate, JdrMythosRequest, JdrMythosResult] = RollKind(
    name="jdr.mythos",
    gm_decides=(("difficulty", "JDR-40"), ("direct_peril", "JDR-25")),
    npc_values=(
        ("/mental", "/character"),
        ("/talent_bonus", "/character"),
        ("/total", "/character"),
        ("/auto_disadvantage", "/character"),
        ("/mode", "/character"),
        ("/kept", "/character"),
        ("/counted_marks", "/character"),
    ),
    title="Mythos test",
    body=JdrMythosCreate,
    request=JdrMythosRequest,
    result=JdrMythosResult,
    prepare=prepare_mythos,
    resolve=resolve_mythos,
    summary=mythos_summary,
    outcome=mythos_outcome,
    odds=mythos_odds,
    settle=settle_mythos,
    systems=CTHULHU_ONLY,
    wrong_system=wrong_setting("JDR-40", CTHULHU),
)


# --- JDR-41: the mark a success left pending, worded --------------------------------------


class JdrWorded(Model):
    """The Mythos test whose mark is worded: {seq, kind, request, result}."""

    seq: int
    kind: Literal["jdr.mythos"]
    request: JdrMythosRequest
    result: JdrMythosResult


class JdrWordedOther(Model):
    """Another entry named as the Mythos test: the rules refuse it."""

    seq: int
    kind: str
    request: dict[str, JsonValue]
    result: dict[str, JsonValue]


class JdrWordedReroll(Model):
    """A Joker's reroll of a Mythos test (JDR-25), whose success's mark is worded."""

    seq: int
    kind: Literal["jdr.joker"]
    scene: int = Field(description="the scene of the test and its reroll")
    result: JdrMythosResult = Field(description="the reroll's result")


# Read as a Mythos test when it is one (first), else as any entry for the rules to refuse.
JdrWordedEntry = Annotated[
    JdrWorded | JdrWordedReroll | JdrWordedOther, Field(union_mode="left_to_right")
]
_WORDED: TypeAdapter[JdrWorded | JdrWordedReroll | JdrWordedOther] = TypeAdapter(JdrWordedEntry)


class JdrMarkRequest(Model):
    system: JdrSystem
    session: int
    scene: int
    character: JdrCthulhuCharacter
    test: JdrWordedEntry
    follow_ups: list[FollowUpRecord] = Field(default_factory=list)
    wording: str


class JdrMarkResult(Model):
    mark: Mark
    counted_marks: int


def resolve_mark(
    request: JdrMarkRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[JdrMarkResult]:
    """JDR-41 [C]: the narrative detail a Mythos success costs, in the player's words."""
    check_setting(request.system, CTHULHU, "JDR-41")
    test = request.test
    if isinstance(test, JdrWordedOther):
        raise InvalidInput(
            f"follows must name a jdr.mythos entry, or the Joker that rerolled one, not {test.kind}"
        )
    kinds = {follow.kind for follow in request.follow_ups}
    if "jdr.joker" in kinds:
        raise refusal(
            "JDR-25",
            "the Joker rerolled this Mythos test and its second result stands: word the mark "
            "the reroll left, if any (follows: the Joker's entry)",
        )
    if not test.result.mark_pending:
        raise refusal("JDR-41", "this Mythos test left no mark waiting for its wording")
    if "jdr.mark" in kinds:
        raise refusal("JDR-41", "the mark of this Mythos test was already worded")
    character = request.character
    sheet = character.sheet
    wording = request.wording.strip()
    if not wording:
        raise invalid("JDR-41", "the mark needs words: a nightmare, an aversion, a foreign word")
    scene = test.request.scene if isinstance(test, JdrWorded) else test.scene
    mark = Mark(description=wording, counted=False, scene=scene)
    marks_after = [*sheet.marks, mark]
    effects = [effect(character.id, "marks", sheet.marks, marks_after, "JDR-41")]
    return Resolution(JdrMarkResult(mark=mark, counted_marks=counted_marks(marks_after)), effects)


def prepare_mark(body: JdrMarkCreate, table: Table) -> Prepared[JdrMarkRequest]:
    entry, character = player_follow_up(body, table, JdrCthulhuCharacter)
    request = JdrMarkRequest(
        system=setting_of(table),
        session=table.session,
        scene=table.scene,
        character=character,
        test=worded_entry(entry),
        follow_ups=table.follow_ups(body.follows),
        wording=body.wording,
    )
    visibility = body.visibility or entry.visibility
    return Prepared(request, character_id=character.id, visibility=visibility, follows=body.follows)


def worded_entry(entry: LoggedEntry) -> JdrWorded | JdrWordedReroll | JdrWordedOther:
    """The entry a mark is worded for: a Mythos test, or the Joker's reroll of one."""
    rerolled = entry.result.get("mythos") if entry.kind == "jdr.joker" else None
    if isinstance(rerolled, dict):
        scene = entry.request.get("scene")
        return _WORDED.validate_python(
            {"seq": entry.seq, "kind": entry.kind, "scene": scene, "result": rerolled}
        )
    return _WORDED.validate_python(
        {"seq": entry.seq, "kind": entry.kind, "request": entry.request, "result": entry.result}
    )


def mark_summary(request: JdrMarkRequest, result: JdrMarkResult, language: Language) -> str:
    """« Dr. Penhaligon — Marque formulée : ne dort plus sans lumière »."""
    return event_words(request.character.name, "mark_worded", result.mark.description, language)


def mark_outcome(result: JdrMarkResult) -> Outcome:
    return Outcome("event", "mark_worded")


MARK: RollKind[JdrMarkCreate, JdrMarkRequest, JdrMarkResult] = RollKind(
    name="jdr.mark",
    title="Mark worded",
    body=JdrMarkCreate,
    request=JdrMarkRequest,
    result=JdrMarkResult,
    prepare=prepare_mark,
    resolve=resolve_mark,
    summary=mark_summary,
    outcome=mark_outcome,
    odds=certain_odds(
        resolve_mark,
        mark_outcome,
        ("mark_worded",),
        "the player words the mark (JDR-41)",
    ),
    is_roll=False,
    systems=CTHULHU_ONLY,
    wrong_system=wrong_setting("JDR-41", CTHULHU),
    reaction=True,
)
