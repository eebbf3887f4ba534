"""One action a turn, besides reactions (JDR Express and Vampire in an encounter): what
Fabulae's round budget does by slow and fast actions (FAB-60), in its simplest form."""

from __future__ import annotations

from app.engine.contract import CombatAction
from app.engine.errors import refusal

ACTED = "action"  # the key an encounter keeps in a combatant's `spent` for the turn


def check_one_action(action: CombatAction, rule: str) -> None:
    """Refuse a second action in the combatant's turn (the GM's override acts anyway)."""
    if action.actor.spent.get(ACTED):
        raise refusal(
            rule,
            f"{action.actor.name} has acted this turn: one action a turn, besides reactions; "
            "the GM may allow another (override)",
        )


def spend_action(action: CombatAction) -> None:
    """The turn's action is taken (a reaction takes none)."""
    if not action.reaction:
        action.actor.spent[ACTED] = True
