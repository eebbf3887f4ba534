"""Powers (FAB-100..102): activation spends Power Points and adds one stress per PP to the
caster. The powers whose effect is a number are applied: damage through armor, armor and
dice modifiers as active effects on their targets (until the GM ends them or the scene
ends, FAB-102), drain and calm on the sheets, horror as panic rolls. The others are
recorded with their cost."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from pydantic import Field

from app.engine.contract import (
    Aftermath,
    Effect,
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
from app.engine.rulesets.fabulae.bodies import FabulaeEndEffectCreate, FabulaePowerCreate
from app.engine.rulesets.fabulae.body import Body
from app.engine.rulesets.fabulae.combat import slow_action
from app.engine.rulesets.fabulae.damage import FabulaeProtection, protect
from app.engine.rulesets.fabulae.labels import text
from app.engine.rulesets.fabulae.pools import (
    CORRECTED,
    SYSTEM,
    FabulaeClock,
    FabulaeDice,
    FabulaeOpposition,
    FabulaePool,
    FabulaeRollInputs,
    action_roll,
    opposition,
    pool_of,
)
from app.engine.rulesets.fabulae.sequelae import no_context
from app.engine.rulesets.fabulae.sheet import ActiveEffect, FabulaeCharacter
from app.engine.rulesets.fabulae.states import (
    FabulaePending,
    FabulaeThreatened,
    StatesChoice,
    land_state,
    settle_now,
    threats,
)
from app.engine.rulesets.fabulae.stress import SETS_OFF_PANIC, aftermath, panic_follow_on, panicked
from app.engine.rulesets.fabulae.tables import POWERS

if TYPE_CHECKING:  # odds_power.py builds on this module
    from app.engine.odds import Odds

CASTER_ROLL: Final = FabulaeRollInputs(attribute="intellect", skill="connaissance")
# FAB-101 drain: the target resists with Intellect alone; 1D3 PP are stolen.
DRAIN_RESIST: Final = FabulaeRollInputs(attribute="intellect", skill=None)
DRAIN_DIE: Final = 3
# The powers whose effect hangs on the caster's roll (FAB-101).
ROLLED: Final = frozenset({"bolt", "light_dark", "silence_noise", "drain"})
# Least PP each power (or option) costs (FAB-101; 1 unless stated).
MIN_COST: Final[dict[str, dict[str | None, int]]] = {
    "beast_command": {None: 1, "small": 1, "mastiff": 2, "massive": 3},
    "summon": {"minor": 3, "major": 5},
    "teleport": {None: 1, "short": 1, "medium": 4, "long": 8},
}
DAMAGE_POWERS: Final = frozenset({"bolt", "fire_cone", "blast", "hazard_zone"})
ONE_TARGET: Final = frozenset({"bolt", "drain", "calm", "barrier", "deflection", "invisibility"})
# FAB-102 (corrected) light_dark: « toutes les compétences basées sur la vue ».
SIGHT_SKILLS: Final = ("observation", "tir")
# FAB-102 (corrected) calm dissipates one of these, the worse by default (later on the track).
CALMED: Final = ("demoralise", "apeure")
# FAB-102: the dice a power gives its bearers: skill, dice.
SKILL_POWERS: Final = {
    "far_sight": ("observation", 2),
    "tongues": ("connaissance", 1),
    "wall_walk": ("athletisme", 2),
}


def least_cost(power: str, option: str | None) -> int:
    costs = MIN_COST.get(power)
    if costs is None:
        return 1
    if option not in costs:
        choices = ", ".join(str(o) for o in costs if o is not None)
        raise InvalidInput(f"{power} takes an option: {choices}")
    return costs[option]


class FabulaePowerRequest(FabulaeClock):
    caster: FabulaeCharacter
    targets: list[FabulaeCharacter] = Field(default_factory=list)
    power: str
    pp: int
    option: str | None = None
    states: StatesChoice = "auto"
    powers_allowed: bool = Field(default=False, description="the campaign's option (FAB-100)")


class FabulaePowerHit(FabulaeThreatened):
    """What a damaging power did to one target."""

    save: FabulaeDice | None = None
    damage: int
    protection: FabulaeProtection | None
    through: int
    meurtri: bool | None = Field(default=None, description="blast: Meurtri threatened")


class FabulaeWall(Model):
    metres: int
    armor: int
    breaks_at_net_damage: int


class FabulaeHorror(Model):
    """FAB-102 horror: who rolls on the panic table, and the modifier."""

    characters: list[str]
    modifier: int


class FabulaePowerResult(Model):
    power: str
    option: str | None
    pp: int
    stress_gained: int
    applied: bool = Field(description="False when the power is left to the GM's narration")
    roll: FabulaeDice | FabulaeOpposition | None = None
    targets: dict[str, FabulaePowerHit] | None = None
    wall: FabulaeWall | None = None
    malus: int | None = None
    stolen: int | None = None
    must_roll_panic: FabulaeHorror | None = None


def save_roll(skill: str) -> FabulaeRollInputs:
    """FAB-102: a target's save against fire_cone (Athlétisme) or blast (Résistance)."""
    return FabulaeRollInputs.model_validate({"attribute": "physique", "skill": skill})


