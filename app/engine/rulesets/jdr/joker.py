"""The GM's word on a disputed context (JDR-14) and the Joker du destin (JDR-25..27)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, JsonValue, TypeAdapter

from app.engine.contract import (
    FollowUpRecord,
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
from app.engine.rulesets.jdr.action import (
    ACTION_NPC_VALUES,
    JdrActionRequest,
    JdrActionResult,
    JdrFollowedAction,
    JdrFollowUpRequest,
    checked_action,
    context_of,
    effective_context,
    entry_character,
    follow_kinds,
    followed,
    player_follow_up,
    roll_action,
    roll_words,
    same_scene,
    special_rule_used,
)
from app.engine.rulesets.jdr.bodies import JdrContextCreate, JdrJokerCreate
from app.engine.rulesets.jdr.core import (
    JdrContext,
    JdrSystem,
    full_context,
    require_pc,
    setting_of,
)
from app.engine.rulesets.jdr.labels import DOMAINS
from app.engine.rulesets.jdr.sheet import JdrCharacter

# --- JDR-14: the GM amends a roll's context ------------------------------------------------


class JdrAmendedAction(Model):
    """The action whose context the GM amends: {seq, kind, request}."""

    seq: int
    kind: Literal["jdr.action"]
    request: JdrActionRequest


class JdrAmendedOther(Model):
    """Another entry named as the action: the rules refuse it."""

    seq: int
    kind: str
    request: dict[str, JsonValue]


# The entry named, read as its kind when it is one (first), else as any entry for the
# rules to refuse: JSON Schema's anyOf, which both may satisfy.
JdrAmended = Annotated[JdrAmendedAction | JdrAmendedOther, Field(union_mode="left_to_right")]
_AMENDED: TypeAdapter[JdrAmendedAction | JdrAmendedOther] = TypeAdapter(JdrAmended)


class JdrContextRequest(Model):
    system: JdrSystem
    session: int
    scene: int
    action: JdrAmended
    follow_ups: list[FollowUpRecord] = Field(default_factory=list)
    context: JdrContext


class JdrContextResult(Model):
    context: JdrContext = Field(description="the context as the GM rules it")
    before: JdrContext = Field(description="the context it replaces")


def resolve_context(
    request: JdrContextRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[JdrContextResult]:
    """JDR-14: the GM amends a disputed context before a follow-up applies."""
    action = request.action
    if not isinstance(action, JdrAmendedAction):
        raise InvalidInput(f"follows must name a jdr.action entry, not {action.kind}")
    before = effective_context(action.request.context, request.follow_ups)
    return Resolution(JdrContextResult(context=request.context, before=before))


def prepare_context(body: JdrContextCreate, table: Table) -> Prepared[JdrContextRequest]:
    entry = table.entry(body.follows)
    character = table.character(entry_character(entry, body.follows), JdrCharacter)
    action = _AMENDED.validate_python(
        {"seq": entry.seq, "kind": entry.kind, "request": entry.request}
    )
    request = JdrContextRequest(
        system=setting_of(table),
        session=table.session,
        scene=table.scene,
        action=action,
        follow_ups=table.follow_ups(body.follows),
        context=full_context(body.context),
    )
    visibility = body.visibility or entry.visibility
    return Prepared(request, character_id=character.id, visibility=visibility, follows=body.follows)


def context_words(context: JdrContext, language: Language) -> str:
    fr = language == "fr"
    words = []
    if context.supernatural:
        words.append("surnaturel" if fr else "supernatural")
    if context.domain != "other":
        words.append(DOMAINS[context.domain].text(language))
    if context.direct_peril:
        words.append("péril direct" if fr else "direct peril")
    if context.protection:
        words.append("protection")
    return ", ".join(words) or ("ordinaire" if fr else "ordinary")


def context_summary(
    request: JdrContextRequest, result: JdrContextResult, language: Language
) -> str:
    """« Contexte de #40 amendé par le MJ : surnaturel, péril direct »."""
    words = context_words(result.context, language)
    seq = request.action.seq
    if language == "fr":
        return f"Contexte de #{seq} amendé par le MJ : {words}"
    return f"Context of #{seq} amended by the GM: {words}"


