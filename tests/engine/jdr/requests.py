"""Request builders for the JDR Express engine tests: the shapes the service records.

Requests are built the way the service prepares them (clock + character snapshot +
inputs) and resolved through each kind's typed contract (`tests/engine/rules.py`); dice
come from ReplayDice and every test checks the exact number of dice drawn. The tables
(JDR-11 tiers, JDR-33 wounds) are written here independently of the engine.
"""

from __future__ import annotations

import copy
from itertools import product
from typing import Any

import pytest
from pydantic import ValidationError

from app.engine.dice import ReplayDice
from app.engine.errors import RuleRefusal
from app.engine.rulesets.jdr.sheet import JdrCthulhuSheet, JdrDraculaSheet
from tests.engine.rules import Resolved, resolve

D, C = "jdr-express-dracula", "jdr-express-cthulhu"
PC = "0b5e0000-0000-4000-8000-000000000001"
PC2 = "0b5e0000-0000-4000-8000-000000000002"
PC3 = "0b5e0000-0000-4000-8000-000000000003"
NPC = "0b5e0000-0000-4000-8000-0000000000aa"
BELIEVER = "0b5e0000-0000-4000-8000-0000000000bb"
SESSION, SCENE, ACTION_SEQ = 2, 5, 40
FACES2 = list(product(range(1, 7), repeat=2))
FACES3 = list(product(range(1, 7), repeat=3))
TRAITS = ("mental", "physique", "social")
P = pytest.param

# JDR-11, written out: (lowest total, highest total, code, label).
JDR_11 = [
    (None, 5, "critical_failure", "Échec critique"),
    (6, 8, "failure", "Échec"),
    (9, 10, "partial_success", "Succès partiel"),
    (11, 14, "success", "Succès complet"),
    (15, None, "critical_success", "Succès critique"),
]
# JDR-33, written out: (lowest margin, highest margin, severity); margin <= 0 is a miss.
JDR_33 = [(1, 4, "light"), (5, 9, "serious"), (10, None, "critical")]
# With physique 3 (the default sheets), these faces give totals 5, 7, 9, 11, 15.
TIER_FACES = {
    "critical_failure": (1, 1),
    "failure": (2, 2),
    "partial_success": (3, 3),
    "success": (4, 4),
    "critical_success": (6, 6),
}


def expected_tier(total: int) -> tuple[str, str]:
    for low, high, code, label in JDR_11:
        if (low is None or total >= low) and (high is None or total <= high):
            return code, label
    raise AssertionError(total)


def expected_severity(margin: int) -> str | None:
    for low, high, severity in JDR_33:
        if margin >= low and (high is None or margin <= high):
            return severity
    return None


def expected_kept(faces: tuple[int, ...], mode: str) -> list[bool]:
    """JDR-12: drop the lowest (advantage) or highest (disadvantage); ties keep the earlier."""
    if mode == "normal":
        return [True] * len(faces)
    dropped_face = min(faces) if mode == "advantage" else max(faces)
    dropped = max(i for i, face in enumerate(faces) if face == dropped_face)
    return [i != dropped for i in range(3)]


# --- request builders (the shapes app/services/jdr.py records) ----------------------------


def dracula_sheet(**over: Any) -> dict[str, Any]:
    raw = {
        "traits": {"mental": 2, "physique": 3, "social": 1},
        "talents": [{"name": "Escrime", "bonus": 2}],
        "defense_bonus": 1,
        "wounds": [],
        "joker": "ready",
        "status": "active",
        "tags": [],
        "destroyed": False,
        "faith": "believer",
        "sacred_object": "Le chapelet de ma mère",
        "sacred_object_scene": 1,
        "talisman": "ready",
        "instructed_by": None,
        "faith_shaken": None,
        **over,
    }
    return JdrDraculaSheet.model_validate(raw).model_dump(mode="json")


def cthulhu_sheet(**over: Any) -> dict[str, Any]:
    raw = {
        "traits": {"mental": 2, "physique": 3, "social": 1},
        "talents": [{"name": "Bibliothécaire", "bonus": 2}],
        "defense_bonus": 1,
        "wounds": [],
        "joker": "ready",
        "status": "active",
        "tags": [],
        "destroyed": False,
        "marks": [
            {"description": "Un cauchemar récurrent", "counted": True, "scene": 1},
            {"description": "Une odeur de sel", "counted": False, "scene": 2},
        ],
        "effleurement": "ready",
        **over,
    }
    return JdrCthulhuSheet.model_validate(raw).model_dump(mode="json")


