"""Fabulae pools, exhaustively: reading the dice (FAB-11, FAB-15, FAB-42), pools (FAB-10..14,
FAB-21), alternate attributes (FAB-4) and the talents that add dice (FAB-90)."""

from __future__ import annotations

from itertools import combinations, product
from typing import Any

import pytest
from pydantic import ValidationError

from app.engine.errors import InvalidInput, RuleRefusal
from tests.engine.fabulae.adapters import (
    pool_of,
    read_dice,
    resolve_absorb,
    resolve_action,
    resolve_destiny_award,
    resolve_opposed,
    resolve_panic,
    resolve_push,
    resolve_recover,
    resolve_state_choice,
    resolve_stress,
    resolve_stress_resist,
    roll_pool,
    state_malus,
)
from tests.engine.fabulae.core import (
    ALTERNATES,
    ATTRIBUTES,
    DIFFICULTY,
    EXTRA,
    FACES,
    INVOKED,
    LABEL,
    MALUS,
    MENTAL,
    PHYSICAL,
    SESSION,
    SKILL_BASE,
    STATES,
    P,
    action_req,
    char,
    dice,
    eff,
    expected_read,
    make_sheet,
    refused,
    roll_inputs,
    run,
)

# --- FAB-11 / FAB-15 / FAB-42: reading the dice ----------------------------------------------


@pytest.mark.parametrize("stress", [0, 1, 2])
@pytest.mark.parametrize("pool", [1, 2, 3, 4])
def test_FAB11_FAB15_FAB42_action_every_face_combination(pool: int, stress: int) -> None:
    sheet = make_sheet({"physique": pool}, stress=stress)
    request = action_req(sheet)
    outcomes = set()
    for faces in product(FACES, repeat=pool + stress):
        resolution = run(resolve_action, request, faces)
        result = resolution.result
        expected = expected_read(faces[:pool], faces[pool:])
        assert {k: result[k] for k in expected} == expected, faces
        assert result["pool"]["pool"] == pool
        assert result["pool"]["stress_dice"] == stress  # FAB-15: recorded apart
        assert result["passive"] is False
        assert resolution.effects == []
        outcomes.add(result["outcome"])
    assert outcomes == ({"success", "failure", "panic"} if stress else {"success", "failure"})


def test_FAB11_FAB42_read_dice_every_face_combination() -> None:
    for pool, stress in product(range(0, 4), range(0, 3)):
        for faces in product(FACES, repeat=pool + stress):
            normal, stressed = list(faces[:pool]), list(faces[pool:])
            assert read_dice(normal, stressed) == expected_read(normal, stressed), faces


@pytest.mark.parametrize(
    ("faces", "stress", "outcome", "sixes", "feats"),
    [
        P([6, 6, 6], [], "success", 3, 2, id="three-sixes-two-feats"),
        P([6], [], "success", 1, 0, id="one-six-no-feat"),
        P([5, 5], [6], "success", 1, 0, id="stress-six-counts"),
        P([6, 6], [1], "panic", 2, 0, id="stress-one-overrides-success"),
        P([1, 1], [2], "failure", 0, 0, id="normal-ones-are-no-panic"),
        P([2], [1, 6], "panic", 1, 0, id="any-stress-one"),
    ],
)
def test_FAB11_FAB42_read_dice_examples(
    faces: list[int], stress: list[int], outcome: str, sixes: int, feats: int
) -> None:
    result = read_dice(faces, stress)
    assert (result["outcome"], result["sixes"], result["feats"]) == (outcome, sixes, feats)
    assert result["label"] == LABEL[outcome]


# --- FAB-10..14 / FAB-21: pools ---------------------------------------------------------------

STATE_SETS = [list(c) for n in range(len(STATES) + 1) for c in combinations(STATES, n)]
POOL_SHEETS: dict[tuple[int, int, tuple[str, ...]], dict[str, Any]] = {}


def pool_sheet(attribute: int, skill: int, states: tuple[str, ...]) -> dict[str, Any]:
    """Validated once per combination: physique, combat, states, 1 stress die."""
    key = (attribute, skill, states)
    if key not in POOL_SHEETS:
        POOL_SHEETS[key] = make_sheet(
            {"physique": attribute}, {"combat": skill}, states=list(states), stress=1
        )
    return POOL_SHEETS[key]


