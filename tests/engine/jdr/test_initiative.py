"""Initiative (JDR-30a, JDR-31, JDR-31a), every face combination."""

from __future__ import annotations

from itertools import product
from typing import Any

import pytest

from app.engine.dice import ReplayDice
from tests.engine.jdr.requests import (
    BELIEVER,
    FACES2,
    NPC,
    PC,
    PC2,
    PC3,
    D,
    clock,
    refused,
    run,
)
from tests.engine.rules import resolve

# --- JDR-30a/31/31a: initiative -------------------------------------------------------


def fighter(cid: str, kind: str, physique: int, **flags: bool) -> dict[str, Any]:
    return {
        "id": cid,
        "name": cid[-2:],
        "kind": kind,
        "physique": physique,
        "surprise": flags.get("surprise", False),
        "off_guard": flags.get("off_guard", False),
    }


def init_req(*fighters: dict[str, Any], order: Any = (), already: Any = ()) -> dict[str, Any]:
    return {
        **clock(D),
        "combatants": list(fighters),
        "order": list(order),
        "already_rolled": list(already),
    }


def ids(resolution: Any) -> list[str]:
    rows = resolution.result["order"]
    assert [row["rank"] for row in rows] == list(range(1, len(rows) + 1))
    return [row["character_id"] for row in rows]


@pytest.mark.parametrize(("pc_phys", "npc_phys"), [(0, 5), (3, 3), (5, 0), (2, 3)])
def test_JDR_30a_pc_against_npc_every_face_combination(pc_phys: int, npc_phys: int) -> None:
    request = init_req(fighter(PC, "pc", pc_phys), fighter(NPC, "npc", npc_phys))
    for pc_faces, npc_faces in product(FACES2, FACES2):
        resolution = run("jdr.initiative", request, pc_faces + npc_faces)  # no roll-off
        pc_total, npc_total = sum(pc_faces) + pc_phys, sum(npc_faces) + npc_phys
        rows = {row["character_id"]: row for row in resolution.result["order"]}
        assert (rows[PC]["total"], rows[NPC]["total"]) == (pc_total, npc_total)
        assert rows[PC]["dice"] == list(pc_faces) and rows[NPC]["dice"] == list(npc_faces)
        assert ids(resolution) == ([PC, NPC] if pc_total >= npc_total else [NPC, PC])
        assert rows[PC]["rolloff"] == rows[NPC]["rolloff"] == []


def test_JDR_30a_two_pcs_every_face_combination_roll_off_on_ties() -> None:
    request = init_req(fighter(PC, "pc", 2), fighter(PC2, "pc", 2))
    for a, b in product(FACES2, FACES2):
        tie = sum(a) == sum(b)
        resolution = run("jdr.initiative", request, a + b + ((2, 5) if tie else ()))
        rows = {row["character_id"]: row for row in resolution.result["order"]}
        if tie:
            assert ids(resolution) == [PC2, PC]
            assert (rows[PC]["rolloff"], rows[PC2]["rolloff"]) == ([2], [5])
        else:
            assert ids(resolution) == ([PC, PC2] if sum(a) > sum(b) else [PC2, PC])
            assert rows[PC]["rolloff"] == rows[PC2]["rolloff"] == []


def test_JDR_30a_roll_off_every_face_pair_rerolls_while_tied() -> None:
    request = init_req(fighter(PC, "pc", 2), fighter(PC2, "pc", 2))
    for x, y in FACES2:
        extra = (6, 1) if x == y else ()
        resolution = run("jdr.initiative", request, (3, 3, 4, 2, x, y, *extra))
        rows = {row["character_id"]: row for row in resolution.result["order"]}
        assert ids(resolution) == ([PC, PC2] if x >= y else [PC2, PC])
        assert rows[PC]["rolloff"] == [x, *extra[:1]]
        assert rows[PC2]["rolloff"] == [y, *extra[1:]]


def test_JDR_30a_three_way_roll_off_records_every_die() -> None:
    request = init_req(fighter(PC, "pc", 1), fighter(PC2, "pc", 1), fighter(PC3, "pc", 1))
    resolution = run("jdr.initiative", request, (3, 3, 2, 4, 5, 1, 4, 4, 2, 1, 5))
    rows = {row["character_id"]: row for row in resolution.result["order"]}
    assert ids(resolution) == [PC2, PC, PC3]
    assert [rows[c]["rolloff"] for c in (PC, PC2, PC3)] == [[4, 1], [4, 5], [2]]


