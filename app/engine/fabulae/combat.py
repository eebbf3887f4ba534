"""Fabulae Tenebris combat and beyond (FAB-50..76, FAB-90): pure.

Attacks and their opposed rolls, damage through armor and cover, states checked one by
one (each may be absorbed, FAB-34), Broken and its sequela with rolled durations, death
tests and stabilisation, grapples, environmental dangers, repairs.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, Final

from app.engine.dice import DiceSource
from app.engine.errors import InvalidInput
from app.engine.fabulae.rules import (
    _action_roll,
    _opposition,
    _pending,
    _refuse,
    _sheet,
    _system,
    has_talent,
    pool_of,
    read_dice,
    stress_gain,
    track_of,
)
from app.engine.fabulae.tables import ARMORS, STATE_LABELS, WEAPONS
from app.engine.kinds import Effect, Resolution, register, register_all
from app.engine.kinds import effect as _effect

# FAB-62 and FAB-64: situation factors, in dice.
MELEE_FACTORS: Final[dict[str, int]] = {
    "attacker_on_ground": -2,
    "sneak_attack": 2,
    "target_on_ground": 2,
    "helpless_target": 3,
}
RANGED_FACTORS: Final[dict[str, int]] = {
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
COVER_VALUES: Final = frozenset({0, 3, 4, 5, 6, 8})  # FAB-67
AMMO_DIE: Final[dict[int, int]] = {1: 6, 2: 12, 3: 20}  # FAB-65
HEAVY_METAL_ARMOR: Final = frozenset({"guard_mail", "factory_plate"})  # FAB-73 drowning

# FAB-50: the physical sequelae by score: code, label, lethal, delay, effect, duration dice.
PHYSICAL_TABLE: Final[
    tuple[tuple[int, str, str, bool, str | None, str, tuple[int, str] | None], ...]
] = (
    (4, "stunned", "Sonné / Étourdi", False, None, "unconscious", (1, "rounds")),
    (6, "bruise", "Hématome sensible", False, None, "-1 on Physique rolls", (1, "rounds")),
    (8, "sprain", "Membre foulé / Entaille", False, None, "limb unusable", (1, "quarts")),
    (
        10,
        "broken_limb",
        "Membre cassé / Commotion",
        True,
        "quart",
        "-2 Athlétisme, moving is a slow action",
        (1, "days"),
    ),
    (
        12,
        "bleeding",
        "Hémorragie externe",
        True,
        "quart",
        "-2 Athlétisme and Résistance",
        (2, "days"),
    ),
    (
        14,
        "internal",
        "Organe touché / Interne",
        True,
        "tour",
        "-2 on everything, cannot run, lose a state per sudden action",
        (2, "days"),
    ),
    (
        16,
        "spine",
        "Colonne brisée / Jugulaire",
        True,
        "round",
        "total paralysis or swift agony",
        None,
    ),
    (19, "impaled", "Empalé / Éventré", True, "immediate", "death test every round", None),
    (99, "crushed", "Crâne écrasé / Pulvérisé", False, None, "instant death", None),
)
FIXED_DURATIONS: Final[dict[str, str]] = {
    "spine": "permanent if untreated",
    "impaled": "mortal",
    "crushed": "final",
    "white_hair": "permanent",
}
# FAB-55: the mental sequelae by 1D12 face.
MENTAL_TABLE: Final[dict[int, tuple[str, str, str, tuple[int, str] | None]]] = {
    1: ("tremor", "Tremblement", "-1 on movement rolls", (1, "days")),
    2: ("white_hair", "Cheveux blancs", "no mechanical effect", None),
    3: ("anxious", "Anxieux", "-1 on Intellect rolls", (1, "days")),
    4: ("sullen", "Maussade", "-1 on Empathie rolls", (1, "days")),
    5: ("nightmares", "Cauchemars", "Empathie roll each quart of sleep", (1, "days")),
    6: ("nocturnal", "Nocturne", "sleeps only by day", (2, "days")),
    7: ("phobic", "Phobique", "1 mental damage per round near the phobia", (2, "days")),
    8: ("paranoia", "Paranoïa", "convinced of being watched", (2, "days")),
    9: ("delusion", "Délire", "convinced of a falsehood", (3, "days")),
    10: (
        "hallucinations",
        "Hallucinations",
        "Empathie roll each quart or violent visions",
        (3, "days"),
    ),
    11: ("amnesia", "Amnésie", "loses identity and allies", (1, "days")),
    12: ("catatonia", "Catatonie", "no reaction to anything", (1, "days")),
}
DELAY_STEPS: Final[tuple[str, ...]] = ("immediate", "round", "tour", "quart")  # FAB-52


# --- working on a sheet, then reporting what changed ------------------------------------


class Body:
    """A character's sheet being changed by a rule; `effects()` reports each changed field."""

    def __init__(self, character: Mapping[str, Any]) -> None:
        self.character = character
        self.id = str(character["id"])
        self.before = copy.deepcopy(dict(_sheet(character)))
        self.sheet = copy.deepcopy(dict(_sheet(character)))

    def effects(self, rule: str) -> list[Effect]:
        return [
            _effect(self.id, field, self.before.get(field), self.sheet.get(field), rule)
            for field in self.sheet
            if self.sheet.get(field) != self.before.get(field)
        ]


