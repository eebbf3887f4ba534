"""Attacks and damage (FAB-60..68, FAB-71/72): the opposed attack, damage = base + feats,
protection by armor and cover, each damage through a state (FAB-68)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, Literal

from pydantic import Field

from app.engine.contract import (
    Aftermath,
    Language,
    Model,
    Outcome,
    Prepared,
    Resolution,
    RollKind,
    RulesVersion,
    Table,
)
from app.engine.dice import DiceSource
from app.engine.errors import InvalidInput, invalid, refusal
from app.engine.rulesets.fabulae.acting import check_may_act, may_defend
from app.engine.rulesets.fabulae.bodies import FabulaeAttackCreate
from app.engine.rulesets.fabulae.body import Body
from app.engine.rulesets.fabulae.combat import attack_cost
from app.engine.rulesets.fabulae.labels import text
from app.engine.rulesets.fabulae.pools import (
    CORRECTED,
    SYSTEM,
    FabulaeClock,
    FabulaeDiceModifier,
    FabulaeOpposition,
    FabulaePool,
    FabulaeRollInputs,
    RollOutcome,
    action_roll,
    has_talent,
    not_rolled,
    opposition,
    pool_of,
)
from app.engine.rulesets.fabulae.sequelae import FabulaeSequelaContext
from app.engine.rulesets.fabulae.sheet import FabulaeCharacter, FabulaeSheet, WeaponCarried
from app.engine.rulesets.fabulae.states import (
    FabulaeThreatened,
    StatesChoice,
    settle_now,
    threats,
    track_of,
)
from app.engine.rulesets.fabulae.stress import SETS_OFF_PANIC, aftermath, panicked
from app.engine.rulesets.fabulae.tables import WEAPONS, Cover, Defense, TalentId, Weapon
from app.engine.rulesets.fabulae.waits import FabulaeAwaiting, asking, waits_for

if TYPE_CHECKING:
    from app.engine.odds import Odds

# FAB-62 and FAB-64: situation factors, in dice.
MELEE_FACTORS: Final[dict[str, int]] = {
    "attacker_on_ground": -2,
    "sneak_attack": 2,
    "target_on_ground": 2,
    "helpless_target": 3,
}
RANGED_FACTORS: Final[dict[str, int]] = {
    "contact_long_weapon": -3,
    "contact_short_weapon": 3,
    "medium_range": -1,
    "half_light": -1,
    "long_range": -2,
    "total_darkness": -2,
    "small_target": -2,
    "extreme_range": -3,
    "large_target": 2,
}
# FAB-71 (corrected): a weapon fires within its range column; the factors of each distance.
RANGE_COLUMNS: Final = ("contact", "short", "medium", "long", "extreme")
RANGE_FACTORS: Final[dict[str, str]] = {
    "medium_range": "medium",
    "long_range": "long",
    "extreme_range": "extreme",
}
# Factors that describe one fact (the distance, the light, the target's size): one each.
EXCLUSIVE_FACTORS: Final = (
    frozenset({"contact_long_weapon", "contact_short_weapon", *RANGE_FACTORS}),
    frozenset({"half_light", "total_darkness"}),
    frozenset({"small_target", "large_target"}),
    frozenset({"target_on_ground", "helpless_target"}),
)
AMMO_DIE: Final[dict[int, int]] = {1: 6, 2: 12, 3: 20}  # FAB-65
DEFENSE_ROLLS: Final[dict[str, FabulaeRollInputs]] = {
    "parry": FabulaeRollInputs(attribute="physique", skill="combat", in_combat=True),
    "dodge": FabulaeRollInputs(attribute="physique", skill="athletisme", in_combat=True),
}


class FabulaeProtection(Model):
    """FAB-67: the armor and cover dice, each 6 removing one damage."""

    armor: int
    powers: int = Field(description="FAB-102 barrier: extra armor dice")
    cover: int
    dice: list[int]
    absorbed: int
    armor_worn: bool


def effects_sum(sheet: FabulaeSheet, key: str) -> int:
    """A numeric effect of the powers on a character (FAB-102), summed."""
    return sum(int(getattr(active, key)) for active in sheet.active_effects)


def protection_dice(sheet: FabulaeSheet, cover: int) -> int:
    """FAB-67: the dice armor (a barrier's points added, FAB-102) and cover roll."""
    armor = sheet.armor
    return max(0, (armor.value if armor else 0) + effects_sum(sheet, "armor")) + cover


def protect(
    victim: Body, damage: int, cover: int, dice: DiceSource
) -> tuple[int, FabulaeProtection]:
    """FAB-67: armor and cover dice, each 6 removes 1 damage; armor wears if damage gets through."""
    armor = victim.sheet.armor
    armor_value = armor.value if armor else 0
    extra = effects_sum(victim.sheet, "armor")  # FAB-102 barrier
    count = protection_dice(victim.sheet, cover)
    faces = [dice.roll(6) for _ in range(count)]
    absorbed = min(damage, sum(1 for face in faces if face == 6))
    through = damage - absorbed
    worn = False
    if through > 0 and armor and armor_value > 0:
        victim.sheet.armor = armor.model_copy(update={"value": armor_value - 1})
        worn = True
    protection = FabulaeProtection(
        armor=armor_value,
        powers=extra,
        cover=cover,
        dice=faces,
        absorbed=absorbed,
        armor_worn=worn,
    )
    return through, protection


def defense_roll(
    target: FabulaeCharacter, defense: Literal["parry", "dodge"], version: RulesVersion
) -> FabulaeRollInputs:
    """FAB-62: the parry or dodge roll; corrected, « Le défenseur peut ajouter son bonus de
    protection avant de faire son jet »: its armor's value and a barrier's add dice."""
    roll = DEFENSE_ROLLS[defense]
    armor = target.sheet.armor
    bonus = max(0, (armor.value if armor else 0) + effects_sum(target.sheet, "armor"))
    if version < CORRECTED or not bonus:
        return roll
    protection = FabulaeDiceModifier(source="protection bonus", dice=bonus)
    return roll.model_copy(update={"modifiers": [*roll.modifiers, protection]})


def check_factors(situation: list[str], weapon: Weapon, mode: str) -> None:
    """FAB-64/FAB-71 (corrected): each fact once, and no range beyond the weapon's column."""
    if len(set(situation)) != len(situation):
        raise InvalidInput("a situation factor is listed once")
    for exclusive in EXCLUSIVE_FACTORS:
        both = sorted(exclusive.intersection(situation))
        if len(both) > 1:
            raise invalid("FAB-64", f"{' and '.join(both)} describe the same thing: keep one")
    for factor in situation:
        column = RANGE_FACTORS.get(factor)
        if column and RANGE_COLUMNS.index(column) > RANGE_COLUMNS.index(weapon.range):
            raise invalid(
                "FAB-71",
                f"the {weapon.id} fires up to {weapon.range} range; {factor} is out of its reach",
            )


def granted_weapon(sheet: FabulaeSheet, name: str) -> Weapon | None:
    """FAB-71 outside the catalog: the GM's weapon of that name (`custom_weapons`), with the
    values the GM gave it; the catalog's ids come first."""
    if name in WEAPONS:
        return None
    for custom in sheet.custom_weapons:
        if custom.name == name:
            return custom.weapon()
    return None


def weapon_of(sheet: FabulaeSheet, weapon_id: str) -> tuple[Weapon, WeaponCarried | None]:
    """FAB-71: the weapon, and the one carried (bare hands are always at hand): a catalog id,
    or the name of a weapon the GM added to the sheet with its own values."""
    weapon = WEAPONS.get(weapon_id) or granted_weapon(sheet, weapon_id)
    if weapon is None:
        raise InvalidInput(
            f"unknown weapon {weapon_id!r} (FAB-71 lists the weapon ids; the GM adds any other "
            "to the sheet's custom_weapons)"
        )
    if weapon_id == "bare_hands":
        return weapon, None
    for carried in sheet.weapons:
        if carried.id == weapon_id:
            return weapon, carried
    raise InvalidInput(f"{weapon_id} is not among the attacker's weapons")


# --- the defender's choice (FAB-62) -------------------------------------------------------


def auto_defense(target: FabulaeCharacter, session: int) -> Defense:
    """An NPC's defense chosen by the engine (campaign option `npc_choices_auto`): the larger
    pool of parry and dodge, parry on a tie, none when neither has a die."""
    pools = {name: pool_of(target, roll, session).pool for name, roll in DEFENSE_ROLLS.items()}
    best = max(pools, key=lambda name: (pools[name], name == "parry"))
    return best if pools[best] > 0 else "none"  # type: ignore[return-value]


def defense_of(
    asked: Defense | None,
    mode: Literal["melee", "ranged"],
    target: FabulaeCharacter,
    table: Table,
    visibility: str,
) -> Defense | None:
    """FAB-62: the defense an attack or grapple is resolved with, or None while it waits for
    the defender's choice. A shot is not parried; an NPC answers at once under the campaign
    option `npc_choices_auto`; a sender who makes the defender's choices and left the
    defense out gave none; anyone else's character answers for itself."""
    if not may_defend(target):
        # FAB-23/FAB-63 (corrected): the fallen and the held are attacked undefended.
        if asked not in (None, "none"):
            raise invalid("FAB-62", f"{target.name} cannot parry or dodge now (Broken or held)")
        return "none"
    if asked is not None:
        return asked
    if mode == "ranged":
        return "none"
    if target.kind != "pc" and table.options.get("npc_choices_auto"):
        return auto_defense(target, table.session)
    hidden = visibility != "public"
    if table.chooses_for(target.id, hidden):
        return "none"
    if hidden and target.kind == "pc":
        raise invalid(
            "FAB-62",
            f"{target.name}'s player chooses the defense and would learn of this hidden "
            "attack: roll it public",
        )
    return None


# --- fabulae.attack (FAB-60..68) ------------------------------------------------------------


class FabulaeAttackRequest(FabulaeClock):
    attacker: FabulaeCharacter
    target: FabulaeCharacter
    mode: Literal["melee", "ranged"]
    weapon: str
    defense: Defense | None = Field(default="none", description="None: it waits (FAB-62)")
    situation: list[str] = Field(default_factory=list)
    aimed: bool = False
    snap_shot: bool = False
    burst: int = Field(default=1, ge=1, le=3, description="FAB-65: attacks in the burst")
    burst_fire: bool = False
    cover: Cover = 0
    talents: list[TalentId] = Field(default_factory=list)
    modifiers: list[FabulaeDiceModifier] = Field(default_factory=list)
    states: StatesChoice = "auto"


class FabulaeAmmo(Model):
    """FAB-65/FAB-71: the rounds a shot spent (rolled for a burst) and those left."""

    die: int | None = None
    spent: int
    left: int


class FabulaeAttackRoll(Model):
    """One attack of a burst (FAB-65), or the only one."""

    roll: FabulaeOpposition
    hit: bool
    damage: int | None = None
    protection: FabulaeProtection | None = None
    through: int | None = None


class FabulaeAttackResult(FabulaeThreatened):
    mode: Literal["melee", "ranged"]
    weapon: str
    defense: str | None = None
    awaiting: FabulaeAwaiting | None = Field(
        default=None, description="FAB-62: no die drawn yet; the defender answers first"
    )
    ammo: FabulaeAmmo | None = None
    stress_gained: int | None = None
    panic: bool | None = Field(default=None, description="the attacker panicked: the burst ends")
    attacks: list[FabulaeAttackRoll] | None = None
    # FAB-14: an impossible attack spends nothing; its pool and empty dice are recorded.
    pool: FabulaePool | None = None
    outcome: RollOutcome | None = None
    dice: list[int] | None = None
    stress_dice: list[int] | None = None


def attack_roll(
    request: FabulaeAttackRequest, version: RulesVersion
) -> tuple[Weapon, WeaponCarried | None, FabulaeRollInputs]:
    """The attacker's roll (FAB-62/64) with every factor, validated against the weapon."""
    attacker_sheet = request.attacker.sheet
    weapon, carried = weapon_of(attacker_sheet, request.weapon)
    mode = request.mode
    ranged = carried is not None and weapon.ammo is not None
    if (mode == "ranged") != ranged:
        raise InvalidInput(f"{weapon.id} is a {'ranged' if ranged else 'melee'} weapon")
    factors = MELEE_FACTORS if mode == "melee" else RANGED_FACTORS
    situation = request.situation
    unknown = [f for f in situation if f not in factors]
    if unknown:
        raise InvalidInput(
            f"unknown {mode} situation {unknown[0]!r}; known: {', '.join(sorted(factors))}"
        )
    if mode == "ranged" and "contact_short_weapon" in situation and weapon.hands != 1:
        raise invalid("FAB-64", "contact_short_weapon is for one-handed guns like a revolver")
    if mode == "ranged" and "contact_long_weapon" in situation and weapon.hands != 2:
        raise invalid("FAB-64", "contact_long_weapon is for two-handed guns")
    if version >= CORRECTED:
        check_factors(situation, weapon, mode)
    modifiers = [FabulaeDiceModifier(source=f, dice=factors[f]) for f in situation]
    if mode == "ranged" and has_talent(attacker_sheet, "fine_gachette"):
        # FAB-90 fine_gachette: half-light costs nothing.
        modifiers = [m for m in modifiers if m.source != "half_light"]
    modifiers.append(FabulaeDiceModifier(source=f"weapon {weapon.id}", dice=weapon.roll_bonus))
    if request.aimed:
        if mode != "ranged":
            raise invalid("FAB-64", "aiming prepares a shot, not a melee attack")
        bonus = 3 if has_talent(attacker_sheet, "fine_gachette") else 2
        modifiers.append(FabulaeDiceModifier(source="aimed", dice=bonus))
    if request.snap_shot:
        if mode != "ranged" or not has_talent(attacker_sheet, "snap_shot"):
            raise InvalidInput("snap_shot is a Tir attack of a character with the talent")
        modifiers.append(FabulaeDiceModifier(source="snap_shot", dice=-2))
    against = effects_sum(request.target.sheet, "attacks_against")
    if against:
        modifiers.append(FabulaeDiceModifier(source="powers on the target", dice=against))
    modifiers += [m.model_copy() for m in request.modifiers]
    roll = FabulaeRollInputs(
        attribute="physique" if mode == "melee" else "habilete",
        skill="combat" if mode == "melee" else "tir",
        modifiers=modifiers,
        talents=list(request.talents),
        in_combat=True,
    )
    return weapon, carried, roll


def damage_of(
    request: FabulaeAttackRequest, weapon: Weapon, sheet: FabulaeSheet, feats: int
) -> int:
    """FAB-66: base damage + the attacker's feats, with the talents and powers that add."""
    damage = weapon.damage + feats
    if request.mode == "melee":
        if has_talent(sheet, "cogneur") and (weapon.id == "bare_hands" or weapon.blunt):
            damage += 1  # FAB-90 cogneur
        damage += effects_sum(sheet, "melee_damage")  # FAB-102 resize
    return damage


def prepare_attack(body: FabulaeAttackCreate, table: Table) -> Prepared[FabulaeAttackRequest]:
    attacker = table.acting(body.attacker_id, FabulaeCharacter)
    target = table.character(body.target_id, FabulaeCharacter)
    if attacker.id == target.id:
        raise InvalidInput("a character does not attack themselves: choose another target")
    request = FabulaeAttackRequest(
        system=SYSTEM,
        session=table.session,
        scene=table.scene,
        attacker=attacker,
        target=target,
        mode=body.mode,
        weapon=body.weapon,
        defense=defense_of(body.defense, body.mode, target, table, body.visibility),
        situation=list(body.situation),
        aimed=body.aimed,
        snap_shot=body.snap_shot,
        burst=body.burst,
        burst_fire=body.burst_fire,
        cover=body.cover,
        talents=list(body.talents),
        modifiers=[FabulaeDiceModifier(source=m.source, dice=m.dice) for m in body.modifiers],
        states=body.states,
    )
    return Prepared(request, character_id=attacker.id, visibility=body.visibility)


def resolve_attack(
    request: FabulaeAttackRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[FabulaeAttackResult]:
    """FAB-62..68: opposed attack, damage = base + feats, protection, states, Broken."""
    check_may_act(request.attacker, "fabulae.attack", version)
    attacker, target = request.attacker, request.target
    for who in (attacker, target):
        if who.sheet.dead:
            raise refusal("FAB-51", f"{who.name} is dead")
    weapon, carried, roll = attack_roll(request, version)
    # Every check before the first die (pool_of refuses a bad talent or factor), and an
    # impossible attack (FAB-14) spends nothing: no ammunition, no stress.
    pool = pool_of(attacker, roll, request.session)
    if pool.pool <= 0:
        impossible = FabulaeAttackResult(
            mode=request.mode,
            weapon=weapon.id,
            pool=pool,
            outcome="impossible",
            dice=[],
            stress_dice=[],
        )
        return Resolution(impossible)
    defense = request.defense
    if defense is None:
        # FAB-62: the defender chooses before any die falls (fabulae.defend answers).
        awaiting = waits_for_defense(target.id)
        return Resolution(
            FabulaeAttackResult(mode=request.mode, weapon=weapon.id, awaiting=awaiting)
        )
    ranged = carried is not None and weapon.ammo is not None
    if ranged and defense != "none":
        raise invalid("FAB-62", "parry and dodge answer melee attacks; cover protects from shots")
    cover = request.cover
    burst = request.burst
    shooter = Body(attacker)
    result = FabulaeAttackResult(mode=request.mode, weapon=weapon.id, defense=defense)
    if (burst > 1 or request.burst_fire) and not weapon.burst:
        raise invalid("FAB-65", f"the {weapon.id} cannot fire in bursts")
    if ranged:
        assert carried is not None
        if not carried.ammo:
            raise refusal("FAB-71", f"the {weapon.id} is empty; reload before firing")
        ammo_before = carried.ammo
        if weapon.burst and request.burst_fire:
            die = AMMO_DIE[burst]
            spent = min(ammo_before, dice.roll(die))  # FAB-65: ammunition spent is rolled
            result.ammo = FabulaeAmmo(die=die, spent=spent, left=ammo_before - spent)
            burst = min(burst, spent)  # no more shots than rounds
            if not has_talent(shooter.sheet, "burst_master"):
                shooter.sheet.stress = shooter.sheet.stress + 1  # FAB-65
                result.stress_gained = 1
        elif burst > 1:
            raise invalid("FAB-65", "repeated attacks need burst_fire: true")
        else:
            spent = 1
            result.ammo = FabulaeAmmo(spent=1, left=ammo_before - 1)
        shooter.sheet.weapons = [
            w.model_copy(update={"ammo": (w.ammo or 0) - spent}) if w.id == weapon.id else w
            for w in shooter.sheet.weapons
        ]
    victim = Body(target)
    now = settle_now(request.states, target)
    attacks = []
    hits_through = 0
    last_feats = 0
    # FAB-50 (corrected): the sequela takes the Prouesses of the hit that broke the target.
    free = len(
        [box for box in track_of(victim.sheet, "physical") if box not in victim.sheet.states]
    )
    breaking_feats: int | None = None
    for _ in range(burst):
        side, _unused = action_roll(attacker, roll, request.session, dice)
        if defense == "none":
            passive = not_rolled("failure")
        else:
            parry = defense_roll(target, defense, version)
            passive, _ignored = action_roll(target, parry, request.session, dice)
        opposed = opposition(side, passive, version)
        if opposed.outcome != "success":
            attacks.append(FabulaeAttackRoll(roll=opposed, hit=False))
            if side.outcome == "panic":
                result.panic = True
                break
            continue
        damage = damage_of(request, weapon, shooter.sheet, opposed.feats)
        through, protection = protect(victim, damage, cover, dice)
        if through > 0 or version >= CORRECTED:
            # FAB-102 enchant_weapon (corrected): +1 net on every successful attack.
            through += effects_sum(shooter.sheet, "net_damage")
        attacks.append(
            FabulaeAttackRoll(
                roll=opposed, hit=True, damage=damage, protection=protection, through=through
            )
        )
        if breaking_feats is None and through > 0 and hits_through + through > free:
            breaking_feats = opposed.feats
        hits_through += through
        last_feats = opposed.feats
    result.attacks = attacks
    if version >= CORRECTED and breaking_feats is not None:
        last_feats = breaking_feats
    context = FabulaeSequelaContext(
        weapon_mod=weapon.sequela_mod,
        feats=last_feats,
        butcher=has_talent(shooter.sheet, "butcher") and not victim.sheet.creature,
    )
    threatened = threats(
        victim, hits_through, "physical", "FAB-68", dice, context, now, version=version
    )
    for name in threatened.model_fields_set:
        setattr(result, name, getattr(threatened, name))
    return Resolution(result, shooter.effects("FAB-65") + victim.effects("FAB-68"))


def after_attack(
    prepared: Prepared[FabulaeAttackRequest], resolution: Resolution[FabulaeAttackResult], seq: int
) -> Aftermath:
    request, result = prepared.request, resolution.result
    who: list[str | None] = []
    if result.outcome == "panic" or result.panic:
        who.append(request.attacker.id)
    for attack in result.attacks or []:
        if panicked(attack.roll.active):
            who.append(request.attacker.id)
        if panicked(attack.roll.passive):
            who.append(request.target.id)
    pool = result.pool.pool if result.outcome == "impossible" and result.pool else None
    return awaits_defense(
        aftermath(who, prepared.visibility, impossible_pool=pool, seq=seq),
        result.awaiting,
        request.attacker.name,
        request.target.name,
    )


def awaits_defense(
    after: Aftermath, awaiting: FabulaeAwaiting | None, attacker: str, target: str
) -> Aftermath:
    """An attack or grapple waiting for the defense asks the defender's side (FAB-62)."""
    return asking(after, awaiting, f"{attacker} attacks {target}: parry, dodge or none (FAB-62)")


def waits_for_defense(target_id: str) -> FabulaeAwaiting:
    return waits_for("defense", target_id, "fabulae.defend", "FAB-62")


def attack_summary(
    request: FabulaeAttackRequest, result: FabulaeAttackResult, language: Language
) -> str:
    """« Carl → Ada, Revolver : touché, 2 dégâts »."""
    weapon = text("weapon", request.weapon, language)
    head = f"{request.attacker.name} → {request.target.name}, {weapon}"
    colon = " :" if language == "fr" else ":"
    if result.outcome == "impossible":
        return f"{head}{colon} {text('outcome', 'impossible', language)}"
    if result.awaiting is not None:
        return f"{head}{colon} {text('result', 'awaiting_defense', language)}"
    attacks = result.attacks or []
    hits = [a for a in attacks if a.hit]
    if not hits:
        return f"{head}{colon} {text('result', 'miss', language)}"
    through = sum(a.through or 0 for a in hits)
    word = "dégâts" if language == "fr" else "damage"
    return f"{head}{colon} {text('result', 'hit', language)}, {through} {word}"


def attack_outcome(result: FabulaeAttackResult) -> Outcome:
    if result.outcome == "impossible":
        return Outcome("outcome", "impossible")
    if result.awaiting is not None:
        return Outcome("result", "awaiting_defense")
    hit = any(a.hit for a in result.attacks or [])
    return Outcome("result", "hit" if hit else "miss")


def attack_odds(request: FabulaeAttackRequest, version: RulesVersion) -> Odds:
    """Issue 21: the attack's exact odds (odds_attack.py, which builds on this module)."""
    from app.engine.rulesets.fabulae.odds_attack import attack_odds as odds

    return odds(request, version)


ATTACK: RollKind[FabulaeAttackCreate, FabulaeAttackRequest, FabulaeAttackResult] = RollKind(
    name="fabulae.attack",
    other_side=(
        ("defense", "target_id", "FAB-62"),
        ("states", "target_id", "FAB-34"),
    ),
    asks_other_side=frozenset({"defense", "states"}),
    roller_decides=(("talents", "FAB-90"),),
    gm_decides=(
        ("situation", "FAB-14"),
        ("modifiers", "FAB-14"),
    ),
    npc_values=(
        ("/pool", "/attacker"),
        ("/attacks/*/roll/active/pool", "/attacker"),
        ("/attacks/*/roll/passive/pool", "/target"),
        ("/attacks/*/protection", "/target"),
        ("/states_checked", "/target"),
        ("/pending_states", "/target"),
    ),
    cost=attack_cost,
    title="Attack",
    body=FabulaeAttackCreate,
    request=FabulaeAttackRequest,
    result=FabulaeAttackResult,
    prepare=prepare_attack,
    resolve=resolve_attack,
    summary=attack_summary,
    after=after_attack,
    triggers=SETS_OFF_PANIC,
    outcome=attack_outcome,
    odds=attack_odds,
)