@pytest.mark.parametrize("difficulty", list(DIFFICULTY))
@pytest.mark.parametrize("helpers", [0, 1, 2, 3])
def test_FAB10_FAB14_FAB21_pool_every_attribute_skill_state_combination(
    difficulty: str, helpers: int
) -> None:
    seen_impossible = seen_possible = False
    for attribute, skill, states in product(range(7), range(6), STATE_SETS):
        sheet = pool_sheet(attribute, skill, tuple(states))
        roll = roll_inputs("physique", "combat", difficulty=difficulty, helpers=helpers)
        malus = sum(MALUS[s] for s in states)
        expected = attribute + skill + helpers - DIFFICULTY[difficulty] - malus
        pool = pool_of(char(sheet), roll, SESSION)
        assert pool["pool"] == expected
        assert (pool["attribute"], pool["skill"], pool["helpers"]) == (attribute, skill, helpers)
        assert pool["difficulty"] == -DIFFICULTY[difficulty]
        assert pool["states"] == -malus
        assert state_malus(sheet) == malus
        if expected <= 0:
            # FAB-14: no die is drawn, stress dice included.
            seen_impossible = True
            result = run(resolve_action, action_req(sheet, roll), []).result
            assert (result["outcome"], result["label"]) == ("impossible", "Impossible")
            assert (result["dice"], result["stress_dice"], result["sixes"]) == ([], [], 0)
        elif states in ([], ["meurtri", "apeure"]):
            seen_possible = True
            faces = [6] * expected + [3]
            result = run(resolve_action, action_req(sheet, roll), faces).result
            assert result["dice"] == [6] * expected and result["stress_dice"] == [3]
            assert result["feats"] == expected - 1
    assert seen_impossible and seen_possible


@pytest.mark.parametrize("track", ["physical", "mental"])
def test_FAB20_FAB21_FAB22_extra_box_and_light_states_take_no_die(track: str) -> None:
    boxes = (PHYSICAL if track == "physical" else MENTAL) + [EXTRA[track]]
    sheet = make_sheet(talents=["extra_box"], extra_box_track=track, states=boxes)
    assert state_malus(sheet) == 2
    light = make_sheet(
        talents=["extra_box"], extra_box_track=track, states=["epuise", "enerve", EXTRA[track]]
    )
    assert state_malus(light) == 0
    assert pool_of(char(light), roll_inputs(), SESSION)["pool"] == 3


def test_FAB21_all_four_malus_states_cumulate_over_both_tracks() -> None:
    sheet = make_sheet({"physique": 5}, {"combat": 2}, states=STATES)
    pool = pool_of(char(sheet), roll_inputs("physique", "combat"), SESSION)
    assert pool["states"] == -4 and pool["pool"] == 3
    three = make_sheet({"physique": 5}, states=["meurtri", "blesse", "apeure"])
    assert pool_of(char(three), roll_inputs(), SESSION)["pool"] == 2  # the example of FAB-21


MODIFIER_SETS = [
    [],
    [{"source": "aim", "dice": 2}],
    [{"source": "dark", "dice": -2}],
    [{"source": "ground", "dice": -2}, {"source": "helpless", "dice": 3}],
    [{"source": "contact", "dice": -3}, {"source": "far", "dice": -3}],
    [{"source": "x", "dice": 6}, {"source": "y", "dice": -6}, {"source": "z", "dice": 1}],
]


@pytest.mark.parametrize("modifiers", MODIFIER_SETS)
@pytest.mark.parametrize("talents", [[], ["tinkerer"], ["tinkerer", "pickpocket"]])
def test_FAB14_FAB90_talents_and_modifiers_add_or_remove_dice(
    modifiers: list[dict[str, Any]], talents: list[str]
) -> None:
    sheet = make_sheet(
        {"intellect": 2}, {"bricolage": 1}, talents=["tinkerer", "pickpocket"], stress=2
    )
    roll = roll_inputs("intellect", "bricolage", modifiers=modifiers, talents=talents)
    pool = pool_of(char(sheet), roll, SESSION)
    talent_dice = 2 * len(talents)
    modifier_dice = sum(m["dice"] for m in modifiers)
    assert pool["talents"] == talent_dice
    assert pool["talent_dice"] == [{"talent": t, "dice": 2} for t in talents]
    assert pool["modifiers"] == modifier_dice
    assert pool["modifier_dice"] == modifiers
    expected = 3 + talent_dice + modifier_dice
    assert pool["pool"] == expected
    if expected <= 0:
        result = run(resolve_action, action_req(sheet, roll), []).result
        assert result["outcome"] == "impossible"
    else:
        faces = [4] * expected + [6, 2]
        result = run(resolve_action, action_req(sheet, roll), faces).result
        assert result["outcome"] == "success" and result["sixes"] == 1


