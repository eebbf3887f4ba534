"""Fabulae recovery (FAB-80..82) and Destiny awards (FAB-30), exhaustively."""

from __future__ import annotations

from itertools import combinations, product
from typing import Any

import pytest
from pydantic import ValidationError

from app.engine.dice import ReplayDice
from app.engine.errors import InvalidInput, RuleRefusal
from tests.engine.fabulae.adapters import resolve_destiny_award, resolve_recover
from tests.engine.fabulae.core import (
    ALLY,
    EXTRA,
    FACES,
    MENTAL,
    PC,
    PHYSICAL,
    STATES,
    P,
    char,
    clock,
    eff,
    make_sheet,
    refused,
    run,
)

# --- FAB-80..82: recovery -------------------------------------------------------------------------

REST = {"quart": ({"epuise"}, 1), "tour": ({"enerve"}, 0), "night": ({"epuise", "enerve"}, 2)}
REST_STATES = [
    list(c) for n in range(5) for c in combinations(["epuise", "meurtri", "enerve", "apeure"], n)
]


@pytest.mark.parametrize(("pp", "pp_max"), [(0, 0), (0, 3), (2, 3), (3, 3), (1, 5)])
@pytest.mark.parametrize("duration", list(REST))
def test_FAB80_FAB82_rest_clears_light_states_and_restores_pp(
    duration: str, pp: int, pp_max: int
) -> None:
    clears, gain = REST[duration]
    for states in REST_STATES:
        sheet = make_sheet(states=states, pp=pp, pp_max=pp_max)
        request = {**clock(), "mode": "rest", "duration": duration, "patient": char(sheet)}
        resolution = run(resolve_recover, request)
        cleared = [s for s in states if s in clears]
        after_pp = min(pp_max, pp + gain)
        assert resolution.result == {
            "duration": duration,
            "cleared": cleared,
            "pp_gained": after_pp - pp,
        }
        effects = []
        if cleared:
            effects.append(eff("states", states, [s for s in states if s not in clears], "FAB-80"))
        if after_pp != pp:
            effects.append(eff("pp", pp, after_pp, "FAB-82"))
        assert resolution.effects == effects


def care_req(
    healer: dict[str, Any], patient: dict[str, Any], track: str, healer_id: str = ALLY
) -> dict[str, Any]:
    return {
        **clock(),
        "mode": "care",
        "healer": char(healer, healer_id),
        "track": track,
        "helpers": 0,
        "modifiers": [],
        "patient": char(patient),
    }


WORST_FIRST = {
    "physical": ["physical_extra", "blesse", "meurtri"],
    "mental": ["mental_extra", "demoralise", "apeure"],
}
CARE_ATTRIBUTE = {"physical": "intellect", "mental": "empathie"}


def expected_cleared(states: list[str], track: str, count: int) -> list[str]:
    chosen = [s for s in WORST_FIRST[track] if s in states][:count]
    return [s for s in states if s in chosen]


@pytest.mark.parametrize("extra", [False, True])
@pytest.mark.parametrize("medic", [False, True])
@pytest.mark.parametrize("track", ["physical", "mental"])
def test_FAB80_care_by_an_ally_every_face(track: str, medic: bool, extra: bool) -> None:
    attribute = CARE_ATTRIBUTE[track]
    other = "empathie" if attribute == "intellect" else "intellect"
    healer = make_sheet({attribute: 2, other: 5}, {"soin": 1}, talents=["medic"] if medic else [])
    states = [*STATES, EXTRA[track]] if extra else list(STATES)
    patient = make_sheet(
        talents=["extra_box"] if extra else [],
        extra_box_track=track if extra else None,
        states=states,
    )
    request = care_req(healer, patient, track)
    for faces in product(FACES, repeat=3):
        resolution = run(resolve_recover, request, faces)
        result = resolution.result
        assert (result["pool"]["attribute"], result["pool"]["pool"]) == (2, 3)  # FAB-4/80
        assert (result["track"], result["self_care"], result["passive"]) == (track, False, False)
        sixes = faces.count(6)
        if not sixes:
            assert "cleared" not in result and resolution.effects == []
            continue
        count = (3 if sixes > 1 else 2) if medic else 1
        cleared = expected_cleared(states, track, count)
        assert result["cleared"] == cleared, faces
        after = [s for s in states if s not in cleared]
        assert resolution.effects == [eff("states", states, after, "FAB-80")]


@pytest.mark.parametrize("medic", [False, True])
@pytest.mark.parametrize("track", ["physical", "mental"])
def test_FAB80_self_care_has_two_dice_less_every_face(track: str, medic: bool) -> None:
    states = ["meurtri", "blesse"] if track == "physical" else ["apeure", "demoralise"]
    sheet = make_sheet(
        {CARE_ATTRIBUTE[track]: 4}, {"soin": 2}, states=states, talents=["medic"] if medic else []
    )
    request = care_req(sheet, sheet, track, PC)
    for faces in product(FACES, repeat=2):  # 4 + 2 - 2 (self) - 2 (states)
        resolution = run(resolve_recover, request, faces)
        result = resolution.result
        assert result["self_care"] is True
        assert result["pool"]["modifier_dice"] == [{"source": "self-treatment", "dice": -2}]
        assert (result["pool"]["states"], result["pool"]["pool"]) == (-2, 2)
        sixes = faces.count(6)
        if not sixes:
            assert resolution.effects == []
            continue
        count = (3 if sixes > 1 else 2) if medic else 1
        cleared = expected_cleared(states, track, count)
        assert result["cleared"] == cleared
        after = [s for s in states if s not in cleared]
        assert resolution.effects == [eff("states", states, after, "FAB-80")]


