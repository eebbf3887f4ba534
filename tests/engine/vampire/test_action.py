"""Vampire engine (vampire.md, VAM-10..30), exhaustively.

Every dice test enumerates face combinations with itertools.product (never sampling) and
checks, through ReplayDice.assert_consumed, that exactly the expected dice were drawn.
Requests are built in the shapes the service records (clock + options +
character snapshot + roll inputs); the expected counts, outcomes and qualities are written
here from the rules (VAM-12..15, VAM-21), independently of the engine.
"""

from __future__ import annotations

import copy
from itertools import product
from typing import Any

import pytest
from pydantic import ValidationError

from app.engine.dice import ReplayDice
from app.engine.errors import InvalidInput, RuleRefusal
from app.engine.rulesets.vampire.action import count_dice, quality_of, read_roll
from tests.engine import rules
from tests.engine.vampire.requests import (
    DIFFICULTIES,
    DIFFICULTY_LABELS,
    FACES,
    OPTIONS,
    PC,
    POOLS,
    SCENE,
    SESSION,
    SYSTEM,
    d10,
    make_sheet,
)


def resolve_action(request: dict[str, Any], dice: ReplayDice) -> rules.Resolved:
    return rules.resolve("vampire.action", request, dice)


# --- the rules, written independently --------------------------------------------------------


def expected_roll(
    faces: tuple[int, ...], difficulty: int, explosive: bool, willpower: bool = False
) -> dict[str, Any]:
    """VAM-12..15 and VAM-21, from the text."""
    successes = 0
    for face in faces:
        if face == 10:  # VAM-12: a 10 always succeeds; VAM-14: twice when explosive
            successes += 2 if explosive else 1
        elif face >= difficulty:  # VAM-12
            successes += 1
    ones = len([face for face in faces if face == 1])  # VAM-13
    net = successes - ones  # VAM-15
    if willpower:  # VAM-21: one success no 1 cancels
        net = (net if net > 0 else 0) + 1
    if net >= 1:
        outcome = "success"
        quality = "marginal" if net == 1 else ("moderate" if net == 2 else "complete")
    elif successes > 0:
        outcome, quality = "failure", None  # all cancelled: a simple failure
    elif ones > 0:
        outcome, quality = "botch", None
    else:
        outcome, quality = "failure", None
    return {
        "successes": successes,
        "ones": ones,
        "net": net,
        "outcome": outcome,
        "quality": quality,
    }


# --- request builders, shaped as the service records them ---------------------------------