def roll_sequela(
    body: Body, track: str, dice: DiceSource, context: Mapping[str, Any]
) -> dict[str, Any]:
    """FAB-50/FAB-55: the sequela a Broken character takes, its duration rolled."""
    if track == "mental":
        face = dice.roll(12)
        code, label, effect, spec = MENTAL_TABLE[face]
        roll: dict[str, Any] = {"die": face}
        lethal, delay = False, None
    else:
        modifier = int(context.get("weapon_mod", 0)) + int(context.get("feats", 0))
        if context.get("butcher"):
            modifier += 2  # FAB-90 butcher
        rolls = [[dice.roll(6), dice.roll(6)]]
        if has_talent(body.sheet, "tough_luck"):
            rolls.append([dice.roll(6), dice.roll(6)])  # FAB-90 tough_luck: keep the better
        score = min(sum(pair) for pair in rolls) + modifier
        roll = {"dice": rolls, "modifier": modifier, "score": score}
        row = next(r for r in PHYSICAL_TABLE if score <= r[0])
        _, code, label, lethal, delay, effect, spec = row
    if spec is not None:
        count, unit = spec
        amount = sum(dice.roll(6) for _ in range(count))
        duration = f"{amount} {unit}"
    else:
        duration = FIXED_DURATIONS.get(code, "")
    sequela = {
        "kind": track,
        "code": code,
        "duration": duration,
        "lethal": lethal,
        "delay": delay,
        "stabilised": False,
        "note": label,
    }
    body.sheet["sequelae"] = [*body.sheet.get("sequelae", []), sequela]
    if code == "crushed":
        body.sheet["dead"] = True  # FAB-50: instant death
    return {**roll, "code": code, "label": label, "effect": effect, "duration": duration}


def land_state(
    body: Body, track: str, dice: DiceSource, sequela: Mapping[str, Any]
) -> dict[str, Any]:
    """FAB-22/FAB-23: check the next box of the track; on a full track, Broken and a sequela."""
    boxes = track_of(body.sheet, track)
    states = list(body.sheet.get("states", []))
    free = [box for box in boxes if box not in states]
    if free:
        body.sheet["states"] = [*states, free[0]]
        return {"track": track, "state": free[0], "label": STATE_LABELS[free[0]]}
    body.sheet["broken"] = True
    body.sheet["broken_track"] = body.sheet.get("broken_track") or track
    return {"track": track, "broken": True, "sequela": roll_sequela(body, track, dice, sequela)}


def threats(
    body: Body,
    count: int,
    track: str,
    rule: str,
    dice: DiceSource,
    sequela: Mapping[str, Any],
    settle_now: bool,
) -> dict[str, Any]:
    """Each damage checks a state: pending for the player to absorb or accept, or landed now."""
    if count <= 0:
        return {}
    if not settle_now:
        threat = {"rule": rule, "track": track, "sequela": dict(sequela)}
        return {"pending_states": [threat] * count}
    return {"states_checked": [land_state(body, track, dice, sequela) for _ in range(count)]}


# --- settling a pending state (FAB-22/23/32/34) ----------------------------------------


def resolve_state_choice(request: Mapping[str, Any], dice: DiceSource) -> Resolution:
    """FAB-32 (a state of the player's choice) or FAB-68 (the next box of a track)."""
    _system(request)
    pending = _pending(request)
    if not pending:
        raise _refuse("FAB-34", "no state is about to be checked on that entry")
    threat = pending[0]
    body = Body(request["character"])
    state = request.get("state")
    if threat.get("choice") == "any" and state in ("physical", "mental"):
        # The player picks a track: its next box, or Broken when it is full (FAB-23).
        on_track = land_state(body, str(state), dice, threat.get("sequela", {}))
        return Resolution({**on_track, "settles": threat}, body.effects(str(threat["rule"])))
    if threat.get("choice") == "any":
        if state is None:
            raise InvalidInput("FAB-32: name the state to check, e.g. 'epuise' or 'enerve'")
        boxes = track_of(body.sheet, "physical") + track_of(body.sheet, "mental")
        if state not in boxes:
            raise InvalidInput(f"state must be one of {', '.join(boxes)}, got {state!r}")
        if state in body.sheet.get("states", []):
            raise InvalidInput(f"{STATE_LABELS[state]} is already checked; choose another")
        body.sheet["states"] = [*body.sheet.get("states", []), state]
        landed: dict[str, Any] = {"state": state, "label": STATE_LABELS[state]}
    elif threat.get("state") is not None:
        # A power names the state (FAB-102 blast: Meurtri); already checked, the track's next.
        named = str(threat["state"])
        if named not in body.sheet.get("states", []):
            body.sheet["states"] = [*body.sheet.get("states", []), named]
            landed = {"state": named, "label": STATE_LABELS[named]}
        else:
            landed = land_state(body, "physical", dice, threat.get("sequela", {}))
    else:
        track = str(threat["track"])
        free = [b for b in track_of(body.sheet, track) if b not in body.sheet.get("states", [])]
        if state is not None and (not free or state != free[0]):
            expected = free[0] if free else "none: the track is full"
            raise InvalidInput(f"FAB-22: damage checks the next box of its track ({expected})")
        landed = land_state(body, track, dice, threat.get("sequela", {}))
    return Resolution({**landed, "settles": threat}, body.effects(str(threat["rule"])))


