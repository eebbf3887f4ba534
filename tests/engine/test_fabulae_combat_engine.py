"""Fabulae Tenebris combat engine (fabulae-tenebris.md FAB-50..76, FAB-90, FAB-100..102).

Every dice test enumerates the faces with itertools.product (never sampling) and checks,
through ReplayDice.assert_consumed, that exactly the expected dice were drawn, in order.
Requests are built in the shapes app/services/fabulae.py records (clock + character
snapshots + inputs). The tables, pools and expected outcomes are written here from the
rules, independently of the engine; a refusal must come before any die is drawn.
"""

from __future__ import annotations

from itertools import chain, combinations, product
from typing import Any

import pytest

from app.engine.clock import resolve_clock
from app.engine.dice import ReplayDice
from app.engine.errors import InvalidInput, RuleRefusal
from app.engine.fabulae.combat import (
    MENTAL_TABLE,
    PHYSICAL_TABLE,
    Body,
    land_state,
    resolve_attack,
    resolve_break_free,
    resolve_danger,
    resolve_death_test,
    resolve_end_effect,
    resolve_grapple,
    resolve_reload,
    resolve_repair,
    resolve_second_wind,
    resolve_sequela,
    resolve_stabilize,
    resolve_state_choice,
    resolve_strangle,
    resolve_street_rat,
    roll_sequela,
)
from app.engine.fabulae.powers import recharges, resolve_power
from app.engine.fabulae.rules import pool_of, resolve_absorb, resolve_action, situation_dice
from app.engine.fabulae.sheet import FabulaeSheet

SYSTEM = "fabulae-tenebris"
PC = "fab0c000-0000-4000-8000-000000000001"
FOE = "fab0c000-0000-4000-8000-0000000000f0"
ALLY = "fab0c000-0000-4000-8000-0000000000a1"
ALLY2 = "fab0c000-0000-4000-8000-0000000000a2"
SESSION, SCENE, THREAT_SEQ = 4, 7, 50
FACES = range(1, 7)
P = pytest.param

# FAB-20/22, written out: the tracks in checking order, and the extra box of `extra_box`.
TRACKS = {
    "physical": ["epuise", "meurtri", "blesse"],
    "mental": ["enerve", "apeure", "demoralise"],
}
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

# FAB-50, written out: (lowest score, highest score, code, label, lethal, delay,
# duration dice, unit or fixed duration).
PHYSICAL_ROWS: list[tuple[int, int, str, str, bool, str | None, int, str]] = [
    (2, 4, "stunned", "Sonné / Étourdi", False, None, 1, "rounds"),
    (5, 6, "bruise", "Hématome sensible", False, None, 1, "rounds"),
    (7, 8, "sprain", "Membre foulé / Entaille", False, None, 1, "quarts"),
    (9, 10, "broken_limb", "Membre cassé / Commotion", True, "quart", 1, "days"),
    (11, 12, "bleeding", "Hémorragie externe", True, "quart", 2, "days"),
    (13, 14, "internal", "Organe touché / Interne", True, "tour", 2, "days"),
    (15, 16, "spine", "Colonne brisée / Jugulaire", True, "round", 0, "permanent if untreated"),
    (17, 19, "impaled", "Empalé / Éventré", True, "immediate", 0, "mortal"),
    (20, 99, "crushed", "Crâne écrasé / Pulvérisé", False, None, 0, "final"),
]
# FAB-55, written out: 1D12 face → (code, label, duration dice, fixed duration).
MENTAL_ROWS: dict[int, tuple[str, str, int, str]] = {
    1: ("tremor", "Tremblement", 1, ""),
    2: ("white_hair", "Cheveux blancs", 0, "permanent"),
    3: ("anxious", "Anxieux", 1, ""),
    4: ("sullen", "Maussade", 1, ""),
    5: ("nightmares", "Cauchemars", 1, ""),
    6: ("nocturnal", "Nocturne", 2, ""),
    7: ("phobic", "Phobique", 2, ""),
    8: ("paranoia", "Paranoïa", 2, ""),
    9: ("delusion", "Délire", 3, ""),
    10: ("hallucinations", "Hallucinations", 3, ""),
    11: ("amnesia", "Amnésie", 1, ""),
    12: ("catatonia", "Catatonie", 1, ""),
}
# FAB-62/FAB-64, written out: situation factors in dice.
MELEE = {"attacker_on_ground": -2, "sneak_attack": 2, "target_on_ground": 2, "helpless_target": 3}
RANGED = {
    "contact_long_weapon": -3,
    "contact_short_weapon": 3,
    "medium_range": -1,
    "half_light": -1,
    "long_range": -2,
    "total_darkness": -2,
    "small_target": -2,
    "extreme_range": -3,
    "large_target": 2,
}
# FAB-71, written out: id → (roll bonus, damage, burst, hands, sequela mod, ammo).
WEAPONS: dict[str, tuple[int, int, bool, int, int, int | None]] = {
    "bare_hands": (-1, 1, False, 1, 0, None),
    "brass_knuckles": (0, 1, False, 1, 0, None),
    "knife": (1, 2, False, 1, 0, None),
    "wrench": (1, 1, False, 1, 0, None),
    "club": (2, 1, False, 1, 1, None),
    "spear": (1, 2, False, 2, 1, None),
    "sabre": (2, 2, False, 1, 1, None),
    "fire_axe": (2, 3, False, 2, 1, None),
    "crossbow": (1, 2, False, 2, 1, 1),
    "repeating_rifle": (2, 2, True, 2, 1, 8),
    "revolver": (2, 2, False, 1, 1, 6),
    "shotgun": (2, 2, False, 2, 2, 2),
    "heavy_machine_gun": (2, 3, True, 2, 2, 20),
}
BLUNT = {"bare_hands", "brass_knuckles", "wrench", "club"}  # FAB-90 cogneur
AMMO_DIE = {1: 6, 2: 12, 3: 20}  # FAB-65
DELAYS = ["immediate", "round", "tour", "quart"]  # FAB-52


# --- builders (the shapes app/services/fabulae.py records) ----------------------------------


def make_sheet(
    attributes: dict[str, int] | None = None, skills: dict[str, int] | None = None, **over: Any
) -> dict[str, Any]:
    """A valid sheet with every attribute 1 and every skill 0 unless given: small pools."""
    raw = {
        "attributes": {"physique": 1, "habilete": 1, "intellect": 1, "empathie": 1}
        | (attributes or {}),
        "skills": skills or {},
        **over,
    }
    sheet = FabulaeSheet.model_validate(raw, context={"options": {"powers_allowed": True}})
    return sheet.model_dump(mode="json")


def char(sheet: dict[str, Any], cid: str = PC, kind: str = "pc") -> dict[str, Any]:
    return {"id": cid, "name": f"{kind}-{cid[-2:]}", "kind": kind, "sheet": sheet}


def clock(session: int = SESSION) -> dict[str, Any]:
    return {"system": SYSTEM, "session": session, "scene": SCENE}


def d(sides: int, *faces: int) -> list[dict[str, int]]:
    return [{"sides": sides, "face": f} for f in faces]


def d6(*faces: int) -> list[dict[str, int]]:
    return d(6, *faces)


class NoDice:
    """A source that fails the test if a rule draws a die: refusals come first."""

    def roll(self, sides: int) -> int:
        raise AssertionError(f"a d{sides} was drawn before the refusal")

    @property
    def draws(self) -> list[dict[str, int]]:
        return []


def run(resolver: Any, request: dict[str, Any], draws: Any = ()) -> Any:
    """Resolve, and check that exactly these dice were drawn."""
    source = ReplayDice(list(draws))
    resolution = resolver(request, source)
    source.assert_consumed()
    return resolution


def refused(resolver: Any, request: dict[str, Any], rule: str | None, error: Any = RuleRefusal):
    """The rules refuse (naming `rule`) before drawing any die."""
    with pytest.raises(error) as caught:
        resolver(request, NoDice())
    if rule is not None:
        assert caught.value.rule == rule or caught.value.detail.startswith(f"{rule}:"), (
            caught.value.rule,
            caught.value.detail,
        )
    return caught.value


def changes(resolution: Any) -> dict[tuple[str, str], tuple[Any, Any, str]]:
    """The effects as {(character, field): (before, after, rule)}, each field once."""
    found: dict[tuple[str, str], tuple[Any, Any, str]] = {}
    for effect in resolution.effects:
        key = (effect["character_id"], effect["field"])
        assert key not in found, f"{key} changed twice"
        found[key] = (effect["before"], effect["after"], effect["rule"])
    return found


def attack_req(
    attacker: dict[str, Any],
    target: dict[str, Any],
    mode: str,
    weapon: str,
    *,
    attacker_kind: str = "npc",
    target_kind: str = "npc",
    **inputs: Any,
) -> dict[str, Any]:
    return {
        **clock(),
        "attacker": char(attacker, FOE, attacker_kind),
        "target": char(target, PC, target_kind),
        "mode": mode,
        "weapon": weapon,
        "defense": inputs.pop("defense", "none"),
        "situation": inputs.pop("situation", []),
        "aimed": inputs.pop("aimed", False),
        "snap_shot": inputs.pop("snap_shot", False),
        "burst": inputs.pop("burst", 1),
        "burst_fire": inputs.pop("burst_fire", False),
        "cover": inputs.pop("cover", 0),
        "talents": inputs.pop("talents", []),
        "modifiers": inputs.pop("modifiers", []),
        "states": inputs.pop("states", "auto"),
        **inputs,
    }


def sequela_req(sheet: dict[str, Any], table: str, **context: Any) -> dict[str, Any]:
    return {
        **clock(),
        "character": char(sheet),
        "table": table,
        "weapon_mod": context.get("weapon_mod", 0),
        "feats": context.get("feats", 0),
        "butcher": context.get("butcher", False),
    }


def danger_req(sheet: dict[str, Any], danger: str, kind: str = "npc", **inputs: Any) -> Any:
    return {
        **clock(),
        "character": char(sheet, PC, kind),
        "danger": danger,
        "intensity": inputs.pop("intensity", 3),
        "round": inputs.pop("round", 1),
        "damage": inputs.pop("damage", 1),
        "medium_range": inputs.pop("medium_range", False),
        "phase": inputs.pop("phase", "float"),
        "states": inputs.pop("states", "auto"),
    }


