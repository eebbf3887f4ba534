"""Fabulae sequelae (FAB-50..55), states landing (FAB-22/23), death tests (FAB-51) and
stabilisation (FAB-52), exhaustively."""

from __future__ import annotations

from itertools import product
from typing import Any

import pytest
from pydantic import ValidationError

from app.engine.dice import ReplayDice
from app.engine.errors import InvalidInput
from app.engine.rulesets.fabulae.sequelae import MENTAL_TABLE, PHYSICAL_TABLE
from tests.engine.fabulae.adapters import (
    Body,
    land_state,
    resolve_death_test,
    resolve_sequela,
    resolve_stabilize,
    roll_sequela,
)
from tests.engine.fabulae.combat import (
    ALLY,
    DELAYS,
    EXTRA,
    FACES,
    MENTAL_ROWS,
    PC,
    PHYSICAL_ROWS,
    STATE_LABEL,
    TRACKS,
    NoDice,
    changes,
    char,
    clock,
    d,
    d6,
    make_sheet,
    physical_duration,
    refused,
    run,
    sequela_req,
    sequela_row,
)

# --- FAB-50: the physical sequela table ------------------------------------------------------


def test_FAB50_the_engine_tables_match_the_rules():
    assert [(row[1], row[2], row[3], row[4]) for row in PHYSICAL_TABLE] == [
        (r[2], r[3], r[4], r[5]) for r in PHYSICAL_ROWS
    ]
    assert [row[0] for row in PHYSICAL_TABLE[:-1]] == [r[1] for r in PHYSICAL_ROWS[:-1]]
    assert [row[6] for row in PHYSICAL_TABLE] == [
        (r[6], r[7]) if r[6] else None for r in PHYSICAL_ROWS
    ]
    assert {face: (row[0], row[1]) for face, row in MENTAL_TABLE.items()} == {
        face: (row[0], row[1]) for face, row in MENTAL_ROWS.items()
    }
    assert {face: row[3] for face, row in MENTAL_TABLE.items()} == {
        face: ((row[2], "days") if row[2] else None) for face, row in MENTAL_ROWS.items()
    }


def test_FAB50_every_face_pair_weapon_mod_feats_and_butcher():
    """2D6 + weapon sequela modifier + attacker's feats (+2 butcher), every combination."""
    sheet = make_sheet()
    seen: set[str] = set()
    for (a, b), mod, feats, butcher in product(
        product(FACES, FACES), range(3), range(4), (False, True)
    ):
        modifier = mod + feats + (2 if butcher else 0)
        score = a + b + modifier
        row = sequela_row(score)
        duration_faces = [(a + b + mod + i) % 6 + 1 for i in range(row[6])]
        request = sequela_req(sheet, "physical", weapon_mod=mod, feats=feats, butcher=butcher)
        resolution = run(resolve_sequela, request, d6(a, b, *duration_faces))
        result = resolution.result
        duration = physical_duration(row, duration_faces)
        assert {k: v for k, v in result.items() if k != "effect"} == {
            "table": "physical",
            "dice": [[a, b]],
            "modifier": modifier,
            "score": score,
            "code": row[2],
            "label": row[3],
            "duration": duration,
        }, (a, b, mod, feats, butcher)
        assert isinstance(result["effect"], str) and result["effect"]
        sequela = {
            "kind": "physical",
            "code": row[2],
            "duration": duration,
            "lethal": row[4],
            "delay": row[5],
            "stabilised": False,
            "note": row[3],
        }
        expected = {(PC, "sequelae"): ([], [sequela], "FAB-50")}
        if row[2] == "crushed":
            expected[(PC, "dead")] = (False, True, "FAB-50")
        assert changes(resolution) == expected
        seen.add(row[2])
    # The grid reaches 2..19: every row but the crushed skull (tested below).
    assert seen == {r[2] for r in PHYSICAL_ROWS} - {"crushed"}


