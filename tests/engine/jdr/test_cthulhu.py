"""[C] The Mythos (JDR-40..42), the Effleurement and its refusal (JDR-28, JDR-29, JDR-42),
the sacrifice (JDR-29a)."""

from __future__ import annotations

from itertools import product
from typing import Any

import pytest

from app.engine.errors import InvalidInput
from app.engine.rulesets.jdr.sheet import JdrCthulhuSheet
from tests.engine.jdr.requests import (
    ACTION_SEQ,
    EFFLEURED,
    FACES2,
    FACES3,
    JOKED,
    MARK,
    SCENE,
    TIER_FACES,
    UNDONE,
    C,
    D,
    P,
    action_req,
    apply,
    char,
    clock,
    counted_marks,
    cthulhu_sheet,
    ctx,
    eff,
    effleurement_req,
    expected_kept,
    follow,
    follow_req,
    joker_entry,
    mythos_req,
    refused,
    rolled,
    run,
)

# --- JDR-40/41/42: Mythos ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("who", "kind", "status", "marks"),
    [
        ("fresh-pc", "pc", "active", []),
        ("pc-at-five", "pc", "active", counted_marks(5)),
        ("pc-at-four", "pc", "active", counted_marks(4)),
        ("npc-at-five", "npc", "active", counted_marks(5)),
        ("already-npc", "pc", "npc", counted_marks(6)),
    ],
)
def test_JDR_40_JDR_41_JDR_42_mythos_every_face_mental_and_difficulty(
    who: str, kind: str, status: str, marks: list[dict[str, Any]]
) -> None:
    labels = {"success": "Réussite", "failure": "Échec", "critical_failure": "Échec critique"}
    for mental in range(6):
        traits = {"mental": mental, "physique": 5 - mental, "social": 5}
        sheet = cthulhu_sheet(traits=traits, marks=marks, status=status)
        for difficulty, faces in product((9, 12, 15), FACES2):
            resolution = run("jdr.mythos", mythos_req(sheet, difficulty, kind=kind), faces)
            result = resolution.result
            total = sum(faces) + mental
            outcome = (
                "critical_failure"
                if total <= 5
                else "success"
                if total >= difficulty
                else "failure"
            )
            assert (result["total"], result["outcome"]) == (total, outcome)
            assert result["label"] == labels[outcome]
            if outcome == "failure":
                assert resolution.effects == [] and "mark" not in result
                continue
            mark = {
                "description": "Savoir interdit : Grimoire latin",
                "counted": outcome == "critical_failure",
                "scene": SCENE,
            }
            assert result["mark"] == mark
            counted = len(marks) + mark["counted"]
            assert result["counted_marks"] == counted
            expected = [eff("marks", marks, [*marks, mark], "JDR-41")]
            if kind == "pc" and status == "active" and counted > 5:
                expected.append(eff("status", "active", "npc", "JDR-42"))
            assert resolution.effects == expected
            assert (who == "pc-at-five" and outcome == "critical_failure") is (len(expected) == 2)


def test_JDR_41_mythos_detail_and_setting() -> None:
    result = run(
        "jdr.mythos", mythos_req(cthulhu_sheet(), 9, detail="Un tic nerveux"), (6, 6)
    ).result
    assert result["mark"] == {"description": "Un tic nerveux", "counted": False, "scene": SCENE}
    refused("jdr.mythos", {**mythos_req(cthulhu_sheet(), 9), "system": D}, "JDR-40", InvalidInput)


def test_JDR_12_mythos_with_advantage_keeps_highest_every_face() -> None:
    for faces in FACES3:
        result = run("jdr.mythos", mythos_req(cthulhu_sheet(), 12, advantage=True), faces).result
        assert result["kept"] == expected_kept(faces, "advantage")
        assert result["total"] == sum(sorted(faces)[1:]) + 2


# --- JDR-28/29/42: Effleurement ----------------------------------------------------------


@pytest.mark.parametrize(
    "domain", ["investigation", "erudition", "observation", "occult", "mythos"]
)
def test_JDR_28_JDR_29_effleurement_upgrades_with_a_counted_mark(domain: str) -> None:
    request = effleurement_req(domain=domain, mark=f" {MARK} ")
    sheet = request["character"]["sheet"]
    resolution = run("jdr.effleurement", request)
    mark = {"description": MARK, "counted": True, "scene": SCENE}
    assert resolution.result == {
        "status": "applied",
        "tier": "success",
        "label": "Succès complet",
        "upgraded_from": "partial_success",
        "mark": mark,
        "counted_marks": 2,
    }
    assert resolution.effects == [
        eff("marks", sheet["marks"], [*sheet["marks"], mark], "JDR-28"),
        eff("effleurement", "ready", "spent", "JDR-28"),
        eff("effleurement_scene", None, SCENE, "JDR-28"),
    ]
    JdrCthulhuSheet.model_validate(apply(sheet, resolution.effects))


@pytest.mark.parametrize(
    ("over", "rule"),
    [
        *[P({"tier": t}, "JDR-28", id=t) for t in TIER_FACES if t != "partial_success"],
        P({"domain": "other"}, "JDR-29", id="domain-other"),
        P({"follow_ups": [JOKED]}, "JDR-27", id="joker-used"),
        P({"follow_ups": [EFFLEURED]}, "JDR-28", id="already-used"),
        P({"follow_ups": [EFFLEURED, UNDONE, EFFLEURED]}, "JDR-28", id="used-again-after-undo"),
        P({"effleurement": "spent"}, "JDR-28", id="spent"),
        P({"scene": SCENE + 1}, "JDR-28", id="later-scene"),
        P({"kind": "npc"}, "JDR-28", id="npc"),
    ],
)
def test_JDR_27_JDR_28_JDR_29_effleurement_refusals(over: dict[str, Any], rule: str) -> None:
    refused("jdr.effleurement", effleurement_req(**over), rule)


