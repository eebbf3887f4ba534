"""Initiative (JDR-30a, JDR-31, JDR-31a) and JDR Express's part in an encounter."""

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
    Outcome,
    PlainTurns,
    Prepared,
    RecordedEntry,
    Resolution,
    RollKind,
    RulesVersion,
    Table,
)
from app.engine.dice import DiceSource, roll_off
from app.engine.errors import InvalidInput, refusal
from app.engine.odds import Odds
from app.engine.rulesets.jdr.bodies import JdrActionCreate, JdrInitiativeCreate
from app.engine.rulesets.jdr.core import (
    JdrSystem,
    Mode,
    roll_2d6,
    setting_of,
    uncared_serious_wound,
)
from app.engine.rulesets.jdr.sheet import JdrCharacter, Wound
from app.engine.turns import check_one_action, spend_action

INITIATIVE_KIND = "jdr.initiative"


class JdrInitiativeCombatant(Model):
    """A combatant as initiative reads them."""

    id: str
    name: str
    kind: CharacterKind
    physique: int
    wounds: list[Wound] = Field(default_factory=list, description="JDR-3: a serious one burdens")
    surprise: bool = Field(default=False, description="JDR-31a: +2 for the first round")
    off_guard: bool = Field(default=False, description="JDR-31a: acts last in the first round")


class JdrInitiativeRow(Model):
    """One combatant's initiative, as the result and the encounter keep it."""

    character_id: str
    name: str
    kind: CharacterKind
    dice: list[int]
    physique: int
    surprise: int = Field(description="JDR-31a: +2 for the first round, or 0")
    total: int
    off_guard: bool
    rolloff: list[int] = Field(description="1D6 tie-break faces, in order (JDR-30a)")
    kept: list[bool] | None = Field(default=None, description="with a serious wound (JDR-3)")
    mode: Mode | None = Field(default=None, description="with a serious wound (JDR-3)")
    rank: int | None = None
    carried: bool | None = Field(
        default=None, description="JDR-31: rolled earlier in the scene, kept"
    )


class JdrInitiativeRequest(Model):
    system: JdrSystem
    session: int
    scene: int
    combatants: list[JdrInitiativeCombatant]
    order: list[str] = Field(
        default_factory=list, description="the players' order between tied PCs (JDR-30a)"
    )
    already_rolled: list[str] = Field(
        default_factory=list, description="JDR-31: who rolled in this scene already"
    )
    carried: list[JdrInitiativeRow] = Field(
        default_factory=list, description="JDR-31: rows rolled earlier in the scene, kept"
    )


class JdrInitiativeResult(Model):
    order: list[JdrInitiativeRow] = Field(description="the first round's order")
    later_rounds: list[str] = Field(
        description="the order from round two: surprise and off guard lapse (JDR-31a)"
    )


def _order(
    rows: list[JdrInitiativeRow], chosen: list[str], dice: DiceSource
) -> list[JdrInitiativeRow]:
    """Highest total first; on a tie PCs before NPCs, then the GM's order, physique, a roll-off."""
    groups: dict[tuple[int, int], list[JdrInitiativeRow]] = {}
    for row in rows:
        groups.setdefault((-row.total, 0 if row.kind == "pc" else 1), []).append(row)
    ordered: list[JdrInitiativeRow] = []
    for key in sorted(groups):
        ordered.extend(_break_tie(groups[key], chosen, dice))
    return ordered


def _break_tie(
    tied: list[JdrInitiativeRow], chosen: list[str], dice: DiceSource
) -> list[JdrInitiativeRow]:
    if len(tied) == 1:
        return tied
    # The players choose, through the GM's explicit order (JDR-30a).
    ranked = [row for row in tied if row.character_id in chosen]
    ranked.sort(key=lambda row: chosen.index(row.character_id))
    rest = [row for row in tied if row.character_id not in chosen]
    by_physique: dict[int, list[JdrInitiativeRow]] = {}
    for row in rest:
        by_physique.setdefault(-row.physique, []).append(row)
    for key in sorted(by_physique):
        ranked.extend(roll_off(by_physique[key], dice, 6))
    return ranked


