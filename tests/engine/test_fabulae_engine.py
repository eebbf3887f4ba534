"""Fabulae Tenebris engine (fabulae-tenebris.md, FAB-1..44, FAB-80..82, FAB-90), exhaustively.

Every dice test enumerates face combinations with itertools.product (never sampling) and
checks, through ReplayDice.assert_consumed, that exactly the expected dice were drawn.
Requests are built in the shapes app/services/fabulae.py records (clock + character
snapshot + roll inputs); the expected values (tables, pools, pushes, panic) are written
here from the rules, independently of the engine.
"""

from __future__ import annotations

from itertools import combinations, product
from typing import Any

import pytest

from app.engine.dice import ReplayDice
from app.engine.errors import InvalidInput, RuleRefusal
from app.engine.fabulae.rules import (
    check_chosen_state,
    panic_row,
    pool_of,
    read_dice,
    resolve_absorb,
    resolve_action,
    resolve_destiny_award,
    resolve_opposed,
    resolve_panic,
    resolve_push,
    resolve_recover,
    resolve_stress,
    resolve_stress_resist,
    roll_pool,
    state_malus,
    stress_gain,
    track_of,
)
from app.engine.fabulae.sheet import FabulaeSheet

try:  # the state choice moved next to the combat threats it also settles
    from app.engine.fabulae.combat import resolve_state_choice
except ImportError:  # pragma: no cover
    from app.engine.fabulae.rules import resolve_state_choice

SYSTEM = "fabulae-tenebris"
PC = "fab00000-0000-4000-8000-000000000001"
ALLY = "fab00000-0000-4000-8000-000000000002"
ALLY2 = "fab00000-0000-4000-8000-000000000003"
FOE = "fab00000-0000-4000-8000-0000000000aa"
SESSION, SCENE, ACTION_SEQ, PUSH_SEQ = 4, 7, 40, 41
FACES = range(1, 7)
P = pytest.param

ATTRIBUTES = ("physique", "habilete", "intellect", "empathie")
# FAB-2, written out: each skill and its base attribute.
SKILL_BASE = {
    "athletisme": "physique",
    "combat": "physique",
    "resistance": "physique",
    "furtivite": "habilete",
    "dexterite": "habilete",
    "tir": "habilete",
    "bricolage": "intellect",
    "connaissance": "intellect",
    "observation": "intellect",
    "mentir_convaincre": "empathie",
    "performance": "empathie",
    "soin": "empathie",
}
# FAB-4, written out: the alternate attributes allowed on top of the base one.
ALTERNATES = {
    "resistance": {"intellect", "empathie"},
    "bricolage": {"habilete"},
    "observation": {"empathie"},
    "mentir_convaincre": {"intellect", "physique"},
    "soin": {"intellect"},
}
# FAB-20: the tracks in checking order, and the dice each checked state takes (FAB-21).
PHYSICAL = ["epuise", "meurtri", "blesse"]
MENTAL = ["enerve", "apeure", "demoralise"]
STATES = PHYSICAL + MENTAL
MALUS = {"epuise": 0, "meurtri": 1, "blesse": 1, "enerve": 0, "apeure": 1, "demoralise": 1}
EXTRA = {"physical": "physical_extra", "mental": "mental_extra"}
STATE_LABEL = {
    "epuise": "Épuisé",
    "meurtri": "Meurtri",
    "blesse": "Blessé",
    "enerve": "Énervé",
    "apeure": "Apeuré",
    "demoralise": "Démoralisé",
    "physical_extra": "Case supplémentaire (physique)",
    "mental_extra": "Case supplémentaire (mentale)",
}
DIFFICULTY = {"hard": 0, "very_hard": 1, "almost_impossible": 2}  # FAB-12
LABEL = {"success": "Succès", "failure": "Échec", "panic": "Panique", "impossible": "Impossible"}
# FAB-90, written out: talents a player invokes for a roll: (skills, dice).
INVOKED = {
    "tinkerer": ({"bricolage"}, 2),
    "pickpocket": ({"dexterite", "bricolage"}, 2),
    "tracker": ({"observation", "furtivite"}, 2),
    "orator": ({"mentir_convaincre"}, 1),
    "artist": ({"performance"}, 1),
    "expert": ({"connaissance"}, 1),
    "all_in": ({"combat"}, 1),
    "iron_will": ({"resistance"}, 2),
}
DOUBLE_PUSH = {a: f"double_push_{a}" for a in ATTRIBUTES}
# FAB-44, written out: (lowest score, highest score, code).
PANIC_TABLE = [
    (None, 6, "cool"),
    (7, 7, "jolt"),
    (8, 8, "tremors"),
    (9, 9, "drop"),
    (10, 10, "frozen"),
    (11, 11, "take_cover"),
    (12, 12, "scream"),
    (13, 13, "flee"),
    (14, 14, "berserk"),
    (15, None, "catatonia"),
]
CONDITION_CODES = {
    "tremors",
    "drop",
    "frozen",
    "take_cover",
    "scream",
    "flee",
    "berserk",
    "catatonia",
}


