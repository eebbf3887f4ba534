"""Fabulae Tenebris in an encounter: the initiative deck (FAB-61), what an action takes
from a round (FAB-60, FAB-62), and what a panic result binds (FAB-44)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from pydantic import BaseModel, Field, JsonValue

from app.engine.contract import (
    ActionCost,
    CharacterKind,
    Condition,
    Language,
    Model,
    Prepared,
    Resolution,
    RollKind,
    RulesVersion,
    Table,
)
from app.engine.dice import DiceSource
from app.engine.errors import refusal
from app.engine.rulesets.fabulae.bodies import (
    FabulaeActionCreate,
    FabulaeAttackCreate,
    FabulaeEndBindingCreate,
    FabulaeReloadCreate,
)
from app.engine.rulesets.fabulae.labels import text
from app.engine.rulesets.fabulae.pools import SYSTEM, FabulaeClock
from app.engine.rulesets.fabulae.sheet import FabulaeCharacter
from app.engine.rulesets.fabulae.tables import WEAPONS

DECK: Final[tuple[int, ...]] = tuple(range(1, 11))
ATTACK_KINDS: Final = frozenset({"fabulae.attack", "fabulae.grapple", "fabulae.strangle"})


# --- what an action costs (FAB-60) ------------------------------------------------------


def talents_of(sheet: Mapping[str, JsonValue]) -> list[str]:
    talents = sheet.get("talents")
    return [str(t) for t in talents] if isinstance(talents, list) else []


def slow_action(body: BaseModel, sheet: Mapping[str, JsonValue]) -> ActionCost:
    """FAB-60: most actions take the round's slow action."""
    return ActionCost(slow=1)


def action_cost(body: FabulaeActionCreate, sheet: Mapping[str, JsonValue]) -> ActionCost:
    """FAB-60: the player says what the action takes: slow, fast or free."""
    return ActionCost(slow=int(body.action_type == "slow"), fast=int(body.action_type == "fast"))


def attack_cost(body: FabulaeAttackCreate, sheet: Mapping[str, JsonValue]) -> ActionCost:
    if body.snap_shot:
        return ActionCost(fast=1)  # FAB-90 snap_shot: a fast Tir attack
    if "all_in" in body.talents:
        return ActionCost(slow=1, fast=1)  # FAB-90 all_in gives up the fast action
    return ActionCost(slow=1)


def granted_hands(sheet: Mapping[str, JsonValue], name: str) -> int | None:
    """FAB-71: the hands of a weapon the GM added to the sheet (custom_weapons)."""
    granted = sheet.get("custom_weapons")
    for custom in granted if isinstance(granted, list) else []:
        if isinstance(custom, dict) and custom.get("name") == name:
            hands = custom.get("hands", 1)
            return hands if isinstance(hands, int) else None
    return None


def reload_cost(body: FabulaeReloadCreate, sheet: Mapping[str, JsonValue]) -> ActionCost:
    """FAB-60/71: a one-handed gun reloads in a fast action, a heavy one (a two-handed gun:
    the crossbow too) in a slow one, as the reload's result says."""
    weapon = WEAPONS.get(body.weapon)
    hands = weapon.hands if weapon is not None else granted_hands(sheet, body.weapon)
    light = hands == 1
    if light and "quick_reload" in talents_of(sheet):
        return ActionCost()  # FAB-90 quick_reload: free
    return ActionCost(fast=1) if light else ActionCost(slow=1)


def check_budget(spent: Mapping[str, int | bool], cost: ActionCost, name: str) -> None:
    """FAB-60: one slow and one fast action a round, or two fast."""
    slow = int(spent.get("slow", 0)) + cost.slow
    fast = int(spent.get("fast", 0)) + cost.fast
    if slow > 1:
        raise refusal("FAB-60", f"{name} already took a slow action this round")
    if slow + fast > 2:
        raise refusal(
            "FAB-60", f"{name} has no action left this round (one slow + one fast, or two fast)"
        )


def has_fast_action(spent: Mapping[str, int | bool]) -> bool:
    """FAB-60/62: whether a parry or dodge may still spend a fast action this round."""
    return int(spent.get("slow", 0)) + int(spent.get("fast", 0)) + 1 <= 2


def defended(request: object) -> tuple[str, str] | None:
    """Who parried or dodged (FAB-62), and how, in an attack or grapple request, or in the
    defense that resolved one (its `attack` or `grapple`)."""
    for waited in (getattr(request, "attack", None), getattr(request, "grapple", None), request):
        defense = getattr(waited, "defense", None)
        target = getattr(waited, "target", None)
        if defense in ("parry", "dodge") and isinstance(target, FabulaeCharacter):
            return target.id, str(defense)
    return None