def power_req(
    caster: dict[str, Any],
    power: str,
    pp: int = 1,
    targets: Any = (),
    *,
    option: str | None = None,
    allowed: bool = True,
    states: str = "auto",
) -> dict[str, Any]:
    return {
        **clock(),
        "caster": char(caster, PC, "pc"),
        "targets": list(targets),
        "power": power,
        "pp": pp,
        "option": option,
        "states": states,
        "powers_allowed": allowed,
    }


def threat_req(
    character: dict[str, Any], threat_result: dict[str, Any], settled: Any = (), **extra: Any
) -> dict[str, Any]:
    """A state choice or absorb following a damage threat, as _settle records it."""
    return {
        **clock(),
        "character": character,
        "threat": {"seq": THREAT_SEQ, "kind": "fabulae.attack", "result": threat_result},
        "settled": list(settled),
        **extra,
    }


def sequela_row(score: int) -> tuple[int, int, str, str, bool, str | None, int, str]:
    return next(row for row in PHYSICAL_ROWS if row[0] <= score <= row[1] or score < 2)


def physical_duration(row: Any, faces: Any) -> str:
    return f"{sum(faces)} {row[7]}" if row[6] else row[7]


def sixes(faces: Any) -> int:
    return sum(1 for f in faces if f == 6)


def subsets(items: Any) -> Any:
    items = list(items)
    return chain.from_iterable(combinations(items, n) for n in range(len(items) + 1))


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
    refused(resolve_sequela, sequela_req(make_sheet(), "spiritual"), None, InvalidInput)


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


# --- FAB-66/67: damage through armor and cover -------------------------------------------------

ARMOR_CASES = [
    P(None, id="no-armor"),
    P({"id": "leather_coat", "value": 0}, id="worn-coat-0"),
    P({"id": "leather_coat", "value": 1}, id="coat-1"),
    P({"id": "guard_mail", "value": 2}, id="mail-2"),
]
# (mode, weapon, attack faces, damage): the shooter's pool is 2 dice; one six hits.
DAMAGE_CASES = [
    ("melee", "wrench", (6, 2), 1),
    ("ranged", "revolver", (6, 2), 2),
    ("ranged", "revolver", (6, 6), 3),
]


def attacker_sheet(**over: Any) -> dict[str, Any]:
    """habilete 0 + tir 0 + revolver +2, physique 1 + combat 0 + wrench +1: two dice each."""
    over.setdefault("weapons", [{"id": "revolver"}, {"id": "wrench"}])
    return make_sheet({"habilete": 0}, **over)


@pytest.mark.parametrize("armor", ARMOR_CASES)
@pytest.mark.parametrize("cover", [0, 3])
def test_FAB66_FAB67_every_protection_face_for_armor_and_cover(armor, cover):
    """Each six absorbs one damage (at most the damage); the armor wears only if damage
    gets through; cover adds dice and never wears."""
    value = armor["value"] if armor else 0
    count = value + cover
    shooter = attacker_sheet()
    target = make_sheet(armor=armor)
    cases = [
        (case, faces)
        for case in DAMAGE_CASES
        # Every face for every damage up to four dice; with five, every face for the
        # largest damage and six/non-six for the others (keeps the run short).
        for faces in product(FACES if count < 5 or case[3] == 3 else (2, 6), repeat=count)
    ]
    for (mode, weapon, attack, damage), faces in cases:
        request = attack_req(shooter, target, mode, weapon, cover=cover)
        resolution = run(resolve_attack, request, d6(*attack, *faces))
        absorbed = min(damage, sixes(faces))
        through = damage - absorbed
        worn = through > 0 and value > 0
        (hit,) = resolution.result["attacks"]
        assert hit["hit"] is True and hit["damage"] == damage
        assert hit["protection"] == {
            "armor": value,
            "powers": 0,
            "cover": cover,
            "dice": list(faces),
            "absorbed": absorbed,
            "armor_worn": worn,
        }
        assert hit["through"] == through
        effects = changes(resolution)
        if worn:
            assert effects[(PC, "armor")] == (armor, {**armor, "value": value - 1}, "FAB-68")
        else:
            assert (PC, "armor") not in effects
        states = TRACKS["physical"][:through]
        if through:
            assert effects[(PC, "states")] == ([], states, "FAB-68")
            assert [s["state"] for s in resolution.result["states_checked"]] == states
        else:
            assert (PC, "states") not in effects and "states_checked" not in resolution.result
        if mode == "ranged":
            assert effects[(FOE, "weapons")][1][0] == {"id": "revolver", "ammo": 5}


@pytest.mark.parametrize("armor", [None, {"id": "leather_coat", "value": 1}])
def test_FAB102_barrier_adds_two_protection_dice_that_never_wear(armor):
    value = armor["value"] if armor else 0
    barrier = {"source": "barrier", "caster_id": ALLY, "scene": SCENE, "armor": 2}
    target = make_sheet(armor=armor, active_effects=[barrier])
    for faces in product(FACES, repeat=value + 2):
        request = attack_req(attacker_sheet(), target, "ranged", "revolver")
        resolution = run(resolve_attack, request, d6(6, 6, *faces))  # 3 damage
        (hit,) = resolution.result["attacks"]
        through = 3 - min(3, sixes(faces))
        assert hit["protection"]["powers"] == 2 and hit["protection"]["armor"] == value
        assert hit["through"] == through
        worn = bool(through and value)
        assert hit["protection"]["armor_worn"] is worn
        assert ((PC, "armor") in changes(resolution)) is worn


def test_FAB67_cover_values_are_the_rules_list():
    shooter, target = attacker_sheet(), make_sheet()
    for cover in (1, 2, 7, 9):
        with pytest.raises(InvalidInput, match="FAB-67"):
            resolve_attack(attack_req(shooter, target, "ranged", "revolver", cover=cover), NoDice())
    for cover in (4, 5, 6, 8):
        request = attack_req(shooter, target, "ranged", "revolver", cover=cover)
        result = run(resolve_attack, request, d6(6, 2, *[2] * cover)).result
        assert result["attacks"][0]["protection"]["cover"] == cover


# --- FAB-62/FAB-36: the opposed melee attack, every face -----------------------------------


@pytest.mark.parametrize("defense", ["parry", "dodge"])
def test_FAB62_FAB66_opposed_melee_every_face(defense):
    """Knife (+1, 2 damage): attacker 2 dice against 2 defense dice, then 1 armor die."""
    attacker = make_sheet(weapons=[{"id": "knife"}])
    target = make_sheet(
        skills={"combat": 1, "athletisme": 1}, armor={"id": "leather_coat", "value": 1}
    )
    for a1, a2, p1, p2 in product(FACES, repeat=4):
        net = sixes((a1, a2)) - sixes((p1, p2))
        request = attack_req(attacker, target, "melee", "knife", defense=defense)
        if net < 1:
            result = run(resolve_attack, request, d6(a1, a2, p1, p2)).result
            (miss,) = result["attacks"]
            assert miss["hit"] is False and miss["roll"]["outcome"] == "failure"
            assert miss["roll"]["winner"] == "passive"
            assert "states_checked" not in result and "pending_states" not in result
            continue
        for armor_die in FACES:
            resolution = run(resolve_attack, request, d6(a1, a2, p1, p2, armor_die))
            (hit,) = resolution.result["attacks"]
            damage = 2 + net - 1
            through = damage - min(damage, sixes((armor_die,)))
            assert hit["roll"]["net"] == net and hit["roll"]["feats"] == net - 1
            assert hit["roll"]["passive"]["dice"] == [p1, p2]
            assert hit["roll"]["passive"]["pool"]["skill"] == 1  # combat or athletisme 1
            assert (hit["damage"], hit["through"]) == (damage, through)
            states = TRACKS["physical"][:through]
            assert [s["state"] for s in resolution.result.get("states_checked", [])] == states


def test_FAB62_ranged_attacks_take_no_parry_or_dodge():
    request = attack_req(attacker_sheet(), make_sheet(), "ranged", "revolver", defense="dodge")
    refused(resolve_attack, request, None, InvalidInput)


def test_FAB62_defense_must_be_none_parry_or_dodge():
    attacker = make_sheet(weapons=[{"id": "knife"}])
    request = attack_req(attacker, make_sheet(), "melee", "knife", defense="duck")
    refused(resolve_attack, request, None, InvalidInput)


@pytest.mark.parametrize(
    ("mode", "weapon"),
    [("melee", "revolver"), ("ranged", "knife"), ("ranged", "bare_hands"), ("melee", "sabre")],
)
def test_FAB71_the_weapon_must_fit_the_mode_and_be_carried(mode, weapon):
    attacker = make_sheet(weapons=[{"id": "revolver"}, {"id": "knife"}])
    refused(resolve_attack, attack_req(attacker, make_sheet(), mode, weapon), None, InvalidInput)


@pytest.mark.parametrize("who", ["attacker", "target"])
def test_FAB51_the_dead_neither_attack_nor_are_attacked(who):
    alive, dead = attacker_sheet(), attacker_sheet(dead=True)
    attacker, target = (dead, alive) if who == "attacker" else (alive, dead)
    refused(resolve_attack, attack_req(attacker, target, "ranged", "revolver"), "FAB-51")


def test_FAB42_FAB62_a_stress_1_panics_the_attacker_every_face():
    attacker = make_sheet(stress=1, weapons=[{"id": "knife"}])
    for a1, a2, s in product(FACES, repeat=3):
        request = attack_req(attacker, make_sheet(), "melee", "knife", target_kind="pc")
        hits = sixes((a1, a2, s))
        draws = d6(a1, a2, s)
        result = run(resolve_attack, request, draws).result
        (attack,) = result["attacks"]
        assert attack["roll"]["active"]["stress_dice"] == [s]
        if s == 1:
            assert result["panic"] is True and attack["hit"] is False
            assert attack["roll"]["outcome"] == "panic"
        else:
            assert "panic" not in result
            assert attack["hit"] is (hits >= 1)
            if hits:
                assert attack["damage"] == 2 + hits - 1  # stress sixes count (FAB-42)


