"""Vampire: D10 pools against a difficulty (VAM-1..30), health (VAM-40), as one ruleset.

Rules version 2 applies the corrections of 2026-11-30 (VAM-2, VAM-20, VAM-30, VAM-40's
wound penalty); entries made under version 1 replay under its rules."""

from __future__ import annotations

from app.engine.contract import Ruleset, System
from app.engine.rulesets.vampire.action import ACTION
from app.engine.rulesets.vampire.combat import COMBAT, INITIATIVE
from app.engine.rulesets.vampire.health import DAMAGE, HEAL
from app.engine.rulesets.vampire.labels import LABELS
from app.engine.rulesets.vampire.sheet import CREATION_CHOICES, VampireOptions, VampireSheet
from app.engine.rulesets.vampire.willpower import WILLPOWER_RESTORE
from app.engine.sheets import managed_fields

VAMPIRE = System(
    id="vampire",
    name="Vampire",
    sheet=VampireSheet,
    options=VampireOptions,
    protected_fields=managed_fields(VampireSheet),
    creation_choices=CREATION_CHOICES,
)

RULESET = Ruleset(
    id="vampire",
    name="Vampire",
    version=2,
    systems=(VAMPIRE,),
    kinds=(ACTION, WILLPOWER_RESTORE, INITIATIVE, DAMAGE, HEAL),
    labels=LABELS,
    rule_prefixes=("VAM",),
    document="vampire.md",
    combat=COMBAT,
    legacy_family="vampire",
)