# --- what panic binds (FAB-44) ------------------------------------------------------------


class FabulaePanicBinding(Model):
    """What a FAB-44 result forbids a combatant in an encounter."""

    why: str
    skip_turns: int | None = None
    no_action: bool = False
    no_attack: bool = False
    next_not_attack: bool = False
    next_attack: bool = False
    habilete_malus: int = 0


PANIC_CONDITIONS: Final[dict[str, FabulaePanicBinding]] = {
    "frozen": FabulaePanicBinding(skip_turns=1, why="frozen: paralysed, loses their next turn"),
    "scream": FabulaePanicBinding(skip_turns=1, why="screaming: loses a round"),
    "catatonia": FabulaePanicBinding(no_action=True, why="catatonic: cannot act"),
    "flee": FabulaePanicBinding(no_attack=True, why="fleeing: cannot attack"),
    "take_cover": FabulaePanicBinding(
        next_not_attack=True,
        why="must first flee to cover: the next action cannot be an attack",
    ),
    "berserk": FabulaePanicBinding(
        next_attack=True, why="berserk: the next action must be an attack on the nearest target"
    ),
    "tremors": FabulaePanicBinding(habilete_malus=-2, why="trembling: -2 dice on Habileté"),
}


def check_conditions(conditions: Sequence[Condition], kind: str, name: str) -> None:
    """FAB-44: what the panic results still binding a combatant forbid."""
    for condition in conditions:
        binding = PANIC_CONDITIONS.get(condition.code)
        if binding is None:
            continue
        why = f"{name} is {binding.why}"
        if binding.no_action or (condition.skip_turns or 0) > 0:
            raise refusal("FAB-44", why)
        if binding.no_attack and kind in ATTACK_KINDS:
            raise refusal("FAB-44", why)
        if binding.next_not_attack and kind in ATTACK_KINDS:
            raise refusal("FAB-44", why)
        if binding.next_attack and kind not in ATTACK_KINDS:
            raise refusal("FAB-44", why)


def lift_next_action(conditions: Sequence[Condition]) -> list[Condition]:
    """Conditions that bind only the next action are lifted once it is taken."""
    kept = []
    for condition in conditions:
        binding = PANIC_CONDITIONS.get(condition.code)
        if binding is None or not (binding.next_not_attack or binding.next_attack):
            kept.append(condition)
    return kept


def pass_turn(conditions: Sequence[Condition]) -> list[Condition]:
    """A lost turn is spent when that turn passes.

    A panic struck during the combatant's own turn ends that turn and costs the next one:
    its condition is armed when the turn it happened in ends, spent when the next ends.
    """
    kept = []
    for condition in conditions:
        skips = condition.skip_turns or 0
        armed = True if condition.armed is None else condition.armed
        if skips and not armed:
            kept.append(condition.model_copy(update={"armed": True}))
        elif skips > 1:
            kept.append(condition.model_copy(update={"skip_turns": skips - 1}))
        elif skips == 0:
            kept.append(condition)
    return kept


def panic_condition(code: str, *, during_own_turn: bool = False) -> Condition | None:
    """The binding a FAB-44 result puts on a combatant, if any."""
    binding = PANIC_CONDITIONS.get(code)
    if binding is None:
        return None
    condition = Condition(code=code, rule="FAB-44")
    if binding.skip_turns is not None:
        condition.skip_turns = binding.skip_turns
        condition.armed = not during_own_turn
    return condition


class FabulaeEndBindingRequest(FabulaeClock):
    character: FabulaeCharacter
    code: str


class FabulaeEndBindingResult(Model):
    ended: str


def prepare_end_binding(
    body: FabulaeEndBindingCreate, table: Table
) -> Prepared[FabulaeEndBindingRequest]:
    character = table.character(str(body.character_id), FabulaeCharacter)
    request = FabulaeEndBindingRequest(
        system=SYSTEM, session=table.session, scene=table.scene, character=character, code=body.code
    )
    return Prepared(request, character_id=character.id, visibility=body.visibility)


