"""Roll requests of Fabulae Tenebris: the bodies of POST .../rolls."""

from __future__ import annotations

import uuid
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from app.engine.bodies import FollowUpBody as FollowUpBase
from app.engine.bodies import RollBody as RollBase
from app.engine.rulesets.fabulae.tables import (
    Cover,
    Danger,
    Defense,
    RecoverMode,
    RestDuration,
    StateId,
    TalentId,
    Track,
    WeaponId,
)

# A weapon the GM added to a sheet (custom_weapons) is named by its name (issue 18).
GrantedName = Annotated[str, Field(min_length=1, max_length=40)]
Attribute = Literal["physique", "habilete", "intellect", "empathie"]
Skill = Literal[
    "athletisme",
    "combat",
    "resistance",
    "furtivite",
    "dexterite",
    "tir",
    "bricolage",
    "connaissance",
    "observation",
    "mentir_convaincre",
    "performance",
    "soin",
]


class FabulaeModifierBody(BaseModel):
    """FAB-14: a situational modifier (FAB-60/62/64), a power or a sequela, in dice."""

    model_config = ConfigDict(extra="forbid")

    source: str = Field(min_length=1, max_length=60)
    dice: int = Field(ge=-6, le=6)


class FabulaeRollBody(BaseModel):
    """FAB-10..15: what an action roll is made of."""

    model_config = ConfigDict(extra="forbid")

    attribute: Attribute
    skill: Skill | None = Field(default=None, description="null for a pure attribute roll")
    difficulty: Literal["hard", "very_hard", "almost_impossible"] = "hard"
    helpers: int = Field(default=0, ge=0, le=3, description="FAB-13: +1 die each, at most 3")
    modifiers: list[FabulaeModifierBody] = Field(default_factory=list, max_length=10)
    talents: list[TalentId] = Field(
        default_factory=list, max_length=5, description="FAB-90 talents invoked for this roll"
    )
    passive: bool = Field(default=False, description="FAB-33: imposed by the GM, never pushed")


class FabulaeAlliesBody(BaseModel):
    """FAB-44: who stands by the roller when the roll sets off a panic."""

    model_config = ConfigDict(extra="forbid")

    allies: list[uuid.UUID] = Field(
        default_factory=list,
        max_length=20,
        description="FAB-44: the allies at short range that a panic this roll sets off "
        "reaches (its jolt, its scream); in an encounter, the roller's side as well",
    )


class FabulaeActionCreate(RollBase, FabulaeRollBody, FabulaeAlliesBody):
    """FAB-10..15: a pool of D6; each 6 a success, each six beyond the first a Prouesse."""

    kind: Literal["fabulae.action"]
    character_id: uuid.UUID
    in_combat: bool = Field(default=False, description="FAB-75: a backpack hinders in combat")
    action_type: Literal["slow", "fast", "free"] = Field(
        default="slow", description="FAB-60: what the action takes from an encounter's round"
    )
    target_id: uuid.UUID | None = Field(
        default=None, description="who the action is aimed at (FAB-90 intimidator)"
    )
    intimidation: Literal["stress", "flee"] = Field(
        default="stress", description="FAB-90 intimidator: the target takes +1 stress or flees"
    )


class FabulaeOpposedSide(FabulaeRollBody):
    character_id: uuid.UUID


class FabulaeOpposedCreate(RollBase):
    """FAB-36/37: the active side wins only with strictly more sixes."""

    kind: Literal["fabulae.opposed"]
    active: FabulaeOpposedSide
    passive: FabulaeOpposedSide


class FabulaeOpposeCreate(FollowUpBase):
    """FAB-36: the passive side's answer to an opposed roll that waits for it."""

    kind: Literal["fabulae.oppose"]
    character_id: uuid.UUID = Field(description="the passive side's character")
    helpers: int = Field(default=0, ge=0, le=3, description="FAB-13: +1 die each, at most 3")
    talents: list[TalentId] = Field(
        default_factory=list, max_length=5, description="FAB-90 talents invoked for this roll"
    )


