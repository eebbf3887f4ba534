"""Vampire's exact odds (issue 21) against the brute force: every face combination a small
pool can draw, run through the kind's own `resolve`, must give exactly the odds' fractions
(outcomes and the counted numbers); a sample from the real stream must agree with them."""

from __future__ import annotations

from collections import Counter, defaultdict
from fractions import Fraction
from typing import Any

import pytest

from app.engine.dice import HmacDiceStream, ReplayDice
from app.engine.errors import EngineError
from app.engine.odds import Odds, enumerate_paths
from app.engine.rulesets.vampire import RULESET
from app.engine.rulesets.vampire.action import ACTION
from app.engine.rulesets.vampire.health import DAMAGE, LEVELS
from app.services.stats import chi_square_survival
from tests.engine.vampire.requests import OPTIONS, PC, SCENE, SESSION, SYSTEM, make_sheet

VERSION = RULESET.version
NPC = "7a3e0000-0000-4000-8000-0000000000aa"


def action_request(
    pool: int,
    *,
    difficulty: int = 6,
    explosive: bool | None = None,
    willpower: bool = False,
    blank_botch: bool = False,
    absorbed_already: bool = False,
    **extra: Any,
) -> Any:
    """`pool` dice: attribute `value` (1) + a modifier for the rest, unless `extra` says
    otherwise."""
    value = extra.pop("value", 1)
    sheet = make_sheet("astuce", value, extra.pop("abilities", None))
    if absorbed_already:
        sheet["blank_botch_session"] = SESSION
    if "health" in extra:
        sheet["health"] = extra.pop("health")
    raw = {
        "system": SYSTEM,
        "session": SESSION,
        "scene": SCENE,
        "character": {"id": PC, "name": "Lucien", "kind": "pc", "sheet": sheet},
        "options": {**OPTIONS, "blank_botch": blank_botch, **extra.pop("options", {})},
        "attribute": "astuce",
        "modifier": extra.pop("modifier", pool - value),
        "difficulty": difficulty,
        "explosive": explosive,
        "willpower": willpower,
        **extra,
    }
    return ACTION.parse_request(raw)


def exact(odds: Odds) -> dict[str, Fraction]:
    return {item.code: Fraction(item.exact) for item in odds.outcomes}


def values(odds: Odds, name: str) -> dict[int, Fraction]:
    (found,) = [d for d in odds.distributions if d.name == name]
    return {item.value: Fraction(item.exact) for item in found.values}


def brute(
    kind: Any, request: Any, numbers: tuple[str, ...], version: int = VERSION
) -> tuple[dict[str, Fraction], ...]:
    """Every face sequence through `resolve`: the outcomes' and numbers' exact weights."""
    outcomes: dict[str, Fraction] = defaultdict(Fraction)
    counted: dict[str, dict[int, Fraction]] = {name: defaultdict(Fraction) for name in numbers}
    for weight, resolution in enumerate_paths(
        lambda dice: kind.resolve(request, dice, version), max_dice=40
    ):
        assert resolution is not None  # no chain is cut: nothing here explodes
        result = resolution.result
        found = kind.outcome(result)
        outcomes[found.code if found else "unhurt"] += weight
        for name in numbers:
            counted[name][getattr(result, name)] += weight
    return dict(outcomes), *({k: v for k, v in counted[n].items() if v} for n in numbers)


def check_against_brute(
    kind: Any, request: Any, numbers: tuple[str, ...], version: int = VERSION
) -> Odds:
    odds = kind.odds(request, version)
    outcomes, *counted = brute(kind, request, numbers, version)
    expected = exact(odds)
    assert sum(expected.values()) == 1
    assert {code: p for code, p in expected.items() if p} == outcomes
    for name, found in zip(numbers, counted, strict=True):
        assert values(odds, name) == found, name
    return odds


# --- VAM-10..16: the action roll -----------------------------------------------------------


@pytest.mark.parametrize("pool", [1, 2, 3])
@pytest.mark.parametrize("difficulty", [2, 3, 6, 8, 9, 10])
@pytest.mark.parametrize("explosive", [False, True])
@pytest.mark.parametrize("willpower", [False, True])
def test_VAM12_15_21_action_odds_equal_the_brute_force(pool, difficulty, explosive, willpower):
    request = action_request(pool, difficulty=difficulty, explosive=explosive, willpower=willpower)
    odds = check_against_brute(ACTION, request, ("net", "successes"))
    assert [item.code for item in odds.outcomes] == [
        "botch",
        "failure",
        "marginal",
        "moderate",
        "complete",
    ]
    if willpower:  # VAM-21: never a botch nor a failure
        assert exact(odds)["botch"] == exact(odds)["failure"] == 0