def resolve_end_binding(
    request: FabulaeEndBindingRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[FabulaeEndBindingResult]:
    """FAB-44: a binding the rulebook gives no duration ends when the GM says so; the
    encounter lifts it (its check refuses one the combatant does not carry)."""
    return Resolution(FabulaeEndBindingResult(ended=request.code))


def end_binding_summary(
    request: FabulaeEndBindingRequest, result: FabulaeEndBindingResult, language: Language
) -> str:
    word = "fin de" if language == "fr" else "end of"
    return f"{request.character.name} — {word} {text('panic', result.ended, language)}"


END_BINDING: RollKind[
    FabulaeEndBindingCreate, FabulaeEndBindingRequest, FabulaeEndBindingResult
] = RollKind(
    name="fabulae.end_binding",
    title="Panic binding ended",
    body=FabulaeEndBindingCreate,
    request=FabulaeEndBindingRequest,
    result=FabulaeEndBindingResult,
    prepare=prepare_end_binding,
    resolve=resolve_end_binding,
    summary=end_binding_summary,
    is_roll=False,
    reaction=True,
    gm_only="end a panic's binding",
)


def habilete_malus(conditions: Sequence[Condition]) -> int:
    return sum(
        binding.habilete_malus
        for c in conditions
        if (binding := PANIC_CONDITIONS.get(c.code)) is not None
    )


# --- initiative (FAB-61) ------------------------------------------------------------------


class FabulaeInitiativeCombatant(Model):
    id: str
    name: str
    kind: CharacterKind
    quick_draw_initiative: bool = Field(default=False, description="FAB-90: draws two")


class FabulaeInitiativeRequest(FabulaeClock):
    combatants: list[FabulaeInitiativeCombatant]
    deck: int = Field(default=1, description="the deck being drawn from (a second past ten)")
    drawn: list[int] = Field(default_factory=list, description="cards already out of it")


class FabulaeInitiativeRow(Model):
    character_id: str
    name: str
    kind: CharacterKind
    cards: list[int] = Field(description="the cards drawn: two with quick_draw_initiative")
    card: int = Field(description="the card kept: the earlier")
    deck: int
    rank: int | None = None


class FabulaeInitiativeResult(Model):
    order: list[FabulaeInitiativeRow]
    deck: int
    drawn: list[int]


def resolve_initiative(
    request: FabulaeInitiativeRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[FabulaeInitiativeResult]:
    """FAB-61: each draws a card 1..10 without replacement; a second deck past ten combatants.

    A draw from what is left of the deck is a die with as many faces as cards (FAIR-8).
    `quick_draw_initiative` draws two and keeps the earlier; the other goes back.
    `drawn` lists the cards already out of the current deck (a newcomer mid-fight).
    """
    deck_number = request.deck
    remaining = [card for card in DECK if card not in set(request.drawn)]
    rows = []
    for combatant in request.combatants:
        if not remaining:
            deck_number, remaining = deck_number + 1, list(DECK)
        card = remaining.pop(dice.roll(len(remaining)) - 1)
        cards = [card]
        if combatant.quick_draw_initiative and remaining:
            second = remaining.pop(dice.roll(len(remaining)) - 1)
            cards.append(second)
            card = min(card, second)
            remaining.append(max(cards))  # the card not kept goes back
            remaining.sort()
        rows.append(
            FabulaeInitiativeRow(
                character_id=combatant.id,
                name=combatant.name,
                kind=combatant.kind,
                cards=cards,
                card=card,
                deck=deck_number,
            )
        )
    # Increasing card order; a second deck's card after the first's; then PCs, then listing.
    order = sorted(
        enumerate(rows),
        key=lambda item: (item[1].card, item[1].deck, item[1].kind != "pc", item[0]),
    )
    ordered = [row for _, row in order]
    for rank, row in enumerate(ordered, start=1):
        row.rank = rank
    drawn = [card for card in DECK if card not in remaining]
    return Resolution(FabulaeInitiativeResult(order=ordered, deck=deck_number, drawn=drawn))


def initiative_summary(
    request: FabulaeInitiativeRequest, result: FabulaeInitiativeResult, language: Language
) -> str:
    """« Initiative : Ada 2, Carl 7 »."""
    colon = " :" if language == "fr" else ":"
    order = ", ".join(f"{row.name} {row.card}" for row in result.order)
    return f"Initiative{colon} {order}"


INITIATIVE: RollKind[Any, FabulaeInitiativeRequest, FabulaeInitiativeResult] = RollKind(
    name="fabulae.initiative",
    title="Initiative",
    request=FabulaeInitiativeRequest,
    result=FabulaeInitiativeResult,
    resolve=resolve_initiative,
    summary=initiative_summary,
)
