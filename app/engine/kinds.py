"""The registry of entry kinds the engine resolves, so any entry can be replayed (FAIR-14).

A resolver takes the entry's `request` (every input the rules used, sheet values included)
and a dice source, and returns the `result` and the `effects` (sheet and campaign changes).
Given the same request and the same dice it returns the same resolution.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from app.engine.dice import DiceSource
from app.engine.errors import InvalidInput
from app.engine.notation import resolve_dice

Effect = dict[str, Any]


@dataclass(frozen=True)
class Resolution:
    result: dict[str, Any]
    effects: list[Effect] = field(default_factory=list)


Resolver = Callable[[Mapping[str, Any], DiceSource], Resolution]


@dataclass(frozen=True)
class KindSpec:
    resolve: Resolver
    # A roll draws from the campaign's stream (or could): it freezes the client seed
    # (FAIR-3) and is listed by GET /rolls.
    is_roll: bool


def _dice(request: Mapping[str, Any], dice: DiceSource) -> Resolution:
    return Resolution(resolve_dice(dict(request), dice))


KINDS: dict[str, KindSpec] = {
    "dice": KindSpec(_dice, is_roll=True),
}

# Entries the audit checks by structure only: they carry no rule to replay.
STRUCTURAL_KINDS = frozenset(
    {
        "epoch_opened",
        "client_seed_set",
        "epoch_closed",
        "sheet_edit",
        "sheet_override",
        "options_changed",
        "encounter.created",
        "encounter.joined",
        "encounter.left",
        "encounter.turn",
        "encounter.ended",
    }
)


def effect(character_id: str, field: str, before: Any, after: Any, rule: str) -> Effect:
    """A change a rule makes to a sheet: the field, what it held, what it holds, and why."""
    return {
        "character_id": character_id,
        "field": field,
        "before": copy.deepcopy(before),
        "after": copy.deepcopy(after),
        "rule": rule,
    }


def register_all(rolls: Mapping[str, Resolver], events: Mapping[str, Resolver]) -> None:
    """Register a ruleset's roll kinds (they draw dice or answer a roll) and its events."""
    for kind, resolver in rolls.items():
        register(kind, resolver, is_roll=True)
    for kind, resolver in events.items():
        register(kind, resolver, is_roll=False)


def register(kind: str, resolve: Resolver, *, is_roll: bool) -> None:
    """Systems add their kinds at import time; a name is registered once."""
    if kind in KINDS or kind in STRUCTURAL_KINDS:
        raise ValueError(f"entry kind {kind!r} is already registered")
    KINDS[kind] = KindSpec(resolve, is_roll)


def is_roll_kind(kind: str) -> bool:
    spec = KINDS.get(kind)
    return spec is not None and spec.is_roll


def resolve(kind: str, request: Mapping[str, Any], dice: DiceSource) -> Resolution:
    spec = KINDS.get(kind)
    if spec is None:
        raise InvalidInput(f"unknown roll kind '{kind}'")
    return spec.resolve(request, dice)