def resolve_initiative(
    request: JdrInitiativeRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[JdrInitiativeResult]:
    """JDR-30a/31/31a: 2D6 + physique (+2 surprise); ties PC first, then the tie-breaks."""
    already = set(request.already_rolled)
    repeated = [combatant.name for combatant in request.combatants if combatant.id in already]
    if repeated:
        raise refusal(
            "JDR-31", f"initiative is rolled once per scene; already rolled: {', '.join(repeated)}"
        )
    rows = []
    for combatant in request.combatants:
        # JDR-3: a serious wound burdens every roll of its bearer, initiative included.
        wounded = uncared_serious_wound(combatant.wounds)
        roll = roll_2d6(dice, False, wounded)
        surprise = 2 if combatant.surprise else 0
        row = JdrInitiativeRow(
            character_id=combatant.id,
            name=combatant.name,
            kind=combatant.kind,
            dice=roll.dice,
            physique=combatant.physique,
            surprise=surprise,
            total=roll.kept_sum + combatant.physique + surprise,
            off_guard=combatant.off_guard,
            rolloff=[],
        )
        if wounded:
            row.kept, row.mode = roll.kept, roll.mode
        rows.append(row)
    # JDR-31: who already rolled in this scene keeps their total (a newcomer joins them).
    for kept in request.carried:
        row = kept.model_copy(deep=True)
        row.carried = True
        rows.append(row)
    chosen = list(request.order)
    # JDR-31a: whoever is caught off guard acts last in the first round.
    ordered = _order([r for r in rows if not r.off_guard], chosen, dice) + _order(
        [r for r in rows if r.off_guard], chosen, dice
    )
    for rank, row in enumerate(ordered, start=1):
        row.rank = rank
    # After the first round the surprise bonus and the off-guard penalty lapse (JDR-31a);
    # the totals stand for the whole scene (JDR-31), ties kept as first ruled.
    later = sorted(ordered, key=lambda r: (-(r.total - r.surprise), r.kind != "pc", r.rank or 0))
    return Resolution(
        JdrInitiativeResult(order=ordered, later_rounds=[row.character_id for row in later])
    )


def scene_rows(table: Table) -> dict[str, JdrInitiativeRow]:
    """JDR-31: each combatant's initiative row already rolled in the current scene."""
    found: dict[str, JdrInitiativeRow] = {}
    for entry in table.scene_entries(INITIATIVE_KIND):
        for item in JdrInitiativeResult.model_validate(entry.result).order:
            kept = item.model_dump(mode="json", exclude_unset=True, exclude={"rank", "carried"})
            found[item.character_id] = JdrInitiativeRow.model_validate(kept)
    return found


def rolled_this_scene(table: Table) -> list[str]:
    """JDR-31: who already has initiative in the current scene (as the GM called it)."""
    return [
        combatant.id
        for entry in table.scene_entries(INITIATIVE_KIND)
        for combatant in JdrInitiativeRequest.model_validate(entry.request).combatants
    ]


def combatant_of(
    table: Table, character_id: str, surprise: bool, off_guard: bool
) -> JdrInitiativeCombatant:
    character = table.character(character_id, JdrCharacter)
    return JdrInitiativeCombatant(
        id=character.id,
        name=character.name,
        kind=character.kind,
        physique=character.sheet.traits.physique,
        wounds=character.sheet.wounds,
        surprise=surprise,
        off_guard=off_guard,
    )


def prepare_initiative(body: JdrInitiativeCreate, table: Table) -> Prepared[JdrInitiativeRequest]:
    seen = set()
    combatants = []
    for entry in body.combatants:
        if entry.character_id in seen:
            raise InvalidInput(f"combatant {entry.character_id} is listed twice")
        seen.add(entry.character_id)
        combatants.append(
            combatant_of(table, str(entry.character_id), entry.surprise, entry.off_guard)
        )
    request = JdrInitiativeRequest(
        system=setting_of(table),
        session=table.session,
        scene=table.scene,
        combatants=combatants,
        order=[str(x) for x in body.order or []],
        already_rolled=rolled_this_scene(table),
    )
    return Prepared(request, visibility=body.visibility)


def initiative_summary(
    request: JdrInitiativeRequest, result: JdrInitiativeResult, language: Language
) -> str:
    """« Initiative : Strigoi 12, Ilona 10, Mihail 14 »."""
    order = ", ".join(f"{row.name} {row.total}" for row in result.order)
    return f"Initiative : {order}" if language == "fr" else f"Initiative: {order}"


def initiative_outcome(result: JdrInitiativeResult) -> Outcome:
    return Outcome("event", "initiative_rolled")


def initiative_odds(request: JdrInitiativeRequest, version: RulesVersion) -> Odds:
    """Issue 21: each total's exact odds (jdr/odds.py, which builds on this module)."""
    from app.engine.rulesets.jdr.odds import initiative_odds as exact

    return exact(request, version)


INITIATIVE: RollKind[JdrInitiativeCreate, JdrInitiativeRequest, JdrInitiativeResult] = RollKind(
    name=INITIATIVE_KIND,
    title="Initiative",
    body=JdrInitiativeCreate,
    request=JdrInitiativeRequest,
    result=JdrInitiativeResult,
    prepare=prepare_initiative,
    resolve=resolve_initiative,
    summary=initiative_summary,
    outcome=initiative_outcome,
    odds=initiative_odds,
    gm_only="call for initiative",
)


# --- encounters ------------------------------------------------------------------------------


class JdrCondition(Model):
    """A JDR combatant's condition, as an encounter shows it (sheet fields)."""

    wounds: list[Wound] | None
    status: Literal["active", "npc"] | None
    destroyed: bool | None


def _carried(row: JdrInitiativeRow, combatant: Combatant) -> JdrInitiativeRow:
    """JDR-31a: a carried total loses the old fight's surprise and takes this one's."""
    surprise = 2 if combatant.surprise else 0
    base = row.total - row.surprise
    return row.model_copy(
        update={"total": base + surprise, "surprise": surprise, "off_guard": combatant.off_guard}
    )


class JdrCombat(PlainTurns):
    """The Combat contract for JDR Express."""

    initiative_kind = INITIATIVE_KIND
    initiative_row = JdrInitiativeRow
    condition = JdrCondition

    def initiative(
        self, table: Table, state: Mapping[str, JsonValue], combatants: Sequence[Combatant]
    ) -> JdrInitiativeRequest:
        """JDR-31: initiative is rolled once per scene; earlier totals carry over, and this
        encounter's own surprise and off guard apply to its first round."""
        earlier = scene_rows(table)
        rolling = [
            combatant_of(table, c.character_id, c.surprise, c.off_guard)
            for c in combatants
            if c.character_id not in earlier
        ]
        carried = [
            _carried(earlier[c.character_id], c) for c in combatants if c.character_id in earlier
        ]
        return JdrInitiativeRequest(
            system=setting_of(table),
            session=table.session,
            scene=table.scene,
            combatants=rolling,
            carried=carried,
            already_rolled=[],
        )

    def initiative_state(self, result: BaseModel) -> dict[str, JsonValue] | None:
        return None

    def initiative_rows(self, result: BaseModel) -> list[InitiativeRow]:
        assert isinstance(result, JdrInitiativeResult)
        return [InitiativeRow(row.character_id, row.dump()) for row in result.order]

    def standing_key(self, combatant: Combatant, position: int) -> tuple[Any, ...]:
        """The scene's totals without the first round's surprise (JDR-31/31a), PCs first on
        a tie, then the first round's order."""
        total = combatant.rank_value("total") - combatant.rank_value("surprise")
        return (-total, combatant.kind != "pc", position)

    def acts_before(self, newcomer: Combatant, other: Combatant) -> bool:
        return newcomer.rank_value("total") > other.rank_value("total")

    def sits_out(self, combatant: Combatant, sheet: Mapping[str, JsonValue]) -> str | None:
        """A creature destroyed for good (JDR-36's stake) acts no more. Nothing else takes
        a JDR combatant out: wounds burden rolls (JDR-3), and a PC turned NPC (JDR-42)
        still acts, for the GM."""
        if sheet.get("destroyed") is True:
            return f"JDR-36: {combatant.name} is destroyed for good"
        return None

    def check_action(self, action: CombatAction) -> None:
        """JDR-30a: each acts in its turn, once."""
        check_one_action(action, "JDR-30a")

    def prepare_action(self, action: CombatAction) -> BaseModel:
        """JDR-31a: a PC caught off guard gets no talent bonus in the first round."""
        spend_action(action)
        body = action.body
        if (
            isinstance(body, JdrActionCreate)
            and action.round == 1
            and action.actor.off_guard
            and action.actor.kind == "pc"
        ):
            return body.model_copy(update={"no_talent_bonus": True})
        return body

    def after_action(self, action: CombatAction, entries: Sequence[RecordedEntry]) -> None:
        return None

    def after_turn(self, combatant: Combatant) -> None:
        return None


COMBAT = JdrCombat()