# --- attacks (FAB-60..68, FAB-71/72) -------------------------------------------------------


def _weapon(sheet: Mapping[str, Any], weapon_id: str) -> tuple[Any, dict[str, Any] | None]:
    if weapon_id not in WEAPONS:
        raise InvalidInput(f"unknown weapon {weapon_id!r} (FAB-71 lists the weapon ids)")
    if weapon_id == "bare_hands":
        return WEAPONS[weapon_id], None
    for carried in sheet.get("weapons", []):
        if carried["id"] == weapon_id:
            return WEAPONS[weapon_id], dict(carried)
    raise InvalidInput(f"{weapon_id} is not among the attacker's weapons")


def _effects_sum(sheet: Mapping[str, Any], key: str) -> int:
    return sum(int(effect.get(key, 0)) for effect in sheet.get("active_effects", []))


def _attack_inputs(request: Mapping[str, Any]) -> dict[str, Any]:
    """The attacker's roll (FAB-62/64) with every factor, validated against the weapon."""
    attacker_sheet = _sheet(request["attacker"])
    target_sheet = _sheet(request["target"])
    weapon, carried = _weapon(attacker_sheet, str(request["weapon"]))
    mode = request["mode"]
    ranged = carried is not None and weapon.ammo is not None
    if (mode == "ranged") != ranged:
        raise InvalidInput(f"{weapon.id} is a {'ranged' if ranged else 'melee'} weapon")
    factors = MELEE_FACTORS if mode == "melee" else RANGED_FACTORS
    situation = list(request.get("situation", []))
    unknown = [f for f in situation if f not in factors]
    if unknown:
        raise InvalidInput(
            f"unknown {mode} situation {unknown[0]!r}; known: {', '.join(sorted(factors))}"
        )
    if mode == "ranged" and "contact_short_weapon" in situation and weapon.hands != 1:
        raise InvalidInput("FAB-64: contact_short_weapon is for one-handed guns like a revolver")
    if mode == "ranged" and "contact_long_weapon" in situation and weapon.hands != 2:
        raise InvalidInput("FAB-64: contact_long_weapon is for two-handed guns")
    talents = list(request.get("talents", []))
    modifiers = [{"source": f, "dice": factors[f]} for f in situation]
    if mode == "ranged" and has_talent(attacker_sheet, "fine_gachette"):
        # FAB-90 fine_gachette: half-light costs nothing.
        modifiers = [m for m in modifiers if m["source"] != "half_light"]
    modifiers.append({"source": f"weapon {weapon.id}", "dice": weapon.roll_bonus})
    if request.get("aimed"):
        if mode != "ranged":
            raise InvalidInput("FAB-64: aiming prepares a shot, not a melee attack")
        bonus = 3 if has_talent(attacker_sheet, "fine_gachette") else 2
        modifiers.append({"source": "aimed", "dice": bonus})
    if request.get("snap_shot"):
        if mode != "ranged" or not has_talent(attacker_sheet, "snap_shot"):
            raise InvalidInput("snap_shot is a Tir attack of a character with the talent")
        modifiers.append({"source": "snap_shot", "dice": -2})
    against = _effects_sum(target_sheet, "attacks_against")
    if against:
        modifiers.append({"source": "powers on the target", "dice": against})
    modifiers += [dict(m) for m in request.get("modifiers", [])]
    roll = {
        "attribute": "physique" if mode == "melee" else "habilete",
        "skill": "combat" if mode == "melee" else "tir",
        "modifiers": modifiers,
        "talents": talents,
        "in_combat": True,
    }
    return {"weapon": weapon, "carried": carried, "roll": roll, "ranged": ranged}


DEFENSE_ROLLS: Final[dict[str, dict[str, Any]]] = {
    "parry": {"attribute": "physique", "skill": "combat", "in_combat": True},
    "dodge": {"attribute": "physique", "skill": "athletisme", "in_combat": True},
}


