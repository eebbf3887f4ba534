"""Rules version 2 changed results (the corrections of 2026-11-30); an entry made under
version 1 replays under version 1's rules. The same request, resolved by each."""

from __future__ import annotations

from typing import Any

import pytest

from app.engine.dice import ReplayDice
from app.engine.errors import InvalidInput, RuleRefusal
from tests.engine.fabulae.combat import PC as TARGET
from tests.engine.fabulae.combat import NoDice, attack_req, d, danger_req, power_req
from tests.engine.fabulae.combat import make_sheet as combat_sheet
from tests.engine.fabulae.core import (
    ALLY,
    char,
    clock,
    dice,
    eff,
    entry,
    make_sheet,
    opposed_req,
    push_req,
    roll_inputs,
)
from tests.engine.rules import Resolved, resolve

V1, V2, V3 = "fabulae-tenebris@1", "fabulae-tenebris@2", "fabulae-tenebris@3"
BROKEN = {"broken": True, "broken_track": "physical"}
PHYSICAL = ["epuise", "meurtri", "blesse"]
MENTAL = ["enerve", "apeure", "demoralise"]


def replayed(kind: str, request: dict[str, Any], source: ReplayDice, rules: str) -> Resolved:
    resolved = resolve(kind, request, source, rules=rules)
    source.assert_consumed()
    return resolved


def both(kind: str, request: dict[str, Any], faces: Any = ()) -> tuple[Resolved, Resolved]:
    return (
        replayed(kind, request, dice(faces), V1),
        replayed(kind, request, dice(faces), V2),
    )


def refused_by_v2(kind: str, request: dict[str, Any], rule: str, error: Any = RuleRefusal) -> str:
    """Version 2 refuses (naming `rule`) before drawing any die; the detail."""
    with pytest.raises(error) as caught:
        resolve(kind, request, NoDice(), rules=V2)
    assert caught.value.rule == rule, caught.value.detail
    return caught.value.detail


def rest_req(sheet: dict[str, Any], duration: str) -> dict[str, Any]:
    return {**clock(), "mode": "rest", "duration": duration, "patient": char(sheet)}


def care_req(patient: dict[str, Any], track: str) -> dict[str, Any]:
    return {
        **clock(),
        "mode": "care",
        "healer": char(make_sheet(), ALLY),
        "track": track,
        "helpers": 0,
        "modifiers": [],
        "patient": char(patient),
    }


def resistance_req(patient: dict[str, Any]) -> dict[str, Any]:
    return {**clock(), "mode": "broken_resistance", "patient": char(patient)}


# --- FAB-81 (corrected): a rest while Broken --------------------------------------------------


def test_FAB81_a_rest_cleared_the_broken_track_before_version_2() -> None:
    states = [*PHYSICAL, "enerve"]
    request = rest_req(make_sheet(states=states, pp=0, pp_max=3, **BROKEN), "night")
    old, new = both("fabulae.recover", request)
    assert old.result == {"duration": "night", "cleared": ["epuise", "enerve"], "pp_gained": 2}
    assert old.effects == [
        eff("states", states, ["meurtri", "blesse"], "FAB-80"),
        eff("pp", 0, 2, "FAB-82"),
    ]
    held = new.result.pop("not_cleared")
    assert new.result == {"duration": "night", "cleared": ["enerve"], "pp_gained": 2}
    assert [(h["state"], h["rule"]) for h in held] == [("epuise", "FAB-81")]
    assert "Broken ends only by" in held[0]["reason"]
    assert new.effects == [
        eff("states", states, PHYSICAL, "FAB-80"),
        eff("pp", 0, 2, "FAB-82"),
    ]


