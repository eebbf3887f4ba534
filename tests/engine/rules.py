"""The engine as the tests drive it: a kind resolved through its typed contract, and seen
as the log stores it (JSON), through the service's registry."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from app.engine import audit
from app.engine.dice import DiceSource
from app.engine.registry import DEFAULT_REGISTRY


@dataclass(frozen=True)
class Resolved:
    """What the log would store of a resolution: the result and the effects, as JSON."""

    result: dict[str, Any]
    effects: list[dict[str, Any]]


def resolve(
    kind: str, request: Mapping[str, Any], dice: DiceSource, *, rules: str | None = None
) -> Resolved:
    """Resolve a request the way the verifier replays an entry: the stored request parsed
    by its kind's model (so a hand-written shape that drifts fails), then the rules."""
    entry: dict[str, Any] = {"kind": kind, "request": dict(request)}
    if rules is not None:
        entry["rules"] = rules
    found = DEFAULT_REGISTRY.for_entry(entry)
    resolution = found.kind.resolve(found.kind.parse_request(request), dice, found.version)
    return Resolved(resolution.result.dump(), [effect.dump() for effect in resolution.effects])


def verify_log(entries: Iterable[Mapping[str, Any]], **kwargs: Any) -> audit.Report:
    """FAIR-14 with the service's rulesets."""
    return audit.verify_log(entries, registry=DEFAULT_REGISTRY, **kwargs)