@pytest.mark.parametrize("track", ["physical", "mental"])
def test_FAB80_care_does_not_clear_epuise_or_enerve(track: str) -> None:
    patient = make_sheet(states=["epuise", "enerve"])
    resolution = run(resolve_recover, care_req(make_sheet(), patient, track), [6, 6, 6])
    assert resolution.result["cleared"] == [] and resolution.effects == []


def broken_sheet(track: str, **over: Any) -> dict[str, Any]:
    # FAB-4/FAB-43: Résistance with Physique for a broken body, Empathie for a broken mind.
    states = PHYSICAL if track == "physical" else MENTAL
    attribute = "physique" if track == "physical" else "empathie"
    return make_sheet(
        {attribute: 4}, {"resistance": 2}, states=states, broken=True, broken_track=track, **over
    )


@pytest.mark.parametrize("medic", [False, True])
@pytest.mark.parametrize("track", ["physical", "mental"])
def test_FAB81_ally_care_of_a_broken_character_every_face(track: str, medic: bool) -> None:
    healer = make_sheet({CARE_ATTRIBUTE[track]: 2}, {"soin": 1}, talents=["medic"] if medic else [])
    patient = broken_sheet(track)
    states = patient["states"]
    request = care_req(healer, patient, track)
    for faces in product(FACES, repeat=3):
        resolution = run(resolve_recover, request, faces)
        sixes = faces.count(6)
        if not sixes:
            assert resolution.effects == []
            continue
        # FAB-81: one state, two with a Prouesse (medic: 2, 3 with a Prouesse).
        count = (3 if medic else 2) if sixes > 1 else (2 if medic else 1)
        cleared = expected_cleared(states, track, count)
        assert resolution.result["cleared"] == cleared
        after = [s for s in states if s not in cleared]
        assert resolution.effects == [
            eff("states", states, after, "FAB-81"),
            eff("broken", True, False, "FAB-81"),
            eff("broken_track", track, None, "FAB-81"),
        ]


def test_FAB80_FAB81_care_on_the_other_track_leaves_broken() -> None:
    patient = make_sheet(
        states=[*PHYSICAL, "apeure", "demoralise"], broken=True, broken_track="physical"
    )
    resolution = run(resolve_recover, care_req(make_sheet(), patient, "mental"), [6, 6, 2])
    states = patient["states"]
    assert resolution.result["cleared"] == ["demoralise"]
    assert resolution.effects == [
        eff("states", states, [s for s in states if s != "demoralise"], "FAB-80")
    ]


def test_FAB81_extra_box_broken_track_ends_when_the_extra_box_frees() -> None:
    patient = make_sheet(
        states=[*PHYSICAL, "physical_extra"],
        talents=["extra_box"],
        extra_box_track="physical",
        broken=True,
        broken_track="physical",
    )
    resolution = run(resolve_recover, care_req(make_sheet(), patient, "physical"), [6, 2, 2])
    assert resolution.result["cleared"] == ["physical_extra"]
    assert [e["field"] for e in resolution.effects] == ["states", "broken", "broken_track"]


@pytest.mark.parametrize("track", ["physical", "mental"])
def test_FAB81_broken_resistance_every_face(track: str) -> None:
    patient = broken_sheet(track, stress=0)
    states = patient["states"]
    request = {**clock(), "mode": "broken_resistance", "patient": char(patient)}
    for faces in product(FACES, repeat=4):  # physique/empathie 4 + résistance 2 − 2 states
        resolution = run(resolve_recover, request, faces)
        result = resolution.result
        assert (result["pool"]["pool"], result["track"]) == (4, track)
        sixes = faces.count(6)
        if not sixes:
            assert resolution.effects == []
            continue
        cleared = expected_cleared(states, track, 2 if sixes > 1 else 1)
        assert result["cleared"] == cleared
        assert resolution.effects == [
            eff("states", states, [s for s in states if s not in cleared], "FAB-81"),
            eff("broken", True, False, "FAB-81"),
            eff("broken_track", track, None, "FAB-81"),
        ]


def test_FAB81_broken_resistance_refused_when_not_broken() -> None:
    request = {**clock(), "mode": "broken_resistance", "patient": char(make_sheet())}
    refused(resolve_recover, request, "FAB-81")


@pytest.mark.parametrize(
    ("change", "field"),
    [
        P({"mode": "sleep"}, "mode", id="unknown-mode"),
        P({"mode": "rest", "duration": "week"}, "duration", id="unknown-duration"),
        P({"track": "spiritual"}, "track", id="unknown-track"),
    ],
)
def test_FAB80_recover_malformed(change: dict[str, Any], field: str) -> None:
    """The request takes only the modes, rest lengths and tracks of FAB-80..82."""
    request = {**care_req(make_sheet(), make_sheet(), "physical"), **change}
    with pytest.raises(ValidationError, match=field):
        resolve_recover(request, ReplayDice([]))


# --- FAB-30: Destiny award ---------------------------------------------------------------------


@pytest.mark.parametrize("destiny", [0, 3, 7])
def test_FAB30_destiny_award_adds_one(destiny: int) -> None:
    request = {**clock(), "character": char(make_sheet(destiny=destiny)), "reason": "Bravoure"}
    resolution = run(resolve_destiny_award, request)
    assert resolution.result == {"destiny": destiny + 1, "reason": "Bravoure"}
    assert resolution.effects == [eff("destiny", destiny, destiny + 1, "FAB-30")]


def test_FAB81_broken_character_cannot_self_treat_with_soin() -> None:
    patient = make_sheet(
        {"physique": 4, "intellect": 5},
        {"soin": 3},
        states=PHYSICAL,
        broken=True,
        broken_track="physical",
    )
    request = care_req(patient, patient, "physical", PC)
    refused(resolve_recover, request, None, (InvalidInput, RuleRefusal))
