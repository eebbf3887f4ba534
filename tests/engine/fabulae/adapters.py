"""The Fabulae engine as its tests reach it: each kind resolved through its typed contract
(`tests.engine.rules.resolve`), and the rules' helpers called on the JSON shapes the tests
write (sheets, snapshots and rolls as dicts), their answers seen as JSON."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from app.engine.contract import ClockRequest
from app.engine.dice import DiceSource
from app.engine.rulesets.fabulae import body as bodies
from app.engine.rulesets.fabulae import clock, pools, sequelae, states, stress
from app.engine.rulesets.fabulae.sheet import FabulaeCharacter, FabulaeSheet
from tests.engine import rules

Resolver = Callable[[Mapping[str, Any], DiceSource], rules.Resolved]


def resolver(kind: str) -> Resolver:
    def resolve(request: Mapping[str, Any], dice: DiceSource) -> rules.Resolved:
        return rules.resolve(kind, request, dice)

    resolve.__name__ = f"resolve_{kind.split('.')[-1]}"
    return resolve


resolve_action = resolver("fabulae.action")
resolve_opposed = resolver("fabulae.opposed")
resolve_push = resolver("fabulae.push")
resolve_state_choice = resolver("fabulae.state_choice")
resolve_absorb = resolver("fabulae.absorb")
resolve_stress = resolver("fabulae.stress")
resolve_stress_resist = resolver("fabulae.stress_resist")
resolve_panic = resolver("fabulae.panic")
resolve_recover = resolver("fabulae.recover")
resolve_destiny_award = resolver("fabulae.destiny_award")
resolve_attack = resolver("fabulae.attack")
resolve_grapple = resolver("fabulae.grapple")
resolve_break_free = resolver("fabulae.break_free")
resolve_strangle = resolver("fabulae.strangle")
resolve_sequela = resolver("fabulae.sequela")
resolve_death_test = resolver("fabulae.death_test")
resolve_stabilize = resolver("fabulae.stabilize")
resolve_danger = resolver("fabulae.danger")
resolve_power = resolver("fabulae.power")
resolve_repair = resolver("fabulae.repair")
resolve_second_wind = resolver("fabulae.second_wind")
resolve_end_effect = resolver("fabulae.end_effect")
resolve_reload = resolver("fabulae.reload")
resolve_street_rat = resolver("fabulae.street_rat")
resolve_initiative = resolver("fabulae.initiative")


def resolve_clock(request: Mapping[str, Any], dice: DiceSource) -> rules.Resolved:
    return rules.resolve("scene_started", request, dice)


def _character(character: Mapping[str, Any]) -> FabulaeCharacter:
    return FabulaeCharacter.model_validate(character)


def _sheet(sheet: Mapping[str, Any]) -> FabulaeSheet:
    return FabulaeSheet.model_validate(sheet)


def pool_of(character: Mapping[str, Any], roll: Mapping[str, Any], session: int) -> dict[str, Any]:
    inputs = pools.FabulaeRollInputs.model_validate(roll)
    return pools.pool_of(_character(character), inputs, session).dump()


def read_dice(faces: Any, stress_faces: Any) -> dict[str, Any]:
    return pools.read_dice(faces, stress_faces).dump()


def roll_pool(dice: DiceSource, pool: Mapping[str, Any]) -> dict[str, Any]:
    return pools.roll_pool(dice, pool["pool"], pool["stress_dice"]).dump()


def state_malus(sheet: Mapping[str, Any]) -> int:
    return pools.state_malus(_sheet(sheet))


def situation_dice(
    sheet: Mapping[str, Any], attribute: str, skill: str | None, in_combat: bool
) -> list[dict[str, Any]]:
    return [d.dump() for d in pools.situation_dice(_sheet(sheet), attribute, skill, in_combat)]


def stress_gain(sheet: Mapping[str, Any], amount: int) -> int:
    return stress.stress_gain(_sheet(sheet), amount)


def panic_row(score: int) -> tuple[str, str, str]:
    return stress.panic_row(score)


def track_of(sheet: Mapping[str, Any], track: str) -> list[str]:
    return states.track_of(_sheet(sheet), track)


def check_chosen_state(character: Mapping[str, Any], state: str, rule: str) -> list[dict[str, Any]]:
    return [e.dump() for e in states.check_chosen_state(_character(character), state, rule)]


def recharges(request: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [e.dump() for e in clock.recharges(ClockRequest.model_validate(request), 1)]


class Body:
    """A rule's working copy of a sheet, its sheet and effects seen as JSON."""

    def __init__(self, character: Mapping[str, Any]) -> None:
        self.body = bodies.Body(_character(character))

    @property
    def sheet(self) -> dict[str, Any]:
        return self.body.sheet.model_dump(mode="json")

    def effects(self, rule: str) -> list[dict[str, Any]]:
        return [e.dump() for e in self.body.effects(rule)]


def _context(context: Mapping[str, Any]) -> sequelae.FabulaeSequelaContext:
    return sequelae.FabulaeSequelaContext.model_validate(context)


def land_state(
    body: Body, track: Any, dice: DiceSource, context: Mapping[str, Any]
) -> dict[str, Any]:
    return states.land_state(body.body, track, dice, _context(context)).dump()


def roll_sequela(
    body: Body, track: Any, dice: DiceSource, context: Mapping[str, Any]
) -> dict[str, Any]:
    return sequelae.roll_sequela(body.body, track, dice, _context(context)).dump()