def test_JDR_30a_tie_breaks_gm_order_then_physique_then_roll_off() -> None:
    # Totals all 8: GM names PC3 first; PC2 (physique 4) before PC (2); no roll-off drawn.
    a, b, c = fighter(PC, "pc", 2), fighter(PC2, "pc", 4), fighter(PC3, "pc", 2)
    resolution = run("jdr.initiative", init_req(a, b, c, order=[PC3]), (3, 3, 2, 2, 3, 3))
    assert ids(resolution) == [PC3, PC2, PC]
    resolution = run("jdr.initiative", init_req(a, b, c, order=[PC, PC3]), (3, 3, 2, 2, 3, 3))
    assert ids(resolution) == [PC, PC3, PC2]
    # Without an order, PC and PC3 (same physique) roll off after PC2.
    resolution = run("jdr.initiative", init_req(a, b, c), (3, 3, 2, 2, 3, 3, 1, 6))
    assert ids(resolution) == [PC2, PC3, PC]
    # Two tied NPCs follow the same tie-breaks, after a tied PC.
    n1, n2 = fighter(NPC, "npc", 2), fighter(BELIEVER, "npc", 2)
    resolution = run("jdr.initiative", init_req(n1, n2, a), (3, 3, 3, 3, 3, 3, 2, 4))
    assert ids(resolution) == [PC, BELIEVER, NPC]


def test_JDR_31a_surprise_adds_two_and_off_guard_acts_last() -> None:
    pc, npc = fighter(PC, "pc", 2), fighter(NPC, "npc", 2, surprise=True)
    resolution = run("jdr.initiative", init_req(pc, npc), (3, 3, 3, 3))
    rows = {row["character_id"]: row for row in resolution.result["order"]}
    assert (rows[NPC]["surprise"], rows[NPC]["total"], rows[PC]["total"]) == (2, 10, 8)
    assert ids(resolution) == [NPC, PC]
    resolution = run("jdr.initiative", init_req(pc, {**npc, "surprise": False}), (3, 3, 3, 3))
    assert ids(resolution) == [PC, NPC]  # the tie goes to the PC
    sleepy = fighter(PC, "pc", 5, off_guard=True)
    resolution = run(
        "jdr.initiative", init_req(sleepy, npc, fighter(PC2, "pc", 0)), (6, 6, 1, 1, 1, 1)
    )
    assert ids(resolution) == [NPC, PC2, PC]
    assert resolution.result["order"][-1]["off_guard"] is True


def test_JDR_31_initiative_once_per_scene() -> None:
    request = init_req(fighter(PC, "pc", 2), fighter(NPC, "npc", 2), already=[NPC])
    refused("jdr.initiative", request, "JDR-31")


@pytest.mark.parametrize("faces", list(product(range(1, 7), repeat=3)))
def test_JDR_3_a_serious_wound_burdens_initiative_too(faces: tuple[int, ...]) -> None:
    wounded = {
        "id": "w",
        "name": "Blessé",
        "kind": "pc",
        "physique": 2,
        "wounds": [{"severity": "serious", "note": "", "cared": False}],
    }
    request = {"system": D, "session": 1, "scene": 1, "combatants": [wounded], "already_rolled": []}
    dice = ReplayDice([{"sides": 6, "face": f} for f in faces])
    (row,) = resolve("jdr.initiative", request, dice).result["order"]
    dice.assert_consumed()
    assert row["mode"] == "disadvantage"
    assert row["total"] == sum(sorted(faces)[:2]) + 2


# --- JDR-31/31a: the first round's modifiers lapse; totals carried through the scene ----------


def scene_req(*fighters: dict[str, Any], carried: Any = ()) -> dict[str, Any]:
    """An initiative as an encounter asks it (JDR-31): the rows already rolled in the
    scene are carried, and nobody is listed as having rolled."""
    return {**init_req(*fighters), "carried": list(carried)}


def jdr_roll(request: dict[str, Any], faces: list[int]) -> dict[str, Any]:
    return run("jdr.initiative", request, faces).result


