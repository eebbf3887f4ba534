"""Session and scene starts (entry kinds `session_started`, `scene_started`).

The clock entry records the new session and scene numbers and the facts the GM gave; each
ruleset's recharge rule (registered below by the systems) turns them into effects.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from app.engine.dice import DiceSource
from app.engine.kinds import Effect, Resolution, register

RechargeRule = Callable[[Mapping[str, Any]], list[Effect]]

# Ruleset family → the recharges it applies when the clock moves.
RECHARGES: dict[str, RechargeRule] = {}


def resolve_clock(request: Mapping[str, Any], dice: DiceSource) -> Resolution:
    result = {"session": int(request["session"]), "scene": int(request["scene"])}
    rule = RECHARGES.get(str(request.get("family")))
    return Resolution(result, rule(request) if rule else [])


register("session_started", resolve_clock, is_roll=False)
register("scene_started", resolve_clock, is_roll=False)
