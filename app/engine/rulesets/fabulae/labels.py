"""Fabulae Tenebris's words: every code the rules use, in English and French.

French keeps the source's words (the labels stored in results are these French ones)."""

from __future__ import annotations

from typing import Final

from app.engine.contract import Label, Labels

ATTRIBUTES: Final = {
    "physique": Label("Physique", "Physique"),
    "habilete": Label("Agility", "Habileté"),
    "intellect": Label("Intellect", "Intellect"),
    "empathie": Label("Empathy", "Empathie"),
}
SKILLS: Final = {
    "athletisme": Label("Athletics", "Athlétisme"),
    "combat": Label("Combat", "Combat"),
    "resistance": Label("Resistance", "Résistance"),
    "furtivite": Label("Stealth", "Furtivité"),
    "dexterite": Label("Dexterity", "Dextérité"),
    "tir": Label("Shooting", "Tir"),
    "bricolage": Label("Tinkering", "Bricolage"),
    "connaissance": Label("Knowledge", "Connaissance"),
    "observation": Label("Observation", "Observation"),
    "mentir_convaincre": Label("Lie / Convince", "Mentir / Convaincre"),
    "performance": Label("Performance", "Performance"),
    "soin": Label("Care", "Soin"),
}
DIFFICULTIES: Final = {
    "hard": Label("Hard", "Difficile"),
    "very_hard": Label("Very hard", "Très difficile"),
    "almost_impossible": Label("Almost impossible", "Presque impossible"),
}
# FAB-11, FAB-14, FAB-42: how a roll reads; the French words are the ones results store.
OUTCOMES: Final = {
    "success": Label("Success", "Succès"),
    "failure": Label("Failure", "Échec"),
    "panic": Label("Panic", "Panique"),
    "impossible": Label("Impossible", "Impossible"),
    "not_rolled": Label("Not rolled", "Non lancé"),
}
# FAB-36: an opposed roll won by two sixes or more.
PROWESS: Final = Label("Prowess", "Prouesse")
# FAB-20/FAB-22: the states; the French words are the ones results store.
STATES: Final = {
    "epuise": Label("Exhausted", "Épuisé"),
    "meurtri": Label("Bruised", "Meurtri"),
    "blesse": Label("Wounded", "Blessé"),
    "physical_extra": Label("Extra box (physical)", "Case supplémentaire (physique)"),
    "enerve": Label("Irritated", "Énervé"),
    "apeure": Label("Frightened", "Apeuré"),
    "demoralise": Label("Demoralised", "Démoralisé"),
    "mental_extra": Label("Extra box (mental)", "Case supplémentaire (mentale)"),
}
TRACKS: Final = {
    "physical": Label("Physical", "Physique"),
    "mental": Label("Mental", "Mental"),
}
# FAB-44: the panic table's results; the French words are the ones results store.
PANIC: Final = {
    "cool": Label("Cool head", "Tête froide"),
    "jolt": Label("Nervous jolt", "Secousse nerveuse"),
    "tremors": Label("Tremors", "Tremblements"),
    "drop": Label("Dropped item", "Lâché d'objet"),
    "frozen": Label("Frozen", "Figé"),
    "take_cover": Label("Take cover", "Mise à l'abri"),
    "scream": Label("Scream", "Cri"),
    "flee": Label("Flight", "Fuite"),
    "berserk": Label("Berserk", "Folie meurtrière"),
    "catatonia": Label("Catatonia", "Catatonie"),
}
# FAB-50: the physical sequelae; the French words are the ones results store.
PHYSICAL_SEQUELAE: Final = {
    "stunned": Label("Stunned", "Sonné / Étourdi"),
    "bruise": Label("Tender bruise", "Hématome sensible"),
    "sprain": Label("Sprained limb / Gash", "Membre foulé / Entaille"),
    "broken_limb": Label("Broken limb / Concussion", "Membre cassé / Commotion"),
    "bleeding": Label("External bleeding", "Hémorragie externe"),
    "internal": Label("Organ hit / Internal", "Organe touché / Interne"),
    "spine": Label("Broken spine / Jugular", "Colonne brisée / Jugulaire"),
    "impaled": Label("Impaled / Disembowelled", "Empalé / Éventré"),
    "crushed": Label("Crushed skull / Pulverised", "Crâne écrasé / Pulvérisé"),
}
# FAB-55: the mental sequelae; the French words are the ones results store.
MENTAL_SEQUELAE: Final = {
    "tremor": Label("Tremor", "Tremblement"),
    "white_hair": Label("White hair", "Cheveux blancs"),
    "anxious": Label("Anxious", "Anxieux"),
    "sullen": Label("Sullen", "Maussade"),
    "nightmares": Label("Nightmares", "Cauchemars"),
    "nocturnal": Label("Nocturnal", "Nocturne"),
    "phobic": Label("Phobic", "Phobique"),
    "paranoia": Label("Paranoia", "Paranoïa"),
    "delusion": Label("Delusion", "Délire"),
    "hallucinations": Label("Hallucinations", "Hallucinations"),
    "amnesia": Label("Amnesia", "Amnésie"),
    "catatonia": Label("Catatonia", "Catatonie"),
}
SEQUELAE: Final = {**PHYSICAL_SEQUELAE, **MENTAL_SEQUELAE}
WEAPONS: Final = {
    "bare_hands": Label("Bare hands", "Mains nues"),
    "brass_knuckles": Label("Brass knuckles", "Poing américain"),
    "knife": Label("Knife / Scalpel", "Couteau / Scalpel"),
    "wrench": Label("Wrench / Tool", "Clé à molette / Outil"),
    "club": Label("Club / Loaded cane", "Massue / Canne plombée"),
    "spear": Label("Spear / Bayonet", "Lance / Baïonnette"),
    "sabre": Label("Sabre / Sword", "Sabre / Épée"),
    "fire_axe": Label("Fire axe", "Hache de pompier"),
    "crossbow": Label("Precision crossbow", "Arbalète de précision"),
    "repeating_rifle": Label("Repeating rifle", "Fusil à répétition"),
    "revolver": Label("Revolver", "Revolver"),
    "shotgun": Label("Pump shotgun", "Fusil à pompe"),
    "heavy_machine_gun": Label("Heavy machine gun", "Mitrailleuse lourde"),
}
ARMORS: Final = {
    "leather_coat": Label("Thick leather coat", "Manteau de cuir épais"),
    "guard_mail": Label("Guard's chain mail", "Cotte de maille de la Garde"),
    "primitive_vest": Label("Primitive bulletproof vest", "Gilet pare-balles primitif"),
    "factory_plate": Label("Factory plate armor", "Armure de plaques d'usine"),
}
TALENTS: Final = {
    "double_push_habilete": Label("Deft", "Adroit"),
    "double_push_empathie": Label("Charmer", "Charmeur"),
    "double_push_physique": Label("Sturdy", "Robuste"),
    "double_push_intellect": Label("Scholar", "Érudit"),
    "beast_friend": Label("Friend of beasts", "Ami des bêtes"),
    "burst_master": Label("Burst shooter", "Tireur de rafale"),
    "tough_luck": Label("Unkillable", "Increvable"),
    "all_in": Label("All in", "Tout pour l'attaque"),
    "cogneur": Label("Bruiser", "Cogneur"),
    "sharp_eye": Label("Lynx eye", "Œil de lynx"),
    "parkour": Label("Acrobat", "Acrobate"),
    "fine_gachette": Label("Marksman", "Fine Gâchette"),
    "snap_shot": Label("Snap shot", "Tir réflexe"),
    "street_rat": Label("Street rat", "Rat des rues"),
    "intimidator": Label("Intimidating", "Intimidant"),
    "medic": Label("Physician", "Médecin"),
    "cool_head": Label("Cool head", "Sang-froid"),
    "tinkerer": Label("Tinkerer", "Bricoleur"),
    "pickpocket": Label("Pickpocket", "Pickpocket"),
    "quick_draw": Label("Quick draw", "Dégaine rapide"),
    "quick_reload": Label("Lightning reload", "Rechargement éclair"),
    "quick_draw_initiative": Label("Reflexes", "Réflexes"),
    "expert": Label("Expert", "Expert"),
    "extra_box": Label("Hard case", "Dur à cuire"),
    "orator": Label("Orator", "Orateur"),
    "artist": Label("Artist", "Artiste"),
    "second_wind": Label("Second wind", "Second souffle"),
    "iron_will": Label("Iron will", "Volonté de fer"),
    "tracker": Label("Tracker", "Pisteur"),
    "butcher": Label("Butcher", "Boucher"),
}
# FAB-101: the powers.
POWERS: Final = {
    "wall_walk": Label("Wall walk", "Marche murale"),
    "beast_command": Label("Beast command", "Commandement des bêtes"),
    "barrier": Label("Barrier", "Barrière"),
    "attribute_shift": Label("Attribute shift", "Altération d'attribut"),
    "flash": Label("Flash", "Éclair aveuglant"),
    "banish": Label("Banish", "Bannissement"),
    "wall": Label("Wall", "Mur"),
    "shockwave": Label("Shockwave", "Onde de choc"),
    "tongues": Label("Tongues", "Don des langues"),
    "confusion": Label("Confusion", "Confusion"),
    "summon": Label("Summon", "Invocation"),
    "resize": Label("Resize", "Changement de taille"),
    "fire_cone": Label("Fire cone", "Cône de feu"),
    "deflection": Label("Deflection", "Déflexion"),
    "disguise": Label("Disguise", "Déguisement"),
    "sense": Label("Sense", "Perception des émanations"),
    "trance": Label("Trance", "Transe"),
    "martial_infusion": Label("Martial infusion", "Infusion martiale"),
    "bolt": Label("Bolt", "Trait"),
    "entangle": Label("Entangle", "Entrave"),
    "earth_glide": Label("Earth glide", "Glissement terrestre"),
    "blast": Label("Blast", "Déflagration"),
    "enchant_weapon": Label("Enchant weapon", "Arme enchantée"),
    "heal_sequela": Label("Heal sequela", "Guérison de séquelle"),
    "ghost_form": Label("Ghost form", "Forme spectrale"),
    "invisibility": Label("Invisibility", "Invisibilité"),
    "psychometry": Label("Psychometry", "Psychométrie"),
    "mind_reading": Label("Mind reading", "Lecture des pensées"),
    "telepathic_link": Label("Telepathic link", "Lien télépathique"),
    "light_dark": Label("Light / Dark", "Lumière / Ténèbres"),
    "element_control": Label("Element control", "Contrôle des éléments"),
    "possession": Label("Possession", "Possession"),
    "drain": Label("Drain", "Drain"),
    "sleep": Label("Sleep", "Sommeil"),
    "silence_noise": Label("Silence / Noise", "Silence / Vacarme"),
    "calm": Label("Calm", "Apaisement"),
    "telekinesis": Label("Telekinesis", "Télékinésie"),
    "teleport": Label("Teleport", "Téléportation"),
    "horror": Label("Horror", "Épouvante"),
    "darkvision": Label("Darkvision", "Vision nocturne"),
    "far_sight": Label("Far sight", "Vision lointaine"),
    "haste": Label("Haste", "Célérité"),
    "flight": Label("Flight", "Vol"),
    "animate_dead": Label("Animate dead", "Animation des morts"),
    "hazard_zone": Label("Hazard zone", "Zone de danger"),
}
# FAB-73: the environmental dangers.
DANGERS: Final = {
    "fire": Label("Fire", "Feu"),
    "explosion": Label("Explosion", "Explosion"),
    "drowning": Label("Drowning", "Noyade"),
    "poison": Label("Poison", "Poison"),
    "disease": Label("Disease", "Maladie"),
    "cold": Label("Cold", "Froid"),
    "phobia": Label("Phobia", "Phobie"),
    "horror": Label("Horror", "Horreur"),
    "hunger": Label("Hunger", "Faim"),
    "sleep": Label("Sleeplessness", "Manque de sommeil"),
}
# What an entry of another shape reads as (a hit, a grapple, a death test…).
RESULTS: Final = {
    "hit": Label("Hit", "Touché"),
    "miss": Label("Miss", "Raté"),
    "grappled": Label("Grappled", "Agrippé"),
    "freed": Label("Broke free", "Libéré"),
    "held": Label("Still held", "Toujours tenu"),
    "survived": Label("Survived", "Survit"),
    "dead": Label("Dead", "Mort"),
    "stabilised": Label("Stabilised", "Stabilisé"),
    "broken": Label("Broken", "Brisé"),
    "absorbed": Label("Absorbed", "Absorbé"),
    "applied": Label("Applied", "Appliqué"),
    "narrated": Label("Left to the GM", "Laissé au MJ"),
    "awaiting_defense": Label("Awaiting the defense", "En attente de la défense"),
    "aiming": Label("Aiming", "Vise"),
    "settled": Label("Settled", "Réglé"),
    "awaiting_passive": Label("Awaiting the other side", "En attente de l'autre camp"),
    "parried": Label("Parried", "Paré"),
}

LABELS: Final[Labels] = {
    "attribute": ATTRIBUTES,
    "skill": SKILLS,
    "difficulty": DIFFICULTIES,
    "outcome": OUTCOMES,
    "state": STATES,
    "track": TRACKS,
    "panic": PANIC,
    "sequela": SEQUELAE,
    "weapon": WEAPONS,
    "armor": ARMORS,
    "talent": TALENTS,
    "power": POWERS,
    "danger": DANGERS,
    "result": RESULTS,
}


def text(group: str, code: str, language: str) -> str:
    """A code's label in a language, or the code itself when it has none."""
    label = LABELS.get(group, {}).get(code)
    if label is None:
        return code
    return label.fr if language == "fr" else label.en