def test_FAB42_a_panicking_defender_scores_no_six():
    attacker = make_sheet(weapons=[{"id": "knife"}])
    defender = make_sheet(skills={"combat": 1}, stress=1)
    for a, p1, p2, s in product(FACES, (6, 2), (6, 2), FACES):
        request = attack_req(attacker, defender, "melee", "knife", defense="parry")
        # attacker pool 1 + 0 + 1 = 2 dice: (a, 2); defender 2 dice + 1 stress die
        draws = d6(a, 2, p1, p2, s)
        defended = 0 if s == 1 else sixes((p1, p2, s))
        hit = sixes((a,)) - defended >= 1
        result = run(resolve_attack, request, draws).result
        assert result["attacks"][0]["hit"] is hit
        assert result["attacks"][0]["roll"]["passive"]["outcome"] in ("panic", "success", "failure")


# --- FAB-68: each damage through is a state, pending for a player's character ----------------


def test_FAB68_states_land_at_once_on_npcs_and_wait_for_players():
    shooter = attacker_sheet()
    target = make_sheet()
    context = {"weapon_mod": 1, "feats": 1, "butcher": False}
    threat = {"rule": "FAB-68", "track": "physical", "sequela": context}
    for kind, states, expect_pending in [
        ("npc", "auto", False),
        ("pc", "auto", True),
        ("pc", "now", False),
        ("npc", "pending", True),
    ]:
        request = attack_req(shooter, target, "ranged", "revolver", target_kind=kind, states=states)
        resolution = run(resolve_attack, request, d6(6, 6))  # 3 damage, nothing absorbs
        if expect_pending:
            assert resolution.result["pending_states"] == [threat] * 3
            assert (PC, "states") not in changes(resolution)
        else:
            assert "pending_states" not in resolution.result
            assert changes(resolution)[(PC, "states")] == ([], TRACKS["physical"], "FAB-68")


def pending_attack(target: dict[str, Any], faces: Any = (6, 6)) -> dict[str, Any]:
    """A revolver shot on a player's character: its result, the threats still pending."""
    request = attack_req(attacker_sheet(), target, "ranged", "revolver", target_kind="pc")
    return run(resolve_attack, request, d6(*faces)).result


def test_FAB68_FAB22_state_choice_settles_the_next_box_one_by_one():
    target = make_sheet()
    threat = pending_attack(target)
    assert len(threat["pending_states"]) == 3
    settled: list[dict[str, Any]] = []
    states: list[str] = []
    for n, box in enumerate(TRACKS["physical"]):
        sheet = make_sheet(states=list(states))
        request = threat_req(char(sheet), threat, settled, state=None)
        resolution = run(resolve_state_choice, request)
        assert resolution.result["state"] == box
        assert resolution.result["settles"] == threat["pending_states"][n]
        assert changes(resolution) == {(PC, "states"): (states, [*states, box], "FAB-68")}
        states = [*states, box]
        settled.append({"seq": THREAT_SEQ + 1 + n, "kind": "fabulae.state_choice", "result": {}})
    request = threat_req(char(make_sheet(states=states)), threat, settled, state=None)
    refused(resolve_state_choice, request, "FAB-34")


def test_FAB68_naming_another_box_than_the_next_is_refused():
    threat = pending_attack(make_sheet())
    for state in ("meurtri", "blesse", "enerve", "physical", "mental"):
        request = threat_req(char(make_sheet()), threat, state=state)
        refused(resolve_state_choice, request, None, InvalidInput)
    request = threat_req(char(make_sheet()), threat, state="epuise")
    assert run(resolve_state_choice, request).result["state"] == "epuise"


def test_FAB23_FAB50_settling_on_a_full_track_breaks_and_rolls_with_the_attack_context():
    """The duration dice of the sequela are drawn by the settling entry."""
    threat = pending_attack(make_sheet(), faces=(6, 6))  # feats 1, revolver sequela mod +1
    full = make_sheet(states=TRACKS["physical"])
    for a, b in product(FACES, FACES):
        score = a + b + 1 + 1
        row = sequela_row(score)
        duration_faces = [a] * row[6]
        request = threat_req(char(full), threat, state=None)
        resolution = run(resolve_state_choice, request, d6(a, b, *duration_faces))
        result = resolution.result
        assert result["broken"] is True and result["track"] == "physical"
        assert result["sequela"]["score"] == score and result["sequela"]["code"] == row[2]
        assert result["sequela"]["modifier"] == 2
        assert result["sequela"]["duration"] == physical_duration(row, duration_faces)
        effects = changes(resolution)
        assert effects[(PC, "broken")] == (False, True, "FAB-68")
        assert effects[(PC, "broken_track")] == (None, "physical", "FAB-68")
        assert effects[(PC, "sequelae")][1][0]["code"] == row[2]
        assert ((PC, "dead") in effects) is (row[2] == "crushed")


def test_FAB34_absorb_cancels_a_pending_state_for_one_destiny():
    threat = pending_attack(make_sheet(), faces=(6, 2))  # 2 damage
    sheet = make_sheet(destiny=2)
    resolution = run(resolve_absorb, threat_req(char(sheet), threat))
    assert resolution.result == {"absorbed": threat["pending_states"][0]}
    assert changes(resolution) == {(PC, "destiny"): (2, 1, "FAB-34")}
    settled = [{"seq": 51, "kind": "fabulae.absorb", "result": resolution.result}]
    second = run(resolve_absorb, threat_req(char(make_sheet(destiny=1)), threat, settled))
    assert changes(second) == {(PC, "destiny"): (1, 0, "FAB-34")}
    settled.append({"seq": 52, "kind": "fabulae.absorb", "result": second.result})
    refused(resolve_absorb, threat_req(char(make_sheet(destiny=0)), threat, settled), "FAB-34")
    broke = threat_req(char(make_sheet(destiny=0)), threat, settled[:1])
    refused(resolve_absorb, broke, "FAB-34")


# --- FAB-62/64: the factors of the attack pool -------------------------------------------------


def attack_pool(result: dict[str, Any]) -> dict[str, Any]:
    return result["attacks"][0]["roll"]["active"]["pool"]


def test_FAB62_every_subset_of_melee_factors():
    attacker = make_sheet({"physique": 6}, {"combat": 5}, weapons=[{"id": "knife"}])
    for chosen in subsets(MELEE):
        request = attack_req(attacker, make_sheet(), "melee", "knife", situation=list(chosen))
        pool = 6 + 5 + 1 + sum(MELEE[f] for f in chosen)
        result = run(resolve_attack, request, d6(*[2] * pool)).result
        assert attack_pool(result)["pool"] == pool
        assert attack_pool(result)["modifier_dice"] == [
            *({"source": f, "dice": MELEE[f]} for f in chosen),
            {"source": "weapon knife", "dice": 1},
        ]


def test_FAB64_every_subset_of_ranged_factors():
    attacker = make_sheet({"habilete": 6}, {"tir": 5}, weapons=[{"id": "revolver"}])
    factors = [f for f in RANGED if f != "contact_long_weapon"]  # a revolver is short
    for chosen in subsets(factors):
        request = attack_req(attacker, make_sheet(), "ranged", "revolver", situation=list(chosen))
        pool = 6 + 5 + 2 + sum(RANGED[f] for f in chosen)
        result = run(resolve_attack, request, d6(*[2] * pool)).result
        assert attack_pool(result)["pool"] == pool, chosen
        assert attack_pool(result)["modifiers"] == pool - 11


@pytest.mark.parametrize(
    ("weapon", "factor"),
    [("repeating_rifle", "contact_short_weapon"), ("revolver", "contact_long_weapon")],
)
def test_FAB64_contact_factors_follow_the_weapon_hands(weapon, factor):
    attacker = make_sheet(weapons=[{"id": weapon}])
    request = attack_req(attacker, make_sheet(), "ranged", weapon, situation=[factor])
    refused(resolve_attack, request, None, InvalidInput)


def test_FAB64_contact_long_weapon_costs_three_dice():
    attacker = make_sheet({"habilete": 3}, {"tir": 2}, weapons=[{"id": "shotgun"}])
    request = attack_req(
        attacker, make_sheet(), "ranged", "shotgun", situation=["contact_long_weapon"]
    )
    result = run(resolve_attack, request, d6(2, 2, 2, 2)).result
    assert attack_pool(result)["pool"] == 3 + 2 + 2 - 3


@pytest.mark.parametrize("mode", ["melee", "ranged"])
def test_FAB62_FAB64_unknown_factors_are_refused(mode):
    weapon = "knife" if mode == "melee" else "revolver"
    attacker = make_sheet(weapons=[{"id": weapon}])
    other = "medium_range" if mode == "melee" else "sneak_attack"
    for factor in ("point_blank", other):
        request = attack_req(attacker, make_sheet(), mode, weapon, situation=[factor])
        refused(resolve_attack, request, None, InvalidInput)


def test_FAB64_aiming_adds_two_dice_and_only_to_a_shot():
    attacker = make_sheet(weapons=[{"id": "revolver"}, {"id": "knife"}])
    request = attack_req(attacker, make_sheet(), "ranged", "revolver", aimed=True)
    result = run(resolve_attack, request, d6(*[2] * 5)).result  # 1 + 0 + 2 + 2
    assert {"source": "aimed", "dice": 2} in attack_pool(result)["modifier_dice"]
    melee = attack_req(attacker, make_sheet(), "melee", "knife", aimed=True)
    refused(resolve_attack, melee, None, InvalidInput)


@pytest.mark.parametrize(
    ("bearer_effects", "malus"),
    [
        ([{"source": "deflection", "attacks_against": -2}], -2),
        ([{"source": "invisibility", "attacks_against": -3, "skills": {"furtivite": 3}}], -3),
        (
            [
                {"source": "deflection", "attacks_against": -2},
                {"source": "invisibility", "attacks_against": -3},
            ],
            -5,
        ),
    ],
)
def test_FAB102_powers_on_the_target_take_attack_dice(bearer_effects, malus):
    attacker = make_sheet({"habilete": 6}, {"tir": 2, "combat": 3}, weapons=[{"id": "revolver"}])
    target = make_sheet(active_effects=bearer_effects)
    request = attack_req(attacker, target, "ranged", "revolver")
    result = run(resolve_attack, request, d6(*[2] * (10 + malus))).result
    assert {"source": "powers on the target", "dice": malus} in attack_pool(result)["modifier_dice"]