class FabulaePushCreate(FollowUpBase, FabulaeAlliesBody):
    """FAB-31..35: 1 Destiny rerolls the dice showing 2..5."""

    kind: Literal["fabulae.push"]
    state: StateId | None = Field(
        default=None, description="FAB-32: the state checked if a 1 shows (else it is pending)"
    )
    absorb: bool = Field(
        default=False, description="FAB-34: if a 1 shows, spend one more Destiny instead"
    )


class FabulaeStateChoiceCreate(FollowUpBase):
    """FAB-32: settle a pending state price by naming the state to check."""

    kind: Literal["fabulae.state_choice"]
    state: StateId | Literal["physical", "mental"] | None = Field(
        default=None,
        description="FAB-32: the state to check, or a track (its next box, Broken when full); "
        "omit it to accept the next box of a damage track (FAB-68)",
    )
    character_id: uuid.UUID | None = Field(
        default=None, description="whose state: needed when a power threatens several targets"
    )


class FabulaeAbsorbCreate(FollowUpBase):
    """FAB-34: spend 1 Destiny to cancel the state about to be checked."""

    kind: Literal["fabulae.absorb"]
    character_id: uuid.UUID | None = Field(
        default=None, description="whose state: needed when a power threatens several targets"
    )


class FabulaeStressCreate(RollBase):
    """FAB-40/41: the GM gives stress (cool_head takes 1 off each gain)."""

    kind: Literal["fabulae.stress"]
    character_ids: list[uuid.UUID] = Field(min_length=1, max_length=20)
    amount: int = Field(ge=1, le=10, description="+1, +2 or +3 for the situations of FAB-41")
    reason: str = Field(default="", max_length=200)


class FabulaeStressResistCreate(RollBase, FabulaeAlliesBody):
    """FAB-43: a Résistance roll; each six lowers stress by one."""

    kind: Literal["fabulae.stress_resist"]
    character_id: uuid.UUID
    attribute: Literal["physique", "intellect", "empathie"] = "physique"
    helpers: int = Field(default=0, ge=0, le=3)
    modifiers: list[FabulaeModifierBody] = Field(default_factory=list, max_length=10)


class FabulaePanicCreate(RollBase):
    """FAB-44: 1D6 + stress on the panic table; the allies named share its stress effects."""

    kind: Literal["fabulae.panic"]
    character_id: uuid.UUID
    allies: list[uuid.UUID] = Field(default_factory=list, max_length=20)
    modifier: int = Field(default=0, ge=-3, le=3)


class FabulaeRecoverCreate(RollBase, FabulaeAlliesBody):
    """FAB-80..82: rest, a Soin roll, or the broken character's Résistance roll."""

    kind: Literal["fabulae.recover"]
    character_id: uuid.UUID = Field(description="the character who recovers")
    mode: RecoverMode
    duration: RestDuration | None = Field(
        default=None, description="rest: a quart clears Épuisé, a tour Énervé, a night both"
    )
    healer_id: uuid.UUID | None = Field(
        default=None, description="care: who rolls Soin (the patient: -2 dice)"
    )
    track: Track | None = Field(
        default=None, description="care: Soin with intellect heals the body, empathie the mind"
    )
    helpers: int = Field(default=0, ge=0, le=3)
    modifiers: list[FabulaeModifierBody] = Field(default_factory=list, max_length=10)


class FabulaeDestinyAwardCreate(RollBase):
    """FAB-30: the GM awards a Destiny point for a narrative feat."""

    kind: Literal["fabulae.destiny_award"]
    character_id: uuid.UUID
    reason: str = Field(default="", max_length=200)