def test_FAB81_a_care_of_the_other_track_ended_broken_before_version_2() -> None:
    # A box of the broken track freed (an old rest, the GM): healing the mind is not the rule
    # that ends a physical Broken.
    patient = make_sheet(states=["meurtri", "blesse", "apeure"], **BROKEN)
    old, new = both("fabulae.recover", care_req(patient, "mental"), (6, 2, 2))
    assert old.result["cleared"] == new.result["cleared"] == ["apeure"]
    states = eff("states", ["meurtri", "blesse", "apeure"], ["meurtri", "blesse"], "FAB-80")
    assert old.effects == [
        states,
        eff("broken", True, False, "FAB-81"),
        eff("broken_track", "physical", None, "FAB-81"),
    ]
    assert new.effects == [states]


def test_FAB81_a_care_of_the_broken_track_still_ends_broken_in_version_2() -> None:
    patient = make_sheet(states=PHYSICAL, **BROKEN)
    old, new = both("fabulae.recover", care_req(patient, "physical"), (6, 2, 2))
    assert old == new
    assert new.effects[1:] == [
        eff("broken", True, False, "FAB-81"),
        eff("broken_track", "physical", None, "FAB-81"),
    ]


# --- FAB-73 (corrected): hunger and sleep block healing ---------------------------------------


def test_FAB73_hunger_blocks_physical_healing_from_version_2() -> None:
    hungry = make_sheet(states=["epuise", "meurtri"], deprived=["hunger"])
    old, new = both("fabulae.recover", rest_req(hungry, "quart"))
    assert old.result["cleared"] == ["epuise"] and "not_cleared" not in old.result
    assert new.result["cleared"] == [] and new.effects == []
    assert [(h["state"], h["rule"]) for h in new.result["not_cleared"]] == [("epuise", "FAB-73")]
    care = care_req(hungry, "physical")
    old = replayed("fabulae.recover", care, dice((6, 2, 2)), V1)
    assert old.result["cleared"] == ["meurtri"]
    detail = refused_by_v2("fabulae.recover", care, "FAB-73")
    assert "'hunger'" in detail and "deprived" in detail
    # The mind still heals.
    mental = care_req(make_sheet(states=["apeure"], deprived=["hunger"]), "mental")
    old, new = both("fabulae.recover", mental, (6, 2, 2))
    assert old == new and new.result["cleared"] == ["apeure"]


def test_FAB73_sleeplessness_blocks_mental_healing_from_version_2() -> None:
    tired = make_sheet(states=["epuise", "enerve", "apeure"], deprived=["sleep"])
    old, new = both("fabulae.recover", rest_req(tired, "night"))
    assert old.result["cleared"] == ["epuise", "enerve"]
    assert new.result["cleared"] == ["epuise"]
    assert [(h["state"], h["rule"]) for h in new.result["not_cleared"]] == [("enerve", "FAB-73")]
    care = care_req(tired, "mental")
    assert replayed("fabulae.recover", care, dice((6, 2, 2)), V1).result["cleared"] == ["apeure"]
    assert "'sleep'" in refused_by_v2("fabulae.recover", care, "FAB-73")
    broken = make_sheet(states=MENTAL, broken=True, broken_track="mental", deprived=["sleep"])
    request = resistance_req(broken)  # Empathie 3, minus Apeuré and Démoralisé
    assert replayed("fabulae.recover", request, dice((6,)), V1).result["cleared"] == ["demoralise"]
    refused_by_v2("fabulae.recover", request, "FAB-73")


def test_FAB73_hunger_blocks_the_broken_resistance_roll_and_second_wind_from_version_2() -> None:
    broken = make_sheet(states=PHYSICAL, deprived=["hunger"], talents=["second_wind"], **BROKEN)
    request = resistance_req(broken)
    assert replayed("fabulae.recover", request, dice((6,)), V1).result["cleared"] == ["blesse"]
    refused_by_v2("fabulae.recover", request, "FAB-73")
    wind = {**clock(), "character": char(broken)}
    assert replayed("fabulae.second_wind", wind, dice((6,)), V1).result["cleared"] == ["blesse"]
    refused_by_v2("fabulae.second_wind", wind, "FAB-73")


