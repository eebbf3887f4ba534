"""Fighting (JDR-30..38): an attack against the target's Defense, its margin read as a
wound on the target's sheet, and the weapons the supernatural fears."""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Final, Literal

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
    Settled,
    Settling,
    Table,
    effect,
)
from app.engine.dice import DiceSource
from app.engine.errors import InvalidInput, refusal
from app.engine.odds import Odds
from app.engine.rulesets.jdr.bodies import JdrAttackContext, JdrAttackCreate, JdrWeapon
from app.engine.rulesets.jdr.core import (
    DRACULA,
    Burden,
    JdrRoll,
    JdrSystem,
    Mode,
    Tier,
    destroyed,
    dice_words,
    faith_shaken_applies,
    mark_confrontation,
    playable,
    roll_2d6,
    setting_of,
    tier_of,
    wound_burdens,
)
from app.engine.rulesets.jdr.gear import BARE_HANDS, CATALOG, armed_with
from app.engine.rulesets.jdr.labels import WOUND_EFFECTS, WOUNDS, WOUNDS_BEFORE_4
from app.engine.rulesets.jdr.sheet import (
    AnyJdrCharacter,
    CreatureTag,
    JdrCharacter,
    JdrSheetBase,
    Wound,
)
from app.engine.sheets import enum_labels

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


WoundEffect = Annotated[
    Literal["standard", "disadvantage_until_care", "lasting_loss", "only_silver"],
    Field(json_schema_extra=enum_labels(WOUND_EFFECTS)),
]


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
    defense: int | None = Field(
        description="the target's Defense (JDR-2); null against a sleeping vampire, who "
        "opposes none (JDR-36)"
    )
    margin: int | None
    tier: Tier | None = Field(
        default=None, description="JDR-36: a stake in a sleeping vampire reads the tiers"
    )
    hit: bool
    severity: Severity | None = Field(description="the wound (JDR-33); null for none")
    label: str = Field(description="the wound's French label, or « Raté »")
    wound_effect: WoundEffect | None = Field(
        default=None, description="what the wound does to the target (JDR-33, JDR-37)"
    )
    destroyed: bool | None = Field(
        default=None,
        description="JDR-36: a sleeping vampire staked: nailed for good (true), or only woken",
    )


def creature_bonuses(
    weapon: JdrWeapon, target_tags: set[str], version: RulesVersion
) -> list[JdrCreatureBonus]:
    """JDR-36/37: an ash stake against the undead, silver against creatures: « une lame
    d'argent vaut deux lames d'acier », its damage step counted twice (from version 4)."""
    bonuses = []
    if "ash_stake" in weapon.tags and target_tags & {"undead", "vampire"}:
        bonuses.append(JdrCreatureBonus(rule="JDR-36", steps=1))
    if "silver" in weapon.tags and target_tags & CREATURE_TAGS:
        steps = weapon.damage_bonus if version >= 4 else 1
        if steps:
            bonuses.append(JdrCreatureBonus(rule="JDR-37", steps=steps))
    return bonuses


def carried(weapon: JdrWeapon, attacker: JdrCharacter) -> JdrWeapon:
    """The weapon with its values: a custom item's are read from the attacker's sheet."""
    if not weapon.custom:
        return weapon
    for item in attacker.sheet.custom_items:
        if item.name == weapon.name:
            return JdrWeapon(
                name=item.name,
                bonus=item.attack_bonus,
                damage_bonus=item.damage_bonus,
                tags=list(item.tags),
            )
    raise InvalidInput(f"{attacker.name} carries no '{weapon.name}' any more")


def wounds_werewolf(weapon: JdrWeapon) -> bool:
    """JDR-37 (corrected): « Argent : blesse les loups-garous », or what the GM records as
    supernatural."""
    return bool({"silver", "supernatural"} & set(weapon.tags))


def wound_label(code: str, version: RulesVersion) -> str:
    """The French label a result stores (its words changed with version 4, JDR-33)."""
    return (WOUNDS if version >= 4 else WOUNDS_BEFORE_4)[code].fr


WOUND_EFFECT_OF: Final[
    dict[Severity, Literal["standard", "disadvantage_until_care", "lasting_loss"]]
] = {
    "light": "standard",
    "serious": "disadvantage_until_care",
    "critical": "lasting_loss",
}