def test_JDR_31a_surprise_and_off_guard_count_in_the_first_round_only() -> None:
    request = scene_req(
        fighter("strigoi", "npc", 3, surprise=True),
        fighter("mihail", "pc", 2, off_guard=True),
        fighter("ilona", "pc", 2),
    )
    # Strigoi 4+3+3+2 = 12, Mihail 6+6+2 = 14 (off guard), Ilona 4+4+2 = 10.
    result = jdr_roll(request, [4, 3, 6, 6, 4, 4])
    order = result["order"]
    assert [(r["character_id"], r["total"], r["surprise"]) for r in order] == [
        ("strigoi", 12, 2),
        ("ilona", 10, 0),
        ("mihail", 14, 0),
    ]
    # Later rounds: Mihail 14, then Ilona and Strigoi tied on 10 (PC first).
    assert result["later_rounds"] == ["mihail", "ilona", "strigoi"]


def test_JDR_31a_later_rounds_without_the_first_round_modifiers() -> None:
    cases = [
        # (faces, later-round order) for: A surprise (phys 1), B (phys 1), C off guard (phys 1)
        ([3, 3, 4, 3, 6, 6], ["c", "b", "a"]),  # A 9 (7 later), B 8, C 13
        ([4, 4, 3, 3, 1, 1], ["a", "b", "c"]),  # A 11 (9 later), B 7, C 3
        ([3, 3, 4, 3, 3, 3], ["b", "c", "a"]),  # A 9 (7), B 8, C 7: the tie goes to the PC
    ]
    for faces, later in cases:
        request = scene_req(
            fighter("a", "npc", 1, surprise=True),
            fighter("b", "pc", 1),
            fighter("c", "pc", 1, off_guard=True),
        )
        result = jdr_roll(request, faces)
        assert result["order"][-1]["character_id"] == "c"  # off guard: last in round 1
        assert result["later_rounds"] == later, faces


def test_JDR_31_carried_totals_are_kept_and_draw_no_dice() -> None:
    first = jdr_roll(
        scene_req(fighter("mihail", "pc", 2), fighter("strigoi", "npc", 3)),
        [5, 5, 1, 2],
    )  # Mihail 12, Strigoi 6
    kept = [{k: v for k, v in r.items() if k not in ("rank", "carried")} for r in first["order"]]
    again = jdr_roll(scene_req(carried=kept), [])
    assert [(r["character_id"], r["total"], r["dice"]) for r in again["order"]] == [
        ("mihail", 12, [5, 5]),
        ("strigoi", 6, [1, 2]),
    ]
    assert all(r["carried"] for r in again["order"])
    assert [r["rank"] for r in again["order"]] == [1, 2]
    assert again["later_rounds"] == ["mihail", "strigoi"]


def test_JDR_31_a_newcomer_rolls_and_takes_their_place_among_carried_totals() -> None:
    carried = [
        {
            "character_id": "mihail",
            "name": "mihail",
            "kind": "pc",
            "dice": [5, 5],
            "physique": 2,
            "surprise": 0,
            "total": 12,
            "off_guard": False,
            "rolloff": [],
        },
        {
            "character_id": "strigoi",
            "name": "strigoi",
            "kind": "npc",
            "dice": [1, 2],
            "physique": 3,
            "surprise": 0,
            "total": 6,
            "off_guard": False,
            "rolloff": [],
        },
    ]
    result = jdr_roll(scene_req(fighter("loup", "npc", 2), carried=carried), [4, 3])
    assert [(r["character_id"], r["total"], r.get("carried", False)) for r in result["order"]] == [
        ("mihail", 12, True),
        ("loup", 9, False),
        ("strigoi", 6, True),
    ]
    assert result["later_rounds"] == ["mihail", "loup", "strigoi"]
    # The carried rows are not modified in place.
    assert "carried" not in carried[0] and "rank" not in carried[0]


def test_JDR_31_a_carried_tie_is_broken_like_any_other() -> None:
    carried = [
        {
            "character_id": "strigoi",
            "name": "strigoi",
            "kind": "npc",
            "dice": [3, 3],
            "physique": 3,
            "surprise": 0,
            "total": 9,
            "off_guard": False,
            "rolloff": [],
        }
    ]
    # Ilona 5 + 2 + 2 = 9: a PC before an NPC on a tie, no roll-off.
    result = jdr_roll(scene_req(fighter("ilona", "pc", 2), carried=carried), [5, 2])
    assert [r["character_id"] for r in result["order"]] == ["ilona", "strigoi"]
    assert result["later_rounds"] == ["ilona", "strigoi"]
