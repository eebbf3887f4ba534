"""Encounter rules (app/engine/encounters.py) and the three initiative resolvers.

The round's budget (FAB-60), the defender's fast action (FAB-62) and the panic results
that bind a combatant (FAB-44) are pure functions; the initiative rules (JDR-30a/31/31a,
FAB-61, the classic Vampire rule) draw from ReplayDice, and every test checks that exactly
the scripted dice were drawn. Expected values are written here from the rules' text.
"""

from __future__ import annotations

import random
from itertools import product
from typing import Any

import pytest

from app.engine import encounters as rules
from app.engine.dice import ReplayDice
from app.engine.errors import RuleRefusal
from app.engine.fabulae.combat import resolve_initiative as fabulae_initiative
from app.engine.jdr.rules import resolve_initiative as jdr_initiative
from app.engine.vampire.rules import resolve_initiative as vampire_initiative

ATTACKS = ("jdr.attack", "jdr.holy_water", "fabulae.attack", "fabulae.grapple", "fabulae.strangle")
NOT_ATTACKS = ("jdr.action", "fabulae.action", "fabulae.reload", "vampire.action")


def replay(*draws: tuple[int, int]) -> ReplayDice:
    """ReplayDice from (sides, face) pairs."""
    return ReplayDice([{"sides": sides, "face": face} for sides, face in draws])


def refusal(call: Any, *args: Any) -> RuleRefusal:
    with pytest.raises(RuleRefusal) as caught:
        call(*args)
    return caught.value


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
        assert rules.check_fabulae_budget(spent, cost, "Ada") is None
        return
    error = refusal(rules.check_fabulae_budget, spent, cost, "Ada")
    assert error.rule == "FAB-60"
    assert "Ada" in error.detail
    if slow > 1:
        assert "slow action" in error.detail


def test_FAB_60_a_round_is_one_slow_and_one_fast_or_two_fast() -> None:
    slow, fast = {"slow": 1, "fast": 0}, {"slow": 0, "fast": 1}
    rules.check_fabulae_budget({}, slow, "Ada")
    rules.check_fabulae_budget({"slow": 1}, fast, "Ada")  # slow then fast
    rules.check_fabulae_budget({"fast": 1}, slow, "Ada")  # fast then slow
    rules.check_fabulae_budget({"fast": 1}, fast, "Ada")  # two fast
    assert refusal(rules.check_fabulae_budget, {"slow": 1}, slow, "Ada").rule == "FAB-60"
    assert refusal(rules.check_fabulae_budget, {"fast": 2}, slow, "Ada").rule == "FAB-60"
    assert refusal(rules.check_fabulae_budget, {"fast": 2}, fast, "Ada").rule == "FAB-60"
    assert refusal(rules.check_fabulae_budget, {"slow": 1, "fast": 1}, fast, "Ada").rule == (
        "FAB-60"
    )
    # A free action fits in any round, even a spent one.
    rules.check_fabulae_budget({"slow": 1, "fast": 1}, {"slow": 0, "fast": 0}, "Ada")
    rules.check_fabulae_budget({"fast": 2}, {"slow": 0, "fast": 0}, "Ada")


SHEET: dict[str, Any] = {"talents": []}