def resolve_attack(
    request: JdrAttackRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[JdrAttackResult]:
    """JDR-30..38: 2D6 + physique + weapon against Defense; margin reads the wound."""
    attacker, target = request.attacker, request.target
    for who in (attacker, target):
        if who.sheet.destroyed:
            raise destroyed(who.name)
    dracula = request.system == DRACULA
    weapon = carried(request.weapon, attacker)
    scene = request.scene
    target_tags: set[str] = set(target.sheet.tags)
    supernatural = bool(target_tags & CREATURE_TAGS) or request.context.supernatural
    burdens = wound_burdens(attacker.sheet.wounds, version)  # JDR-33, JDR-34
    shaken = dracula and faith_shaken_applies(attacker.sheet, scene, supernatural)
    if shaken:
        burdens.append("faith_shaken")  # JDR-24
    roll = roll_2d6(dice, request.advantage, request.disadvantage or bool(burdens))
    physique = attacker.sheet.traits.physique
    # JDR-35..38 belong to Dracula, where the supernatural is real.
    bonuses = creature_bonuses(weapon, target_tags, version) if dracula else []
    steps = weapon.damage_bonus + sum(bonus.steps for bonus in bonuses)
    total = roll.kept_sum + physique + weapon.bonus + steps  # JDR-32
    effects = mark_confrontation(attacker.id, attacker.sheet, scene) if shaken else []
    staking = (
        dracula
        and request.sleeping_target
        and "ash_stake" in weapon.tags
        and "vampire" in target_tags
    )
    common = {
        "mode": roll.mode,
        "dice": roll.dice,
        "kept": roll.kept,
        "physique": physique,
        "weapon_bonus": weapon.bonus,
        "damage_steps": steps,
        "creature_bonuses": bonuses,
        "auto_disadvantage": burdens,
        "total": total,
    }
    if staking and version >= 4:
        # JDR-36 (corrected): a sleeping vampire opposes no Defense; the stake reads the
        # tiers: a success or better nails it for good, anything less only wakes it.
        tier = tier_of(total)
        nailed = tier in ("success", "critical_success")
        staked = JdrAttackResult.model_validate(
            {
                **common,
                "defense": None,
                "margin": None,
                "tier": tier,
                "hit": nailed,
                "severity": None,
                "label": wound_label("destroyed" if nailed else "woken", version),
                "destroyed": nailed,
            }
        )
        if nailed:
            effects.append(effect(target.id, "destroyed", False, True, "JDR-36"))
        return Resolution(staked, effects)
    defense = defense_of(target.sheet)
    margin = total - defense
    severity = severity_of(margin)
    result = JdrAttackResult.model_validate(
        {
            **common,
            "defense": defense,
            "margin": margin,
            "hit": severity is not None,
            "severity": severity,
            "label": wound_label(severity or "miss", version),
        }
    )
    if staking and tier_of(total) in ("success", "critical_success"):
        # JDR-36 before version 4: a success or better in the heart ended it for good.
        result.destroyed = True
        effects.append(effect(target.id, "destroyed", False, True, "JDR-36"))
        return Resolution(result, effects)
    if severity is not None and version >= 4:
        if dracula and "werewolf" in target_tags and not wounds_werewolf(weapon):
            # JDR-37 (corrected): the hit lands, its margin is recorded, and no wound.
            result.severity = None
            result.label = wound_label("no_effect", version)
            result.wound_effect = "only_silver"
            return Resolution(result, effects)
        result.wound_effect = WOUND_EFFECT_OF[severity]
    if severity is not None:
        note = f"{weapon.name}, marge {margin}"
        if version >= 3 and attacker.kind == "npc":
            note = weapon.name  # FAIR-18: the margin and the dice give the NPC's Physique
        wound = Wound(severity=severity, note=note, cared=False)
        effects.append(wound_effect(target.id, target.sheet, wound, "JDR-33"))
    return Resolution(result, effects)


def prepare_attack(body: JdrAttackCreate, table: Table) -> Prepared[JdrAttackRequest]:
    attacker, target = fighters(table, body.attacker_id, body.target_id, JdrCharacter)
    if body.sleeping_target and table.fighting(target.id):
        # JDR-36: whoever fights in a running encounter is awake, whoever strikes.
        raise refusal(
            "JDR-36", f"{target.name} is fighting in an encounter, awake: not a sleeping target"
        )
    request = JdrAttackRequest(
        system=setting_of(table),
        session=table.session,
        scene=table.scene,
        attacker=attacker,
        target=target,
        weapon=weapon_of(body, attacker, table),
        advantage=body.advantage,
        disadvantage=body.disadvantage,
        context=JdrAttackContext.model_validate(body.context.model_dump()),
        sleeping_target=body.sleeping_target,
    )
    return Prepared(request, character_id=attacker.id, visibility=body.visibility)


def weapon_of(body: JdrAttackCreate, attacker: JdrCharacter, table: Table) -> JdrWeapon:
    """JDR-32 (corrected): the weapon an attack names, from the attacker's sheet; only the
    GM improvises one with its own values."""
    if isinstance(body.weapon, JdrWeapon):
        if "weapon" not in table.gm_set:  # the GM's own, or set in the GM's roll request
            table.require_gm(
                "attack with an improvised weapon's own values; name a weapon the sheet lists"
            )
        return JdrWeapon.model_validate(body.weapon.model_dump())
    sheet = attacker.sheet
    armed = armed_with(body.weapon, sheet.weapons, sheet.custom_items, short_range=body.short_range)
    if armed.custom:
        # Its values stay on the sheet, committed for an NPC (FAIR-18); the rules read them.
        return JdrWeapon(name=armed.name, custom=True)
    weapon = JdrWeapon(
        name=armed.name,
        bonus=armed.attack_bonus,
        damage_bonus=armed.damage_bonus,
        tags=list(armed.tags),
    )
    if armed.catalog is not None:
        weapon.item = armed.catalog
    return weapon


def attack_summary(request: JdrAttackRequest, result: JdrAttackResult, language: Language) -> str:
    """« Strigoi → Ilona — griffes 2D6+4 : 5, 4 → 13 contre Défense 6, marge 7 :
    Blessure sérieuse »."""
    bonus = result.total - sum(f for f, k in zip(result.dice, result.kept, strict=True) if k)
    roll = JdrRoll(mode=result.mode, dice=result.dice, kept=result.kept, kept_sum=0)
    outcome = WOUNDS[attack_outcome(result).code].text(language)
    head = f"{request.attacker.name} → {request.target.name} — {weapon_words(request, language)}"
    thrown = f"{dice_words(roll, bonus, language)} → {result.total}"
    fr = language == "fr"
    if result.defense is None:  # JDR-36: a sleeping vampire opposes nothing
        asleep = "dans son sommeil" if fr else "in its sleep"
        return (
            f"{head} {thrown} {asleep} : {outcome}"
            if fr
            else f"{head} {thrown} {asleep}: {outcome}"
        )
    if fr:
        return f"{head} {thrown} contre Défense {result.defense}, marge {result.margin} : {outcome}"
    return f"{head} {thrown} against Defense {result.defense}, margin {result.margin}: {outcome}"


def weapon_words(request: JdrAttackRequest, language: Language) -> str:
    """A catalog weapon by its label in the language asked; any other by its own name."""
    weapon = request.weapon
    if weapon.item in CATALOG:
        return CATALOG[weapon.item].label.text(language)
    if weapon.name == BARE_HANDS and language != "fr":
        return "bare hands"
    return weapon.name


def attack_outcome(result: JdrAttackResult) -> Outcome:
    if result.destroyed:
        return Outcome("wound", "destroyed")
    if result.destroyed is False:
        return Outcome("wound", "woken")  # JDR-36: a stake that fell short
    if result.hit and result.severity is None:
        return Outcome("wound", "no_effect")  # JDR-37: a werewolf hit without silver
    return Outcome("wound", result.severity or "miss")


def settle_attack(follow_ups: Sequence[Settling]) -> Settled | None:
    """JDR-25: after a Joker, the attack stands as its reroll (read from the fields every
    member may read: an NPC's numbers in it stay committed, FAIR-18)."""
    final: Settled | None = None
    for follow in follow_ups:
        rerolled = follow.result.get("attack") if follow.kind == "jdr.joker" else None
        if isinstance(rerolled, dict):
            final = Settled(wound_outcome(rerolled), follow.seq)
    return final


def wound_outcome(result: Mapping[str, Any]) -> Outcome:
    """`attack_outcome` read from a stored result's plain fields."""
    destroyed = result.get("destroyed")
    if destroyed is True:
        return Outcome("wound", "destroyed")
    if destroyed is False:
        return Outcome("wound", "woken")
    severity = result.get("severity")
    if result.get("hit") is True and severity is None:
        return Outcome("wound", "no_effect")
    return Outcome("wound", str(severity) if isinstance(severity, str) else "miss")


def attack_odds(request: JdrAttackRequest, version: RulesVersion) -> Odds:
    """Issue 21: the exact odds of the roll (jdr/odds.py, which builds on this module)."""
    from app.engine.rulesets.jdr.odds import attack_odds as exact

    return exact(request, version)


ATTACK: RollKind[JdrAttackCreate, JdrAttackRequest, JdrAttackResult] = RollKind(
    name="jdr.attack",
    gm_rules_on=(("weapon", "JDR-32"),),  # an improvised weapon's own values (weapon_of)
    npc_values=(
        ("/physique", "/attacker"),
        ("/weapon_bonus", "/attacker"),
        ("/total", "/attacker"),
        ("/margin", "/attacker"),
        ("/tier", "/attacker"),
        ("/damage_steps", "/attacker"),
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
    odds=attack_odds,
    settle=settle_attack,
)
