"""JDR Express engine (jdr-express.md, JDR-1..43), tested exhaustively: every face combination.

Requests are built the way app/services/jdr.py builds them (clock + character snapshot +
inputs); dice come from ReplayDice and every test checks the exact number of dice drawn.
The tables (JDR-11 tiers, JDR-33 wounds) are written here independently of the engine.
"""

from __future__ import annotations

import copy
from itertools import product
from typing import Any

import pytest

from app.engine.dice import ReplayDice
from app.engine.errors import InvalidInput, RuleRefusal
from app.engine.jdr.rules import (
    defense_of,
    on_sheet_edit,
    recharges,
    resolve_action,
    resolve_attack,
    resolve_context,
    resolve_effleurement,
    resolve_effleurement_refusal,
    resolve_holy_water,
    resolve_initiative,
    resolve_joker,
    resolve_medical_care,
    resolve_mythos,
    resolve_penance,
    resolve_sacrifice,
    resolve_talisman,
    resolve_talisman_ruling,
    roll_2d6,
    severity_of,
    tier_of,
)
from app.engine.jdr.sheet import JdrCthulhuSheet, JdrDraculaSheet

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


def run(resolver: Any, request: dict[str, Any], faces: Any = ()) -> Any:
    """Resolve, and check that exactly the given dice were drawn."""
    source = dice(faces)
    resolution = resolver(request, source)
    source.assert_consumed()
    return resolution


def refused(resolver: Any, request: dict[str, Any], rule: str, error: Any = RuleRefusal) -> None:
    """The rule refuses, naming `rule`, before drawing any die."""
    source = dice([6] * 6)
    with pytest.raises(error) as caught:
        resolver(request, source)
    assert caught.value.rule == rule
    assert source.draws == []


def rolled(request: dict[str, Any], faces: Any, seq: int = ACTION_SEQ) -> dict[str, Any]:
    """The action entry a follow-up reads: {seq, kind, request, result}."""
    resolution = run(resolve_action, request, faces)
    return {"seq": seq, "kind": "jdr.action", "request": request, "result": resolution.result}


def follow(kind: str, result: dict[str, Any], seq: int) -> dict[str, Any]:
    """A follow-up as load_follow_ups records it."""
    return {"seq": seq, "kind": kind, "result": result}


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


# --- JDR-10/JDR-11: action total and tiers ---------------------------------------------


def test_JDR_11_tier_of_matches_the_table_on_every_total() -> None:
    for total in range(-20, 40):
        assert tier_of(total) == expected_tier(total)[0], total


@pytest.mark.parametrize("system", [D, C])
@pytest.mark.parametrize("trait", TRAITS)
def test_JDR_10_JDR_11_action_total_and_tier_every_face_trait_bonus_modifier(
    system: str, trait: str
) -> None:
    for value, bonus in product(range(6), range(4)):
        # The other traits hold different values, so reading the wrong trait shows.
        traits = {name: (value if name == trait else 5 - value) for name in TRAITS}
        talents = [{"name": f"Talent {b}", "bonus": b} for b in (1, 2, 3)]
        sheet = sheet_for(system, traits=traits, talents=talents)
        talent = f"Talent {bonus}" if bonus else None
        for faces, modifier in product(FACES2, range(-5, 6)):
            request = action_req(system, sheet, trait=trait, talent=talent, modifier=modifier)
            resolution = run(resolve_action, request, faces)
            result = resolution.result
            total = sum(faces) + value + bonus + modifier
            code, label = expected_tier(total)
            assert (result["total"], result["tier"], result["label"]) == (total, code, label)
            assert result["mode"] == "normal"
            assert result["dice"] == list(faces) and result["kept"] == [True, True]
            assert (result["trait_value"], result["talent_bonus"]) == (value, bonus)
            assert result["auto_disadvantage"] == [] and "success" not in result
            assert resolution.effects == []


def test_JDR_10_unknown_talent_or_trait_is_invalid_input() -> None:
    refused(resolve_action, action_req(D, dracula_sheet(), talent="Nage"), None, InvalidInput)
    refused(resolve_action, action_req(D, dracula_sheet(), trait="chance"), None, InvalidInput)
    refused(resolve_action, action_req("vampire", dracula_sheet()), None, InvalidInput)


def test_JDR_31a_no_talent_bonus_flag_drops_the_talent() -> None:
    request = action_req(D, dracula_sheet(), talent="Escrime")
    assert run(resolve_action, request, (3, 3)).result["talent_bonus"] == 2
    request["no_talent_bonus"] = True
    result = run(resolve_action, request, (3, 3)).result
    assert (result["talent_bonus"], result["total"]) == (0, 9)


# --- JDR-12: advantage and disadvantage --------------------------------------------------


@pytest.mark.parametrize("mode", ["advantage", "disadvantage"])
def test_JDR_12_three_dice_keep_two_every_face_combination(mode: str) -> None:
    sheet = dracula_sheet()
    for faces in FACES3:
        request = action_req(D, sheet, **{mode: True})
        result = run(resolve_action, request, faces).result
        kept = expected_kept(faces, mode)
        assert result["mode"] == mode and result["dice"] == list(faces)
        assert result["kept"] == kept and sum(result["kept"]) == 2
        kept_faces = sorted(faces, reverse=mode == "advantage")[:2]
        assert sum(f for f, k in zip(faces, kept, strict=True) if k) == sum(kept_faces)
        total = sum(kept_faces) + 3
        assert (result["total"], result["tier"]) == (total, expected_tier(total)[0])


