"""Roll requests of JDR Express (Dracula and Cthulhu): the bodies of POST .../rolls."""

from __future__ import annotations

import uuid
from typing import Literal

from pydantic import Field

from app.engine.bodies import FollowUpBody as FollowUpBase
from app.engine.bodies import RollBody as RollBase
from app.engine.contract import Model
from app.engine.rulesets.jdr.core import JdrContext
from app.engine.rulesets.jdr.sheet import TraitName


class JdrActionCreate(RollBase):
    """JDR-10..14: 2D6 + trait + talent + modifier."""

    kind: Literal["jdr.action"]
    character_id: uuid.UUID
    trait: TraitName
    talent: str | None = Field(default=None, max_length=60, description="a talent on the sheet")
    modifier: int = Field(default=0, ge=-5, le=5, description="GM modifier")
    advantage: bool = False
    disadvantage: bool = False
    difficulty: int | None = Field(default=None, ge=2, le=40, description="JDR-13")
    context: JdrContext = Field(default_factory=JdrContext)
    no_talent_bonus: bool = Field(
        default=False,
        description="JDR-31a: a PC caught off guard gets no talent bonus in the first round "
        "(encounters set it)",
    )


class JdrTalismanCreate(FollowUpBase):
    """JDR-20..23 [D]: the player invokes the Talisman with their words."""

    kind: Literal["jdr.talisman"]
    words: str = Field(min_length=1, max_length=1000, description="the word of faith, spoken")


class JdrTalismanRulingCreate(FollowUpBase):
    """JDR-21 [D]: the GM judges the invocation's sincerity."""

    kind: Literal["jdr.talisman_ruling"]
    sincere: bool


class JdrEffleurementCreate(FollowUpBase):
    """JDR-28 [C]: accept a durable mark for a complete success."""

    kind: Literal["jdr.effleurement"]
    mark: str = Field(min_length=1, max_length=200, description="the mark, as the player tells it")


class JdrEffleurementRefusalCreate(FollowUpBase):
    """JDR-29 [C]: the GM refuses an Effleurement; it is undone."""

    kind: Literal["jdr.effleurement_refusal"]
    reason: str = Field(default="", max_length=500)


class JdrJokerCreate(FollowUpBase):
    """JDR-25: reroll a roll of direct peril (an action, an attack, a Mythos test the GM
    marked); the new result is final."""

    kind: Literal["jdr.joker"]
    character_id: uuid.UUID | None = Field(
        default=None,
        description="on an attack, the PC who spends the Joker (its attacker or its target); "
        "by default the one the caller plays",
    )


class JdrContextCreate(FollowUpBase):
    """JDR-14: the GM amends a disputed context before a follow-up is applied."""

    kind: Literal["jdr.context"]
    context: JdrContext


class JdrWeapon(Model):
    """A weapon as the attack uses it (JDR-30, JDR-32, JDR-36/37): read from the attacker's
    sheet, or the GM's improvised weapon with its own values."""

    name: str = Field(min_length=1, max_length=60)
    item: str | None = Field(
        default=None, max_length=60, description="its id in the sources' weapons, if it is one"
    )
    custom: bool = Field(
        default=False,
        description="a custom item of the attacker's sheet: its values are read there, where "
        "an NPC's stay hidden from the players (FAIR-18)",
    )
    bonus: int = Field(default=0, ge=0, le=5, description="added to the attack (JDR-30)")
    damage_bonus: int = Field(
        default=0, ge=0, le=5, description="steps added before the margin is read (JDR-32)"
    )
    tags: list[Literal["ash_stake", "silver", "supernatural"]] = Field(
        default_factory=list,
        max_length=3,
        description="JDR-36/37 against creatures; supernatural: what the GM says wounds a werewolf",
    )


class JdrAttackContext(Model):
    """What the attack is against."""

    supernatural: bool = Field(default=False, description="the target is a proven creature")


class JdrAttackCreate(RollBase):
    """JDR-30..38: attack against the target's Defense; the wound lands on its sheet."""

    kind: Literal["jdr.attack"]
    attacker_id: uuid.UUID
    target_id: uuid.UUID
    weapon: str | JdrWeapon | None = Field(
        default=None,
        description="a weapon the attacker's sheet lists (its catalog id, or the name of a "
        "custom item the GM added); none is bare hands. Only the GM improvises a weapon with "
        "its own values (JDR-32, corrected)",
    )
    short_range: bool = Field(default=False, description="[C] the hunting rifle's +2 (JDR-32)")
    advantage: bool = False
    disadvantage: bool = False
    context: JdrAttackContext = Field(default_factory=JdrAttackContext)
    sleeping_target: bool = Field(
        default=False,
        description="JDR-36: staking a sleeping vampire; refused against a combatant of the "
        "same encounter, who is awake",
    )


class JdrHolyWaterCreate(RollBase):
    """JDR-35 [D]: holy water thrown at a vampire: one light wound, no roll."""

    kind: Literal["jdr.holy_water"]
    attacker_id: uuid.UUID
    target_id: uuid.UUID


class JdrCombatant(Model):
    """A combatant called to initiative, and how the fight catches them (JDR-31a)."""

    character_id: uuid.UUID
    surprise: bool = Field(default=False, description="JDR-31a: +2 for the first round")
    off_guard: bool = Field(default=False, description="JDR-31a: acts last in the first round")


class JdrInitiativeCreate(RollBase):
    """JDR-30a/31/31a: 2D6 + physique, once per scene (GM)."""

    kind: Literal["jdr.initiative"]
    combatants: list[JdrCombatant] = Field(min_length=1, max_length=50)
    order: list[uuid.UUID] | None = Field(
        default=None, max_length=50, description="the players' choice between tied PCs"
    )


class JdrMythosCreate(RollBase):
    """JDR-40..42 [C]: a Mental test against forbidden knowledge."""

    kind: Literal["jdr.mythos"]
    character_id: uuid.UUID
    difficulty: int = Field(ge=2, le=40, description="9 a letter, 12 a grimoire, 15+ worse")
    source: str = Field(min_length=1, max_length=200, description="what was read or seen")
    detail: str | None = Field(default=None, max_length=200, description="the mark's wording")
    talent: str | None = Field(
        default=None, max_length=60, description="a talent on the sheet (JDR-40, corrected)"
    )
    advantage: bool = False
    disadvantage: bool = False
    direct_peril: bool = Field(
        default=False, description="the GM marks the test as direct peril: the Joker may reroll it"
    )


class JdrMarkCreate(FollowUpBase):
    """JDR-41 [C]: the player or the GM words the mark a Mythos success left pending."""

    kind: Literal["jdr.mark"]
    wording: str = Field(
        min_length=1, max_length=200, description="a nightmare, an aversion, a foreign word"
    )


class JdrEventBase(RollBase):
    character_id: uuid.UUID
    description: str = Field(default="", max_length=500)


class JdrSacrificeCreate(JdrEventBase):
    """JDR-29a [C]: a sacrifice of knowledge recharges the Effleurement (GM)."""

    kind: Literal["jdr.sacrifice"]


class JdrPenanceCreate(JdrEventBase):
    """JDR-24 [D]: a penance scene restores a cracked talisman (GM)."""

    kind: Literal["jdr.penance"]


class JdrMedicalCareCreate(JdrEventBase):
    """JDR-3: medical care lifts the Disadvantage of serious wounds (GM)."""

    kind: Literal["jdr.medical_care"]
