"""Vampire initiative in an encounter (app/engine/rulesets/vampire/combat.py): the source
gives no rule, so the classic one, 1D10 + Dextérité + Astuce, highest first; ties go to the
higher Dextérité + Astuce, then to a 1D10 roll-off.

Initiative draws from ReplayDice through the kind's typed contract, and every test checks
that exactly the scripted dice were drawn. Expected values are written here from the rule.
"""

from __future__ import annotations

from itertools import product
from typing import Any

import pytest

from app.engine.dice import ReplayDice
from tests.engine.rules import resolve
from tests.engine.vampire.requests import SYSTEM


def vam_request(*combatants: tuple[str, str, int, int]) -> dict[str, Any]:
    return {
        "system": SYSTEM,
        "session": 1,
        "scene": 1,
        "combatants": [
            {"id": cid, "name": cid, "kind": kind, "dexterite": dex, "astuce": astuce}
            for cid, kind, dex, astuce in combatants
        ],
    }


def vam_order(request: dict[str, Any], faces: list[int]) -> dict[str, Any]:
    dice = ReplayDice([{"sides": 10, "face": face} for face in faces])
    result = resolve("vampire.initiative", request, dice).result
    dice.assert_consumed()
    return result


def test_vampire_initiative_highest_total_first() -> None:
    request = vam_request(("lucien", "pc", 3, 4), ("ghoul", "npc", 2, 2), ("marta", "pc", 1, 1))
    result = vam_order(request, [2, 10, 9])
    assert [(r["character_id"], r["die"], r["traits"], r["total"]) for r in result["order"]] == [
        ("ghoul", 10, 4, 14),
        ("marta", 9, 2, 11),
        ("lucien", 2, 7, 9),
    ]
    assert [r["rank"] for r in result["order"]] == [1, 2, 3]
    assert all(r["rolloff"] == [] for r in result["order"])


@pytest.mark.parametrize(("a", "b"), list(product(range(1, 11), repeat=2)))
def test_vampire_initiative_every_pair_of_dice(a: int, b: int) -> None:
    # Lucien 3+4=7, Ghoul 2+2=4: equal totals go to Lucien's higher traits, no roll-off.
    request = vam_request(("lucien", "pc", 3, 4), ("ghoul", "npc", 2, 2))
    result = vam_order(request, [a, b])
    first = "lucien" if a + 7 >= b + 4 else "ghoul"
    assert result["order"][0]["character_id"] == first


@pytest.mark.parametrize("ghoul_first", [True, False])
def test_vampire_initiative_ties_go_to_higher_traits(ghoul_first: bool) -> None:
    # Both total 11: Dex+Astuce 7 beats 4 with no roll-off drawn, whatever the listing order.
    lucien, ghoul = ("lucien", "pc", 3, 4), ("ghoul", "npc", 2, 2)
    listing, faces = ([ghoul, lucien], [7, 4]) if ghoul_first else ([lucien, ghoul], [4, 7])
    result = vam_order(vam_request(*listing), faces)
    assert [r["character_id"] for r in result["order"]] == ["lucien", "ghoul"]
    assert [r["total"] for r in result["order"]] == [11, 11]
    assert all(r["rolloff"] == [] for r in result["order"])


def test_vampire_initiative_full_ties_roll_off_1d10() -> None:
    request = vam_request(("lucien", "pc", 3, 4), ("marta", "pc", 4, 3))
    result = vam_order(request, [5, 5, 3, 8])  # both 12 with traits 7: Lucien 3, Marta 8
    assert [r["character_id"] for r in result["order"]] == ["marta", "lucien"]
    assert {r["character_id"]: r["rolloff"] for r in result["order"]} == {
        "lucien": [3],
        "marta": [8],
    }


def test_vampire_initiative_a_tied_roll_off_rolls_again() -> None:
    request = vam_request(("lucien", "pc", 3, 4), ("marta", "pc", 4, 3), ("ghoul", "npc", 2, 2))
    # Lucien and Marta 12 (traits 7), Ghoul 10; roll-off 6/6 again, then 2/9.
    result = vam_order(request, [5, 5, 6, 6, 6, 2, 9])
    assert [r["character_id"] for r in result["order"]] == ["marta", "lucien", "ghoul"]
    by_id = {r["character_id"]: r for r in result["order"]}
    assert by_id["lucien"]["rolloff"] == [6, 2]
    assert by_id["marta"]["rolloff"] == [6, 9]
    assert by_id["ghoul"]["rolloff"] == []


def test_vampire_initiative_three_way_roll_off() -> None:
    request = vam_request(("a", "pc", 2, 2), ("b", "npc", 1, 3), ("c", "pc", 3, 1))
    # All 4 + 6 = 10 with traits 4: roll-off a 2, b 9, c 2; a and c again: 7, 1.
    result = vam_order(request, [6, 6, 6, 2, 9, 2, 7, 1])
    assert [r["character_id"] for r in result["order"]] == ["b", "a", "c"]
    assert [r["rank"] for r in result["order"]] == [1, 2, 3]