def test_JDR_28_effleurement_invalid_inputs_and_joker_reroll() -> None:
    refused("jdr.effleurement", {**effleurement_req(), "system": D}, "JDR-28", InvalidInput)
    refused("jdr.effleurement", effleurement_req(mark="  "), "JDR-28", InvalidInput)  # named
    entry = rolled(action_req(C, cthulhu_sheet(), domain="occult", direct_peril=True), (3, 3))
    refused("jdr.effleurement", follow_req(joker_entry(entry), mark=MARK), "JDR-27")


def test_JDR_14_JDR_29_effleurement_reads_the_amended_domain() -> None:
    entry = rolled(action_req(C, cthulhu_sheet(), domain="other"), (3, 3))
    amended = follow("jdr.context", {"context": {**ctx(), "domain": "erudition"}}, 41)
    assert run("jdr.effleurement", follow_req(entry, follow_ups=[amended], mark=MARK)).effects
    entry = rolled(action_req(C, cthulhu_sheet(), domain="occult"), (3, 3))
    amended = follow("jdr.context", {"context": {**ctx(), "domain": "other"}}, 41)
    refused("jdr.effleurement", follow_req(entry, follow_ups=[amended], mark=MARK), "JDR-29")


def test_JDR_28_JDR_29_JDR_42_sixth_mark_makes_an_npc_and_refusal_undoes_it() -> None:
    request = effleurement_req(marks=counted_marks(5))
    sheet = request["character"]["sheet"]
    touched = run("jdr.effleurement", request)
    assert touched.result["counted_marks"] == 6
    assert touched.effects[-1] == eff("status", "active", "npc", "JDR-42")
    npc_sheet = apply(sheet, touched.effects)
    entry = {
        "seq": ACTION_SEQ + 1,
        "kind": "jdr.effleurement",
        "result": touched.result,
        "effects": touched.effects,
    }
    refusal = {
        **clock(C),
        "character": char(npc_sheet),
        "effleurement": entry,
        "refusals": [],
        "reason": "Aucun lien avec une vérité cachée",
    }
    undone = run("jdr.effleurement_refusal", refusal)
    assert undone.result == {
        "status": "refused",
        "tier": "partial_success",
        "label": "Succès partiel",
        "reason": "Aucun lien avec une vérité cachée",
    }
    assert undone.effects == [
        eff("marks", npc_sheet["marks"], sheet["marks"], "JDR-29"),
        eff("effleurement", "spent", "ready", "JDR-29"),
        eff("effleurement_scene", SCENE, None, "JDR-29"),  # the scene's use is given back
        eff("status", "npc", "active", "JDR-42"),
    ]
    assert apply(npc_sheet, undone.effects) == sheet
    refused("jdr.effleurement_refusal", {**refusal, "refusals": [UNDONE]}, "JDR-29")
    refused("jdr.effleurement_refusal", {**refusal, "character": char(sheet)}, "JDR-29")
    wrong = {**refusal, "effleurement": {**entry, "kind": "jdr.talisman"}}
    refused("jdr.effleurement_refusal", wrong, None, InvalidInput)
    # The refusal undoes the use: the Effleurement may be used again on the action.
    again = effleurement_req(marks=counted_marks(5), follow_ups=[EFFLEURED, UNDONE])
    assert run("jdr.effleurement", again).result["status"] == "applied"


@pytest.mark.parametrize(
    ("marks", "status", "becomes_npc"),
    [
        (counted_marks(4), "active", False),
        (counted_marks(5), "active", True),
        (counted_marks(6), "npc", False),
    ],
)
def test_JDR_42_effleurement_status_changes_only_past_five_counted_marks(
    marks: list[dict[str, Any]], status: str, becomes_npc: bool
) -> None:
    resolution = run("jdr.effleurement", effleurement_req(marks=marks, status=status))
    assert resolution.result["counted_marks"] == len(marks) + 1
    status_effects = [e for e in resolution.effects if e["field"] == "status"]
    assert status_effects == ([eff("status", "active", "npc", "JDR-42")] if becomes_npc else [])


# --- JDR-29a: sacrifice; recharges (JDR-24, JDR-26, JDR-29a) -------------------------------


def test_JDR_29a_sacrifice_recharges_a_spent_effleurement() -> None:
    request = {
        **clock(C),
        "character": char(cthulhu_sheet(effleurement="spent")),
        "description": "Brûler une page",
    }
    resolution = run("jdr.sacrifice", request)
    assert resolution.effects == [eff("effleurement", "spent", "ready", "JDR-29a")]
    refused("jdr.sacrifice", {**request, "character": char(cthulhu_sheet())}, "JDR-29a")
    refused("jdr.sacrifice", {**request, "system": D}, "JDR-29a", InvalidInput)


def test_JDR_28_once_per_scene_even_after_a_sacrifice_in_the_scene() -> None:
    refused("jdr.effleurement", effleurement_req(effleurement_scene=SCENE), "JDR-28")
    assert run("jdr.effleurement", effleurement_req(effleurement_scene=SCENE - 1)).effects
