"""[C] The Cthulhu setting's own rules: the Effleurement Cosmique and the GM's refusal of it
(JDR-28, JDR-29), the sacrifice that recharges it (JDR-29a), and the marks that make a PC
the GM's (JDR-42). The Mythos test is in `mythos`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Final, Literal

from pydantic import Field, JsonValue, TypeAdapter

from app.engine.contract import (
    Effect,
    FollowUpRecord,
    Language,
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
from app.engine.rulesets.jdr.action import (
    JdrFollowUpRequest,
    checked_action,
    context_of,
    entry_character,
    follow_kinds,
    followed,
    player_follow_up,
    same_scene,
    special_rule_used,
)
from app.engine.rulesets.jdr.bodies import (
    JdrEffleurementCreate,
    JdrEffleurementRefusalCreate,
    JdrSacrificeCreate,
)
from app.engine.rulesets.jdr.certain import certain_odds
from app.engine.rulesets.jdr.core import (
    CTHULHU,
    JdrSystem,
    Tier,
    check_setting,
    require_pc,
    setting_of,
    wrong_setting,
)
from app.engine.rulesets.jdr.events import JdrEventRequest, event_request, event_words
from app.engine.rulesets.jdr.labels import EFFLEUREMENTS, TIERS
from app.engine.rulesets.jdr.sheet import JdrCthulhuCharacter, JdrCthulhuSheet, Mark

CTHULHU_ONLY = frozenset({CTHULHU})
# JDR-29: the domains the Effleurement works on.
EFFLEUREMENT_DOMAINS: Final = frozenset(
    {"investigation", "erudition", "observation", "occult", "mythos"}
)
MAX_COUNTED_MARKS: Final = 5  # JDR-42: more than five and the PC becomes an NPC


def counted_marks(marks: Sequence[Mark]) -> int:
    return sum(1 for mark in marks if mark.counted)


def npc_effect(
    character: JdrCthulhuCharacter, sheet: JdrCthulhuSheet, marks_after: Sequence[Mark]
) -> list[Effect]:
    """JDR-42: a PC with more than five counted marks becomes unplayable."""
    if (
        character.kind == "pc"
        and sheet.status == "active"
        and counted_marks(marks_after) > MAX_COUNTED_MARKS
    ):
        return [effect(character.id, "status", "active", "npc", "JDR-42")]
    return []


def marks_edited(
    before: Mapping[str, Any] | None, after: dict[str, Any], scene: int
) -> dict[str, Any]:
    """JDR-42 (corrected): six counted marks make the PC an NPC whatever brought them there,
    a GM's override of the marks included (checked when an edit changes the marks)."""
    marks = after.get("marks") or []
    if before is not None and before.get("marks") == marks:
        return after
    counted = sum(1 for mark in marks if isinstance(mark, Mapping) and mark.get("counted"))
    if counted > MAX_COUNTED_MARKS and after.get("status", "active") == "active":
        after["status"] = "npc"
    return after


# --- JDR-28/29: the Effleurement ---------------------------------------------------------------


class JdrEffleurementRequest(JdrFollowUpRequest):
    character: JdrCthulhuCharacter
    mark: str = Field(description="the mark, as the player tells it (JDR-28)")


class JdrEffleurementResult(Model):
    status: Literal["applied"]
    tier: Literal["success"]
    label: str
    upgraded_from: Literal["partial_success"]
    mark: Mark
    counted_marks: int


