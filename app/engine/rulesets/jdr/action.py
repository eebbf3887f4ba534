"""The action roll (JDR-10..14): 2D6 + trait + talent + modifier, read on the tiers or
against a difficulty; and how its follow-ups (Talisman, Effleurement, Joker) read it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, Literal

from pydantic import Field, JsonValue, TypeAdapter

from app.engine.bodies import FollowUpBody
from app.engine.contract import (
    FollowUpRecord,
    Label,
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
)
from app.engine.dice import DiceSource
from app.engine.errors import InvalidInput, refusal
from app.engine.odds import Odds
from app.engine.rulesets.jdr.bodies import JdrActionCreate
from app.engine.rulesets.jdr.core import (
    Burden,
    JdrContext,
    JdrRoll,
    JdrSystem,
    Mode,
    Tier,
    destroyed,
    dice_words,
    faith_shaken_applies,
    full_context,
    mark_confrontation,
    playable,
    roll_2d6,
    setting_of,
    tier_of,
    wound_burdens,
)
from app.engine.rulesets.jdr.labels import LABELS, TALENT_WITHHELD, TIERS, TRAITS
from app.engine.rulesets.jdr.sheet import AnyJdrCharacter, JdrCharacter, JdrSheetBase, TraitName
from app.engine.sheets import enum_labels


class JdrActionRequest(Model):
    system: JdrSystem
    session: int
    scene: int
    character: JdrCharacter
    trait: TraitName
    talent: str | None = None
    modifier: int
    advantage: bool
    disadvantage: bool
    difficulty: int | None = None
    context: JdrContext
    no_talent_bonus: bool = Field(
        default=False, description="JDR-31a: off guard in the first round (encounters set it)"
    )


TalentWithheld = Annotated[
    Literal["off_guard"], Field(json_schema_extra=enum_labels(TALENT_WITHHELD))
]


class JdrActionResult(Model):
    mode: Mode
    dice: list[int] = Field(description="every die thrown, in order (JDR-12)")
    kept: list[bool] = Field(description="which two dice count")
    trait_value: int
    talent_bonus: int
    talent_withheld: TalentWithheld | None = Field(
        default=None, description="why the talent named did not count (JDR-31a)"
    )
    modifier: int | None = Field(
        default=None, description="the GM's modifier, added to the total (JDR-10)"
    )
    auto_disadvantage: list[Burden] = Field(
        description="what put the roll at Disadvantage on its own (JDR-3, JDR-24, JDR-33)"
    )
    total: int
    tier: Tier | None = Field(
        default=None,
        description="JDR-11; absent on a roll against a difficulty, which reads success or "
        "failure instead (JDR-13)",
    )
    label: str = Field(description="the French label of the tier, or of success or failure")
    difficulty: int | None = Field(default=None, description="present on a roll against one")
    success: bool | None = Field(
        default=None, description="JDR-13: total >= difficulty, never on a total of 5 or less"
    )


def talent_bonus(sheet: JdrSheetBase, talent: str | None) -> int:
    if talent is None:
        return 0
    for entry in sheet.talents:
        if entry.name == talent:
            return entry.bonus
    names = ", ".join(t.name for t in sheet.talents) or "none"
    raise InvalidInput(f"talent '{talent}' is not on the sheet (its talents: {names})")


def roll_action(
    request: JdrActionRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[JdrActionResult]:
    """JDR-10..14: 2D6 + trait + talent + modifier, tiers, difficulty."""
    character = request.character
    sheet = character.sheet
    if sheet.destroyed:
        raise destroyed(character.name)
    context = request.context
    bonus = 0 if request.no_talent_bonus else talent_bonus(sheet, request.talent)
    burdens = wound_burdens(sheet.wounds, version)  # JDR-3, JDR-33
    # JDR-24: « tout jet de protection ... contre la créature »: the GM's roll request marks
    # both, and its answer may change neither.
    shaken = context.protection and faith_shaken_applies(sheet, request.scene, context.supernatural)
    if shaken:
        burdens.append("faith_shaken")  # JDR-24
    roll = roll_2d6(dice, request.advantage, request.disadvantage or bool(burdens))
    trait_value = getattr(sheet.traits, request.trait)
    total = roll.kept_sum + trait_value + bonus + request.modifier
    tier = tier_of(total)
    result = JdrActionResult(
        mode=roll.mode,
        dice=roll.dice,
        kept=roll.kept,
        trait_value=trait_value,
        talent_bonus=bonus,
        auto_disadvantage=burdens,
        total=total,
        label=TIERS[tier].fr,
    )
    if version >= 4:
        # The result explains itself: the GM's modifier, and a talent that did not count.
        result.modifier = request.modifier
        if request.no_talent_bonus and request.talent is not None:
            result.talent_withheld = "off_guard"
    if request.difficulty is None or version < 4:
        result.tier = tier
    if request.difficulty is not None:
        # JDR-13: success against the difficulty; a total of 5 or less still fails critically.
        result.difficulty = request.difficulty
        result.success = tier != "critical_failure" and total >= request.difficulty
        if version >= 4:
            # JDR-13 (corrected): success or failure, never a tier, and the label says so.
            result.label = label_of(outcome(result)).fr
    effects = mark_confrontation(character.id, sheet, request.scene) if shaken else []
    return Resolution(result, effects)


def resolve(
    request: JdrActionRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[JdrActionResult]:
    return roll_action(request, dice, version)


def prepare(body: JdrActionCreate, table: Table) -> Prepared[JdrActionRequest]:
    character = playable(table, table.acting(body.character_id, JdrCharacter))
    request = JdrActionRequest(
        system=setting_of(table),
        session=table.session,
        scene=table.scene,
        character=character,
        trait=body.trait,
        talent=body.talent,
        modifier=body.modifier,
        advantage=body.advantage,
        disadvantage=body.disadvantage,
        difficulty=body.difficulty,
        context=full_context(body.context),
        no_talent_bonus=body.no_talent_bonus,
    )
    return Prepared(request, character_id=character.id, visibility=body.visibility)


def roll_words(request: JdrActionRequest, result: JdrActionResult, language: Language) -> str:
    """« Physique 2D6+3 : 4, 5 → 12, Succès complet »."""
    bonus = result.total - sum(f for f, k in zip(result.dice, result.kept, strict=True) if k)
    roll = JdrRoll(mode=result.mode, dice=result.dice, kept=result.kept, kept_sum=0)
    against = ""
    if result.difficulty is not None:
        against = f" (diff. {result.difficulty})"
    trait = TRAITS[request.trait].text(language)
    verdict = label_of(outcome(result)).text(language)
    return f"{trait} {dice_words(roll, bonus, language)} → {result.total}{against}, {verdict}"


def summary(request: JdrActionRequest, result: JdrActionResult, language: Language) -> str:
    """« Mihail — Physique 2D6+3 : 4, 5 → 12, Succès complet »."""
    return f"{request.character.name} — {roll_words(request, result, language)}"


def outcome(result: JdrActionResult) -> Outcome:
    """The tier; against a difficulty, success or failure instead (JDR-13)."""
    if result.success is None:
        return Outcome("tier", result.tier or tier_of(result.total))
    if result.total <= 5:
        return Outcome("against_difficulty", "critical_failure")
    return Outcome("against_difficulty", "success" if result.success else "failure")


def label_of(found: Outcome) -> Label:
    return LABELS[found.group][found.code]


def reroll_outcome(result: Mapping[str, JsonValue]) -> Outcome:
    """A Joker's reroll of an action (JDR-25), read as the action result it is."""
    fields = {k: v for k, v in result.items() if k not in ("rerolls", "attack", "mythos")}
    return outcome(JdrActionResult.model_validate(fields))