def test_FAB10_pure_attribute_roll_has_no_skill_dice() -> None:
    sheet = make_sheet({"empathie": 4}, {"soin": 5})
    pool = pool_of(char(sheet), roll_inputs("empathie", None), SESSION)
    assert (pool["skill"], pool["pool"]) == (0, 4)


@pytest.mark.parametrize(
    ("roll", "field"),
    [
        P(roll_inputs(helpers=4), "helpers", id="FAB13-four-helpers"),
        P(roll_inputs(helpers=-1), "helpers", id="FAB13-negative-helpers"),
        P(roll_inputs(difficulty="easy"), "difficulty", id="FAB12-unknown-difficulty"),
        P(roll_inputs("force"), "attribute", id="unknown-attribute"),
        P(roll_inputs("physique", "escrime"), "skill", id="unknown-skill"),
        P(roll_inputs(talents=["cogneur"]), None, id="FAB90-talent-adds-no-dice"),
    ],
)
def test_FAB10_FAB14_malformed_rolls_are_invalid_before_any_die(
    roll: dict[str, Any], field: str | None
) -> None:
    sheet = make_sheet(talents=["cogneur"])
    if field is None:
        refused(resolve_action, action_req(sheet, roll), None, InvalidInput)
    else:  # the request model refuses it: the rules never run
        error = refused(resolve_action, action_req(sheet, roll), None, ValidationError)
        assert field in str(error)


@pytest.mark.parametrize(
    "resolver",
    [
        resolve_action,
        resolve_opposed,
        resolve_push,
        resolve_state_choice,
        resolve_absorb,
        resolve_stress,
        resolve_stress_resist,
        resolve_panic,
        resolve_recover,
        resolve_destiny_award,
    ],
)
def test_FAB1_every_resolver_refuses_another_system(resolver: Any) -> None:
    error = refused(
        resolver, {"system": "jdr-express-dracula", "session": 1, "scene": 1}, None, ValidationError
    )
    assert "system" in str(error)


# --- FAB-4: alternate attributes ----------------------------------------------------------


@pytest.mark.parametrize("attribute", ATTRIBUTES)
@pytest.mark.parametrize("skill", list(SKILL_BASE))
def test_FAB4_every_skill_attribute_pair(skill: str, attribute: str) -> None:
    values = {"physique": 1, "habilete": 2, "intellect": 3, "empathie": 4}
    sheet = make_sheet(values, {skill: 2})
    roll = roll_inputs(attribute, skill)
    allowed = attribute == SKILL_BASE[skill] or attribute in ALTERNATES.get(skill, set())
    if allowed:
        pool = pool_of(char(sheet), roll, SESSION)
        assert (pool["attribute"], pool["skill"], pool["pool"]) == (
            values[attribute],
            2,
            values[attribute] + 2,
        )
        faces = [2] * (values[attribute] + 2)
        assert run(resolve_action, action_req(sheet, roll), faces).result["outcome"] == "failure"
    else:
        error = refused(resolve_action, action_req(sheet, roll), "FAB-4", InvalidInput)
        assert error.rule == "FAB-4"


# --- FAB-90: talents in pools -----------------------------------------------------------------


@pytest.mark.parametrize("on_sheet", [True, False])
@pytest.mark.parametrize("skill", list(SKILL_BASE))
@pytest.mark.parametrize("talent", list(INVOKED))
def test_FAB90_invoked_talents_only_on_their_skills_and_when_on_sheet(
    talent: str, skill: str, on_sheet: bool
) -> None:
    sheet = make_sheet(skills={skill: 1}, talents=[talent] if on_sheet else [])
    roll = roll_inputs(SKILL_BASE[skill], skill, talents=[talent])
    skills, bonus = INVOKED[talent]
    if on_sheet and skill in skills:
        pool = pool_of(char(sheet), roll, SESSION)
        assert pool["talent_dice"] == [{"talent": talent, "dice": bonus}]
        assert pool["pool"] == 3 + 1 + bonus
        resolution = run(resolve_action, action_req(sheet, roll), [5] * pool["pool"])
        expected_effects = (
            [eff("expert_session", None, SESSION, "FAB-90")] if talent == "expert" else []
        )
        assert resolution.effects == expected_effects
    else:
        refused(resolve_action, action_req(sheet, roll), None, InvalidInput)
    # Never on a pure attribute roll.
    refused(
        resolve_action,
        action_req(sheet, roll_inputs(SKILL_BASE[skill], None, talents=[talent])),
        None,
        InvalidInput,
    )


