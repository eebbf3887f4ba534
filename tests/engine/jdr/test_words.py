"""What a player reads of each JDR entry: its one-line summary and its outcome's label, in
English and French, for every kind of the ruleset."""

from __future__ import annotations

from typing import Any

import pytest

from app.engine.registry import DEFAULT_REGISTRY
from app.engine.rulesets.jdr import RULESET
from app.engine.rulesets.jdr.labels import LABELS
from app.services.views import describe
from tests.engine.jdr.requests import (
    ACTION_SEQ,
    NPC,
    WORDS,
    C,
    D,
    action_req,
    char,
    clock,
    cthulhu_sheet,
    dracula_sheet,
    effleurement_req,
    follow_req,
    mythos_req,
    rolled,
    run,
    talisman_req,
)


def entries() -> list[tuple[str, dict[str, Any], tuple[int, ...]]]:
    """One request of each kind, with the dice it draws."""
    peril = rolled(action_req(D, dracula_sheet(), direct_peril=True), (3, 3))
    effleurement = effleurement_req()
    touched = run("jdr.effleurement", effleurement)
    vampire = char(dracula_sheet(tags=["vampire"]), kind="npc", cid=NPC)
    wounded = dracula_sheet(wounds=[{"severity": "serious", "note": "", "cared": False}])
    pending = {"status": "pending", "words": WORDS, "tier": "partial_success"}
    fighter = {"id": NPC, "name": "Strigoi", "kind": "npc", "physique": 3}
    return [
        ("jdr.action", action_req(D, dracula_sheet(), difficulty=9), (4, 5)),
        ("jdr.action", action_req(C, cthulhu_sheet(), advantage=True), (1, 6, 3)),
        ("jdr.talisman", talisman_req(), ()),
        (
            "jdr.talisman_ruling",
            {
                **clock(D),
                "character": char(dracula_sheet()),
                "invocation": {"seq": ACTION_SEQ + 1, "kind": "jdr.talisman", "result": pending},
                "rulings": [],
                "sincere": False,
            },
            (),
        ),
        ("jdr.effleurement", effleurement, ()),
        (
            "jdr.effleurement_refusal",
            {
                **clock(C),
                "character": char(cthulhu_sheet(marks=[touched.result["mark"]])),
                "effleurement": {
                    "seq": ACTION_SEQ + 1,
                    "kind": "jdr.effleurement",
                    "result": touched.result,
                    "effects": touched.effects,
                },
                "refusals": [],
                "reason": "rien à trouver ici",
            },
            (),
        ),
        ("jdr.joker", follow_req(peril), (6, 5)),
        (
            "jdr.context",
            {
                **clock(D),
                "action": {k: peril[k] for k in ("seq", "kind", "request")},
                "follow_ups": [],
                "context": {**peril["request"]["context"], "supernatural": True},
            },
            (),
        ),
        (
            "jdr.attack",
            {
                **clock(D),
                "attacker": char(dracula_sheet()),
                "target": vampire,
                "weapon": {"name": "pieu", "bonus": 0, "damage_bonus": 0, "tags": ["ash_stake"]},
                "advantage": False,
                "disadvantage": False,
                "context": {"supernatural": True},
                "sleeping_target": True,
            },
            (6, 6),
        ),
        ("jdr.holy_water", {**clock(D), "attacker": char(dracula_sheet()), "target": vampire}, ()),
        ("jdr.initiative", {**clock(D), "combatants": [fighter], "order": []}, (2, 2)),
        ("jdr.mythos", mythos_req(cthulhu_sheet(), 12), (1, 1)),
        (
            "jdr.mark",
            {
                **clock(C),
                "character": char(cthulhu_sheet()),
                "test": {
                    "seq": 40,
                    "kind": "jdr.mythos",
                    "request": mythos_req(cthulhu_sheet(), 9),
                    "result": {
                        "mode": "normal",
                        "dice": [5, 4],
                        "kept": [True, True],
                        "mental": 2,
                        "talent_bonus": 0,
                        "auto_disadvantage": [],
                        "total": 11,
                        "difficulty": 9,
                        "outcome": "success",
                        "label": "Réussite",
                        "mark_pending": True,
                    },
                },
                "wording": "ne dort plus sans lumière",
            },
            (),
        ),
        (
            "jdr.sacrifice",
            {**clock(C), "character": char(cthulhu_sheet(effleurement="spent")), "description": ""},
            (),
        ),
        (
            "jdr.penance",
            {
                **clock(D),
                "character": char(dracula_sheet(talisman="cracked")),
                "description": "Confession",
            },
            (),
        ),
        (
            "jdr.medical_care",
            {**clock(D), "character": char(wounded), "description": "le docteur Seward"},
            (),
        ),
    ]


def test_every_kind_has_a_summary_and_an_outcome() -> None:
    kinds = {kind.name for kind in RULESET.kinds}
    assert kinds == {name for name, _, _ in entries()}
    assert all(kind.outcome is not None for kind in RULESET.kinds)


def test_every_label_speaks_english_and_french() -> None:
    for group in LABELS.values():
        for label in group.values():
            assert label.en and label.fr


@pytest.mark.parametrize("language", ["en", "fr"])
@pytest.mark.parametrize(
    ("kind", "request_", "faces"), entries(), ids=[name for name, _, _ in entries()]
)
def test_each_entry_reads_as_one_line_with_its_outcome(
    kind: str, request_: dict[str, Any], faces: tuple[int, ...], language: str
) -> None:
    resolved = run(kind, request_, faces)
    entry = {"seq": 50, "kind": kind, "request": request_, "result": resolved.result}
    summary, outcome = describe(entry, DEFAULT_REGISTRY, language)  # type: ignore[arg-type]
    assert summary != kind and "\n" not in summary
    assert outcome is not None
    code, label = outcome["code"], outcome["label"]
    assert any(code in g and g[code].text(language) == label for g in LABELS.values()), outcome


@pytest.mark.parametrize(
    ("faces", "code", "english", "french"),
    [
        ((6, 4), "success", "→ 13 (diff. 12), Success", "→ 13 (diff. 12), Réussite"),
        ((3, 4), "failure", "→ 10 (diff. 12), Failure", "→ 10 (diff. 12), Échec"),
        ((1, 1), "critical_failure", "→ 5 (diff. 12), Critical failure", "Échec critique"),
    ],
)
def test_JDR_13_a_roll_against_a_difficulty_reads_success_or_failure_not_a_tier(
    faces: tuple[int, int], code: str, english: str, french: str
) -> None:
    """The stored result keeps its tier (version 1); what a player reads is JDR-13's."""
    request = action_req(D, dracula_sheet(), difficulty=12)  # physique 3
    resolved = run("jdr.action", request, faces)
    entry = {"seq": 50, "kind": "jdr.action", "request": request, "result": resolved.result}
    summary, outcome = describe(entry, DEFAULT_REGISTRY, "en")  # type: ignore[arg-type]
    assert summary.endswith(english) and outcome is not None and outcome["code"] == code
    summary, _ = describe(entry, DEFAULT_REGISTRY, "fr")  # type: ignore[arg-type]
    assert summary.endswith(french)
