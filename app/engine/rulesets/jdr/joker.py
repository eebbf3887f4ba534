"""The GM's word on a disputed context (JDR-14) and the Joker du destin (JDR-25..27)."""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeVar

from pydantic import Field, JsonValue, TypeAdapter

from app.engine.contract import (
    Effect,
    FollowUpRecord,
    Language,
    LoggedEntry,
    Model,
    Outcome,
    Prepared,
    Resolution,
    RollKind,
    RulesVersion,
    Table,
    effect,
    to_json,
)
from app.engine.dice import DiceSource, Draw, ReplayDice
from app.engine.errors import InvalidInput, refusal
from app.engine.odds import Odds
from app.engine.rulesets.jdr.action import (
    ACTION_NPC_VALUES,
    JdrActionRequest,
    JdrActionResult,
    JdrFollowedAction,
    JdrFollowUpRequest,
    TalentWithheld,
    checked_action,
    context_of,
    effective_context,
    entry_character,
    follow_kinds,
    outcome,
    roll_action,
    roll_words,
    same_scene,
    special_rule_used,
)
from app.engine.rulesets.jdr.bodies import JdrContextCreate, JdrJokerCreate
from app.engine.rulesets.jdr.certain import certain_odds
from app.engine.rulesets.jdr.combat import (
    JdrAttackRequest,
    JdrAttackResult,
    attack_outcome,
    attack_summary,
    resolve_attack,
)
from app.engine.rulesets.jdr.core import (
    Burden,
    JdrContext,
    JdrSystem,
    Mode,
    Tier,
    full_context,
    playable,
    require_pc,
    setting_of,
)
from app.engine.rulesets.jdr.labels import DOMAINS
from app.engine.rulesets.jdr.mythos import (
    JdrMythosRequest,
    JdrMythosResult,
    mythos_outcome,
    mythos_summary,
    resolve_mythos,
)
from app.engine.rulesets.jdr.sheet import JdrCharacter, JdrCthulhuCharacter

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
    odds=certain_odds(
        resolve_context,
        context_outcome,
        ("context_amended",),
        "the GM amends the context (JDR-14)",
    ),
    is_roll=False,
    gm_only="amend a roll's context",
    reaction=True,
)


# --- JDR-25..27: the Joker ---------------------------------------------------------------


class JdrFollowedAttack(Model):
    """An attack the Joker rerolls (JDR-25, corrected): its request and the dice it drew.
    Its result and changes are not copied (an NPC's numbers in them are hidden from the
    players, FAIR-18): the rules replay the attack from these to know what to undo."""

    seq: int
    kind: Literal["jdr.attack"]
    request: JdrAttackRequest
    draws: list[dict[str, int]] = Field(description="its dice, {sides, face}, in order")


class JdrFollowedMythos(Model):
    """A Mythos test the Joker rerolls (JDR-25, corrected)."""

    seq: int
    kind: Literal["jdr.mythos"]
    request: JdrMythosRequest
    result: JdrMythosResult
    effects: list[Effect] = Field(default_factory=list)


class JdrRerolledOther(Model):
    """Another entry named as the roll: the rules refuse it."""

    seq: int
    kind: str
    request: dict[str, JsonValue]
    result: dict[str, JsonValue] = Field(default_factory=dict)
    effects: list[dict[str, JsonValue]] = Field(default_factory=list)
    draws: list[dict[str, int]] = Field(default_factory=list)


# The entry rerolled, read as the first kind it is, else as any entry for the rules to
# refuse: JSON Schema's anyOf, which several may satisfy.
JdrRerolled = Annotated[
    JdrFollowedAction | JdrFollowedAttack | JdrFollowedMythos | JdrRerolledOther,
    Field(union_mode="left_to_right"),
]
_REROLLED: TypeAdapter[
    JdrFollowedAction | JdrFollowedAttack | JdrFollowedMythos | JdrRerolledOther
] = TypeAdapter(JdrRerolled)