def resolve_attack(request: Mapping[str, Any], dice: DiceSource) -> Resolution:
    """FAB-62..68: opposed attack, damage = base + feats, protection, states, Broken."""
    _system(request)
    attacker, target = request["attacker"], request["target"]
    for who in (attacker, target):
        if _sheet(who).get("dead"):
            raise _refuse("FAB-51", f"{who['name']} is dead")
    inputs = _attack_inputs(request)
    weapon, carried = inputs["weapon"], inputs["carried"]
    # Every check before the first die (pool_of refuses a bad talent or factor), and an
    # impossible attack (FAB-14) spends nothing: no ammunition, no stress.
    pool = pool_of(attacker, inputs["roll"], int(request["session"]))
    if pool["pool"] <= 0:
        impossible = {"pool": pool, "outcome": "impossible", "dice": [], "stress_dice": []}
        return Resolution({"mode": request["mode"], "weapon": weapon.id, **impossible})
    defense = request.get("defense", "none")
    if defense not in ("none", "parry", "dodge"):
        raise InvalidInput("defense must be none, parry or dodge")
    if inputs["ranged"] and defense != "none":
        raise InvalidInput(
            "FAB-62: parry and dodge answer melee attacks; cover protects from shots"
        )
    cover = int(request.get("cover", 0))
    if cover not in COVER_VALUES:
        raise InvalidInput(f"FAB-67: cover is worth 3, 4, 5, 6 or 8, got {cover}")
    burst = int(request.get("burst", 1))
    shooter = Body(attacker)
    result: dict[str, Any] = {"mode": request["mode"], "weapon": weapon.id, "defense": defense}
    rule_effects: list[Effect] = []
    if not 1 <= burst <= 3:
        raise InvalidInput("FAB-65: a burst is 1 to 3 attacks")
    if (burst > 1 or request.get("burst_fire")) and not weapon.burst:
        raise InvalidInput(f"FAB-65: the {weapon.id} cannot fire in bursts")
    if inputs["ranged"]:
        assert carried is not None
        if int(carried.get("ammo") or 0) <= 0:
            raise _refuse("FAB-71", f"the {weapon.id} is empty; reload before firing")
        ammo_before = int(carried["ammo"])
        if weapon.burst and request.get("burst_fire"):
            die = AMMO_DIE[burst]
            spent = min(ammo_before, dice.roll(die))  # FAB-65: ammunition spent is rolled
            result["ammo"] = {"die": die, "spent": spent, "left": ammo_before - spent}
            burst = min(burst, spent)  # no more shots than rounds
            if not has_talent(shooter.sheet, "burst_master"):
                shooter.sheet["stress"] = int(shooter.sheet["stress"]) + 1  # FAB-65
                result["stress_gained"] = 1
        elif burst > 1:
            raise InvalidInput("FAB-65: repeated attacks need burst_fire: true")
        else:
            spent = 1
            result["ammo"] = {"spent": 1, "left": ammo_before - 1}
        shooter.sheet["weapons"] = [
            {**w, "ammo": w["ammo"] - spent} if w["id"] == weapon.id else w
            for w in shooter.sheet["weapons"]
        ]
    victim = Body(target)
    settle_now = _settle_now(request)
    attacks = []
    hits_through = 0
    last_feats = 0
    roll_character = {**attacker, "sheet": shooter.before}
    for _ in range(burst):
        side, _unused = _action_roll(roll_character, inputs["roll"], int(request["session"]), dice)
        if defense == "none":
            passive: dict[str, Any] = {
                "outcome": "failure",
                "sixes": 0,
                "dice": [],
                "stress_dice": [],
            }
        else:
            passive, _ignored = _action_roll(
                {**target, "sheet": victim.before},
                DEFENSE_ROLLS[defense],
                int(request["session"]),
                dice,
            )
        opposed = _opposition(side, passive)
        attack: dict[str, Any] = {"roll": opposed}
        if opposed["outcome"] != "success":
            attack["hit"] = False
            attacks.append(attack)
            if side["outcome"] == "panic":
                result["panic"] = True
                break
            continue
        damage = _damage(request, weapon, shooter.sheet, opposed["feats"])
        through, protection = _protect(victim, damage, cover, dice)
        if through > 0:
            through += _effects_sum(shooter.sheet, "net_damage")  # FAB-102 enchant_weapon
        attack.update({"hit": True, "damage": damage, "protection": protection, "through": through})
        attacks.append(attack)
        hits_through += through
        last_feats = opposed["feats"]
    result["attacks"] = attacks
    sequela_context = {
        "weapon_mod": weapon.sequela_mod,
        "feats": last_feats,
        "butcher": has_talent(shooter.sheet, "butcher") and not victim.sheet.get("creature"),
    }
    result.update(
        threats(victim, hits_through, "physical", "FAB-68", dice, sequela_context, settle_now)
    )
    rule_effects = shooter.effects("FAB-65") + victim.effects("FAB-68")
    return Resolution(result, rule_effects)


def _settle_now(request: Mapping[str, Any]) -> bool:
    """States land at once on NPCs; a player's character decides on each (FAB-34)."""
    choice = request.get("states", "auto")
    if choice == "auto":
        return bool(request["target"].get("kind") != "pc")
    return bool(choice == "now")


def _damage(
    request: Mapping[str, Any], weapon: Any, attacker_sheet: Mapping[str, Any], feats: int
) -> int:
    """FAB-66: base damage + the attacker's feats, with the talents and powers that add."""
    damage = int(weapon.damage) + feats
    if request["mode"] == "melee":
        if has_talent(attacker_sheet, "cogneur") and (weapon.id == "bare_hands" or weapon.blunt):
            damage += 1  # FAB-90 cogneur
        damage += _effects_sum(attacker_sheet, "melee_damage")  # FAB-102 resize
    return damage


