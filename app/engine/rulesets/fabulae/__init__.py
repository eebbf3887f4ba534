"""Fabulae Tenebris (Victorian Age): D6 pools where a 6 succeeds (FAB-1..102), as one ruleset."""

from __future__ import annotations

from app.engine.contract import Ruleset, System
from app.engine.rulesets.fabulae.action import ACTION, OPPOSED
from app.engine.rulesets.fabulae.aiming import AIM
from app.engine.rulesets.fabulae.clock import recharges
from app.engine.rulesets.fabulae.combat import END_BINDING, INITIATIVE
from app.engine.rulesets.fabulae.damage import ATTACK
from app.engine.rulesets.fabulae.dangers import DANGER
from app.engine.rulesets.fabulae.defense import DEFEND
from app.engine.rulesets.fabulae.durations import END_SEQUELA, ROUND
from app.engine.rulesets.fabulae.encounter import COMBAT
from app.engine.rulesets.fabulae.gear import RELOAD, REPAIR
from app.engine.rulesets.fabulae.grappling import BREAK_FREE, GRAPPLE, STRANGLE
from app.engine.rulesets.fabulae.labels import LABELS
from app.engine.rulesets.fabulae.opposing import OPPOSE
from app.engine.rulesets.fabulae.powers import END_EFFECT, POWER
from app.engine.rulesets.fabulae.push import DESTINY_AWARD, PUSH, STREET_RAT
from app.engine.rulesets.fabulae.recovery import RECOVER, SECOND_WIND
from app.engine.rulesets.fabulae.sequelae import DEATH_TEST, SEQUELA, STABILIZE
from app.engine.rulesets.fabulae.sheet import CREATION_CHOICES, FabulaeOptions, FabulaeSheet
from app.engine.rulesets.fabulae.states import ABSORB, STATE_CHOICE
from app.engine.rulesets.fabulae.stress import PANIC_ROLL, STRESS, STRESS_RESIST
from app.engine.sheets import managed_fields

FABULAE = System(
    id="fabulae-tenebris",
    name="Fabulae Tenebris — Victorian Age",
    sheet=FabulaeSheet,
    options=FabulaeOptions,
    protected_fields=managed_fields(FabulaeSheet),
    creation_choices=CREATION_CHOICES,
    clock_fields=("active_effects", "sequelae"),
)

RULESET = Ruleset(
    id="fabulae-tenebris",
    name="Fabulae Tenebris",
    version=3,
    systems=(FABULAE,),
    kinds=(
        ACTION,
        OPPOSED,
        OPPOSE,
        PUSH,
        STATE_CHOICE,
        ABSORB,
        STRESS,
        STRESS_RESIST,
        PANIC_ROLL,
        RECOVER,
        DESTINY_AWARD,
        ATTACK,
        GRAPPLE,
        DEFEND,
        BREAK_FREE,
        STRANGLE,
        SEQUELA,
        DEATH_TEST,
        STABILIZE,
        DANGER,
        POWER,
        REPAIR,
        SECOND_WIND,
        END_EFFECT,
        END_SEQUELA,
        END_BINDING,
        ROUND,
        RELOAD,
        AIM,
        STREET_RAT,
        INITIATIVE,
    ),
    labels=LABELS,
    rule_prefixes=("FAB",),
    document="fabulae-tenebris.md",
    recharges=recharges,
    combat=COMBAT,
    legacy_family="fabulae",
)