class FabulaeAttackCreate(RollBase, FabulaeAlliesBody):
    """FAB-60..68: an attack, the defense, damage through armor and cover, states."""

    kind: Literal["fabulae.attack"]
    attacker_id: uuid.UUID
    target_id: uuid.UUID
    mode: Literal["melee", "ranged"]
    weapon: WeaponId | GrantedName = Field(
        description="FAB-71 weapon id (bare_hands needs no weapon), or the name of a weapon "
        "the GM added to the attacker's custom_weapons"
    )
    defense: Defense | None = Field(
        default=None,
        description="FAB-62: the defender's choice; left out, the attack waits for it "
        "(fabulae.defend) unless the target is the sender's NPC or cannot defend",
    )
    situation: list[str] = Field(
        default_factory=list, max_length=10, description="FAB-62/FAB-64 factor ids"
    )
    aimed: bool = Field(default=False, description="FAB-64: +2 dice (fine_gachette +3)")
    snap_shot: bool = Field(default=False, description="FAB-90: a fast Tir attack, -2 dice")
    burst: int = Field(default=1, ge=1, le=3, description="FAB-65: attacks in the burst")
    burst_fire: bool = Field(default=False, description="FAB-65: fire in bursts (+1 stress)")
    cover: Cover = Field(default=0, description="FAB-67 cover value")
    talents: list[TalentId] = Field(default_factory=list, max_length=5)
    modifiers: list[FabulaeModifierBody] = Field(default_factory=list, max_length=10)
    states: Literal["auto", "now", "pending"] = Field(
        default="auto",
        description="when damage checks states: now, or pending for the target's player to "
        "absorb or accept (auto: pending for PCs, now for NPCs)",
    )


class FabulaeGrappleCreate(RollBase, FabulaeAlliesBody):
    """FAB-63: grab the target; its only action is then to break free."""

    kind: Literal["fabulae.grapple"]
    attacker_id: uuid.UUID
    target_id: uuid.UUID
    defense: Defense | None = Field(
        default=None, description="FAB-62/63: the defender's choice, as for an attack"
    )
    modifiers: list[FabulaeModifierBody] = Field(default_factory=list, max_length=10)


class FabulaeDefendCreate(FollowUpBase):
    """FAB-62: the defender's answer to an attack or grapple that waits for it."""

    kind: Literal["fabulae.defend"]
    character_id: uuid.UUID = Field(description="the defender: the attack's target")
    defense: Defense = Field(description="parry (Combat), dodge (Athlétisme) or none")


class FabulaeBreakFreeCreate(RollBase, FabulaeAlliesBody):
    """FAB-63: the held character's opposed Combat roll."""

    kind: Literal["fabulae.break_free"]
    character_id: uuid.UUID


class FabulaeStrangleCreate(RollBase):
    """FAB-63: 1 net damage per round while the hold lasts."""

    kind: Literal["fabulae.strangle"]
    attacker_id: uuid.UUID
    target_id: uuid.UUID
    states: Literal["auto", "now", "pending"] = "auto"


class FabulaeSequelaCreate(RollBase):
    """FAB-50/FAB-55: a roll on a sequela table, its duration rolled."""

    kind: Literal["fabulae.sequela"]
    character_id: uuid.UUID
    table: Track
    weapon_mod: int = Field(default=0, ge=0, le=5)
    feats: int = Field(default=0, ge=0, le=20)
    butcher: bool = False


class FabulaeDeathTestCreate(RollBase):
    """FAB-51: Physique + Résistance when a lethal sequela's delay runs out."""

    kind: Literal["fabulae.death_test"]
    character_id: uuid.UUID
    sequela: int = Field(ge=0, le=29, description="index of the sequela on the sheet")


class FabulaeStabilizeCreate(RollBase, FabulaeAlliesBody):
    """FAB-52: an ally's Soin lengthens a lethal sequela's delay."""

    kind: Literal["fabulae.stabilize"]
    healer_id: uuid.UUID
    character_id: uuid.UUID
    sequela: int = Field(ge=0, le=29)


class FabulaeDangerCreate(RollBase):
    """FAB-73: fire, explosion, drowning, poison, disease, cold; FAB-55/73 (corrected):
    phobia, horror (mental damage), hunger and sleep (« Faim & Sommeil »)."""

    kind: Literal["fabulae.danger"]
    character_id: uuid.UUID
    danger: Danger
    intensity: int = Field(default=3, ge=0, le=30, description="dice of the fire, blast, venom")
    round: int = Field(default=1, ge=1, le=100, description="fire: +1 die each round")
    damage: int = Field(
        default=1,
        ge=0,
        le=10,
        description="explosion: the explosive's base; horror: the mental damage; hunger: 1 "
        "each week, 0 to mark the first 24 h without food",
    )
    medium_range: bool = Field(default=False, description="explosion: 6 dice fewer")
    phase: Literal["float", "underwater"] = "float"
    states: Literal["auto", "now", "pending"] = "auto"


