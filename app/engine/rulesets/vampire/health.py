"""Health, damage and healing (VAM-40, the classic rule: the rulebook covers the dice only).

The track has seven levels (Bruised 0, Hurt −1, Injured −1, Wounded −2, Mauled −2,
Crippled −5, Incapacitated). A damage roll draws the damage pool at difficulty 6, each
success one level of its type; the target soaks at once (Vigueur + Fortitude against
bashing and lethal, Fortitude alone against aggravated), and what is left fills the track.
The Storyteller heals (`vampire.heal`).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Final, Literal

from pydantic import Field, model_validator

from app.engine.bodies import RollBody
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
from app.engine.errors import InvalidInput, RuleRefusal, refusal
from app.engine.odds import Odds
from app.engine.rulesets.vampire.labels import DAMAGE_TYPES, HEALTH_LEVELS
from app.engine.rulesets.vampire.sheet import (
    HEALTH_LEVELS as TRACK,
)
from app.engine.rulesets.vampire.sheet import (
    DamageType,
    VampireCharacter,
    VampireHealth,
)

RULE: Final = "VAM-40"
DAMAGE_DIFFICULTY: Final = 6  # VAM-40: damage and soak rolls are at difficulty 6
# VAM-40: the level each filled box count reads as, and its wound penalty.
LEVELS: Final = ("bruised", "hurt", "injured", "wounded", "mauled", "crippled", "incapacitated")
PENALTIES: Final = (0, 1, 1, 2, 2, 5)
HealthLevel = Literal[
    "bruised", "hurt", "injured", "wounded", "mauled", "crippled", "incapacitated"
]


def level_of(health: VampireHealth) -> HealthLevel | None:
    """VAM-40: the level the filled boxes reach, None when unhurt."""
    total = min(health.total, TRACK)
    return LEVELS[total - 1] if total else None


def wound_penalty(health: VampireHealth) -> int:
    """VAM-40: the dice every pool loses at the character's level (Incapacitated acts not)."""
    total = min(health.total, TRACK)
    return PENALTIES[total - 1] if 0 < total < TRACK else 0


def incapacitated(health: VampireHealth) -> bool:
    return health.total >= TRACK


def cannot_act(character: VampireCharacter) -> RuleRefusal:
    return refusal(RULE, f"{character.name} is Incapacitated and cannot act")


def take(health: VampireHealth, damage_type: DamageType, levels: int) -> tuple[VampireHealth, int]:
    """VAM-40: `levels` of one type on the track, and the levels it could not hold.

    A box fills per level while the track has room. Once full, each further bashing or
    lethal level turns a bashing box lethal; each further aggravated level turns the least
    severe box (bashing, else lethal) aggravated. What even that cannot hold is past the
    track (torpor or Final Death, the Storyteller's)."""
    counts = {"bashing": health.bashing, "lethal": health.lethal, "aggravated": health.aggravated}
    beyond = 0
    for _ in range(levels):
        if sum(counts.values()) < TRACK:
            counts[damage_type] += 1
            continue
        worse = "aggravated" if damage_type == "aggravated" else "lethal"
        lesser = [t for t in ("bashing", "lethal") if t != worse and counts[t]]
        if lesser:
            counts[lesser[0]] -= 1
            counts[worse] += 1
        else:
            beyond += 1
    return VampireHealth(**counts), beyond


def successes(faces: Sequence[int]) -> int:
    """VAM-40: damage and soak rolls count each die of 6 or more; a 1 cancels nothing and
    nothing botches."""
    return sum(1 for face in faces if face >= DAMAGE_DIFFICULTY)


# --- the damage roll (attack or hazard) and the target's soak -------------------------------


class VampireDamageCreate(RollBody):
    """VAM-40: a damage roll against a target, who soaks at once."""

    kind: Literal["vampire.damage"]
    attacker_id: uuid.UUID | None = Field(
        default=None,
        description="the attacker, whose Force starts the pool; left out, a hazard the "
        "Storyteller rolls (fire, a fall, the sun) with `pool` dice",
    )
    target_id: uuid.UUID
    damage_type: DamageType = Field(description="bashing, lethal or aggravated (VAM-40)")
    bonus: int = Field(
        default=0,
        ge=0,
        le=20,
        description="dice added to the attacker's Force: the weapon, extra successes of the "
        "attack (the Storyteller's, VAM-5)",
    )
    pool: int | None = Field(
        default=None, ge=1, le=30, description="a hazard's damage dice (no attacker)"
    )
    soak: bool = Field(
        default=True, description="the target soaks (the Storyteller may rule it cannot)"
    )

    @model_validator(mode="after")
    def _attack_or_hazard(self) -> VampireDamageCreate:
        if self.attacker_id is None and self.pool is None:
            raise ValueError("VAM-40: a hazard without attacker_id gives its damage `pool`")
        if self.attacker_id is not None and self.pool is not None:
            raise ValueError(
                "VAM-40: an attack's pool is the attacker's Force + bonus; `pool` is a hazard's"
            )
        return self