def test_FAB21_FAB50_FAB72_FAB75_the_attackers_own_situation():
    """States, sequelae, armor and backpack maluses reach combat pools (situation_dice)."""
    internal = {"kind": "physical", "code": "internal", "lethal": True, "delay": "tour"}
    bruise = {"kind": "physical", "code": "bruise"}
    attacker = make_sheet(
        {"physique": 6, "habilete": 6},
        {"combat": 3, "tir": 3},
        states=["meurtri", "apeure", "epuise"],
        sequelae=[internal, bruise],
        weapons=[{"id": "knife"}, {"id": "revolver"}],
    )
    melee = run(
        resolve_attack,
        attack_req(attacker, make_sheet(), "melee", "knife"),
        d6(*[2] * (6 + 3 + 1 - 2 - 2 - 1)),
    ).result
    pool = attack_pool(melee)
    assert pool["states"] == -2
    assert pool["situation_dice"] == [
        {"source": "sequela internal", "dice": -2},
        {"source": "sequela bruise", "dice": -1},
    ]
    ranged = run(
        resolve_attack,
        attack_req(attacker, make_sheet(), "ranged", "revolver"),
        d6(*[2] * (6 + 3 + 2 - 2 - 2)),
    ).result
    assert attack_pool(ranged)["situation_dice"] == [{"source": "sequela internal", "dice": -2}]
    # The defender's dodge (Athlétisme) in combat: backpack -2, factory plate -1.
    defender = make_sheet(
        {"physique": 5},
        {"athletisme": 2, "furtivite": 2},
        backpack=True,
        armor={"id": "factory_plate", "value": 4},
    )
    knife = make_sheet(weapons=[{"id": "knife"}])
    request = attack_req(knife, defender, "melee", "knife", defense="dodge")
    dodge = run(resolve_attack, request, d6(2, 2, *[2] * (5 + 2 - 2 - 1))).result
    passive = dodge["attacks"][0]["roll"]["passive"]["pool"]
    assert passive["situation_dice"] == [
        {"source": "armor factory_plate", "dice": -1},
        {"source": "backpack in combat", "dice": -2},
    ]
    # Out of combat the backpack costs nothing; the vest hinders Furtivité.
    vest = make_sheet({"habilete": 3}, {"furtivite": 2}, armor={"id": "primitive_vest", "value": 3})
    assert situation_dice(vest, "habilete", "furtivite", False) == [
        {"source": "armor primitive_vest", "dice": -1}
    ]
    assert situation_dice(defender, "physique", "athletisme", False) == [
        {"source": "armor factory_plate", "dice": -1}
    ]


# --- FAB-65: burst fire --------------------------------------------------------------------


@pytest.mark.parametrize("weapon", ["repeating_rifle", "heavy_machine_gun"])
@pytest.mark.parametrize("burst", [1, 2, 3])
@pytest.mark.parametrize("master", [False, True])
def test_FAB65_burst_ammo_die_every_face_and_stress(weapon, burst, master):
    capacity = WEAPONS[weapon][5]
    assert capacity is not None
    sides = AMMO_DIE[burst]
    for loaded, face in product(range(1, capacity + 1), range(1, sides + 1)):
        shooter = make_sheet(
            {"habilete": 0},
            talents=["burst_master"] if master else [],
            weapons=[{"id": weapon, "ammo": loaded}],
            stress=0,
        )
        request = attack_req(shooter, make_sheet(), "ranged", weapon, burst=burst, burst_fire=True)
        spent = min(loaded, face)
        shots = min(burst, spent)  # no more shots than rounds fired
        misses = [2, 2] * shots  # two dice per attack, no six: no protection dice
        resolution = run(resolve_attack, request, d(sides, face) + d6(*misses))
        result = resolution.result
        assert result["ammo"] == {"die": sides, "spent": spent, "left": loaded - spent}
        assert len(result["attacks"]) == shots
        effects = changes(resolution)
        assert effects[(FOE, "weapons")][1] == [{"id": weapon, "ammo": loaded - spent}]
        if master:
            assert "stress_gained" not in result and (FOE, "stress") not in effects
        else:
            assert result["stress_gained"] == 1
            assert effects[(FOE, "stress")] == (0, 1, "FAB-65")


def test_FAB65_the_burst_attacks_roll_with_the_stress_before_the_burst():
    shooter = make_sheet({"habilete": 0}, weapons=[{"id": "repeating_rifle"}], stress=1)
    request = attack_req(
        shooter, make_sheet(), "ranged", "repeating_rifle", burst=2, burst_fire=True
    )
    result = run(resolve_attack, request, d(12, 3) + d6(2, 2, 3, 2, 2, 3)).result
    assert [a["roll"]["active"]["stress_dice"] for a in result["attacks"]] == [[3], [3]]


def test_FAB65_each_burst_hit_is_protected_separately_and_damage_adds_up():
    shooter = make_sheet({"habilete": 0}, weapons=[{"id": "heavy_machine_gun"}])
    target = make_sheet(armor={"id": "guard_mail", "value": 2})
    request = attack_req(
        shooter,
        target,
        "ranged",
        "heavy_machine_gun",
        burst=3,
        burst_fire=True,
        target_kind="pc",
    )
    # hit 1: 3 damage, mail 2 dice [6, 5] absorb 1 → 2 through, mail worn to 1
    # hit 2: 4 damage (feats 1), mail 1 die [1] → 4 through, mail worn to 0; then a miss
    draws = d(20, 7) + d6(6, 2, 6, 5) + d6(6, 6, 1) + d6(2, 2)
    resolution = run(resolve_attack, request, draws)
    result = resolution.result
    assert result["ammo"] == {"die": 20, "spent": 7, "left": 13}
    assert [a["hit"] for a in result["attacks"]] == [True, True, False]
    assert [a.get("through") for a in result["attacks"]] == [2, 4, None]
    assert [a["protection"]["armor"] for a in result["attacks"] if a["hit"]] == [2, 1]
    assert changes(resolution)[(PC, "armor")][1] == {"id": "guard_mail", "value": 0}
    # 6 through, each a pending state; the sequela context is the last hit's (feats 1).
    context = {"weapon_mod": 2, "feats": 1, "butcher": False}
    assert (
        result["pending_states"]
        == [{"rule": "FAB-68", "track": "physical", "sequela": context}] * 6
    )


def test_FAB65_empty_weapon_is_refused_before_any_die():
    for weapon in ("revolver", "repeating_rifle"):
        shooter = make_sheet(weapons=[{"id": weapon, "ammo": 0}])
        request = attack_req(
            shooter, make_sheet(), "ranged", weapon, burst_fire=weapon != "revolver"
        )
        refused(resolve_attack, request, "FAB-71")


@pytest.mark.parametrize(
    ("weapon", "burst", "burst_fire"),
    [("revolver", 2, True), ("repeating_rifle", 2, False), ("repeating_rifle", 4, True)],
)
def test_FAB65_bursts_need_a_burst_weapon_burst_fire_and_1_to_3_attacks(weapon, burst, burst_fire):
    shooter = make_sheet(weapons=[{"id": weapon}])
    request = attack_req(
        shooter, make_sheet(), "ranged", weapon, burst=burst, burst_fire=burst_fire
    )
    refused(resolve_attack, request, "FAB-65", InvalidInput)


@pytest.mark.parametrize("talents", [["all_in"], ["tinkerer"]])
def test_FAB65_a_burst_with_an_invalid_talent_is_refused_before_the_ammo_die(talents):
    shooter = make_sheet(weapons=[{"id": "repeating_rifle"}], talents=["all_in"])
    request = attack_req(
        shooter,
        make_sheet(),
        "ranged",
        "repeating_rifle",
        burst=2,
        burst_fire=True,
        talents=talents,
    )
    source = ReplayDice(d(12, 5) + d6(*[2] * 20))
    with pytest.raises(InvalidInput):
        resolve_attack(request, source)
    assert source.draws == []


# --- FAB-63: grapple, break free, strangle -----------------------------------------------------


@pytest.mark.parametrize("defense", ["none", "parry", "dodge"])
def test_FAB63_grapple_every_face(defense):
    attacker = make_sheet(skills={"combat": 1})
    target = make_sheet(skills={"combat": 1, "athletisme": 1})
    defense_dice = 0 if defense == "none" else 2
    for faces in product(FACES, repeat=2 + defense_dice):
        request = {
            **clock(),
            "attacker": char(attacker, FOE, "npc"),
            "target": char(target),
            "defense": defense,
            "modifiers": [],
        }
        resolution = run(resolve_grapple, request, d6(*faces))
        grappled = sixes(faces[:2]) > sixes(faces[2:])
        assert resolution.result["grappled"] is grappled
        assert resolution.result["roll"]["net"] == sixes(faces[:2]) - sixes(faces[2:])
        if grappled:
            assert changes(resolution) == {(PC, "grappled_by"): (None, FOE, "FAB-63")}
        else:
            assert changes(resolution) == {}


def test_FAB63_grapple_modifiers_change_the_pool():
    request = {
        **clock(),
        "attacker": char(make_sheet(skills={"combat": 1}), FOE, "npc"),
        "target": char(make_sheet()),
        "defense": "none",
        "modifiers": [{"source": "sneak_attack", "dice": 2}],
    }
    result = run(resolve_grapple, request, d6(2, 2, 2, 6)).result
    assert result["roll"]["active"]["pool"]["pool"] == 4 and result["grappled"] is True


def test_FAB63_an_unknown_grapple_defense_is_refused_before_any_die():
    request = {
        **clock(),
        "attacker": char(make_sheet(skills={"combat": 1}), FOE, "npc"),
        "target": char(make_sheet()),
        "defense": "bite",
        "modifiers": [],
    }
    refused(resolve_grapple, request, None, InvalidInput)


