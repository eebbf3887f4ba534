"""Combat encounters: whose turn it is, what an action costs, what panic forbids. Pure.

The systems' rules resolve each action (their roll kinds); these functions only decide
whether a combatant may take it now, and keep the round's bookkeeping.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from app.engine.errors import RuleRefusal

# Kinds that answer something already rolled (or were set off by it): they may be posted
# out of turn, by whoever the follow-up belongs to.
REACTION_KINDS: Final = frozenset(
    {
        "jdr.talisman",
        "jdr.talisman_ruling",
        "jdr.effleurement",
        "jdr.effleurement_refusal",
        "jdr.joker",
        "jdr.context",
        "fabulae.push",
        "fabulae.absorb",
        "fabulae.state_choice",
        "fabulae.street_rat",
        "fabulae.panic",
        "fabulae.death_test",
    }
)
ATTACK_KINDS: Final = frozenset(
    {"jdr.attack", "jdr.holy_water", "fabulae.attack", "fabulae.grapple", "fabulae.strangle"}
)
# FAB-44 results that bind the panicking combatant in an encounter.
PANIC_CONDITIONS: Final[dict[str, dict[str, Any]]] = {
    "frozen": {
        "skip_turns": 1,
        "rule": "FAB-44",
        "why": "frozen: paralysed, loses their next turn",
    },
    "scream": {"skip_turns": 1, "rule": "FAB-44", "why": "screaming: loses a round"},
    "catatonia": {"no_action": True, "rule": "FAB-44", "why": "catatonic: cannot act"},
    "flee": {"no_attack": True, "rule": "FAB-44", "why": "fleeing: cannot attack"},
    "take_cover": {
        "next_not_attack": True,
        "rule": "FAB-44",
        "why": "must first flee to cover: the next action cannot be an attack",
    },
    "berserk": {
        "next_attack": True,
        "rule": "FAB-44",
        "why": "berserk: the next action must be an attack on the nearest target",
    },
    "tremors": {"habilete_malus": -2, "rule": "FAB-44", "why": "trembling: -2 dice on Habileté"},
}


def _refuse(rule: str, detail: str) -> RuleRefusal:
    return RuleRefusal(f"{rule}: {detail}", rule=rule)


def fabulae_cost(kind: str, body: Mapping[str, Any], sheet: Mapping[str, Any]) -> dict[str, int]:
    """FAB-60: what an action takes from the round: slow and fast actions."""
    talents = set(sheet.get("talents", []))
    if kind in REACTION_KINDS:
        return {"slow": 0, "fast": 0}
    if kind == "fabulae.attack":
        if body.get("snap_shot"):
            return {"slow": 0, "fast": 1}  # FAB-90 snap_shot: a fast Tir attack
        if "all_in" in body.get("talents", []):
            return {"slow": 1, "fast": 1}  # FAB-90 all_in gives up the fast action
        return {"slow": 1, "fast": 0}
    if kind == "fabulae.reload":
        weapon = str(body.get("weapon"))
        light = weapon in ("revolver", "crossbow")
        if light and "quick_reload" in talents:
            return {"slow": 0, "fast": 0}  # FAB-90 quick_reload: free
        return {"slow": 0, "fast": 1} if light else {"slow": 1, "fast": 0}
    if kind == "fabulae.action":
        kind_of = body.get("action_type", "slow")
        return {"slow": int(kind_of == "slow"), "fast": int(kind_of == "fast")}
    if kind in ("fabulae.end_effect", "fabulae.stress", "fabulae.destiny_award", "fabulae.danger"):
        return {"slow": 0, "fast": 0}  # the GM's, not the combatant's
    return {"slow": 1, "fast": 0}


def check_fabulae_budget(spent: Mapping[str, int], cost: Mapping[str, int], name: str) -> None:
    """FAB-60: one slow and one fast action a round, or two fast."""
    slow = int(spent.get("slow", 0)) + cost["slow"]
    fast = int(spent.get("fast", 0)) + cost["fast"]
    if slow > 1:
        raise _refuse("FAB-60", f"{name} already took a slow action this round")
    if slow + fast > 2:
        raise _refuse(
            "FAB-60", f"{name} has no action left this round (one slow + one fast, or two fast)"
        )


def check_defense(spent: Mapping[str, int], name: str) -> dict[str, int]:
    """FAB-62: a parry or dodge spends the defender's fast action."""
    cost = {"slow": 0, "fast": 1}
    if int(spent.get("slow", 0)) + int(spent.get("fast", 0)) + 1 > 2:
        raise _refuse("FAB-62", f"{name} has no fast action left to parry or dodge this round")
    return cost