# FAB-102: the damage of a power that hurts, before armor: bolt's 2 + its Prouesses,
# fire_cone's 2 (1 when the target's save succeeds), blast's and hazard_zone's 2.
BOLT_DAMAGE: Final = 2
FIRE_CONE_DAMAGE: Final = {False: 2, True: 1}
BLAST_DAMAGE: Final = 2
HAZARD_DAMAGE: Final = 2
SAVES: Final = {"fire_cone": "athletisme", "blast": "resistance"}


class Casting:
    """A power being applied: the caster's and the targets' sheets, the result so far."""

    def __init__(
        self, request: FabulaePowerRequest, dice: DiceSource, version: RulesVersion
    ) -> None:
        self.request = request
        self.dice = dice
        self.version = version
        self.power = request.power
        self.caster = Body(request.caster)
        self.bodies = {target.id: Body(target) for target in request.targets}
        if request.caster.id in self.bodies:
            self.bodies[request.caster.id] = self.caster
        self.result = FabulaePowerResult(
            power=request.power,
            option=request.option,
            pp=request.pp,
            stress_gained=request.pp,
            applied=False,
        )

    def add_effect(self, body: Body, **values: object) -> None:
        fields: dict[str, object] = {
            "source": self.power,
            "caster_id": self.request.caster.id,
            "scene": self.request.scene,
            "armor": 0,
            "attacks_against": 0,
            "all_rolls": 0,
            "skills": {},
            "attributes": {},
            "melee_damage": 0,
            "net_damage": 0,
            "note": "",
        }
        fields.update(values)
        active = ActiveEffect.model_validate(fields)
        body.sheet.active_effects = [*body.sheet.active_effects, active]

    def spend(self) -> None:
        """FAB-100: the PP spent, +1 stress per PP, on the caster's sheet."""
        sheet = self.request.caster.sheet
        self.caster.sheet.pp = sheet.pp - self.request.pp
        self.caster.sheet.stress = sheet.stress + self.request.pp

    def roller(self) -> FabulaeCharacter:
        """The caster as its activation roll reads it."""
        caster = self.request.caster
        if self.version >= CORRECTED:
            # FAB-100/FAB-15 (corrected): the activation roll counts the stress its PP add.
            caster = caster.model_copy(update={"sheet": self.caster.sheet})
        return caster

    def caster_roll(self) -> FabulaeDice:
        roll, _ = action_roll(self.roller(), CASTER_ROLL, self.request.session, self.dice)
        self.result.roll = roll
        return roll

    def save(self, body: Body, skill: str) -> FabulaeDice:
        save, _ = action_roll(body.character, save_roll(skill), self.request.session, self.dice)
        return save

    def hurt(self, body: Body, damage: int, armor: bool = True) -> FabulaePowerHit:
        through, protection = protect(body, damage, 0, self.dice) if armor else (damage, None)
        now = settle_now(self.request.states, body.character)
        threatened = threats(
            body, through, "physical", "FAB-102", self.dice, no_context(), now, version=self.version
        )
        return FabulaePowerHit(
            damage=damage,
            protection=protection,
            through=through,
            **threatened.model_dump(exclude_unset=True),
        )