def settle_action(follow_ups: Sequence[Settling]) -> Settled | None:
    """Where an action finally stands (JDR-20..28): after a Joker, its reroll; after the
    Talisman, the GM's ruling; after the Effleurement, a success unless the GM refused it."""
    final: Settled | None = None
    for follow in follow_ups:
        after = {nested.kind: nested for nested in follow.follow_ups}
        if follow.kind == "jdr.joker":
            final = Settled(reroll_outcome(follow.result), follow.seq)
        elif follow.kind == "jdr.talisman" and "jdr.talisman_ruling" in after:
            ruling = after["jdr.talisman_ruling"]
            final = Settled(Outcome("tier", str(ruling.result["tier"])), ruling.seq)
        elif follow.kind == "jdr.effleurement":
            refused = after.get("jdr.effleurement_refusal")
            tier = "partial_success" if refused else "success"
            final = Settled(Outcome("tier", tier), refused.seq if refused else follow.seq)
    return final


# FAIR-18: what an action's result shows from its roller's sheet (a Joker's too): the
# trait, the talent and the total they give, and a burden's Disadvantage.
ACTION_NPC_VALUES = (
    ("/trait_value", "/character"),
    ("/talent_bonus", "/character"),
    ("/total", "/character"),
    ("/auto_disadvantage", "/character"),
    ("/mode", "/character"),
    ("/kept", "/character"),
)


def action_odds(request: JdrActionRequest, version: RulesVersion) -> Odds:
    """Issue 21: the exact odds of the roll (jdr/odds.py, which builds on this module)."""
    from app.engine.rulesets.jdr.odds import action_odds as exact

    return exact(request, version)


