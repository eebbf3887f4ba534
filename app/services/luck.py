"""How lucky a logged roll was (issue 21): the exact probability of its outcome, given its
own inputs as the rules version it records read them, and its percentile.

Many entries share one request (a bot's `1d20`, a sheet that has not changed): each
distinct request's ranking is computed once per process and kept in a small LRU, so a page
of large pools costs their odds once, not once per entry."""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from app.engine.errors import EngineError
from app.engine.hidden import has_commitment
from app.engine.odds import Luck, Odds, luck, luck_by_value, luck_by_values
from app.engine.registry import Registry, Rules

# Requests whose rankings are kept; one ranking of the largest pool is a few hundred KiB.
RANKINGS_KEPT = 64


@dataclass(frozen=True)
class Ranking:
    """Every result's luck under one request's odds."""

    odds: Odds
    by_code: dict[str, Luck]
    by_value: dict[int, tuple[float, float]]  # a kind without outcomes: value -> luck

    @classmethod
    def of(cls, odds: Odds) -> Ranking:
        if odds.ranked_by is not None:
            return cls(odds, {}, luck_by_values(odds))
        return cls(odds, {item.code: luck(odds, item.code) for item in odds.outcomes}, {})

    def luck(self, outcome: str | int) -> Luck | None:
        if isinstance(outcome, int):
            found = self.by_value.get(outcome)
            if found is None:  # a value its odds give no chance, or an end a float one left out
                return luck_by_value(self.odds, outcome)
            return Luck(outcome=str(outcome), probability=found[0], percentile=found[1])
        return self.by_code.get(outcome)


class _Rankings:
    def __init__(self, kept: int) -> None:
        self._kept = kept
        self._lock = threading.Lock()
        self._found: OrderedDict[tuple[str, str, str], Ranking] = OrderedDict()

    def get(self, rules: Rules, raw: dict[str, Any], compute: Callable[[], Odds]) -> Ranking:
        key = (rules.rules_id, rules.kind.name, json.dumps(raw, sort_keys=True))
        with self._lock:
            found = self._found.get(key)
            if found is not None:
                self._found.move_to_end(key)
                return found
        ranking = Ranking.of(compute())  # outside the lock: odds may take a while
        with self._lock:
            self._found[key] = ranking
            while len(self._found) > self._kept:
                self._found.popitem(last=False)
        return ranking


_RANKINGS = _Rankings(RANKINGS_KEPT)


def entry_luck(view: dict[str, Any], registry: Registry) -> Luck | None:
    """The luck of an entry as the caller sees it; None for a redacted entry, a kind
    without odds, or an entry holding values the caller may not read (FAIR-18: odds from
    an NPC's committed values would leak them)."""
    if view.get("redacted") or has_commitment(view.get("request")):
        return None
    if has_commitment(view.get("result")):
        return None
    try:
        rules = registry.for_entry(view)
        kind, odds_of = rules.kind, rules.kind.odds
        if odds_of is None:
            return None
        request = kind.parse_request(view["request"])
        result = kind.parse_result(view["result"])
        ranking = _RANKINGS.get(rules, view["request"], lambda: odds_of(request, rules.version))
        if ranking.odds.ranked_by is not None:
            value = getattr(result, ranking.odds.ranked_by, None)
            return ranking.luck(value) if isinstance(value, int) else None
        outcome = kind.outcome(result) if kind.outcome is not None else None
        code = outcome.code if outcome is not None else ranking.odds.no_outcome
        return None if code is None else ranking.luck(code)
    except (EngineError, ValidationError, KeyError):
        return None


def add_luck(view: dict[str, Any], registry: Registry) -> None:
    """Set `luck` on a visible entry view whose kind has odds (and on what it set off)."""
    found = entry_luck(view, registry)
    if found is not None:
        view["luck"] = found.model_dump(mode="json")
    for triggered in view.get("triggered") or []:
        add_luck(triggered, registry)
