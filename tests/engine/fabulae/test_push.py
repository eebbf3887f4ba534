"""Fabulae opposed rolls (FAB-36) and pushes (FAB-31..35, FAB-37), exhaustively."""

from __future__ import annotations

from itertools import product
from typing import Any

import pytest

from app.engine.errors import InvalidInput
from tests.engine.fabulae.adapters import (
    resolve_action,
    resolve_opposed,
    resolve_push,
    resolve_stress_resist,
)
from tests.engine.fabulae.core import (
    ATTRIBUTES,
    DOUBLE_PUSH,
    FACES,
    PUSH_SEQ,
    P,
    action_req,
    dice,
    eff,
    entry,
    expected_opposition,
    expected_read,
    follow,
    make_sheet,
    opposed_req,
    push_req,
    refused,
    rerolled,
    resist_req,
    roll_inputs,
    rotation,
    run,
)

# --- FAB-36: opposed rolls --------------------------------------------------------------------


SIDES = [(1, 0), (1, 1), (2, 0), (2, 1), (3, 0)]
# Every pairing of sides up to 5 dice in all (pool and stress dice of both sides).
OPPOSED_CONFIGS = [(*a, *p) for a, p in product(SIDES, SIDES) if sum(a) + sum(p) <= 5]


@pytest.mark.parametrize(("na", "sa", "np_", "sp"), OPPOSED_CONFIGS)
def test_FAB36_opposed_every_face_combination(na: int, sa: int, np_: int, sp: int) -> None:
    active = make_sheet({"physique": na}, stress=sa)
    passive = make_sheet({"physique": np_}, stress=sp)
    request = opposed_req(active, passive)
    winners = set()
    for faces in product(FACES, repeat=na + sa + np_ + sp):
        a = expected_read(faces[:na], faces[na : na + sa])
        p = expected_read(faces[na + sa : na + sa + np_], faces[na + sa + np_ :])
        result = run(resolve_opposed, request, faces).result
        expected = expected_opposition(a, p)
        assert {k: result[k] for k in expected} == expected, faces
        assert {k: result["active"][k] for k in a} == a
        assert {k: result["passive"][k] for k in p} == p
        winners.add(result["winner"])
    assert winners == {"active", "passive"}


@pytest.mark.parametrize(
    ("active_faces", "passive_faces", "net", "winner", "outcome", "feats"),
    [
        P([6, 6], [6, 2], 1, "active", "success", 0, id="strictly-more-wins"),
        P([6, 2], [6, 2], 0, "passive", "failure", 0, id="tie-goes-to-defender"),
        P([6, 6], [2, 2], 2, "active", "success", 1, id="net-two-is-a-feat"),
        P([2, 2], [6, 6], -2, "passive", "failure", 0, id="defender-wins"),
    ],
)
def test_FAB36_opposed_examples(
    active_faces: list[int],
    passive_faces: list[int],
    net: int,
    winner: str,
    outcome: str,
    feats: int,
) -> None:
    request = opposed_req(make_sheet({"physique": 2}), make_sheet({"physique": 2}))
    result = run(resolve_opposed, request, active_faces + passive_faces).result
    assert (result["net"], result["winner"], result["outcome"], result["feats"]) == (
        net,
        winner,
        outcome,
        feats,
    )


def test_FAB36_FAB14_impossible_sides_draw_nothing_and_score_zero() -> None:
    zero = make_sheet({"physique": 0}, stress=1)
    two = make_sheet({"physique": 2})
    result = run(resolve_opposed, opposed_req(two, zero), [6, 3]).result
    assert result["passive"]["outcome"] == "impossible"
    assert (result["net"], result["winner"], result["outcome"]) == (1, "active", "success")
    # An impossible attack never happens: the defender rolls nothing either (FAB-14).
    result = run(resolve_opposed, opposed_req(zero, two), []).result
    assert result["active"]["outcome"] == "impossible" and result["active"]["dice"] == []
    assert result["passive"]["outcome"] == "not_rolled" and result["passive"]["dice"] == []
    assert (result["net"], result["winner"], result["outcome"]) == (0, "passive", "impossible")


# --- FAB-31/32: pushing -------------------------------------------------------------------------


