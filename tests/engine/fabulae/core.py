"""What the Fabulae core engine tests share (fabulae-tenebris.md, FAB-1..44, FAB-80..82,
FAB-90): request builders and the expectations written from the rules.

Every dice test enumerates face combinations with itertools.product (never sampling) and
checks, through ReplayDice.assert_consumed, that exactly the expected dice were drawn.
Requests are built in the shapes app/services/fabulae.py records (clock + character
snapshot + roll inputs); the expected values (tables, pools, pushes, panic) are written
here from the rules, independently of the engine.
"""

from __future__ import annotations

from typing import Any

import pytest

from app.engine.dice import ReplayDice
from app.engine.errors import RuleRefusal
from app.engine.rulesets.fabulae.sheet import FabulaeSheet

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


# --- helpers shared by several test modules ---------------------------------------------


def resist_req(sheet: dict[str, Any], attribute: str = "physique", skill: str = "resistance"):
    roll = {"attribute": attribute, "skill": skill, "helpers": 0, "modifiers": []}
    return {**clock(), "character": char(sheet), "roll": roll}
