"""Fabulae Tenebris powers (FAB-100..102), pure.

Activation spends Power Points and adds one stress per PP to the caster. The powers whose
effect is a number are applied: damage through the attack path, armor and dice modifiers
as active effects on their targets (until the GM ends them or the scene ends), drain and
calm on the sheets, horror as panic rolls. The others are recorded with their cost.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from app.engine.clock import RECHARGES
from app.engine.dice import DiceSource
from app.engine.errors import InvalidInput
from app.engine.fabulae.combat import Body, _protect, land_state, threats
from app.engine.fabulae.rules import _action_roll, _opposition, _refuse, _sheet, _system
from app.engine.fabulae.tables import POWERS
from app.engine.kinds import Effect, Resolution, register

CASTER_ROLL: Final[dict[str, Any]] = {"attribute": "intellect", "skill": "connaissance"}

# Least PP each power (or option) costs (FAB-101; 1 unless stated).
MIN_COST: Final[dict[str, dict[str | None, int]]] = {
    "beast_command": {None: 1, "small": 1, "mastiff": 2, "massive": 3},
    "summon": {"minor": 3, "major": 5},
    "teleport": {None: 1, "short": 1, "medium": 4, "long": 8},
}
DAMAGE_POWERS: Final = frozenset({"bolt", "fire_cone", "blast", "hazard_zone"})
ONE_TARGET: Final = frozenset({"bolt", "drain", "calm", "barrier", "deflection", "invisibility"})


def _cost(power: str, option: str | None) -> int:
    costs = MIN_COST.get(power)
    if costs is None:
        return 1
    if option not in costs:
        choices = ", ".join(str(o) for o in costs if o is not None)
        raise InvalidInput(f"{power} takes an option: {choices}")
    return costs[option]


def _effect_entry(power: str, caster_id: str, scene: int, **values: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "source": power,
        "caster_id": caster_id,
        "scene": scene,
        "armor": 0,
        "attacks_against": 0,
        "all_rolls": 0,
        "skills": {},
        "attributes": {},
        "melee_damage": 0,
        "net_damage": 0,
        "note": "",
    }
    entry.update(values)
    return entry


def resolve_power(request: Mapping[str, Any], dice: DiceSource) -> Resolution:
    """FAB-100..102: spend PP (+1 stress each), then apply what the engine can."""
    _system(request)
    if not request.get("powers_allowed"):
        raise _refuse(
            "FAB-100", "this campaign does not allow powers (campaign option powers_allowed)"
        )
    caster = request["caster"]
    sheet = _sheet(caster)
    power, option = str(request["power"]), request.get("option")
    if power not in POWERS:
        raise InvalidInput(f"unknown power {power!r} (FAB-101 lists the power ids)")
    if power not in sheet.get("powers", []):
        raise _refuse("FAB-100", f"{caster['name']} does not have the power {power}")
    pp = int(request["pp"])
    least = _cost(power, option)
    if pp < least:
        raise InvalidInput(
            f"{power}{' (' + option + ')' if option else ''} costs at least {least} PP"
        )
    if pp > int(sheet.get("pp", 0)):
        raise _refuse(
            "FAB-100", f"{power} needs {pp} PP; {caster['name']} has {sheet.get('pp', 0)}"
        )
    targets = list(request.get("targets", []))
    if power in ONE_TARGET and len(targets) != 1:
        raise InvalidInput(f"{power} takes exactly one target")
    caster_body = Body(caster)
    caster_body.sheet["pp"] = int(sheet["pp"]) - pp
    caster_body.sheet["stress"] = int(sheet["stress"]) + pp  # FAB-100: +1 stress per PP
    result: dict[str, Any] = {"power": power, "option": option, "pp": pp, "stress_gained": pp}
    bodies = {str(t["id"]): Body(t) for t in targets}
    if str(caster["id"]) in bodies:
        bodies[str(caster["id"])] = caster_body
    applied = _apply(request, power, option, caster, caster_body, bodies, result, dice)
    result["applied"] = applied
    effects: list[Effect] = caster_body.effects("FAB-100")
    for target_id, body in bodies.items():
        if target_id != str(caster["id"]):
            effects += body.effects("FAB-102")
    return Resolution(result, effects)


def _apply(
    request: Mapping[str, Any],
    power: str,
    option: str | None,
    caster: Mapping[str, Any],
    caster_body: Body,
    bodies: dict[str, Body],
    result: dict[str, Any],
    dice: DiceSource,
) -> bool:
    """FAB-102: the numeric effects; False when the power is left to the GM's narration."""
    scene = int(request["scene"])
    session = int(request["session"])
    caster_id = str(caster["id"])

    def add_effect(body: Body, **values: Any) -> None:
        body.sheet["active_effects"] = [
            *body.sheet.get("active_effects", []),
            _effect_entry(power, caster_id, scene, **values),
        ]

    def caster_roll() -> dict[str, Any]:
        roll, _ = _action_roll({**caster, "sheet": caster_body.before}, CASTER_ROLL, session, dice)
        result["roll"] = roll
        return roll

    settle = request.get("states", "auto")
    context = {"weapon_mod": 0, "feats": 0, "butcher": False}

    def hurt(body: Body, damage: int, armor: bool = True) -> dict[str, Any]:
        through, protection = _protect(body, damage, 0, dice) if armor else (damage, None)
        now = settle == "now" or (settle == "auto" and body.character.get("kind") != "pc")
        outcome = {"damage": damage, "protection": protection, "through": through}
        outcome.update(threats(body, through, "physical", "FAB-102", dice, context, now))
        return outcome

    if power in DAMAGE_POWERS:
        hits: dict[str, Any] = {}
        if power == "bolt":
            roll = caster_roll()
            if roll["outcome"] == "success":
                ((target_id, body),) = bodies.items()
                hits[target_id] = hurt(body, 2 + int(roll["feats"]))
        for target_id, body in bodies.items():
            if power == "fire_cone":
                save, _ = _action_roll(
                    {**body.character, "sheet": body.before},
                    {"attribute": "physique", "skill": "athletisme"},
                    session,
                    dice,
                )
                halved = save["outcome"] == "success"
                hits[target_id] = {"save": save, **hurt(body, 1 if halved else 2)}
            elif power == "blast":
                save, _ = _action_roll(
                    {**body.character, "sheet": body.before},
                    {"attribute": "physique", "skill": "resistance"},
                    session,
                    dice,
                )
                outcome = {"save": save, **hurt(body, 2)}
                if save["outcome"] != "success":
                    # Meurtri is a state about to be checked: absorbable like any (FAB-34).
                    outcome["meurtri"] = True
                    now = settle == "now" or (
                        settle == "auto" and body.character.get("kind") != "pc"
                    )
                    threat = {"rule": "FAB-102", "state": "meurtri", "sequela": dict(context)}
                    if now:
                        if "meurtri" not in body.sheet.get("states", []):
                            body.sheet["states"] = [*body.sheet.get("states", []), "meurtri"]
                        else:
                            land_state(body, "physical", dice, context)
                    else:
                        pending = outcome.setdefault("pending_states", [])
                        pending.append(threat)
                hits[target_id] = outcome
            elif power == "hazard_zone":
                hits[target_id] = hurt(body, 2, armor=False)  # 2 net damage
        result["targets"] = hits
        return True
    if power == "barrier":
        for body in bodies.values():
            add_effect(body, armor=2)
        return True
    if power == "wall":
        result["wall"] = {"metres": int(request["pp"]), "armor": 4, "breaks_at_net_damage": 3}
        return True
    if power == "deflection":
        for body in bodies.values():
            add_effect(body, attacks_against=-2)
        return True
    if power == "invisibility":
        for body in bodies.values():
            add_effect(body, attacks_against=-3, skills={"furtivite": 3})
        return True
    if power in ("light_dark", "silence_noise"):
        feats = caster_roll()
        malus = -4 if feats["outcome"] == "success" and feats["feats"] else -2
        for body in bodies.values():
            add_effect(body, skills={"observation": malus})
        result["malus"] = malus
        return True
    if power in ("far_sight", "tongues", "wall_walk"):
        skill, bonus = {
            "far_sight": ("observation", 2),
            "tongues": ("connaissance", 1),
            "wall_walk": ("athletisme", 2),
        }[power]
        for body in bodies.values() or [caster_body]:
            add_effect(body, skills={skill: bonus})
        return True
    if power == "resize":
        if option not in ("grow", "shrink"):
            raise InvalidInput("resize takes an option: grow or shrink")
        for body in bodies.values() or [caster_body]:
            if option == "grow":
                add_effect(body, attributes={"physique": 1}, melee_damage=1)
            else:
                add_effect(body, attributes={"physique": -1}, skills={"furtivite": 1})
        return True
    if power == "drain":
        ((target_id, body),) = bodies.items()
        roll = caster_roll()
        resist, _ = _action_roll(
            {**body.character, "sheet": body.before},
            {"attribute": "intellect", "skill": None},
            session,
            dice,
        )
        opposed = _opposition(roll, resist)
        result["roll"] = opposed
        if opposed["outcome"] == "success":
            stolen = min(dice.roll(3), int(body.sheet.get("pp", 0)))
            body.sheet["pp"] = int(body.sheet.get("pp", 0)) - stolen
            caster_body.sheet["pp"] = min(
                int(caster_body.sheet.get("pp_max", 0)), int(caster_body.sheet["pp"]) + stolen
            )
            result["stolen"] = stolen
        return True
    if power == "calm":
        for body in bodies.values():
            body.sheet["states"] = [
                s
                for s in body.sheet.get("states", [])
                if s not in ("apeure", "demoralise", "epuise")
            ]
            body.sheet["stress"] = 0
        return True
    if power == "horror":
        result["must_roll_panic"] = {"characters": list(bodies), "modifier": -1}
        return True
    return False


register("fabulae.power", resolve_power, is_roll=True)


def recharges(request: Mapping[str, Any]) -> list[Effect]:
    """FAB-102: when a scene ends, the powers' effects on everyone end with it."""
    effects: list[Effect] = []
    for character in request.get("characters", []):
        active = (character.get("sheet") or {}).get("active_effects")
        if active:
            effects.append(
                {
                    "character_id": str(character["character_id"]),
                    "field": "active_effects",
                    "before": active,
                    "after": [],
                    "rule": "FAB-102",
                }
            )
    return effects


RECHARGES["fabulae"] = recharges
