"""Pools of D6 (FAB-10..15): attribute + skill + helpers − difficulty − states + talents +
modifiers + what the character's situation adds; a 6 succeeds, a stress 1 is Panic (FAB-42).

The models here are the shapes every Fabulae result shares: a pool, one side's dice, an
opposition of two sides (FAB-36).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, Literal

from pydantic import Field

from app.engine.contract import Effect, Model, RulesVersion, effect
from app.engine.dice import DiceSource
from app.engine.errors import InvalidInput, refusal
from app.engine.rulesets.fabulae.labels import OUTCOMES, PROWESS
from app.engine.rulesets.fabulae.sheet import FabulaeCharacter, FabulaeSheet
from app.engine.rulesets.fabulae.tables import (
    STATE_MALUS,
    Attribute,
    Skill,
    TalentId,
    allowed_attributes,
)

SYSTEM: Final = "fabulae-tenebris"
# The rules version of the corrections of 2026-11-30 (FAB-5..FAB-102 "corrected"): a
# resolver applies a correction from this version on, so older entries replay as they were.
CORRECTED: Final = 2
# From rules version 3 a push that panics undoes what the roll it pushed did to stress: the
# new result replaces the old one for good (FAB-33) and a Panic fails the action (FAB-42),
# so a pushed Résistance test that panics has lowered no stress (FAB-43).
PUSH_REPLACES_RESISTANCE: Final = 3
Difficulty = Literal["hard", "very_hard", "almost_impossible"]
RollOutcome = Literal["success", "failure", "panic", "impossible", "not_rolled"]
DIFFICULTY_MALUS: Final[dict[str, int]] = {"hard": 0, "very_hard": 1, "almost_impossible": 2}
MAX_HELPERS: Final = 3  # FAB-13

# FAB-90: talents that add dice to a roll. Always-on ones apply by themselves; the others
# apply when the player invokes them for a roll they fit (the GM judges the fiction).
ALWAYS_ON_TALENTS: Final[dict[str, tuple[frozenset[str], int]]] = {
    "sharp_eye": (frozenset({"observation"}), 1),
}
INVOKED_TALENTS: Final[dict[str, tuple[frozenset[str], int, str]]] = {
    "tinkerer": (frozenset({"bricolage"}), 2, "to sabotage, repair, force or improvise"),
    "pickpocket": (frozenset({"dexterite", "bricolage"}), 2, "to steal or pick a lock"),
    "tracker": (frozenset({"observation", "furtivite"}), 2, "to track or erase tracks"),
    "orator": (frozenset({"mentir_convaincre"}), 1, "before a crowd or to persuade"),
    "artist": (frozenset({"performance"}), 1, "in your own art"),
    "expert": (frozenset({"connaissance"}), 1, "in your field, once per session"),
    "all_in": (frozenset({"combat"}), 1, "giving up your fast action this round"),
    "iron_will": (frozenset({"resistance"}), 2, "for death tests and resisting torture"),
}
# FAB-50/FAB-55: what a carried sequela takes from the rolls it names.
SEQUELA_MALUS: Final[dict[str, tuple[str, frozenset[str], int]]] = {
    "bruise": ("attribute", frozenset({"physique"}), -1),
    "broken_limb": ("skill", frozenset({"athletisme"}), -2),
    "bleeding": ("skill", frozenset({"athletisme", "resistance"}), -2),
    "internal": ("all", frozenset(), -2),
    "tremor": ("skill", frozenset({"athletisme"}), -1),
    "anxious": ("attribute", frozenset({"intellect"}), -1),
    "sullen": ("attribute", frozenset({"empathie"}), -1),
}
# FAB-72: what an armor takes from the skills it hinders.
ARMOR_MALUS: Final[dict[str, tuple[str, int]]] = {
    "primitive_vest": ("furtivite", -1),
    "factory_plate": ("athletisme", -1),
}


class FabulaeClock(Model):
    """What every Fabulae request records: the system and the campaign's clock."""

    system: Literal["fabulae-tenebris"]
    session: int
    scene: int