def check_push(
    sheet: dict[str, Any],
    faces: tuple[int, ...],
    pool: int,
    rerolls: list[int],
    variant: str,
) -> str:
    """Push an action rolled with `faces`, checking result and effects; returns the outcome."""
    request = action_req(sheet)
    first = run(resolve_action, request, faces).result
    normal, stress = list(faces[:pool]), list(faces[pool:])
    push = push_req(
        sheet,
        entry("fabulae.action", request, first),
        state="epuise" if variant == "state" else None,
        absorb=variant == "absorb",
    )
    if first["outcome"] == "panic":
        refused(resolve_push, push, "FAB-42")  # FAB-42: a panicked roll cannot be pushed
        return "refused"
    new_faces, new_stress, count = rerolled(normal, stress, rerolls)
    assert len(rerolls) == count
    ones = 1 in new_faces or 1 in new_stress
    resolution = run(resolve_push, push, rerolls)
    result = resolution.result
    expected = expected_read(new_faces, new_stress)
    assert {k: result[k] for k in expected} == expected, (faces, rerolls)
    assert result["rerolled_from"] == {"dice": normal, "stress_dice": stress}
    assert (result["push"], result["passive"]) == (1, False)
    assert result["pool"] == first["pool"]
    # FAB-34: the extra Destiny is spent only when a 1 shows; asking costs nothing otherwise,
    # so the answer never depends on the dice before they are paid for.
    cost = 2 if variant == "absorb" and ones else 1
    effects = [eff("destiny", 3, 3 - cost, "FAB-31")]
    if ones and variant == "state":
        effects.append(eff("states", [], ["epuise"], "FAB-32"))
        assert result["state_price"] == {"rule": "FAB-32", "state": "epuise"}
    elif ones and variant == "absorb":
        assert result["state_price"] == {"rule": "FAB-32", "absorbed": True}
    elif ones:
        assert result["pending_states"] == [{"rule": "FAB-32", "choice": "any"}]
    if not ones:
        assert "state_price" not in result and "pending_states" not in result
    if variant != "pending":
        assert "pending_states" not in result
    assert resolution.effects == effects, (faces, rerolls)
    return result["outcome"]


@pytest.mark.parametrize("stress", [0, 1, 2])
@pytest.mark.parametrize("pool", [1, 2, 3, 4])
def test_FAB31_FAB32_FAB42_push_every_face_combination(pool: int, stress: int) -> None:
    sheet = make_sheet({"physique": pool}, stress=stress)
    seen = set()
    for index, faces in enumerate(product(FACES, repeat=pool + stress)):
        variant = ("pending", "state", "absorb")[index % 3]
        count = sum(1 for f in faces if 2 <= f <= 5)
        seen.add(check_push(sheet, faces, pool, rotation(index, count), variant))
    expected = {"success", "failure"}
    if stress:
        expected |= {"panic", "refused"}  # panic after a rerolled stress die shows 1
    assert seen == expected


@pytest.mark.parametrize(("pool", "stress"), [(1, 0), (1, 1), (2, 0), (2, 1)])
def test_FAB31_FAB32_push_every_face_and_every_reroll(pool: int, stress: int) -> None:
    sheet = make_sheet({"physique": pool}, stress=stress)
    for faces in product(FACES, repeat=pool + stress):
        count = sum(1 for f in faces if 2 <= f <= 5)
        for rerolls in product(FACES, repeat=count):
            check_push(sheet, faces, pool, list(rerolls), "pending")


@pytest.mark.parametrize(
    ("faces", "rerolls", "dice_after", "stress_after", "outcome", "price"),
    [
        P((6, 1, 3), (6,), [6, 1, 6], [], "success", True, id="kept-one-costs-a-state"),
        P((6, 4, 3), (2, 5), [6, 2, 5], [], "success", False, id="six-kept-no-price"),
        P((2, 3, 4), (6, 6, 1), [6, 6, 1], [], "success", True, id="new-sixes-and-a-new-one"),
        P((2, 3, 5), (2, 3, 4), [2, 3, 4], [], "failure", False, id="still-failure"),
    ],
)
def test_FAB31_FAB32_push_examples(
    faces: tuple[int, ...],
    rerolls: tuple[int, ...],
    dice_after: list[int],
    stress_after: list[int],
    outcome: str,
    price: bool,
) -> None:
    sheet = make_sheet({"physique": 3})
    request = action_req(sheet)
    first = run(resolve_action, request, faces).result
    result = run(resolve_push, push_req(sheet, entry("fabulae.action", request, first)), rerolls)
    assert (result.result["dice"], result.result["stress_dice"]) == (dice_after, stress_after)
    assert result.result["outcome"] == outcome
    assert ("pending_states" in result.result) is price


