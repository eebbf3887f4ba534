"""Vampire's words: attributes, abilities, difficulties and outcomes, in English and French."""

from __future__ import annotations

from typing import Final

from app.engine.contract import Label, Labels

ATTRIBUTES: Final = {
    "force": Label("Strength", "Force"),
    "dexterite": Label("Dexterity", "Dextérité"),
    "vigueur": Label("Stamina", "Vigueur"),
    "charisme": Label("Charisma", "Charisme"),
    "manipulation": Label("Manipulation", "Manipulation"),
    "apparence": Label("Appearance", "Apparence"),
    "perception": Label("Perception", "Perception"),
    "intelligence": Label("Intelligence", "Intelligence"),
    "astuce": Label("Wits", "Astuce"),
}
# VAM-2: the suggested abilities (talents, skills, knowledges); a campaign may add others.
ABILITIES: Final = {
    "athletisme": Label("Athletics", "Athlétisme"),
    "bagarre": Label("Brawl", "Bagarre"),
    "conscience": Label("Awareness", "Conscience"),
    "empathie": Label("Empathy", "Empathie"),
    "expression": Label("Expression", "Expression"),
    "experience_de_la_rue": Label("Streetwise", "Expérience de la rue"),
    "intimidation": Label("Intimidation", "Intimidation"),
    "commandement": Label("Leadership", "Commandement"),
    "subterfuge": Label("Subterfuge", "Subterfuge"),
    "vigilance": Label("Alertness", "Vigilance"),
    "animaux": Label("Animal Ken", "Animaux"),
    "armes_a_feu": Label("Firearms", "Armes à feu"),
    "armes_blanches": Label("Melee", "Armes blanches"),
    "conduite": Label("Drive", "Conduite"),
    "etiquette": Label("Etiquette", "Étiquette"),
    "furtivite": Label("Stealth", "Furtivité"),
    "larcin": Label("Larceny", "Larcin"),
    "representation": Label("Performance", "Représentation"),
    "survie": Label("Survival", "Survie"),
    "artisanat": Label("Crafts", "Artisanat"),
    "erudition": Label("Academics", "Érudition"),
    "finance": Label("Finance", "Finance"),
    "informatique": Label("Computer", "Informatique"),
    "investigation": Label("Investigation", "Investigation"),
    "droit": Label("Law", "Droit"),
    "medecine": Label("Medicine", "Médecine"),
    "occultisme": Label("Occult", "Occultisme"),
    "politique": Label("Politics", "Politique"),
    "sciences": Label("Science", "Sciences"),
    "technologie": Label("Technology", "Technologie"),
}
# VAM-11: the named difficulties (2 has no name in the source).
DIFFICULTIES: Final = {
    "3": Label("Routine", "Routinier"),
    "4": Label("Easy", "Facile"),
    "5": Label("Straightforward", "Simple"),
    "6": Label("Standard", "Moyen"),
    "7": Label("Challenging", "Exigeant"),
    "8": Label("Difficult", "Difficile"),
    "9": Label("Very difficult", "Très difficile"),
    "10": Label("Nearly impossible", "Extrêmement difficile"),
}
# VAM-15/VAM-16: a success's quality, or a failure.
OUTCOMES: Final = {
    "marginal": Label("Marginal success", "Réussite marginale"),
    "moderate": Label("Moderate success", "Réussite modérée"),
    "complete": Label("Complete success", "Réussite complète"),
    "failure": Label("Failure", "Échec"),
    "botch": Label("Botch", "Échec critique"),
}

# VAM-40 (the classic rule): the health levels, from the first box down, and damage types.
HEALTH_LEVELS: Final = {
    "bruised": Label("Bruised", "Contusionné"),
    "hurt": Label("Hurt", "Touché"),
    "injured": Label("Injured", "Blessé"),
    "wounded": Label("Wounded", "Gravement blessé"),
    "mauled": Label("Mauled", "Mutilé"),
    "crippled": Label("Crippled", "Estropié"),
    "incapacitated": Label("Incapacitated", "Neutralisé"),
}
DAMAGE_TYPES: Final = {
    "bashing": Label("Bashing", "Contondant"),
    "lethal": Label("Lethal", "Létal"),
    "aggravated": Label("Aggravated", "Aggravé"),
}

LABELS: Final[Labels] = {
    "attribute": ATTRIBUTES,
    "ability": ABILITIES,
    "difficulty": DIFFICULTIES,
    "outcome": OUTCOMES,
    "health": HEALTH_LEVELS,
    "damage": DAMAGE_TYPES,
}


def ability_label(ability: str) -> Label:
    """A suggested ability's label, or the campaign's own id as its own label."""
    return ABILITIES.get(ability) or Label(ability, ability)
