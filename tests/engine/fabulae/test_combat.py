"""Fabulae Tenebris in an encounter (app/engine/rulesets/fabulae/combat.py): the round's
budget (FAB-60), the defender's fast action (FAB-62), the panic results that bind a
combatant (FAB-44) and card initiative (FAB-61).

The encounter rules are called on the JSON shapes the encounter stores (conditions and
spent actions as dicts), their answers seen as JSON; what an action costs is what
FabulaeCombat.prepare_action charges for the typed body the service validates. Initiative
draws from ReplayDice through the kind's typed contract, and every test checks that exactly
the scripted dice were drawn. Expected values are written here from the rules' text.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict
from itertools import product
from typing import Any

import pytest
from pydantic import BaseModel

from app.engine.contract import ActionCost, CombatAction, Combatant, Condition, RecordedEntry
from app.engine.dice import ReplayDice
from app.engine.errors import RuleRefusal
from app.engine.registry import DEFAULT_REGISTRY
from app.engine.rulesets.fabulae import combat, encounter
from app.engine.rulesets.fabulae.damage import FabulaeAttackRequest
from tests.engine.fabulae.combat import FOE, PC, SYSTEM, attack_req, char, make_sheet
from tests.engine.rules import Resolved, resolve

KINDS = {kind.name: kind for _, kind in DEFAULT_REGISTRY.kinds()}
# Kinds that answer something already rolled: they come out of turn and cost nothing.
REACTION_KINDS = frozenset(name for name, kind in KINDS.items() if kind.reaction)
# FAB-44 binds combatants of a Fabulae encounter, which takes Fabulae kinds only (another
# ruleset's kind is refused before any condition is read: tests/api/test_encounters.py).
ATTACKS = ("fabulae.attack", "fabulae.grapple", "fabulae.strangle")
NOT_ATTACKS = ("fabulae.action", "fabulae.reload", "fabulae.push", "fabulae.power")
FOLLOWS = 40  # the entry a reaction follows up


def replay(*draws: tuple[int, int]) -> ReplayDice:
    """ReplayDice from (sides, face) pairs."""
    return ReplayDice([{"sides": sides, "face": face} for sides, face in draws])


def refusal(call: Callable[..., Any], *args: Any) -> RuleRefusal:
    with pytest.raises(RuleRefusal) as caught:
        call(*args)
    return caught.value


# --- the encounter's bookkeeping, as JSON ---------------------------------------------------

SHEET: dict[str, Any] = {"talents": []}
COST_KEYS = ("slow", "fast")
# What each kind's body needs besides what a case sets (the shapes clients post).
BODIES: dict[str, dict[str, Any]] = {
    "fabulae.attack": {"attacker_id": PC, "target_id": FOE, "weapon": "sabre"},
    "fabulae.reload": {"character_id": PC},
    "fabulae.action": {"character_id": PC, "attribute": "physique"},
    "fabulae.grapple": {"attacker_id": PC, "target_id": FOE},
    "fabulae.opposed": {
        "active": {"character_id": PC, "attribute": "physique", "skill": "athletisme"},
        "passive": {"character_id": FOE, "attribute": "physique", "skill": "athletisme"},
    },
    "fabulae.stress": {"character_ids": [PC], "amount": 1},
    "fabulae.end_effect": {"character_id": PC, "source": "resize"},
    "fabulae.destiny_award": {"character_id": PC},
    "fabulae.danger": {"character_id": PC, "danger": "fire"},
    # The reactions: follow-ups of an entry already in the log, or rolls it set off.
    "fabulae.push": {"follows": FOLLOWS},
    "fabulae.defend": {"follows": FOLLOWS, "character_id": FOE, "defense": "parry"},
    "fabulae.oppose": {"follows": FOLLOWS, "character_id": FOE},
    "fabulae.state_choice": {"follows": FOLLOWS},
    "fabulae.absorb": {"follows": FOLLOWS},
    "fabulae.street_rat": {"follows": FOLLOWS, "die": 0},
    "fabulae.panic": {"character_id": PC},
    "fabulae.death_test": {"character_id": PC, "sequela": 0},
    "fabulae.end_binding": {"character_id": PC, "code": "frozen"},
    "jdr.talisman": {"follows": FOLLOWS, "words": "Seigneur, garde-moi de cette bête."},
    "jdr.talisman_ruling": {"follows": FOLLOWS, "sincere": True},
    "jdr.effleurement": {"follows": FOLLOWS, "mark": "Un mot dans une langue inconnue"},
    "jdr.effleurement_refusal": {"follows": FOLLOWS},
    "jdr.joker": {"follows": FOLLOWS},
    "jdr.mark": {"follows": FOLLOWS, "wording": "un mot en aklo"},
    "jdr.context": {"follows": FOLLOWS, "context": {"direct_peril": True}},
}


def fighter(
    character_id: str,
    name: str,
    spent: Mapping[str, int] | None = None,
    conditions: Sequence[Condition] = (),
) -> Combatant:
    """A combatant as the encounter keeps one."""
    return Combatant(
        character_id=character_id,
        name=name,
        kind="pc",
        side="pcs",
        surprise=False,
        off_guard=False,
        active=True,
        initiative=None,
        spent=dict(spent or {}),
        conditions=list(conditions),
    )


def prepare(
    kind: str,
    body: Mapping[str, Any],
    actor: Combatant,
    *others: Combatant,
    sheet: Mapping[str, Any] = SHEET,
) -> BaseModel:
    """FabulaeCombat.prepare_action on the typed body the service validates (the kind's
    BODIES fields, then the case's); the body it prepared is returned."""
    roll_kind = KINDS[kind]
    assert roll_kind.body is not None
    typed = roll_kind.body.model_validate({"kind": kind, **BODIES[kind], **body})
    return encounter.COMBAT.prepare_action(
        CombatAction(
            kind=roll_kind,
            body=typed,
            actor=actor,
            combatants=[actor, *others],
            round=1,
            override=False,
            reaction=roll_kind.reaction,
            sheet=sheet,
        )
    )


def fabulae_cost(kind: str, body: Mapping[str, Any], sheet: Mapping[str, Any]) -> dict[str, int]:
    """FAB-60: what the action takes from its actor's round, as the encounter charges it:
    the kind's `cost` (a kind without one takes nothing). Ending a binding needs one."""
    bound = [Condition(code="frozen", rule="FAB-44")] if kind == "fabulae.end_binding" else []
    actor = fighter(PC, "Ada", conditions=bound)
    typed = prepare(kind, body, actor, sheet=sheet)
    charged = {key: int(actor.spent[key]) for key in COST_KEYS}
    declared = KINDS[kind].cost
    if declared is not None:
        assert asdict(declared(typed, sheet)) == charged
    return charged


def check_fabulae_budget(spent: Mapping[str, int], cost: Mapping[str, int], name: str) -> None:
    combat.check_budget(spent, ActionCost(**cost), name)


def defend_in_round(spent: Mapping[str, int], name: str) -> tuple[str | None, dict[str, int]]:
    """FAB-62 as an encounter applies it: the defense a melee attack on `name` that asks
    for a parry is resolved with, then what the rolled parry takes from the defender's round
    (FabulaeCombat.prepare_action, then after_action on the recorded attack)."""
    defender = fighter(FOE, name, spent)
    attacker = fighter(PC, "Ada")
    body = prepare("fabulae.attack", {"mode": "melee", "defense": "parry"}, attacker, defender)
    defense = getattr(body, "defense", None)
    request = FabulaeAttackRequest.model_validate(
        attack_req(make_sheet(), make_sheet(), "melee", "sabre", defense=defense)
        | {"target": char(make_sheet(), FOE, "npc")}
    )
    action = CombatAction(
        kind=KINDS["fabulae.attack"],
        body=body,
        actor=attacker,
        combatants=[attacker, defender],
        round=1,
        override=False,
        reaction=False,
        sheet=SHEET,
    )
    encounter.COMBAT.after_action(action, [RecordedEntry(1, "fabulae.attack", PC, {}, request)])
    spent_now = {key: int(defender.spent.get(key, 0)) - int(spent.get(key, 0)) for key in COST_KEYS}
    return defense, spent_now


def as_conditions(raw: list[Mapping[str, Any]]) -> list[Condition]:
    return [Condition.model_validate(condition) for condition in raw]


def check_conditions(raw: list[Mapping[str, Any]], kind: str, name: str) -> None:
    combat.check_conditions(as_conditions(raw), kind, name)


def after_action(raw: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
    return [condition.dump() for condition in combat.lift_next_action(as_conditions(raw))]


def after_turn(raw: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
    return [condition.dump() for condition in combat.pass_turn(as_conditions(raw))]


def panic_condition(code: str, *, during_own_turn: bool = False) -> dict[str, Any] | None:
    condition = combat.panic_condition(code, during_own_turn=during_own_turn)
    return None if condition is None else condition.dump()


def habilete_malus(raw: list[Mapping[str, Any]]) -> int:
    return combat.habilete_malus(as_conditions(raw))


# --- FAB-60: the round's budget ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("spent_slow", "spent_fast", "cost_slow", "cost_fast"),
    list(product(range(3), range(4), range(2), range(2))),
)
def test_FAB_60_budget_every_spent_and_cost(
    spent_slow: int, spent_fast: int, cost_slow: int, cost_fast: int
) -> None:
    spent = {"slow": spent_slow, "fast": spent_fast}
    cost = {"slow": cost_slow, "fast": cost_fast}
    slow, fast = spent_slow + cost_slow, spent_fast + cost_fast
    # One slow + one fast, or two fast: at most one slow, at most two actions in all.
    allowed = slow <= 1 and slow + fast <= 2
    if allowed:
        assert check_fabulae_budget(spent, cost, "Ada") is None
        return
    error = refusal(check_fabulae_budget, spent, cost, "Ada")
    assert error.rule == "FAB-60"
    assert "Ada" in error.detail
    if slow > 1:
        assert "slow action" in error.detail


def test_FAB_60_a_round_is_one_slow_and_one_fast_or_two_fast() -> None:
    slow, fast = {"slow": 1, "fast": 0}, {"slow": 0, "fast": 1}
    check_fabulae_budget({}, slow, "Ada")
    check_fabulae_budget({"slow": 1}, fast, "Ada")  # slow then fast
    check_fabulae_budget({"fast": 1}, slow, "Ada")  # fast then slow
    check_fabulae_budget({"fast": 1}, fast, "Ada")  # two fast
    assert refusal(check_fabulae_budget, {"slow": 1}, slow, "Ada").rule == "FAB-60"
    assert refusal(check_fabulae_budget, {"fast": 2}, slow, "Ada").rule == "FAB-60"
    assert refusal(check_fabulae_budget, {"fast": 2}, fast, "Ada").rule == "FAB-60"
    assert refusal(check_fabulae_budget, {"slow": 1, "fast": 1}, fast, "Ada").rule == "FAB-60"
    # A free action fits in any round, even a spent one.
    check_fabulae_budget({"slow": 1, "fast": 1}, {"slow": 0, "fast": 0}, "Ada")
    check_fabulae_budget({"fast": 2}, {"slow": 0, "fast": 0}, "Ada")


@pytest.mark.parametrize(
    ("kind", "body", "sheet", "cost"),
    [
        ("fabulae.attack", {"mode": "melee"}, SHEET, (1, 0)),
        # FAB-90 snap_shot (a ranged attack: the revolver)
        (
            "fabulae.attack",
            {"mode": "ranged", "weapon": "revolver", "snap_shot": True},
            SHEET,
            (0, 1),
        ),
        ("fabulae.attack", {"mode": "melee", "talents": ["all_in"]}, SHEET, (1, 1)),  # FAB-90
        ("fabulae.reload", {"weapon": "revolver"}, SHEET, (0, 1)),
        ("fabulae.reload", {"weapon": "crossbow"}, SHEET, (1, 0)),  # two-handed: slow
        ("fabulae.reload", {"weapon": "repeating_rifle"}, SHEET, (1, 0)),
        ("fabulae.reload", {"weapon": "revolver"}, {"talents": ["quick_reload"]}, (0, 0)),
        ("fabulae.reload", {"weapon": "repeating_rifle"}, {"talents": ["quick_reload"]}, (1, 0)),
        ("fabulae.action", {}, SHEET, (1, 0)),
        ("fabulae.action", {"action_type": "slow"}, SHEET, (1, 0)),
        ("fabulae.action", {"action_type": "fast"}, SHEET, (0, 1)),
        ("fabulae.action", {"action_type": "free"}, SHEET, (0, 0)),
        ("fabulae.grapple", {}, SHEET, (1, 0)),
        ("fabulae.opposed", {}, SHEET, (1, 0)),
        ("fabulae.stress", {}, SHEET, (0, 0)),
        ("fabulae.end_effect", {}, SHEET, (0, 0)),
        ("fabulae.destiny_award", {}, SHEET, (0, 0)),
        ("fabulae.danger", {}, SHEET, (0, 0)),
    ],
)
def test_FAB_60_what_each_action_costs(
    kind: str, body: dict[str, Any], sheet: dict[str, Any], cost: tuple[int, int]
) -> None:
    assert fabulae_cost(kind, body, sheet) == {"slow": cost[0], "fast": cost[1]}


@pytest.mark.parametrize("kind", sorted(REACTION_KINDS))
def test_reactions_cost_nothing(kind: str) -> None:
    assert fabulae_cost(kind, {}, SHEET) == {"slow": 0, "fast": 0}


def test_reaction_kinds_are_follow_ups_not_actions() -> None:
    assert {"fabulae.panic", "fabulae.push", "jdr.talisman", "jdr.joker"} <= REACTION_KINDS
    for kind in ("fabulae.attack", "fabulae.action", "jdr.attack", "jdr.action", "vampire.action"):
        assert kind not in REACTION_KINDS


# --- FAB-62: a parry or a dodge spends the defender's fast action -------------------------------


@pytest.mark.parametrize(("spent_slow", "spent_fast"), list(product(range(2), range(3))))
def test_FAB_62_defense_spends_a_fast_action(spent_slow: int, spent_fast: int) -> None:
    spent = {"slow": spent_slow, "fast": spent_fast}
    if spent_slow + spent_fast < 2:
        assert defend_in_round(spent, "Thug") == ("parry", {"slow": 0, "fast": 1})
        # What the defense leaves still fits the FAB-60 round.
        check_fabulae_budget(spent, {"slow": 0, "fast": 1}, "Thug")
    else:
        # FAB-62 (corrected): no fast action left, the defender is attacked undefended.
        assert defend_in_round(spent, "Thug") == ("none", {"slow": 0, "fast": 0})


def test_FAB_62_a_defender_who_parried_keeps_a_slow_action_only_if_none_was_taken() -> None:
    after_parry = {"slow": 0, "fast": 1}
    check_fabulae_budget(after_parry, {"slow": 1, "fast": 0}, "Thug")
    check_fabulae_budget(after_parry, {"slow": 0, "fast": 1}, "Thug")
    assert not combat.has_fast_action({"slow": 1, "fast": 1})
    assert not combat.has_fast_action({"fast": 2})
    assert combat.has_fast_action({})
    assert defend_in_round({}, "Thug") == ("parry", {"slow": 0, "fast": 1})


def test_FAB_62_a_defense_waits_for_no_fast_action_it_does_not_have() -> None:
    """An attack that leaves the defense to the defender is resolved undefended at once when
    the defender has no fast action left this round (nothing to wait for)."""
    defender = fighter(FOE, "Thug", {"slow": 1, "fast": 1})
    body = prepare("fabulae.attack", {"mode": "melee"}, fighter(PC, "Ada"), defender)
    assert getattr(body, "defense", None) == "none"
    body = prepare("fabulae.attack", {"mode": "melee"}, fighter(PC, "Ada"), fighter(FOE, "Thug"))
    assert getattr(body, "defense", "unset") is None  # it waits for the defender's choice


# --- FAB-44: the panic results that bind a combatant --------------------------------------------


def bound(code: str) -> list[dict[str, Any]]:
    condition = panic_condition(code)
    assert condition is not None
    return [condition]


def test_FAB_44_panic_condition_shapes() -> None:
    for code in ("frozen", "scream"):
        # Out of their own turn (a defender's panic) the very next turn is lost ...
        armed = {"code": code, "rule": "FAB-44", "skip_turns": 1, "armed": True}
        assert panic_condition(code) == armed
        # ... on their own turn, the turn ends now and the next one is lost too.
        assert panic_condition(code, during_own_turn=True) == {**armed, "armed": False}
    for code in ("catatonia", "flee", "take_cover", "berserk", "tremors"):
        assert panic_condition(code) == {"code": code, "rule": "FAB-44"}
    # Results with no lasting hold on the combatant (their stress changes land on the sheets).
    for code in ("cool", "jolt", "drop", "unknown"):
        assert panic_condition(code) is None


@pytest.mark.parametrize("code", ["frozen", "scream"])
@pytest.mark.parametrize("kind", ATTACKS + NOT_ATTACKS)
def test_FAB_44_frozen_and_scream_lose_the_turn(code: str, kind: str) -> None:
    error = refusal(check_conditions, bound(code), kind, "Bruno")
    assert error.rule == "FAB-44"
    assert "Bruno" in error.detail


@pytest.mark.parametrize("code", ["frozen", "scream"])
def test_FAB_44_the_lost_turn_is_spent_when_the_turn_passes(code: str) -> None:
    after = after_turn(bound(code))
    assert after == []
    check_conditions(after, "fabulae.attack", "Bruno")  # free again
    # Two lost turns take two turns.
    twice = [{**bound(code)[0], "skip_turns": 2}]
    once = after_turn(twice)
    assert once == [{**bound(code)[0], "skip_turns": 1}]
    assert refusal(check_conditions, once, "fabulae.action", "Bruno").rule == "FAB-44"
    assert after_turn(once) == []
    # An action does not spend the lost turn.
    assert after_action(bound(code)) == bound(code)


@pytest.mark.parametrize("code", ["frozen", "scream"])
def test_FAB_44_a_panic_on_ones_own_turn_costs_the_next_turn(code: str) -> None:
    struck = [panic_condition(code, during_own_turn=True)]
    assert struck[0] is not None
    assert refusal(check_conditions, struck, "fabulae.action", "Bruno").rule == "FAB-44"
    armed = after_turn(struck)  # the turn it happened in ends
    assert armed == [{**struck[0], "armed": True}]
    assert refusal(check_conditions, armed, "fabulae.action", "Bruno").rule == "FAB-44"
    assert after_turn(armed) == []  # the lost turn passes


@pytest.mark.parametrize("kind", ATTACKS + NOT_ATTACKS)
def test_FAB_44_catatonia_allows_no_action(kind: str) -> None:
    assert refusal(check_conditions, bound("catatonia"), kind, "Bruno").rule == "FAB-44"
    # It lasts: neither an action nor the passing turn lifts it.
    assert after_action(bound("catatonia")) == bound("catatonia")
    assert after_turn(bound("catatonia")) == bound("catatonia")


@pytest.mark.parametrize("kind", ATTACKS)
def test_FAB_44_flee_forbids_attacks(kind: str) -> None:
    assert refusal(check_conditions, bound("flee"), kind, "Bruno").rule == "FAB-44"


@pytest.mark.parametrize("kind", NOT_ATTACKS)
def test_FAB_44_flee_allows_other_actions_and_lasts(kind: str) -> None:
    check_conditions(bound("flee"), kind, "Bruno")
    assert after_action(bound("flee")) == bound("flee")
    assert after_turn(bound("flee")) == bound("flee")


def test_FAB_44_take_cover_the_next_action_cannot_be_an_attack() -> None:
    conditions = bound("take_cover")
    for kind in ATTACKS:
        assert refusal(check_conditions, conditions, kind, "Bruno").rule == "FAB-44"
    for kind in NOT_ATTACKS:
        check_conditions(conditions, kind, "Bruno")
    # The turn passing does not lift it; the next action (not an attack) does.
    assert after_turn(conditions) == conditions
    lifted = after_action(conditions)
    assert lifted == []
    for kind in ATTACKS:
        check_conditions(lifted, kind, "Bruno")


def test_FAB_44_berserk_the_next_action_must_be_an_attack() -> None:
    conditions = bound("berserk")
    for kind in NOT_ATTACKS:
        assert refusal(check_conditions, conditions, kind, "Bruno").rule == "FAB-44"
    for kind in ATTACKS:
        check_conditions(conditions, kind, "Bruno")
    assert after_turn(conditions) == conditions
    lifted = after_action(conditions)
    assert lifted == []
    for kind in NOT_ATTACKS:
        check_conditions(lifted, kind, "Bruno")


def test_FAB_44_tremors_take_two_habilete_dice_and_forbid_nothing() -> None:
    conditions = bound("tremors")
    assert habilete_malus(conditions) == -2
    for kind in ATTACKS + NOT_ATTACKS:
        check_conditions(conditions, kind, "Bruno")
    assert after_action(conditions) == conditions
    assert after_turn(conditions) == conditions
    assert habilete_malus([]) == 0
    for code in ("frozen", "scream", "catatonia", "flee", "take_cover", "berserk"):
        assert habilete_malus(bound(code)) == 0
    assert habilete_malus(bound("tremors") + bound("tremors")) == -4


def test_FAB_44_after_action_lifts_only_next_action_constraints() -> None:
    every = [c for code in combat.PANIC_CONDITIONS for c in bound(code)]
    left = after_action(every)
    assert [c["code"] for c in left] == [
        c for c in combat.PANIC_CONDITIONS if c not in ("take_cover", "berserk")
    ]


def test_FAB_44_conditions_of_unknown_codes_bind_nothing() -> None:
    # A condition the encounter stores always names its rule.
    unknown = [{"code": "jolt", "rule": "FAB-44"}, {"code": "drop", "rule": "FAB-44"}]
    check_conditions(unknown, "fabulae.attack", "Bruno")
    assert habilete_malus([{"code": "jolt", "rule": "FAB-44"}]) == 0


# --- FAB-61: card initiative ------------------------------------------------------------------


def fabulae_initiative(request: dict[str, Any], dice: ReplayDice) -> Resolved:
    return resolve("fabulae.initiative", request, dice)


def fab_request(
    *combatants: tuple[str, str],
    quick: tuple[str, ...] = (),
    deck: int = 1,
    drawn: tuple[int, ...] | list[int] = (),
) -> dict[str, Any]:
    return {
        "system": SYSTEM,
        "session": 1,
        "scene": 1,
        "combatants": [
            {"id": cid, "name": cid, "kind": kind, "quick_draw_initiative": cid in quick}
            for cid, kind in combatants
        ],
        "deck": deck,
        "drawn": list(drawn),
    }


def draw_cards(request: dict[str, Any], faces: list[int]) -> tuple[dict[str, Any], ReplayDice]:
    """Draws from a deck of `remaining` cards are dice with that many faces."""
    remaining = 10 - len(request["drawn"])
    draws = []
    for face in faces:
        if remaining == 0:
            remaining = 10
        draws.append((remaining, face))
        remaining -= 1
    dice = replay(*draws)
    result = fabulae_initiative(request, dice).result
    dice.assert_consumed()
    return result, dice


def test_FAB_61_cards_drawn_without_replacement_act_in_ascending_order() -> None:
    request = fab_request(("ada", "pc"), ("thug", "npc"), ("bruno", "pc"))
    # Ada: d10 face 7 -> card 7; Thug: d9 face 1 -> card 1; Bruno: d8 face 4 of 1,2..6,8,9,10.
    result, _ = draw_cards(request, [7, 1, 4])
    cards = {row["character_id"]: row["card"] for row in result["order"]}
    assert cards == {"ada": 7, "thug": 1, "bruno": 5}
    assert [row["character_id"] for row in result["order"]] == ["thug", "bruno", "ada"]
    assert [row["rank"] for row in result["order"]] == [1, 2, 3]
    assert all(row["deck"] == 1 and row["cards"] == [row["card"]] for row in result["order"])
    assert result["deck"] == 1
    assert result["drawn"] == [1, 5, 7]


def test_FAB_61_faces_are_positions_in_what_is_left_of_the_deck() -> None:
    # Face 1 each time: the lowest card left.
    ten = [(f"c{i}", "pc") for i in range(10)]
    result, _ = draw_cards(fab_request(*ten), [1] * 10)
    assert [row["card"] for row in result["order"]] == list(range(1, 11))
    # The highest face each time: the highest card left.
    result, _ = draw_cards(fab_request(*ten), list(range(10, 0, -1)))
    assert {row["character_id"]: row["card"] for row in result["order"]} == {
        f"c{i}": 10 - i for i in range(10)
    }
    assert [row["character_id"] for row in result["order"]] == [f"c{i}" for i in range(9, -1, -1)]


@pytest.mark.parametrize("seed", range(40))
def test_FAB_61_no_two_combatants_share_a_card_within_a_deck(seed: int) -> None:
    chooser = random.Random(seed)
    count = chooser.randint(2, 10)
    faces = [chooser.randint(1, 10 - i) for i in range(count)]
    combatants = [(f"c{i}", chooser.choice(["pc", "npc"])) for i in range(count)]
    result, _ = draw_cards(fab_request(*combatants), faces)
    cards = [row["card"] for row in result["order"]]
    assert len(set(cards)) == count
    assert cards == sorted(cards)
    assert sorted(result["drawn"]) == sorted(cards)
    assert result["deck"] == 1


def test_FAB_61_a_second_deck_past_ten_combatants() -> None:
    twelve = [(f"c{i:02}", "npc" if i % 2 else "pc") for i in range(12)]
    # The first deck dealt in order (cards 1..10), then a fresh deck: d10 face 1, d9 face 1.
    result, dice = draw_cards(fab_request(*twelve), [1] * 12)
    assert [d["sides"] for d in dice.draws] == [10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 10, 9]
    by_id = {row["character_id"]: row for row in result["order"]}
    assert [(by_id[f"c{i:02}"]["card"], by_id[f"c{i:02}"]["deck"]) for i in range(12)] == [
        *[(card, 1) for card in range(1, 11)],
        (1, 2),
        (2, 2),
    ]
    # A second deck's card acts after the same card of the first deck.
    assert [row["character_id"] for row in result["order"]][:4] == ["c00", "c10", "c01", "c11"]
    assert result["deck"] == 2
    assert result["drawn"] == [1, 2]
    # Within each deck the cards are all different.
    for deck in (1, 2):
        cards = [row["card"] for row in result["order"] if row["deck"] == deck]
        assert len(cards) == len(set(cards))


def test_FAB_61_a_newcomer_draws_from_what_is_left_of_the_current_deck() -> None:
    request = fab_request(("late", "pc"), drawn=[1, 2, 3, 5])
    # Six cards left (4, 6..10): a d6; face 2 is card 6.
    result, dice = draw_cards(request, [2])
    assert dice.draws == [{"sides": 6, "face": 2}]
    assert result["order"][0]["card"] == 6
    assert result["drawn"] == [1, 2, 3, 5, 6]
    # An exhausted deck: the newcomer opens the next one.
    full = fab_request(("late", "npc"), drawn=list(range(1, 11)), deck=1)
    result, dice = draw_cards(full, [4])
    assert dice.draws == [{"sides": 10, "face": 4}]
    assert (result["order"][0]["card"], result["order"][0]["deck"]) == (4, 2)
    assert result["deck"] == 2
    assert result["drawn"] == [4]


def test_FAB_61_quick_draw_draws_two_and_keeps_the_lower() -> None:
    request = fab_request(("quick", "pc"), ("thug", "npc"), quick=("quick",))
    # Quick: d10 face 7 -> card 7, d9 face 2 -> card 2; keeps 2, the 7 goes back.
    # Thug: d9 over 1,3,4,5,6,7,8,9,10 -> face 6 is the 7 that went back.
    dice = replay((10, 7), (9, 2), (9, 6))
    result = fabulae_initiative(request, dice).result
    dice.assert_consumed()
    by_id = {row["character_id"]: row for row in result["order"]}
    assert by_id["quick"]["cards"] == [7, 2]
    assert by_id["quick"]["card"] == 2
    assert by_id["thug"]["card"] == 7
    assert [row["character_id"] for row in result["order"]] == ["quick", "thug"]
    assert result["drawn"] == [2, 7]


def test_FAB_61_quick_draw_keeps_the_first_card_when_it_is_lower() -> None:
    request = fab_request(("quick", "pc"), quick=("quick",))
    dice = replay((10, 3), (9, 8))  # card 3, then card 9 of 1,2,4..10
    result = fabulae_initiative(request, dice).result
    dice.assert_consumed()
    assert result["order"][0]["cards"] == [3, 9]
    assert result["order"][0]["card"] == 3
    assert result["drawn"] == [3]  # the 9 went back


def test_FAB_61_quick_draw_with_one_card_left_draws_one() -> None:
    request = fab_request(("quick", "pc"), quick=("quick",), drawn=list(range(1, 10)))
    dice = replay((1, 1))
    result = fabulae_initiative(request, dice).result
    dice.assert_consumed()
    assert result["order"][0]["cards"] == [10]
    assert result["order"][0]["card"] == 10
