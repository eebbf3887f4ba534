"""Weapons and armor kept up: reloading (FAB-71, FAB-90 quick_reload) and repairs (FAB-67)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

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
from app.engine.errors import InvalidInput, refusal
from app.engine.rulesets.fabulae.acting import check_may_act
from app.engine.rulesets.fabulae.bodies import FabulaeReloadCreate, FabulaeRepairCreate
from app.engine.rulesets.fabulae.body import Body
from app.engine.rulesets.fabulae.combat import reload_cost, slow_action
from app.engine.rulesets.fabulae.damage import weapon_of
from app.engine.rulesets.fabulae.labels import text
from app.engine.rulesets.fabulae.pools import (
    SYSTEM,
    FabulaeClock,
    FabulaeDice,
    FabulaeDiceModifier,
    FabulaePool,
    FabulaeRollInputs,
    action_roll,
    has_talent,
)
from app.engine.rulesets.fabulae.sheet import FabulaeCharacter, armor_base
from app.engine.rulesets.fabulae.stress import (
    SETS_OFF_PANIC,
    aftermath,
    impossible_pool,
    panicked,
    roll_summary,
    rolled_outcome,
)
from app.engine.rulesets.fabulae.tables import Attribute, TalentId

# --- fabulae.repair (FAB-67) ----------------------------------------------------------------

if TYPE_CHECKING:
    from app.engine.odds import Odds


class FabulaeRepairRequest(FabulaeClock):
    character: FabulaeCharacter = Field(description="who repairs")
    owner: FabulaeCharacter = Field(description="whose armor")
    attribute: Attribute = "intellect"
    helpers: int = 0
    talents: list[TalentId] = Field(default_factory=list)
    modifiers: list[FabulaeDiceModifier] = Field(default_factory=list)


class FabulaeRepairResult(FabulaeDice):
    pool: FabulaePool
    armor_value: int | None = None


def prepare_repair(body: FabulaeRepairCreate, table: Table) -> Prepared[FabulaeRepairRequest]:
    mechanic = table.acting(body.character_id, FabulaeCharacter)
    owner = table.character(body.owner_id, FabulaeCharacter)
    request = FabulaeRepairRequest(
        system=SYSTEM,
        session=table.session,
        scene=table.scene,
        character=mechanic,
        owner=owner,
        attribute=body.attribute,
        helpers=body.helpers,
        talents=list(body.talents),
        modifiers=[FabulaeDiceModifier(source=m.source, dice=m.dice) for m in body.modifiers],
    )
    return Prepared(request, character_id=mechanic.id, visibility=body.visibility)


def resolve_repair(
    request: FabulaeRepairRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[FabulaeRepairResult]:
    """FAB-67: a Bricolage roll restores worn armor, one point per success and per Prouesse."""
    check_may_act(request.character, "fabulae.repair", version)
    mechanic, owner = request.character, request.owner
    body = Body(owner)
    armor = body.sheet.armor
    if not armor:
        raise refusal("FAB-67", f"{owner.name} wears no armor")
    base = armor_base(body.sheet)  # the catalog's, or the GM's own armor's
    if armor.value >= base:
        raise refusal("FAB-67", f"the {armor.id} is whole ({base}); nothing to repair")
    roll = FabulaeRollInputs(
        attribute=request.attribute,
        skill="bricolage",
        helpers=request.helpers,
        talents=list(request.talents),
        modifiers=list(request.modifiers),
    )
    rolled, effects = action_roll(mechanic, roll, request.session, dice)
    result = FabulaeRepairResult(**rolled.model_dump(exclude_unset=True))
    if result.outcome == "success":
        restored = min(base, armor.value + 1 + result.feats)
        body.sheet.armor = armor.model_copy(update={"value": restored})
        result.armor_value = restored
    return Resolution(result, effects + body.effects("FAB-67"))


def after_repair(
    prepared: Prepared[FabulaeRepairRequest], resolution: Resolution[FabulaeRepairResult], seq: int
) -> Aftermath:
    result = resolution.result
    who = [prepared.request.character.id] if panicked(result) else []
    pool = impossible_pool(result.outcome, result.pool)
    return aftermath(who, prepared.visibility, impossible_pool=pool, seq=seq)


def repair_summary(
    request: FabulaeRepairRequest, result: FabulaeRepairResult, language: Language
) -> str:
    what = "Réparer" if language == "fr" else "Repair"
    armor = request.owner.sheet.armor
    name = text("armor", armor.id, language) if armor else ""
    line = roll_summary(request.character.name, f"{what} {name}".strip(), result, language)
    if result.armor_value is not None:
        line += f" ({result.armor_value})"
    return line


def repair_odds_of(request: FabulaeRepairRequest, version: RulesVersion) -> Odds:
    """Issue 21: the exact odds (odds_gear.py, which builds on this module)."""
    from app.engine.rulesets.fabulae.odds_gear import repair_odds

    return repair_odds(request, version)


REPAIR: RollKind[FabulaeRepairCreate, FabulaeRepairRequest, FabulaeRepairResult] = RollKind(
    name="fabulae.repair",
    gm_decides=(("modifiers", "FAB-14"),),
    npc_values=(
        ("/pool", "/character"),
        ("/armor_value", "/owner"),
    ),
    cost=slow_action,
    title="Armor repair",
    body=FabulaeRepairCreate,
    request=FabulaeRepairRequest,
    result=FabulaeRepairResult,
    prepare=prepare_repair,
    resolve=resolve_repair,
    summary=repair_summary,
    after=after_repair,
    triggers=SETS_OFF_PANIC,
    outcome=rolled_outcome,
    odds=repair_odds_of,
)


# --- fabulae.reload (FAB-71) ----------------------------------------------------------------


class FabulaeReloadRequest(FabulaeClock):
    character: FabulaeCharacter
    weapon: str


class FabulaeReloadResult(Model):
    weapon: str
    ammo: int
    action: Literal["free", "fast", "slow"] = Field(description="what reloading took (FAB-60)")


def prepare_reload(body: FabulaeReloadCreate, table: Table) -> Prepared[FabulaeReloadRequest]:
    character = table.acting(body.character_id, FabulaeCharacter)
    request = FabulaeReloadRequest(
        system=SYSTEM,
        session=table.session,
        scene=table.scene,
        character=character,
        weapon=body.weapon,
    )
    return Prepared(request, character_id=character.id, visibility=body.visibility)


def resolve_reload(
    request: FabulaeReloadRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[FabulaeReloadResult]:
    """FAB-71: a weapon is loaded back to its capacity (quick_reload makes it free, FAB-90)."""
    check_may_act(request.character, "fabulae.reload", version)
    body = Body(request.character)
    weapon_id = request.weapon
    weapon, carried = weapon_of(body.sheet, weapon_id)
    if carried is None or weapon.ammo is None:
        raise InvalidInput(f"the {weapon_id} takes no ammunition")
    if (carried.ammo or 0) >= weapon.ammo:
        raise refusal("FAB-71", f"the {weapon_id} is already loaded ({weapon.ammo})")
    body.sheet.weapons = [
        w.model_copy(update={"ammo": weapon.ammo}) if w.id == weapon_id else w
        for w in body.sheet.weapons
    ]
    light = weapon.hands == 1
    free = light and has_talent(body.sheet, "quick_reload")
    action: Literal["free", "fast", "slow"] = "free" if free else ("slow" if not light else "fast")
    result = FabulaeReloadResult(weapon=weapon_id, ammo=weapon.ammo, action=action)
    return Resolution(result, body.effects("FAB-71"))


def reload_summary(
    request: FabulaeReloadRequest, result: FabulaeReloadResult, language: Language
) -> str:
    what = "recharge" if language == "fr" else "reloads"
    weapon = text("weapon", result.weapon, language)
    return f"{request.character.name} {what} {weapon} ({result.ammo})"


RELOAD: RollKind[FabulaeReloadCreate, FabulaeReloadRequest, FabulaeReloadResult] = RollKind(
    name="fabulae.reload",
    cost=reload_cost,
    title="Reload",
    body=FabulaeReloadCreate,
    request=FabulaeReloadRequest,
    result=FabulaeReloadResult,
    prepare=prepare_reload,
    resolve=resolve_reload,
    summary=reload_summary,
    is_roll=False,
    outcome=lambda result: Outcome("weapon", result.weapon),
)
