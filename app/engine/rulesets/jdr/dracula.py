"""[D] The Dracula setting's own rules: the Talisman de Foi and its ruling (JDR-20..23),
penance (JDR-24), and holy water (JDR-35)."""

from __future__ import annotations

from collections.abc import Sequence
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
)
from app.engine.rulesets.jdr.bodies import (
    JdrHolyWaterCreate,
    JdrPenanceCreate,
    JdrTalismanCreate,
    JdrTalismanRulingCreate,
)
from app.engine.rulesets.jdr.certain import certain_odds
from app.engine.rulesets.jdr.combat import fighters, wound_effect
from app.engine.rulesets.jdr.core import (
    DRACULA,
    JdrSystem,
    Tier,
    check_setting,
    require_pc,
    setting_of,
    wrong_setting,
)
from app.engine.rulesets.jdr.events import JdrEventRequest, event_request, event_words
from app.engine.rulesets.jdr.labels import TIERS, WOUNDS
from app.engine.rulesets.jdr.sheet import FaithShaken, JdrDraculaCharacter, Wound

DRACULA_ONLY = frozenset({DRACULA})

# --- JDR-20..23: the invocation --------------------------------------------------------------


class JdrTalismanRequest(JdrFollowUpRequest):
    character: JdrDraculaCharacter
    words: str = Field(description="the word of faith, as the player spoke it (JDR-21)")


class JdrTalismanResult(Model):
    status: Literal["pending"] = Field(description="until the GM rules (JDR-21)")
    words: str
    tier: Literal["partial_success"]