def _protect(victim: Body, damage: int, cover: int, dice: DiceSource) -> tuple[int, dict[str, Any]]:
    """FAB-67: armor and cover dice, each 6 removes 1 damage; armor wears if damage gets through."""
    armor = victim.sheet.get("armor")
    armor_value = int(armor["value"]) if armor else 0
    extra = _effects_sum(victim.sheet, "armor")  # FAB-102 barrier
    count = max(0, armor_value + extra) + cover
    faces = [dice.roll(6) for _ in range(count)]
    absorbed = min(damage, sum(1 for face in faces if face == 6))
    through = damage - absorbed
    worn = False
    if through > 0 and armor and armor_value > 0:
        victim.sheet["armor"] = {**armor, "value": armor_value - 1}
        worn = True
    protection = {
        "armor": armor_value,
        "powers": extra,
        "cover": cover,
        "dice": faces,
        "absorbed": absorbed,
        "armor_worn": worn,
    }
    return through, protection


# --- grapples (FAB-63) ----------------------------------------------------------------


def resolve_grapple(request: Mapping[str, Any], dice: DiceSource) -> Resolution:
    """FAB-63: a melee grapple; on success the victim can only try to break free."""
    _system(request)
    attacker, target = request["attacker"], request["target"]
    roll = {
        "attribute": "physique",
        "skill": "combat",
        "in_combat": True,
        "modifiers": list(request.get("modifiers", [])),
    }
    defense = request.get("defense", "none")
    if defense not in ("none", *DEFENSE_ROLLS):
        raise InvalidInput("defense must be none, parry or dodge")
    side, _ = _action_roll(attacker, roll, int(request["session"]), dice)
    if side["outcome"] == "impossible":
        return Resolution({"roll": {"active": side}, "outcome": "impossible", "pool": side["pool"]})
    if defense == "none":
        passive: dict[str, Any] = {"outcome": "failure", "sixes": 0}
    else:
        passive, _ = _action_roll(target, DEFENSE_ROLLS[defense], int(request["session"]), dice)
    opposed = _opposition(side, passive)
    victim = Body(target)
    if opposed["outcome"] == "success":
        victim.sheet["grappled_by"] = str(attacker["id"])
    return Resolution(
        {"roll": opposed, "grappled": opposed["outcome"] == "success"}, victim.effects("FAB-63")
    )


def resolve_break_free(request: Mapping[str, Any], dice: DiceSource) -> Resolution:
    """FAB-63: the victim's slow action, an opposed Combat roll against the hold."""
    _system(request)
    victim, holder = request["character"], request["holder"]
    if _sheet(victim).get("grappled_by") != str(holder["id"]):
        raise _refuse("FAB-63", f"{victim['name']} is not held by {holder['name']}")
    roll = {"attribute": "physique", "skill": "combat", "in_combat": True}
    side, _ = _action_roll(victim, roll, int(request["session"]), dice)
    if side["outcome"] == "impossible":
        return Resolution({"roll": {"active": side}, "outcome": "impossible", "pool": side["pool"]})
    hold, _ = _action_roll(holder, roll, int(request["session"]), dice)
    opposed = _opposition(side, hold)
    body = Body(victim)
    if opposed["outcome"] == "success":
        body.sheet["grappled_by"] = None
    return Resolution(
        {"roll": opposed, "freed": opposed["outcome"] == "success"}, body.effects("FAB-63")
    )


def resolve_strangle(request: Mapping[str, Any], dice: DiceSource) -> Resolution:
    """FAB-63: while the hold lasts, 1 net damage per round, automatically."""
    _system(request)
    holder, victim = request["attacker"], request["target"]
    if _sheet(victim).get("grappled_by") != str(holder["id"]):
        raise _refuse("FAB-63", f"{holder['name']} does not hold {victim['name']}")
    body = Body(victim)
    context = {"weapon_mod": 0, "feats": 0, "butcher": False}
    result = {
        "damage": 1,
        **threats(body, 1, "physical", "FAB-63", dice, context, _settle_now(request)),
    }
    return Resolution(result, body.effects("FAB-63"))


# --- sequelae, death tests, stabilisation (FAB-50..55) --------------------------------------


def resolve_sequela(request: Mapping[str, Any], dice: DiceSource) -> Resolution:
    """FAB-50/FAB-55: roll on a sequela table (the GM calls it; Broken rolls it by itself)."""
    _system(request)
    body = Body(request["character"])
    track = request["table"]
    if track not in ("physical", "mental"):
        raise InvalidInput("table must be physical or mental")
    context = {
        "weapon_mod": int(request.get("weapon_mod", 0)),
        "feats": int(request.get("feats", 0)),
        "butcher": bool(request.get("butcher")),
    }
    rolled = roll_sequela(body, track, dice, context)
    return Resolution(
        {"table": track, **rolled}, body.effects("FAB-50" if track == "physical" else "FAB-55")
    )


def _lethal_sequela(sheet: Mapping[str, Any], index: int) -> dict[str, Any]:
    sequelae = sheet.get("sequelae", [])
    if not 0 <= index < len(sequelae):
        raise InvalidInput(f"sequela index {index} is not on the sheet ({len(sequelae)} sequelae)")
    sequela: dict[str, Any] = dict(sequelae[index])
    if not sequela.get("lethal"):
        raise _refuse("FAB-51", f"{sequela['code']} is not lethal; no death test is due")
    return sequela