def test_FAB31_FAB42_stress_die_rerolled_to_one_panics_and_still_costs_a_state() -> None:
    sheet = make_sheet({"physique": 2}, stress=1)
    request = action_req(sheet)
    first = run(resolve_action, request, [6, 6, 3]).result
    assert first["outcome"] == "success"
    resolution = run(resolve_push, push_req(sheet, entry("fabulae.action", request, first)), [1])
    assert (resolution.result["outcome"], resolution.result["panic"]) == ("panic", True)
    assert (resolution.result["feats"], resolution.result["label"]) == (0, "Panique")
    assert resolution.result["pending_states"] == [{"rule": "FAB-32", "choice": "any"}]


def test_FAB32_state_given_but_no_one_checks_nothing() -> None:
    sheet = make_sheet({"physique": 2})
    request = action_req(sheet)
    first = run(resolve_action, request, [3, 3]).result
    push = push_req(sheet, entry("fabulae.action", request, first), state="blesse")
    resolution = run(resolve_push, push, [6, 2])
    assert resolution.effects == [eff("destiny", 3, 2, "FAB-31")]
    assert "state_price" not in resolution.result


def test_FAB32_state_already_checked_is_invalid() -> None:
    sheet = make_sheet({"physique": 2}, states=["epuise"])
    request = action_req(sheet)
    first = run(resolve_action, request, [1, 3]).result
    push = push_req(sheet, entry("fabulae.action", request, first), state="epuise")
    with pytest.raises(InvalidInput):
        run(resolve_push, push, [4])


# --- FAB-33 / FAB-14 / FAB-31 / FAB-34: push refusals -------------------------------------------


def pushed_once(attribute: str, talents: list[str], destiny: int = 3) -> tuple[Any, Any, Any]:
    """An action on `attribute` rolled (3, 4) and pushed once to (2, 5)."""
    sheet = make_sheet({attribute: 2}, talents=talents, destiny=destiny)
    request = action_req(sheet, roll_inputs(attribute))
    first = run(resolve_action, request, [3, 4]).result
    action = entry("fabulae.action", request, first)
    second = run(resolve_push, push_req(sheet, action), [2, 5]).result
    return sheet, action, second


def test_FAB33_passive_roll_cannot_be_pushed() -> None:
    sheet = make_sheet()
    request = action_req(sheet, roll_inputs(passive=True))
    first = run(resolve_action, request, [2, 3, 4]).result
    assert first["passive"] is True
    refused(resolve_push, push_req(sheet, entry("fabulae.action", request, first)), "FAB-33")


@pytest.mark.parametrize("talent", [None, *DOUBLE_PUSH.values()])
@pytest.mark.parametrize("attribute", ATTRIBUTES)
def test_FAB33_second_push_needs_the_matching_double_push_talent(
    attribute: str, talent: str | None
) -> None:
    sheet, action, first_push = pushed_once(attribute, [talent] if talent else [])
    after_first = {**sheet, "destiny": 2}
    follow_ups = [follow("fabulae.push", first_push, PUSH_SEQ)]
    request = push_req(after_first, action, follow_ups)
    if talent == DOUBLE_PUSH[attribute]:
        resolution = run(resolve_push, request, [6, 3])  # the first push's 2 and 5 reroll
        assert resolution.result["dice"] == [6, 3]
        assert resolution.result["rerolled_from"] == {"dice": [2, 5], "stress_dice": []}
        assert resolution.result["push"] == 2
        assert resolution.effects == [eff("destiny", 2, 1, "FAB-31")]
        # FAB-33: never a third push, whatever the talents.
        third = push_req(
            {**after_first, "destiny": 1},
            action,
            [*follow_ups, follow("fabulae.push", resolution.result, PUSH_SEQ + 1)],
        )
        refused(resolve_push, third, "FAB-33")
    else:
        refused(resolve_push, request, "FAB-33")


def test_FAB33_FAB42_second_push_of_a_panicked_push_is_refused() -> None:
    sheet = make_sheet({"physique": 2}, talents=["double_push_physique"], stress=1)
    request = action_req(sheet)
    first = run(resolve_action, request, [6, 3, 4]).result
    action = entry("fabulae.action", request, first)
    pushed = run(resolve_push, push_req(sheet, action), [5, 1]).result
    assert pushed["outcome"] == "panic"
    follow_ups = [follow("fabulae.push", pushed, PUSH_SEQ)]
    refused(resolve_push, push_req(sheet, action, follow_ups), "FAB-42")


def test_FAB42_panicked_roll_cannot_be_pushed() -> None:
    sheet = make_sheet({"physique": 2}, stress=1)
    request = action_req(sheet)
    first = run(resolve_action, request, [6, 6, 1]).result
    refused(resolve_push, push_req(sheet, entry("fabulae.action", request, first)), "FAB-42")


