"""The Joker du destin (JDR-25..27) and the amended context it reads (JDR-14)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.engine.jdr.requests import (
    ACTION_SEQ,
    EFFLEURED,
    FACES2,
    JOKED,
    PERIL,
    SCENE,
    SERIOUS,
    TALISMANED,
    UNDONE,
    C,
    D,
    P,
    action_req,
    clock,
    cthulhu_sheet,
    ctx,
    dracula_sheet,
    eff,
    expected_tier,
    follow,
    follow_req,
    joker_entry,
    refused,
    rolled,
    run,
    shaken_sheet,
    sheet_for,
)

# --- JDR-25/26/27: Joker ------------------------------------------------------------------


@pytest.mark.parametrize("system", [D, C])
def test_JDR_25_joker_rerolls_every_face_and_keeps_the_second_result(system: str) -> None:
    sheet = sheet_for(system)
    original = action_req(
        system, sheet, talent=sheet["talents"][0]["name"], modifier=-2, direct_peril=True
    )
    entry = rolled(original, (1, 1))
    for faces in FACES2:
        resolution = run("jdr.joker", follow_req(entry), faces)
        total = sum(faces) + 3 + 2 - 2
        code, label = expected_tier(total)
        result = resolution.result
        assert (result["total"], result["tier"], result["label"]) == (total, code, label)
        assert result["dice"] == list(faces) and result["rerolls"] == ACTION_SEQ
        assert resolution.effects == [eff("joker", "ready", "spent", "JDR-25")]
    refused("jdr.joker", follow_req(joker_entry(entry)), "JDR-25")


def test_JDR_25_joker_reroll_reads_the_sheet_as_it_is_now() -> None:
    entry = rolled(action_req(D, dracula_sheet(), direct_peril=True), (1, 1))
    wounded = dracula_sheet(wounds=[SERIOUS])
    result = run("jdr.joker", follow_req(entry, wounded), (6, 2, 4)).result
    assert result["mode"] == "disadvantage" and result["auto_disadvantage"] == ["serious_wound"]
    assert result["total"] == 2 + 4 + 3


@pytest.mark.parametrize(
    ("system", "context", "follow_ups", "sheet_over", "over", "rule"),
    [
        P(D, {}, [], {}, {}, "JDR-25", id="D-no-peril"),
        P(C, {"domain": "occult"}, [], {}, {}, "JDR-25", id="C-no-peril"),
        P(D, PERIL, [JOKED], {}, {}, "JDR-25", id="already-rerolled"),
        P(D, PERIL, [TALISMANED], {}, {}, "JDR-27", id="talisman-used"),
        P(C, PERIL, [EFFLEURED], {}, {}, "JDR-27", id="effleurement-used"),
        P(C, PERIL, [EFFLEURED, UNDONE, EFFLEURED], {}, {}, "JDR-27", id="effleurement-reused"),
        P(D, PERIL, [], {"joker": "spent"}, {}, "JDR-26", id="D-spent"),
        P(C, PERIL, [], {"joker": "spent"}, {}, "JDR-26", id="C-spent"),
        P(D, PERIL, [], {}, {"kind": "npc"}, "JDR-25", id="npc"),
        P(C, PERIL, [], {}, {"scene": SCENE + 1}, "JDR-25", id="later-scene"),
    ],
)
def test_JDR_25_JDR_26_JDR_27_joker_refusals(
    system: str,
    context: dict[str, Any],
    follow_ups: list[Any],
    sheet_over: dict[str, Any],
    over: dict[str, Any],
    rule: str,
) -> None:
    entry = rolled(action_req(system, sheet_for(system, **sheet_over), **context), (2, 2))
    refused("jdr.joker", follow_req(entry, follow_ups=follow_ups, **over), rule)


def test_JDR_27_joker_allowed_after_a_refused_effleurement() -> None:
    entry = rolled(action_req(C, cthulhu_sheet(), direct_peril=True, domain="occult"), (3, 3))
    resolution = run("jdr.joker", follow_req(entry, follow_ups=[EFFLEURED, UNDONE]), (6, 6))
    assert resolution.result["total"] == 15 and resolution.result["rerolls"] == ACTION_SEQ


def test_JDR_14_JDR_24_JDR_25_joker_rerolls_with_the_amended_context() -> None:
    sheet = shaken_sheet()
    entry = rolled(action_req(D, sheet, scene=4), (1, 1))
    refused("jdr.joker", follow_req(entry), "JDR-25")
    new = {**ctx(), "direct_peril": True, "supernatural": True, "protection": True}
    amend = {
        **clock(D, 4),
        "action": {k: entry[k] for k in ("seq", "kind", "request")},
        "follow_ups": [],
        "context": new,
    }
    amended = run("jdr.context", amend).result
    assert amended == {"context": new, "before": ctx()}
    request = follow_req(entry, follow_ups=[follow("jdr.context", amended, 41)])
    resolution = run("jdr.joker", request, (6, 5, 4))
    assert resolution.result["auto_disadvantage"] == ["faith_shaken"]
    assert resolution.result["kept"] == [False, True, True]
    after = {"cracked_scene": 3, "confrontation_scene": 4}
    assert resolution.effects == [
        eff("joker", "ready", "spent", "JDR-25"),
        eff("faith_shaken", sheet["faith_shaken"], after, "JDR-24"),
    ]
