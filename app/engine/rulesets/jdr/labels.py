"""JDR Express's words: traits, tiers, wounds, Mythos outcomes, the Talisman and the
Effleurement, in English and French (French keeps the rulebooks' words)."""

from __future__ import annotations

from typing import Final

from app.engine.contract import Label, Labels

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
    "serious_wound": Label("Serious wound awaiting care", "Blessure grave non soignée"),
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
# JDR-33: the wound a margin inflicts; an attack that misses, or a sleeping vampire staked
# for good (JDR-36).
WOUNDS: Final = {
    "light": Label("Light wound", "Blessure légère"),
    "serious": Label("Serious wound", "Blessure grave"),
    "critical": Label("Critical wound", "Blessure critique"),
    "miss": Label("Miss", "Raté"),
    "destroyed": Label("Destroyed for good", "Détruit à jamais"),
    "no_effect": Label("No effect", "Sans effet"),
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
    "wounds_cared": Label("Serious wounds cared for", "Blessures graves soignées"),
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
WEAPON_TAGS: Final = {
    "ash_stake": Label("Ash stake", "Pieu de frêne"),
    "silver": Label("Silver", "Argent"),
}

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
}