# --- request builders (the shapes app/services/fabulae.py records) -----------------------


def make_sheet(
    attributes: dict[str, int] | None = None, skills: dict[str, int] | None = None, **over: Any
) -> dict[str, Any]:
    raw = {
        "attributes": {"physique": 3, "habilete": 3, "intellect": 3, "empathie": 3}
        | (attributes or {}),
        "skills": skills or {},
        **over,
    }
    return FabulaeSheet.model_validate(raw).model_dump(mode="json")


def char(sheet: dict[str, Any], cid: str = PC, kind: str = "pc") -> dict[str, Any]:
    return {"id": cid, "name": f"{kind}-{cid[-2:]}", "kind": kind, "sheet": sheet}


def clock(session: int = SESSION) -> dict[str, Any]:
    return {"system": SYSTEM, "session": session, "scene": SCENE}


def roll_inputs(
    attribute: str = "physique",
    skill: str | None = None,
    *,
    difficulty: str = "hard",
    helpers: int = 0,
    modifiers: Any = (),
    talents: Any = (),
    passive: bool = False,
) -> dict[str, Any]:
    return {
        "attribute": attribute,
        "skill": skill,
        "difficulty": difficulty,
        "helpers": helpers,
        "modifiers": [dict(m) for m in modifiers],
        "talents": list(talents),
        "passive": passive,
    }


def action_req(sheet: dict[str, Any], roll: dict[str, Any] | None = None, **kw: Any) -> Any:
    return {**clock(**kw), "character": char(sheet), "roll": roll or roll_inputs()}


def opposed_req(
    active: dict[str, Any],
    passive: dict[str, Any],
    active_roll: dict[str, Any] | None = None,
    passive_roll: dict[str, Any] | None = None,
) -> dict[str, Any]:
    return {
        **clock(),
        "active": {"character": char(active), "roll": active_roll or roll_inputs()},
        "passive": {
            "character": char(passive, FOE, "npc"),
            "roll": passive_roll or roll_inputs(),
        },
    }


def dice(faces: Any) -> ReplayDice:
    return ReplayDice([{"sides": 6, "face": f} for f in faces])


def run(resolver: Any, request: dict[str, Any], faces: Any = ()) -> Any:
    """Resolve, and check that exactly the given dice were drawn."""
    source = dice(faces)
    resolution = resolver(request, source)
    source.assert_consumed()
    return resolution


def refused(resolver: Any, request: dict[str, Any], rule: str | None, error: Any = RuleRefusal):
    """The rule refuses (naming `rule`) before drawing any die."""
    source = dice([6] * 20)
    with pytest.raises(error) as caught:
        resolver(request, source)
    if rule is not None:
        assert caught.value.rule == rule or caught.value.detail.startswith(f"{rule}:")
    assert source.draws == []
    return caught.value


def eff(field: str, before: Any, after: Any, rule: str, cid: str = PC) -> dict[str, Any]:
    return {"character_id": cid, "field": field, "before": before, "after": after, "rule": rule}


def entry(kind: str, request: dict[str, Any], result: dict[str, Any], seq: int = ACTION_SEQ):
    """The followed entry as a push records it: {seq, kind, request, result}."""
    return {"seq": seq, "kind": kind, "request": request, "result": result}


def follow(kind: str, result: dict[str, Any], seq: int) -> dict[str, Any]:
    """A follow-up as load_follow_ups records it."""
    return {"seq": seq, "kind": kind, "result": result}


def push_req(
    sheet: dict[str, Any],
    action: dict[str, Any],
    follow_ups: Any = (),
    *,
    state: str | None = None,
    absorb: bool = False,
) -> dict[str, Any]:
    return {
        **clock(),
        "character": char(sheet),
        "action": action,
        "follow_ups": list(follow_ups),
        "state": state,
        "absorb": absorb,
    }


# --- independent expectations -------------------------------------------------------------