def context_outcome(result: JdrContextResult) -> Outcome:
    return Outcome("event", "context_amended")


CONTEXT: RollKind[JdrContextCreate, JdrContextRequest, JdrContextResult] = RollKind(
    name="jdr.context",
    title="Context amended",
    body=JdrContextCreate,
    request=JdrContextRequest,
    result=JdrContextResult,
    prepare=prepare_context,
    resolve=resolve_context,
    summary=context_summary,
    outcome=context_outcome,
    is_roll=False,
    gm_only="amend a roll's context",
    reaction=True,
)


# --- JDR-25..27: the Joker ---------------------------------------------------------------


class JdrJokerRequest(JdrFollowUpRequest):
    character: JdrCharacter


class JdrJokerResult(JdrActionResult):
    rerolls: int = Field(description="seq of the action rerolled; this result is final")


def resolve_joker(
    request: JdrJokerRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[JdrJokerResult]:
    """JDR-25..27: reroll an action of direct peril once per session; the reroll is final."""
    character = request.character
    sheet = character.sheet
    require_pc(character, "JDR-25", "the Joker")
    action = checked_action(request, character.id, "JDR-25")
    same_scene(request, action, "JDR-25", "the Joker")
    context = context_of(action, request.follow_ups)
    if not context.direct_peril:
        raise refusal("JDR-25", "the Joker rerolls only an action that puts the PC in direct peril")
    if "jdr.joker" in follow_kinds(request.follow_ups):
        raise refusal("JDR-25", "this action was already rerolled; the second result is kept")
    used = special_rule_used(request.follow_ups)
    if used:
        raise refusal("JDR-27", f"{used} was used on this action; the Joker cannot be")
    if sheet.joker != "ready":
        raise refusal("JDR-26", "the Joker was used this session; it recharges at the next one")
    # Same inputs as the action (JDR-25), read against the sheet as it is now.
    reroll = action.request.model_copy(update={"character": character, "context": context})
    rolled = roll_action(reroll, dice)
    result = JdrJokerResult.model_validate({**rolled.result.dump(), "rerolls": action.seq})
    effects = [effect(character.id, "joker", "ready", "spent", "JDR-25"), *rolled.effects]
    return Resolution(result, effects)


def prepare_joker(body: JdrJokerCreate, table: Table) -> Prepared[JdrJokerRequest]:
    entry, character = player_follow_up(body, table, JdrCharacter)
    request = JdrJokerRequest(
        system=setting_of(table),
        session=table.session,
        scene=table.scene,
        character=character,
        action=followed(entry),
        follow_ups=table.follow_ups(body.follows),
    )
    visibility = body.visibility or entry.visibility
    return Prepared(request, character_id=character.id, visibility=visibility, follows=body.follows)


def joker_summary(request: JdrJokerRequest, result: JdrJokerResult, language: Language) -> str:
    """« Mihail — Joker (relance de #40) : Physique 2D6+3 : 6, 5 → 14, Succès complet »."""
    action = request.action
    head = f"{request.character.name} — Joker"
    head += (
        f" (relance de #{result.rerolls})"
        if language == "fr"
        else f" (reroll of #{result.rerolls})"
    )
    if not isinstance(action, JdrFollowedAction):
        return head
    return (
        f"{head} : {roll_words(action.request, result, language)}"
        if language == "fr"
        else (f"{head}: {roll_words(action.request, result, language)}")
    )


def joker_outcome(result: JdrJokerResult) -> Outcome:
    return Outcome("tier", result.tier)


JOKER: RollKind[JdrJokerCreate, JdrJokerRequest, JdrJokerResult] = RollKind(
    name="jdr.joker",
    npc_values=ACTION_NPC_VALUES,
    title="Joker reroll",
    body=JdrJokerCreate,
    request=JdrJokerRequest,
    result=JdrJokerResult,
    prepare=prepare_joker,
    resolve=resolve_joker,
    summary=joker_summary,
    outcome=joker_outcome,
    reaction=True,
)