def test_JDR_12_roll_2d6_both_cancel_to_two_dice_every_face_combination() -> None:
    for faces in FACES2:
        source = dice(faces)
        roll = roll_2d6(source, advantage=True, disadvantage=True)
        source.assert_consumed()
        assert roll == {
            "mode": "normal",
            "dice": list(faces),
            "kept": [True, True],
            "kept_sum": sum(faces),
        }
        result = run(
            resolve_action, action_req(C, cthulhu_sheet(), advantage=True, disadvantage=True), faces
        ).result
        assert result["mode"] == "normal" and result["total"] == sum(faces) + 3


# --- JDR-13: difficulty -----------------------------------------------------------------


def test_JDR_13_difficulty_success_iff_total_reaches_it_and_exceeds_five() -> None:
    for value, modifier, faces in product(range(6), (-5, 0, 5), FACES2):
        sheet = cthulhu_sheet(traits={"mental": value, "physique": 0, "social": 0})
        for difficulty in range(0, 20):
            request = action_req(C, sheet, trait="mental", modifier=modifier, difficulty=difficulty)
            result = run(resolve_action, request, faces).result
            total = sum(faces) + value + modifier
            assert result["difficulty"] == difficulty
            assert result["success"] is (total >= difficulty and total > 5), (total, difficulty)
            assert result["tier"] == expected_tier(total)[0]


# --- JDR-3/JDR-33: serious wounds, JDR-24: shaken faith -----------------------------------

SERIOUS = {"severity": "serious", "note": "morsure", "cared": False}


def burdened_requests() -> list[tuple[str, Any, dict[str, Any], list[str]]]:
    """(case, resolver, request, expected auto_disadvantage) for every automatic burden."""
    wounded_d = dracula_sheet(wounds=[SERIOUS])
    shaken = dracula_sheet(talisman="cracked", faith_shaken={"cracked_scene": SCENE - 1})
    both = dracula_sheet(
        talisman="cracked", faith_shaken={"cracked_scene": SCENE - 1}, wounds=[SERIOUS]
    )
    count = dracula_sheet(tags=["vampire", "undead"])
    target = {"name": "Sabre", "bonus": 0, "damage_bonus": 0, "tags": []}

    def attack(attacker: dict[str, Any]) -> dict[str, Any]:
        return attack_req(D, attacker, count, weapon=target)

    return [
        ("action-wound-D", resolve_action, action_req(D, wounded_d), ["serious_wound"]),
        (
            "action-wound-C",
            resolve_action,
            action_req(C, cthulhu_sheet(wounds=[SERIOUS])),
            ["serious_wound"],
        ),
        (
            "mythos-wound",
            resolve_mythos,
            mythos_req(cthulhu_sheet(wounds=[SERIOUS]), 9),
            ["serious_wound"],
        ),
        ("attack-wound", resolve_attack, attack(wounded_d), ["serious_wound"]),
        (
            "action-shaken",
            resolve_action,
            action_req(D, shaken, supernatural=True, protection=True),
            ["faith_shaken"],
        ),
        ("attack-shaken", resolve_attack, attack(shaken), ["faith_shaken"]),
        (
            "action-both",
            resolve_action,
            action_req(D, both, supernatural=True, protection=True),
            ["serious_wound", "faith_shaken"],
        ),
    ]


@pytest.mark.parametrize(
    ("resolver", "request_", "burdens"),
    [case[1:] for case in burdened_requests()],
    ids=[case[0] for case in burdened_requests()],
)
def test_JDR_3_JDR_24_JDR_33_automatic_disadvantage_keeps_lowest_every_face(
    resolver: Any, request_: dict[str, Any], burdens: list[str]
) -> None:
    for faces in FACES3:
        result = run(resolver, request_, faces).result
        assert result["mode"] == "disadvantage" and result["dice"] == list(faces)
        assert result["kept"] == expected_kept(faces, "disadvantage")
        assert result["auto_disadvantage"] == burdens
    # Advantage and the burden cancel: two dice only, the burden still shown.
    request_ = {**request_, "advantage": True}
    for faces in FACES2:
        result = run(resolver, request_, faces).result
        assert result["mode"] == "normal" and result["kept"] == [True, True]
        assert result["auto_disadvantage"] == burdens


@pytest.mark.parametrize(
    "wounds",
    [
        [],
        [{"severity": "light", "note": "", "cared": False}],
        [{**SERIOUS, "cared": True}],
        [{"severity": "light", "note": "", "cared": False}, {**SERIOUS, "cared": True}],
    ],
    ids=["none", "light", "serious-cared", "light+serious-cared"],
)
def test_JDR_3_cared_or_light_wounds_roll_two_dice(wounds: list[dict[str, Any]]) -> None:
    for faces in FACES2:
        result = run(resolve_action, action_req(D, dracula_sheet(wounds=wounds)), faces).result
        assert result["mode"] == "normal" and result["auto_disadvantage"] == []
        assert result["total"] == sum(faces) + 3


def test_JDR_3_medical_care_lifts_the_serious_wound_disadvantage() -> None:
    light = {"severity": "light", "note": "", "cared": False}
    sheet = dracula_sheet(wounds=[light, SERIOUS, SERIOUS])
    care = {**clock(D), "character": char(sheet), "description": "Van Helsing recoud"}
    resolution = run(resolve_medical_care, care)
    cared = [light, {**SERIOUS, "cared": True}, {**SERIOUS, "cared": True}]
    assert resolution.result["cared"] == 2
    assert resolution.effects == [eff("wounds", sheet["wounds"], cared, "JDR-3")]
    healed = apply(sheet, resolution.effects)
    assert run(resolve_action, action_req(D, healed), (2, 5)).result["mode"] == "normal"
    refused(resolve_medical_care, {**care, "character": char(healed)}, "JDR-3")