def resolve_effleurement(
    request: JdrEffleurementRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[JdrEffleurementResult]:
    """JDR-28/29 [C]: accept a durable mark to turn a partial success into a success."""
    check_setting(request.system, CTHULHU, "JDR-28")
    character = request.character
    sheet = character.sheet
    require_pc(character, "JDR-28", "the Effleurement")
    action = checked_action(request, character.id, "JDR-27")
    same_scene(request, action, "JDR-28", "the Effleurement")
    if version >= 4 and "jdr.joker" in follow_kinds(request.follow_ups):
        raise refusal("JDR-27", "the Joker was used on this action")
    if version >= 4 and action.result.difficulty is not None:
        raise refusal(
            "JDR-13",
            "the Effleurement turns a tier, and a roll against a difficulty reads only success "
            "or failure",
        )
    if action.result.tier != "partial_success":
        raise refusal(
            "JDR-28", f"the Effleurement turns a partial success, not a {action.result.tier}"
        )
    domain = context_of(action, request.follow_ups).domain
    if domain not in EFFLEUREMENT_DOMAINS:
        raise refusal(
            "JDR-29",
            f"the Effleurement works on investigation, erudition, observation, occult or "
            f"mythos rolls, not {domain}",
        )
    if "jdr.joker" in follow_kinds(request.follow_ups):
        raise refusal("JDR-27", "the Joker was used on this action")
    if special_rule_used(request.follow_ups):
        raise refusal("JDR-28", "the Effleurement was already used on this action")
    if sheet.effleurement != "ready":
        raise refusal(
            "JDR-28", "the Effleurement is spent; it recharges with safe sleep or a sacrifice"
        )
    if sheet.effleurement_scene == request.scene:
        raise refusal("JDR-28", "the Effleurement was already used in this scene")
    description = request.mark.strip()
    if not description:
        raise invalid("JDR-28", "the player describes the mark; it cannot be empty")
    mark = Mark(description=description, counted=True, scene=request.scene)
    marks_after = [*sheet.marks, mark]
    effects = [
        effect(character.id, "marks", sheet.marks, marks_after, "JDR-28"),
        effect(character.id, "effleurement", "ready", "spent", "JDR-28"),
        effect(
            character.id,
            "effleurement_scene",
            sheet.effleurement_scene,
            request.scene,
            "JDR-28",
        ),
        *npc_effect(character, sheet, marks_after),
    ]
    result = JdrEffleurementResult(
        status="applied",
        tier="success",
        label=TIERS["success"].fr,
        upgraded_from="partial_success",
        mark=mark,
        counted_marks=counted_marks(marks_after),
    )
    return Resolution(result, effects)


def prepare_effleurement(
    body: JdrEffleurementCreate, table: Table
) -> Prepared[JdrEffleurementRequest]:
    entry, character = player_follow_up(body, table, JdrCthulhuCharacter)
    request = JdrEffleurementRequest(
        system=setting_of(table),
        session=table.session,
        scene=table.scene,
        character=character,
        action=followed(entry),
        follow_ups=table.follow_ups(body.follows),
        mark=body.mark,
    )
    visibility = body.visibility or entry.visibility
    return Prepared(request, character_id=character.id, visibility=visibility, follows=body.follows)


def effleurement_summary(
    request: JdrEffleurementRequest, result: JdrEffleurementResult, language: Language
) -> str:
    """« Dr. Penhaligon — Effleurement : Succès complet, marque « … » (2 marques comptées) »."""
    tier = TIERS[result.tier].text(language)
    name, mark, count = request.character.name, result.mark.description, result.counted_marks
    plural = "s" if count > 1 else ""
    if language == "fr":
        counted = f"{count} marque{plural} comptée{plural}"
        return f"{name} — Effleurement : {tier}, marque « {mark} » ({counted})"
    return f"{name} — Effleurement: {tier}, mark “{mark}” ({count} counted mark{plural})"


def effleurement_outcome(result: JdrEffleurementResult) -> Outcome:
    return Outcome("effleurement", result.status)


def settle_effleurement(follow_ups: Sequence[Settling]) -> Settled | None:
    """JDR-29: an Effleurement the GM refused stands refused."""
    for follow in follow_ups:
        if follow.kind == "jdr.effleurement_refusal":
            return Settled(Outcome("effleurement", "refused"), follow.seq)
    return None


EFFLEUREMENT: RollKind[JdrEffleurementCreate, JdrEffleurementRequest, JdrEffleurementResult] = (
    RollKind(
        name="jdr.effleurement",
        title="Effleurement",
        body=JdrEffleurementCreate,
        request=JdrEffleurementRequest,
        result=JdrEffleurementResult,
        prepare=prepare_effleurement,
        resolve=resolve_effleurement,
        summary=effleurement_summary,
        outcome=effleurement_outcome,
        odds=certain_odds(
            resolve_effleurement,
            effleurement_outcome,
            ("applied",),
            "the player accepts the mark (JDR-28); the GM may still refuse it (JDR-29)",
        ),
        settle=settle_effleurement,
        systems=CTHULHU_ONLY,
        wrong_system=wrong_setting("JDR-28", CTHULHU),
        reaction=True,
    )
)


# --- JDR-29: the GM refuses an Effleurement ------------------------------------------------


class JdrTouched(Model):
    """The Effleurement refused: {seq, kind, result, effects}."""

    seq: int
    kind: Literal["jdr.effleurement"]
    result: JdrEffleurementResult
    effects: list[Effect]


class JdrTouchedOther(Model):
    """Another entry named as the Effleurement: the rules refuse it."""

    seq: int
    kind: str
    result: dict[str, JsonValue]
    effects: list[dict[str, JsonValue]]


# The entry named, read as its kind when it is one (first), else as any entry for the
# rules to refuse: JSON Schema's anyOf, which both may satisfy.
JdrRefused = Annotated[JdrTouched | JdrTouchedOther, Field(union_mode="left_to_right")]
_REFUSED: TypeAdapter[JdrTouched | JdrTouchedOther] = TypeAdapter(JdrRefused)


class JdrEffleurementRefusalRequest(Model):
    system: JdrSystem
    session: int
    scene: int
    character: JdrCthulhuCharacter
    effleurement: JdrRefused
    refusals: list[FollowUpRecord] = Field(
        default_factory=list, description="refusals already made of this Effleurement"
    )
    reason: str = ""


class JdrEffleurementRefusalResult(Model):
    status: Literal["refused"]
    tier: Tier
    label: str
    reason: str


def resolve_refusal(
    request: JdrEffleurementRefusalRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[JdrEffleurementRefusalResult]:
    """JDR-29: the GM refuses an Effleurement (no link to a hidden truth); it is undone."""
    check_setting(request.system, CTHULHU, "JDR-29")
    touched = request.effleurement
    if not isinstance(touched, JdrTouched):
        raise InvalidInput(f"follows must name a jdr.effleurement entry, not {touched.kind}")
    if request.refusals:
        raise refusal("JDR-29", "this Effleurement was already refused")
    character = request.character
    sheet = character.sheet
    marks = [mark.dump() for mark in sheet.marks]
    mark = touched.result.mark.dump()
    if mark not in marks:
        raise refusal("JDR-29", "the mark of this Effleurement is no longer on the sheet")
    index = len(marks) - 1 - marks[::-1].index(mark)
    marks_after = sheet.marks[:index] + sheet.marks[index + 1 :]
    effects = [effect(character.id, "marks", sheet.marks, marks_after, "JDR-29")]
    if sheet.effleurement == "spent":
        effects.append(effect(character.id, "effleurement", "spent", "ready", "JDR-29"))
    for used in touched.effects:
        # A refused Effleurement was never used: the scene's one use is given back.
        if used.field == "effleurement_scene" and sheet.effleurement_scene != used.before:
            effects.append(
                effect(
                    character.id,
                    "effleurement_scene",
                    sheet.effleurement_scene,
                    used.before,
                    "JDR-29",
                )
            )
    became_npc = any(used.field == "status" for used in touched.effects)
    if became_npc and sheet.status == "npc" and counted_marks(marks_after) <= MAX_COUNTED_MARKS:
        effects.append(effect(character.id, "status", "npc", "active", "JDR-42"))
    result = JdrEffleurementRefusalResult(
        status="refused",
        tier="partial_success",
        label=TIERS["partial_success"].fr,
        reason=request.reason,
    )
    return Resolution(result, effects)


def prepare_refusal(
    body: JdrEffleurementRefusalCreate, table: Table
) -> Prepared[JdrEffleurementRefusalRequest]:
    entry = table.entry(body.follows)
    character = table.character(entry_character(entry, body.follows), JdrCthulhuCharacter)
    touched = _REFUSED.validate_python(
        {"seq": entry.seq, "kind": entry.kind, "result": entry.result, "effects": entry.effects}
    )
    request = JdrEffleurementRefusalRequest(
        system=setting_of(table),
        session=table.session,
        scene=table.scene,
        character=character,
        effleurement=touched,
        refusals=table.follow_ups(body.follows),
        reason=body.reason,
    )
    visibility = body.visibility or entry.visibility
    return Prepared(request, character_id=character.id, visibility=visibility, follows=body.follows)


def refusal_summary(
    request: JdrEffleurementRefusalRequest,
    result: JdrEffleurementRefusalResult,
    language: Language,
) -> str:
    """« Dr. Penhaligon — Effleurement refusé par le MJ : Succès partiel »."""
    refused = EFFLEUREMENTS["refused"].text(language)
    tier = TIERS[result.tier].text(language)
    words = f"{request.character.name} — {refused}"
    words += f" : {tier}" if language == "fr" else f": {tier}"
    return f"{words} ({result.reason})" if result.reason else words


def refusal_outcome(result: JdrEffleurementRefusalResult) -> Outcome:
    return Outcome("effleurement", result.status)


EFFLEUREMENT_REFUSAL: RollKind[
    JdrEffleurementRefusalCreate, JdrEffleurementRefusalRequest, JdrEffleurementRefusalResult
] = RollKind(
    name="jdr.effleurement_refusal",
    title="Effleurement refused",
    body=JdrEffleurementRefusalCreate,
    request=JdrEffleurementRefusalRequest,
    result=JdrEffleurementRefusalResult,
    prepare=prepare_refusal,
    resolve=resolve_refusal,
    summary=refusal_summary,
    outcome=refusal_outcome,
    odds=certain_odds(
        resolve_refusal,
        refusal_outcome,
        ("refused",),
        "the GM refuses the Effleurement (JDR-29)",
    ),
    systems=CTHULHU_ONLY,
    wrong_system=wrong_setting("JDR-29", CTHULHU),
    gm_only="refuse an Effleurement",
    reaction=True,
)


# --- JDR-29a: a sacrifice of knowledge -------------------------------------------------------


class JdrSacrificeRequest(JdrEventRequest):
    character: JdrCthulhuCharacter


class JdrSacrificeResult(Model):
    recharged: Literal["effleurement"]
    description: str


def resolve_sacrifice(
    request: JdrSacrificeRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[JdrSacrificeResult]:
    """JDR-29a [C]: a voluntary sacrifice of knowledge recharges the Effleurement."""
    check_setting(request.system, CTHULHU, "JDR-29a")
    character = request.character
    if character.sheet.effleurement != "spent":
        raise refusal("JDR-29a", "the Effleurement is ready; there is nothing to recharge")
    recharged = effect(character.id, "effleurement", "spent", "ready", "JDR-29a")
    result = JdrSacrificeResult(recharged="effleurement", description=request.description)
    return Resolution(result, [recharged])


def prepare_sacrifice(body: JdrSacrificeCreate, table: Table) -> Prepared[JdrSacrificeRequest]:
    return event_request(body, table, JdrSacrificeRequest, JdrCthulhuCharacter)


def sacrifice_summary(
    request: JdrSacrificeRequest, result: JdrSacrificeResult, language: Language
) -> str:
    """« Dr. Penhaligon — Effleurement rechargé : Brûler une page »."""
    name = request.character.name
    return event_words(name, "effleurement_recharged", result.description, language)


def sacrifice_outcome(result: JdrSacrificeResult) -> Outcome:
    return Outcome("event", "effleurement_recharged")


SACRIFICE: RollKind[JdrSacrificeCreate, JdrSacrificeRequest, JdrSacrificeResult] = RollKind(
    name="jdr.sacrifice",
    title="Sacrifice of knowledge",
    body=JdrSacrificeCreate,
    request=JdrSacrificeRequest,
    result=JdrSacrificeResult,
    prepare=prepare_sacrifice,
    resolve=resolve_sacrifice,
    summary=sacrifice_summary,
    outcome=sacrifice_outcome,
    odds=certain_odds(
        resolve_sacrifice,
        sacrifice_outcome,
        ("effleurement_recharged",),
        "the GM records the sacrifice (JDR-29a)",
    ),
    is_roll=False,
    systems=CTHULHU_ONLY,
    wrong_system=wrong_setting("JDR-29a", CTHULHU),
    gm_only="record a jdr.sacrifice",
)