def resolve_death_test(request: Mapping[str, Any], dice: DiceSource) -> Resolution:
    """FAB-51: Physique + Résistance each time a lethal sequela's delay runs out."""
    _system(request)
    character = request["character"]
    body = Body(character)
    if body.sheet.get("dead"):
        raise _refuse("FAB-51", f"{character['name']} is already dead")
    sequela = _lethal_sequela(body.sheet, int(request["sequela"]))
    if sequela.get("stabilised") and sequela.get("delay") == "quart":
        raise _refuse("FAB-52", "this sequela is stabilised: the character no longer risks death")
    modifiers = [{"source": "iron_will", "dice": 2}] if has_talent(body.sheet, "iron_will") else []
    roll = {"attribute": "physique", "skill": "resistance", "modifiers": modifiers}
    result, _ = _action_roll(character, roll, int(request["session"]), dice)
    if result["outcome"] == "impossible":
        return Resolution({**result, "sequela": sequela["code"]})  # FAB-14: recorded, refused
    survived = result["outcome"] == "success"
    if not survived:
        body.sheet["dead"] = True
    return Resolution(
        {**result, "sequela": sequela["code"], "survived": survived}, body.effects("FAB-51")
    )


def resolve_stabilize(request: Mapping[str, Any], dice: DiceSource) -> Resolution:
    """FAB-52: an ally's successful Soin lengthens the delay one step (round, tour, quart)."""
    _system(request)
    healer, patient = request["healer"], request["patient"]
    if str(healer["id"]) == str(patient["id"]):
        raise _refuse("FAB-52", "stabilising is an ally's Soin roll, not one's own")
    body = Body(patient)
    index = int(request["sequela"])
    sequela = _lethal_sequela(body.sheet, index)
    if sequela.get("stabilised"):
        raise _refuse("FAB-52", f"{sequela['code']} is already stabilised")
    modifiers = [{"source": "medic", "dice": 1}] if has_talent(_sheet(healer), "medic") else []
    roll = {"attribute": "intellect", "skill": "soin", "modifiers": modifiers}
    result, _ = _action_roll(healer, roll, int(request["session"]), dice)
    if result["outcome"] == "success":
        delay = sequela.get("delay") or "quart"
        step = DELAY_STEPS.index(delay) if delay in DELAY_STEPS else len(DELAY_STEPS) - 1
        new_delay = DELAY_STEPS[min(step + 1, len(DELAY_STEPS) - 1)]
        stabilised = new_delay == "quart"
        sequelae = list(body.sheet["sequelae"])
        sequelae[index] = {**sequela, "delay": new_delay, "stabilised": stabilised}
        body.sheet["sequelae"] = sequelae
        result.update({"delay": new_delay, "stabilised": stabilised})
    return Resolution(result, body.effects("FAB-52"))


# --- environmental dangers (FAB-73) ----------------------------------------------------------

DANGERS: Final = frozenset({"fire", "explosion", "drowning", "poison", "disease", "cold"})
SAVE: Final[dict[str, Any]] = {"attribute": "physique", "skill": "resistance"}


def resolve_danger(request: Mapping[str, Any], dice: DiceSource) -> Resolution:
    """FAB-73: fire, explosion, drowning, poison, disease, cold: damage and stress."""
    _system(request)
    danger = request["danger"]
    if danger not in DANGERS:
        raise InvalidInput(f"danger must be one of {', '.join(sorted(DANGERS))}")
    character = request["character"]
    body = Body(character)
    session = int(request["session"])
    settle_now = _settle_now({"target": character, "states": request.get("states", "auto")})
    context = {"weapon_mod": 0, "feats": 0, "butcher": False}
    result: dict[str, Any] = {"danger": danger}
    damage = 0
    if danger == "fire":
        intensity = int(request.get("intensity", 3))
        if not 3 <= intensity <= 9:
            raise InvalidInput("FAB-73: a fire's intensity is 3..9 dice")
        count = intensity + max(0, int(request.get("round", 1)) - 1)  # +1 D6 each round
        faces = [dice.roll(6) for _ in range(count)]
        damage = sum(1 for face in faces if face == 6)
        result.update({"dice": faces, "damage": damage})
        if body.sheet.get("broken"):
            result["note"] = "broken by fire: a death test every round (FAB-73)"
    elif danger == "explosion":
        intensity = int(request.get("intensity", 6))
        base = int(request.get("damage", 1))
        count = max(0, intensity - (6 if request.get("medium_range") else 0))
        faces = [dice.roll(6) for _ in range(count)]
        extra = max(0, sum(1 for face in faces if face == 6) - 1)
        through, protection = _protect(body, base, 0, dice)
        damage = through + extra
        result.update(
            {
                "dice": faces,
                "base": base,
                "extra_net": extra,
                "protection": protection,
                "damage": damage,
            }
        )
    elif danger == "drowning":
        armor = body.sheet.get("armor")
        phase = request.get("phase", "float")
        if phase == "float" and armor and armor["id"] in HEAVY_METAL_ARMOR:
            result.update({"sinks": True, "reason": f"{armor['id']} sinks at once (FAB-73)"})
        else:
            roll, _ = _action_roll(character, SAVE, session, dice)
            failed = roll["outcome"] != "success"
            result["roll"] = roll
            if phase == "float":
                result["sinks"] = failed
            else:
                damage = 1 if failed else 0
                result["damage"] = damage
    elif danger in ("poison", "disease"):
        potency = int(request.get("intensity", 3))
        if not 3 <= potency <= 9:
            raise InvalidInput("FAB-73: toxicity and virulence are 3..9 dice")
        roll, _ = _action_roll(character, SAVE, session, dice)
        faces = [dice.roll(6) for _ in range(potency)]
        opposing = {
            "outcome": "failure",
            "sixes": sum(1 for face in faces if face == 6),
            "dice": faces,
        }
        opposed = _opposition(roll, opposing)
        damage = 0 if opposed["outcome"] == "success" else 1
        per = "round" if danger == "poison" else "day, and natural healing is blocked"
        result.update({"roll": opposed, "damage": damage, "per": per})
    else:  # cold
        roll, _ = _action_roll(character, SAVE, session, dice)
        failed = roll["outcome"] != "success"
        damage = 1 if failed else 0
        result.update({"roll": roll, "damage": damage})
        if failed:
            gain = stress_gain(body.sheet, 1)
            body.sheet["stress"] = int(body.sheet["stress"]) + gain
            result["stress_gained"] = gain
    result.update(threats(body, damage, "physical", "FAB-73", dice, context, settle_now))
    return Resolution(result, body.effects("FAB-73"))