def shaken_sheet(confrontation: int | None = None) -> dict[str, Any]:
    shaken = {"cracked_scene": 3, "confrontation_scene": confrontation}
    return dracula_sheet(talisman="cracked", faith_shaken=shaken)


@pytest.mark.parametrize(
    ("confrontation", "scene", "context", "applies"),
    [
        (None, 3, {"supernatural": True, "protection": True}, False),  # the crack's own scene
        (None, 2, {"supernatural": True, "protection": True}, False),
        (None, 4, {"supernatural": True, "protection": True}, True),
        (None, 9, {"supernatural": True, "protection": True}, True),
        (None, 4, {"supernatural": False, "protection": True}, False),
        (None, 4, {"supernatural": True, "protection": False}, False),
        (None, 4, {"supernatural": True, "direct_peril": True}, False),
        (4, 4, {"supernatural": True, "protection": True}, True),  # same confrontation
        (4, 5, {"supernatural": True, "protection": True}, False),  # later scenes are free
        (4, 9, {"supernatural": True, "protection": True}, False),
    ],
)
def test_JDR_24_faith_shaken_protection_roll(
    confrontation: int | None, scene: int, context: dict[str, Any], applies: bool
) -> None:
    sheet = shaken_sheet(confrontation)
    request = action_req(D, sheet, scene=scene, **context)
    resolution = run(resolve_action, request, (5, 2, 4) if applies else (5, 2))
    result = resolution.result
    assert result["mode"] == ("disadvantage" if applies else "normal")
    assert result["auto_disadvantage"] == (["faith_shaken"] if applies else [])
    if applies and confrontation is None:
        after = {"cracked_scene": 3, "confrontation_scene": scene}
        assert resolution.effects == [eff("faith_shaken", sheet["faith_shaken"], after, "JDR-24")]
    else:
        assert resolution.effects == []


@pytest.mark.parametrize(
    ("confrontation", "scene", "tags", "supernatural", "applies"),
    [
        (None, 3, ["vampire"], False, False),
        (None, 4, ["vampire"], False, True),
        (None, 4, ["werewolf"], False, True),
        (None, 4, [], True, True),
        (None, 4, [], False, False),
        (4, 4, ["possessed"], False, True),
        (4, 5, ["vampire"], True, False),
    ],
)
def test_JDR_24_faith_shaken_attack_against_the_supernatural(
    confrontation: int | None, scene: int, tags: list[str], supernatural: bool, applies: bool
) -> None:
    sheet = shaken_sheet(confrontation)
    target = dracula_sheet(tags=tags)
    request = attack_req(D, sheet, target, supernatural=supernatural, scene=scene)
    resolution = run(resolve_attack, request, (1, 1, 1) if applies else (1, 1))
    assert resolution.result["auto_disadvantage"] == (["faith_shaken"] if applies else [])
    shaken_effects = [e for e in resolution.effects if e["field"] == "faith_shaken"]
    if applies and confrontation is None:
        after = {"cracked_scene": 3, "confrontation_scene": scene}
        assert shaken_effects == [eff("faith_shaken", sheet["faith_shaken"], after, "JDR-24")]
    else:
        assert shaken_effects == []


def test_JDR_24_confrontation_scene_carries_over_within_it_then_frees() -> None:
    sheet = shaken_sheet()
    first = run(
        resolve_action, action_req(D, sheet, scene=4, supernatural=True, protection=True), (6, 6, 1)
    )
    assert first.result["kept"] == [True, False, True]  # ties: the later 6 is dropped
    sheet = apply(sheet, first.effects)
    again = run(
        resolve_attack, attack_req(D, sheet, dracula_sheet(tags=["vampire"]), scene=4), (2, 2, 2)
    )
    assert again.result["auto_disadvantage"] == ["faith_shaken"]
    assert [e for e in again.effects if e["field"] == "faith_shaken"] == []
    later = run(
        resolve_action, action_req(D, sheet, scene=5, supernatural=True, protection=True), (6, 6)
    )
    assert later.result["mode"] == "normal" and later.effects == []


# --- JDR-30/32/33/36/37: combat -------------------------------------------------------


# (traits, defense_bonus) → Defense 0, 6, 9, 15, 20.
DEFENSES = [((0, 0, 0), 0), ((2, 2, 1), 1), ((3, 2, 2), 2), ((5, 5, 2), 3), ((5, 5, 5), 5)]


def test_JDR_2_JDR_30_defense_is_the_three_traits_plus_equipment() -> None:
    for m, p, s, bonus in product(range(6), range(6), range(6), range(6)):
        traits = {"mental": m, "physique": p, "social": s}
        assert defense_of(dracula_sheet(traits=traits, defense_bonus=bonus)) == m + p + s + bonus


def test_JDR_33_severity_of_every_margin() -> None:
    for margin in range(-30, 40):
        assert severity_of(margin) == expected_severity(margin), margin


