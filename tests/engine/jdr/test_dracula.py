"""[D] The Talisman de Foi and its ruling (JDR-20..23), penance (JDR-24)."""

from __future__ import annotations

from typing import Any

import pytest

from app.engine.errors import InvalidInput, RuleRefusal
from app.engine.rulesets.jdr.sheet import JdrDraculaSheet
from tests.engine.jdr.requests import (
    ACTION_SEQ,
    BELIEVER,
    INVOKED,
    JOKED,
    SCENE,
    TIER_FACES,
    WORDS,
    C,
    D,
    P,
    action_req,
    apply,
    char,
    clock,
    ctx,
    dracula_sheet,
    eff,
    follow,
    follow_req,
    joker_entry,
    refused,
    rolled,
    run,
    talisman_req,
)

# --- JDR-20..24: Talisman ----------------------------------------------------------------


def test_JDR_20_JDR_21_talisman_invocation_is_pending_and_draws_nothing() -> None:
    resolution = run("jdr.talisman", talisman_req(words=f"  {WORDS}  "))
    assert resolution.result == {"status": "pending", "words": WORDS, "tier": "partial_success"}
    assert resolution.effects == [eff("talisman_scene", None, SCENE, "JDR-20")]
    atheist = talisman_req(faith="atheist", instructed_by=BELIEVER)
    assert run("jdr.talisman", atheist).result["status"] == "pending"  # JDR-23


@pytest.mark.parametrize(
    ("over", "rule"),
    [
        P({"context": {}}, "JDR-22", id="not-supernatural"),
        P({"context": {"protection": True, "direct_peril": True}}, "JDR-22", id="peril-only"),
        *[P({"tier": t}, "JDR-22", id=t) for t in TIER_FACES if t != "partial_success"],
        P({"talisman": "spent"}, "JDR-22", id="spent"),
        P({"talisman": "cracked"}, "JDR-22", id="cracked"),
        P({"sacred_object": None, "sacred_object_scene": None}, "JDR-22", id="no-object"),
        P({"sacred_object_scene": None}, "JDR-22", id="object-scene-unknown"),
        P({"sacred_object_scene": SCENE}, "JDR-22", id="object-set-this-scene"),
        P({"follow_ups": [JOKED]}, "JDR-27", id="joker-used"),
        P({"faith": "atheist"}, "JDR-23", id="atheist-uninstructed"),
        P({"follow_ups": [INVOKED]}, "JDR-20", id="already-invoked"),
        P({"scene": SCENE + 1}, "JDR-20", id="later-scene"),
        P({"kind": "npc"}, "JDR-20", id="npc"),
    ],
)
def test_JDR_20_JDR_22_JDR_23_JDR_27_talisman_refusals(over: dict[str, Any], rule: str) -> None:
    refused("jdr.talisman", talisman_req(**over), rule)


def test_JDR_22_sacred_object_from_an_earlier_scene_is_enough() -> None:
    assert run("jdr.talisman", talisman_req(sacred_object_scene=SCENE - 1)).result
    assert run("jdr.talisman", talisman_req(sacred_object_scene=0)).result


def test_JDR_27_talisman_on_a_joker_reroll_is_refused() -> None:
    entry = rolled(action_req(D, dracula_sheet(), supernatural=True, direct_peril=True), (3, 3))
    request = follow_req(joker_entry(entry), words=WORDS)
    refused("jdr.talisman", request, "JDR-27")


def test_JDR_20_talisman_wrong_setting_or_empty_words_is_invalid_input() -> None:
    refused("jdr.talisman", {**talisman_req(), "system": C}, "JDR-20", InvalidInput)
    refused("jdr.talisman", talisman_req(words="   "), "JDR-21", InvalidInput)  # named, linked


def test_JDR_14_talisman_reads_the_amended_context() -> None:
    entry = rolled(action_req(D, dracula_sheet()), (3, 3))
    amended: list[dict[str, Any]] = []
    steps = [(True, False), (False, True), (True, False)]  # (amended to, was before)
    for seq, (supernatural, before) in enumerate(steps, start=ACTION_SEQ + 1):
        amend = {
            **clock(D),
            "action": {k: entry[k] for k in ("seq", "kind", "request")},
            "follow_ups": amended,
            "context": {**ctx(), "supernatural": supernatural},
        }
        resolution = run("jdr.context", amend)
        assert resolution.result["before"]["supernatural"] is before
        assert resolution.effects == []
        amended = [*amended, follow("jdr.context", resolution.result, seq)]
        request = follow_req(entry, follow_ups=amended, words=WORDS)
        if supernatural:
            assert run("jdr.talisman", request).result["status"] == "pending"
        else:
            refused("jdr.talisman", request, "JDR-22")
    bad = {
        **clock(D),
        "action": {"seq": 1, "kind": "jdr.attack", "request": {}},
        "follow_ups": [],
        "context": ctx(),
    }
    refused("jdr.context", bad, None, InvalidInput)