def apply_damage(casting: Casting) -> None:
    """FAB-102: bolt, fire_cone, blast and hazard_zone, through armor or not."""
    hits: dict[str, FabulaePowerHit] = {}
    power = casting.power
    if power == "bolt":
        roll = casting.caster_roll()
        if roll.outcome == "success":
            ((target_id, body),) = casting.bodies.items()
            hits[target_id] = casting.hurt(body, BOLT_DAMAGE + roll.feats)
    for target_id, body in casting.bodies.items():
        if power == "fire_cone":
            save = casting.save(body, SAVES[power])
            hit = casting.hurt(body, FIRE_CONE_DAMAGE[save.outcome == "success"])
            hits[target_id] = FabulaePowerHit(save=save, **hit.model_dump(exclude_unset=True))
        elif power == "blast":
            save = casting.save(body, SAVES[power])
            hit = casting.hurt(body, BLAST_DAMAGE)
            hit = FabulaePowerHit(save=save, **hit.model_dump(exclude_unset=True))
            if save.outcome != "success":
                # Meurtri is a state about to be checked: absorbable like any (FAB-34).
                hit.meurtri = True
                if settle_now(casting.request.states, body.character):
                    if "meurtri" not in body.sheet.states:
                        body.sheet.states = [*body.sheet.states, "meurtri"]
                    else:
                        land_state(body, "physical", casting.dice, no_context())
                else:
                    threat = FabulaePending(rule="FAB-102", state="meurtri", sequela=no_context())
                    hit.pending_states = [*(hit.pending_states or []), threat]
                    if casting.version >= CORRECTED:
                        body.sheet.states_pending += 1  # FAB-34: shown on the character
            hits[target_id] = hit
        elif power == "hazard_zone":
            hits[target_id] = casting.hurt(body, HAZARD_DAMAGE, armor=False)  # net damage
    casting.result.targets = hits


def apply(casting: Casting) -> bool:
    """FAB-102: the numeric effects; False when the power is left to the GM's narration."""
    power, option, bodies = casting.power, casting.request.option, casting.bodies
    result = casting.result
    if power in DAMAGE_POWERS:
        apply_damage(casting)
    elif power == "barrier":
        for body in bodies.values():
            casting.add_effect(body, armor=2)
    elif power == "wall":
        result.wall = FabulaeWall(metres=casting.request.pp, armor=4, breaks_at_net_damage=3)
    elif power == "deflection":
        # FAB-102 (corrected): -3 to every physical attack on the bearer, as invisibility.
        against = -3 if casting.version >= CORRECTED else -2
        for body in bodies.values():
            casting.add_effect(body, attacks_against=against)
    elif power == "invisibility":
        for body in bodies.values():
            casting.add_effect(body, attacks_against=-3, skills={"furtivite": 3})
    elif power in ("light_dark", "silence_noise"):
        roll = casting.caster_roll()
        malus = dimming(roll, casting.version)
        if malus is None:
            return True  # FAB-42/FAB-101: a failed or panicked roll changes nothing
        sight = SIGHT_SKILLS if power == "light_dark" and casting.version >= CORRECTED else ()
        skills = dict.fromkeys(sight or ("observation",), malus)
        for body in bodies.values():
            casting.add_effect(body, skills=skills)
        result.malus = malus
    elif power in SKILL_POWERS:
        skill, bonus = SKILL_POWERS[power]
        for body in list(bodies.values()) or [casting.caster]:
            casting.add_effect(body, skills={skill: bonus})
    elif power == "resize":
        if option not in ("grow", "shrink"):
            raise InvalidInput("resize takes an option: grow or shrink")
        for body in list(bodies.values()) or [casting.caster]:
            if option == "grow":
                casting.add_effect(body, attributes={"physique": 1}, melee_damage=1)
            else:
                casting.add_effect(body, attributes={"physique": -1}, skills={"furtivite": 1})
    elif power == "drain":
        drain(casting)
    elif power == "calm":
        for body in bodies.values():
            calm(casting, body)
    elif power == "horror":
        # FAB-102 (corrected): « un malus de -1 dé » on the panic table makes it worse: +1.
        modifier = 1 if casting.version >= CORRECTED else -1
        result.must_roll_panic = FabulaeHorror(characters=list(bodies), modifier=modifier)
    elif power == "enchant_weapon" and casting.version >= CORRECTED:
        # FAB-102 (corrected): +1 net damage on every successful Combat or Tir attack.
        for body in list(bodies.values()) or [casting.caster]:
            casting.add_effect(body, net_damage=1)
    else:
        return False
    return True