# --- repairs (FAB-67) -----------------------------------------------------------------------


def resolve_repair(request: Mapping[str, Any], dice: DiceSource) -> Resolution:
    """FAB-67: a Bricolage roll restores worn armor, one point per success and per Prouesse."""
    _system(request)
    mechanic, owner = request["character"], request["owner"]
    body = Body(owner)
    armor = body.sheet.get("armor")
    if not armor:
        raise _refuse("FAB-67", f"{owner['name']} wears no armor")
    base = ARMORS[armor["id"]].value
    if int(armor["value"]) >= base:
        raise _refuse("FAB-67", f"the {armor['id']} is whole ({base}); nothing to repair")
    attribute = request.get("attribute", "intellect")
    roll = {
        "attribute": attribute,
        "skill": "bricolage",
        "helpers": request.get("helpers", 0),
        "talents": request.get("talents", []),
        "modifiers": request.get("modifiers", []),
    }
    result, effects = _action_roll(mechanic, roll, int(request["session"]), dice)
    if result["outcome"] == "success":
        restored = min(base, int(armor["value"]) + 1 + int(result["feats"]))
        body.sheet["armor"] = {**armor, "value": restored}
        result["armor_value"] = restored
    return Resolution(result, effects + body.effects("FAB-67"))


def resolve_second_wind(request: Mapping[str, Any], dice: DiceSource) -> Resolution:
    """FAB-90 second_wind: once per session when Broken, clear 1 physical state per six."""
    _system(request)
    character = request["character"]
    body = Body(character)
    if not has_talent(body.sheet, "second_wind"):
        raise InvalidInput("second_wind is a talent this character does not have")
    if not body.sheet.get("broken"):
        raise _refuse("FAB-90", f"{character['name']} is not Broken")
    if body.sheet.get("second_wind_session") == request["session"]:
        raise _refuse("FAB-90", "second_wind was already used this session")
    result, _ = _action_roll(character, SAVE, int(request["session"]), dice)
    if result["outcome"] == "impossible":
        return Resolution(result)  # FAB-14: recorded, refused, the session's use kept
    body.sheet["second_wind_session"] = int(request["session"])
    if result["outcome"] == "success":
        physical = [
            b for b in reversed(track_of(body.sheet, "physical")) if b in body.sheet["states"]
        ]
        cleared = physical[: result["sixes"]]
        body.sheet["states"] = [s for s in body.sheet["states"] if s not in cleared]
        if body.sheet.get("broken_track") == "physical" and cleared:
            body.sheet["broken"], body.sheet["broken_track"] = False, None
        result["cleared"] = cleared
    return Resolution(result, body.effects("FAB-90"))


def resolve_end_effect(request: Mapping[str, Any], dice: DiceSource) -> Resolution:
    """FAB-102: the GM ends a power's effect on a character."""
    _system(request)
    body = Body(request["character"])
    source = request["source"]
    kept = [e for e in body.sheet.get("active_effects", []) if e["source"] != source]
    if len(kept) == len(body.sheet.get("active_effects", [])):
        raise _refuse(
            "FAB-102", f"no effect of {source} is active on {request['character']['name']}"
        )
    body.sheet["active_effects"] = kept
    return Resolution({"ended": source}, body.effects("FAB-102"))


def resolve_reload(request: Mapping[str, Any], dice: DiceSource) -> Resolution:
    """FAB-71: a weapon is loaded back to its capacity (quick_reload makes it free, FAB-90)."""
    _system(request)
    body = Body(request["character"])
    weapon_id = str(request["weapon"])
    weapon, carried = _weapon(body.sheet, weapon_id)
    if carried is None or weapon.ammo is None:
        raise InvalidInput(f"the {weapon_id} takes no ammunition")
    if int(carried.get("ammo") or 0) >= weapon.ammo:
        raise _refuse("FAB-71", f"the {weapon_id} is already loaded ({weapon.ammo})")
    body.sheet["weapons"] = [
        {**w, "ammo": weapon.ammo} if w["id"] == weapon_id else w for w in body.sheet["weapons"]
    ]
    light = weapon.hands == 1
    free = light and has_talent(body.sheet, "quick_reload")
    action = "free" if free else ("slow" if not light else "fast")
    return Resolution(
        {"weapon": weapon_id, "ammo": weapon.ammo, "action": action}, body.effects("FAB-71")
    )