class VampireDamageRequest(Model):
    system: Literal["vampire"]
    session: int
    scene: int
    attacker: VampireCharacter | None = None
    target: VampireCharacter
    damage_type: DamageType
    bonus: int = 0
    pool: int | None = Field(default=None, description="a hazard's dice")
    soak: bool = True


class VampireSoak(Model):
    """The target's soak roll (VAM-40)."""

    vigueur: int = Field(description="0 against aggravated damage")
    fortitude: int
    pool: int
    dice: list[int]
    successes: int


class VampireDamageResult(Model):
    strength: int | None = Field(description="the attacker's Force, None for a hazard")
    bonus: int
    wound_penalty: int = Field(description="the attacker's wound penalty on the pool")
    pool: int
    damage_type: DamageType
    dice: list[int]
    successes: int = Field(description="levels of damage rolled")
    soak: VampireSoak | None = Field(description="None when nothing is soaked")
    levels: int = Field(description="levels left after the soak, on the track")
    beyond: int = Field(description="levels the full track could not hold (VAM-40)")
    health: VampireHealth = Field(description="the target's track after the damage")
    level: HealthLevel | None = Field(description="the target's level after the damage")


def prepare_damage(body: VampireDamageCreate, table: Table) -> Prepared[VampireDamageRequest]:
    attacker = None
    if body.attacker_id is None:
        table.require_gm("roll a hazard's damage; an attack names its attacker_id")
    else:
        attacker = table.acting(body.attacker_id, VampireCharacter)
    target = table.character(body.target_id, VampireCharacter)
    if attacker is not None and attacker.id == target.id:
        raise InvalidInput("VAM-40: a character does not attack themselves", rule=RULE)
    request = VampireDamageRequest(
        system="vampire",
        session=table.session,
        scene=table.scene,
        target=target,
        damage_type=body.damage_type,
    )
    if attacker is not None:
        request.attacker = attacker
    if body.bonus:
        request.bonus = body.bonus
    if body.pool is not None:
        request.pool = body.pool
    if not body.soak:
        request.soak = False
    character_id = attacker.id if attacker is not None else target.id
    return Prepared(request, character_id=character_id, visibility=body.visibility)