@pytest.mark.parametrize("row", PHYSICAL_ROWS[:-1], ids=[r[2] for r in PHYSICAL_ROWS[:-1]])
def test_FAB50_every_duration_face_of_every_row(row):
    """Durations written as dice are rolled: 1D6 or 2D6, none for spine and impaled."""
    sheet = make_sheet()
    low = row[0]
    pair = (1, 1) if low == 2 else (low // 2, low - low // 2)
    if pair[1] > 6:
        pair = (6, 6)
    mod = low - sum(pair)
    for faces in product(FACES, repeat=row[6]):
        request = sequela_req(sheet, "physical", weapon_mod=mod)
        result = run(resolve_sequela, request, d6(*pair, *faces)).result
        assert (result["score"], result["code"]) == (low, row[2])
        assert result["duration"] == physical_duration(row, faces)
        if not row[6]:
            assert result["duration"] in ("permanent if untreated", "mortal")


@pytest.mark.parametrize(("pair", "feats"), [((6, 6), 6), ((1, 1), 18), ((6, 5), 20)])
def test_FAB50_a_score_of_20_or_more_crushes_the_skull(pair, feats):
    sheet = make_sheet()
    request = sequela_req(sheet, "physical", weapon_mod=2, feats=feats)
    resolution = run(resolve_sequela, request, d6(*pair))  # no duration dice
    assert resolution.result["code"] == "crushed" and resolution.result["duration"] == "final"
    assert changes(resolution)[(PC, "dead")] == (False, True, "FAB-50")
    sequela = changes(resolution)[(PC, "sequelae")][1][0]
    assert sequela["lethal"] is False and sequela["delay"] is None


@pytest.mark.parametrize("modifier", [(0, 0, False), (1, 2, False), (2, 3, True)])
def test_FAB90_tough_luck_rolls_twice_and_keeps_the_lower_score(modifier):
    """Increvable: two 2D6, the better (lower, less severe) one counts."""
    mod, feats, butcher = modifier
    total = mod + feats + (2 if butcher else 0)
    sheet = make_sheet(talents=["tough_luck"])
    for a, b, c, e in product(FACES, repeat=4):
        score = min(a + b, c + e) + total
        row = sequela_row(score)
        duration_faces = [((a * c + i) % 6) + 1 for i in range(row[6])]
        request = sequela_req(sheet, "physical", weapon_mod=mod, feats=feats, butcher=butcher)
        result = run(resolve_sequela, request, d6(a, b, c, e, *duration_faces)).result
        assert result["dice"] == [[a, b], [c, e]]
        assert (result["score"], result["code"]) == (score, row[2]), (a, b, c, e)
        assert result["duration"] == physical_duration(row, duration_faces)


def test_FAB50_sequela_table_must_be_physical_or_mental():
    with pytest.raises(ValidationError, match="table"):
        resolve_sequela(sequela_req(make_sheet(), "spiritual"), NoDice())


def test_FAB50_sequelae_accumulate_on_the_sheet():
    earlier = {
        "kind": "mental",
        "code": "white_hair",
        "duration": "permanent",
        "lethal": False,
        "delay": None,
        "stabilised": False,
        "note": "Cheveux blancs",
    }
    sheet = make_sheet(sequelae=[earlier])
    resolution = run(resolve_sequela, sequela_req(sheet, "physical"), d6(3, 4, 5))
    before, after, _ = changes(resolution)[(PC, "sequelae")]
    assert before == [earlier] and after[0] == earlier and after[1]["code"] == "sprain"
    assert after[1]["duration"] == "5 quarts"


# --- FAB-55: the mental sequela table ---------------------------------------------------------


@pytest.mark.parametrize("face", range(1, 13))
def test_FAB55_every_1D12_face_with_every_duration_face(face):
    code, label, count, fixed = MENTAL_ROWS[face]
    sheet = make_sheet()
    for faces in product(FACES, repeat=count):
        resolution = run(resolve_sequela, sequela_req(sheet, "mental"), d(12, face) + d6(*faces))
        result = resolution.result
        duration = f"{sum(faces)} days" if count else fixed
        assert {k: v for k, v in result.items() if k != "effect"} == {
            "table": "mental",
            "die": face,
            "code": code,
            "label": label,
            "duration": duration,
        }
        sequela = {
            "kind": "mental",
            "code": code,
            "duration": duration,
            "lethal": False,
            "delay": None,
            "stabilised": False,
            "note": label,
        }
        assert changes(resolution) == {(PC, "sequelae"): ([], [sequela], "FAB-55")}


def test_FAB55_the_mental_table_ignores_weapon_feats_and_tough_luck():
    sheet = make_sheet(talents=["tough_luck"])
    request = sequela_req(sheet, "mental", weapon_mod=2, feats=3, butcher=True)
    result = run(resolve_sequela, request, d(12, 2)).result
    assert result["code"] == "white_hair" and result["duration"] == "permanent"


# --- FAB-22/23: states land in order, Broken on a full track, then a sequela ----------------


@pytest.mark.parametrize("track", ["physical", "mental"])
@pytest.mark.parametrize("extra", [None, "physical", "mental"])
def test_FAB22_FAB23_land_state_order_extra_box_then_broken(track, extra):
    talents = ["extra_box"] if extra else []
    sheet = make_sheet(talents=talents, extra_box_track=extra)
    boxes = TRACKS[track] + ([EXTRA[track]] if extra == track else [])
    body = Body(char(sheet))
    for n, box in enumerate(boxes):
        source = ReplayDice([])
        landed = land_state(body, track, source, {"weapon_mod": 0, "feats": 0})
        source.assert_consumed()
        assert landed == {"track": track, "state": box, "label": STATE_LABEL[box]}
        assert body.sheet["states"] == boxes[: n + 1]
        assert body.sheet["broken"] is False
    # The track is full: the next box breaks the character, who rolls a sequela at once.
    if track == "physical":
        draws = d6(4, 5, 3)  # 9 + 1 weapon mod = 10: broken_limb, 1D6 days
        context = {"weapon_mod": 1, "feats": 0}
        code, duration = "broken_limb", "3 days"
    else:
        draws = d(12, 9) + d6(1, 2, 3)  # delusion, 3D6 days
        context = {"weapon_mod": 2, "feats": 3}  # ignored by the mental table
        code, duration = "delusion", "6 days"
    source = ReplayDice(draws)
    landed = land_state(body, track, source, context)
    source.assert_consumed()
    assert landed["track"] == track and landed["broken"] is True
    assert landed["sequela"]["code"] == code and landed["sequela"]["duration"] == duration
    assert body.sheet["states"] == boxes and body.sheet["broken"] is True
    assert body.sheet["broken_track"] == track
    assert [s["code"] for s in body.sheet["sequelae"]] == [code]
    effects = {e["field"]: (e["before"], e["after"]) for e in body.effects("FAB-68")}
    assert effects["states"] == ([], boxes)
    assert effects["broken"] == (False, True)
    assert effects["broken_track"] == (None, track)


def test_FAB22_the_next_unchecked_box_even_after_a_chosen_state():
    body = Body(char(make_sheet(states=["meurtri", "apeure"])))
    assert land_state(body, "physical", NoDice(), {})["state"] == "epuise"
    assert land_state(body, "physical", NoDice(), {})["state"] == "blesse"
    assert land_state(body, "mental", NoDice(), {})["state"] == "enerve"
    assert land_state(body, "mental", NoDice(), {})["state"] == "demoralise"


def test_FAB23_the_first_broken_track_is_kept_and_a_full_track_rolls_again():
    sheet = make_sheet(states=TRACKS["physical"] + TRACKS["mental"])
    body = Body(char(sheet))
    source = ReplayDice(d(12, 2) + d6(1, 1, 6))
    land_state(body, "mental", source, {})
    land_state(body, "physical", source, {"weapon_mod": 0, "feats": 0})
    source.assert_consumed()
    assert body.sheet["broken_track"] == "mental"
    assert [s["code"] for s in body.sheet["sequelae"]] == ["white_hair", "stunned"]
    assert body.sheet["sequelae"][1]["duration"] == "6 rounds"


# --- FAB-51: death tests -----------------------------------------------------------------------


def lethal(code: str, delay: str, stabilised: bool = False) -> dict[str, Any]:
    return {
        "kind": "physical",
        "code": code,
        "duration": "mortal",
        "lethal": True,
        "delay": delay,
        "stabilised": stabilised,
    }


def death_req(sheet: dict[str, Any], index: int = 0) -> dict[str, Any]:
    return {**clock(), "character": char(sheet), "sequela": index}


@pytest.mark.parametrize("iron_will", [False, True])
def test_FAB51_death_test_every_face(iron_will):
    """Physique 1 + Résistance 1 (+2 iron_will): no six, the character dies."""
    sheet = make_sheet(
        skills={"resistance": 1},
        talents=["iron_will"] if iron_will else [],
        sequelae=[lethal("impaled", "immediate")],
    )
    count = 4 if iron_will else 2
    for faces in product(FACES, repeat=count):
        resolution = run(resolve_death_test, death_req(sheet), d6(*faces))
        result = resolution.result
        survived = 6 in faces
        assert result["pool"]["pool"] == count
        modifiers = [{"source": "iron_will", "dice": 2}] if iron_will else []
        assert result["pool"]["modifier_dice"] == modifiers
        assert result["survived"] is survived and result["sequela"] == "impaled"
        assert changes(resolution) == ({} if survived else {(PC, "dead"): (False, True, "FAB-51")})


def test_FAB51_a_panic_on_the_death_test_is_a_failure():
    sheet = make_sheet(skills={"resistance": 1}, stress=1, sequelae=[lethal("spine", "round")])
    for faces in product(FACES, repeat=3):
        resolution = run(resolve_death_test, death_req(sheet), d6(*faces))
        survived = faces[2] != 1 and 6 in faces
        assert resolution.result["survived"] is survived


def test_FAB51_sequela_maluses_reach_the_death_test():
    """Bleeding takes 2 from Résistance rolls, internal injuries 2 from everything."""
    sheet = make_sheet(
        {"physique": 4},
        {"resistance": 1},
        sequelae=[lethal("bleeding", "quart"), lethal("internal", "tour")],
    )
    result = run(resolve_death_test, death_req(sheet, 1), d6(2)).result
    assert result["pool"]["situation"] == -4 and result["pool"]["pool"] == 1
    assert result["survived"] is False


def test_FAB51_refusals():
    bruise = {"kind": "physical", "code": "bruise", "duration": "3 rounds"}
    refused(resolve_death_test, death_req(make_sheet(sequelae=[bruise])), "FAB-51")
    dead = make_sheet(dead=True, sequelae=[lethal("impaled", "immediate")])
    refused(resolve_death_test, death_req(dead), "FAB-51")
    safe = make_sheet(sequelae=[lethal("bleeding", "quart", stabilised=True)])
    refused(resolve_death_test, death_req(safe), "FAB-52")
    refused(resolve_death_test, death_req(make_sheet(), 0), None, InvalidInput)
    crushed = make_sheet(dead=True, sequelae=[{"kind": "physical", "code": "crushed"}])
    refused(resolve_death_test, death_req(crushed), "FAB-51")


# --- FAB-52: stabilisation -----------------------------------------------------------------


def stabilize_req(healer: dict[str, Any], patient: dict[str, Any], index: int = 0) -> Any:
    return {
        **clock(),
        "healer": char(healer, ALLY, "pc"),
        "patient": char(patient),
        "sequela": index,
    }


@pytest.mark.parametrize("delay", DELAYS)
@pytest.mark.parametrize("medic", [False, True])
def test_FAB52_stabilise_every_face_lengthens_one_step(delay, medic):
    healer = make_sheet(skills={"soin": 1}, talents=["medic"] if medic else [])
    patient = make_sheet(sequelae=[lethal("impaled", delay)])
    count = 3 if medic else 2
    after = DELAYS[min(DELAYS.index(delay) + 1, 3)]
    for faces in product(FACES, repeat=count):
        resolution = run(resolve_stabilize, stabilize_req(healer, patient), d6(*faces))
        result = resolution.result
        assert result["pool"]["attribute"] == 1  # Soin with intellect (FAB-4, FAB-80)
        assert result["pool"]["pool"] == count
        if 6 in faces:
            assert (result["delay"], result["stabilised"]) == (after, after == "quart")
            before, now, rule = changes(resolution)[(PC, "sequelae")]
            assert rule == "FAB-52"
            assert now == [{**before[0], "delay": after, "stabilised": after == "quart"}]
        else:
            assert "delay" not in result and changes(resolution) == {}


def test_FAB52_stabilised_at_quart_no_more_death_tests():
    healer = make_sheet(skills={"soin": 1})
    patient = make_sheet(skills={"resistance": 1}, sequelae=[lethal("internal", "tour")])
    resolution = run(resolve_stabilize, stabilize_req(healer, patient), d6(6, 1))
    sequelae = changes(resolution)[(PC, "sequelae")][1]
    stabilised = make_sheet(skills={"resistance": 1}, sequelae=sequelae)
    refused(resolve_death_test, death_req(stabilised), "FAB-52")
    refused(resolve_stabilize, stabilize_req(healer, stabilised), "FAB-52")


def test_FAB52_refusals():
    healer = make_sheet(skills={"soin": 1})
    patient = make_sheet(sequelae=[lethal("spine", "round")])
    request = stabilize_req(healer, patient)
    request["healer"] = request["patient"]
    refused(resolve_stabilize, request, "FAB-52")
    bruise = make_sheet(sequelae=[{"kind": "physical", "code": "bruise"}])
    refused(resolve_stabilize, stabilize_req(healer, bruise), "FAB-51")
    refused(resolve_stabilize, stabilize_req(healer, patient, 3), None, InvalidInput)


def test_roll_sequela_reports_and_records_on_the_body():
    body = Body(char(make_sheet()))
    source = ReplayDice(d6(6, 6))  # 12 + 3 feats + 2 butcher = 17: impaled, no duration
    rolled = roll_sequela(body, "physical", source, {"weapon_mod": 0, "feats": 3, "butcher": True})
    source.assert_consumed()
    assert rolled["code"] == "impaled" and rolled["score"] == 17
    assert rolled["duration"] == "mortal"
    assert body.sheet["sequelae"][0]["delay"] == "immediate"
    assert body.sheet["sequelae"][0]["lethal"] is True