def resolve_street_rat(request: Mapping[str, Any], dice: DiceSource) -> Resolution:
    """FAB-90 street_rat: in a city, reroll one failed die of a Furtivité or flight roll, free."""
    _system(request)
    character = request["character"]
    sheet = _sheet(character)
    if not has_talent(sheet, "street_rat"):
        raise InvalidInput("street_rat is a talent this character does not have")
    action = request["action"]
    if action["kind"] != "fabulae.action":
        raise InvalidInput(f"follows must name a fabulae.action entry, not {action['kind']}")
    if action["request"]["roll"].get("skill") not in ("furtivite", "athletisme"):
        raise _refuse("FAB-90", "street_rat rerolls Furtivité or flight (Athlétisme) rolls only")
    if any(f["kind"] == "fabulae.street_rat" for f in request.get("follow_ups", [])):
        raise _refuse("FAB-90", "street_rat rerolls one die once per roll")
    if any(f["kind"] == "fabulae.push" for f in request.get("follow_ups", [])):
        raise _refuse("FAB-33", "the push replaced this roll for good; reroll before pushing")
    current = action["result"]
    if current["outcome"] in ("panic", "impossible"):
        raise _refuse("FAB-42", "a panicked or impossible action cannot be rerolled")
    index = int(request["die"])
    if not 0 <= index < len(current["dice"]):
        raise InvalidInput(f"die must index the roll's {len(current['dice'])} dice")
    if current["dice"][index] == 6:
        raise InvalidInput("street_rat rerolls a failed die, not a 6")
    faces = list(current["dice"])
    faces[index] = dice.roll(6)
    rolled = read_dice(faces, current["stress_dice"])
    return Resolution(
        {
            "pool": current["pool"],
            **rolled,
            "passive": current.get("passive", False),
            "rerolled_die": index,
        }
    )


ROLL_KINDS: Final[dict[str, Any]] = {
    "fabulae.state_choice": resolve_state_choice,
    "fabulae.street_rat": resolve_street_rat,
    "fabulae.attack": resolve_attack,
    "fabulae.grapple": resolve_grapple,
    "fabulae.break_free": resolve_break_free,
    "fabulae.sequela": resolve_sequela,
    "fabulae.death_test": resolve_death_test,
    "fabulae.stabilize": resolve_stabilize,
    "fabulae.danger": resolve_danger,
    "fabulae.repair": resolve_repair,
    "fabulae.second_wind": resolve_second_wind,
}
EVENT_KINDS: Final[dict[str, Any]] = {
    "fabulae.reload": resolve_reload,
    "fabulae.strangle": resolve_strangle,
    "fabulae.end_effect": resolve_end_effect,
}

register_all(ROLL_KINDS, EVENT_KINDS)


# --- initiative (FAB-61) ----------------------------------------------------------------------

DECK: Final[tuple[int, ...]] = tuple(range(1, 11))


def resolve_initiative(request: Mapping[str, Any], dice: DiceSource) -> Resolution:
    """FAB-61: each draws a card 1..10 without replacement; a second deck past ten combatants.

    A draw from what is left of the deck is a die with as many faces as cards (FAIR-8).
    `quick_draw_initiative` draws two and keeps the earlier; the other goes back.
    `drawn` lists the cards already out of the current deck (a newcomer mid-fight).
    """
    _system(request)
    deck_number = int(request.get("deck", 1))
    remaining = [card for card in DECK if card not in set(request.get("drawn", []))]
    rows = []
    for combatant in request["combatants"]:
        if not remaining:
            deck_number, remaining = deck_number + 1, list(DECK)
        card = remaining.pop(dice.roll(len(remaining)) - 1)
        cards = [card]
        if combatant.get("quick_draw_initiative") and remaining:
            second = remaining.pop(dice.roll(len(remaining)) - 1)
            cards.append(second)
            card = min(card, second)
            remaining.append(max(cards))  # the card not kept goes back
            remaining.sort()
        rows.append(
            {
                "character_id": combatant["id"],
                "name": combatant["name"],
                "kind": combatant["kind"],
                "cards": cards,
                "card": card,
                "deck": deck_number,
            }
        )
    # Increasing card order; a second deck's card after the first's; then PCs, then listing.
    order = sorted(
        enumerate(rows),
        key=lambda item: (item[1]["card"], item[1]["deck"], item[1]["kind"] != "pc", item[0]),
    )
    ordered = [row for _, row in order]
    for rank, row in enumerate(ordered, start=1):
        row["rank"] = rank
    drawn = [card for card in DECK if card not in remaining]
    return Resolution({"order": ordered, "deck": deck_number, "drawn": drawn})


register("fabulae.initiative", resolve_initiative, is_roll=True)