@pytest.mark.parametrize("system", [D, C])
def test_JDR_30_JDR_32_JDR_33_attack_margin_and_wound_every_face(system: str) -> None:
    old_wound = {"severity": "light", "note": "ancienne", "cared": False}
    labels = {
        "light": "Blessure légère",
        "serious": "Blessure grave",
        "critical": "Blessure critique",
        None: "Raté",
    }
    for (traits, bonus), physique, (w_bonus, w_damage) in product(
        DEFENSES, range(6), [(0, 0), (1, 0), (0, 1), (2, 2)]
    ):
        target = sheet_for(
            system,
            traits=dict(zip(TRAITS, traits, strict=True)),
            defense_bonus=bonus,
            wounds=[old_wound],
        )
        attacker = sheet_for(system, traits={"mental": 5, "physique": physique, "social": 5})
        arm = make_weapon(bonus=w_bonus, damage=w_damage)
        defense = sum(traits) + bonus
        for faces in FACES2:
            resolution = run(
                resolve_attack, attack_req(system, attacker, target, weapon=arm), faces
            )
            result = resolution.result
            total = sum(faces) + physique + w_bonus + w_damage
            margin = total - defense
            severity = expected_severity(margin)
            assert (result["total"], result["defense"], result["margin"]) == (
                total,
                defense,
                margin,
            )
            assert result["severity"] == severity and result["hit"] is (margin > 0)
            assert result["label"] == labels[severity]
            assert (result["physique"], result["weapon_bonus"]) == (physique, w_bonus)
            assert result["damage_steps"] == w_damage and result["creature_bonuses"] == []
            if severity is None:
                assert resolution.effects == []
            else:
                wound = {
                    "severity": severity,
                    "note": f"Sabre de cavalerie, marge {margin}",
                    "cared": False,
                }
                assert resolution.effects == [
                    eff("wounds", [old_wound], [old_wound, wound], "JDR-33", cid=NPC)
                ]


@pytest.mark.parametrize("w_tags", [[], ["ash_stake"], ["silver"], ["ash_stake", "silver"]])
@pytest.mark.parametrize(
    "t_tags",
    [[], ["vampire"], ["undead"], ["werewolf"], ["possessed"], ["creature"], ["vampire", "undead"]],
)
def test_JDR_36_JDR_37_creature_bonuses_dracula(w_tags: list[str], t_tags: list[str]) -> None:
    expected = []
    if "ash_stake" in w_tags and {"vampire", "undead"} & set(t_tags):
        expected.append({"rule": "JDR-36", "steps": 1})
    if "silver" in w_tags and t_tags:
        expected.append({"rule": "JDR-37", "steps": 1})
    steps = 1 + sum(b["steps"] for b in expected)  # the weapon's own +1 damage step
    target = dracula_sheet(tags=t_tags)
    for faces in FACES2:
        request = attack_req(D, dracula_sheet(), target, weapon=make_weapon(damage=1, tags=w_tags))
        result = run(resolve_attack, request, faces).result
        assert result["creature_bonuses"] == expected
        assert result["damage_steps"] == steps
        assert result["total"] == sum(faces) + 3 + steps
        assert result["margin"] == result["total"] - defense_of(target)


def test_JDR_37_no_silver_or_stake_bonus_in_cthulhu() -> None:
    target = cthulhu_sheet(tags=["creature", "undead"])
    arm = make_weapon(tags=["silver", "ash_stake"])
    result = run(resolve_attack, attack_req(C, cthulhu_sheet(), target, weapon=arm), (3, 3)).result
    assert result["creature_bonuses"] == [] and result["total"] == 9


