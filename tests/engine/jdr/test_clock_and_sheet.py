"""What a session or scene start recharges (JDR-24, JDR-26, JDR-29a), and the sheet edits
the rules derive (JDR-22)."""

from __future__ import annotations

import copy
from itertools import product
from typing import Any

import pytest

from app.engine.rulesets.jdr.sheet import on_sheet_edit
from tests.engine.jdr.requests import (
    PC,
    SCENE,
    C,
    D,
    clock,
    cthulhu_sheet,
    eff,
    run,
)

# --- JDR-24, JDR-26, JDR-29a: recharges --------------------------------------------------


def test_JDR_24_JDR_26_JDR_29a_recharges_every_combination() -> None:
    for new_session, night, recollected, slept, kind in product(
        (False, True), (False, True), (False, True), (False, True), ("pc", "npc")
    ):
        for system, joker, resource, state in [
            *[
                (D, j, "talisman", t)
                for j in ("ready", "spent")
                for t in ("ready", "spent", "cracked")
            ],
            *[(C, j, "effleurement", e) for j in ("ready", "spent") for e in ("ready", "spent")],
        ]:
            character = {
                "character_id": PC,
                "kind": kind,
                "sheet": {"joker": joker, resource: state},
                "recollected": recollected,
                "slept_safely": slept,
            }
            request = {
                **clock(system),
                "family": "jdr",
                "new_session": new_session,
                "night_passed": night,
                "characters": [character],
            }
            expected = []
            if kind == "pc" and new_session and joker == "spent":
                expected.append(eff("joker", "spent", "ready", "JDR-26"))
            if kind == "pc" and night and state == "spent":
                if resource == "talisman" and recollected:
                    expected.append(eff("talisman", "spent", "ready", "JDR-24"))
                if resource == "effleurement" and slept:
                    expected.append(eff("effleurement", "spent", "ready", "JDR-29a"))
            assert run("session_started", request).effects == expected, request


# --- JDR-22: on_sheet_edit ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("before", "after", "scene_after"),
    [
        (None, {"sacred_object": "Crucifix"}, SCENE),
        (None, {"sacred_object": "Crucifix", "sacred_object_scene": 0}, SCENE),  # no backdating
        (None, {"sacred_object": None, "sacred_object_scene": 1}, None),
        (
            {"sacred_object": "Crucifix", "sacred_object_scene": 2},
            {"sacred_object": "Crucifix", "sacred_object_scene": 0},
            2,
        ),
        (
            {"sacred_object": "Crucifix", "sacred_object_scene": 2},
            {"sacred_object": "Icône", "sacred_object_scene": 2},
            SCENE,
        ),
        (
            {"sacred_object": "Crucifix", "sacred_object_scene": 2},
            {"sacred_object": None, "sacred_object_scene": 2},
            None,
        ),
        ({"sacred_object": None, "sacred_object_scene": None}, {"sacred_object": "Icône"}, SCENE),
    ],
)
def test_JDR_22_on_sheet_edit_records_the_scene_of_the_sacred_object(
    before: dict[str, Any] | None, after: dict[str, Any], scene_after: int | None
) -> None:
    derived = on_sheet_edit(before, dict(after), SCENE)
    assert derived["sacred_object_scene"] == scene_after
    assert derived["sacred_object"] == after["sacred_object"]


def test_JDR_22_on_sheet_edit_leaves_cthulhu_sheets_alone() -> None:
    sheet = cthulhu_sheet()
    assert on_sheet_edit(None, copy.deepcopy(sheet), SCENE) == sheet
