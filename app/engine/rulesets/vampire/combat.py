"""Vampire in an encounter: initiative (the classic rule, the source gives none), tense rolls
and one Willpower a round."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field, JsonValue

from app.engine.contract import (
    CharacterKind,
    CombatAction,
    Combatant,
    InitiativeRow,
    Language,
    Model,
    PlainTurns,
    RecordedEntry,
    Resolution,
    RollKind,
    RulesVersion,
    Table,
)
from app.engine.dice import DiceSource, roll_off
from app.engine.errors import refusal
from app.engine.rulesets.vampire.action import VampireActionCreate
from app.engine.rulesets.vampire.health import DAMAGE, incapacitated
from app.engine.rulesets.vampire.sheet import VampireCharacter, VampireHealth, VampireWillpower
from app.engine.turns import check_one_action, spend_action


class VampireInitiativeCombatant(Model):
    id: str
    name: str
    kind: CharacterKind
    dexterite: int
    astuce: int


class VampireInitiativeRequest(Model):
    system: Literal["vampire"]
    session: int
    scene: int
    combatants: list[VampireInitiativeCombatant]


class VampireInitiativeRow(Model):
    character_id: str
    name: str
    kind: CharacterKind
    die: int
    traits: int = Field(description="Dextérité + Astuce")
    total: int
    rolloff: list[int] = Field(description="1D10 tie-break faces, in order")
    rank: int | None = None


class VampireInitiativeResult(Model):
    order: list[VampireInitiativeRow]


def resolve_initiative(
    request: VampireInitiativeRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[VampireInitiativeResult]:
    """No initiative rule in the source: the classic one, 1D10 + Dextérité + Astuce.

    Highest first; ties go to the higher Dextérité + Astuce, then to a 1D10 roll-off.
    """
    rows = []
    for combatant in request.combatants:
        traits = combatant.dexterite + combatant.astuce
        die = dice.roll(10)
        rows.append(
            VampireInitiativeRow(
                character_id=combatant.id,
                name=combatant.name,
                kind=combatant.kind,
                die=die,
                traits=traits,
                total=die + traits,
                rolloff=[],
            )
        )
    groups: dict[tuple[int, int], list[VampireInitiativeRow]] = {}
    for row in rows:
        groups.setdefault((-row.total, -row.traits), []).append(row)
    ordered: list[VampireInitiativeRow] = []
    for key in sorted(groups):
        ordered.extend(roll_off(groups[key], dice, 10))
    for rank, row in enumerate(ordered, start=1):
        row.rank = rank
    return Resolution(VampireInitiativeResult(order=ordered))


def initiative_summary(
    request: VampireInitiativeRequest, result: VampireInitiativeResult, language: Language
) -> str:
    order = ", ".join(f"{row.name} {row.total}" for row in result.order)
    return f"Initiative : {order}" if language == "fr" else f"Initiative: {order}"


INITIATIVE: RollKind[Any, VampireInitiativeRequest, VampireInitiativeResult] = RollKind(
    name="vampire.initiative",
    title="Initiative",
    request=VampireInitiativeRequest,
    result=VampireInitiativeResult,
    resolve=resolve_initiative,
    summary=initiative_summary,
)


class VampireCondition(Model):
    """A Vampire combatant's condition, as an encounter shows it."""

    willpower: VampireWillpower | None
    health: VampireHealth | None = Field(
        default=None, description="the damage taken (VAM-40); None on a sheet from before it"
    )


DAMAGED = "damage"  # the `spent` key of the turn's damage roll (VAM-40)


class VampireCombat(PlainTurns):
    """The Combat contract for Vampire."""

    initiative_kind = INITIATIVE.name
    initiative_each_round = True  # VAM-40: 1D10 + Dextérité + Astuce, every turn
    initiative_row = VampireInitiativeRow
    condition = VampireCondition

    def initiative(
        self, table: Table, state: Mapping[str, JsonValue], combatants: Sequence[Combatant]
    ) -> VampireInitiativeRequest:
        rows = []
        for combatant in combatants:
            sheet = table.character(combatant.character_id, VampireCharacter).sheet
            rows.append(
                VampireInitiativeCombatant(
                    id=combatant.character_id,
                    name=combatant.name,
                    kind=combatant.kind,
                    dexterite=sheet.attributes.dexterite,
                    astuce=sheet.attributes.astuce,
                )
            )
        return VampireInitiativeRequest(
            system="vampire", session=table.session, scene=table.scene, combatants=rows
        )

    def initiative_state(self, result: BaseModel) -> dict[str, JsonValue] | None:
        return None

    def initiative_rows(self, result: BaseModel) -> list[InitiativeRow]:
        assert isinstance(result, VampireInitiativeResult)
        return [InitiativeRow(row.character_id, row.dump()) for row in result.order]

    def standing_key(self, combatant: Combatant, position: int) -> tuple[Any, ...]:
        """Highest total, then the higher Dextérité + Astuce (the classic rule)."""
        return (-combatant.rank_value("total"), -combatant.rank_value("traits"), position)

    def acts_before(self, newcomer: Combatant, other: Combatant) -> bool:
        return newcomer.rank_value("total") > other.rank_value("total")

    def check_action(self, action: CombatAction) -> None:
        """VAM-40: each acts once in its turn, in initiative order (the classic rule); the
        damage roll of the turn's attack is part of that action, once."""
        if action.kind.name != DAMAGE.name:
            check_one_action(action, "VAM-40")
        elif action.actor.spent.get(DAMAGED):
            raise refusal(
                "VAM-40",
                f"{action.actor.name} rolled this turn's damage already: one attack, one "
                "damage roll; the GM may allow another (override)",
            )

    def prepare_action(self, action: CombatAction) -> BaseModel:
        if action.kind.name == DAMAGE.name:
            # The damage of the turn's attack, or itself the turn's action.
            if not action.reaction:
                action.actor.spent[DAMAGED] = True
                action.actor.spent.setdefault("action", True)
        else:
            spend_action(action)
        body = action.body
        if not isinstance(body, VampireActionCreate):
            return body
        if body.willpower:
            if action.actor.spent.get("willpower"):
                raise refusal("VAM-21", f"{action.actor.name} already spent Willpower this round")
            action.actor.spent["willpower"] = True
        return body.model_copy(update={"tense": True})  # VAM-20: no automatic success in combat

    def after_action(self, action: CombatAction, entries: Sequence[RecordedEntry]) -> None:
        return None

    def after_turn(self, combatant: Combatant) -> None:
        return None

    def sits_out(self, combatant: Combatant, sheet: Mapping[str, JsonValue]) -> str | None:
        """VAM-40: an Incapacitated combatant loses its turns until healed."""
        raw = sheet.get("health")
        if not isinstance(raw, dict):
            return None
        if incapacitated(VampireHealth.model_validate(raw)):
            return f"{combatant.name} is Incapacitated (VAM-40)"
        return None


COMBAT = VampireCombat()