@pytest.mark.parametrize("physique", range(6))
@pytest.mark.parametrize("defense", [0, 20])
def test_JDR_36_sleeping_vampire_staked_with_success_is_destroyed_every_face(
    physique: int, defense: int
) -> None:
    attacker = dracula_sheet(traits={"mental": 0, "physique": physique, "social": 0})
    target = dracula_sheet(
        tags=["vampire", "undead"],
        traits={name: defense // 4 for name in TRAITS},
        defense_bonus=defense // 4,
    )
    stake = make_weapon(name="Pieu de frêne", tags=["ash_stake"])
    for faces in FACES2:
        resolution = run(
            resolve_attack, attack_req(D, attacker, target, weapon=stake, sleeping=True), faces
        )
        total = sum(faces) + physique + 1  # JDR-36: +1 against the undead
        result = resolution.result
        assert (result["total"], result["margin"]) == (total, total - defense)
        if expected_tier(total)[0] in ("success", "critical_success"):
            assert result["destroyed"] is True  # and no wound is recorded
            assert resolution.effects == [eff("destroyed", False, True, "JDR-36", cid=NPC)]
        else:
            assert "destroyed" not in result
            severity = expected_severity(total - defense)
            wound = {
                "severity": severity,
                "note": f"Pieu de frêne, marge {total - defense}",
                "cared": False,
            }
            expected = [eff("wounds", [], [wound], "JDR-33", cid=NPC)] if severity else []
            assert resolution.effects == expected


@pytest.mark.parametrize(
    ("system", "tags", "stake_tags", "sleeping"),
    [
        (D, ["vampire"], ["ash_stake"], False),  # awake
        (D, ["vampire"], [], True),  # not a stake
        (D, ["undead"], ["ash_stake"], True),  # not a vampire
        (C, ["vampire"], ["ash_stake"], True),  # not the Dracula setting
    ],
)
def test_JDR_36_no_destruction_otherwise(
    system: str, tags: list[str], stake_tags: list[str], sleeping: bool
) -> None:
    target = sheet_for(system, tags=tags)
    request = attack_req(
        system, sheet_for(system), target, weapon=make_weapon(tags=stake_tags), sleeping=sleeping
    )
    resolution = run(resolve_attack, request, (6, 6))
    assert "destroyed" not in resolution.result
    assert [e["field"] for e in resolution.effects] == ["wounds"]


def test_JDR_36_a_destroyed_target_cannot_be_attacked_or_splashed() -> None:
    dead = dracula_sheet(tags=["vampire"], destroyed=True)
    refused(resolve_attack, attack_req(D, dracula_sheet(), dead), "JDR-36")
    splash = {**clock(D), "attacker": char(dracula_sheet()), "target": char(dead, cid=NPC)}
    refused(resolve_holy_water, splash, "JDR-36")


def test_JDR_35_holy_water_light_wound_to_vampires_only_no_roll() -> None:
    vampire = dracula_sheet(tags=["vampire"])
    request = {
        **clock(D),
        "attacker": char(dracula_sheet()),
        "target": char(vampire, kind="npc", cid=NPC),
    }
    resolution = run(resolve_holy_water, request)
    wound = {"severity": "light", "note": "eau bénite", "cared": False}
    assert resolution.result["severity"] == "light" and resolution.result["hit"] is True
    assert resolution.effects == [eff("wounds", [], [wound], "JDR-35", cid=NPC)]
    wolf = {**request, "target": char(dracula_sheet(tags=["werewolf"]), kind="npc", cid=NPC)}
    refused(resolve_holy_water, wolf, "JDR-35")
    refused(resolve_holy_water, {**request, "system": C}, "JDR-35", InvalidInput)


# --- JDR-30a/31/31a: initiative -------------------------------------------------------


def fighter(cid: str, kind: str, physique: int, **flags: bool) -> dict[str, Any]:
    return {
        "id": cid,
        "name": cid[-2:],
        "kind": kind,
        "physique": physique,
        "surprise": flags.get("surprise", False),
        "off_guard": flags.get("off_guard", False),
    }


def init_req(*fighters: dict[str, Any], order: Any = (), already: Any = ()) -> dict[str, Any]:
    return {
        **clock(D),
        "combatants": list(fighters),
        "order": list(order),
        "already_rolled": list(already),
    }


def ids(resolution: Any) -> list[str]:
    rows = resolution.result["order"]
    assert [row["rank"] for row in rows] == list(range(1, len(rows) + 1))
    return [row["character_id"] for row in rows]


@pytest.mark.parametrize(("pc_phys", "npc_phys"), [(0, 5), (3, 3), (5, 0), (2, 3)])
def test_JDR_30a_pc_against_npc_every_face_combination(pc_phys: int, npc_phys: int) -> None:
    request = init_req(fighter(PC, "pc", pc_phys), fighter(NPC, "npc", npc_phys))
    for pc_faces, npc_faces in product(FACES2, FACES2):
        resolution = run(resolve_initiative, request, pc_faces + npc_faces)  # no roll-off
        pc_total, npc_total = sum(pc_faces) + pc_phys, sum(npc_faces) + npc_phys
        rows = {row["character_id"]: row for row in resolution.result["order"]}
        assert (rows[PC]["total"], rows[NPC]["total"]) == (pc_total, npc_total)
        assert rows[PC]["dice"] == list(pc_faces) and rows[NPC]["dice"] == list(npc_faces)
        assert ids(resolution) == ([PC, NPC] if pc_total >= npc_total else [NPC, PC])
        assert rows[PC]["rolloff"] == rows[NPC]["rolloff"] == []


def test_JDR_30a_two_pcs_every_face_combination_roll_off_on_ties() -> None:
    request = init_req(fighter(PC, "pc", 2), fighter(PC2, "pc", 2))
    for a, b in product(FACES2, FACES2):
        tie = sum(a) == sum(b)
        resolution = run(resolve_initiative, request, a + b + ((2, 5) if tie else ()))
        rows = {row["character_id"]: row for row in resolution.result["order"]}
        if tie:
            assert ids(resolution) == [PC2, PC]
            assert (rows[PC]["rolloff"], rows[PC2]["rolloff"]) == ([2], [5])
        else:
            assert ids(resolution) == ([PC, PC2] if sum(a) > sum(b) else [PC2, PC])
            assert rows[PC]["rolloff"] == rows[PC2]["rolloff"] == []


def test_JDR_30a_roll_off_every_face_pair_rerolls_while_tied() -> None:
    request = init_req(fighter(PC, "pc", 2), fighter(PC2, "pc", 2))
    for x, y in FACES2:
        extra = (6, 1) if x == y else ()
        resolution = run(resolve_initiative, request, (3, 3, 4, 2, x, y, *extra))
        rows = {row["character_id"]: row for row in resolution.result["order"]}
        assert ids(resolution) == ([PC, PC2] if x >= y else [PC2, PC])
        assert rows[PC]["rolloff"] == [x, *extra[:1]]
        assert rows[PC2]["rolloff"] == [y, *extra[1:]]


def test_JDR_30a_three_way_roll_off_records_every_die() -> None:
    request = init_req(fighter(PC, "pc", 1), fighter(PC2, "pc", 1), fighter(PC3, "pc", 1))
    resolution = run(resolve_initiative, request, (3, 3, 2, 4, 5, 1, 4, 4, 2, 1, 5))
    rows = {row["character_id"]: row for row in resolution.result["order"]}
    assert ids(resolution) == [PC2, PC, PC3]
    assert [rows[c]["rolloff"] for c in (PC, PC2, PC3)] == [[4, 1], [4, 5], [2]]


def test_JDR_30a_tie_breaks_gm_order_then_physique_then_roll_off() -> None:
    # Totals all 8: GM names PC3 first; PC2 (physique 4) before PC (2); no roll-off drawn.
    a, b, c = fighter(PC, "pc", 2), fighter(PC2, "pc", 4), fighter(PC3, "pc", 2)
    resolution = run(resolve_initiative, init_req(a, b, c, order=[PC3]), (3, 3, 2, 2, 3, 3))
    assert ids(resolution) == [PC3, PC2, PC]
    resolution = run(resolve_initiative, init_req(a, b, c, order=[PC, PC3]), (3, 3, 2, 2, 3, 3))
    assert ids(resolution) == [PC, PC3, PC2]
    # Without an order, PC and PC3 (same physique) roll off after PC2.
    resolution = run(resolve_initiative, init_req(a, b, c), (3, 3, 2, 2, 3, 3, 1, 6))
    assert ids(resolution) == [PC2, PC3, PC]
    # Two tied NPCs follow the same tie-breaks, after a tied PC.
    n1, n2 = fighter(NPC, "npc", 2), fighter(BELIEVER, "npc", 2)
    resolution = run(resolve_initiative, init_req(n1, n2, a), (3, 3, 3, 3, 3, 3, 2, 4))
    assert ids(resolution) == [PC, BELIEVER, NPC]


def test_JDR_31a_surprise_adds_two_and_off_guard_acts_last() -> None:
    pc, npc = fighter(PC, "pc", 2), fighter(NPC, "npc", 2, surprise=True)
    resolution = run(resolve_initiative, init_req(pc, npc), (3, 3, 3, 3))
    rows = {row["character_id"]: row for row in resolution.result["order"]}
    assert (rows[NPC]["surprise"], rows[NPC]["total"], rows[PC]["total"]) == (2, 10, 8)
    assert ids(resolution) == [NPC, PC]
    resolution = run(resolve_initiative, init_req(pc, {**npc, "surprise": False}), (3, 3, 3, 3))
    assert ids(resolution) == [PC, NPC]  # the tie goes to the PC
    sleepy = fighter(PC, "pc", 5, off_guard=True)
    resolution = run(
        resolve_initiative, init_req(sleepy, npc, fighter(PC2, "pc", 0)), (6, 6, 1, 1, 1, 1)
    )
    assert ids(resolution) == [NPC, PC2, PC]
    assert resolution.result["order"][-1]["off_guard"] is True


def test_JDR_31_initiative_once_per_scene() -> None:
    request = init_req(fighter(PC, "pc", 2), fighter(NPC, "npc", 2), already=[NPC])
    refused(resolve_initiative, request, "JDR-31")


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
            resolution = run(resolve_mythos, mythos_req(sheet, difficulty, kind=kind), faces)
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
        resolve_mythos, mythos_req(cthulhu_sheet(), 9, detail="Un tic nerveux"), (6, 6)
    ).result
    assert result["mark"] == {"description": "Un tic nerveux", "counted": False, "scene": SCENE}
    refused(resolve_mythos, {**mythos_req(cthulhu_sheet(), 9), "system": D}, "JDR-40", InvalidInput)