class FabulaeDiceModifier(Model):
    """Dice a source adds to a pool or takes from it (FAB-14)."""

    source: str
    dice: int


class FabulaeTalentDie(Model):
    """Dice a talent adds to a pool (FAB-90)."""

    talent: str
    dice: int


class FabulaeRollInputs(Model):
    """What an action roll is made of (FAB-10..15), as a request records it."""

    attribute: Attribute
    skill: Skill | None = None
    difficulty: Difficulty = "hard"
    helpers: int = Field(default=0, ge=0, le=MAX_HELPERS, description="FAB-13")
    modifiers: list[FabulaeDiceModifier] = Field(default_factory=list)
    talents: list[TalentId] = Field(default_factory=list, description="FAB-90 invoked")
    passive: bool = Field(default=False, description="FAB-33: imposed by the GM")
    in_combat: bool = Field(default=False, description="FAB-75: a backpack hinders")


class FabulaePool(Model):
    """A pool and what made it (FAB-10..15); stress dice are rolled on top (FAB-15)."""

    attribute: int
    skill: int
    helpers: int
    difficulty: int
    states: int
    talents: int
    modifiers: int
    situation: int
    talent_dice: list[FabulaeTalentDie]
    modifier_dice: list[FabulaeDiceModifier]
    situation_dice: list[FabulaeDiceModifier]
    pool: int
    stress_dice: int


class FabulaeRerolledFrom(Model):
    """The dice a push rerolled (FAB-31)."""

    dice: list[int]
    stress_dice: list[int]


class FabulaeDice(Model):
    """One side's roll as results record it: the pool, the dice and how they read.

    A side that rolled nothing (no defense, an attempt that never happened) records only
    its outcome and sixes, sometimes its empty dice."""

    pool: FabulaePool | None = None
    dice: list[int] = Field(default_factory=list)
    stress_dice: list[int] = Field(default_factory=list)
    sixes: int = 0
    feats: int = Field(default=0, description="each six beyond the first (FAB-11)")
    panic: bool = Field(default=False, description="a stress die showed 1 (FAB-42)")
    outcome: RollOutcome
    label: str = ""
    rerolled_from: FabulaeRerolledFrom | None = None


class FabulaeOpposition(Model):
    """FAB-36: both sides roll; the active side wins only with strictly more sixes."""

    active: FabulaeDice
    passive: FabulaeDice
    net: int
    feats: int
    winner: Literal["active", "passive"]
    outcome: RollOutcome
    label: str


# --- pools (FAB-10..15, FAB-21, FAB-90) --------------------------------------------------


def has_talent(sheet: FabulaeSheet, talent: str) -> bool:
    return talent in sheet.talents


def state_malus(sheet: FabulaeSheet) -> int:
    """FAB-21: each checked Meurtri, Blessé, Apeuré, Démoralisé takes one die, cumulatively."""
    return sum(STATE_MALUS.get(state, 0) for state in sheet.states)


def situation_dice(
    sheet: FabulaeSheet, attribute: str, skill: str | None, in_combat: bool
) -> list[FabulaeDiceModifier]:
    """Dice the character's own situation adds or takes: sequelae, armor, backpack, powers."""
    dice: list[FabulaeDiceModifier] = []
    for sequela in sheet.sequelae:
        malus = SEQUELA_MALUS.get(sequela.code)
        if malus is None:
            continue
        scope, names, value = malus
        if scope == "all" or (scope == "attribute" and attribute in names) or skill in names:
            dice.append(FabulaeDiceModifier(source=f"sequela {sequela.code}", dice=value))
    armor = sheet.armor
    if armor and armor.id in ARMOR_MALUS and ARMOR_MALUS[armor.id][0] == skill:
        dice.append(FabulaeDiceModifier(source=f"armor {armor.id}", dice=ARMOR_MALUS[armor.id][1]))
    if in_combat and sheet.backpack and skill in ("athletisme", "furtivite"):
        dice.append(FabulaeDiceModifier(source="backpack in combat", dice=-2))  # FAB-75
    for active in sheet.active_effects:
        value = active.all_rolls + active.attributes.get(attribute, 0)
        if skill is not None:
            value += active.skills.get(skill, 0)
        if value:
            dice.append(FabulaeDiceModifier(source=f"power {active.source}", dice=value))
    return dice