def action_request(
    sheet: dict[str, Any] | None = None,
    *,
    attribute: str = "astuce",
    ability: str | None = None,
    modifier: int = 0,
    difficulty: int = 6,
    explosive: bool | None = None,
    tense: bool = False,
    willpower: bool = False,
    take_automatic: bool = False,
    options: dict[str, Any] | None = None,
    session: int = SESSION,
    retry: dict[str, Any] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    request: dict[str, Any] = {
        "system": SYSTEM,
        "session": session,
        "scene": SCENE,
        "character": {
            "id": PC,
            "name": "Lucien",
            "kind": "pc",
            "sheet": sheet if sheet is not None else make_sheet(),
        },
        "options": {**OPTIONS, **(options or {})},
        "attribute": attribute,
        "ability": ability,
        "modifier": modifier,
        "difficulty": difficulty,
        "explosive": explosive,
        "tense": tense,
        "willpower": willpower,
        "take_automatic": take_automatic,
        **extra,
    }
    if retry is not None:
        request["retry"] = retry
    return request


def pool_request(pool: int, **kwargs: Any) -> dict[str, Any]:
    """A pool of `pool` dice: attribute 1 + ability (at most 5, VAM-2) + a modifier for the
    rest; never explosive by default."""
    ability = min(pool - 1, 5)
    sheet = kwargs.pop("sheet", None) or make_sheet("astuce", 1, {"subterfuge": ability})
    if pool - 1 > ability:
        kwargs["modifier"] = pool - 1 - ability
    return action_request(sheet, attribute="astuce", ability="subterfuge", **kwargs)


def resolve(request: dict[str, Any], *faces: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Resolve with exactly these faces; the request itself must not be mutated."""
    frozen = copy.deepcopy(request)
    dice = d10(*faces)
    resolution = resolve_action(request, dice)
    dice.assert_consumed()
    assert request == frozen
    return resolution.result, resolution.effects


def refused(request: dict[str, Any], rule: str) -> RuleRefusal:
    """Refused by `rule` before any die is drawn (an empty record raises on any draw)."""
    with pytest.raises(RuleRefusal) as caught:
        resolve_action(request, d10())
    assert caught.value.rule == rule
    assert rule in caught.value.detail
    return caught.value


def chain(*outcomes: str, first_seq: int = 10, difficulty: int = 6) -> list[dict[str, Any]]:
    # Each earlier attempt of the same action, at the action's difficulty (VAM-30).
    return [
        {"seq": first_seq + i, "outcome": outcome, "difficulty": difficulty, "visibility": "public"}
        for i, outcome in enumerate(outcomes)
    ]


def retry_of(*outcomes: str, waived: bool = False, difficulty: int = 6) -> dict[str, Any]:
    attempts = chain(*outcomes, difficulty=difficulty)
    return {"of": attempts[-1]["seq"], "chain": attempts, "waived": waived}


def willpower_effect(before: tuple[int, int], after: tuple[int, int]) -> dict[str, Any]:
    return {
        "character_id": PC,
        "field": "willpower",
        "before": {"max": before[0], "current": before[1]},
        "after": {"max": after[0], "current": after[1]},
        "rule": "VAM-21",
    }


# --- VAM-12..15: counting, exhaustively ------------------------------------------------------


@pytest.mark.parametrize("explosive", [False, True])
@pytest.mark.parametrize("difficulty", DIFFICULTIES)
@pytest.mark.parametrize("pool", POOLS)
def test_VAM_12_13_14_15_every_face_combination(pool, difficulty, explosive):
    for faces in product(FACES, repeat=pool):
        want = expected_roll(faces, difficulty, explosive)
        assert count_dice(faces, difficulty, explosive).dump() == {
            "successes": want["successes"],
            "ones": want["ones"],
        }, faces
        got = read_roll(faces, difficulty, explosive, False).dump()
        assert {k: got[k] for k in want} == want, (faces, difficulty, explosive)
        assert got["net"] == want["successes"] - want["ones"]
        assert isinstance(got["label"], str) and got["label"]


@pytest.mark.parametrize("explosive", [False, True])
@pytest.mark.parametrize("difficulty", DIFFICULTIES)
@pytest.mark.parametrize("pool", POOLS)
def test_VAM_10_to_15_resolve_action_every_face_combination(pool, difficulty, explosive):
    request = pool_request(pool, difficulty=difficulty, explosive=explosive)
    for faces in product(FACES, repeat=pool):
        result, effects = resolve(request, *faces)
        want = expected_roll(faces, difficulty, explosive)
        assert {k: result[k] for k in want} == want, (faces, difficulty, explosive)
        assert result["dice"] == list(faces)
        assert result["pool"] == pool and result["difficulty"] == difficulty
        assert result["explosive"] is explosive
        assert result["automatic"] is False and result["willpower_spent"] is False
        assert result["botch_absorbed"] is False and result["retry_penalty"] == 0
        assert effects == []


@pytest.mark.parametrize("explosive", [False, True])
@pytest.mark.parametrize("difficulty", DIFFICULTIES)
@pytest.mark.parametrize("pool", POOLS)
def test_VAM_21_willpower_every_face_combination(pool, difficulty, explosive):
    request = pool_request(pool, difficulty=difficulty, explosive=explosive, willpower=True)
    for faces in product(FACES, repeat=pool):
        want = expected_roll(faces, difficulty, explosive, willpower=True)
        plain = expected_roll(faces, difficulty, explosive)
        assert want["net"] == max(0, plain["successes"] - plain["ones"]) + 1
        got = read_roll(faces, difficulty, explosive, True).dump()
        assert {k: got[k] for k in want} == want, faces
        result, effects = resolve(request, *faces)
        assert {k: result[k] for k in want} == want, faces
        # VAM-21: never a botch, at least a marginal success.
        assert result["outcome"] == "success" and result["quality"] is not None
        assert result["net"] >= 1
        assert result["willpower_spent"] is True
        assert effects == [willpower_effect((5, 5), (5, 4))]


@pytest.mark.parametrize(
    ("net", "quality"),
    [(1, "marginal"), (2, "moderate"), (3, "complete"), (4, "complete"), (9, "complete")],
)
def test_VAM_15_quality_of(net, quality):
    assert quality_of(net) == quality


def test_VAM_15_every_outcome_and_quality_is_reached():
    seen = {
        (want["outcome"], want["quality"])
        for pool in POOLS
        for faces in product(FACES, repeat=pool)
        for want in [expected_roll(faces, 6, True)]
    }
    assert seen == {
        ("success", "marginal"),
        ("success", "moderate"),
        ("success", "complete"),
        ("failure", None),
        ("botch", None),
    }


# --- the source's worked examples -------------------------------------------------------------


def test_source_example_three_successes_at_6():
    """'difficulté 6 ... 3, 3, 8, 7 et 10, vous avez trois réussites'."""
    sheet = make_sheet("astuce", 3, {"experience_de_la_rue": 2})
    request = action_request(sheet, ability="experience_de_la_rue", difficulty=6)
    result, effects = resolve(request, 3, 3, 8, 7, 10)
    assert result["successes"] == 3 and result["ones"] == 0 and result["net"] == 3
    assert result["outcome"] == "success" and result["quality"] == "complete"
    assert result["explosive"] is False and effects == []


def test_source_example_subterfuge_no_success_at_7():
    """'Astuce + Subterfuge (difficulté 7) ... 2, 5, 6, 6, 4 et 3, soit aucune réussite'."""
    sheet = make_sheet("astuce", 3, {"subterfuge": 3})
    request = action_request(sheet, ability="subterfuge", difficulty=7)
    result, _ = resolve(request, 2, 5, 6, 6, 4, 3)
    assert result["successes"] == 0 and result["ones"] == 0
    assert result["outcome"] == "failure" and result["quality"] is None


def test_source_example_ones_exceed_successes_is_a_simple_failure():
    """'Vigueur + Athlétisme (difficulté 8) ... 9, 1, 1, 8 et 1 ... un échec normal'."""
    sheet = make_sheet("vigueur", 3, {"athletisme": 2})
    request = action_request(sheet, attribute="vigueur", ability="athletisme", difficulty=8)
    result, _ = resolve(request, 9, 1, 1, 8, 1)
    assert (result["successes"], result["ones"], result["net"]) == (2, 3, -1)
    assert result["outcome"] == "failure" and result["quality"] is None


def test_source_example_a_one_and_no_success_is_a_botch():
    """'1, 3, 4, 3 et 7 ... aucune réussite du tout, il s'agit donc d'un échec critique'."""
    sheet = make_sheet("vigueur", 3, {"athletisme": 2})
    request = action_request(sheet, attribute="vigueur", ability="athletisme", difficulty=8)
    result, _ = resolve(request, 1, 3, 4, 3, 7)
    assert (result["successes"], result["ones"], result["net"]) == (0, 1, -1)
    assert result["outcome"] == "botch" and result["quality"] is None


def test_source_example_retry_raises_the_difficulty_from_6_to_7():
    """'Astuce + Expérience de la rue (difficulté 6) ... cette fois ... la difficulté à 7'."""
    sheet = make_sheet("astuce", 3, {"experience_de_la_rue": 2})
    request = action_request(
        sheet, ability="experience_de_la_rue", difficulty=6, retry=retry_of("failure")
    )
    result, _ = resolve(request, 6, 6, 6, 6, 6)
    assert result["difficulty"] == 7 and result["retry_penalty"] == 1
    assert result["outcome"] == "failure" and result["successes"] == 0


# --- VAM-10: the pool ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("attribute", "ability", "modifier"),
    [(a, b, m) for a in range(1, 6) for b in range(0, 6) for m in range(-3, 4)],
)
def test_VAM_10_pool_is_attribute_plus_ability_plus_modifier(attribute, ability, modifier):
    sheet = make_sheet("perception", attribute, {"vigilance": ability})
    request = action_request(
        sheet, attribute="perception", ability="vigilance", modifier=modifier, explosive=False
    )
    pool = attribute + ability + modifier
    if pool <= 0:
        refused(request, "VAM-10")
        return
    result, _ = resolve(request, *[2] * pool)
    assert result["pool"] == pool and len(result["dice"]) == pool
    assert (result["attribute_value"], result["ability_value"], result["modifier"]) == (
        attribute,
        ability,
        modifier,
    )


def test_VAM_10_no_ability_or_an_ability_missing_from_the_sheet_counts_zero():
    sheet = make_sheet("force", 3, {"bagarre": 2})
    result, _ = resolve(action_request(sheet, attribute="force"), 2, 2, 2)
    assert result["pool"] == 3 and result["ability_value"] == 0
    result, _ = resolve(action_request(sheet, attribute="force", ability="thaumaturgie"), 2, 2, 2)
    assert result["pool"] == 3 and result["ability_value"] == 0


@pytest.mark.parametrize("modifier", [-1, -2, -10])
def test_VAM_10_a_pool_of_zero_or_less_is_refused_before_drawing(modifier):
    sheet = make_sheet("force", 1)
    error = refused(action_request(sheet, attribute="force", modifier=modifier), "VAM-10")
    assert str(1 + modifier) in error.detail


def test_VAM_10_refused_pool_wins_over_willpower_and_automatic():
    sheet = make_sheet("force", 1, willpower=(5, 5))
    refused(action_request(sheet, attribute="force", modifier=-1, willpower=True), "VAM-10")
    refused(action_request(sheet, attribute="force", modifier=-1, take_automatic=True), "VAM-10")


def test_VAM_1_unknown_attribute_does_not_fit_the_request():
    with pytest.raises(ValidationError, match="attribute"):
        resolve_action(action_request(attribute="chance"), d10())


def test_a_vampire_rule_refuses_another_system():
    request = action_request()
    request["system"] = "fabulae-tenebris"
    with pytest.raises(ValidationError, match="system"):
        resolve_action(request, d10())


# --- VAM-11: difficulty ---------------------------------------------------------------------------


@pytest.mark.parametrize("difficulty", DIFFICULTIES)
def test_VAM_11_difficulty_and_its_label(difficulty):
    result, _ = resolve(pool_request(1, difficulty=difficulty), 5)
    assert result["difficulty"] == difficulty
    assert result["difficulty_label"] == DIFFICULTY_LABELS[difficulty]


def test_VAM_11_default_difficulty_is_6():
    request = pool_request(2)
    del request["difficulty"]
    result, _ = resolve(request, 6, 5)
    assert result["difficulty"] == 6 and result["difficulty_label"] == "Moyen"
    assert result["successes"] == 1


@pytest.mark.parametrize("difficulty", [-1, 1, 11, 20])
def test_VAM_11_difficulty_outside_2_10_is_invalid_input(difficulty):
    with pytest.raises(InvalidInput) as caught:
        resolve_action(pool_request(2, difficulty=difficulty), d10())
    assert caught.value.rule == "VAM-11"


# --- VAM-14: explosive ---------------------------------------------------------------------------


@pytest.mark.parametrize("value", range(1, 6))
@pytest.mark.parametrize("modifier", [-1, 0, 2])
def test_VAM_14_default_explosive_iff_the_attribute_is_5(value, modifier):
    sheet = make_sheet("charisme", value, {"commandement": 1})
    request = action_request(sheet, attribute="charisme", ability="commandement", modifier=modifier)
    pool = value + 1 + modifier
    result, _ = resolve(request, *[10] + [2] * (pool - 1))
    assert result["explosive"] is (value == 5)
    assert result["successes"] == (2 if value == 5 else 1)


@pytest.mark.parametrize("value", range(1, 6))
@pytest.mark.parametrize("explosive", [False, True])
def test_VAM_14_explicit_explosive_overrides_the_default(value, explosive):
    sheet = make_sheet("force", value)
    request = action_request(sheet, attribute="force", explosive=explosive)
    result, _ = resolve(request, *[10] * value)
    assert result["explosive"] is explosive
    assert result["successes"] == value * (2 if explosive else 1)


def test_VAM_14_the_other_attributes_do_not_make_a_roll_explosive():
    sheet = make_sheet("force", 2)
    sheet["attributes"]["astuce"] = 5
    result, _ = resolve(action_request(sheet, attribute="force"), 10, 10)
    assert result["explosive"] is False and result["successes"] == 2


# --- VAM-16: blank botch ---------------------------------------------------------------------


BOTCH = (1, 2)  # pool 2 at difficulty 6: no success, a 1


def blank_botch_effect(before: int | None, after: int) -> dict[str, Any]:
    return {
        "character_id": PC,
        "field": "blank_botch_session",
        "before": before,
        "after": after,
        "rule": "VAM-16",
    }


@pytest.mark.parametrize("earlier", [None, 0, SESSION - 1, SESSION + 1])
def test_VAM_16_first_botch_of_the_session_is_absorbed(earlier):
    sheet = make_sheet("astuce", 1, {"subterfuge": 1}, blank_botch_session=earlier)
    request = pool_request(2, sheet=sheet, options={"blank_botch": True})
    result, effects = resolve(request, *BOTCH)
    assert result["outcome"] == "failure" and result["botch_absorbed"] is True
    assert result["quality"] is None and result["net"] == -1
    assert effects == [blank_botch_effect(earlier, SESSION)]


def test_VAM_16_a_second_botch_in_the_same_session_is_a_botch():
    sheet = make_sheet("astuce", 1, {"subterfuge": 1}, blank_botch_session=SESSION)
    request = pool_request(2, sheet=sheet, options={"blank_botch": True})
    result, effects = resolve(request, *BOTCH)
    assert result["outcome"] == "botch" and result["botch_absorbed"] is False
    assert effects == []


@pytest.mark.parametrize("options", [{}, {"blank_botch": False}])
def test_VAM_16_without_the_option_a_botch_stays_a_botch(options):
    request = pool_request(2, options=options)
    if "blank_botch" not in options:
        del request["options"]["blank_botch"]
    result, effects = resolve(request, *BOTCH)
    assert result["outcome"] == "botch" and result["botch_absorbed"] is False
    assert effects == []


@pytest.mark.parametrize("pool", (1, 2, 3))
def test_VAM_16_exhaustive_only_botches_are_absorbed(pool):
    for explosive, difficulty in product((False, True), DIFFICULTIES):
        request = pool_request(
            pool, difficulty=difficulty, explosive=explosive, options={"blank_botch": True}
        )
        for faces in product(FACES, repeat=pool):
            want = expected_roll(faces, difficulty, explosive)
            result, effects = resolve(request, *faces)
            botch = want["outcome"] == "botch"
            assert result["botch_absorbed"] is botch
            assert result["outcome"] == ("failure" if botch else want["outcome"])
            assert result["quality"] == want["quality"]
            assert effects == ([blank_botch_effect(None, SESSION)] if botch else [])


def test_VAM_16_21_willpower_never_botches_so_nothing_is_absorbed():
    request = pool_request(2, willpower=True, options={"blank_botch": True})
    result, effects = resolve(request, *BOTCH)
    assert result["outcome"] == "success" and result["botch_absorbed"] is False
    assert effects == [willpower_effect((5, 5), (5, 4))]


# --- VAM-20: automatic success ----------------------------------------------------------------


@pytest.mark.parametrize("difficulty", DIFFICULTIES)
@pytest.mark.parametrize("pool", range(1, 11))
def test_VAM_20_automatic_success_needs_the_pool_to_reach_the_difficulty(pool, difficulty):
    sheet = make_sheet("intelligence", min(pool, 5), {"investigation": max(0, pool - 5)})
    request = action_request(
        sheet,
        attribute="intelligence",
        ability="investigation",
        difficulty=difficulty,
        take_automatic=True,
    )
    if pool < difficulty:
        refused(request, "VAM-20")
        return
    result, effects = resolve(request)  # no dice at all
    assert result["dice"] == [] and result["automatic"] is True
    assert (result["successes"], result["ones"], result["net"]) == (1, 0, 1)
    assert result["outcome"] == "success" and result["quality"] == "marginal"
    assert result["pool"] == pool and result["difficulty"] == difficulty
    assert effects == []


@pytest.mark.parametrize("pool", [6, 10])
def test_VAM_20_no_automatic_success_when_tense(pool):
    request = pool_request(pool, difficulty=3, tense=True, take_automatic=True)
    refused(request, "VAM-20")


def test_VAM_20_the_character_may_roll_anyway():
    result, _ = resolve(pool_request(6, difficulty=3), 1, 1, 1, 1, 2, 2)
    assert result["automatic"] is False and result["outcome"] == "botch"


def test_VAM_20_30_automatic_success_is_measured_against_the_raised_difficulty():
    request = pool_request(
        6, difficulty=5, take_automatic=True, retry=retry_of("failure", difficulty=5)
    )
    result, _ = resolve(request)
    assert result["difficulty"] == 6 and result["automatic"] is True
    request = pool_request(
        6, difficulty=6, take_automatic=True, retry=retry_of("failure", difficulty=6)
    )
    refused(request, "VAM-20")


def test_VAM_20_automatic_success_spends_no_willpower():
    sheet = make_sheet("astuce", 3, {"subterfuge": 3})
    request = action_request(sheet, ability="subterfuge", take_automatic=True, willpower=True)
    result, effects = resolve(request)
    assert result["automatic"] is True and result["willpower_spent"] is False
    assert effects == []


# --- VAM-21: Willpower ------------------------------------------------------------------------


@pytest.mark.parametrize(("maximum", "current"), [(m, c) for m in range(1, 11) for c in (1, m)])
def test_VAM_21_willpower_spends_one_point(maximum, current):
    sheet = make_sheet("astuce", 1, {"subterfuge": 1}, willpower=(maximum, current))
    request = pool_request(2, sheet=sheet, willpower=True)
    result, effects = resolve(request, 1, 1)
    assert result["outcome"] == "success" and result["net"] == 1
    assert result["quality"] == "marginal"
    assert effects == [willpower_effect((maximum, current), (maximum, current - 1))]


@pytest.mark.parametrize("maximum", range(1, 11))
def test_VAM_21_refused_with_no_willpower_left(maximum):
    sheet = make_sheet("astuce", 1, {"subterfuge": 1}, willpower=(maximum, 0))
    refused(pool_request(2, sheet=sheet, willpower=True), "VAM-21")


def test_VAM_21_refused_once_already_spent_this_turn():
    request = pool_request(2, willpower=True, willpower_spent_this_turn=True)
    refused(request, "VAM-21")


def test_VAM_21_without_willpower_nothing_is_spent():
    sheet = make_sheet("astuce", 1, {"subterfuge": 1}, willpower=(5, 0))
    result, effects = resolve(pool_request(2, sheet=sheet), 7, 7)
    assert result["willpower_spent"] is False and effects == []


# --- VAM-30: retrying -------------------------------------------------------------------------


FAILED = ("failure", "botch")


@pytest.mark.parametrize("base", DIFFICULTIES)
@pytest.mark.parametrize("attempts", range(1, 11))
def test_VAM_30_each_failed_attempt_adds_one_capped_at_10(base, attempts):
    outcomes = [FAILED[i % 2] for i in range(attempts)]
    request = pool_request(1, difficulty=base, retry=retry_of(*outcomes, difficulty=base))
    result, _ = resolve(request, 5)
    assert result["difficulty"] == min(10, base + attempts)
    assert result["retry_penalty"] == min(10, base + attempts) - base
    assert result["difficulty_label"] == DIFFICULTY_LABELS[min(10, base + attempts)]


@pytest.mark.parametrize("faces", list(product(FACES, repeat=2)))
def test_VAM_30_the_raised_difficulty_is_the_one_the_dice_meet(faces):
    request = pool_request(
        2, difficulty=6, retry=retry_of("failure", "botch", difficulty=6), explosive=False
    )
    result, _ = resolve(request, *faces)
    want = expected_roll(faces, 8, False)
    assert {k: result[k] for k in want} == want


@pytest.mark.parametrize("attempts", [1, 3])
def test_VAM_30_no_penalty_with_the_option_off(attempts):
    request = pool_request(
        1,
        difficulty=6,
        retry=retry_of(*["failure"] * attempts, difficulty=6),
        options={"retry_penalty": False},
    )
    result, _ = resolve(request, 5)
    assert result["difficulty"] == 6 and result["retry_penalty"] == 0


@pytest.mark.parametrize("attempts", [1, 3])
def test_VAM_30_no_penalty_when_waived(attempts):
    request = pool_request(
        1, difficulty=6, retry=retry_of(*["failure"] * attempts, waived=True, difficulty=6)
    )
    result, _ = resolve(request, 5)
    assert result["difficulty"] == 6 and result["retry_penalty"] == 0


def test_VAM_30_the_penalty_option_defaults_on():
    request = pool_request(1, difficulty=6, retry=retry_of("failure", difficulty=6))
    del request["options"]["retry_penalty"]
    result, _ = resolve(request, 5)
    assert result["difficulty"] == 7


@pytest.mark.parametrize("earlier", [(), ("failure",), ("botch", "failure")])
def test_VAM_30_a_successful_attempt_is_not_retried(earlier):
    request = pool_request(2, retry=retry_of(*earlier, "success"))
    refused(request, "VAM-30")
    refused(pool_request(2, retry=retry_of(*earlier, "success"), willpower=True), "VAM-30")


def test_VAM_30_21_a_retry_may_spend_willpower():
    request = pool_request(2, difficulty=9, willpower=True, retry=retry_of("failure", difficulty=9))
    result, effects = resolve(request, 1, 9)
    assert result["difficulty"] == 10 and result["successes"] == 0
    assert result["outcome"] == "success" and result["net"] == 1
    assert effects == [willpower_effect((5, 5), (5, 4))]