def dimming(roll: FabulaeDice, version: RulesVersion) -> int | None:
    """FAB-102 light_dark, silence_noise: the malus the caster's roll sets, −4 with a
    Prouesse; None when it changes nothing (corrected: a roll that did not succeed)."""
    if version >= CORRECTED and roll.outcome != "success":
        return None
    return -4 if roll.outcome == "success" and roll.feats else -2


def calm(casting: Casting, body: Body) -> None:
    """FAB-102 calm: all stress and Épuisé go, and Apeuré or Démoralisé (corrected: one, the
    caster's `option`, by default the worse one checked)."""
    removed = {"apeure", "demoralise", "epuise"}
    if casting.version >= CORRECTED:
        checked = [state for state in CALMED if state in body.sheet.states]
        removed = {"epuise", casting.request.option or (checked[0] if checked else "apeure")}
    body.sheet.states = [s for s in body.sheet.states if s not in removed]
    body.sheet.stress = 0


def drain(casting: Casting) -> None:
    """FAB-101 drain: opposed Intellect; steal 1D3 PP, never above the caster's pp_max."""
    ((_, body),) = casting.bodies.items()
    roll = casting.caster_roll()
    resist, _ = action_roll(body.character, DRAIN_RESIST, casting.request.session, casting.dice)
    opposed = opposition(roll, resist, casting.version)
    casting.result.roll = opposed
    if opposed.outcome == "success":
        stolen = min(casting.dice.roll(DRAIN_DIE), body.sheet.pp)
        body.sheet.pp = body.sheet.pp - stolen
        caster = casting.caster.sheet
        caster.pp = min(caster.pp_max, caster.pp + stolen)
        casting.result.stolen = stolen


def prepare_power(body: FabulaePowerCreate, table: Table) -> Prepared[FabulaePowerRequest]:
    caster = table.acting(body.character_id, FabulaeCharacter)
    if len(set(body.targets)) != len(body.targets):
        raise InvalidInput("a character is listed twice")
    targets = [table.character(target, FabulaeCharacter) for target in body.targets]
    request = FabulaePowerRequest(
        system=SYSTEM,
        session=table.session,
        scene=table.scene,
        caster=caster,
        targets=targets,
        power=body.power,
        pp=body.pp,
        option=body.option,
        states=body.states,
        powers_allowed=bool(table.options.get("powers_allowed")),
    )
    return Prepared(request, character_id=caster.id, visibility=body.visibility)


@dataclass(frozen=True)
class PowerPlan:
    """What a power rolls, read before any die: the caster's activation pool, and whether
    an activation that hangs on it is impossible (FAB-14, corrected)."""

    pool: FabulaePool
    impossible: bool