def talent_dice(
    sheet: FabulaeSheet, attribute: str, skill: str | None, invoked: Sequence[str], session: int
) -> list[FabulaeTalentDie]:
    """FAB-90: the always-on talents that fit the roll, then those the player invokes."""
    dice = []
    for talent, (skills, bonus) in ALWAYS_ON_TALENTS.items():
        if has_talent(sheet, talent) and skill in skills:
            dice.append(FabulaeTalentDie(talent=talent, dice=bonus))
    if len(set(invoked)) != len(invoked):
        raise InvalidInput("a talent is invoked once per roll")
    for talent in invoked:
        if talent not in INVOKED_TALENTS:
            raise InvalidInput(f"talent {talent!r} adds no dice to a roll you invoke it for")
        if not has_talent(sheet, talent):
            raise InvalidInput(f"talent {talent!r} is not on the sheet")
        skills, bonus, when = INVOKED_TALENTS[talent]
        if skill not in skills:
            raise InvalidInput(f"talent {talent} adds dice to {' or '.join(sorted(skills))} {when}")
        if talent == "iron_will" and attribute != "physique":
            raise InvalidInput("iron_will adds dice to Physique + Résistance only")
        if talent == "expert" and sheet.expert_session == session:
            raise refusal("FAB-90", "Expert was already used this session")
        dice.append(FabulaeTalentDie(talent=talent, dice=bonus))
    return dice


def pool_of(character: FabulaeCharacter, roll: FabulaeRollInputs, session: int) -> FabulaePool:
    """FAB-10..15: attribute + skill + helpers − difficulty − states + talents + modifiers."""
    sheet = character.sheet
    attribute, skill = roll.attribute, roll.skill
    if skill is not None:
        allowed = allowed_attributes(skill)
        if attribute not in allowed:
            raise InvalidInput(
                f"FAB-4: {skill} is rolled with {' or '.join(sorted(allowed))}, not {attribute}",
                rule="FAB-4",
            )
    talents = talent_dice(sheet, attribute, skill, roll.talents, session)
    modifiers = [
        FabulaeDiceModifier(source=m.source, dice=m.dice)
        for m in roll.modifiers
        # FAB-90 parkour: encumbered zones cost an acrobat nothing on Athlétisme.
        if not (
            m.source == "encumbered_zone" and skill == "athletisme" and has_talent(sheet, "parkour")
        )
    ]
    situation = situation_dice(sheet, attribute, skill, roll.in_combat)
    parts = {
        "attribute": getattr(sheet.attributes, attribute),
        "skill": getattr(sheet.skills, skill) if skill else 0,
        "helpers": roll.helpers,
        "difficulty": -DIFFICULTY_MALUS[roll.difficulty],
        "states": -state_malus(sheet),
        "talents": sum(t.dice for t in talents),
        "modifiers": sum(m.dice for m in modifiers),
        "situation": sum(s.dice for s in situation),
    }
    return FabulaePool(
        **parts,
        talent_dice=talents,
        modifier_dice=modifiers,
        situation_dice=situation,
        pool=sum(parts.values()),
        stress_dice=sheet.stress,  # FAB-15: on top, recorded apart
    )


# --- reading the dice (FAB-11, FAB-14, FAB-42) ---------------------------------------------


def read_dice(faces: Sequence[int], stress: Sequence[int]) -> FabulaeDice:
    """FAB-11, FAB-42: sixes anywhere succeed; a 1 on a stress die is Panic."""
    sixes = sum(1 for face in [*faces, *stress] if face == 6)
    panic = any(face == 1 for face in stress)
    outcome: RollOutcome
    if panic:
        outcome = "panic"
    elif sixes:
        outcome = "success"
    else:
        outcome = "failure"
    return FabulaeDice(
        dice=list(faces),
        stress_dice=list(stress),
        sixes=sixes,
        feats=max(0, sixes - 1) if outcome == "success" else 0,
        panic=panic,
        outcome=outcome,
        label=OUTCOMES[outcome].fr,
    )