def expected_read(faces: Any, stress: Any) -> dict[str, Any]:
    """FAB-11, FAB-15, FAB-42."""
    sixes = list(faces).count(6) + list(stress).count(6)
    panic = 1 in stress
    outcome = "panic" if panic else ("success" if sixes >= 1 else "failure")
    return {
        "dice": list(faces),
        "stress_dice": list(stress),
        "sixes": sixes,
        "feats": sixes - 1 if outcome == "success" else 0,
        "panic": panic,
        "outcome": outcome,
        "label": LABEL[outcome],
    }


def expected_opposition(active: dict[str, Any], passive: dict[str, Any]) -> dict[str, Any]:
    """FAB-36: a side that panicked or could not act scores no six."""

    def score(side: dict[str, Any]) -> int:
        return 0 if side["outcome"] in ("panic", "impossible") else side["sixes"]

    net = score(active) - score(passive)
    if active["outcome"] in ("panic", "impossible"):
        outcome = active["outcome"]
    else:
        outcome = "success" if net > 0 else "failure"
    return {
        "net": net,
        "feats": max(0, net - 1),
        "winner": "active" if net > 0 else "passive",
        "outcome": outcome,
        "label": LABEL[outcome],
    }


def rerolled(faces: Any, stress: Any, rerolls: Any) -> tuple[list[int], list[int], int]:
    """FAB-31: every 2..5 is rerolled (pool dice first, then stress dice); 1s and 6s stay."""
    it = iter(rerolls)
    new_faces = [f if f in (1, 6) else next(it) for f in faces]
    new_stress = [f if f in (1, 6) else next(it) for f in stress]
    assert next(it, None) is None
    return new_faces, new_stress, sum(1 for f in [*faces, *stress] if 2 <= f <= 5)


def rotation(index: int, count: int) -> list[int]:
    """Deterministic reroll faces that visit every face on every position over the loop."""
    return [(index + 5 * j) % 6 + 1 for j in range(count)]


def expected_panic_code(score: int) -> str:
    for low, high, code in PANIC_TABLE:
        if (low is None or score >= low) and (high is None or score <= high):
            return code
    raise AssertionError(score)


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
    "roll",
    [
        P(roll_inputs(helpers=4), id="FAB13-four-helpers"),
        P(roll_inputs(helpers=-1), id="FAB13-negative-helpers"),
        P(roll_inputs(difficulty="easy"), id="FAB12-unknown-difficulty"),
        P(roll_inputs("force"), id="unknown-attribute"),
        P(roll_inputs("physique", "escrime"), id="unknown-skill"),
        P(roll_inputs(talents=["cogneur"]), id="FAB90-talent-adds-no-dice"),
    ],
)
def test_FAB10_FAB14_malformed_rolls_are_invalid_before_any_die(roll: dict[str, Any]) -> None:
    sheet = make_sheet(talents=["cogneur"])
    refused(resolve_action, action_req(sheet, roll), None, InvalidInput)


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
    refused(
        resolver, {"system": "jdr-express-dracula", "session": 1, "scene": 1}, None, InvalidInput
    )


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


def resist_req(sheet: dict[str, Any], attribute: str = "physique", skill: str = "resistance"):
    roll = {"attribute": attribute, "skill": skill, "helpers": 0, "modifiers": []}
    return {**clock(), "character": char(sheet), "roll": roll}


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
    "change",
    [
        P({"mode": "sleep"}, id="unknown-mode"),
        P({"mode": "rest", "duration": "week"}, id="unknown-duration"),
        P({"track": "spiritual"}, id="unknown-track"),
    ],
)
def test_FAB80_recover_malformed(change: dict[str, Any]) -> None:
    request = {**care_req(make_sheet(), make_sheet(), "physical"), **change}
    refused(resolve_recover, request, None, InvalidInput)


# --- FAB-30: Destiny award ---------------------------------------------------------------------


@pytest.mark.parametrize("destiny", [0, 3, 7])
def test_FAB30_destiny_award_adds_one(destiny: int) -> None:
    request = {**clock(), "character": char(make_sheet(destiny=destiny)), "reason": "Bravoure"}
    resolution = run(resolve_destiny_award, request)
    assert resolution.result == {"destiny": destiny + 1, "reason": "Bravoure"}
    assert resolution.effects == [eff("destiny", destiny, destiny + 1, "FAB-30")]


def test_FAB15_roll_pool_draws_pool_then_stress_dice() -> None:
    source = dice([6, 2, 1])
    result = roll_pool(source, {"pool": 2, "stress_dice": 1})
    source.assert_consumed()
    assert (result["dice"], result["stress_dice"], result["outcome"]) == ([6, 2], [1], "panic")


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