def test_JDR_12_mythos_with_advantage_keeps_highest_every_face() -> None:
    for faces in FACES3:
        result = run(resolve_mythos, mythos_req(cthulhu_sheet(), 12, advantage=True), faces).result
        assert result["kept"] == expected_kept(faces, "advantage")
        assert result["total"] == sum(sorted(faces)[1:]) + 2


# --- JDR-20..24: Talisman ----------------------------------------------------------------

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
    resolution = run(resolve_joker, request, (6, 5))
    return {"seq": seq, "kind": "jdr.joker", "request": request, "result": resolution.result}


def test_JDR_20_JDR_21_talisman_invocation_is_pending_and_draws_nothing() -> None:
    resolution = run(resolve_talisman, talisman_req(words=f"  {WORDS}  "))
    assert resolution.result == {"status": "pending", "words": WORDS, "tier": "partial_success"}
    assert resolution.effects == [eff("talisman_scene", None, SCENE, "JDR-20")]
    atheist = talisman_req(faith="atheist", instructed_by=BELIEVER)
    assert run(resolve_talisman, atheist).result["status"] == "pending"  # JDR-23


JOKED = follow("jdr.joker", {"tier": "success"}, ACTION_SEQ + 1)
INVOKED = follow("jdr.talisman", {"status": "pending"}, ACTION_SEQ + 1)


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
    refused(resolve_talisman, talisman_req(**over), rule)


def test_JDR_22_sacred_object_from_an_earlier_scene_is_enough() -> None:
    assert run(resolve_talisman, talisman_req(sacred_object_scene=SCENE - 1)).result
    assert run(resolve_talisman, talisman_req(sacred_object_scene=0)).result


def test_JDR_27_talisman_on_a_joker_reroll_is_refused() -> None:
    entry = rolled(action_req(D, dracula_sheet(), supernatural=True, direct_peril=True), (3, 3))
    request = follow_req(joker_entry(entry), words=WORDS)
    refused(resolve_talisman, request, "JDR-27")


def test_JDR_20_talisman_wrong_setting_or_empty_words_is_invalid_input() -> None:
    refused(resolve_talisman, {**talisman_req(), "system": C}, "JDR-20", InvalidInput)
    refused(resolve_talisman, talisman_req(words="   "), None, InvalidInput)


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
        resolution = run(resolve_context, amend)
        assert resolution.result["before"]["supernatural"] is before
        assert resolution.effects == []
        amended = [*amended, follow("jdr.context", resolution.result, seq)]
        request = follow_req(entry, follow_ups=amended, words=WORDS)
        if supernatural:
            assert run(resolve_talisman, request).result["status"] == "pending"
        else:
            refused(resolve_talisman, request, "JDR-22")
    bad = {
        **clock(D),
        "action": {"seq": 1, "kind": "jdr.attack", "request": {}},
        "follow_ups": [],
        "context": ctx(),
    }
    refused(resolve_context, bad, None, InvalidInput)