def roll_pool(dice: DiceSource, pool: int, stress_dice: int) -> FabulaeDice:
    """Draw the pool then the stress dice; a pool of 0 or less is impossible (FAB-14)."""
    if pool <= 0:
        return FabulaeDice(
            dice=[],
            stress_dice=[],
            sixes=0,
            feats=0,
            panic=False,
            outcome="impossible",
            label=OUTCOMES["impossible"].fr,
        )
    faces = [dice.roll(6) for _ in range(pool)]
    stress = [dice.roll(6) for _ in range(stress_dice)]
    return read_dice(faces, stress)


def with_pool(pool: FabulaePool, rolled: FabulaeDice) -> FabulaeDice:
    """`{"pool": pool, **rolled}`: a side's roll with what made its pool."""
    return FabulaeDice(pool=pool, **rolled.model_dump(exclude_unset=True))


def expert_effects(character: FabulaeCharacter, pool: FabulaePool, session: int) -> list[Effect]:
    """FAB-90 expert: the session it was used in, on the sheet."""
    if any(t.talent == "expert" for t in pool.talent_dice):
        before = character.sheet.expert_session
        return [effect(character.id, "expert_session", before, session, "FAB-90")]
    return []


def action_roll(
    character: FabulaeCharacter,
    roll: FabulaeRollInputs,
    session: int,
    dice: DiceSource,
    *,
    stress: bool = True,
) -> tuple[FabulaeDice, list[Effect]]:
    """An action roll: its pool, its dice (none when impossible, FAB-14), its talents spent.
    Without `stress`, a roll that is not an action roll (FAB-42 corrected: a death test)."""
    pool = pool_of(character, roll, session)
    if not stress:
        pool = pool.model_copy(update={"stress_dice": 0})
    rolled = roll_pool(dice, pool.pool, pool.stress_dice)
    effects = [] if rolled.outcome == "impossible" else expert_effects(character, pool, session)
    return with_pool(pool, rolled), effects


def opposition(
    active: FabulaeDice, passive: FabulaeDice, version: RulesVersion
) -> FabulaeOpposition:
    """A side that panics or cannot act scores no six (FAB-14, FAB-42); a win by two sixes
    or more reads « Prouesse » (FAB-36, labelled so from the corrections on)."""
    active_sixes = active.sixes if active.outcome in ("success", "failure") else 0
    passive_sixes = passive.sixes if passive.outcome in ("success", "failure") else 0
    net = active_sixes - passive_sixes
    winner: Literal["active", "passive"] = "active" if net >= 1 else "passive"
    outcome: RollOutcome = "success" if net >= 1 else "failure"
    if active.outcome in ("panic", "impossible"):
        outcome = active.outcome
    return FabulaeOpposition(
        active=active,
        passive=passive,
        net=net,
        feats=max(0, net - 1),
        winner=winner,
        outcome=outcome,
        label=PROWESS.fr if net >= 2 and version >= CORRECTED else OUTCOMES[outcome].fr,
    )


def not_rolled(outcome: RollOutcome, *, dice: bool = True) -> FabulaeDice:
    """A side that rolls nothing: no defense (a failure), or an attempt that never was."""
    if dice:
        return FabulaeDice(outcome=outcome, sixes=0, dice=[], stress_dice=[])
    return FabulaeDice(outcome=outcome, sixes=0)


def dice_text(rolled: FabulaeDice) -> str:
    """« 6 4 2 | 1 »: the pool's dice, then the stress dice after a bar."""
    faces = " ".join(str(face) for face in rolled.dice) or "—"
    if rolled.stress_dice:
        faces += " | " + " ".join(str(face) for face in rolled.stress_dice)
    return faces
