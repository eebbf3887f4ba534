"""JDR Express, 2D6 + trait, in its Dracula and Cthulhu settings (JDR-1..43), as one ruleset."""

from __future__ import annotations

from app.engine.contract import Ruleset, System
from app.engine.rulesets.jdr.action import ACTION
from app.engine.rulesets.jdr.clock import recharges
from app.engine.rulesets.jdr.combat import ATTACK
from app.engine.rulesets.jdr.cthulhu import (
    EFFLEUREMENT,
    EFFLEUREMENT_REFUSAL,
    SACRIFICE,
    marks_edited,
)
from app.engine.rulesets.jdr.dracula import HOLY_WATER, PENANCE, TALISMAN, TALISMAN_RULING
from app.engine.rulesets.jdr.events import MEDICAL_CARE
from app.engine.rulesets.jdr.initiative import COMBAT, INITIATIVE
from app.engine.rulesets.jdr.joker import CONTEXT, JOKER
from app.engine.rulesets.jdr.labels import LABELS
from app.engine.rulesets.jdr.mythos import MARK, MYTHOS_TEST
from app.engine.rulesets.jdr.sheet import (
    DRACULA_CREATION_CHOICES,
    JdrCthulhuSheet,
    JdrDraculaSheet,
    JdrOptions,
    check_instructor,
    on_sheet_edit,
)
from app.engine.sheets import managed_fields

DRACULA = System(
    id="jdr-express-dracula",
    name="JDR Express — Dracula",
    sheet=JdrDraculaSheet,
    options=JdrOptions,
    protected_fields=managed_fields(JdrDraculaSheet),
    creation_choices=DRACULA_CREATION_CHOICES,
    on_sheet_edit=on_sheet_edit,
    check_sheet=check_instructor,
    clock_fields=("joker", "talisman"),
)
CTHULHU = System(
    id="jdr-express-cthulhu",
    name="JDR Express — Cthulhu",
    sheet=JdrCthulhuSheet,
    options=JdrOptions,
    protected_fields=managed_fields(JdrCthulhuSheet),
    on_sheet_edit=marks_edited,
    clock_fields=("joker", "effleurement"),
)

RULESET = Ruleset(
    id="jdr-express",
    name="JDR Express",
    # 2: holy water on someone who is no vampire is recorded with no effect, not refused
    # (JDR-35, FAIR-21). 3: the wound an NPC deals notes its weapon, not the margin, which
    # would give back the NPC's Physique (FAIR-18). 4: the corrections of 2026-11-30: a
    # difficulty roll reads success or failure (JDR-13), a critical wound burdens until care
    # (JDR-33) under the source's labels, a sleeping vampire's stake reads the tiers
    # (JDR-36), silver counts twice and only it wounds a werewolf (JDR-37), talents count
    # on the Mythos test (JDR-40), a Mythos success's mark waits for its wording (JDR-41),
    # the Joker rerolls attacks and Mythos tests (JDR-25), results name the GM's modifier.
    version=4,
    systems=(DRACULA, CTHULHU),
    kinds=(
        ACTION,
        TALISMAN,
        TALISMAN_RULING,
        EFFLEUREMENT,
        EFFLEUREMENT_REFUSAL,
        JOKER,
        CONTEXT,
        ATTACK,
        HOLY_WATER,
        INITIATIVE,
        MYTHOS_TEST,
        MARK,
        SACRIFICE,
        PENANCE,
        MEDICAL_CARE,
    ),
    labels=LABELS,
    rule_prefixes=("JDR",),
    document="jdr-express.md",
    recharges=recharges,
    combat=COMBAT,
    legacy_family="jdr",
)