def sheet_for(system: str, **over: Any) -> dict[str, Any]:
    return dracula_sheet(**over) if system == D else cthulhu_sheet(**over)


def counted_marks(n: int) -> list[dict[str, Any]]:
    return [{"description": f"Marque {i}", "counted": True, "scene": 1} for i in range(n)]


def clock(system: str, scene: int = SCENE) -> dict[str, Any]:
    return {"system": system, "session": SESSION, "scene": scene}


def char(sheet: dict[str, Any], *, kind: str = "pc", cid: str = PC) -> dict[str, Any]:
    return {"id": cid, "name": f"{kind}-{cid[-2:]}", "kind": kind, "sheet": sheet}


def ctx(**over: Any) -> dict[str, Any]:
    base = {"supernatural": False, "domain": "other", "direct_peril": False, "protection": False}
    return {**base, **over}


def action_req(
    system: str,
    sheet: dict[str, Any],
    *,
    kind: str = "pc",
    scene: int = SCENE,
    trait: str = "physique",
    talent: str | None = None,
    modifier: int = 0,
    advantage: bool = False,
    disadvantage: bool = False,
    difficulty: int | None = None,
    **context: Any,
) -> dict[str, Any]:
    return {
        **clock(system, scene),
        "character": char(sheet, kind=kind),
        "trait": trait,
        "talent": talent,
        "modifier": modifier,
        "advantage": advantage,
        "disadvantage": disadvantage,
        "difficulty": difficulty,
        "context": {**ctx(), **context},
    }


def dice(faces: Any) -> ReplayDice:
    return ReplayDice([{"sides": 6, "face": f} for f in faces])


def run(kind: str, request: dict[str, Any], faces: Any = ()) -> Resolved:
    """Resolve through the kind's typed contract, and check that exactly the given dice were
    drawn."""
    source = dice(faces)
    resolution = resolve(kind, request, source)
    source.assert_consumed()
    return resolution


def refused(kind: str, request: dict[str, Any], rule: str | None, error: Any = RuleRefusal) -> None:
    """The rule refuses, naming `rule`, before drawing any die."""
    source = dice([6] * 6)
    with pytest.raises(error) as caught:
        resolve(kind, request, source)
    assert caught.value.rule == rule
    assert source.draws == []


def malformed(kind: str, request: dict[str, Any], field: str) -> None:
    """The kind's request model refuses the request, naming `field`, before any die."""
    source = dice([6] * 6)
    with pytest.raises(ValidationError, match=field):
        resolve(kind, request, source)
    assert source.draws == []


def sheet_model(sheet: dict[str, Any]) -> JdrDraculaSheet | JdrCthulhuSheet:
    """A sheet of either setting as the rules read it."""
    if "faith" in sheet:
        return JdrDraculaSheet.model_validate(sheet)
    return JdrCthulhuSheet.model_validate(sheet)


def rolled(request: dict[str, Any], faces: Any, seq: int = ACTION_SEQ) -> dict[str, Any]:
    """The action entry a follow-up reads: {seq, kind, request, result}."""
    resolution = run("jdr.action", request, faces)
    return {"seq": seq, "kind": "jdr.action", "request": request, "result": resolution.result}


def follow(kind: str, result: dict[str, Any], seq: int) -> dict[str, Any]:
    """A follow-up as the Table's follow_ups records it."""
    return {"seq": seq, "kind": kind, "character_id": PC, "result": result}


def follow_req(
    entry: dict[str, Any],
    sheet: dict[str, Any] | None = None,
    *,
    follow_ups: Any = (),
    scene: int | None = None,
    kind: str = "pc",
    **extra: Any,
) -> dict[str, Any]:
    """Talisman / Effleurement / Joker request on an action entry."""
    request = entry["request"]
    return {
        **clock(request["system"], request["scene"] if scene is None else scene),
        "character": char(sheet if sheet is not None else request["character"]["sheet"], kind=kind),
        "action": entry,
        "follow_ups": list(follow_ups),
        **extra,
    }