# --- FAB-55/73 (corrected): the dangers the corrections added ---------------------------------

NO_CONTEXT = {"weapon_mod": 0, "feats": 0, "butcher": False}
PHOBIC = {"kind": "mental", "code": "phobic", "duration": "7 days"}


@pytest.mark.parametrize("danger", ["phobia", "horror", "hunger", "sleep"])
def test_FAB73_the_corrected_dangers_do_not_exist_before_version_2(danger: str) -> None:
    request = danger_req(make_sheet(sequelae=[PHOBIC]), danger)
    with pytest.raises(InvalidInput) as caught:
        resolve("fabulae.danger", request, NoDice(), rules=V1)
    assert caught.value.rule == "FAB-73"


def test_FAB55_phobia_deals_one_mental_damage_a_round_in_version_2() -> None:
    request = danger_req(make_sheet(sequelae=[PHOBIC], states=["epuise"]), "phobia")
    new = replayed("fabulae.danger", request, ReplayDice([]), V2)
    assert new.result["damage"] == 1 and new.result["track"] == "mental"
    assert new.result["states_checked"] == [
        {"track": "mental", "state": "enerve", "label": "Énervé"}
    ]
    assert new.effects == [eff("states", ["epuise"], ["epuise", "enerve"], "FAB-55", TARGET)]
    detail = refused_by_v2("fabulae.danger", danger_req(make_sheet(), "phobia"), "FAB-55")
    assert "Phobique" in detail


def test_FAB73_horror_reaches_the_mental_track_in_version_2() -> None:
    pending = danger_req(make_sheet(), "horror", kind="pc", damage=2)
    new = replayed("fabulae.danger", pending, ReplayDice([]), V2)
    assert (
        new.result["pending_states"]
        == [{"rule": "FAB-73", "track": "mental", "sequela": NO_CONTEXT}] * 2
    )
    # A full mental track: Broken by the mind, and the 1D12 of FAB-55 (2: white hair).
    full = danger_req(make_sheet(states=MENTAL), "horror")
    new = replayed("fabulae.danger", full, ReplayDice(d(12, 2)), V2)
    landed = new.result["states_checked"][0]
    assert landed["broken"] is True and landed["track"] == "mental"
    assert landed["sequela"]["code"] == "white_hair"
    fields = {e["field"]: e["after"] for e in new.effects}
    assert fields["broken"] is True and fields["broken_track"] == "mental"


def test_FAB73_hunger_and_sleep_mark_the_sheet_in_version_2() -> None:
    hunger = replayed("fabulae.danger", danger_req(make_sheet(), "hunger"), ReplayDice([]), V2)
    assert hunger.result["damage"] == 1 and hunger.result["per"] == "week"
    assert hunger.result["deprived"] == ["hunger"]
    assert hunger.effects == [
        eff("states", [], ["epuise"], "FAB-73", TARGET),
        eff("deprived", [], ["hunger"], "FAB-73", TARGET),
    ]
    first_day = danger_req(make_sheet(deprived=["sleep"]), "hunger", damage=0)
    first = replayed("fabulae.danger", first_day, ReplayDice([]), V2)
    assert first.result["damage"] == 0 and "states_checked" not in first.result
    assert first.effects == [eff("deprived", ["sleep"], ["sleep", "hunger"], "FAB-73", TARGET)]
    refused_by_v2(
        "fabulae.danger", danger_req(make_sheet(), "hunger", damage=2), "FAB-73", InvalidInput
    )
    sleep = replayed("fabulae.danger", danger_req(make_sheet(), "sleep"), ReplayDice([]), V2)
    assert sleep.result["damage"] == 0 and sleep.result["deprived"] == ["sleep"]
    assert sleep.effects == [eff("deprived", [], ["sleep"], "FAB-73", TARGET)]
    again = danger_req(make_sheet(deprived=["sleep"]), "sleep")
    assert replayed("fabulae.danger", again, ReplayDice([]), V2).effects == []