def check_conditions(conditions: list[Mapping[str, Any]], kind: str, name: str) -> None:
    """FAB-44: what the panic results still binding a combatant forbid."""
    for condition in conditions:
        rule = PANIC_CONDITIONS.get(str(condition.get("code")))
        if rule is None:
            continue
        why = f"{name} is {rule['why']}"
        if rule.get("no_action") or int(condition.get("skip_turns", 0)) > 0:
            raise _refuse(rule["rule"], why)
        if rule.get("no_attack") and kind in ATTACK_KINDS:
            raise _refuse(rule["rule"], why)
        if rule.get("next_not_attack") and kind in ATTACK_KINDS:
            raise _refuse(rule["rule"], why)
        if rule.get("next_attack") and kind not in ATTACK_KINDS:
            raise _refuse(rule["rule"], why)


def after_action(conditions: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Conditions that bind only the next action are lifted once it is taken."""
    return [
        dict(c)
        for c in conditions
        if not PANIC_CONDITIONS.get(str(c.get("code")), {}).get("next_not_attack")
        and not PANIC_CONDITIONS.get(str(c.get("code")), {}).get("next_attack")
    ]


def after_turn(conditions: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """A lost turn is spent when that turn passes.

    A panic struck during the combatant's own turn ends that turn and costs the next one:
    its condition is armed when the turn it happened in ends, spent when the next ends.
    """
    kept = []
    for condition in conditions:
        skips = int(condition.get("skip_turns", 0))
        if skips and not condition.get("armed", True):
            kept.append({**condition, "armed": True})
        elif skips > 1:
            kept.append({**condition, "skip_turns": skips - 1})
        elif skips == 0:
            kept.append(dict(condition))
    return kept


def panic_condition(code: str, *, during_own_turn: bool = False) -> dict[str, Any] | None:
    """The binding a FAB-44 result puts on a combatant, if any."""
    rule = PANIC_CONDITIONS.get(code)
    if rule is None:
        return None
    condition: dict[str, Any] = {"code": code, "rule": rule["rule"]}
    if "skip_turns" in rule:
        condition["skip_turns"] = rule["skip_turns"]
        condition["armed"] = not during_own_turn
    return condition


def standing_key(family: str, combatant: Mapping[str, Any], position: int) -> tuple[Any, ...]:
    """The order combatants act in from the second round on, newcomers included.

    JDR: the scene's totals without the first round's surprise (JDR-31/31a), PCs first on a
    tie. Fabulae: ascending cards, the first deck first (FAB-61). Vampire: highest total,
    then the higher Dextérité + Astuce (the classic rule). Ties keep the first round's order.
    """
    initiative = combatant.get("initiative") or {}
    if family == "fabulae":
        return (initiative.get("card", 99), initiative.get("deck", 99), position)
    if family == "vampire":
        return (-int(initiative.get("total", 0)), -int(initiative.get("traits", 0)), position)
    total = int(initiative.get("total", 0)) - int(initiative.get("surprise", 0))
    return (-total, combatant.get("kind") != "pc", position)


def habilete_malus(conditions: list[Mapping[str, Any]]) -> int:
    return sum(
        int(PANIC_CONDITIONS.get(str(c.get("code")), {}).get("habilete_malus", 0))
        for c in conditions
    )
