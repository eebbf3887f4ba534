"""Fabulae Tenebris reference tables: skills, states, weapons, armor, talents, powers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

Attribute = Literal["physique", "habilete", "intellect", "empathie"]
# FAB-62: the defender's answer to a melee attack.
Defense = Literal["none", "parry", "dodge"]
# FAB-67: what cover is worth, in protection dice.
Cover = Literal[0, 3, 4, 5, 6, 8]
# FAB-20: the two tracks of states (and of sequelae, FAB-50/FAB-55).
Track = Literal["physical", "mental"]
# FAB-73: the dangers; FAB-55/73 (corrected) adds phobia, horror, hunger and sleep.
Danger = Literal[
    "fire",
    "explosion",
    "drowning",
    "poison",
    "disease",
    "cold",
    "phobia",
    "horror",
    "hunger",
    "sleep",
]
# FAB-55/73 (corrected): the dangers the corrections added, resolved from rules version 2 on.
CORRECTED_DANGERS: Final = frozenset({"phobia", "horror", "hunger", "sleep"})
# FAB-73 (corrected) « Faim & Sommeil »: what each deprivation (the sheet's `deprived`)
# blocks: without food the physical track heals no more; without sleep, the mental track
# and stress.
Deprivation = Literal["hunger", "sleep"]
DEPRIVATION_BLOCKS: Final[dict[str, Track]] = {"hunger": "physical", "sleep": "mental"}
# FAB-80..82: the ways to recover, and how long a rest lasts.
RecoverMode = Literal["rest", "care", "broken_resistance"]
RestDuration = Literal["quart", "tour", "night"]
ATTRIBUTES: Final[tuple[Attribute, ...]] = ("physique", "habilete", "intellect", "empathie")
ATTRIBUTE_LABELS: Final[dict[str, str]] = {
    "physique": "Physique",
    "habilete": "Habileté",
    "intellect": "Intellect",
    "empathie": "Empathie",
}

# FAB-2: each skill and its base attribute.
SKILL_BASE: Final[dict[str, Attribute]] = {
    "athletisme": "physique",
    "combat": "physique",
    "resistance": "physique",
    "furtivite": "habilete",
    "dexterite": "habilete",
    "tir": "habilete",
    "bricolage": "intellect",
    "connaissance": "intellect",
    "observation": "intellect",
    "mentir_convaincre": "empathie",
    "performance": "empathie",
    "soin": "empathie",
}
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
SKILL_LABELS: Final[dict[str, str]] = {
    "athletisme": "Athlétisme",
    "combat": "Combat",
    "resistance": "Résistance",
    "furtivite": "Furtivité",
    "dexterite": "Dextérité",
    "tir": "Tir",
    "bricolage": "Bricolage",
    "connaissance": "Connaissance",
    "observation": "Observation",
    "mentir_convaincre": "Mentir / Convaincre",
    "performance": "Performance",
    "soin": "Soin",
}

# FAB-4: allowed alternate attributes ("modularité"), on top of each skill's base attribute.
SKILL_ALTERNATES: Final[dict[str, frozenset[str]]] = {
    "resistance": frozenset({"intellect", "empathie"}),
    "bricolage": frozenset({"habilete"}),
    "observation": frozenset({"empathie"}),
    "mentir_convaincre": frozenset({"intellect", "physique"}),
    "soin": frozenset({"intellect"}),
}


def allowed_attributes(skill: str) -> frozenset[str]:
    """FAB-2/FAB-4: the attributes a skill may be rolled with."""
    return frozenset({SKILL_BASE[skill]}) | SKILL_ALTERNATES.get(skill, frozenset())


# FAB-20/FAB-22: the two state tracks in checking order; the extra box (talent `extra_box`)
# is a fourth box at the end of its track, with no malus.
PHYSICAL_TRACK: Final[tuple[str, ...]] = ("epuise", "meurtri", "blesse")
MENTAL_TRACK: Final[tuple[str, ...]] = ("enerve", "apeure", "demoralise")
EXTRA_BOX: Final[dict[str, str]] = {"physical": "physical_extra", "mental": "mental_extra"}
STATE_MALUS: Final[dict[str, int]] = {
    "epuise": 0,
    "meurtri": 1,
    "blesse": 1,
    "physical_extra": 0,
    "enerve": 0,
    "apeure": 1,
    "demoralise": 1,
    "mental_extra": 0,
}
STATE_LABELS: Final[dict[str, str]] = {
    "epuise": "Épuisé",
    "meurtri": "Meurtri",
    "blesse": "Blessé",
    "physical_extra": "Case supplémentaire (physique)",
    "enerve": "Énervé",
    "apeure": "Apeuré",
    "demoralise": "Démoralisé",
    "mental_extra": "Case supplémentaire (mentale)",
}
StateId = Literal[
    "epuise",
    "meurtri",
    "blesse",
    "physical_extra",
    "enerve",
    "apeure",
    "demoralise",
    "mental_extra",
]


@dataclass(frozen=True)
class Weapon:
    """FAB-71: one row of the weapons table."""

    id: str
    label: str
    roll_bonus: int
    damage: int
    burst: bool
    range: str
    hands: int
    sequela_mod: int
    ammo: int | None
    blunt: bool = False


WEAPONS: Final[dict[str, Weapon]] = {
    w.id: w
    for w in (
        Weapon("bare_hands", "Mains nues", -1, 1, False, "contact", 1, 0, None, blunt=True),
        Weapon("brass_knuckles", "Poing américain", 0, 1, False, "contact", 1, 0, None, True),
        Weapon("knife", "Couteau / Scalpel", 1, 2, False, "contact", 1, 0, None),
        Weapon("wrench", "Clé à molette / Outil", 1, 1, False, "contact", 1, 0, None, True),
        Weapon("club", "Massue / Canne plombée", 2, 1, False, "contact", 1, 1, None, True),
        Weapon("spear", "Lance / Baïonnette", 1, 2, False, "short", 2, 1, None),
        Weapon("sabre", "Sabre / Épée", 2, 2, False, "contact", 1, 1, None),
        Weapon("fire_axe", "Hache de pompier", 2, 3, False, "contact", 2, 1, None),
        Weapon("crossbow", "Arbalète de précision", 1, 2, False, "long", 2, 1, 1),
        Weapon("repeating_rifle", "Fusil à répétition", 2, 2, True, "long", 2, 1, 8),
        Weapon("revolver", "Revolver", 2, 2, False, "medium", 1, 1, 6),
        Weapon("shotgun", "Fusil à pompe", 2, 2, False, "long", 2, 2, 2),
        Weapon("heavy_machine_gun", "Mitrailleuse lourde", 2, 3, True, "long", 2, 2, 20),
    )
}
WeaponId = Literal[
    "bare_hands",
    "brass_knuckles",
    "knife",
    "wrench",
    "club",
    "spear",
    "sabre",
    "fire_axe",
    "crossbow",
    "repeating_rifle",
    "revolver",
    "shotgun",
    "heavy_machine_gun",
]


@dataclass(frozen=True)
class Armor:
    """FAB-72: one armor and its base protection value."""

    id: str
    label: str
    value: int
    note: str


ARMORS: Final[dict[str, Armor]] = {
    a.id: a
    for a in (
        Armor("leather_coat", "Manteau de cuir épais", 1, ""),
        Armor("guard_mail", "Cotte de maille de la Garde", 2, "encumbering"),
        Armor("primitive_vest", "Gilet pare-balles primitif", 3, "-1 Furtivité"),
        Armor("factory_plate", "Armure de plaques d'usine", 4, "no infiltration, -1 Athlétisme"),
    )
}
ArmorId = Literal["leather_coat", "guard_mail", "primitive_vest", "factory_plate"]

# FAB-90: talent ids and their French names.
TALENTS: Final[dict[str, str]] = {
    "double_push_habilete": "Adroit",
    "double_push_empathie": "Charmeur",
    "double_push_physique": "Robuste",
    "double_push_intellect": "Érudit",
    "beast_friend": "Ami des bêtes",
    "burst_master": "Tireur de rafale",
    "tough_luck": "Increvable",
    "all_in": "Tout pour l'attaque",
    "cogneur": "Cogneur",
    "sharp_eye": "Œil de lynx",
    "parkour": "Acrobate",
    "fine_gachette": "Fine Gâchette",
    "snap_shot": "Tir réflexe",
    "street_rat": "Rat des rues",
    "intimidator": "Intimidant",
    "medic": "Médecin",
    "cool_head": "Sang-froid",
    "tinkerer": "Bricoleur",
    "pickpocket": "Pickpocket",
    "quick_draw": "Dégaine rapide",
    "quick_reload": "Rechargement éclair",
    "quick_draw_initiative": "Réflexes",
    "expert": "Expert",
    "extra_box": "Dur à cuire",
    "orator": "Orateur",
    "artist": "Artiste",
    "second_wind": "Second souffle",
    "iron_will": "Volonté de fer",
    "tracker": "Pisteur",
    "butcher": "Boucher",
}
TalentId = Literal[
    "double_push_habilete",
    "double_push_empathie",
    "double_push_physique",
    "double_push_intellect",
    "beast_friend",
    "burst_master",
    "tough_luck",
    "all_in",
    "cogneur",
    "sharp_eye",
    "parkour",
    "fine_gachette",
    "snap_shot",
    "street_rat",
    "intimidator",
    "medic",
    "cool_head",
    "tinkerer",
    "pickpocket",
    "quick_draw",
    "quick_reload",
    "quick_draw_initiative",
    "expert",
    "extra_box",
    "orator",
    "artist",
    "second_wind",
    "iron_will",
    "tracker",
    "butcher",
]

# FAB-101: power ids (cost 1 PP unless the power's rule says otherwise).
POWERS: Final[tuple[str, ...]] = (
    "wall_walk",
    "beast_command",
    "barrier",
    "attribute_shift",
    "flash",
    "banish",
    "wall",
    "shockwave",
    "tongues",
    "confusion",
    "summon",
    "resize",
    "fire_cone",
    "deflection",
    "disguise",
    "sense",
    "trance",
    "martial_infusion",
    "bolt",
    "entangle",
    "earth_glide",
    "blast",
    "enchant_weapon",
    "heal_sequela",
    "ghost_form",
    "invisibility",
    "psychometry",
    "mind_reading",
    "telepathic_link",
    "light_dark",
    "element_control",
    "possession",
    "drain",
    "sleep",
    "silence_noise",
    "calm",
    "telekinesis",
    "teleport",
    "horror",
    "darkvision",
    "far_sight",
    "haste",
    "flight",
    "animate_dead",
    "hazard_zone",
)

# FAB-50/FAB-55: sequela codes of the physical and mental tables.
PHYSICAL_SEQUELAE: Final[tuple[str, ...]] = (
    "stunned",
    "bruise",
    "sprain",
    "broken_limb",
    "bleeding",
    "internal",
    "spine",
    "impaled",
    "crushed",
)
MENTAL_SEQUELAE: Final[tuple[str, ...]] = (
    "tremor",
    "white_hair",
    "anxious",
    "sullen",
    "nightmares",
    "nocturnal",
    "phobic",
    "paranoia",
    "delusion",
    "hallucinations",
    "amnesia",
    "catatonia",
)