def power_plan(request: FabulaePowerRequest, version: RulesVersion) -> PowerPlan:
    """Every refusal a power makes before the dice (FAB-100, FAB-101): resolve and its
    odds read it alike."""
    check_may_act(request.caster, "fabulae.power", version)
    if not request.powers_allowed:
        raise refusal(
            "FAB-100", "this campaign does not allow powers (campaign option powers_allowed)"
        )
    caster = request.caster
    sheet = caster.sheet
    power, option = request.power, request.option
    if power not in POWERS:
        raise InvalidInput(f"unknown power {power!r} (FAB-101 lists the power ids)")
    if power not in sheet.powers:
        raise refusal("FAB-100", f"{caster.name} does not have the power {power}")
    pp = request.pp
    least = least_cost(power, option)
    if pp < least:
        raise InvalidInput(
            f"{power}{' (' + option + ')' if option else ''} costs at least {least} PP"
        )
    if pp > sheet.pp:
        raise refusal("FAB-100", f"{power} needs {pp} PP; {caster.name} has {sheet.pp}")
    if power in ONE_TARGET and len(request.targets) != 1:
        raise InvalidInput(f"{power} takes exactly one target")
    if power == "calm" and version >= CORRECTED and option not in (None, *CALMED):
        raise InvalidInput("calm takes an option: apeure or demoralise (the worse by default)")
    pool = pool_of(caster, CASTER_ROLL, request.session)
    # FAB-14 (corrected): an impossible activation draws no die and spends nothing.
    return PowerPlan(pool, version >= CORRECTED and power in ROLLED and pool.pool <= 0)