@pytest.mark.parametrize("difficulty", [4, 6, 7])
@pytest.mark.parametrize("explosive", [False, True])
def test_VAM12_15_four_dice_equal_the_brute_force(difficulty, explosive):
    check_against_brute(
        ACTION, action_request(4, difficulty=difficulty, explosive=explosive), ("net",)
    )


@pytest.mark.parametrize("absorbed_already", [False, True])
def test_VAM16_a_blank_botch_is_a_failure_only_once_a_session(absorbed_already):
    request = action_request(3, blank_botch=True, absorbed_already=absorbed_already)
    odds = check_against_brute(ACTION, request, ("net",))
    assert (exact(odds)["botch"] > 0) is absorbed_already


@pytest.mark.parametrize(
    ("value", "most", "chance"), [(5, 4, Fraction(1, 100)), (4, 2, Fraction(1, 4))]
)
def test_VAM14_explosive_by_default_above_4(value, most, chance):
    # Two dice: a 10 counts twice by default only with an attribute of 5.
    request = action_request(2, value=value)
    odds = check_against_brute(ACTION, request, ("successes",))
    assert max(values(odds, "successes")) == most
    assert values(odds, "successes")[most] == chance  # two 10s; or two dice of 6 or more


def test_VAM2_an_ability_adds_its_dice():
    request = action_request(
        3, modifier=-1, value=2, abilities={"subterfuge": 2}, ability="subterfuge"
    )
    check_against_brute(ACTION, request, ("net", "successes"))


@pytest.mark.parametrize("outcomes", [["failure"], ["failure", "botch"]])
@pytest.mark.parametrize("options", [{}, {"retry_penalty": False}])
@pytest.mark.parametrize("waived", [False, True])
@pytest.mark.parametrize("tense", [False, True])
def test_VAM30_the_retry_penalty_is_in_the_odds(outcomes, options, waived, tense):
    chain = [
        {"seq": 10 + i, "outcome": o, "difficulty": 7, "visibility": "public"}
        for i, o in enumerate(outcomes)
    ]
    retry = {"of": chain[-1]["seq"], "chain": chain, "waived": waived}
    request = action_request(3, difficulty=7, retry=retry, options=options, tense=tense)
    odds = check_against_brute(ACTION, request, ("net",))
    penalised = not (options or waived or tense)
    assert any(f"difficulty is {7 + len(outcomes)}" in note for note in odds.notes) is (penalised)


def test_VAM40_the_wound_penalty_takes_dice():
    health = {"bashing": 4, "lethal": 0, "aggravated": 0}  # Wounded: −2
    request = action_request(4, health=health)
    odds = check_against_brute(ACTION, request, ("net",))
    assert odds.notes[0].startswith("2d10")


@pytest.mark.parametrize("version", [1, 2])
def test_VAM30_VAM40_version_1_replays_its_own_odds(version):
    # Version 1: no wound penalty, and only the latest attempt of a chain closes it.
    chain = [
        {"seq": 3, "outcome": "success", "difficulty": 6, "visibility": "public"},
        {"seq": 4, "outcome": "failure", "difficulty": 6, "visibility": "public"},
    ]
    request = action_request(
        3,
        health={"bashing": 2, "lethal": 0, "aggravated": 0},  # Hurt: −1 from version 2
        retry={"of": 4, "chain": chain, "waived": False},
    )
    if version == 1:
        odds = check_against_brute(ACTION, request, ("net",), version)
        assert odds.notes[0] == "3d10 against 7"  # one failure in the chain: +1
    else:
        with pytest.raises(EngineError) as caught:
            ACTION.odds(request, version)
        assert caught.value.rule == "VAM-30"


def test_VAM20_an_automatic_success_is_certain():
    request = action_request(6, take_automatic=True)
    odds = check_against_brute(ACTION, request, ("net", "successes"))
    assert exact(odds)["marginal"] == 1


REFUSED = [
    pytest.param({"modifier": -1}, "VAM-10", id="no-dice"),
    pytest.param({"ability": "jonglage"}, "VAM-2", id="unknown-ability"),
    pytest.param({"take_automatic": True, "tense": True}, "VAM-20", id="automatic-tense"),
    pytest.param({"take_automatic": True, "difficulty": 9}, "VAM-20", id="automatic-short"),
    pytest.param({"willpower": True, "willpower_spent_this_turn": True}, "VAM-21", id="twice"),
    pytest.param(
        {"health": {"bashing": 0, "lethal": 7, "aggravated": 0}}, "VAM-40", id="incapacitated"
    ),
    pytest.param(
        {
            "retry": {
                "of": 3,
                "chain": [
                    {"seq": 3, "outcome": "success", "difficulty": 6, "visibility": "public"}
                ],
                "waived": False,
            }
        },
        "VAM-30",
        id="retry-of-a-success",
    ),
]


