"""VAM-40 (the classic rule) in the engine: the track, its levels and penalties, a full
track, and the wound penalty as each rules version resolves an action."""

from __future__ import annotations

import pytest

from app.engine.errors import RuleRefusal
from app.engine.rulesets.vampire.health import level_of, take, wound_penalty
from app.engine.rulesets.vampire.sheet import VampireHealth
from tests.engine.rules import resolve
from tests.engine.vampire.requests import d10, make_sheet
from tests.engine.vampire.test_action import action_request


def track(bashing: int = 0, lethal: int = 0, aggravated: int = 0) -> VampireHealth:
    return VampireHealth(bashing=bashing, lethal=lethal, aggravated=aggravated)


@pytest.mark.parametrize(
    ("filled", "level", "penalty"),
    [
        (0, None, 0),
        (1, "bruised", 0),
        (2, "hurt", 1),
        (3, "injured", 1),
        (4, "wounded", 2),
        (5, "mauled", 2),
        (6, "crippled", 5),
        (7, "incapacitated", 0),
    ],
)
def test_VAM40_seven_levels_and_their_penalties(filled, level, penalty):
    for health in (track(bashing=filled), track(aggravated=filled)):
        assert (level_of(health), wound_penalty(health)) == (level, penalty)


def test_VAM40_the_track_holds_seven_levels():
    with pytest.raises(ValueError, match="VAM-40"):
        track(bashing=4, lethal=4)


@pytest.mark.parametrize(
    ("before", "damage_type", "levels", "after", "beyond"),
    [
        (track(), "bashing", 3, track(bashing=3), 0),
        (track(bashing=2), "lethal", 2, track(bashing=2, lethal=2), 0),
        # Full: bashing or lethal turns a bashing box lethal.
        (track(bashing=7), "bashing", 2, track(bashing=5, lethal=2), 0),
        (track(bashing=6), "lethal", 3, track(bashing=4, lethal=3), 0),
        # Full of lethal: nothing lesser is left to turn.
        (track(lethal=7), "lethal", 2, track(lethal=7), 2),
        (track(lethal=7), "bashing", 1, track(lethal=7), 1),
        # Aggravated turns the least severe box aggravated, bashing before lethal.
        (track(bashing=1, lethal=6), "aggravated", 3, track(lethal=4, aggravated=3), 0),
        (track(aggravated=7), "aggravated", 1, track(aggravated=7), 1),
    ],
)
def test_VAM40_damage_fills_the_track_then_worsens_it(before, damage_type, levels, after, beyond):
    assert take(before, damage_type, levels) == (after, beyond)


def hurt_sheet(**health: int) -> dict[str, object]:
    sheet = make_sheet("astuce", 3, {"subterfuge": 3})
    sheet["health"] = track(**health).model_dump()
    return sheet


def test_VAM40_the_wound_penalty_is_version_2s_and_version_1_replays_without_it():
    request = action_request(hurt_sheet(bashing=4), ability="subterfuge")  # Wounded −2
    old = resolve("vampire.action", request, d10(*[2] * 6), rules="vampire@1")
    new = resolve("vampire.action", request, d10(*[2] * 4), rules="vampire@2")
    assert "wound_penalty" not in old.result and old.result["pool"] == 6
    assert (new.result["wound_penalty"], new.result["pool"]) == (2, 4)


def test_VAM40_the_incapacitated_cannot_act_from_version_2():
    request = action_request(hurt_sheet(lethal=7), ability="subterfuge")
    with pytest.raises(RuleRefusal) as caught:
        resolve("vampire.action", request, d10(), rules="vampire@2")
    assert caught.value.rule == "VAM-40"
    assert resolve("vampire.action", request, d10(*[2] * 6), rules="vampire@1").result["pool"] == 6