def test_FAB14_impossible_roll_cannot_be_pushed() -> None:
    sheet = make_sheet({"physique": 0}, stress=2)
    request = action_req(sheet)
    first = run(resolve_action, request, []).result
    refused(resolve_push, push_req(sheet, entry("fabulae.action", request, first)), "FAB-14")


@pytest.mark.parametrize(
    ("destiny", "absorb", "rule"),
    [P(0, False, "FAB-31", id="push-no-destiny"), P(1, True, "FAB-34", id="absorb-one-short")],
)
def test_FAB31_FAB34_push_needs_destiny(destiny: int, absorb: bool, rule: str) -> None:
    sheet = make_sheet({"physique": 2}, destiny=destiny)
    request = action_req(sheet)
    first = run(resolve_action, request, [1, 3]).result
    push = push_req(sheet, entry("fabulae.action", request, first), absorb=absorb)
    refused(resolve_push, push, rule)


def test_FAB31_only_action_rolls_are_pushed() -> None:
    sheet = make_sheet()
    action = entry("fabulae.panic", {}, {"die": 3})
    refused(resolve_push, push_req(sheet, action), None, InvalidInput)


# --- FAB-37: opposed push ---------------------------------------------------------------------


def test_FAB37_opposed_push_every_face_recomputes_net_against_passive_sixes() -> None:
    active = make_sheet({"physique": 2}, stress=1)
    passive = make_sheet({"physique": 1}, stress=1)
    request = opposed_req(active, passive)
    seen = set()
    for index, faces in enumerate(product(FACES, repeat=5)):
        first = run(resolve_opposed, request, faces).result
        push = push_req(active, entry("fabulae.opposed", request, first))
        if first["active"]["outcome"] == "panic":
            refused(resolve_push, push, "FAB-42")
            continue
        count = sum(1 for f in faces[:3] if 2 <= f <= 5)
        rerolls = rotation(index, count)
        new_faces, new_stress, _ = rerolled(faces[:2], faces[2:3], rerolls)
        resolution = run(resolve_push, push, rerolls)
        result = resolution.result
        a = expected_read(new_faces, new_stress)
        p = expected_read(faces[3:4], faces[4:5])
        expected = expected_opposition(a, p)
        assert {k: result[k] for k in expected} == expected, (faces, rerolls)
        assert {k: result["active"][k] for k in a} == a
        assert result["passive"] == first["passive"]  # the defender's dice are not rerolled
        assert result["push"] == 1
        ones = 1 in new_faces or 1 in new_stress
        assert ("pending_states" in result) is ones
        assert resolution.effects == [eff("destiny", 3, 2, "FAB-31")]
        seen.add((result["winner"], result["outcome"]))
    assert seen == {
        ("active", "success"),
        ("passive", "failure"),
        ("passive", "panic"),
    }


def test_FAB33_FAB37_passive_active_roll_in_opposed_cannot_be_pushed() -> None:
    active, passive = make_sheet(), make_sheet()
    request = opposed_req(active, passive, roll_inputs(passive=True))
    first = run(resolve_opposed, request, [2, 3, 4, 6, 6, 6]).result
    refused(resolve_push, push_req(active, entry("fabulae.opposed", request, first)), "FAB-33")


# --- discrepancies with fabulae-tenebris.md (documented, engine unchanged) ---------------


def test_FAB43_FAB33_pushed_stress_resist_lowers_stress_by_the_new_sixes() -> None:
    sheet = make_sheet({"physique": 2}, {"resistance": 1}, stress=3)
    request = resist_req(sheet)
    first = run(resolve_stress_resist, request, [2, 3, 4, 5, 5, 5]).result
    assert first["outcome"] == "failure"
    push = push_req(sheet, entry("fabulae.stress_resist", request, first))
    resolution = run(resolve_push, push, [6, 6, 2, 3, 4, 5])
    assert resolution.result["sixes"] == 2
    assert eff("stress", 3, 1, "FAB-43") in resolution.effects


@pytest.mark.parametrize("rerolls", [P([1, 4], id="a-one-shows"), P([2, 4], id="no-one")])
def test_FAB32_invalid_price_state_is_refused_before_the_push_draws(rerolls: list[int]) -> None:
    """An unusable `state` is only noticed when a 1 shows, after the dice are drawn: the
    refusal reveals the push's outcome (the entry is not logged, so the same dice come back)."""
    sheet = make_sheet({"physique": 2}, states=["epuise"])
    request = action_req(sheet)
    first = run(resolve_action, request, [3, 3]).result
    push = push_req(sheet, entry("fabulae.action", request, first), state="epuise")
    source = dice(rerolls)
    with pytest.raises(InvalidInput):
        resolve_push(push, source)
    assert source.draws == []