@pytest.mark.parametrize(
    ("kind", "body", "sheet", "cost"),
    [
        ("fabulae.attack", {"mode": "melee"}, SHEET, (1, 0)),
        ("fabulae.attack", {"mode": "ranged", "snap_shot": True}, SHEET, (0, 1)),  # FAB-90
        ("fabulae.attack", {"mode": "melee", "talents": ["all_in"]}, SHEET, (1, 1)),  # FAB-90
        ("fabulae.reload", {"weapon": "revolver"}, SHEET, (0, 1)),
        ("fabulae.reload", {"weapon": "crossbow"}, SHEET, (0, 1)),
        ("fabulae.reload", {"weapon": "rifle"}, SHEET, (1, 0)),
        ("fabulae.reload", {"weapon": "revolver"}, {"talents": ["quick_reload"]}, (0, 0)),
        ("fabulae.reload", {"weapon": "rifle"}, {"talents": ["quick_reload"]}, (1, 0)),
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
    assert rules.fabulae_cost(kind, body, sheet) == {"slow": cost[0], "fast": cost[1]}


@pytest.mark.parametrize("kind", sorted(rules.REACTION_KINDS))
def test_reactions_cost_nothing(kind: str) -> None:
    assert rules.fabulae_cost(kind, {"action_type": "slow"}, SHEET) == {"slow": 0, "fast": 0}


def test_reaction_kinds_are_follow_ups_not_actions() -> None:
    assert {"fabulae.panic", "fabulae.push", "jdr.talisman", "jdr.joker"} <= rules.REACTION_KINDS
    for kind in ("fabulae.attack", "fabulae.action", "jdr.attack", "jdr.action", "vampire.action"):
        assert kind not in rules.REACTION_KINDS


# --- FAB-62: a parry or a dodge spends the defender's fast action -------------------------------


@pytest.mark.parametrize(("spent_slow", "spent_fast"), list(product(range(2), range(3))))
def test_FAB_62_defense_spends_a_fast_action(spent_slow: int, spent_fast: int) -> None:
    spent = {"slow": spent_slow, "fast": spent_fast}
    if spent_slow + spent_fast < 2:
        assert rules.check_defense(spent, "Thug") == {"slow": 0, "fast": 1}
        # What the defense leaves still fits the FAB-60 round.
        rules.check_fabulae_budget(spent, {"slow": 0, "fast": 1}, "Thug")
    else:
        error = refusal(rules.check_defense, spent, "Thug")
        assert error.rule == "FAB-62"
        assert "Thug" in error.detail


def test_FAB_62_a_defender_who_parried_keeps_a_slow_action_only_if_none_was_taken() -> None:
    after_parry = {"slow": 0, "fast": 1}
    rules.check_fabulae_budget(after_parry, {"slow": 1, "fast": 0}, "Thug")
    rules.check_fabulae_budget(after_parry, {"slow": 0, "fast": 1}, "Thug")
    assert refusal(rules.check_defense, {"slow": 1, "fast": 1}, "Thug").rule == "FAB-62"
    assert refusal(rules.check_defense, {"fast": 2}, "Thug").rule == "FAB-62"
    assert rules.check_defense({}, "Thug") == {"slow": 0, "fast": 1}


# --- FAB-44: the panic results that bind a combatant --------------------------------------------


def bound(code: str) -> list[dict[str, Any]]:
    condition = rules.panic_condition(code)
    assert condition is not None
    return [condition]


def test_FAB_44_panic_condition_shapes() -> None:
    for code in ("frozen", "scream"):
        # Out of their own turn (a defender's panic) the very next turn is lost ...
        armed = {"code": code, "rule": "FAB-44", "skip_turns": 1, "armed": True}
        assert rules.panic_condition(code) == armed
        # ... on their own turn, the turn ends now and the next one is lost too.
        assert rules.panic_condition(code, during_own_turn=True) == {**armed, "armed": False}
    for code in ("catatonia", "flee", "take_cover", "berserk", "tremors"):
        assert rules.panic_condition(code) == {"code": code, "rule": "FAB-44"}
    # Results with no lasting hold on the combatant (their stress changes land on the sheets).
    for code in ("cool", "jolt", "drop", "unknown"):
        assert rules.panic_condition(code) is None


@pytest.mark.parametrize("code", ["frozen", "scream"])
@pytest.mark.parametrize("kind", ATTACKS + NOT_ATTACKS)
def test_FAB_44_frozen_and_scream_lose_the_turn(code: str, kind: str) -> None:
    error = refusal(rules.check_conditions, bound(code), kind, "Bruno")
    assert error.rule == "FAB-44"
    assert "Bruno" in error.detail


@pytest.mark.parametrize("code", ["frozen", "scream"])
def test_FAB_44_the_lost_turn_is_spent_when_the_turn_passes(code: str) -> None:
    after = rules.after_turn(bound(code))
    assert after == []
    rules.check_conditions(after, "fabulae.attack", "Bruno")  # free again
    # Two lost turns take two turns.
    twice = [{**bound(code)[0], "skip_turns": 2}]
    once = rules.after_turn(twice)
    assert once == [{**bound(code)[0], "skip_turns": 1}]
    assert refusal(rules.check_conditions, once, "fabulae.action", "Bruno").rule == "FAB-44"
    assert rules.after_turn(once) == []
    # An action does not spend the lost turn.
    assert rules.after_action(bound(code)) == bound(code)


@pytest.mark.parametrize("code", ["frozen", "scream"])
def test_FAB_44_a_panic_on_ones_own_turn_costs_the_next_turn(code: str) -> None:
    struck = [rules.panic_condition(code, during_own_turn=True)]
    assert refusal(rules.check_conditions, struck, "fabulae.action", "Bruno").rule == "FAB-44"
    armed = rules.after_turn(struck)  # the turn it happened in ends
    assert armed == [{**struck[0], "armed": True}]
    assert refusal(rules.check_conditions, armed, "fabulae.action", "Bruno").rule == "FAB-44"
    assert rules.after_turn(armed) == []  # the lost turn passes


@pytest.mark.parametrize("kind", ATTACKS + NOT_ATTACKS)
def test_FAB_44_catatonia_allows_no_action(kind: str) -> None:
    assert refusal(rules.check_conditions, bound("catatonia"), kind, "Bruno").rule == "FAB-44"
    # It lasts: neither an action nor the passing turn lifts it.
    assert rules.after_action(bound("catatonia")) == bound("catatonia")
    assert rules.after_turn(bound("catatonia")) == bound("catatonia")


@pytest.mark.parametrize("kind", ATTACKS)
def test_FAB_44_flee_forbids_attacks(kind: str) -> None:
    assert refusal(rules.check_conditions, bound("flee"), kind, "Bruno").rule == "FAB-44"


@pytest.mark.parametrize("kind", NOT_ATTACKS)
def test_FAB_44_flee_allows_other_actions_and_lasts(kind: str) -> None:
    rules.check_conditions(bound("flee"), kind, "Bruno")
    assert rules.after_action(bound("flee")) == bound("flee")
    assert rules.after_turn(bound("flee")) == bound("flee")


def test_FAB_44_take_cover_the_next_action_cannot_be_an_attack() -> None:
    conditions = bound("take_cover")
    for kind in ATTACKS:
        assert refusal(rules.check_conditions, conditions, kind, "Bruno").rule == "FAB-44"
    for kind in NOT_ATTACKS:
        rules.check_conditions(conditions, kind, "Bruno")
    # The turn passing does not lift it; the next action (not an attack) does.
    assert rules.after_turn(conditions) == conditions
    lifted = rules.after_action(conditions)
    assert lifted == []
    for kind in ATTACKS:
        rules.check_conditions(lifted, kind, "Bruno")


def test_FAB_44_berserk_the_next_action_must_be_an_attack() -> None:
    conditions = bound("berserk")
    for kind in NOT_ATTACKS:
        assert refusal(rules.check_conditions, conditions, kind, "Bruno").rule == "FAB-44"
    for kind in ATTACKS:
        rules.check_conditions(conditions, kind, "Bruno")
    assert rules.after_turn(conditions) == conditions
    lifted = rules.after_action(conditions)
    assert lifted == []
    for kind in NOT_ATTACKS:
        rules.check_conditions(lifted, kind, "Bruno")


def test_FAB_44_tremors_take_two_habilete_dice_and_forbid_nothing() -> None:
    conditions = bound("tremors")
    assert rules.habilete_malus(conditions) == -2
    for kind in ATTACKS + NOT_ATTACKS:
        rules.check_conditions(conditions, kind, "Bruno")
    assert rules.after_action(conditions) == conditions
    assert rules.after_turn(conditions) == conditions
    assert rules.habilete_malus([]) == 0
    for code in ("frozen", "scream", "catatonia", "flee", "take_cover", "berserk"):
        assert rules.habilete_malus(bound(code)) == 0
    assert rules.habilete_malus(bound("tremors") + bound("tremors")) == -4


def test_FAB_44_after_action_lifts_only_next_action_constraints() -> None:
    every = [c for code in rules.PANIC_CONDITIONS for c in bound(code)]
    left = rules.after_action(every)
    assert [c["code"] for c in left] == [
        c for c in rules.PANIC_CONDITIONS if c not in ("take_cover", "berserk")
    ]


def test_FAB_44_conditions_of_unknown_codes_bind_nothing() -> None:
    rules.check_conditions([{"code": "jolt"}, {"code": "drop"}], "fabulae.attack", "Bruno")
    assert rules.habilete_malus([{"code": "jolt"}]) == 0


# --- FAB-61: card initiative ------------------------------------------------------------------

FAB = "fabulae-tenebris"


def fab_request(
    *combatants: tuple[str, str], quick: tuple[str, ...] = (), deck: int = 1, drawn=()
) -> dict[str, Any]:
    return {
        "system": FAB,
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


# --- Vampire: 1D10 + Dextérité + Astuce --------------------------------------------------------


def vam_request(*combatants: tuple[str, str, int, int]) -> dict[str, Any]:
    return {
        "system": "vampire",
        "session": 1,
        "scene": 1,
        "combatants": [
            {"id": cid, "name": cid, "kind": kind, "dexterite": dex, "astuce": astuce}
            for cid, kind, dex, astuce in combatants
        ],
    }


def vam_order(request: dict[str, Any], faces: list[int]) -> dict[str, Any]:
    dice = replay(*[(10, face) for face in faces])
    result = vampire_initiative(request, dice).result
    dice.assert_consumed()
    return result


def test_vampire_initiative_highest_total_first() -> None:
    request = vam_request(("lucien", "pc", 3, 4), ("ghoul", "npc", 2, 2), ("marta", "pc", 1, 1))
    result = vam_order(request, [2, 10, 9])
    assert [(r["character_id"], r["die"], r["traits"], r["total"]) for r in result["order"]] == [
        ("ghoul", 10, 4, 14),
        ("marta", 9, 2, 11),
        ("lucien", 2, 7, 9),
    ]
    assert [r["rank"] for r in result["order"]] == [1, 2, 3]
    assert all(r["rolloff"] == [] for r in result["order"])


@pytest.mark.parametrize(("a", "b"), list(product(range(1, 11), repeat=2)))
def test_vampire_initiative_every_pair_of_dice(a: int, b: int) -> None:
    # Lucien 3+4=7, Ghoul 2+2=4: equal totals go to Lucien's higher traits, no roll-off.
    request = vam_request(("lucien", "pc", 3, 4), ("ghoul", "npc", 2, 2))
    result = vam_order(request, [a, b])
    first = "lucien" if a + 7 >= b + 4 else "ghoul"
    assert result["order"][0]["character_id"] == first


@pytest.mark.parametrize("ghoul_first", [True, False])
def test_vampire_initiative_ties_go_to_higher_traits(ghoul_first: bool) -> None:
    # Both total 11: Dex+Astuce 7 beats 4 with no roll-off drawn, whatever the listing order.
    lucien, ghoul = ("lucien", "pc", 3, 4), ("ghoul", "npc", 2, 2)
    listing, faces = ([ghoul, lucien], [7, 4]) if ghoul_first else ([lucien, ghoul], [4, 7])
    result = vam_order(vam_request(*listing), faces)
    assert [r["character_id"] for r in result["order"]] == ["lucien", "ghoul"]
    assert [r["total"] for r in result["order"]] == [11, 11]
    assert all(r["rolloff"] == [] for r in result["order"])


def test_vampire_initiative_full_ties_roll_off_1d10() -> None:
    request = vam_request(("lucien", "pc", 3, 4), ("marta", "pc", 4, 3))
    result = vam_order(request, [5, 5, 3, 8])  # both 12 with traits 7: Lucien 3, Marta 8
    assert [r["character_id"] for r in result["order"]] == ["marta", "lucien"]
    assert {r["character_id"]: r["rolloff"] for r in result["order"]} == {
        "lucien": [3],
        "marta": [8],
    }


def test_vampire_initiative_a_tied_roll_off_rolls_again() -> None:
    request = vam_request(("lucien", "pc", 3, 4), ("marta", "pc", 4, 3), ("ghoul", "npc", 2, 2))
    # Lucien and Marta 12 (traits 7), Ghoul 10; roll-off 6/6 again, then 2/9.
    result = vam_order(request, [5, 5, 6, 6, 6, 2, 9])
    assert [r["character_id"] for r in result["order"]] == ["marta", "lucien", "ghoul"]
    by_id = {r["character_id"]: r for r in result["order"]}
    assert by_id["lucien"]["rolloff"] == [6, 2]
    assert by_id["marta"]["rolloff"] == [6, 9]
    assert by_id["ghoul"]["rolloff"] == []


def test_vampire_initiative_three_way_roll_off() -> None:
    request = vam_request(("a", "pc", 2, 2), ("b", "npc", 1, 3), ("c", "pc", 3, 1))
    # All 4 + 6 = 10 with traits 4: roll-off a 2, b 9, c 2; a and c again: 7, 1.
    result = vam_order(request, [6, 6, 6, 2, 9, 2, 7, 1])
    assert [r["character_id"] for r in result["order"]] == ["b", "a", "c"]
    assert [r["rank"] for r in result["order"]] == [1, 2, 3]


# --- JDR Express: 2D6 + physique, once per scene -----------------------------------------------

DRACULA = "jdr-express-dracula"


def jdr_fighter(
    cid: str, kind: str, physique: int, *, surprise: bool = False, off_guard: bool = False
) -> dict[str, Any]:
    return {
        "id": cid,
        "name": cid,
        "kind": kind,
        "physique": physique,
        "surprise": surprise,
        "off_guard": off_guard,
    }


def jdr_request(*fighters: dict[str, Any], carried=()) -> dict[str, Any]:
    return {
        "system": DRACULA,
        "session": 1,
        "scene": 2,
        "combatants": list(fighters),
        "carried": list(carried),
        "already_rolled": [],
    }


def jdr_roll(request: dict[str, Any], faces: list[int]) -> dict[str, Any]:
    dice = replay(*[(6, face) for face in faces])
    result = jdr_initiative(request, dice).result
    dice.assert_consumed()
    return result


def test_JDR_31a_surprise_and_off_guard_count_in_the_first_round_only() -> None:
    request = jdr_request(
        jdr_fighter("strigoi", "npc", 3, surprise=True),
        jdr_fighter("mihail", "pc", 2, off_guard=True),
        jdr_fighter("ilona", "pc", 2),
    )
    # Strigoi 4+3+3+2 = 12, Mihail 6+6+2 = 14 (off guard), Ilona 4+4+2 = 10.
    result = jdr_roll(request, [4, 3, 6, 6, 4, 4])
    order = result["order"]
    assert [(r["character_id"], r["total"], r["surprise"]) for r in order] == [
        ("strigoi", 12, 2),
        ("ilona", 10, 0),
        ("mihail", 14, 0),
    ]
    # Later rounds: Mihail 14, then Ilona and Strigoi tied on 10 (PC first).
    assert result["later_rounds"] == ["mihail", "ilona", "strigoi"]


def test_JDR_31a_later_rounds_without_the_first_round_modifiers() -> None:
    cases = [
        # (faces, later-round order) for: A surprise (phys 1), B (phys 1), C off guard (phys 1)
        ([3, 3, 4, 3, 6, 6], ["c", "b", "a"]),  # A 9 (7 later), B 8, C 13
        ([4, 4, 3, 3, 1, 1], ["a", "b", "c"]),  # A 11 (9 later), B 7, C 3
        ([3, 3, 4, 3, 3, 3], ["b", "c", "a"]),  # A 9 (7), B 8, C 7: the tie goes to the PC
    ]
    for faces, later in cases:
        request = jdr_request(
            jdr_fighter("a", "npc", 1, surprise=True),
            jdr_fighter("b", "pc", 1),
            jdr_fighter("c", "pc", 1, off_guard=True),
        )
        result = jdr_roll(request, faces)
        assert result["order"][-1]["character_id"] == "c"  # off guard: last in round 1
        assert result["later_rounds"] == later, faces


def test_JDR_31_carried_totals_are_kept_and_draw_no_dice() -> None:
    first = jdr_roll(
        jdr_request(jdr_fighter("mihail", "pc", 2), jdr_fighter("strigoi", "npc", 3)),
        [5, 5, 1, 2],
    )  # Mihail 12, Strigoi 6
    kept = [{k: v for k, v in r.items() if k not in ("rank", "carried")} for r in first["order"]]
    again = jdr_roll(jdr_request(carried=kept), [])
    assert [(r["character_id"], r["total"], r["dice"]) for r in again["order"]] == [
        ("mihail", 12, [5, 5]),
        ("strigoi", 6, [1, 2]),
    ]
    assert all(r["carried"] for r in again["order"])
    assert [r["rank"] for r in again["order"]] == [1, 2]
    assert again["later_rounds"] == ["mihail", "strigoi"]


def test_JDR_31_a_newcomer_rolls_and_takes_their_place_among_carried_totals() -> None:
    carried = [
        {
            "character_id": "mihail",
            "name": "mihail",
            "kind": "pc",
            "dice": [5, 5],
            "physique": 2,
            "surprise": 0,
            "total": 12,
            "off_guard": False,
            "rolloff": [],
        },
        {
            "character_id": "strigoi",
            "name": "strigoi",
            "kind": "npc",
            "dice": [1, 2],
            "physique": 3,
            "surprise": 0,
            "total": 6,
            "off_guard": False,
            "rolloff": [],
        },
    ]
    result = jdr_roll(jdr_request(jdr_fighter("loup", "npc", 2), carried=carried), [4, 3])
    assert [(r["character_id"], r["total"], r.get("carried", False)) for r in result["order"]] == [
        ("mihail", 12, True),
        ("loup", 9, False),
        ("strigoi", 6, True),
    ]
    assert result["later_rounds"] == ["mihail", "loup", "strigoi"]
    # The carried rows are not modified in place.
    assert "carried" not in carried[0] and "rank" not in carried[0]


def test_JDR_31_a_carried_tie_is_broken_like_any_other() -> None:
    carried = [
        {
            "character_id": "strigoi",
            "name": "strigoi",
            "kind": "npc",
            "dice": [3, 3],
            "physique": 3,
            "surprise": 0,
            "total": 9,
            "off_guard": False,
            "rolloff": [],
        }
    ]
    # Ilona 5 + 2 + 2 = 9: a PC before an NPC on a tie, no roll-off.
    result = jdr_roll(jdr_request(jdr_fighter("ilona", "pc", 2), carried=carried), [5, 2])
    assert [r["character_id"] for r in result["order"]] == ["ilona", "strigoi"]
    assert result["later_rounds"] == ["ilona", "strigoi"]


def test_JDR_31_already_rolled_in_the_scene_is_refused() -> None:
    request = jdr_request(jdr_fighter("mihail", "pc", 2))
    request["already_rolled"] = ["mihail"]
    with pytest.raises(RuleRefusal) as caught:
        jdr_initiative(request, replay())
    assert caught.value.rule == "JDR-31"