# --- the corrections of FAB-23/36/42/62/71/102 and FAB-41 by version ----------------------


def test_FAB102_horror_and_calm_by_version() -> None:
    caster = combat_sheet(powers=["horror", "calm"], pp=2, pp_max=2)
    horror = power_req(caster, "horror", targets=[char(make_sheet(), ALLY, "npc")])
    old, new = both("fabulae.power", horror)
    assert old.result["must_roll_panic"]["modifier"] == -1
    assert new.result["must_roll_panic"]["modifier"] == 1  # worse on the panic table
    frightened = make_sheet(states=["apeure", "demoralise"], stress=2)
    calm = power_req(caster, "calm", targets=[char(frightened, ALLY, "npc")])
    old, new = both("fabulae.power", calm)
    ally = [e for e in old.effects if e["field"] == "states"]
    assert ally[0]["after"] == []
    ally = [e for e in new.effects if e["field"] == "states"]
    assert ally[0]["after"] == ["apeure"]  # Démoralisé, the worse, by default


def test_FAB42_a_death_test_rolled_stress_dice_before_version_2() -> None:
    impaled = {"kind": "physical", "code": "impaled", "duration": "mortal", "lethal": True}
    sheet = make_sheet(
        skills={"resistance": 2}, stress=2, sequelae=[impaled | {"delay": "immediate"}]
    )
    request = {**clock(), "character": char(sheet), "sequela": 0}
    old = replayed("fabulae.death_test", request, dice([6, 2, 2, 2, 2, 3, 3]), V1)
    new = replayed("fabulae.death_test", request, dice([6, 2, 2, 2, 2]), V2)
    assert old.result["stress_dice"] == [3, 3] and new.result["stress_dice"] == []


def test_FAB36_a_win_by_two_sixes_reads_prouesse_from_version_2() -> None:
    request = opposed_req(make_sheet(), make_sheet())
    old, new = both("fabulae.opposed", request, [6, 6, 6, 6, 2, 2])
    assert old.result["net"] == new.result["net"] == 2
    assert (old.result["label"], new.result["label"]) == ("Succès", "Prouesse")


def test_FAB71_a_weapon_fired_beyond_its_range_before_version_2() -> None:
    shooter = combat_sheet(skills={"tir": 2}, weapons=[{"id": "revolver"}])
    request = attack_req(shooter, combat_sheet(), "ranged", "revolver", situation=["long_range"])
    old = replayed("fabulae.attack", request, dice([2, 2, 2]), V1)  # 1 + 2 + 2 − 2
    assert old.result["attacks"][0]["hit"] is False
    assert "medium range" in refused_by_v2("fabulae.attack", request, "FAB-71", InvalidInput)


def test_FAB23_one_sequela_per_attack_from_version_2() -> None:
    target = combat_sheet(states=PHYSICAL)
    request = attack_req(
        combat_sheet({"physique": 3}, {"combat": 2}), target, "melee", "bare_hands"
    )
    hit = [6, 6, 2, 2]  # 3 + 2 − 1 dice: 1 + 1 feat = 2 damage, undefended
    sprain = [3, 3, 2]  # 2D6 + 1 feat = 7: a sprain, 1D6 quarts
    old = replayed("fabulae.attack", request, dice([*hit, *sprain, *sprain]), V1)
    new = replayed("fabulae.attack", request, dice([*hit, *sprain]), V2)
    assert [bool(s.get("sequela")) for s in old.result["states_checked"]] == [True, True]
    assert [bool(s.get("sequela")) for s in new.result["states_checked"]] == [True, False]