class FabulaePowerCreate(RollBase, FabulaeAlliesBody):
    """FAB-100..102: spend PP (+1 stress each); numeric effects are applied."""

    kind: Literal["fabulae.power"]
    character_id: uuid.UUID
    power: str = Field(min_length=1, max_length=40, description="FAB-101 power id")
    pp: int = Field(ge=1, le=50)
    option: str | None = Field(
        default=None, max_length=20, description="resize grow|shrink, summon minor|major, ..."
    )
    targets: list[uuid.UUID] = Field(default_factory=list, max_length=20)
    states: Literal["auto", "now", "pending"] = "auto"


class FabulaeRepairCreate(RollBase, FabulaeAlliesBody):
    """FAB-67: a Bricolage roll restores worn armor."""

    kind: Literal["fabulae.repair"]
    character_id: uuid.UUID = Field(description="who repairs")
    owner_id: uuid.UUID = Field(description="whose armor")
    attribute: Literal["intellect", "habilete"] = "intellect"
    helpers: int = Field(default=0, ge=0, le=3)
    talents: list[TalentId] = Field(default_factory=list, max_length=5)
    modifiers: list[FabulaeModifierBody] = Field(default_factory=list, max_length=10)


class FabulaeSecondWindCreate(RollBase, FabulaeAlliesBody):
    """FAB-90 second_wind: once per session when Broken."""

    kind: Literal["fabulae.second_wind"]
    character_id: uuid.UUID


class FabulaeEndEffectCreate(RollBase):
    """FAB-102: the GM ends a power's effect on a character."""

    kind: Literal["fabulae.end_effect"]
    character_id: uuid.UUID
    source: str = Field(min_length=1, max_length=40, description="the power id")


class FabulaeReloadCreate(RollBase):
    """FAB-71: load a weapon back to capacity (FAB-90 quick_reload: a free action)."""

    kind: Literal["fabulae.reload"]
    character_id: uuid.UUID
    weapon: WeaponId | GrantedName = Field(
        description="FAB-71 weapon id, or the name of one of the character's custom_weapons"
    )


class FabulaeStreetRatCreate(FollowUpBase):
    """FAB-90 street_rat: reroll one failed die of a Furtivité or flight roll, in a city."""

    kind: Literal["fabulae.street_rat"]
    die: int = Field(ge=0, le=40, description="index of the die to reroll")


class FabulaeRoundCreate(RollBase):
    """FAB-50 (corrected): a round passes for these characters; their round-counted
    sequelae count down and lift at zero. An encounter records one at each new round."""

    kind: Literal["fabulae.round"]
    character_ids: list[uuid.UUID] = Field(min_length=1, max_length=50)


class FabulaeEndSequelaCreate(RollBase):
    """FAB-50/55 (corrected): the GM ends a sequela early (healed, or its time is up)."""

    kind: Literal["fabulae.end_sequela"]
    character_id: uuid.UUID
    sequela: int = Field(ge=0, le=29, description="the index of the sequela on the sheet")


class FabulaeAimCreate(RollBase):
    """FAB-64 (corrected): aim, a slow action; the next shot of the character gets +2."""

    kind: Literal["fabulae.aim"]
    character_id: uuid.UUID


class FabulaeEndBindingCreate(RollBase):
    """FAB-44: the GM ends a panic result that binds a combatant (tremors, flight,
    catatonia… last until then, or until the encounter ends)."""

    kind: Literal["fabulae.end_binding"]
    character_id: uuid.UUID
    code: Literal["tremors", "flee", "catatonia", "take_cover", "berserk", "frozen", "scream"]