def test_FAB63_break_free_every_face():
    victim = make_sheet(skills={"combat": 1}, grappled_by=FOE)
    holder = make_sheet(skills={"combat": 1})
    for faces in product(FACES, repeat=4):
        request = {**clock(), "character": char(victim), "holder": char(holder, FOE, "npc")}
        resolution = run(resolve_break_free, request, d6(*faces))
        freed = sixes(faces[:2]) > sixes(faces[2:])
        assert resolution.result["freed"] is freed
        expected = {(PC, "grappled_by"): (FOE, None, "FAB-63")} if freed else {}
        assert changes(resolution) == expected


def test_FAB63_break_free_and_strangle_need_the_hold():
    free = make_sheet()
    held_by_other = make_sheet(grappled_by=ALLY)
    holder = char(make_sheet(), FOE, "npc")
    for victim in (free, held_by_other):
        refused(
            resolve_break_free, {**clock(), "character": char(victim), "holder": holder}, "FAB-63"
        )
        request = {**clock(), "attacker": holder, "target": char(victim), "states": "auto"}
        refused(resolve_strangle, request, "FAB-63")


def test_FAB63_strangle_one_net_damage_a_round_without_dice():
    holder = char(make_sheet(), FOE, "npc")
    for kind, states in product(("npc", "pc"), range(3)):
        held = make_sheet(grappled_by=FOE, states=TRACKS["physical"][:states])
        request = {**clock(), "attacker": holder, "target": char(held, PC, kind), "states": "auto"}
        resolution = run(resolve_strangle, request)
        assert resolution.result["damage"] == 1
        if kind == "pc":
            assert resolution.result["pending_states"] == [
                {
                    "rule": "FAB-63",
                    "track": "physical",
                    "sequela": {"weapon_mod": 0, "feats": 0, "butcher": False},
                }
            ]
            assert changes(resolution) == {}
        else:
            box = TRACKS["physical"][states]
            assert resolution.result["states_checked"][0]["state"] == box
    # On a full track the strangled NPC breaks: a sequela, 2D6 with no modifier.
    full = make_sheet(grappled_by=FOE, states=TRACKS["physical"])
    request = {**clock(), "attacker": holder, "target": char(full, PC, "npc"), "states": "auto"}
    result = run(resolve_strangle, request, d6(6, 6, 3, 4)).result
    assert result["states_checked"][0]["sequela"]["code"] == "bleeding"
    assert result["states_checked"][0]["sequela"]["duration"] == "7 days"


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


# --- FAB-73: environmental dangers --------------------------------------------------------


@pytest.mark.parametrize("intensity", range(3, 10))
@pytest.mark.parametrize("round_", [1, 2, 4])
def test_FAB73_fire_intensity_plus_a_die_each_round(intensity, round_):
    """Each six deals 1 damage; all six faces for small fires, six/non-six beyond."""
    count = intensity + round_ - 1
    alphabet = FACES if count <= 4 else (1, 6)
    sheet = make_sheet(armor={"id": "guard_mail", "value": 2})  # armor does not stop fire
    for faces in product(alphabet, repeat=count):
        request = danger_req(sheet, "fire", "pc", intensity=intensity, round=round_)
        resolution = run(resolve_danger, request, d6(*faces))
        damage = sixes(faces)
        assert resolution.result["dice"] == list(faces)
        assert resolution.result["damage"] == damage
        assert len(resolution.result.get("pending_states", [])) == damage
        assert changes(resolution) == {}


def test_FAB73_fire_on_an_npc_lands_and_the_broken_burn_with_death_tests():
    sheet = make_sheet()
    resolution = run(resolve_danger, danger_req(sheet, "fire"), d6(6, 2, 6))
    assert changes(resolution)[(PC, "states")] == ([], ["epuise", "meurtri"], "FAB-73")
    assert "note" not in resolution.result
    broken = make_sheet(states=TRACKS["physical"], broken=True, broken_track="physical")
    result = run(resolve_danger, danger_req(broken, "fire"), d6(2, 2, 2)).result
    assert "death test" in result["note"]


@pytest.mark.parametrize("intensity", [2, 10])
def test_FAB73_fire_and_poison_potency_is_3_to_9(intensity):
    for danger in ("fire", "poison", "disease"):
        request = danger_req(make_sheet(), danger, intensity=intensity)
        refused(resolve_danger, request, "FAB-73", InvalidInput)
    refused(resolve_danger, danger_req(make_sheet(), "lava"), None, InvalidInput)


@pytest.mark.parametrize(
    ("intensity", "medium", "count"), [(3, False, 3), (8, True, 2), (6, True, 0), (5, True, 0)]
)
def test_FAB73_explosion_base_through_armor_plus_extra_sixes(intensity, medium, count):
    sheet = make_sheet(armor={"id": "leather_coat", "value": 1})
    for faces, armor_die in product(product(FACES, repeat=count), FACES):
        request = danger_req(
            sheet, "explosion", "pc", intensity=intensity, damage=2, medium_range=medium
        )
        resolution = run(resolve_danger, request, d6(*faces, armor_die))
        extra = max(0, sixes(faces) - 1)
        through = 2 - min(2, sixes((armor_die,)))
        result = resolution.result
        assert (result["base"], result["extra_net"]) == (2, extra)
        assert result["damage"] == through + extra
        assert result["protection"]["dice"] == [armor_die]
        assert len(result.get("pending_states", [])) == through + extra
        worn = {(PC, "armor"): (sheet["armor"], {"id": "leather_coat", "value": 0}, "FAB-73")}
        assert changes(resolution) == (worn if through else {})


@pytest.mark.parametrize("armor", ["guard_mail", "factory_plate"])
def test_FAB73_heavy_metal_armor_sinks_at_once(armor):
    base = {"guard_mail": 2, "factory_plate": 4}[armor]
    sheet = make_sheet(armor={"id": armor, "value": base})
    result = run(resolve_danger, danger_req(sheet, "drowning")).result
    assert result["sinks"] is True and "roll" not in result


@pytest.mark.parametrize("armor", [None, {"id": "leather_coat", "value": 1}])
@pytest.mark.parametrize("phase", ["float", "underwater"])
def test_FAB73_drowning_every_face(armor, phase):
    sheet = make_sheet(skills={"resistance": 1}, armor=armor)
    for faces in product(FACES, repeat=2):
        request = danger_req(sheet, "drowning", "npc", phase=phase)
        resolution = run(resolve_danger, request, d6(*faces))
        failed = 6 not in faces
        result = resolution.result
        assert result["roll"]["pool"]["attribute"] == 1 and result["roll"]["pool"]["skill"] == 1
        if phase == "float":
            assert result["sinks"] is failed and changes(resolution) == {}
        else:
            assert result["damage"] == (1 if failed else 0)
            assert ((PC, "states") in changes(resolution)) is failed


@pytest.mark.parametrize("danger", ["poison", "disease"])
def test_FAB73_poison_and_disease_opposed_against_potency_every_face(danger):
    sheet = make_sheet(skills={"resistance": 1})
    for faces in product(FACES, repeat=5):
        save, venom = faces[:2], faces[2:]
        request = danger_req(sheet, danger, "pc", intensity=3)
        result = run(resolve_danger, request, d6(*faces)).result
        resisted = sixes(save) > sixes(venom)
        assert result["roll"]["net"] == sixes(save) - sixes(venom)
        assert result["roll"]["passive"]["dice"] == list(venom)
        assert result["damage"] == (0 if resisted else 1)
        assert result["per"].startswith("round" if danger == "poison" else "day")
        assert len(result.get("pending_states", [])) == result["damage"]


@pytest.mark.parametrize("cool_head", [False, True])
def test_FAB73_cold_damage_and_stress_every_face(cool_head):
    sheet = make_sheet(
        skills={"resistance": 1}, talents=["cool_head"] if cool_head else [], stress=2
    )
    for faces in product(FACES, repeat=2 + 2):  # 2 pool dice + 2 stress dice
        resolution = run(resolve_danger, danger_req(sheet, "cold"), d6(*faces))
        result = resolution.result
        failed = 1 in faces[2:] or 6 not in faces
        assert result["damage"] == (1 if failed else 0)
        effects = changes(resolution)
        if failed:
            gain = 0 if cool_head else 1
            assert result["stress_gained"] == gain
            assert (effects.get((PC, "stress")) == (2, 3, "FAB-73")) is (not cool_head)
            assert effects[(PC, "states")] == ([], ["epuise"], "FAB-73")
        else:
            assert "stress_gained" not in result and effects == {}


# --- FAB-67: repairs, FAB-71: reloads -------------------------------------------------------


def repair_req(mechanic: dict[str, Any], owner: dict[str, Any], **inputs: Any) -> Any:
    return {
        **clock(),
        "character": char(mechanic, ALLY, "pc"),
        "owner": char(owner),
        "attribute": inputs.get("attribute", "intellect"),
        "helpers": inputs.get("helpers", 0),
        "talents": inputs.get("talents", []),
        "modifiers": inputs.get("modifiers", []),
    }


@pytest.mark.parametrize("tinkerer", [False, True])
def test_FAB67_repair_every_face_restores_one_per_success_and_feat(tinkerer):
    mechanic = make_sheet(skills={"bricolage": 1}, talents=["tinkerer"] if tinkerer else [])
    owner = make_sheet(armor={"id": "primitive_vest", "value": 0})
    talents = ["tinkerer"] if tinkerer else []
    for faces in product(FACES, repeat=4 if tinkerer else 2):
        request = repair_req(mechanic, owner, talents=talents)
        resolution = run(resolve_repair, request, d6(*faces))
        if 6 in faces:
            value = min(3, sixes(faces))
            assert resolution.result["armor_value"] == value
            assert changes(resolution)[(PC, "armor")] == (
                {"id": "primitive_vest", "value": 0},
                {"id": "primitive_vest", "value": value},
                "FAB-67",
            )
        else:
            assert changes(resolution) == {}


def test_FAB67_repair_refusals():
    mechanic = make_sheet(skills={"bricolage": 1})
    refused(resolve_repair, repair_req(mechanic, make_sheet()), "FAB-67")
    whole = make_sheet(armor={"id": "leather_coat", "value": 1})
    refused(resolve_repair, repair_req(mechanic, whole), "FAB-67")


