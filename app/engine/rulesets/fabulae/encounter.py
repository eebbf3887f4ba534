"""Fabulae Tenebris's part in an encounter (FAB-44, FAB-60..64): what a combatant may do
now, what an action costs and spends, who sits out (FAB-23 corrected), the round's
passing (FAB-50 corrected) and the states the turn waits for (FAB-34)."""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from typing import Any, Final

from pydantic import BaseModel, JsonValue

from app.engine.contract import (
    ActionCost,
    CombatAction,
    Combatant,
    Condition,
    InitiativeRow,
    Model,
    RecordedEntry,
    Table,
)
from app.engine.errors import refusal
from app.engine.rulesets.fabulae.acting import why_not
from app.engine.rulesets.fabulae.bodies import (
    FabulaeActionCreate,
    FabulaeAttackCreate,
    FabulaeDefendCreate,
    FabulaeEndBindingCreate,
    FabulaeGrappleCreate,
    FabulaeModifierBody,
    FabulaeRoundCreate,
)
from app.engine.rulesets.fabulae.combat import (
    PANIC_CONDITIONS,
    FabulaeInitiativeCombatant,
    FabulaeInitiativeRequest,
    FabulaeInitiativeResult,
    FabulaeInitiativeRow,
    check_budget,
    check_conditions,
    defended,
    habilete_malus,
    has_fast_action,
    lift_next_action,
    panic_condition,
    pass_turn,
)
from app.engine.rulesets.fabulae.pools import SYSTEM
from app.engine.rulesets.fabulae.sheet import FabulaeCharacter, Sequela
from app.engine.rulesets.fabulae.states import unsettled

AIMING: Final = "aiming"  # FAB-64: the condition an aim leaves until the next action


class FabulaeCondition(Model):
    """What an encounter shows of a combatant's condition."""

    states: list[str] | None = None
    broken: bool | None = None
    stress: int | None = None
    sequelae: list[Sequela] | None = None
    dead: bool | None = None
    armor: dict[str, JsonValue] | None = None
    grappled_by: str | None = None


def paralysed(combatant: Combatant, untold: frozenset[int] = frozenset()) -> bool:
    """FAB-44: frozen, screaming or catatonic, it does not parry or dodge (FAB-62); not for
    a binding a hidden entry set that the table may not know of yet (FAIR-21)."""
    return any(
        (binding := PANIC_CONDITIONS.get(c.code)) is not None
        and (binding.no_action or binding.skip_turns is not None)
        and c.seq not in untold
        for c in combatant.conditions
    )


def bound(combatants: Sequence[Combatant], character_id: str, code: str) -> None:
    """FAB-44: refuse to end a binding the combatant does not carry."""
    for combatant in combatants:
        if combatant.character_id == character_id:
            if not any(c.code == code for c in combatant.conditions):
                raise refusal("FAB-44", f"{combatant.name} is not bound by {code}")
            return
    raise refusal("FAB-44", f"character {character_id} is not fighting in this encounter")