def resolve_talisman(
    request: JdrTalismanRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[JdrTalismanResult]:
    """JDR-20..23 [D]: invoke the Talisman on a partial success against the supernatural."""
    check_setting(request.system, DRACULA, "JDR-20")
    character = request.character
    sheet = character.sheet
    require_pc(character, "JDR-20", "the Talisman")
    action = checked_action(request, character.id, "JDR-27")
    same_scene(request, action, "JDR-20", "the Talisman")
    kinds = follow_kinds(request.follow_ups)
    if version >= 4 and "jdr.joker" in kinds:
        raise refusal("JDR-27", "the Joker was used on this action")
    if version >= 4 and action.result.difficulty is not None:
        raise refusal(
            "JDR-13",
            "the Talisman turns a tier, and a roll against a difficulty reads only success or "
            "failure",
        )
    if not context_of(action, request.follow_ups).supernatural:
        raise refusal("JDR-22", "the Talisman works only in a proven supernatural confrontation")
    if action.result.tier != "partial_success":
        raise refusal("JDR-22", f"the Talisman turns a partial success, not a {action.result.tier}")
    if "jdr.joker" in kinds:
        raise refusal("JDR-27", "the Joker was used on this action")
    if "jdr.talisman" in kinds:
        raise refusal("JDR-20", "the Talisman was already invoked on this action")
    if sheet.talisman != "ready":
        raise refusal("JDR-22", f"the talisman is {sheet.talisman}, not ready")
    if sheet.talisman_scene == request.scene:
        raise refusal("JDR-20", "the Talisman was already invoked in this scene")
    established = sheet.sacred_object_scene
    # JDR-22 (corrected): listed at creation, the object counts from the first scene.
    this_scene = established is not None and established >= request.scene
    if (
        not sheet.sacred_object
        or established is None
        or (this_scene and not sheet.sacred_object_from_creation)
    ):
        raise refusal(
            "JDR-22", "no sacred object was established on the sheet before this scene started"
        )
    if sheet.faith == "atheist" and not sheet.instructed_by:
        raise refusal("JDR-23", "an atheist invokes the Talisman only once a believer taught them")
    words = request.words.strip()
    if not words:
        raise invalid("JDR-21", "the player speaks a word of faith; words cannot be empty")
    used = effect(character.id, "talisman_scene", sheet.talisman_scene, request.scene, "JDR-20")
    return Resolution(
        JdrTalismanResult(status="pending", words=words, tier="partial_success"), [used]
    )


def prepare_talisman(body: JdrTalismanCreate, table: Table) -> Prepared[JdrTalismanRequest]:
    entry, character = player_follow_up(body, table, JdrDraculaCharacter)
    request = JdrTalismanRequest(
        system=setting_of(table),
        session=table.session,
        scene=table.scene,
        character=character,
        action=followed(entry),
        follow_ups=table.follow_ups(body.follows),
        words=body.words,
    )
    visibility = body.visibility or entry.visibility
    return Prepared(request, character_id=character.id, visibility=visibility, follows=body.follows)


def talisman_summary(
    request: JdrTalismanRequest, result: JdrTalismanResult, language: Language
) -> str:
    """« Père Mihail — Talisman invoqué : « … », en attente du jugement du MJ »."""
    name = request.character.name
    if language == "fr":
        return f"{name} — Talisman invoqué : « {result.words} », en attente du jugement du MJ"
    return f"{name} — Talisman invoked: “{result.words}”, awaiting the GM's ruling"


def talisman_outcome(result: JdrTalismanResult) -> Outcome:
    return Outcome("talisman", result.status)


def settle_invocation(follow_ups: Sequence[Settling]) -> Settled | None:
    """JDR-21: an invocation stands as the GM ruled it."""
    for follow in follow_ups:
        if follow.kind == "jdr.talisman_ruling":
            return Settled(Outcome("talisman", str(follow.result["status"])), follow.seq)
    return None


TALISMAN: RollKind[JdrTalismanCreate, JdrTalismanRequest, JdrTalismanResult] = RollKind(
    name="jdr.talisman",
    title="Talisman invoked",
    body=JdrTalismanCreate,
    request=JdrTalismanRequest,
    result=JdrTalismanResult,
    prepare=prepare_talisman,
    resolve=resolve_talisman,
    summary=talisman_summary,
    outcome=talisman_outcome,
    odds=certain_odds(
        resolve_talisman,
        talisman_outcome,
        ("pending",),
        "the invocation awaits the GM's ruling on its sincerity (JDR-21)",
    ),
    settle=settle_invocation,
    systems=DRACULA_ONLY,
    wrong_system=wrong_setting("JDR-20", DRACULA),
    reaction=True,
)


# --- JDR-21: the GM's ruling -----------------------------------------------------------------


class JdrInvocation(Model):
    """The invocation ruled on: {seq, kind, result}."""

    seq: int
    kind: Literal["jdr.talisman"]
    result: JdrTalismanResult


class JdrInvocationOther(Model):
    """Another entry named as the invocation: the rules refuse it."""

    seq: int
    kind: str
    result: dict[str, JsonValue]


# The entry named, read as its kind when it is one (first), else as any entry for the
# rules to refuse: JSON Schema's anyOf, which both may satisfy.
JdrRuled = Annotated[JdrInvocation | JdrInvocationOther, Field(union_mode="left_to_right")]
_RULED: TypeAdapter[JdrInvocation | JdrInvocationOther] = TypeAdapter(JdrRuled)


class JdrTalismanRulingRequest(Model):
    system: JdrSystem
    session: int
    scene: int
    character: JdrDraculaCharacter
    invocation: JdrRuled
    rulings: list[FollowUpRecord] = Field(
        default_factory=list, description="rulings already made on the invocation"
    )
    sincere: bool


class JdrTalismanRulingResult(Model):
    status: Literal["sincere", "insincere"]
    tier: Tier
    label: str
    upgraded_from: Tier | None = Field(default=None, description="on a sincere ruling")


def resolve_ruling(
    request: JdrTalismanRulingRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[JdrTalismanRulingResult]:
    """JDR-21: the GM rules on sincerity: upgrade and spend, or crack."""
    check_setting(request.system, DRACULA, "JDR-21")
    invocation = request.invocation
    if not isinstance(invocation, JdrInvocation):
        raise InvalidInput(f"follows must name a jdr.talisman entry, not {invocation.kind}")
    if request.rulings:
        raise refusal("JDR-21", "this invocation was already ruled on")
    character = request.character
    sheet = character.sheet
    if sheet.talisman != "ready":
        raise refusal("JDR-21", f"the talisman is {sheet.talisman}, not ready")
    if request.sincere:
        result = JdrTalismanRulingResult(
            status="sincere",
            tier="success",
            label=TIERS["success"].fr,
            upgraded_from="partial_success",
        )
        return Resolution(result, [effect(character.id, "talisman", "ready", "spent", "JDR-21")])
    shaken = FaithShaken(cracked_scene=request.scene, confrontation_scene=None)
    effects = [
        effect(character.id, "talisman", "ready", "cracked", "JDR-21"),
        effect(character.id, "faith_shaken", sheet.faith_shaken, shaken, "JDR-24"),
    ]
    insincere = JdrTalismanRulingResult(
        status="insincere", tier="partial_success", label=TIERS["partial_success"].fr
    )
    return Resolution(insincere, effects)


def prepare_ruling(
    body: JdrTalismanRulingCreate, table: Table
) -> Prepared[JdrTalismanRulingRequest]:
    entry = table.entry(body.follows)
    character = table.character(entry_character(entry, body.follows), JdrDraculaCharacter)
    invocation = _RULED.validate_python(
        {"seq": entry.seq, "kind": entry.kind, "result": entry.result}
    )
    request = JdrTalismanRulingRequest(
        system=setting_of(table),
        session=table.session,
        scene=table.scene,
        character=character,
        invocation=invocation,
        rulings=table.follow_ups(body.follows),
        sincere=body.sincere,
    )
    visibility = body.visibility or entry.visibility
    return Prepared(request, character_id=character.id, visibility=visibility, follows=body.follows)


def ruling_summary(
    request: JdrTalismanRulingRequest, result: JdrTalismanRulingResult, language: Language
) -> str:
    """« Père Mihail — Talisman : paroles sincères, Succès complet »."""
    tier = TIERS[result.tier].text(language)
    name = request.character.name
    if language == "fr":
        if result.status == "sincere":
            return f"{name} — Talisman : paroles sincères, {tier}"
        return f"{name} — Talisman : paroles creuses, le talisman se fêle ; {tier}"
    if result.status == "sincere":
        return f"{name} — Talisman: sincere words, {tier}"
    return f"{name} — Talisman: hollow words, the talisman cracks; {tier}"


def ruling_outcome(result: JdrTalismanRulingResult) -> Outcome:
    return Outcome("talisman", result.status)


TALISMAN_RULING: RollKind[
    JdrTalismanRulingCreate, JdrTalismanRulingRequest, JdrTalismanRulingResult
] = RollKind(
    name="jdr.talisman_ruling",
    title="Talisman ruling",
    body=JdrTalismanRulingCreate,
    request=JdrTalismanRulingRequest,
    result=JdrTalismanRulingResult,
    prepare=prepare_ruling,
    resolve=resolve_ruling,
    summary=ruling_summary,
    outcome=ruling_outcome,
    odds=certain_odds(
        resolve_ruling,
        ruling_outcome,
        ("insincere", "sincere"),
        "the GM's ruling decides it (JDR-21)",
    ),
    systems=DRACULA_ONLY,
    wrong_system=wrong_setting("JDR-21", DRACULA),
    gm_only="rule on a Talisman invocation",
    reaction=True,
)


# --- JDR-24: penance -------------------------------------------------------------------------


class JdrPenanceRequest(JdrEventRequest):
    character: JdrDraculaCharacter


class JdrPenanceResult(Model):
    restored: Literal["talisman"]
    description: str


def resolve_penance(
    request: JdrPenanceRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[JdrPenanceResult]:
    """JDR-24 [D]: only a sincere penance scene restores a cracked talisman."""
    check_setting(request.system, DRACULA, "JDR-24")
    character = request.character
    sheet = character.sheet
    if sheet.talisman != "cracked":
        raise refusal(
            "JDR-24", f"penance restores a cracked talisman; this one is {sheet.talisman}"
        )
    effects = [
        effect(character.id, "talisman", "cracked", "ready", "JDR-24"),
        effect(character.id, "faith_shaken", sheet.faith_shaken, None, "JDR-24"),
    ]
    return Resolution(
        JdrPenanceResult(restored="talisman", description=request.description), effects
    )


def prepare_penance(body: JdrPenanceCreate, table: Table) -> Prepared[JdrPenanceRequest]:
    return event_request(body, table, JdrPenanceRequest, JdrDraculaCharacter)


def penance_summary(
    request: JdrPenanceRequest, result: JdrPenanceResult, language: Language
) -> str:
    """« Père Mihail — Talisman restauré par pénitence : Confession »."""
    return event_words(request.character.name, "talisman_restored", result.description, language)


def penance_outcome(result: JdrPenanceResult) -> Outcome:
    return Outcome("event", "talisman_restored")


PENANCE: RollKind[JdrPenanceCreate, JdrPenanceRequest, JdrPenanceResult] = RollKind(
    name="jdr.penance",
    title="Penance",
    body=JdrPenanceCreate,
    request=JdrPenanceRequest,
    result=JdrPenanceResult,
    prepare=prepare_penance,
    resolve=resolve_penance,
    summary=penance_summary,
    outcome=penance_outcome,
    odds=certain_odds(
        resolve_penance,
        penance_outcome,
        ("talisman_restored",),
        "the GM records a sincere penance (JDR-24)",
    ),
    is_roll=False,
    systems=DRACULA_ONLY,
    wrong_system=wrong_setting("JDR-24", DRACULA),
    gm_only="record a jdr.penance",
)


# --- JDR-35: holy water ----------------------------------------------------------------------


class JdrHolyWaterRequest(Model):
    system: JdrSystem
    session: int
    scene: int
    attacker: JdrDraculaCharacter
    target: JdrDraculaCharacter


class JdrHolyWaterResult(Model):
    hit: bool = Field(description="false on a target that is no vampire: the vial just breaks")
    severity: Literal["light", "no_effect"]
    label: str


def resolve_holy_water(
    request: JdrHolyWaterRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[JdrHolyWaterResult]:
    """JDR-35 [D]: holy water thrown by hand: a light wound to a vampire, no roll.

    From version 2, on anyone else it does nothing, and that is recorded, not refused: a
    refusal would tell the players what the GM keeps hidden, whether the target is a
    vampire (FAIR-21). Version 1 refused.
    """
    check_setting(request.system, DRACULA, "JDR-35")
    target = request.target
    sheet = target.sheet
    if "vampire" not in sheet.tags:
        if version < 2:
            raise refusal("JDR-35", "holy water harms only vampires (tag the target 'vampire')")
        missed = JdrHolyWaterResult(hit=False, severity="no_effect", label=WOUNDS["no_effect"].fr)
        return Resolution(missed, [])
    if sheet.destroyed:
        raise refusal("JDR-36", "the target was destroyed for good")
    wound = Wound(severity="light", note="eau bénite", cared=False)
    result = JdrHolyWaterResult(hit=True, severity="light", label=WOUNDS["light"].fr)
    return Resolution(result, [wound_effect(target.id, sheet, wound, "JDR-35")])


def prepare_holy_water(body: JdrHolyWaterCreate, table: Table) -> Prepared[JdrHolyWaterRequest]:
    attacker, target = fighters(table, body.attacker_id, body.target_id, JdrDraculaCharacter)
    request = JdrHolyWaterRequest(
        system=setting_of(table),
        session=table.session,
        scene=table.scene,
        attacker=attacker,
        target=target,
    )
    return Prepared(request, character_id=attacker.id, visibility=body.visibility)


def holy_water_summary(
    request: JdrHolyWaterRequest, result: JdrHolyWaterResult, language: Language
) -> str:
    """« Père Mihail → Strigoi — eau bénite : Blessure légère »."""
    head = f"{request.attacker.name} → {request.target.name}"
    wound = WOUNDS[result.severity].text(language)
    if language == "fr":
        return f"{head} — eau bénite : {wound}"
    return f"{head} — holy water: {wound}"


def holy_water_outcome(result: JdrHolyWaterResult) -> Outcome:
    return Outcome("wound", result.severity)


HOLY_WATER: RollKind[JdrHolyWaterCreate, JdrHolyWaterRequest, JdrHolyWaterResult] = RollKind(
    name="jdr.holy_water",
    title="Holy water",
    body=JdrHolyWaterCreate,
    request=JdrHolyWaterRequest,
    result=JdrHolyWaterResult,
    prepare=prepare_holy_water,
    resolve=resolve_holy_water,
    summary=holy_water_summary,
    outcome=holy_water_outcome,
    odds=certain_odds(
        resolve_holy_water,
        holy_water_outcome,
        ("no_effect", "light"),
        "holy water wounds a vampire, and nobody else, without a roll (JDR-35)",
    ),
    systems=DRACULA_ONLY,
    wrong_system=wrong_setting("JDR-35", DRACULA),
)