@pytest.mark.parametrize(
    ("weapon", "quick", "action"),
    [
        ("revolver", False, "fast"),
        ("revolver", True, "free"),
        ("repeating_rifle", False, "slow"),
        ("repeating_rifle", True, "slow"),
        ("crossbow", True, "slow"),
    ],
)
def test_FAB71_FAB90_reload_to_capacity_quick_reload_frees_light_weapons(weapon, quick, action):
    capacity = WEAPONS[weapon][5]
    assert capacity is not None
    for loaded in range(capacity):
        sheet = make_sheet(
            talents=["quick_reload"] if quick else [], weapons=[{"id": weapon, "ammo": loaded}]
        )
        request = {**clock(), "character": char(sheet), "weapon": weapon}
        resolution = run(resolve_reload, request)
        assert resolution.result == {"weapon": weapon, "ammo": capacity, "action": action}
        assert changes(resolution) == {
            (PC, "weapons"): (
                [{"id": weapon, "ammo": loaded}],
                [{"id": weapon, "ammo": capacity}],
                "FAB-71",
            )
        }


def test_FAB71_reload_refusals():
    full = make_sheet(weapons=[{"id": "revolver"}, {"id": "knife"}])
    refused(resolve_reload, {**clock(), "character": char(full), "weapon": "revolver"}, "FAB-71")
    for weapon in ("knife", "bare_hands", "shotgun"):
        request = {**clock(), "character": char(full), "weapon": weapon}
        refused(resolve_reload, request, None, InvalidInput)


# --- FAB-90: talents in combat ---------------------------------------------------------------


@pytest.mark.parametrize("weapon", sorted(w for w in WEAPONS if WEAPONS[w][5] is None))
@pytest.mark.parametrize("cogneur", [False, True])
def test_FAB90_cogneur_adds_one_damage_unarmed_or_blunt(weapon, cogneur):
    bonus = WEAPONS[weapon][0]
    attacker = make_sheet(
        {"physique": 2},
        {"combat": 1},
        talents=["cogneur"] if cogneur else [],
        weapons=[] if weapon == "bare_hands" else [{"id": weapon}],
    )
    pool = 3 + bonus
    request = attack_req(attacker, make_sheet(), "melee", weapon)
    result = run(resolve_attack, request, d6(6, *[2] * (pool - 1))).result
    expected = WEAPONS[weapon][1] + (1 if cogneur and weapon in BLUNT else 0)
    assert result["attacks"][0]["damage"] == expected


def test_FAB90_cogneur_does_not_touch_shots():
    attacker = attacker_sheet(talents=["cogneur"])
    result = run(resolve_attack, attack_req(attacker, make_sheet(), "ranged", "revolver"), d6(6, 2))
    assert result.result["attacks"][0]["damage"] == 2


@pytest.mark.parametrize("fine", [False, True])
def test_FAB90_fine_gachette_aims_plus_three_and_ignores_half_light(fine):
    attacker = make_sheet(
        {"habilete": 3},
        {"tir": 1},
        talents=["fine_gachette"] if fine else [],
        weapons=[{"id": "revolver"}],
    )
    for situation, aimed in product(
        [[], ["half_light"], ["half_light", "total_darkness"], ["medium_range"]], (False, True)
    ):
        request = attack_req(
            attacker, make_sheet(), "ranged", "revolver", situation=situation, aimed=aimed
        )
        factors = sum(RANGED[f] for f in situation if not (fine and f == "half_light"))
        aim = (3 if fine else 2) if aimed else 0
        pool = 3 + 1 + 2 + factors + aim
        result = run(resolve_attack, request, d6(*[2] * pool)).result
        sources = [m["source"] for m in attack_pool(result)["modifier_dice"]]
        assert attack_pool(result)["pool"] == pool
        assert ("half_light" in sources) is ("half_light" in situation and not fine)


def test_FAB90_snap_shot_minus_two_for_its_holder_on_a_shot_only():
    attacker = attacker_sheet(talents=["snap_shot"])
    attacker["attributes"]["habilete"] = 3
    request = attack_req(attacker, make_sheet(), "ranged", "revolver", snap_shot=True)
    result = run(resolve_attack, request, d6(2, 2, 2)).result
    assert {"source": "snap_shot", "dice": -2} in attack_pool(result)["modifier_dice"]
    assert attack_pool(result)["pool"] == 3
    refused(
        resolve_attack,
        attack_req(attacker_sheet(), make_sheet(), "ranged", "revolver", snap_shot=True),
        None,
        InvalidInput,
    )
    melee = attack_req(attacker, make_sheet(), "melee", "wrench", snap_shot=True)
    refused(resolve_attack, melee, None, InvalidInput)


@pytest.mark.parametrize("creature", [False, True])
@pytest.mark.parametrize("butcher", [False, True])
@pytest.mark.parametrize("mode", ["melee", "ranged"])
def test_FAB90_butcher_adds_two_to_sequelae_on_human_enemies(creature, butcher, mode):
    attacker = attacker_sheet(talents=["butcher"] if butcher else [])
    target = make_sheet(creature=creature, states=TRACKS["physical"])
    weapon, mod = ("wrench", 0) if mode == "melee" else ("revolver", 1)
    bonus = 2 if butcher and not creature else 0
    request = attack_req(attacker, target, mode, weapon, target_kind="pc", states="now")
    # 1 damage (wrench) or 2 (revolver): each on the full track is a sequela at once.
    draws = d6(6, 2) + d6(3, 3, 4) * (1 if mode == "melee" else 2)
    result = run(resolve_attack, request, draws).result
    assert all(landed["broken"] for landed in result["states_checked"])
    for landed in result["states_checked"]:
        assert landed["sequela"]["modifier"] == mod + bonus  # feats 0
        assert landed["sequela"]["score"] == 6 + mod + bonus


def test_FAB90_all_in_adds_a_die_to_a_melee_attack():
    attacker = make_sheet(talents=["all_in"], weapons=[{"id": "knife"}])
    request = attack_req(attacker, make_sheet(), "melee", "knife", talents=["all_in"])
    result = run(resolve_attack, request, d6(2, 2, 2)).result
    assert attack_pool(result)["talent_dice"] == [{"talent": "all_in", "dice": 1}]


def test_FAB90_second_wind_every_face_clears_a_physical_state_per_six():
    states = [*TRACKS["physical"], "enerve"]
    sheet = make_sheet(  # Physique 3 + Résistance 1 − Meurtri − Blessé: two dice
        {"physique": 3},
        skills={"resistance": 1},
        talents=["second_wind"],
        states=states,
        broken=True,
        broken_track="physical",
    )
    for faces in product(FACES, repeat=2):
        resolution = run(resolve_second_wind, {**clock(), "character": char(sheet)}, d6(*faces))
        effects = changes(resolution)
        assert effects[(PC, "second_wind_session")] == (None, SESSION, "FAB-90")
        if 6 in faces:
            cleared = ["blesse", "meurtri", "epuise"][: sixes(faces)]
            assert resolution.result["cleared"] == cleared
            assert effects[(PC, "states")][1] == [s for s in states if s not in cleared]
            assert effects[(PC, "broken")] == (True, False, "FAB-90")
            assert effects[(PC, "broken_track")] == ("physical", None, "FAB-90")
        else:
            assert set(effects) == {(PC, "second_wind_session")}


def test_FAB90_second_wind_once_per_session_when_broken_with_the_talent():
    broken = {"broken": True, "broken_track": "physical", "states": TRACKS["physical"]}
    used = make_sheet(talents=["second_wind"], second_wind_session=SESSION, **broken)
    refused(resolve_second_wind, {**clock(), "character": char(used)}, "FAB-90")
    whole = make_sheet(talents=["second_wind"])
    refused(resolve_second_wind, {**clock(), "character": char(whole)}, "FAB-90")
    untalented = make_sheet(**broken)
    refused(resolve_second_wind, {**clock(), "character": char(untalented)}, None, InvalidInput)
    earlier = make_sheet(
        {"physique": 3}, talents=["second_wind"], second_wind_session=SESSION - 1, **broken
    )
    result = run(resolve_second_wind, {**clock(), "character": char(earlier)}, d6(2)).result
    assert result["outcome"] == "failure"


def test_FAB90_second_wind_on_a_mental_break_clears_the_body_but_stays_broken():
    sheet = make_sheet(  # Physique 3 − Apeuré − Démoralisé: one die
        {"physique": 3},
        talents=["second_wind"],
        states=["epuise", *TRACKS["mental"]],
        broken=True,
        broken_track="mental",
    )
    resolution = run(resolve_second_wind, {**clock(), "character": char(sheet)}, d6(6))
    assert resolution.result["cleared"] == ["epuise"]
    assert (PC, "broken") not in changes(resolution)


def street_action(skill: str, faces: Any, stress: int = 0, talents: Any = ("street_rat",)):
    sheet = make_sheet({"habilete": 2, "physique": 2}, talents=list(talents), stress=stress)
    roll = {"attribute": SKILL_ATTR[skill], "skill": skill, "modifiers": [], "talents": []}
    request = {**clock(), "character": char(sheet), "roll": roll}
    result = run(resolve_action, request, d6(*faces)).result
    action = {"seq": 40, "kind": "fabulae.action", "request": request, "result": result}
    return sheet, action


SKILL_ATTR = {"furtivite": "habilete", "athletisme": "physique", "combat": "physique"}


@pytest.mark.parametrize("skill", ["furtivite", "athletisme"])
def test_FAB90_street_rat_rerolls_one_failed_die_every_face(skill):
    for first, second in product(FACES, FACES):
        sheet, action = street_action(skill, (first, second))
        for index, new in product((0, 1), FACES):
            old = (first, second)[index]
            request = {
                **clock(),
                "character": char(sheet),
                "action": action,
                "follow_ups": [],
                "die": index,
            }
            if old == 6:
                refused(resolve_street_rat, request, None, InvalidInput)
                continue
            result = run(resolve_street_rat, request, d6(new)).result
            faces = [first, second]
            faces[index] = new
            assert result["dice"] == faces and result["rerolled_die"] == index
            assert result["sixes"] == sixes(faces)
            assert result["outcome"] == ("success" if 6 in faces else "failure")