def apply(sheet: dict[str, Any], effects: list[dict[str, Any]], cid: str = PC) -> dict[str, Any]:
    """Apply a resolution's effects; each effect's `before` must be what the sheet holds."""
    after = copy.deepcopy(sheet)
    for effect in effects:
        if effect["character_id"] == cid:
            assert after.get(effect["field"]) == effect["before"], effect
            after[effect["field"]] = copy.deepcopy(effect["after"])
    return after


def eff(field: str, before: Any, after: Any, rule: str, cid: str = PC) -> dict[str, Any]:
    return {"character_id": cid, "field": field, "before": before, "after": after, "rule": rule}


def make_weapon(
    name: str = "Sabre de cavalerie", bonus: int = 0, damage: int = 0, tags: Any = ()
) -> dict[str, Any]:
    return {"name": name, "bonus": bonus, "damage_bonus": damage, "tags": list(tags)}


def attack_req(
    system: str,
    attacker: dict[str, Any],
    target: dict[str, Any],
    *,
    weapon: dict[str, Any] | None = None,
    advantage: bool = False,
    disadvantage: bool = False,
    supernatural: bool = False,
    sleeping: bool = False,
    scene: int = SCENE,
) -> dict[str, Any]:
    return {
        **clock(system, scene),
        "attacker": char(attacker),
        "target": char(target, kind="npc", cid=NPC),
        "weapon": weapon or make_weapon(),
        "advantage": advantage,
        "disadvantage": disadvantage,
        "context": {"supernatural": supernatural},
        "sleeping_target": sleeping,
    }


def mythos_req(
    sheet: dict[str, Any],
    difficulty: int,
    *,
    kind: str = "pc",
    detail: str | None = None,
    **flags: bool,
) -> dict[str, Any]:
    return {
        **clock(C),
        "character": char(sheet, kind=kind),
        "difficulty": difficulty,
        "source": "Grimoire latin",
        "detail": detail,
        "advantage": flags.get("advantage", False),
        "disadvantage": flags.get("disadvantage", False),
    }


# --- shared follow-up fixtures ---------------------------------------------------------

SERIOUS = {"severity": "serious", "note": "morsure", "cared": False}


def shaken_sheet(confrontation: int | None = None) -> dict[str, Any]:
    shaken = {"cracked_scene": 3, "confrontation_scene": confrontation}
    return dracula_sheet(talisman="cracked", faith_shaken=shaken)


WORDS = "Seigneur, garde-moi de cette bête."


def talisman_req(
    *,
    tier: str = "partial_success",
    context: dict[str, Any] | None = None,
    follow_ups: Any = (),
    scene: int | None = None,
    kind: str = "pc",
    words: str = WORDS,
    **sheet_over: Any,
) -> dict[str, Any]:
    sheet = dracula_sheet(**sheet_over)
    context = {"supernatural": True} if context is None else context
    entry = rolled(action_req(D, sheet, **context), TIER_FACES[tier])
    return follow_req(entry, follow_ups=follow_ups, scene=scene, kind=kind, words=words)


def joker_entry(entry: dict[str, Any], seq: int = ACTION_SEQ + 1) -> dict[str, Any]:
    request = follow_req(entry)
    resolution = run("jdr.joker", request, (6, 5))
    return {"seq": seq, "kind": "jdr.joker", "request": request, "result": resolution.result}


JOKED = follow("jdr.joker", {"tier": "success"}, ACTION_SEQ + 1)
INVOKED = follow("jdr.talisman", {"status": "pending"}, ACTION_SEQ + 1)


MARK = "Un mot dans une langue inconnue"


def effleurement_req(
    *,
    tier: str = "partial_success",
    domain: str = "occult",
    follow_ups: Any = (),
    scene: int | None = None,
    kind: str = "pc",
    mark: str = MARK,
    **sheet_over: Any,
) -> dict[str, Any]:
    sheet = cthulhu_sheet(**sheet_over)
    entry = rolled(action_req(C, sheet, domain=domain), TIER_FACES[tier])
    return follow_req(entry, follow_ups=follow_ups, scene=scene, kind=kind, mark=mark)


EFFLEURED = follow("jdr.effleurement", {"status": "applied"}, ACTION_SEQ + 1)
UNDONE = follow("jdr.effleurement_refusal", {"status": "refused"}, ACTION_SEQ + 2)

TALISMANED = follow("jdr.talisman", {"status": "pending"}, ACTION_SEQ + 1)
PERIL = {"direct_peril": True}