class FabulaeCombat:
    """FAB-44, FAB-60..62 in an encounter."""

    initiative_kind = "fabulae.initiative"
    initiative_each_round = False  # FAB-61: the cards hold for the fight
    initiative_row = FabulaeInitiativeRow
    condition = FabulaeCondition

    def initiative(
        self, table: Table, state: Mapping[str, JsonValue], combatants: Sequence[Combatant]
    ) -> FabulaeInitiativeRequest:
        rows = []
        for combatant in combatants:
            sheet = table.character(combatant.character_id, FabulaeCharacter).sheet
            rows.append(
                FabulaeInitiativeCombatant(
                    id=combatant.character_id,
                    name=combatant.name,
                    kind=combatant.kind,
                    quick_draw_initiative="quick_draw_initiative" in sheet.talents,
                )
            )
        deck = state.get("deck", 1)
        drawn = state.get("drawn", [])
        return FabulaeInitiativeRequest(
            system=SYSTEM,
            session=table.session,
            scene=table.scene,
            combatants=rows,
            deck=deck if isinstance(deck, int) else 1,
            drawn=[card for card in drawn if isinstance(card, int)]
            if isinstance(drawn, list)
            else [],
        )

    def initiative_state(self, result: BaseModel) -> dict[str, JsonValue] | None:
        assert isinstance(result, FabulaeInitiativeResult)
        return {"deck": result.deck, "drawn": list(result.drawn)}

    def initiative_rows(self, result: BaseModel) -> list[InitiativeRow]:
        assert isinstance(result, FabulaeInitiativeResult)
        return [InitiativeRow(row.character_id, row.dump()) for row in result.order]

    def standing_key(self, combatant: Combatant, position: int) -> tuple[Any, ...]:
        """Ascending cards, the first deck first (FAB-61); ties keep the first round's order."""
        return (combatant.rank_value("card", 99), combatant.rank_value("deck", 99), position)

    def acts_before(self, newcomer: Combatant, other: Combatant) -> bool:
        return (newcomer.rank_value("card", 99), newcomer.rank_value("deck", 9)) < (
            other.rank_value("card", 99),
            other.rank_value("deck", 9),
        )

    def check_action(self, action: CombatAction) -> None:
        check_conditions(action.actor.conditions, action.kind.name, action.actor.name)

    def prepare_action(self, action: CombatAction) -> BaseModel:
        """FAB-60's budget, FAB-62's defense, FAB-44's tremors, FAB-75's combat."""
        body, actor = action.body, action.actor
        if isinstance(body, FabulaeEndBindingCreate):
            bound(action.combatants, str(body.character_id), body.code)
        kind = action.kind
        cost = kind.cost(body, action.sheet) if kind.cost is not None else ActionCost()
        if not action.override:
            check_budget(actor.spent, cost, actor.name)
        actor.spent["slow"] = int(actor.spent.get("slow", 0)) + cost.slow
        actor.spent["fast"] = int(actor.spent.get("fast", 0)) + cost.fast
        # FAB-62 (corrected): a defender without a fast action left is attacked undefended;
        # the fast action of a parry or dodge is spent once it is rolled (after_action).
        defender_id = None
        if isinstance(body, FabulaeAttackCreate | FabulaeGrappleCreate):
            defender_id = str(body.target_id)
        elif isinstance(body, FabulaeDefendCreate):
            defender_id = str(body.character_id)
        defender = next((c for c in action.combatants if c.character_id == defender_id), None)
        if defender is not None and (
            not has_fast_action(defender.spent) or paralysed(defender, action.untold)
        ):
            body = body.model_copy(update={"defense": "none"})
        body = self.aim(body, actor)
        malus = habilete_malus(actor.conditions)
        rolls_habilete = (
            isinstance(body, FabulaeActionCreate) and body.attribute == "habilete"
        ) or (isinstance(body, FabulaeAttackCreate) and body.mode == "ranged")
        if malus and rolls_habilete:
            assert isinstance(body, FabulaeActionCreate | FabulaeAttackCreate)
            tremors = FabulaeModifierBody(source="panic tremors", dice=malus)
            body = body.model_copy(update={"modifiers": [*body.modifiers, tremors]})
        if isinstance(body, FabulaeActionCreate):
            body = body.model_copy(update={"in_combat": True})  # FAB-75
        return body

    def aim(self, body: BaseModel, actor: Combatant) -> BaseModel:
        """FAB-64 (corrected): a shot is aimed when its shooter aimed as the action before."""
        if not isinstance(body, FabulaeAttackCreate) or body.mode != "ranged":
            return body
        if any(c.code == AIMING for c in actor.conditions):
            return body.model_copy(update={"aimed": True})
        if body.aimed:
            raise refusal(
                "FAB-64", f"{actor.name} has not aimed: aiming is a slow action (fabulae.aim)"
            )
        return body

    def after_action(self, action: CombatAction, entries: Sequence[RecordedEntry]) -> None:
        """Panic results bind their combatant (FAB-44); next-action constraints lift; an aim
        holds for the next action only (FAB-64)."""
        actor = action.actor
        if not action.reaction:
            actor.conditions = [c for c in lift_next_action(actor.conditions) if c.code != AIMING]
            if action.kind.name == "fabulae.aim":
                actor.conditions = [*actor.conditions, Condition(code=AIMING, rule="FAB-64")]
        for entry in entries:
            parried = defended(entry.request)
            for combatant in action.combatants:
                if parried is not None and combatant.character_id == parried[0]:
                    combatant.spent["fast"] = int(combatant.spent.get("fast", 0)) + 1
            if entry.kind == "fabulae.end_binding":
                for combatant in action.combatants:
                    if combatant.character_id == entry.character_id:
                        code = entry.result.get("ended")
                        combatant.conditions = [c for c in combatant.conditions if c.code != code]
                continue
            if entry.kind != "fabulae.panic" or entry.character_id is None:
                continue
            condition = panic_condition(
                str(entry.result.get("code")),
                during_own_turn=entry.character_id == (action.turn_of or actor.character_id),
            )
            if condition is None:
                continue
            # Its entry may be hidden: whoever may not see it does not see the binding.
            condition.seq = entry.seq
            for combatant in action.combatants:
                if combatant.character_id == entry.character_id:
                    combatant.conditions = [*combatant.conditions, condition]

    def after_turn(self, combatant: Combatant) -> None:
        combatant.conditions = pass_turn(combatant.conditions)

    def sits_out(self, combatant: Combatant, sheet: Mapping[str, JsonValue]) -> str | None:
        """FAB-23/50/51 (corrected): the dead, the Broken and the unconscious lose their
        turns; FAB-44: so do the frozen, the screaming and the catatonic."""
        for condition in combatant.conditions:
            binding = PANIC_CONDITIONS.get(condition.code)
            armed = condition.armed is None or condition.armed
            if binding is not None and (binding.no_action or (condition.skip_turns and armed)):
                return f"{combatant.name} is {binding.why}"
        character = FabulaeCharacter.model_validate(
            {"id": "-", "name": "-", "kind": "npc", "sheet": sheet}
        )
        found = why_not(character, "fabulae.action")
        return found[1] if found is not None and found[0] != "FAB-63" else None

    def new_round(self, combatants: Sequence[Combatant]) -> BaseModel | None:
        """FAB-50 (corrected): a round passes for everyone fighting (`fabulae.round`)."""
        ids = [uuid.UUID(c.character_id) for c in combatants if c.active]
        return FabulaeRoundCreate(kind="fabulae.round", character_ids=ids) if ids else None

    def unsettled(self, table: Table, seq: int) -> dict[str, int]:
        return unsettled(table, seq)


COMBAT = FabulaeCombat()