def ruling_req(
    sheet: dict[str, Any],
    sincere: bool,
    rulings: Any = (),
    scene: int = SCENE,
    kind: str = "jdr.talisman",
) -> dict[str, Any]:
    invocation = {"seq": ACTION_SEQ + 1, "kind": kind, "result": {"status": "pending"}}
    return {
        **clock(D, scene),
        "character": char(sheet),
        "invocation": invocation,
        "rulings": list(rulings),
        "sincere": sincere,
    }


def test_JDR_21_sincere_ruling_upgrades_and_spends() -> None:
    sheet = dracula_sheet()
    resolution = run(resolve_talisman_ruling, ruling_req(sheet, True))
    assert resolution.result == {
        "status": "sincere",
        "tier": "success",
        "label": "Succès complet",
        "upgraded_from": "partial_success",
    }
    assert resolution.effects == [eff("talisman", "ready", "spent", "JDR-21")]


def test_JDR_21_JDR_24_insincere_ruling_cracks_and_shakes_the_next_confrontation() -> None:
    sheet = dracula_sheet()
    resolution = run(resolve_talisman_ruling, ruling_req(sheet, False))
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
    same = run(resolve_action, action_req(D, cracked, supernatural=True, protection=True), (1, 2))
    assert same.result["mode"] == "normal"  # not within the crack's scene
    nxt = run(
        resolve_action,
        action_req(D, cracked, scene=SCENE + 1, supernatural=True, protection=True),
        (1, 2, 3),
    )
    assert nxt.result["auto_disadvantage"] == ["faith_shaken"]
    # JDR-24: only penance restores it, and it lifts the shaken faith.
    penance = {**clock(D), "character": char(cracked), "description": "Confession"}
    restored = run(resolve_penance, penance)
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
    refused(resolve_talisman_ruling, {**request, "system": over.get("system", D)}, rule, error)


@pytest.mark.parametrize("talisman", ["ready", "spent"])
def test_JDR_24_penance_only_for_a_cracked_talisman(talisman: str) -> None:
    request = {
        **clock(D),
        "character": char(dracula_sheet(talisman=talisman)),
        "description": "Pèlerinage",
    }
    refused(resolve_penance, request, "JDR-24")
    refused(resolve_penance, {**request, "system": C}, "JDR-24", InvalidInput)


# --- JDR-28/29/42: Effleurement ----------------------------------------------------------

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


@pytest.mark.parametrize(
    "domain", ["investigation", "erudition", "observation", "occult", "mythos"]
)
def test_JDR_28_JDR_29_effleurement_upgrades_with_a_counted_mark(domain: str) -> None:
    request = effleurement_req(domain=domain, mark=f" {MARK} ")
    sheet = request["character"]["sheet"]
    resolution = run(resolve_effleurement, request)
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


EFFLEURED = follow("jdr.effleurement", {"status": "applied"}, ACTION_SEQ + 1)
UNDONE = follow("jdr.effleurement_refusal", {"status": "refused"}, ACTION_SEQ + 2)


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
    refused(resolve_effleurement, effleurement_req(**over), rule)


def test_JDR_28_effleurement_invalid_inputs_and_joker_reroll() -> None:
    refused(resolve_effleurement, {**effleurement_req(), "system": D}, "JDR-28", InvalidInput)
    refused(resolve_effleurement, effleurement_req(mark="  "), None, InvalidInput)
    entry = rolled(action_req(C, cthulhu_sheet(), domain="occult", direct_peril=True), (3, 3))
    refused(resolve_effleurement, follow_req(joker_entry(entry), mark=MARK), "JDR-27")


def test_JDR_14_JDR_29_effleurement_reads_the_amended_domain() -> None:
    entry = rolled(action_req(C, cthulhu_sheet(), domain="other"), (3, 3))
    amended = follow("jdr.context", {"context": {**ctx(), "domain": "erudition"}}, 41)
    assert run(resolve_effleurement, follow_req(entry, follow_ups=[amended], mark=MARK)).effects
    entry = rolled(action_req(C, cthulhu_sheet(), domain="occult"), (3, 3))
    amended = follow("jdr.context", {"context": {**ctx(), "domain": "other"}}, 41)
    refused(resolve_effleurement, follow_req(entry, follow_ups=[amended], mark=MARK), "JDR-29")


def test_JDR_28_JDR_29_JDR_42_sixth_mark_makes_an_npc_and_refusal_undoes_it() -> None:
    request = effleurement_req(marks=counted_marks(5))
    sheet = request["character"]["sheet"]
    touched = run(resolve_effleurement, request)
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
    undone = run(resolve_effleurement_refusal, refusal)
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
    refused(resolve_effleurement_refusal, {**refusal, "refusals": [UNDONE]}, "JDR-29")
    refused(resolve_effleurement_refusal, {**refusal, "character": char(sheet)}, "JDR-29")
    wrong = {**refusal, "effleurement": {**entry, "kind": "jdr.talisman"}}
    refused(resolve_effleurement_refusal, wrong, None, InvalidInput)
    # The refusal undoes the use: the Effleurement may be used again on the action.
    again = effleurement_req(marks=counted_marks(5), follow_ups=[EFFLEURED, UNDONE])
    assert run(resolve_effleurement, again).result["status"] == "applied"


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
    resolution = run(resolve_effleurement, effleurement_req(marks=marks, status=status))
    assert resolution.result["counted_marks"] == len(marks) + 1
    status_effects = [e for e in resolution.effects if e["field"] == "status"]
    assert status_effects == ([eff("status", "active", "npc", "JDR-42")] if becomes_npc else [])