def resolve_damage(
    request: VampireDamageRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[VampireDamageResult]:
    """VAM-40: damage dice at 6, the target's soak at 6, the rest on the track."""
    attacker, target = request.attacker, request.target
    strength, penalty = None, 0
    if attacker is not None:
        if incapacitated(attacker.sheet.health):
            raise cannot_act(attacker)
        strength = attacker.sheet.attributes.force
        penalty = wound_penalty(attacker.sheet.health)
        pool = strength + request.bonus - penalty
    else:
        pool = request.pool or 0
    if pool <= 0:
        raise refusal(RULE, f"the damage pool is {pool} dice; nothing can be rolled")
    faces = [dice.roll(10) for _ in range(pool)]
    rolled = successes(faces)
    soak = None
    sheet = target.sheet
    if request.soak and rolled:
        aggravated = request.damage_type == "aggravated"
        vigueur = 0 if aggravated else sheet.attributes.vigueur
        soak_pool = vigueur + sheet.fortitude
        if soak_pool:
            soak_faces = [dice.roll(10) for _ in range(soak_pool)]
            soak = VampireSoak(
                vigueur=vigueur,
                fortitude=sheet.fortitude,
                pool=soak_pool,
                dice=soak_faces,
                successes=successes(soak_faces),
            )
    levels = max(0, rolled - (soak.successes if soak else 0))
    after, beyond = take(sheet.health, request.damage_type, levels)
    effects: list[Effect] = []
    if after != sheet.health:
        effects.append(effect(target.id, "health", sheet.health, after, RULE))
    result = VampireDamageResult(
        strength=strength,
        bonus=request.bonus,
        wound_penalty=penalty,
        pool=pool,
        damage_type=request.damage_type,
        dice=faces,
        successes=rolled,
        soak=soak,
        levels=levels,
        beyond=beyond,
        health=after,
        level=level_of(after),
    )
    return Resolution(result, effects)


def level_words(level: str | None, language: Language) -> str:
    if level is None:
        return "indemne" if language == "fr" else "unhurt"
    return HEALTH_LEVELS[level].text(language)


def damage_summary(
    request: VampireDamageRequest, result: VampireDamageResult, language: Language
) -> str:
    """« Prévôt → Lucien — 4D10 létal : 8 6 2 1 → 2 ; encaisse 3D10 : 7 2 2 → 1 ; 1
    niveau, Contusionné »."""
    fr = language == "fr"
    colon, semi, d10 = (" :", " ;", "D10") if fr else (":", ";", "d10")
    who = request.target.name
    if request.attacker is not None:
        who = f"{request.attacker.name} → {who}"
    kind = DAMAGE_TYPES[result.damage_type].text(language).lower()
    thrown = " ".join(map(str, result.dice))
    line = f"{who} — {result.pool}{d10} {kind}{colon} {thrown} → {result.successes}"
    if result.soak is not None:
        soaked = " ".join(map(str, result.soak.dice))
        word = "encaisse" if fr else "soak"
        line += f"{semi} {word} {result.soak.pool}{d10}{colon} {soaked} → {result.soak.successes}"
    unit = "niveau" if fr else "level"
    plural = ("x" if fr else "s") if result.levels > 1 or (not fr and result.levels == 0) else ""
    return f"{line}{semi} {result.levels} {unit}{plural}, {level_words(result.level, language)}"


def damage_outcome(result: VampireDamageResult) -> Outcome | None:
    return Outcome("health", result.level) if result.level else None


def damage_odds(request: VampireDamageRequest, version: RulesVersion) -> Odds:
    """Issue 21: the exact odds of the level left (vampire/odds.py, built on this module)."""
    from app.engine.rulesets.vampire.odds import damage_odds as exact

    return exact(request, version)


DAMAGE: RollKind[VampireDamageCreate, VampireDamageRequest, VampireDamageResult] = RollKind(
    name="vampire.damage",
    title="Damage and soak",
    body=VampireDamageCreate,
    request=VampireDamageRequest,
    result=VampireDamageResult,
    prepare=prepare_damage,
    resolve=resolve_damage,
    summary=damage_summary,
    outcome=damage_outcome,
    odds=damage_odds,
    gm_decides=(("bonus", "VAM-5"), ("soak", "VAM-5")),
    npc_values=(
        ("/strength", "/attacker"),
        ("/wound_penalty", "/attacker"),
        ("/pool", "/attacker"),
        ("/soak/pool", "/target"),
        ("/soak/vigueur", "/target"),
        ("/soak/fortitude", "/target"),
        ("/soak/successes", "/target"),
        ("/levels", "/target"),
        ("/beyond", "/target"),
        ("/health", "/target"),
        ("/level", "/target"),
    ),
)


# --- healing -------------------------------------------------------------------------------


class VampireHealCreate(RollBody):
    """VAM-40: the Storyteller heals levels (rest, time, care): the least severe first unless
    a type is named."""

    kind: Literal["vampire.heal"]
    character_id: uuid.UUID
    levels: int = Field(default=1, ge=1, le=TRACK)
    damage_type: DamageType | None = Field(
        default=None, description="the type healed; left out, the least severe first"
    )


class VampireHealRequest(Model):
    system: Literal["vampire"]
    session: int
    scene: int
    character: VampireCharacter
    levels: int
    damage_type: DamageType | None = None


class VampireHealResult(Model):
    healed: int = Field(description="levels removed")
    health: VampireHealth
    level: HealthLevel | None


def prepare_heal(body: VampireHealCreate, table: Table) -> Prepared[VampireHealRequest]:
    character = table.character(body.character_id, VampireCharacter)
    request = VampireHealRequest(
        system="vampire",
        session=table.session,
        scene=table.scene,
        character=character,
        levels=body.levels,
    )
    if body.damage_type is not None:
        request.damage_type = body.damage_type
    return Prepared(request, character_id=character.id, visibility=body.visibility)


def resolve_heal(
    request: VampireHealRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[VampireHealResult]:
    """VAM-40: remove levels, bashing before lethal before aggravated (or the type named)."""
    character = request.character
    health = character.sheet.health
    counts = {"bashing": health.bashing, "lethal": health.lethal, "aggravated": health.aggravated}
    order = [request.damage_type] if request.damage_type else ["bashing", "lethal", "aggravated"]
    left = request.levels
    for damage_type in order:
        removed = min(left, counts[damage_type])
        counts[damage_type] -= removed
        left -= removed
    healed = request.levels - left
    if not healed:
        what = DAMAGE_TYPES[request.damage_type].en.lower() + " " if request.damage_type else ""
        raise refusal(RULE, f"{character.name} has no {what}damage to heal")
    after = VampireHealth(**counts)
    return Resolution(
        VampireHealResult(healed=healed, health=after, level=level_of(after)),
        [effect(character.id, "health", health, after, RULE)],
    )


def heal_summary(request: VampireHealRequest, result: VampireHealResult, language: Language) -> str:
    name = request.character.name
    level = level_words(result.level, language)
    if language == "fr":
        return (
            f"{name} — soigné de {result.healed} niveau{'x' if result.healed > 1 else ''} → {level}"
        )
    return f"{name} — healed {result.healed} level{'s' if result.healed > 1 else ''} → {level}"


HEAL: RollKind[VampireHealCreate, VampireHealRequest, VampireHealResult] = RollKind(
    name="vampire.heal",
    title="Healing",
    body=VampireHealCreate,
    request=VampireHealRequest,
    result=VampireHealResult,
    prepare=prepare_heal,
    resolve=resolve_heal,
    summary=heal_summary,
    is_roll=False,
    gm_only="heal damage",
    npc_values=(("/health", "/character"), ("/level", "/character"), ("/healed", "/character")),
)