@pytest.mark.parametrize("attribute", ["intellect", "empathie"])
@pytest.mark.parametrize("skill", list(SKILL_BASE))
def test_FAB90_sharp_eye_always_adds_one_die_to_observation(attribute: str, skill: str) -> None:
    if attribute not in {SKILL_BASE[skill], *ALTERNATES.get(skill, set())}:
        attribute = SKILL_BASE[skill]
    sheet = make_sheet(skills={skill: 1}, talents=["sharp_eye"])
    without = make_sheet(skills={skill: 1})
    with_eye = pool_of(char(sheet), roll_inputs(attribute, skill), SESSION)
    plain = pool_of(char(without), roll_inputs(attribute, skill), SESSION)
    bonus = 1 if skill == "observation" else 0
    assert with_eye["pool"] - plain["pool"] == bonus
    expected_dice = [{"talent": "sharp_eye", "dice": 1}] if bonus else []
    assert with_eye["talent_dice"] == expected_dice
    # Sharp eye is always on: invoking it is not a thing.
    invoke = roll_inputs(attribute, skill, talents=["sharp_eye"])
    refused(resolve_action, action_req(sheet, invoke), None, InvalidInput)


def test_FAB90_sharp_eye_and_tracker_stack_on_observation() -> None:
    sheet = make_sheet(skills={"observation": 2}, talents=["sharp_eye", "tracker"])
    pool = pool_of(char(sheet), roll_inputs("intellect", "observation", talents=["tracker"]), 1)
    assert pool["pool"] == 3 + 2 + 1 + 2
    assert sorted(t["talent"] for t in pool["talent_dice"]) == ["sharp_eye", "tracker"]


@pytest.mark.parametrize(
    ("used", "allowed"),
    [
        P(None, True, id="never"),
        P(SESSION - 1, True, id="last-session"),
        P(SESSION, False, id="now"),
    ],
)
def test_FAB90_expert_once_per_session(used: int | None, allowed: bool) -> None:
    sheet = make_sheet(skills={"connaissance": 1}, talents=["expert"], expert_session=used)
    request = action_req(sheet, roll_inputs("intellect", "connaissance", talents=["expert"]))
    if allowed:
        resolution = run(resolve_action, request, [6, 2, 2, 2, 2])
        assert resolution.effects == [eff("expert_session", used, SESSION, "FAB-90")]
        assert resolution.result["pool"]["talents"] == 1
    else:
        refused(resolve_action, request, "FAB-90")


def test_FAB90_FAB14_expert_is_not_spent_on_an_impossible_roll() -> None:
    sheet = make_sheet({"intellect": 0}, talents=["expert"], stress=3)
    roll = roll_inputs(
        "intellect",
        "connaissance",
        talents=["expert"],
        modifiers=[{"source": "dark", "dice": -2}],
    )
    resolution = run(resolve_action, action_req(sheet, roll), [])
    assert resolution.result["outcome"] == "impossible"
    assert resolution.effects == []


def test_FAB15_roll_pool_draws_pool_then_stress_dice() -> None:
    source = dice([6, 2, 1])
    result = roll_pool(source, {"pool": 2, "stress_dice": 1})
    source.assert_consumed()
    assert (result["dice"], result["stress_dice"], result["outcome"]) == ([6, 2], [1], "panic")


@pytest.mark.parametrize("attribute", ["intellect", "empathie"])
def test_FAB90_iron_will_only_on_physique_resistance(attribute: str) -> None:
    sheet = make_sheet(skills={"resistance": 1}, talents=["iron_will"])
    roll = roll_inputs(attribute, "resistance", talents=["iron_will"])
    refused(resolve_action, action_req(sheet, roll), None, (InvalidInput, RuleRefusal))


def test_FAB90_a_talent_invoked_twice_adds_its_dice_once() -> None:
    sheet = make_sheet(skills={"bricolage": 1}, talents=["tinkerer"])
    roll = roll_inputs("intellect", "bricolage", talents=["tinkerer", "tinkerer"])
    try:
        pool = pool_of(char(sheet), roll, SESSION)
    except InvalidInput:
        return
    assert pool["talents"] == 2