@pytest.mark.parametrize(("extra", "rule"), REFUSED)
def test_odds_refuse_what_the_roll_refuses(extra, rule):
    request = action_request(extra.pop("pool", 3 if "modifier" not in extra else 1), **extra)
    with pytest.raises(EngineError) as rolled:
        ACTION.resolve(request, ReplayDice([]), VERSION)
    with pytest.raises(EngineError) as odds:
        ACTION.odds(request, VERSION)
    assert (type(odds.value), odds.value.rule, str(odds.value)) == (
        type(rolled.value),
        rolled.value.rule,
        str(rolled.value),
    )
    assert rolled.value.rule == rule


def test_VAM21_no_willpower_left_is_refused():
    request = action_request(2, willpower=True)
    request.character.sheet.willpower.current = 0
    with pytest.raises(EngineError) as caught:
        ACTION.odds(request, VERSION)
    assert caught.value.rule == "VAM-21"


# --- VAM-40: damage and soak ---------------------------------------------------------------


def damage_request(
    *,
    force: int | None = 2,
    bonus: int = 0,
    pool: int | None = None,
    damage_type: str = "lethal",
    vigueur: int = 1,
    fortitude: int = 0,
    health: dict[str, int] | None = None,
    soak: bool = True,
) -> Any:
    target = make_sheet("vigueur", vigueur)
    target["fortitude"] = fortitude
    if health is not None:
        target["health"] = health
    raw: dict[str, Any] = {
        "system": SYSTEM,
        "session": SESSION,
        "scene": SCENE,
        "target": {"id": NPC, "name": "Prévôt", "kind": "npc", "sheet": target},
        "damage_type": damage_type,
        "bonus": bonus,
        "soak": soak,
    }
    if force is None:
        raw["pool"] = pool
    else:
        raw["attacker"] = {
            "id": PC,
            "name": "Lucien",
            "kind": "pc",
            "sheet": make_sheet("force", force),
        }
    return DAMAGE.parse_request(raw)


@pytest.mark.parametrize(
    "case",
    [
        {},
        {"force": 1, "bonus": 2, "vigueur": 2},
        {"damage_type": "aggravated", "fortitude": 1, "vigueur": 3},
        {"damage_type": "bashing", "health": {"bashing": 5, "lethal": 1, "aggravated": 0}},
        {"force": None, "pool": 3, "vigueur": 2, "fortitude": 1},
        {
            "force": None,
            "pool": 4,
            "soak": False,
            "health": {"bashing": 0, "lethal": 2, "aggravated": 0},
        },
        {"damage_type": "aggravated", "fortitude": 0, "force": 3},
    ],
)
def test_VAM40_damage_odds_equal_the_brute_force(case):
    request = damage_request(**case)
    odds = check_against_brute(DAMAGE, request, ("successes", "levels", "beyond"))
    codes = [item.code for item in odds.outcomes]
    if request.attacker is not None:  # the attacker's luck: the more hurt, the better
        assert codes == ["unhurt", *LEVELS]
    else:  # a hazard, filed under its target
        assert codes == [*reversed(LEVELS), "unhurt"]


def test_VAM40_damage_refuses_what_the_roll_refuses():
    request = damage_request(force=None, pool=1)
    request.pool = 0
    for run in (
        lambda: DAMAGE.resolve(request, ReplayDice([]), VERSION),
        lambda: DAMAGE.odds(request, VERSION),
    ):
        with pytest.raises(EngineError) as caught:
            run()
        assert caught.value.rule == "VAM-40"


# --- the real stream ---------------------------------------------------------------------


def chi_square(observed: Counter[str], odds: Odds, rolls: int) -> float:
    expected = {code: float(p) * rolls for code, p in exact(odds).items() if p}
    assert set(observed) <= set(expected)
    statistic = sum((observed[code] - e) ** 2 / e for code, e in expected.items())
    return chi_square_survival(len(expected) - 1, statistic)


def test_VAM12_15_sampled_from_the_real_stream_agrees_with_the_odds():
    stream = HmacDiceStream(bytes(range(32)), "odds-vampire", 1, "sample", 1)
    request = action_request(6, difficulty=7, explosive=True)
    odds = ACTION.odds(request, VERSION)
    rolls = 10_000
    observed = Counter(
        ACTION.outcome(ACTION.resolve(request, stream, VERSION).result).code for _ in range(rolls)
    )
    assert chi_square(observed, odds, rolls) > 0.001