def resolve_power(
    request: FabulaePowerRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[FabulaePowerResult]:
    """FAB-100..102: spend PP (+1 stress each), then apply what the engine can."""
    plan = power_plan(request, version)
    power, option, pp = request.power, request.option, request.pp
    if plan.impossible:
        impossible = FabulaeDice(pool=plan.pool, outcome="impossible", dice=[], stress_dice=[])
        return Resolution(
            FabulaePowerResult(
                power=power, option=option, pp=pp, stress_gained=0, applied=False, roll=impossible
            )
        )
    casting = Casting(request, dice, version)
    casting.spend()
    casting.result.applied = apply(casting)
    effects: list[Effect] = casting.caster.effects("FAB-100")
    for target_id, body in casting.bodies.items():
        if target_id != request.caster.id:
            effects += body.effects("FAB-102")
    return Resolution(casting.result, effects)


def after_power(
    prepared: Prepared[FabulaePowerRequest], resolution: Resolution[FabulaePowerResult], seq: int
) -> Aftermath:
    """FAB-102 horror: each target rolls on the panic table (+1), each its own entry; then
    FAB-42's panic rolls of whoever rolled a stress 1."""
    request, result = prepared.request, resolution.result
    horror = []
    if result.must_roll_panic is not None:
        modifier = result.must_roll_panic.modifier
        horror = [
            panic_follow_on(target_id, prepared.visibility, modifier)
            for target_id in result.must_roll_panic.characters
        ]
    who: list[str | None] = []
    roll = result.roll
    if isinstance(roll, FabulaeOpposition):
        if panicked(roll.active):
            who.append(request.caster.id)
        if panicked(roll.passive) and len(request.targets) == 1:
            who.append(request.targets[0].id)
    elif panicked(roll):
        who.append(request.caster.id)
    for target_id, hit in (result.targets or {}).items():
        if panicked(hit.save):
            who.append(target_id)
    pool = None
    if isinstance(roll, FabulaeDice) and roll.outcome == "impossible" and roll.pool is not None:
        pool = roll.pool.pool
    return aftermath(who, prepared.visibility, first=horror, impossible_pool=pool, seq=seq)


def power_summary(
    request: FabulaePowerRequest, result: FabulaePowerResult, language: Language
) -> str:
    """« Ada — Trait (2 PP) → Carl, Succès »: the targets and how the caster's roll read."""
    line = f"{request.caster.name} — {text('power', result.power, language)} ({result.pp} PP)"
    if request.targets:
        line += " → " + ", ".join(target.name for target in request.targets)
    outcome = power_outcome(result)
    return f"{line}, {text(outcome.group, outcome.code, language)}"


def power_outcome(result: FabulaePowerResult) -> Outcome:
    """How the caster's roll read, for a power that rolls; else applied or narrated."""
    roll = result.roll
    if roll is not None:
        return Outcome("outcome", roll.outcome)
    return Outcome("result", "applied" if result.applied else "narrated")


def power_odds_of(request: FabulaePowerRequest, version: RulesVersion) -> Odds:
    """Issue 21: the exact odds (odds_power.py, which builds on this module)."""
    from app.engine.rulesets.fabulae.odds_power import power_odds

    return power_odds(request, version)


POWER: RollKind[FabulaePowerCreate, FabulaePowerRequest, FabulaePowerResult] = RollKind(
    name="fabulae.power",
    other_side=(("states", "targets", "FAB-34"),),
    asks_other_side=frozenset({"states"}),
    npc_values=(
        ("/roll/pool", "/caster"),
        ("/roll/active/pool", "/caster"),
        ("/roll/passive/pool", "/targets/*"),
        # An NPC target's armor, protection dice, save and states, as an attack's (FAIR-18);
        # a power on several targets hides them all when one of them is an NPC.
        ("/targets/*/protection", "/targets/*"),
        ("/targets/*/save/pool", "/targets/*"),
        ("/targets/*/states_checked", "/targets/*"),
        ("/targets/*/pending_states", "/targets/*"),
    ),
    cost=slow_action,
    title="Power",
    body=FabulaePowerCreate,
    request=FabulaePowerRequest,
    result=FabulaePowerResult,
    prepare=prepare_power,
    resolve=resolve_power,
    summary=power_summary,
    after=after_power,
    triggers=SETS_OFF_PANIC,
    outcome=power_outcome,
    odds=power_odds_of,
)


# --- fabulae.end_effect (FAB-102) -----------------------------------------------------------


class FabulaeEndEffectRequest(FabulaeClock):
    character: FabulaeCharacter
    source: str = Field(description="the power id")


class FabulaeEndEffectResult(Model):
    ended: str


def prepare_end_effect(
    body: FabulaeEndEffectCreate, table: Table
) -> Prepared[FabulaeEndEffectRequest]:
    character = table.character(body.character_id, FabulaeCharacter)
    request = FabulaeEndEffectRequest(
        system=SYSTEM,
        session=table.session,
        scene=table.scene,
        character=character,
        source=body.source,
    )
    return Prepared(request, character_id=character.id, visibility=body.visibility)


def resolve_end_effect(
    request: FabulaeEndEffectRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[FabulaeEndEffectResult]:
    """FAB-102: the GM ends a power's effect on a character."""
    body = Body(request.character)
    source = request.source
    kept = [e for e in body.sheet.active_effects if e.source != source]
    if len(kept) == len(body.sheet.active_effects):
        raise refusal("FAB-102", f"no effect of {source} is active on {request.character.name}")
    body.sheet.active_effects = kept
    return Resolution(FabulaeEndEffectResult(ended=source), body.effects("FAB-102"))


def end_effect_summary(
    request: FabulaeEndEffectRequest, result: FabulaeEndEffectResult, language: Language
) -> str:
    word = "fin de" if language == "fr" else "end of"
    return f"{request.character.name} — {word} {text('power', result.ended, language)}"


END_EFFECT: RollKind[FabulaeEndEffectCreate, FabulaeEndEffectRequest, FabulaeEndEffectResult] = (
    RollKind(
        name="fabulae.end_effect",
        title="Power effect ended",
        body=FabulaeEndEffectCreate,
        request=FabulaeEndEffectRequest,
        result=FabulaeEndEffectResult,
        prepare=prepare_end_effect,
        resolve=resolve_end_effect,
        summary=end_effect_summary,
        is_roll=False,
        gm_only="end a power's effect",
    )
)