def ruling_req(
    sheet: dict[str, Any],
    sincere: bool,
    rulings: Any = (),
    scene: int = SCENE,
    kind: str = "jdr.talisman",
) -> dict[str, Any]:
    pending = {"status": "pending", "words": WORDS, "tier": "partial_success"}
    invocation = {"seq": ACTION_SEQ + 1, "kind": kind, "result": pending}
    return {
        **clock(D, scene),
        "character": char(sheet),
        "invocation": invocation,
        "rulings": list(rulings),
        "sincere": sincere,
    }


def test_JDR_21_sincere_ruling_upgrades_and_spends() -> None:
    sheet = dracula_sheet()
    resolution = run("jdr.talisman_ruling", ruling_req(sheet, True))
    assert resolution.result == {
        "status": "sincere",
        "tier": "success",
        "label": "Succès complet",
        "upgraded_from": "partial_success",
    }
    assert resolution.effects == [eff("talisman", "ready", "spent", "JDR-21")]


def test_JDR_21_JDR_24_insincere_ruling_cracks_and_shakes_the_next_confrontation() -> None:
    sheet = dracula_sheet()
    resolution = run("jdr.talisman_ruling", ruling_req(sheet, False))
    assert resolution.result == {
        "status": "insincere",
        "tier": "partial_success",
        "label": "Succès partiel",
    }
    shaken = {"cracked_scene": SCENE, "confrontation_scene": None}
    assert resolution.effects == [
        eff("talisman", "ready", "cracked", "JDR-21"),
        eff("faith_shaken", None, shaken, "JDR-24"),
    ]
    cracked = apply(sheet, resolution.effects)
    JdrDraculaSheet.model_validate(cracked)  # the effects leave a valid sheet
    same = run("jdr.action", action_req(D, cracked, supernatural=True, protection=True), (1, 2))
    assert same.result["mode"] == "normal"  # not within the crack's scene
    nxt = run(
        "jdr.action",
        action_req(D, cracked, scene=SCENE + 1, supernatural=True, protection=True),
        (1, 2, 3),
    )
    assert nxt.result["auto_disadvantage"] == ["faith_shaken"]
    # JDR-24: only penance restores it, and it lifts the shaken faith.
    penance = {**clock(D), "character": char(cracked), "description": "Confession"}
    restored = run("jdr.penance", penance)
    assert restored.effects == [
        eff("talisman", "cracked", "ready", "JDR-24"),
        eff("faith_shaken", shaken, None, "JDR-24"),
    ]
    assert apply(cracked, restored.effects) == sheet


@pytest.mark.parametrize(
    ("over", "rule", "error"),
    [
        P({"rulings": [follow("jdr.talisman_ruling", {}, 50)]}, "JDR-21", RuleRefusal, id="ruled"),
        P({"sheet": {"talisman": "spent"}}, "JDR-21", RuleRefusal, id="spent"),
        P({"sheet": {"talisman": "cracked"}}, "JDR-21", RuleRefusal, id="cracked"),
        P({"kind": "jdr.action"}, None, InvalidInput, id="not-an-invocation"),
        P({"system": C}, "JDR-21", InvalidInput, id="cthulhu"),
    ],
)
def test_JDR_21_ruling_refusals(over: dict[str, Any], rule: str | None, error: Any) -> None:
    sheet = dracula_sheet(**over.get("sheet", {}))
    request = ruling_req(
        sheet, True, over.get("rulings", ()), kind=over.get("kind", "jdr.talisman")
    )
    refused("jdr.talisman_ruling", {**request, "system": over.get("system", D)}, rule, error)


@pytest.mark.parametrize("talisman", ["ready", "spent"])
def test_JDR_24_penance_only_for_a_cracked_talisman(talisman: str) -> None:
    request = {
        **clock(D),
        "character": char(dracula_sheet(talisman=talisman)),
        "description": "Pèlerinage",
    }
    refused("jdr.penance", request, "JDR-24")
    refused("jdr.penance", {**request, "system": C}, "JDR-24", InvalidInput)


def test_JDR_20_once_per_scene_even_after_a_penance_in_the_scene() -> None:
    # A penance mid-scene makes the talisman ready again, but not a second use this scene.
    refused("jdr.talisman", talisman_req(talisman_scene=SCENE), "JDR-20")
    assert run("jdr.talisman", talisman_req(talisman_scene=SCENE - 1)).result["status"]
