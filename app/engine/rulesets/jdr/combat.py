"""Fighting (JDR-30..38): an attack against the target's Defense, its margin read as a
wound on the target's sheet, and the weapons the supernatural fears."""

from __future__ import annotations

import uuid
from typing import Final, Literal

from pydantic import Field

from app.engine.contract import (
    Effect,
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
from app.engine.errors import InvalidInput
from app.engine.rulesets.jdr.bodies import JdrAttackContext, JdrAttackCreate, JdrWeapon
from app.engine.rulesets.jdr.core import (
    DRACULA,
    Burden,
    JdrRoll,
    JdrSystem,
    Mode,
    destroyed,
    dice_words,
    faith_shaken_applies,
    mark_confrontation,
    playable,
    roll_2d6,
    setting_of,
    tier_of,
    uncared_serious_wound,
)
from app.engine.rulesets.jdr.labels import WOUNDS
from app.engine.rulesets.jdr.sheet import (
    AnyJdrCharacter,
    CreatureTag,
    JdrCharacter,
    JdrSheetBase,
    Wound,
)

Severity = Literal["light", "serious", "critical"]
CREATURE_TAGS: Final[frozenset[CreatureTag]] = frozenset(
    {"vampire", "undead", "werewolf", "possessed", "creature"}
)


def defense_of(sheet: JdrSheetBase) -> int:
    """JDR-2/JDR-30: mental + physique + social + equipment bonus."""
    traits = sheet.traits
    return traits.mental + traits.physique + traits.social + sheet.defense_bonus


def severity_of(margin: int) -> Severity | None:
    """JDR-33: 1-4 light, 5-9 serious, 10+ critical, 0 or less a miss."""
    if margin <= 0:
        return None
    if margin <= 4:
        return "light"
    if margin <= 9:
        return "serious"
    return "critical"


def wound_effect(character_id: str, sheet: JdrSheetBase, wound: Wound, rule: str) -> Effect:
    """The wound added to the target's sheet (JDR-33, JDR-35)."""
    return effect(character_id, "wounds", sheet.wounds, [*sheet.wounds, wound], rule)


def fighters(
    table: Table, attacker_id: uuid.UUID, target_id: uuid.UUID, model: type[AnyJdrCharacter]
) -> tuple[AnyJdrCharacter, AnyJdrCharacter]:
    """The attacker, whom the caller must play, and the target (anyone but the attacker)."""
    attacker = playable(table, table.acting(attacker_id, model))
    target = table.character(target_id, model)
    if target.id == attacker.id:
        raise InvalidInput("a character does not attack themselves: choose another target")
    return attacker, target


# --- the attack (JDR-30..38) ---------------------------------------------------------------


class JdrAttackRequest(Model):
    system: JdrSystem
    session: int
    scene: int
    attacker: JdrCharacter
    target: JdrCharacter
    weapon: JdrWeapon
    advantage: bool
    disadvantage: bool
    context: JdrAttackContext
    sleeping_target: bool = Field(default=False, description="JDR-36: a sleeping vampire")


class JdrCreatureBonus(Model):
    """A damage step a weapon gains against a creature (JDR-36, JDR-37)."""

    rule: Literal["JDR-36", "JDR-37"]
    steps: int


class JdrAttackResult(Model):
    mode: Mode
    dice: list[int]
    kept: list[bool]
    physique: int
    weapon_bonus: int
    damage_steps: int = Field(description="added before the margin is read (JDR-32)")
    creature_bonuses: list[JdrCreatureBonus]
    auto_disadvantage: list[Burden]
    total: int
    defense: int = Field(description="the target's Defense (JDR-2)")
    margin: int
    hit: bool
    severity: Severity | None = Field(description="the wound (JDR-33); null for a miss")
    label: str = Field(description="the wound's French label, or « Raté »")
    destroyed: bool | None = Field(
        default=None, description="JDR-36: a sleeping vampire staked for good"
    )


def creature_bonuses(weapon: JdrWeapon, target_tags: set[str]) -> list[JdrCreatureBonus]:
    """JDR-36/37: an ash stake against the undead, silver against creatures."""
    bonuses = []
    if "ash_stake" in weapon.tags and target_tags & {"undead", "vampire"}:
        bonuses.append(JdrCreatureBonus(rule="JDR-36", steps=1))
    if "silver" in weapon.tags and target_tags & CREATURE_TAGS:
        bonuses.append(JdrCreatureBonus(rule="JDR-37", steps=1))
    return bonuses


def resolve_attack(
    request: JdrAttackRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[JdrAttackResult]:
    """JDR-30..38: 2D6 + physique + weapon against Defense; margin reads the wound."""
    attacker, target = request.attacker, request.target
    for who in (attacker, target):
        if who.sheet.destroyed:
            raise destroyed(who.name)
    dracula = request.system == DRACULA
    weapon = request.weapon
    scene = request.scene
    target_tags: set[str] = set(target.sheet.tags)
    supernatural = bool(target_tags & CREATURE_TAGS) or request.context.supernatural
    burdens: list[Burden] = []
    if uncared_serious_wound(attacker.sheet.wounds):
        burdens.append("serious_wound")  # JDR-33, JDR-34
    shaken = dracula and faith_shaken_applies(attacker.sheet, scene, supernatural)
    if shaken:
        burdens.append("faith_shaken")  # JDR-24
    roll = roll_2d6(dice, request.advantage, request.disadvantage or bool(burdens))
    physique = attacker.sheet.traits.physique
    # JDR-35..38 belong to Dracula, where the supernatural is real.
    bonuses = creature_bonuses(weapon, target_tags) if dracula else []
    steps = weapon.damage_bonus + sum(bonus.steps for bonus in bonuses)
    total = roll.kept_sum + physique + weapon.bonus + steps  # JDR-32
    defense = defense_of(target.sheet)
    margin = total - defense
    severity = severity_of(margin)
    result = JdrAttackResult(
        mode=roll.mode,
        dice=roll.dice,
        kept=roll.kept,
        physique=physique,
        weapon_bonus=weapon.bonus,
        damage_steps=steps,
        creature_bonuses=bonuses,
        auto_disadvantage=burdens,
        total=total,
        defense=defense,
        margin=margin,
        hit=severity is not None,
        severity=severity,
        label=WOUNDS[severity].fr if severity else WOUNDS["miss"].fr,
    )
    effects = mark_confrontation(attacker.id, attacker.sheet, scene) if shaken else []
    if (
        dracula
        and request.sleeping_target
        and "ash_stake" in weapon.tags
        and "vampire" in target_tags
        and tier_of(total) in ("success", "critical_success")
    ):
        # JDR-36: a success or better in the heart of a sleeping vampire ends it for good.
        result.destroyed = True
        effects.append(effect(target.id, "destroyed", False, True, "JDR-36"))
        return Resolution(result, effects)
    if severity is not None:
        note = f"{weapon.name}, marge {margin}"
        if version >= 3 and attacker.kind == "npc":
            note = weapon.name  # FAIR-18: the margin and the dice give the NPC's Physique
        wound = Wound(severity=severity, note=note, cared=False)
        effects.append(wound_effect(target.id, target.sheet, wound, "JDR-33"))
    return Resolution(result, effects)


def prepare_attack(body: JdrAttackCreate, table: Table) -> Prepared[JdrAttackRequest]:
    attacker, target = fighters(table, body.attacker_id, body.target_id, JdrCharacter)
    request = JdrAttackRequest(
        system=setting_of(table),
        session=table.session,
        scene=table.scene,
        attacker=attacker,
        target=target,
        weapon=JdrWeapon.model_validate(body.weapon.model_dump()),
        advantage=body.advantage,
        disadvantage=body.disadvantage,
        context=JdrAttackContext.model_validate(body.context.model_dump()),
        sleeping_target=body.sleeping_target,
    )
    return Prepared(request, character_id=attacker.id, visibility=body.visibility)


def attack_summary(request: JdrAttackRequest, result: JdrAttackResult, language: Language) -> str:
    """« Strigoi → Ilona — griffes 2D6+4 : 5, 4 → 13 contre Défense 6, marge 7 :
    Blessure grave »."""
    bonus = result.total - sum(f for f, k in zip(result.dice, result.kept, strict=True) if k)
    roll = JdrRoll(mode=result.mode, dice=result.dice, kept=result.kept, kept_sum=0)
    outcome = WOUNDS[attack_outcome(result).code].text(language)
    head = f"{request.attacker.name} → {request.target.name} — {request.weapon.name}"
    thrown = f"{dice_words(roll, bonus, language)} → {result.total}"
    if language == "fr":
        return f"{head} {thrown} contre Défense {result.defense}, marge {result.margin} : {outcome}"
    return f"{head} {thrown} against Defense {result.defense}, margin {result.margin}: {outcome}"


def attack_outcome(result: JdrAttackResult) -> Outcome:
    if result.destroyed:
        return Outcome("wound", "destroyed")
    return Outcome("wound", result.severity or "miss")


ATTACK: RollKind[JdrAttackCreate, JdrAttackRequest, JdrAttackResult] = RollKind(
    name="jdr.attack",
    npc_values=(
        ("/physique", "/attacker"),
        ("/weapon_bonus", "/attacker"),
        ("/total", "/attacker"),
        ("/margin", "/attacker"),
        ("/defense", "/target"),
        ("/margin", "/target"),
        ("/creature_bonuses", "/target"),
        ("/damage_steps", "/target"),
        ("/auto_disadvantage", "/attacker"),
        ("/mode", "/attacker"),
        ("/kept", "/attacker"),
    ),
    title="Attack",
    body=JdrAttackCreate,
    request=JdrAttackRequest,
    result=JdrAttackResult,
    prepare=prepare_attack,
    resolve=resolve_attack,
    summary=attack_summary,
    outcome=attack_outcome,
)
