"""What the Fabulae combat engine tests share (fabulae-tenebris.md FAB-50..76, FAB-90,
FAB-100..102): request builders and the tables written from the rules.

Every dice test enumerates the faces with itertools.product (never sampling) and checks,
through ReplayDice.assert_consumed, that exactly the expected dice were drawn, in order.
Requests are built in the shapes app/services/fabulae.py records (clock + character
snapshots + inputs). The tables, pools and expected outcomes are written here from the
rules, independently of the engine; a refusal must come before any die is drawn.
"""

from __future__ import annotations

from itertools import chain, combinations
from typing import Any

import pytest

from app.engine.dice import ReplayDice
from app.engine.errors import RuleRefusal
from app.engine.rulesets.fabulae.sheet import FabulaeSheet

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
        "threat": {
            "seq": THREAT_SEQ,
            "kind": "fabulae.attack",
            "result": {"pending_states": threat_result.get("pending_states", [])},
        },
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


# --- helpers shared by several test modules ---------------------------------------------


DAMAGE_CASES = [
    ("melee", "wrench", (6, 2), 1),
    ("ranged", "revolver", (6, 2), 2),
    ("ranged", "revolver", (6, 6), 3),
]


def attacker_sheet(**over: Any) -> dict[str, Any]:
    """habilete 0 + tir 0 + revolver +2, physique 1 + combat 0 + wrench +1: two dice each."""
    over.setdefault("weapons", [{"id": "revolver"}, {"id": "wrench"}])
    return make_sheet({"habilete": 0}, **over)


def attack_pool(result: dict[str, Any]) -> dict[str, Any]:
    return result["attacks"][0]["roll"]["active"]["pool"]