def test_FAB62_the_parry_adds_the_protection_bonus_from_version_2() -> None:
    armored = combat_sheet({"physique": 3}, {"combat": 2}, armor={"id": "guard_mail", "value": 2})
    request = attack_req(combat_sheet(), armored, "melee", "bare_hands", defense="parry")
    # The attacker's 1 − 1 dice: impossible, so the parry is rolled on a two-dice attacker.
    request["attacker"]["sheet"] = combat_sheet({"physique": 2}, {"combat": 1})
    old = replayed("fabulae.attack", request, dice([2, 2] + [2] * 5), V1)
    new = replayed("fabulae.attack", request, dice([2, 2] + [2] * 7), V2)
    assert old.result["attacks"][0]["roll"]["passive"]["pool"]["pool"] == 5
    assert new.result["attacks"][0]["roll"]["passive"]["pool"]["modifier_dice"] == [
        {"source": "protection bonus", "dice": 2}
    ]


def test_FAB23_a_broken_attacker_attacked_before_version_2() -> None:
    broken = combat_sheet({"physique": 3}, {"combat": 2}, states=PHYSICAL, **BROKEN)
    request = attack_req(broken, combat_sheet(), "melee", "bare_hands")
    old = replayed("fabulae.attack", request, dice([2, 2]), V1)  # 3 + 2 − 1 − 2 states
    assert old.result["attacks"][0]["hit"] is False
    assert "is Broken" in refused_by_v2("fabulae.attack", request, "FAB-23")


def test_FAB50_the_sequela_takes_the_feats_of_the_breaking_hit_from_version_2() -> None:
    shooter = combat_sheet(skills={"tir": 2}, weapons=[{"id": "repeating_rifle"}])
    target = combat_sheet(states=["epuise"])  # two boxes free
    request = attack_req(shooter, target, "ranged", "repeating_rifle", burst=2, burst_fire=True)
    shots = [*d(12, 2), *d(6, 6, 6, 2, 2, 2), *d(6, 6, 2, 2, 2, 2)]  # 3 then 2 damage
    sprain = d(6, 3, 3, 2)  # 2D6 = 6, then the quarts
    old = replayed("fabulae.attack", request, ReplayDice([*shots, *sprain * 3]), V1)
    new = replayed("fabulae.attack", request, ReplayDice([*shots, *sprain]), V2)
    old_sequelae = [s["sequela"] for s in old.result["states_checked"] if "sequela" in s]
    new_sequelae = [s["sequela"] for s in new.result["states_checked"] if "sequela" in s]
    assert [s["modifier"] for s in old_sequelae] == [1, 1, 1]  # the rifle +1, the last hit's 0
    assert [s["modifier"] for s in new_sequelae] == [2]  # the rifle +1, the first hit's 1


def test_FAB_33_42_43_a_pushed_resistance_test_that_panics_gives_its_stress_back_from_v3() -> None:
    """Version 3: the push's result replaces the roll's for good (FAB-33) and a Panic fails
    it (FAB-42), so the stress the Résistance test lowered comes back (FAB-43); versions 1
    and 2 left it lowered."""
    sheet = make_sheet(skills={"resistance": 2}, stress=3, destiny=3)
    body = {**clock(), "character": char(sheet), "roll": roll_inputs(skill="resistance")}
    first = replayed("fabulae.stress_resist", body, dice([6, 2, 2, 2, 2, 2, 2, 2]), V3)
    assert first.result["stress_lowered"] == 1
    followed = entry("fabulae.stress_resist", body, first.result)
    lowered = make_sheet(skills={"resistance": 2}, stress=2, destiny=3)
    push = push_req(lowered, followed)
    faces = [2, 2, 2, 2, 1, 2, 2]  # the pool's four 2s, then the three stress dice
    by_version = {rules: replayed("fabulae.push", push, dice(faces), rules) for rules in (V2, V3)}
    for rules, pushed in by_version.items():
        assert pushed.result["outcome"] == "panic", rules
    assert by_version[V2].result["stress_lowered"] == 1
    assert eff("stress", 2, 3, "FAB-43") not in by_version[V2].effects
    assert by_version[V3].result["stress_lowered"] == 0
    assert eff("stress", 2, 3, "FAB-43") in by_version[V3].effects
