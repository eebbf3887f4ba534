"""How lucky a logged roll was (issue 21): the exact probability of its outcome, given its
own inputs as the rules version it records read them, and its percentile."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from app.engine.errors import EngineError
from app.engine.hidden import has_commitment
from app.engine.odds import Luck, Odds, luck, luck_by_value
from app.engine.registry import Registry


def entry_odds(view: dict[str, Any], registry: Registry) -> tuple[Odds, str | int] | None:
    """The odds of an entry as the caller sees it, and the outcome it got (its code, or the
    value its odds rank it by); None for a redacted entry, a kind without odds, or an entry
    holding values the caller may not read (FAIR-18: odds from an NPC's committed values
    would leak them)."""
    if view.get("redacted") or has_commitment(view.get("request")):
        return None
    if has_commitment(view.get("result")):
        return None
    try:
        rules = registry.for_entry(view)
        kind = rules.kind
        if kind.odds is None:
            return None
        request = kind.parse_request(view["request"])
        result = kind.parse_result(view["result"])
        odds = kind.odds(request, rules.version)
        if odds.ranked_by is not None:
            value = getattr(result, odds.ranked_by, None)
            return (odds, value) if isinstance(value, int) else None
        outcome = kind.outcome(result) if kind.outcome is not None else None
        code = outcome.code if outcome is not None else odds.no_outcome
        return None if code is None else (odds, code)
    except (EngineError, ValidationError, KeyError):
        return None


def entry_luck(view: dict[str, Any], registry: Registry) -> Luck | None:
    found = entry_odds(view, registry)
    if found is None:
        return None
    odds, outcome = found
    try:
        return luck_by_value(odds, outcome) if isinstance(outcome, int) else luck(odds, outcome)
    except EngineError:
        return None


def add_luck(view: dict[str, Any], registry: Registry) -> None:
    """Set `luck` on a visible entry view whose kind has odds (and on what it set off)."""
    found = entry_luck(view, registry)
    if found is not None:
        view["luck"] = found.model_dump(mode="json")
    for triggered in view.get("triggered") or []:
        add_luck(triggered, registry)