class JdrJokerRequest(JdrFollowUpRequest):
    action: JdrRerolled  # type: ignore[assignment]
    character: JdrCharacter = Field(description="the PC who spends the Joker")
    other: JdrCharacter | None = Field(
        default=None, description="an attack's other fighter, as the reroll finds them"
    )


class JdrJokerResult(Model):
    """The reroll, final (JDR-25): an action's reroll is the action's result fields; an
    attack's or a Mythos test's (from rules version 4) is its whole result under `attack` or
    `mythos`."""

    rerolls: int = Field(description="seq of the roll rerolled; this result is final")
    mode: Mode | None = None
    dice: list[int] | None = None
    kept: list[bool] | None = None
    trait_value: int | None = None
    talent_bonus: int | None = None
    talent_withheld: TalentWithheld | None = None
    modifier: int | None = None
    auto_disadvantage: list[Burden] | None = None
    total: int | None = None
    tier: Tier | None = None
    label: str | None = None
    difficulty: int | None = None
    success: bool | None = None
    attack: JdrAttackResult | None = Field(default=None, description="an attack rerolled")
    mythos: JdrMythosResult | None = Field(default=None, description="a Mythos test rerolled")

    def as_action(self) -> JdrActionResult:
        """An action's reroll, read as the action result it is."""
        return JdrActionResult.model_validate(self.dump(exclude={"rerolls"}))


def action_reroll(request: JdrJokerRequest, version: RulesVersion) -> tuple[int, JdrActionRequest]:
    """The seq of the action a Joker rerolls and the request of its reroll, after every
    refusal made before the dice (JDR-25..27); its odds read it too."""
    character = request.character
    action = checked_action(request, character.id, "JDR-25")
    same_scene(request, action, "JDR-25", "the Joker")
    context = context_of(action, request.follow_ups)
    if not context.direct_peril:
        raise refusal("JDR-25", "the Joker rerolls only an action that puts the PC in direct peril")
    spendable(request, version)
    used = special_rule_used(request.follow_ups)
    if used:
        raise refusal("JDR-27", f"{used} was used on this action; the Joker cannot be")
    # Same inputs as the action (JDR-25), read against the sheet as it is now.
    reroll = action.request.model_copy(update={"character": character, "context": context})
    return action.seq, reroll


