"""The sweep of a pushed roll's classes by their sixes (FAB-31, issue 21): what it reads
from the ends of a run equals what every class of the run reads, for values that move by
one a six, stay, or jump within one outcome (FAB-102's malus), and it replays few."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from app.engine.rulesets.fabulae.odds_sweep import Reads, swept

P = pytest.param
PER_SIX = frozenset({"net", "prouesses", "damage"})


def opposed(passive: int, weapon: int, armor: int) -> Callable[[int], Reads]:
    """FAB-36, FAB-66, FAB-67: an attack against `passive` kept sixes, its damage through
    `armor` kept protection sixes; a fresh die's ways change while the damage is small."""

    def replay(sixes: int) -> Reads:
        net = sixes - passive
        if net < 1:
            return [("miss", {"net": net, "prouesses": 0, "damage": 0}, {0: 1})]
        damage = weapon + net - 1
        fresh = {0: 1} if damage >= 3 else {0: 1, damage: 2}
        values = {"net": net, "prouesses": net - 1, "damage": max(0, damage - armor)}
        return [("hit", values, fresh)]

    return replay


def dimming(sixes: int) -> Reads:
    """FAB-102 light_dark: −2, −4 from the first Prouesse: a jump of two, not a six's."""
    if not sixes:
        return [("failure", {"malus": 0, "prouesses": 0}, {0: 1})]
    return [("success", {"malus": -2 if sixes == 1 else -4, "prouesses": sixes - 1}, {0: 1})]


def falling(sixes: int) -> Reads:
    """A value a six lowers by one (as armor's sixes lower damage), two faces of a die."""
    return [("one", {"damage": 40 - sixes}, {0: 1}), ("two", {"damage": 10}, {0: 2})]


@pytest.mark.parametrize(
    ("replay", "count", "most"),
    [
        P(opposed(3, 2, 5), 80, 40, id="FAB-66-attack-through-kept-armor"),
        P(opposed(0, 1, 0), 150, 40, id="FAB-67-fresh-die-while-damage-small"),
        P(dimming, 60, 20, id="FAB-102-malus-jumps-by-two"),
        P(falling, 30, 12, id="a-value-lowered-by-each-six"),
        P(opposed(2, 2, 0), 1, 2, id="one-class"),
        P(opposed(2, 2, 0), 0, 0, id="no-class"),
    ],
)
def test_FAB_31_swept_classes_read_as_each_replayed(
    replay: Callable[[int], Reads], count: int, most: int
) -> None:
    calls: list[int] = []

    def counted(sixes: int) -> Reads:
        calls.append(sixes)
        return replay(sixes)

    sixes = list(range(count))
    read = swept(sixes, counted, PER_SIX)
    assert read == {k: replay(k) for k in sixes}
    assert len(calls) == len(set(calls)) <= most


def test_FAB_31_a_value_not_read_by_the_six_is_never_carried_on() -> None:
    """A value outside `per_six` apart at the ends of a run is replayed class by class."""

    def stepped(sixes: int) -> Reads:
        return [("success", {"malus": sixes}, {0: 1})]

    calls: list[int] = []

    def counted(sixes: int) -> Reads:
        calls.append(sixes)
        return stepped(sixes)

    read = swept(list(range(9)), counted, PER_SIX)
    assert read == {k: stepped(k) for k in range(9)}
    assert sorted(calls) == list(range(9))
