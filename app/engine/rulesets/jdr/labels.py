"""JDR Express's words: traits, tiers, wounds, Mythos outcomes, the Talisman and the
Effleurement, in English and French (French keeps the rulebooks' words)."""

from __future__ import annotations

from typing import Final

from app.engine.contract import Label, Labels
from app.engine.rulesets.jdr.gear import CATALOG_LABELS, WEAPON_TAG_LABELS

TRAITS: Final = {
    "mental": Label("Mental", "Mental"),
    "physique": Label("Physique", "Physique"),
    "social": Label("Social", "Social"),
}
# JDR-11: the five tiers read on the total; results store the French label.
TIERS: Final = {
    "critical_failure": Label("Critical failure", "Échec critique"),
    "failure": Label("Failure", "Échec"),
    "partial_success": Label("Partial success", "Succès partiel"),
    "success": Label("Complete success", "Succès complet"),
    "critical_success": Label("Critical success", "Succès critique"),
}
# JDR-13: a roll against a difficulty reads success or failure instead of the tiers (a
# total of 5 or less still fails critically).
AGAINST_DIFFICULTY: Final = {
    "success": Label("Success", "Réussite"),
    "failure": Label("Failure", "Échec"),
    "critical_failure": Label("Critical failure", "Échec critique"),
}
# JDR-12: how many dice were thrown and which two count.
MODES: Final = {
    "normal": Label("Two dice", "Deux dés"),
    "advantage": Label("Advantage", "Avantage"),
    "disadvantage": Label("Disadvantage", "Désavantage"),
}
# JDR-3, JDR-24, JDR-33: what puts a roll at Disadvantage on its own.
BURDENS: Final = {
    "serious_wound": Label("Serious wound awaiting care", "Blessure sérieuse non soignée"),
    "critical_wound": Label("Critical wound awaiting care", "Blessure critique non soignée"),
    "faith_shaken": Label("Shaken faith (cracked talisman)", "Foi ébranlée (talisman fêlé)"),
}
# JDR-14 [C]: the domain of a roll (the Effleurement works on the first five, JDR-29).
DOMAINS: Final = {
    "investigation": Label("Investigation", "Enquête"),
    "erudition": Label("Erudition", "Érudition"),
    "observation": Label("Observation", "Observation"),
    "occult": Label("Occult", "Occultisme"),
    "mythos": Label("Mythos", "Mythe"),
    "other": Label("Other", "Autre"),
}
# JDR-33 (corrected): the wound a margin inflicts, in the source's words; an attack that
# misses; a sleeping vampire staked (JDR-36: nailed for good, or only woken).
WOUNDS: Final = {
    "light": Label("Light wound", "Blessure légère"),
    "serious": Label("Serious wound", "Blessure sérieuse"),
    "critical": Label("Critical wound", "Blessure critique"),
    "miss": Label("Miss", "Raté"),
    "destroyed": Label("Nailed for good", "Cloué"),
    "woken": Label("Woken, unharmed", "Réveillé, indemne"),
    "no_effect": Label("No effect", "Sans effet"),
}
# What results recorded before rules version 4 say (their labels are hashed).
WOUNDS_BEFORE_4: Final = {
    **WOUNDS,
    "serious": Label("Serious wound", "Blessure grave"),
    "destroyed": Label("Destroyed for good", "Détruit à jamais"),
}
# JDR-33/JDR-37 (corrected): what a wound does to its target, as the attack result says.
WOUND_EFFECTS: Final = {
    "standard": Label("standard damage", "dégâts standards"),
    "disadvantage_until_care": Label(
        "Disadvantage until medical care", "désavantage jusqu'aux soins"
    ),
    "lasting_loss": Label(
        "Disadvantage until medical care, and a lasting loss the GM decides",
        "désavantage jusqu'aux soins, et une perte durable que le MJ tranche",
    ),
    "only_silver": Label(
        "none: only silver or the supernatural wounds a werewolf",
        "aucun : seul l'argent ou le surnaturel blesse un loup-garou",
    ),
}
# JDR-10/JDR-31a: why a talent's bonus did not count.
TALENT_WITHHELD: Final = {
    "off_guard": Label(
        "caught off guard: no talent bonus in the first round",
        "pris au dépourvu : pas de bonus de talent au premier round",
    ),
}
# JDR-40/41 [C]: a Mythos test against its difficulty.
MYTHOS: Final = {
    "success": Label("Success", "Réussite"),
    "failure": Label("Failure", "Échec"),
    "critical_failure": Label("Critical failure", "Échec critique"),
}
# JDR-20/21 [D]: where an invocation of the Talisman stands.
TALISMAN_RULINGS: Final = {
    "pending": Label("Awaiting the GM's ruling", "En attente du jugement du MJ"),
    "sincere": Label("Sincere words: success", "Paroles sincères : succès"),
    "insincere": Label(
        "Hollow words: the talisman cracks", "Paroles creuses : le talisman se fêle"
    ),
}
# JDR-28/29 [C]: an Effleurement applied, or refused by the GM.
EFFLEUREMENTS: Final = {
    "applied": Label(
        "Effleurement: success, at the price of a mark",
        "Effleurement : succès au prix d'une marque",
    ),
    "refused": Label("Effleurement refused by the GM", "Effleurement refusé par le MJ"),
}
# What the GM's records and the initiative roll come to.
EVENTS: Final = {
    "context_amended": Label("Context amended by the GM", "Contexte amendé par le MJ"),
    "initiative_rolled": Label("Initiative rolled", "Initiative lancée"),
    "effleurement_recharged": Label("Effleurement recharged", "Effleurement rechargé"),
    "talisman_restored": Label("Talisman restored by penance", "Talisman restauré par pénitence"),
    "wounds_cared": Label("Wounds cared for", "Blessures soignées"),
    "mark_worded": Label("Mark worded", "Marque formulée"),
}
# Sheet states (JDR-4..7, JDR-38).
FAITHS: Final = {
    "believer": Label("Believer", "Croyant"),
    "atheist": Label("Atheist", "Athée"),
}
TALISMAN_STATES: Final = {
    "ready": Label("Ready", "Prêt"),
    "spent": Label("Spent", "Utilisé"),
    "cracked": Label("Cracked", "Fêlé"),
}
READINESS: Final = {
    "ready": Label("Ready", "Prêt"),
    "spent": Label("Spent", "Utilisé"),
}
STATUSES: Final = {
    "active": Label("Played by its player", "Actif"),
    "npc": Label("The GM's now (JDR-42)", "PNJ"),
}
SEVERITIES: Final = {code: WOUNDS[code] for code in ("light", "serious", "critical")}
CREATURE_TAGS: Final = {
    "vampire": Label("Vampire", "Vampire"),
    "undead": Label("Undead", "Mort-vivant"),
    "werewolf": Label("Werewolf", "Loup-garou"),
    "possessed": Label("Possessed", "Possédé"),
    "creature": Label("Creature", "Créature"),
}
WEAPON_TAGS: Final = WEAPON_TAG_LABELS

LABELS: Final[Labels] = {
    "trait": TRAITS,
    "tier": TIERS,
    "against_difficulty": AGAINST_DIFFICULTY,
    "mode": MODES,
    "burden": BURDENS,
    "domain": DOMAINS,
    "wound": WOUNDS,
    "mythos": MYTHOS,
    "talisman": TALISMAN_RULINGS,
    "effleurement": EFFLEUREMENTS,
    "event": EVENTS,
    "faith": FAITHS,
    "talisman_state": TALISMAN_STATES,
    "readiness": READINESS,
    "status": STATUSES,
    "creature_tag": CREATURE_TAGS,
    "weapon_tag": WEAPON_TAGS,
    "weapon": CATALOG_LABELS,
    "wound_effect": WOUND_EFFECTS,
    "talent_withheld": TALENT_WITHHELD,
}