def resolve_joker(
    request: JdrJokerRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[JdrJokerResult]:
    """JDR-25..27: reroll a roll of direct peril once per session; the reroll is final."""
    character = request.character
    require_pc(character, "JDR-25", "the Joker")
    action = request.action
    if version >= 4 and isinstance(action, JdrFollowedAttack | JdrFollowedMythos):
        return reroll_other(request, action, dice, version)
    rerolls, reroll = action_reroll(request, version)
    rolled = roll_action(reroll, dice, version)
    result = JdrJokerResult.model_validate({**rolled.result.dump(), "rerolls": rerolls})
    effects = [effect(character.id, "joker", "ready", "spent", "JDR-25"), *rolled.effects]
    return Resolution(result, effects)


def spendable(request: JdrJokerRequest, version: RulesVersion) -> None:
    """JDR-25/26: one reroll per roll, one Joker per session."""
    if "jdr.joker" in follow_kinds(request.follow_ups):
        raise refusal("JDR-25", "this roll was already rerolled; the second result is kept")
    if request.character.sheet.joker != "ready":
        raise refusal("JDR-26", "the Joker was used this session; it recharges at the next one")


def in_its_scene(request: JdrJokerRequest, scene: int) -> None:
    """JDR-25: the Joker applies in the scene of the roll it rerolls."""
    if scene != request.scene:
        raise refusal("JDR-25", f"the Joker applies in the scene of its roll (scene {scene})")


def mythos_reroll(
    request: JdrJokerRequest, rerolled: JdrFollowedMythos, version: RulesVersion
) -> tuple[JdrMythosRequest, JdrCharacter]:
    """The Mythos test a Joker rerolls (JDR-25, corrected), after every refusal made before
    the dice: the first test again, and the PC it reads, as if the first result (and the
    mark worded for it) had changed nothing. Its odds read it too."""
    character = request.character
    in_its_scene(request, rerolled.request.scene)
    if rerolled.request.character.id != character.id:
        raise InvalidInput("the Joker rerolls the Mythos test of the PC who spends it")
    if not rerolled.request.direct_peril:
        raise refusal(
            "JDR-25", "the Joker rerolls a Mythos test only when the GM marks it direct peril"
        )
    spendable(request, version)
    # A mark worded for the first result (JDR-41) goes with it.
    worded = [
        effect(character.id, "marks", [], [follow.result["mark"]], "JDR-41")
        for follow in request.follow_ups
        if follow.kind == "jdr.mark" and "mark" in follow.result
    ]
    base = undone(character, [*rerolled.effects, *worded])
    return rerolled.request.model_copy(update={"character": base}), base


def attack_reroll(
    request: JdrJokerRequest, rerolled: JdrFollowedAttack, version: RulesVersion
) -> tuple[JdrAttackRequest, tuple[JdrCharacter, JdrCharacter]]:
    """The attack a Joker rerolls (JDR-25, corrected: its attacker's or its target's Joker;
    the attacker's dice are redrawn), after every refusal made before the dice: the attack
    again, both fighters as if the first attack had changed nothing, and the fighters as
    they are now (the spender first). Its odds read it too."""
    character = request.character
    in_its_scene(request, rerolled.request.scene)
    attack = rerolled.request
    fighters_ids = {attack.attacker.id, attack.target.id}
    if character.id not in fighters_ids:
        raise InvalidInput("the Joker on an attack is spent by its attacker or by its target")
    other = request.other
    if other is None or other.id not in fighters_ids or other.id == character.id:
        raise InvalidInput("the attack's other fighter is missing from the request")
    spendable(request, version)
    # The first attack is replayed from its own dice (nothing is drawn) to know what to undo.
    drawn = [Draw(sides=draw["sides"], face=draw["face"]) for draw in rerolled.draws]
    first = resolve_attack(attack, ReplayDice(drawn), version)
    bases = {who.id: undone(who, first.effects) for who in (character, other)}
    again = attack.model_copy(
        update={"attacker": bases[attack.attacker.id], "target": bases[attack.target.id]}
    )
    return again, (character, other)


def reroll_other(
    request: JdrJokerRequest,
    rerolled: JdrFollowedAttack | JdrFollowedMythos,
    dice: DiceSource,
    version: RulesVersion,
) -> Resolution[JdrJokerResult]:
    """JDR-25 (corrected): the Joker on an attack or on a Mythos test the GM marked as direct
    peril. The first result's changes are undone, the second's kept."""
    character = request.character
    spent = effect(character.id, "joker", "ready", "spent", "JDR-25")
    if isinstance(rerolled, JdrFollowedMythos):
        test, base = mythos_reroll(request, rerolled, version)
        tested = resolve_mythos(test, dice, version)
        changes = settled(character, base, tested.effects)
        return Resolution(joker_result(rerolled.seq, mythos=tested.result), [spent, *changes])
    again, fighters = attack_reroll(request, rerolled, version)
    second = resolve_attack(again, dice, version)
    bases = {again.attacker.id: again.attacker, again.target.id: again.target}
    changes = [change for now in fighters for change in settled(now, bases[now.id], second.effects)]
    return Resolution(joker_result(rerolled.seq, attack=second.result), [spent, *changes])


SnapshotT = TypeVar("SnapshotT", JdrCharacter, JdrCthulhuCharacter)


def undone(character: SnapshotT, effects: list[Effect]) -> SnapshotT:
    """The character as if the first roll had changed nothing of theirs: the wound or mark
    it added is taken out, what it set is set back (an attack, a Mythos test)."""
    sheet = character.sheet.dump()
    for change in effects:
        if change.character_id != character.id or change.field not in sheet:
            continue
        if change.field in ("wounds", "marks"):
            before = change.before if isinstance(change.before, list) else []
            after = change.after if isinstance(change.after, list) else []
            # The first roll appended its wound or mark; the same one may already be there.
            added = after[len(before) :] if after[: len(before)] == before else []
            current = list(sheet[change.field])
            for item in added:
                # The latest one like it; a wound cared for since is still that wound.
                for index in range(len(current) - 1, -1, -1):
                    if same_item(current[index], item):
                        del current[index]
                        break
            sheet[change.field] = current
        elif sheet[change.field] == change.after:
            sheet[change.field] = change.before
    return character.model_copy(update={"sheet": type(character.sheet).model_validate(sheet)})


def same_item(held: object, added: object) -> bool:
    """Whether a wound or mark on the sheet is the one a roll added, care aside."""
    if isinstance(held, dict) and isinstance(added, dict):
        return {k: v for k, v in held.items() if k != "cared"} == {
            k: v for k, v in added.items() if k != "cared"
        }
    return held == added


def settled(current: SnapshotT, base: SnapshotT, effects: list[Effect]) -> list[Effect]:
    """One change per field, from the sheet as it is to what the second roll leaves."""
    after = base.sheet.dump()
    for change in effects:
        if change.character_id == current.id:
            after[change.field] = to_json(change.after)
    before = current.sheet.dump()
    rules = {change.field: change.rule for change in effects if change.character_id == current.id}
    return [
        effect(current.id, field, before.get(field), after[field], rules.get(field) or "JDR-25")
        for field in after
        if after[field] != before.get(field)
    ]


def joker_result(
    seq: int,
    *,
    attack: JdrAttackResult | None = None,
    mythos: JdrMythosResult | None = None,
) -> JdrJokerResult:
    result = JdrJokerResult(rerolls=seq)
    if attack is not None:
        result.attack = attack
    if mythos is not None:
        result.mythos = mythos
    return result


def prepare_joker(body: JdrJokerCreate, table: Table) -> Prepared[JdrJokerRequest]:
    entry = table.entry(body.follows)
    read: dict[str, Any] = {"seq": entry.seq, "kind": entry.kind, "request": entry.request}
    if entry.kind == "jdr.attack":
        read["draws"] = entry.draws  # the attack is replayed to know what to undo
    else:
        read["result"] = entry.result
        if entry.kind == "jdr.mythos":
            read["effects"] = entry.effects  # what the reroll undoes (the PC's own marks)
    rerolled = _REROLLED.validate_python(read)
    other: JdrCharacter | None = None
    if isinstance(rerolled, JdrFollowedAttack):
        character, other = joker_of_attack(body, rerolled, table)
    else:
        character = table.acting(entry_character(entry, body.follows), JdrCharacter)
        if not made_npc_by(entry, character.id):
            playable(table, character)
    request = JdrJokerRequest(
        system=setting_of(table),
        session=table.session,
        scene=table.scene,
        character=character,
        action=rerolled,
        follow_ups=table.follow_ups(body.follows),
    )
    if other is not None:
        request.other = other
    visibility = body.visibility or entry.visibility
    return Prepared(request, character_id=character.id, visibility=visibility, follows=body.follows)


def made_npc_by(entry: LoggedEntry, character_id: str) -> bool:
    """JDR-42/25: the Mythos test that made the PC an NPC may still be rerolled by its
    player, whose Joker would undo the mark that did it."""
    return entry.kind == "jdr.mythos" and any(
        change.get("character_id") == character_id
        and change.get("field") == "status"
        and change.get("after") == "npc"
        for change in entry.effects
    )


def joker_of_attack(
    body: JdrJokerCreate, attack: JdrFollowedAttack, table: Table
) -> tuple[JdrCharacter, JdrCharacter]:
    """Whose Joker an attack's reroll spends (the PC the caller plays: the attacker or the
    target), and the other fighter, as they are now."""
    ids = (attack.request.attacker.id, attack.request.target.id)
    if body.character_id is not None:
        spender_id = str(body.character_id)
        if spender_id not in ids:
            raise InvalidInput("character_id names neither the attacker nor the target")
    else:
        candidates = [
            fighter.id
            for fighter in (attack.request.attacker, attack.request.target)
            if fighter.kind == "pc" and table.chooses_for(fighter.id, hidden=False)
        ]
        if len(candidates) != 1:
            raise InvalidInput(
                "name the PC who spends the Joker in character_id (the attacker or the target)"
            )
        spender_id = candidates[0]
    spender = playable(table, table.acting(spender_id, JdrCharacter))
    other_id = ids[1] if spender_id == ids[0] else ids[0]
    return spender, table.character(other_id, JdrCharacter)


def joker_summary(request: JdrJokerRequest, result: JdrJokerResult, language: Language) -> str:
    """« Mihail — Joker (relance de #40) : Physique 2D6+3 : 6, 5 → 14, Succès complet »."""
    action = request.action
    head = f"{request.character.name} — Joker"
    head += (
        f" (relance de #{result.rerolls})"
        if language == "fr"
        else f" (reroll of #{result.rerolls})"
    )
    separator = " : " if language == "fr" else ": "
    if isinstance(action, JdrFollowedAttack) and result.attack is not None:
        return head + separator + attack_summary(action.request, result.attack, language)
    if isinstance(action, JdrFollowedMythos) and result.mythos is not None:
        return head + separator + mythos_summary(action.request, result.mythos, language)
    if not isinstance(action, JdrFollowedAction):
        return head
    return head + separator + roll_words(action.request, result.as_action(), language)


def joker_outcome(result: JdrJokerResult) -> Outcome:
    if result.attack is not None:
        return attack_outcome(result.attack)
    if result.mythos is not None:
        return mythos_outcome(result.mythos)
    return outcome(result.as_action())


def joker_odds(request: JdrJokerRequest, version: RulesVersion) -> Odds:
    """Issue 21: the exact odds of the roll (jdr/odds.py, which builds on this module)."""
    from app.engine.rulesets.jdr.odds import joker_odds as exact

    return exact(request, version)


JOKER: RollKind[JdrJokerCreate, JdrJokerRequest, JdrJokerResult] = RollKind(
    name="jdr.joker",
    npc_values=(
        *ACTION_NPC_VALUES,
        ("/mythos/mental", "/character"),
        ("/mythos/talent_bonus", "/character"),
        ("/mythos/total", "/character"),
        # An attack rerolled shows what the rules read of both fighters (FAIR-18).
        ("/attack/physique", "/action/request/attacker"),
        ("/attack/weapon_bonus", "/action/request/attacker"),
        ("/attack/total", "/action/request/attacker"),
        ("/attack/tier", "/action/request/attacker"),
        ("/attack/damage_steps", "/action/request/attacker"),
        ("/attack/margin", "/action/request/attacker"),
        ("/attack/defense", "/action/request/target"),
        ("/attack/margin", "/action/request/target"),
        ("/attack/creature_bonuses", "/action/request/target"),
        ("/attack/damage_steps", "/action/request/target"),
        ("/attack/auto_disadvantage", "/action/request/attacker"),
        ("/attack/mode", "/action/request/attacker"),
        ("/attack/kept", "/action/request/attacker"),
    ),
    title="Joker reroll",
    body=JdrJokerCreate,
    request=JdrJokerRequest,
    result=JdrJokerResult,
    prepare=prepare_joker,
    resolve=resolve_joker,
    summary=joker_summary,
    outcome=joker_outcome,
    odds=joker_odds,
    reaction=True,
)