def test_FAB90_street_rat_refusals():
    sheet, action = street_action("furtivite", (2, 3))
    base = {**clock(), "character": char(sheet), "action": action, "follow_ups": [], "die": 0}
    refused(resolve_street_rat, {**base, "die": 2}, None, InvalidInput)
    again = [{"seq": 41, "kind": "fabulae.street_rat", "result": {}}]
    refused(resolve_street_rat, {**base, "follow_ups": again}, "FAB-90")
    pushed = [{"seq": 41, "kind": "fabulae.push", "result": {}}]
    refused(resolve_street_rat, {**base, "follow_ups": pushed}, "FAB-33")
    plain = make_sheet({"habilete": 2})
    refused(resolve_street_rat, {**base, "character": char(plain)}, None, InvalidInput)
    _, combat = street_action("combat", (2, 3))
    refused(resolve_street_rat, {**base, "action": combat}, "FAB-90")
    panic_sheet, panicked = street_action("furtivite", (2, 3, 1), stress=1)
    request = {**base, "character": char(panic_sheet), "action": panicked}
    refused(resolve_street_rat, request, "FAB-42")
    attack = {**action, "kind": "fabulae.attack"}
    refused(resolve_street_rat, {**base, "action": attack}, None, InvalidInput)


def test_FAB90_street_rat_keeps_the_stress_dice():
    sheet, action = street_action("furtivite", (2, 3, 6), stress=1)
    request = {**clock(), "character": char(sheet), "action": action, "follow_ups": [], "die": 1}
    result = run(resolve_street_rat, request, d6(4)).result
    assert result["dice"] == [2, 4] and result["stress_dice"] == [6]
    assert result["outcome"] == "success"


# --- FAB-100..102: powers ----------------------------------------------------------------------


def caster_sheet(*powers: str, pp: int = 3, pp_max: int = 5, **over: Any) -> dict[str, Any]:
    """Intellect 1 + Connaissance 1: the caster's roll is two dice."""
    return make_sheet(skills={"connaissance": 1}, powers=list(powers), pp=pp, pp_max=pp_max, **over)


@pytest.mark.parametrize("pp", [1, 2, 3])
def test_FAB100_each_pp_spent_adds_one_stress(pp):
    caster = caster_sheet("trance", "far_sight", stress=1)
    for power in ("trance", "far_sight"):
        resolution = run(resolve_power, power_req(caster, power, pp))
        result = resolution.result
        assert (result["pp"], result["stress_gained"]) == (pp, pp)
        effects = changes(resolution)
        assert effects[(PC, "pp")] == (3, 3 - pp, "FAB-100")
        assert effects[(PC, "stress")] == (1, 1 + pp, "FAB-100")
        assert result["applied"] is (power == "far_sight")


def test_FAB100_cool_head_does_not_lessen_the_casting_stress():
    caster = caster_sheet("trance", talents=["cool_head"])
    resolution = run(resolve_power, power_req(caster, "trance", 2))
    assert changes(resolution)[(PC, "stress")] == (0, 2, "FAB-100")


def test_FAB100_refusals_come_before_any_die():
    caster = caster_sheet("bolt", "summon", "beast_command", pp=2)
    target = char(make_sheet(), FOE, "npc")
    refused(resolve_power, power_req(caster, "bolt", 1, [target], allowed=False), "FAB-100")
    refused(resolve_power, power_req(caster, "fireball", 1, [target]), None, InvalidInput)
    refused(resolve_power, power_req(caster, "drain", 1, [target]), "FAB-100")
    refused(resolve_power, power_req(caster, "bolt", 3, [target]), "FAB-100")
    refused(resolve_power, power_req(caster, "summon", 2, option="minor"), None, InvalidInput)
    refused(resolve_power, power_req(caster, "summon", 2), None, InvalidInput)
    refused(
        resolve_power,
        power_req(caster, "beast_command", 1, option="mastiff"),
        None,
        InvalidInput,
    )
    refused(resolve_power, power_req(caster, "bolt", 1, []), None, InvalidInput)
    refused(resolve_power, power_req(caster, "bolt", 1, [target, target]), None, InvalidInput)
    rich = caster_sheet("summon", pp=5)
    refused(resolve_power, power_req(rich, "summon", 4, option="major"), None, InvalidInput)
    assert run(resolve_power, power_req(rich, "summon", 5, option="major")).result["pp"] == 5
    resize = caster_sheet("resize")
    refused(resolve_power, power_req(resize, "resize", 1), None, InvalidInput)


@pytest.mark.parametrize("armor", [None, {"id": "leather_coat", "value": 1}])
def test_FAB102_bolt_every_face_two_plus_feats_through_armor(armor):
    caster = caster_sheet("bolt")
    target = make_sheet(armor=armor)
    protect = 1 if armor else 0
    for faces in product(FACES, repeat=2):
        hit = 6 in faces
        armor_faces = list(product(FACES, repeat=protect)) if hit else [()]
        for armor_roll in armor_faces:
            request = power_req(caster, "bolt", 1, [char(target, FOE, "npc")])
            resolution = run(resolve_power, request, d6(*faces, *armor_roll))
            result = resolution.result
            assert result["roll"]["dice"] == list(faces)
            if not hit:
                assert result["targets"] == {}
                assert (FOE, "states") not in changes(resolution)
                continue
            damage = 2 + sixes(faces) - 1
            through = damage - min(damage, sixes(armor_roll))
            hurt = result["targets"][FOE]
            assert (hurt["damage"], hurt["through"]) == (damage, through)
            states = TRACKS["physical"][:through]
            assert changes(resolution).get((FOE, "states"), (None, []))[1] == states


def test_FAB102_bolt_on_a_player_character_waits_for_the_player():
    caster = caster_sheet("bolt")
    request = power_req(caster, "bolt", 1, [char(make_sheet(), FOE, "pc")])
    result = run(resolve_power, request, d6(6, 2)).result
    assert (
        result["targets"][FOE]["pending_states"]
        == [
            {
                "rule": "FAB-102",
                "track": "physical",
                "sequela": {"weapon_mod": 0, "feats": 0, "butcher": False},
            }
        ]
        * 2
    )


def test_FAB102_a_power_threat_on_a_player_is_settled_like_an_attack():
    caster = caster_sheet("hazard_zone")
    target = make_sheet()
    request = power_req(caster, "hazard_zone", 1, [char(target, FOE, "pc")])
    threat = run(resolve_power, request).result
    pending = threat["targets"][FOE]["pending_states"]
    assert len(pending) == 2
    # The service hands the engine the threats on that one target (services/fabulae._settle).
    choice = threat_req(char(target, FOE, "pc"), {"pending_states": pending}, state=None)
    resolution = run(resolve_state_choice, choice)
    assert changes(resolution) == {(FOE, "states"): ([], ["epuise"], "FAB-102")}


def test_FAB102_fire_cone_every_face_halved_on_athletisme_success():
    caster = caster_sheet("fire_cone")
    first = make_sheet(skills={"athletisme": 1})
    second = make_sheet(skills={"athletisme": 1}, armor={"id": "leather_coat", "value": 1})
    targets = [char(first, FOE, "npc"), char(second, ALLY, "npc")]
    for save1, save2, armor_die in product(
        product(FACES, repeat=2), product(FACES, repeat=2), (1, 6)
    ):
        request = power_req(caster, "fire_cone", 1, targets)
        resolution = run(resolve_power, request, d6(*save1, *save2, armor_die))
        hits = resolution.result["targets"]
        for target_id, save, armor_roll in ((FOE, save1, ()), (ALLY, save2, (armor_die,))):
            damage = 1 if 6 in save else 2
            through = damage - min(damage, sixes(armor_roll))
            assert hits[target_id]["damage"] == damage
            assert hits[target_id]["through"] == through
            assert hits[target_id]["save"]["pool"]["skill"] == 1


def test_FAB102_blast_every_face_two_damage_and_meurtri_on_a_failed_resistance():
    caster = caster_sheet("blast")
    target = make_sheet(skills={"resistance": 1}, armor={"id": "guard_mail", "value": 2})
    for save, armor_roll in product(product(FACES, repeat=2), product(FACES, repeat=2)):
        request = power_req(caster, "blast", 1, [char(target, FOE, "npc")])
        resolution = run(resolve_power, request, d6(*save, *armor_roll))
        hurt = resolution.result["targets"][FOE]
        through = 2 - min(2, sixes(armor_roll))
        failed = 6 not in save
        assert hurt["damage"] == 2 and hurt["through"] == through
        landed = TRACKS["physical"][:through]
        if failed:
            # Meurtri already checked by the damage: the track's next box instead (FAB-22).
            extra = "meurtri" if "meurtri" not in landed else TRACKS["physical"][through]
            landed = [*landed, extra]
        assert hurt.get("meurtri", False) is failed
        assert changes(resolution).get((FOE, "states"), (None, []))[1] == landed


@pytest.mark.parametrize(
    ("states", "save", "expected"), [([], (2, 2), "meurtri"), (["meurtri"], (2,), "epuise")]
)
def test_FAB102_FAB34_a_blast_meurtri_on_a_player_waits_to_be_settled(states, save, expected):
    caster = caster_sheet("blast")
    target = make_sheet(
        skills={"resistance": 1}, states=states, armor={"id": "guard_mail", "value": 2}
    )
    request = power_req(caster, "blast", 1, [char(target, FOE, "pc")])
    # Résistance fails (no six; Meurtri costs a die); the armour's two sixes stop both damage.
    resolution = run(resolve_power, request, d6(*save, 6, 6))
    hurt = resolution.result["targets"][FOE]
    assert hurt["through"] == 0 and hurt["meurtri"] is True
    assert (FOE, "states") not in changes(resolution)  # nothing lands before the player answers
    assert [t["state"] for t in hurt["pending_states"]] == ["meurtri"]
    choice = threat_req(char(target, FOE, "pc"), {"pending_states": hurt["pending_states"]})
    settled = run(resolve_state_choice, choice)
    # Already Meurtri: the blast checks the physical track's next free box (FAB-22).
    assert settled.result["state"] == expected
    assert changes(settled) == {(FOE, "states"): (states, [*states, expected], "FAB-102")}