ACTION: RollKind[JdrActionCreate, JdrActionRequest, JdrActionResult] = RollKind(
    name="jdr.action",
    gm_decides=(
        ("difficulty", "JDR-13"),
        ("modifier", "JDR-10"),
        # JDR-24 (corrected): the GM marks a protection roll; a cracked Talisman then burdens
        # it without its player's help.
        ("context.protection", "JDR-24"),
    ),
    npc_values=ACTION_NPC_VALUES,
    title="Action roll",
    body=JdrActionCreate,
    request=JdrActionRequest,
    result=JdrActionResult,
    prepare=prepare,
    resolve=resolve,
    summary=summary,
    outcome=outcome,
    odds=action_odds,
    settle=settle_action,
)


# --- the action a follow-up reads (JDR-14, JDR-20..29) -------------------------------------


class JdrFollowedAction(Model):
    """The action roll a follow-up acts on: {seq, kind, request, result}."""

    seq: int
    kind: Literal["jdr.action"]
    request: JdrActionRequest
    result: JdrActionResult


class JdrFollowedOther(Model):
    """Another entry named as the action (a Joker's reroll, JDR-25/27): the rules refuse it."""

    seq: int
    kind: str
    request: dict[str, JsonValue]
    result: dict[str, JsonValue]


# The entry named, read as its kind when it is one (first), else as any entry for the
# rules to refuse: JSON Schema's anyOf, which both may satisfy.
JdrFollowed = Annotated[JdrFollowedAction | JdrFollowedOther, Field(union_mode="left_to_right")]
_FOLLOWED: TypeAdapter[JdrFollowedAction | JdrFollowedOther] = TypeAdapter(JdrFollowed)


class JdrFollowUpRequest(Model):
    """What the Talisman, the Effleurement and the Joker read of the action they follow."""

    system: JdrSystem
    session: int
    scene: int
    action: JdrFollowed
    follow_ups: list[FollowUpRecord] = Field(
        default_factory=list, description="what already followed the action, in order"
    )


def followed(entry: LoggedEntry) -> JdrFollowedAction | JdrFollowedOther:
    """The entry a follow-up acts on, as its request records it."""
    return _FOLLOWED.validate_python(
        {"seq": entry.seq, "kind": entry.kind, "request": entry.request, "result": entry.result}
    )


def checked_action(request: JdrFollowUpRequest, character_id: str, rule: str) -> JdrFollowedAction:
    """The action followed: not a Joker's reroll (JDR-25/27), rolled by the same character."""
    action = request.action
    if action.kind == "jdr.joker":
        if rule == "JDR-25":
            raise refusal(rule, "a Joker reroll is final: the second result must be kept")
        raise refusal("JDR-27", "the Joker was used on this action")
    if not isinstance(action, JdrFollowedAction):
        raise InvalidInput(f"follows must name a jdr.action entry, not {action.kind}")
    if action.request.character.id != character_id:
        raise InvalidInput("a follow-up applies to the character who rolled the action")
    return action


def follow_kinds(follow_ups: list[FollowUpRecord]) -> list[str]:
    return [follow.kind for follow in follow_ups]


def effective_context(context: JdrContext, follow_ups: list[FollowUpRecord]) -> JdrContext:
    """JDR-14: the action's context, as the GM last amended it."""
    for follow in follow_ups:
        if follow.kind == "jdr.context":
            context = JdrContext.model_validate(follow.result["context"])
    return context


def context_of(action: JdrFollowedAction, follow_ups: list[FollowUpRecord]) -> JdrContext:
    """JDR-14: the context of the action followed, as the GM last amended it."""
    return effective_context(action.request.context, follow_ups)


def same_scene(
    request: JdrFollowUpRequest, action: JdrFollowedAction, rule: str, what: str
) -> None:
    rolled = action.request.scene
    if rolled != request.scene:
        raise refusal(rule, f"{what} applies in the scene of its roll (scene {rolled})")


def special_rule_used(follow_ups: list[FollowUpRecord]) -> str | None:
    """JDR-27: the setting rule already applied on this action, if any (refusals undo it)."""
    kinds = follow_kinds(follow_ups)
    if "jdr.talisman" in kinds:
        return "the Talisman"
    if kinds.count("jdr.effleurement") > kinds.count("jdr.effleurement_refusal"):
        return "the Effleurement"
    return None


def entry_character(entry: LoggedEntry, follows: int) -> str:
    """The character an entry concerns: a follow-up acts for them."""
    if entry.character_id is None:
        raise InvalidInput(f"follows: entry {follows} ({entry.kind}) concerns no character")
    return entry.character_id


def player_follow_up(
    body: FollowUpBody, table: Table, model: type[AnyJdrCharacter]
) -> tuple[LoggedEntry, AnyJdrCharacter]:
    """The entry a player's follow-up acts on, and its character, whom they must control."""
    entry = table.entry(body.follows)
    character_id = entry_character(entry, body.follows)
    return entry, playable(table, table.acting(character_id, model))
