"""Fabulae states, state choices and absorbing (FAB-20, FAB-22, FAB-32, FAB-34)."""

from __future__ import annotations

from itertools import product
from typing import Any

import pytest

from app.engine.errors import InvalidInput
from tests.engine.fabulae.adapters import (
    check_chosen_state,
    resolve_absorb,
    resolve_state_choice,
    track_of,
)
from tests.engine.fabulae.core import (
    EXTRA,
    MENTAL,
    PHYSICAL,
    PUSH_SEQ,
    STATE_LABEL,
    STATES,
    char,
    clock,
    eff,
    follow,
    make_sheet,
    refused,
    run,
)

# --- FAB-20 / FAB-22 / FAB-32 / FAB-34: states, choices, absorb -----------------------------------


@pytest.mark.parametrize("extra", [None, "physical", "mental"])
@pytest.mark.parametrize("track", ["physical", "mental"])
def test_FAB20_FAB22_track_of(track: str, extra: str | None) -> None:
    sheet = make_sheet(talents=["extra_box"] if extra else [], extra_box_track=extra)
    boxes = list(PHYSICAL if track == "physical" else MENTAL)
    if extra == track:
        boxes.append(EXTRA[track])
    assert track_of(sheet, track) == boxes


@pytest.mark.parametrize("extra", [None, "physical", "mental"])
@pytest.mark.parametrize("state", [*STATES, "physical_extra", "mental_extra", "mort"])
def test_FAB32_check_chosen_state(state: str, extra: str | None) -> None:
    talents = ["extra_box"] if extra else []
    sheet = make_sheet(talents=talents, extra_box_track=extra)
    valid = state in STATES or (extra is not None and state == EXTRA[extra])
    if valid:
        effects = check_chosen_state(char(sheet), state, "FAB-32")
        assert effects == [eff("states", [], [state], "FAB-32")]
        checked = make_sheet(talents=talents, extra_box_track=extra, states=[state])
        with pytest.raises(InvalidInput, match="already checked"):
            check_chosen_state(char(checked), state, "FAB-32")
    else:
        with pytest.raises(InvalidInput):
            check_chosen_state(char(sheet), state, "FAB-32")


def settle_req(
    sheet: dict[str, Any], pending: list[dict[str, Any]], settled: Any, **extra: Any
) -> dict[str, Any]:
    return {
        **clock(),
        "character": char(sheet),
        "threat": {"seq": PUSH_SEQ, "kind": "fabulae.push", "result": {"pending_states": pending}},
        "settled": list(settled),
        **extra,
    }


PENDING = [{"rule": "FAB-32", "choice": "any", "n": 1}, {"rule": "FAB-32", "choice": "any", "n": 2}]
SETTLING_KINDS = ["fabulae.state_choice", "fabulae.absorb"]


@pytest.mark.parametrize("kinds", list(product(SETTLING_KINDS, repeat=2)))
@pytest.mark.parametrize("pending_count", [0, 1, 2])
@pytest.mark.parametrize("settled_count", [0, 1, 2])
def test_FAB32_FAB34_state_choice_and_absorb_settle_pending_in_order(
    pending_count: int, settled_count: int, kinds: tuple[str, str]
) -> None:
    sheet = make_sheet(states=["meurtri"], destiny=2)
    pending = PENDING[:pending_count]
    settled = [follow(k, {}, 50 + i) for i, k in enumerate(kinds[:settled_count])]
    # A follow-up of another kind settles nothing.
    settled.insert(0, follow("fabulae.panic", {"code": "cool"}, 49))
    choice = settle_req(sheet, pending, settled, state="apeure")
    absorb = settle_req(sheet, pending, settled)
    if settled_count >= pending_count:
        error = refused(resolve_state_choice, choice, None)
        assert error.rule in ("FAB-32", "FAB-34")
        refused(resolve_absorb, absorb, "FAB-34")
        return
    target = pending[settled_count]
    resolution = run(resolve_state_choice, choice)
    assert resolution.result == {"state": "apeure", "label": "Apeuré", "settles": target}
    assert resolution.effects == [eff("states", ["meurtri"], ["meurtri", "apeure"], target["rule"])]
    resolution = run(resolve_absorb, absorb)
    assert resolution.result == {"absorbed": target}
    assert resolution.effects == [eff("destiny", 2, 1, "FAB-34")]


def test_FAB32_FAB34_state_choice_needs_a_state_and_absorb_a_destiny() -> None:
    sheet = make_sheet(destiny=0)
    refused(resolve_state_choice, settle_req(sheet, PENDING[:1], []), None, InvalidInput)
    refused(resolve_absorb, settle_req(sheet, PENDING[:1], []), "FAB-34")
    checked = make_sheet(states=["blesse"])
    with pytest.raises(InvalidInput):
        run(resolve_state_choice, settle_req(checked, PENDING[:1], [], state="blesse"))
    with pytest.raises(InvalidInput):
        run(resolve_state_choice, settle_req(sheet, PENDING[:1], [], state="physical_extra"))


@pytest.mark.parametrize("state", [*STATES, "physical_extra", "mental_extra"])
def test_FAB32_state_choice_labels(state: str) -> None:
    track = "physical" if state == "physical_extra" else "mental"
    sheet = make_sheet(talents=["extra_box"], extra_box_track=track)
    result = run(resolve_state_choice, settle_req(sheet, PENDING[:1], [], state=state)).result
    assert result["label"] == STATE_LABEL[state]