def test_FAB102_hazard_zone_two_net_damage_without_dice():
    caster = caster_sheet("hazard_zone")
    armored = make_sheet(armor={"id": "factory_plate", "value": 4})
    targets = [char(armored, FOE, "npc"), char(make_sheet(), ALLY, "pc")]
    resolution = run(resolve_power, power_req(caster, "hazard_zone", 1, targets))
    hits = resolution.result["targets"]
    assert hits[FOE]["through"] == 2 and hits[FOE]["protection"] is None
    assert changes(resolution)[(FOE, "states")] == ([], ["epuise", "meurtri"], "FAB-102")
    assert len(hits[ALLY]["pending_states"]) == 2


@pytest.mark.parametrize(
    ("power", "option", "expected"),
    [
        ("barrier", None, {"armor": 2}),
        ("deflection", None, {"attacks_against": -2}),
        ("invisibility", None, {"attacks_against": -3, "skills": {"furtivite": 3}}),
        ("far_sight", None, {"skills": {"observation": 2}}),
        ("tongues", None, {"skills": {"connaissance": 1}}),
        ("wall_walk", None, {"skills": {"athletisme": 2}}),
        ("resize", "grow", {"attributes": {"physique": 1}, "melee_damage": 1}),
        ("resize", "shrink", {"attributes": {"physique": -1}, "skills": {"furtivite": 1}}),
    ],
)
def test_FAB102_active_effects_on_the_target(power, option, expected):
    caster = caster_sheet(power)
    target = make_sheet()
    resolution = run(
        resolve_power, power_req(caster, power, 1, [char(target, FOE, "npc")], option=option)
    )
    entry = {
        "source": power,
        "caster_id": PC,
        "scene": SCENE,
        "armor": 0,
        "attacks_against": 0,
        "all_rolls": 0,
        "skills": {},
        "attributes": {},
        "melee_damage": 0,
        "net_damage": 0,
        "note": "",
        **expected,
    }
    assert changes(resolution)[(FOE, "active_effects")] == ([], [entry], "FAB-102")
    assert resolution.result["applied"] is True
    # The effect validates on a sheet and changes the bearer's pools.
    bearer = make_sheet(active_effects=[entry])
    skill = next(iter(expected.get("skills", {})), None)
    if skill:
        attribute = {
            "furtivite": "habilete",
            "observation": "intellect",
            "connaissance": "intellect",
            "athletisme": "physique",
        }[skill]
        pool = pool_of(char(bearer), {"attribute": attribute, "skill": skill}, SESSION)
        change = expected["skills"][skill] + expected.get("attributes", {}).get(attribute, 0)
        assert pool["situation"] == change


def test_FAB102_resize_with_no_target_lands_on_the_caster_and_adds_melee_damage():
    caster = caster_sheet("resize", weapons=[{"id": "knife"}])
    resolution = run(resolve_power, power_req(caster, "resize", 1, option="grow"))
    grown = changes(resolution)[(PC, "active_effects")][1]
    assert changes(resolution)[(PC, "active_effects")][2] == "FAB-100"
    attacker = make_sheet(weapons=[{"id": "knife"}], active_effects=grown)
    request = attack_req(attacker, make_sheet(), "melee", "knife")
    result = run(resolve_attack, request, d6(6, 2, 2)).result  # physique 1 + 1 grow + knife 1
    assert attack_pool(result)["situation_dice"] == [{"source": "power resize", "dice": 1}]
    assert result["attacks"][0]["damage"] == 3


@pytest.mark.parametrize("power", ["light_dark", "silence_noise"])
def test_FAB102_light_dark_and_silence_every_face(power):
    caster = caster_sheet(power)
    for faces in product(FACES, repeat=2):
        request = power_req(caster, power, 1, [char(make_sheet(), FOE, "npc")])
        resolution = run(resolve_power, request, d6(*faces))
        malus = -4 if sixes(faces) >= 2 else -2
        assert resolution.result["malus"] == malus
        entry = changes(resolution)[(FOE, "active_effects")][1][0]
        assert entry["skills"] == {"observation": malus}


@pytest.mark.parametrize("target_pp", [0, 1, 2, 5])
def test_FAB102_drain_every_face_steals_1D3_on_an_opposed_success(target_pp):
    caster = caster_sheet("drain", pp=3, pp_max=4)
    victim = make_sheet(pp=target_pp, pp_max=5)
    for faces in product(FACES, repeat=3):
        won = sixes(faces[:2]) > sixes(faces[2:])
        d3_faces = (1, 2, 3) if won else (None,)
        for d3 in d3_faces:
            draws = d6(*faces) + (d(3, d3) if d3 else [])
            request = power_req(caster, "drain", 1, [char(victim, FOE, "npc")])
            resolution = run(resolve_power, request, draws)
            effects = changes(resolution)
            if not won:
                assert "stolen" not in resolution.result
                assert (FOE, "pp") not in effects
                assert effects[(PC, "pp")] == (3, 2, "FAB-100")
                continue
            stolen = min(d3, target_pp)
            assert resolution.result["stolen"] == stolen
            if stolen:
                assert effects[(FOE, "pp")] == (target_pp, target_pp - stolen, "FAB-102")
            caster_after = min(4, 2 + stolen)
            assert effects.get((PC, "pp"), (3, 3, "FAB-100")) == (3, caster_after, "FAB-100")


def test_FAB102_calm_clears_fear_gloom_exhaustion_and_all_stress():
    caster = caster_sheet("calm")
    states = ["epuise", "meurtri", "enerve", "apeure", "demoralise"]
    target = make_sheet(states=states, stress=4)
    resolution = run(resolve_power, power_req(caster, "calm", 1, [char(target, FOE, "npc")]))
    effects = changes(resolution)
    assert effects[(FOE, "states")] == (states, ["meurtri", "enerve"], "FAB-102")
    assert effects[(FOE, "stress")] == (4, 0, "FAB-102")


def test_FAB102_calm_on_oneself_clears_the_casting_stress_too():
    caster = caster_sheet("calm", stress=2, states=["apeure"])
    resolution = run(resolve_power, power_req(caster, "calm", 2, [char(caster)]))
    effects = changes(resolution)
    assert effects[(PC, "stress")] == (2, 0, "FAB-100")
    assert effects[(PC, "states")] == (["apeure"], [], "FAB-100")


def test_FAB102_horror_lists_panic_rolls_for_its_targets():
    caster = caster_sheet("horror")
    targets = [char(make_sheet(), FOE, "npc"), char(make_sheet(), ALLY, "pc")]
    resolution = run(resolve_power, power_req(caster, "horror", 1, targets))
    assert resolution.result["must_roll_panic"] == {"characters": [FOE, ALLY], "modifier": -1}


def test_FAB102_wall_records_its_metres():
    caster = caster_sheet("wall", pp=3)
    result = run(resolve_power, power_req(caster, "wall", 3)).result
    assert result["wall"] == {"metres": 3, "armor": 4, "breaks_at_net_damage": 3}


@pytest.mark.parametrize(
    ("power", "option", "pp"),
    [
        ("beast_command", "mastiff", 2),
        ("teleport", "medium", 4),
        ("summon", "minor", 3),
        ("trance", None, 1),
    ],
)
def test_FAB101_narrated_powers_record_their_cost(power, option, pp):
    caster = caster_sheet(power, pp=pp)
    resolution = run(resolve_power, power_req(caster, power, pp, option=option))
    assert resolution.result["applied"] is False
    assert set(changes(resolution)) == {(PC, "pp"), (PC, "stress")}


def test_FAB102_recharges_clear_every_active_effect_at_scene_start():
    barrier = {"source": "barrier", "armor": 2}
    request = {
        "family": "fabulae",
        "session": SESSION,
        "scene": SCENE + 1,
        "characters": [
            {"character_id": PC, "kind": "pc", "sheet": {"active_effects": [barrier]}},
            {"character_id": FOE, "kind": "npc", "sheet": {"active_effects": []}},
            {"character_id": ALLY, "kind": "npc", "sheet": {}},
        ],
    }
    expected = [
        {
            "character_id": PC,
            "field": "active_effects",
            "before": [barrier],
            "after": [],
            "rule": "FAB-102",
        }
    ]
    assert recharges(request) == expected
    resolution = run(resolve_clock, request)
    assert resolution.result == {"session": SESSION, "scene": SCENE + 1}
    assert resolution.effects == expected


def test_FAB102_the_gm_ends_an_effect():
    effects = [
        {"source": "barrier", "armor": 2},
        {"source": "deflection", "attacks_against": -2},
    ]
    sheet = make_sheet(active_effects=effects)
    request = {**clock(), "character": char(sheet), "source": "barrier"}
    resolution = run(resolve_end_effect, request)
    before, after, rule = changes(resolution)[(PC, "active_effects")]
    assert [e["source"] for e in before] == ["barrier", "deflection"]
    assert [e["source"] for e in after] == ["deflection"] and rule == "FAB-102"
    refused(resolve_end_effect, {**request, "source": "invisibility"}, "FAB-102")


# --- every resolver refuses a foreign system first ------------------------------------------


@pytest.mark.parametrize(
    "resolver",
    [
        resolve_attack,
        resolve_grapple,
        resolve_break_free,
        resolve_strangle,
        resolve_sequela,
        resolve_death_test,
        resolve_stabilize,
        resolve_danger,
        resolve_repair,
        resolve_reload,
        resolve_second_wind,
        resolve_end_effect,
        resolve_street_rat,
        resolve_state_choice,
        resolve_power,
    ],
)
def test_a_fabulae_rule_refuses_another_system(resolver):
    refused(resolver, {"system": "vampire", "session": 1, "scene": 1}, None, InvalidInput)


def test_roll_sequela_reports_and_records_on_the_body():
    body = Body(char(make_sheet()))
    source = ReplayDice(d6(6, 6))  # 12 + 3 feats + 2 butcher = 17: impaled, no duration
    rolled = roll_sequela(body, "physical", source, {"weapon_mod": 0, "feats": 3, "butcher": True})
    source.assert_consumed()
    assert rolled["code"] == "impaled" and rolled["score"] == 17
    assert rolled["duration"] == "mortal"
    assert body.sheet["sequelae"][0]["delay"] == "immediate"
    assert body.sheet["sequelae"][0]["lethal"] is True
