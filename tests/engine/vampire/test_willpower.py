"""Willpower restored by the Storyteller (VAM-3), exhaustively."""

from __future__ import annotations

from itertools import product
from typing import Any

import pytest

from app.engine.errors import RuleRefusal
from tests.engine import rules
from tests.engine.vampire.requests import PC, SCENE, SESSION, SYSTEM, d10, make_sheet


def resolve_willpower_restore(request: dict[str, Any], dice: Any) -> rules.Resolved:
    return rules.resolve("vampire.willpower_restore", request, dice)


def restore_request(maximum: int, current: int, amount: int) -> dict[str, Any]:
    return {
        "system": SYSTEM,
        "session": SESSION,
        "scene": SCENE,
        "character": {
            "id": PC,
            "name": "Lucien",
            "kind": "pc",
            "sheet": make_sheet(willpower=(maximum, current)),
        },
        "amount": amount,
    }


@pytest.mark.parametrize("maximum", range(1, 11))
def test_VAM_3_willpower_restore_is_capped_at_max_and_refused_when_full(maximum):
    for current, amount in product(range(0, maximum + 1), range(1, 11)):
        request = restore_request(maximum, current, amount)
        dice = d10()
        if current == maximum:
            with pytest.raises(RuleRefusal) as caught:
                resolve_willpower_restore(request, dice)
            assert caught.value.rule == "VAM-3"
            continue
        resolution = resolve_willpower_restore(request, dice)
        dice.assert_consumed()
        after = min(maximum, current + amount)
        assert resolution.result == {"restored": after - current, "current": after}
        assert resolution.effects == [
            {
                "character_id": PC,
                "field": "willpower",
                "before": {"max": maximum, "current": current},
                "after": {"max": maximum, "current": after},
                "rule": "VAM-3",
            }
        ]
