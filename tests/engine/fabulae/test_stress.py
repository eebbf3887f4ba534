"""Fabulae stress and panic (FAB-40..44), exhaustively."""

from __future__ import annotations

from itertools import product
from typing import Any

import pytest

from app.engine.errors import InvalidInput
from tests.engine.fabulae.adapters import (
    panic_row,
    resolve_panic,
    resolve_stress,
    resolve_stress_resist,
    stress_gain,
)
from tests.engine.fabulae.core import (
    ALLY,
    ALLY2,
    CONDITION_CODES,
    FACES,
    PC,
    P,
    char,
    clock,
    eff,
    expected_panic_code,
    expected_read,
    make_sheet,
    refused,
    resist_req,
    run,
)

# --- FAB-41 / FAB-43: stress -------------------------------------------------------------------


@pytest.mark.parametrize("amount", range(1, 11))
def test_FAB41_stress_gain_with_and_without_cool_head(amount: int) -> None:
    plain = make_sheet(stress=2)
    cool = make_sheet(stress=5, talents=["cool_head"])
    assert stress_gain(plain, amount) == amount
    assert stress_gain(cool, amount) == amount - 1
    request = {
        **clock(),
        "characters": [char(plain, PC), char(cool, ALLY)],
        "amount": amount,
        "reason": "Un cri dans la brume",
    }
    resolution = run(resolve_stress, request)
    assert resolution.result == {
        "amount": amount,
        "gains": [
            {"character_id": PC, "gain": amount},
            {"character_id": ALLY, "gain": amount - 1},
        ],
        "reason": "Un cri dans la brume",
    }
    effects = [eff("stress", 2, 2 + amount, "FAB-41", PC)]
    if amount > 1:
        effects.append(eff("stress", 5, 4 + amount, "FAB-41", ALLY))
    assert resolution.effects == effects


def test_FAB41_cool_head_never_turns_a_gain_negative() -> None:
    assert stress_gain(make_sheet(talents=["cool_head"]), 0) == 0
    assert stress_gain(make_sheet(talents=["cool_head"]), 1) == 0


@pytest.mark.parametrize("amount", [0, 11, -1])
def test_FAB41_stress_amount_out_of_range(amount: int) -> None:
    request = {**clock(), "characters": [char(make_sheet())], "amount": amount, "reason": ""}
    refused(resolve_stress, request, None, InvalidInput)


@pytest.mark.parametrize(
    ("stress", "attribute"),
    [
        *product([0, 1, 2, 3], ["physique", "intellect", "empathie"]),
    ],
)
def test_FAB43_stress_resist_every_face(stress: int, attribute: str) -> None:
    sheet = make_sheet({attribute: 1}, {"resistance": 1}, stress=stress)
    request = resist_req(sheet, attribute)
    for faces in product(FACES, repeat=2 + stress):
        resolution = run(resolve_stress_resist, request, faces)
        assert resolution.result["pool"]["pool"] == 2
        expected = expected_read(faces[:2], faces[2:])
        assert {k: resolution.result[k] for k in expected} == expected
        if expected["outcome"] == "success":
            after = max(0, stress - expected["sixes"])
            assert resolution.result["stress_lowered"] == stress - after
            effects = [eff("stress", stress, after, "FAB-43")] if after != stress else []
            assert resolution.effects == effects, faces
        else:
            assert "stress_lowered" not in resolution.result
            assert resolution.effects == []


@pytest.mark.parametrize(
    ("attribute", "skill", "rule"),
    [
        P("physique", "athletisme", None, id="FAB43-not-resistance"),
        P("physique", None, None, id="FAB43-pure-attribute"),
        P("habilete", "resistance", "FAB-4", id="FAB4-habilete-resistance"),
    ],
)
def test_FAB43_stress_resist_refusals(attribute: str, skill: Any, rule: str | None) -> None:
    request = resist_req(make_sheet(stress=2), attribute, skill)
    refused(resolve_stress_resist, request, rule, InvalidInput)


# --- FAB-44: panic -----------------------------------------------------------------------------


@pytest.mark.parametrize("score", range(-5, 31))
def test_FAB44_panic_row_every_score(score: int) -> None:
    assert panic_row(score)[0] == expected_panic_code(score)


@pytest.mark.parametrize("cool_head", [False, True])
@pytest.mark.parametrize("stress", range(13))
@pytest.mark.parametrize("die", FACES)
def test_FAB44_panic_every_die_stress_and_cool_head(die: int, stress: int, cool_head: bool) -> None:
    sheet = make_sheet(stress=stress, talents=["cool_head"] if cool_head else [])
    nervous = make_sheet(stress=2)
    calm = make_sheet(stress=0, talents=["cool_head"])
    request = {
        **clock(),
        "character": char(sheet),
        "allies": [char(nervous, ALLY), char(calm, ALLY2)],
        "modifier": 0,
    }
    resolution = run(resolve_panic, request, [die])
    result = resolution.result
    score = die + stress - (2 if cool_head else 0)
    code = expected_panic_code(score)
    assert (result["die"], result["stress"], result["score"], result["code"]) == (
        die,
        stress,
        score,
        code,
    )
    assert result["cool_head"] == (-2 if cool_head else 0)
    effects = []
    if code == "jolt":
        if not cool_head:  # cool_head takes the +1 down to 0
            effects.append(eff("stress", stress, stress + 1, "FAB-44", PC))
        effects.append(eff("stress", 2, 3, "FAB-44", ALLY))
    elif code == "take_cover":
        if stress > 0:
            effects.append(eff("stress", stress, stress - 1, "FAB-44", PC))
        effects.append(eff("stress", 2, 3, "FAB-44", ALLY))
    elif code == "scream" and stress > 0:
        effects.append(eff("stress", stress, stress - 1, "FAB-44", PC))
    assert resolution.effects == effects
    if code in ("scream", "flee"):
        assert result["must_roll_panic"] == [ALLY, ALLY2]
    else:
        assert "must_roll_panic" not in result
    if code in CONDITION_CODES:
        assert result["condition"] == {"character_id": PC, "code": code}
    else:
        assert "condition" not in result


@pytest.mark.parametrize("modifier", [-1, 0, 2])
def test_FAB44_panic_modifier_adds_to_the_score(modifier: int) -> None:
    request = {
        **clock(),
        "character": char(make_sheet(stress=5)),
        "allies": [],
        "modifier": modifier,
    }
    result = run(resolve_panic, request, [3]).result
    assert result["score"] == 8 + modifier
    assert result["code"] == expected_panic_code(8 + modifier)


def test_FAB44_scream_and_take_cover_never_drop_stress_below_zero() -> None:
    # score 12 with stress 0 cannot happen on a d6; with a modifier it can.
    request = {**clock(), "character": char(make_sheet(stress=0)), "allies": [], "modifier": 6}
    resolution = run(resolve_panic, request, [6])
    assert resolution.result["code"] == "scream"
    assert resolution.effects == []