# --- JDR-25/26/27: Joker ------------------------------------------------------------------


@pytest.mark.parametrize("system", [D, C])
def test_JDR_25_joker_rerolls_every_face_and_keeps_the_second_result(system: str) -> None:
    sheet = sheet_for(system)
    original = action_req(
        system, sheet, talent=sheet["talents"][0]["name"], modifier=-2, direct_peril=True
    )
    entry = rolled(original, (1, 1))
    for faces in FACES2:
        resolution = run(resolve_joker, follow_req(entry), faces)
        total = sum(faces) + 3 + 2 - 2
        code, label = expected_tier(total)
        result = resolution.result
        assert (result["total"], result["tier"], result["label"]) == (total, code, label)
        assert result["dice"] == list(faces) and result["rerolls"] == ACTION_SEQ
        assert resolution.effects == [eff("joker", "ready", "spent", "JDR-25")]
    refused(resolve_joker, follow_req(joker_entry(entry)), "JDR-25")


def test_JDR_25_joker_reroll_reads_the_sheet_as_it_is_now() -> None:
    entry = rolled(action_req(D, dracula_sheet(), direct_peril=True), (1, 1))
    wounded = dracula_sheet(wounds=[SERIOUS])
    result = run(resolve_joker, follow_req(entry, wounded), (6, 2, 4)).result
    assert result["mode"] == "disadvantage" and result["auto_disadvantage"] == ["serious_wound"]
    assert result["total"] == 2 + 4 + 3


TALISMANED = follow("jdr.talisman", {"status": "pending"}, ACTION_SEQ + 1)
PERIL = {"direct_peril": True}


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
    refused(resolve_joker, follow_req(entry, follow_ups=follow_ups, **over), rule)


def test_JDR_27_joker_allowed_after_a_refused_effleurement() -> None:
    entry = rolled(action_req(C, cthulhu_sheet(), direct_peril=True, domain="occult"), (3, 3))
    resolution = run(resolve_joker, follow_req(entry, follow_ups=[EFFLEURED, UNDONE]), (6, 6))
    assert resolution.result["total"] == 15 and resolution.result["rerolls"] == ACTION_SEQ


def test_JDR_14_JDR_24_JDR_25_joker_rerolls_with_the_amended_context() -> None:
    sheet = shaken_sheet()
    entry = rolled(action_req(D, sheet, scene=4), (1, 1))
    refused(resolve_joker, follow_req(entry), "JDR-25")
    new = {**ctx(), "direct_peril": True, "supernatural": True, "protection": True}
    amend = {
        **clock(D, 4),
        "action": {k: entry[k] for k in ("seq", "kind", "request")},
        "follow_ups": [],
        "context": new,
    }
    amended = run(resolve_context, amend).result
    assert amended == {"context": new, "before": ctx()}
    request = follow_req(entry, follow_ups=[follow("jdr.context", amended, 41)])
    resolution = run(resolve_joker, request, (6, 5, 4))
    assert resolution.result["auto_disadvantage"] == ["faith_shaken"]
    assert resolution.result["kept"] == [False, True, True]
    after = {"cracked_scene": 3, "confrontation_scene": 4}
    assert resolution.effects == [
        eff("joker", "ready", "spent", "JDR-25"),
        eff("faith_shaken", sheet["faith_shaken"], after, "JDR-24"),
    ]


# --- JDR-29a: sacrifice; recharges (JDR-24, JDR-26, JDR-29a) -------------------------------


def test_JDR_29a_sacrifice_recharges_a_spent_effleurement() -> None:
    request = {
        **clock(C),
        "character": char(cthulhu_sheet(effleurement="spent")),
        "description": "Brûler une page",
    }
    resolution = run(resolve_sacrifice, request)
    assert resolution.effects == [eff("effleurement", "spent", "ready", "JDR-29a")]
    refused(resolve_sacrifice, {**request, "character": char(cthulhu_sheet())}, "JDR-29a")
    refused(resolve_sacrifice, {**request, "system": D}, "JDR-29a", InvalidInput)


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
            assert recharges(request) == expected, request


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


def test_JDR_20_once_per_scene_even_after_a_penance_in_the_scene() -> None:
    # A penance mid-scene makes the talisman ready again, but not a second use this scene.
    refused(resolve_talisman, talisman_req(talisman_scene=SCENE), "JDR-20")
    assert run(resolve_talisman, talisman_req(talisman_scene=SCENE - 1)).result["status"]


def test_JDR_28_once_per_scene_even_after_a_sacrifice_in_the_scene() -> None:
    refused(resolve_effleurement, effleurement_req(effleurement_scene=SCENE), "JDR-28")
    assert run(resolve_effleurement, effleurement_req(effleurement_scene=SCENE - 1)).effects


@pytest.mark.parametrize("faces", list(product(range(1, 7), repeat=3)))
def test_JDR_3_a_serious_wound_burdens_initiative_too(faces: tuple[int, ...]) -> None:
    wounded = {
        "id": "w",
        "name": "Blessé",
        "kind": "pc",
        "physique": 2,
        "wounds": [{"severity": "serious", "note": "", "cared": False}],
    }
    request = {"system": D, "session": 1, "scene": 1, "combatants": [wounded], "already_rolled": []}
    dice = ReplayDice([{"sides": 6, "face": f} for f in faces])
    (row,) = resolve_initiative(request, dice).result["order"]
    dice.assert_consumed()
    assert row["mode"] == "disadvantage"
    assert row["total"] == sum(sorted(faces)[:2]) + 2
