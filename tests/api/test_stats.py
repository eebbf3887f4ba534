"""Issue 21, point 3: GET /campaigns/{id}/stats: counts, observed against expected outcomes
(each roll's own exact odds, summed), a chi-square goodness-of-fit test, the mean luck
percentile, and per die size the face counts with a uniformity test; filtered and grouped
like the log, and counting only what the caller may see (FAIR-13) with odds only from
values they may read (FAIR-18)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

import pytest
from sqlmodel import Session

from app.services.stats import fit, outcome_order
from tests.api.test_adding_a_ruleset import client_for
from tests.api.test_odds_api import REGISTRY, CoinTable, _register, make_table
from tests.conftest import assert_problem


@pytest.fixture
def table(session: Session) -> Iterator[CoinTable]:
    with client_for(session, REGISTRY) as client:
        yield make_table(client)


def stats(table: CoinTable, caller, query: str = "") -> dict[str, Any]:
    return table.get(f"/stats{query}", caller)


def flips(table: CoinTable, count: int, **extra: Any) -> list[dict[str, Any]]:
    made = []
    for _ in range(count):
        response = table.post("/rolls", table.player, table.flip(**extra))
        if response.status_code == 409:  # COIN-3: out of luck; the GM gives it back
            patched = table.client.patch(
                f"/api/v1/characters/{table.hero['id']}",
                json={"sheet": {"luck": 10}},
                headers=table.gm.headers,
            )
            assert patched.status_code == 200, patched.text
            response = table.post("/rolls", table.player, table.flip(**extra))
        assert response.status_code == 201, response.text
        made.append(response.json())
        if extra.get("visibility", "public") != "public":
            # FAIR-21: a hidden flip read the sheet; the GM applies it before the next one.
            seq = response.json()["seq"]
            applied = table.client.post(table.url(f"/log/{seq}/apply"), headers=table.gm.headers)
            assert applied.status_code == 201, applied.text
    return made


def kind_stats(answer: dict[str, Any], kind: str) -> dict[str, Any]:
    (found,) = [item for item in answer["kinds"] if item["kind"] == kind]
    return found


def test_fit_against_known_chi_square_values():
    # chi2.sf(10, 1) = 0.0015654022580025; chi2.sf(2, 2) = exp(-1) = 0.36787944117144233
    exact = fit([10, 0], [5.0, 5.0])
    assert exact is not None
    assert exact["statistic"] == 10.0 and exact["degrees_of_freedom"] == 1
    assert exact["p_value"] == pytest.approx(0.0015654022580025, rel=1e-9)
    assert exact["approximate"] is False
    two = fit([12, 10, 8], [10.0, 10.0, 10.0])
    assert two is not None and two["statistic"] == pytest.approx(0.8)
    assert two["p_value"] == pytest.approx(0.6703200460356393, rel=1e-9)  # exp(-0.4)
    assert fit([1, 1], [0.5, 1.5])["approximate"] is True
    assert fit([3, 1], [4.0, 0.0]) is None  # one possible outcome: nothing to test
    impossible = fit([2, 1, 1], [2.0, 2.0, 0.0])
    assert impossible["p_value"] == 0.0 and impossible["note"]
    assert fit([5], [5.0]) is None


def test_counts_expected_outcomes_luck_and_faces(table):
    made = flips(table, 12)
    dice = [
        table.post("/rolls", table.gm, {"kind": "dice", "notation": "2d6"}).json() for _ in range(3)
    ]
    answer = stats(table, table.gm)
    assert answer["rolls"] == 15 and answer["rolls_with_odds"] == 15
    coin_stats = kind_stats(answer, "coin.flip")
    won = sum(1 for flip in made if flip["result"]["won"])
    assert coin_stats["rolls"] == 12 and coin_stats["rolls_with_odds"] == 12
    assert coin_stats["outcomes"] == [
        {"code": "lost", "observed": 12 - won, "observed_with_odds": 12 - won, "expected": 6.0},
        {"code": "won", "observed": won, "observed_with_odds": won, "expected": 6.0},
    ]
    expected_fit = fit([12 - won, won], [6.0, 6.0])
    assert expected_fit is not None and coin_stats["fit"] == expected_fit
    # COIN-1's lost is the worse outcome: percentile 25, won 75.
    mean = (25 * (12 - won) + 75 * won) / 12
    assert coin_stats["mean_luck_percentile"] == pytest.approx(mean)
    # Generic dice have no outcomes: they rank by their total, P(less) + P(equal) / 2.
    ways = {total: 6 - abs(total - 7) for total in range(2, 13)}

    def percentile(total: int) -> float:
        return (sum(ways[v] for v in ways if v < total) + ways[total] / 2) / 36 * 100

    dice_luck = [percentile(roll["result"]["total"]) for roll in dice]
    dice_stats = kind_stats(answer, "dice")
    assert dice_stats["rolls"] == 3 and dice_stats["rolls_with_odds"] == 3
    assert dice_stats["fit"] is None
    assert dice_stats["mean_luck_percentile"] == pytest.approx(sum(dice_luck) / 3)
    overall = (25 * (12 - won) + 75 * won + sum(dice_luck)) / 15
    assert answer["mean_luck_percentile"] == pytest.approx(overall)
    # Every die drawn, by size.
    by_sides = {item["sides"]: item for item in answer["dice"]}
    d2 = Counter(draw["face"] for flip in made for draw in flip["draws"])
    assert by_sides[2]["faces"] == [d2[1], d2[2]] and by_sides[2]["dice"] == 12
    d6 = Counter(draw["face"] for roll in dice for draw in roll["draws"])
    assert by_sides[6]["faces"] == [d6[face] for face in range(1, 7)]
    assert by_sides[6]["expected_each"] == 1.0
    uniform = fit(by_sides[6]["faces"], [1.0] * 6)
    assert uniform is not None
    assert by_sides[6]["uniformity"]["p_value"] == pytest.approx(uniform["p_value"])
    assert by_sides[6]["uniformity"]["approximate"] is True  # 6 dice: 1 expected per face


def test_FAIR_13_a_member_counts_only_what_they_may_see(table):
    flips(table, 2)
    hidden = flips(table, 3, visibility="gm")
    assert stats(table, table.gm)["rolls"] == 5
    assert stats(table, table.player)["rolls"] == 5  # their own, hidden or not
    other = stats(table, table.other)
    assert other["rolls"] == 2
    assert sum(item["dice"] for item in other["dice"]) == 2  # not even the hidden faces
    # A filter on a hidden entry's kind or character does not count it either.
    character = f"?character_id={table.hero['id']}&kind=coin."
    assert stats(table, table.other, character)["rolls"] == 2
    assert hidden and stats(table, table.other, "?visibility=gm")["rolls"] == 0


def test_FAIR_18_no_expected_outcomes_from_an_npc_value_a_player_cannot_read(table):
    duel = {"kind": "coin.duel", "character_id": table.hero["id"], "opponent_id": table.npc["id"]}
    made: list[dict[str, Any]] = []
    # Until a duel is won: its DUEL-2 effect on the NPC is committed too (FAIR-18).
    while len(made) < 4 or not any(entry["result"]["won"] for entry in made):
        response = table.post("/rolls", table.player, duel)
        assert response.status_code == 201, response.text
        made.append(response.json())
        assert len(made) < 200
    count = len(made)
    flips(table, 3)
    left_out = [
        {
            "reason": "hidden_values",
            "rule": "FAIR-18",
            "detail": "its odds would read values committed from a sheet you may not read",
            "rolls": count,
        }
    ]
    players = stats(table, table.player)
    mine = kind_stats(players, "coin.duel")
    # Counted, and left out of the comparison on both sides alike: no outcome observed where
    # none is expected, and nothing that tells how the NPC's hidden luck shaped them.
    assert mine["rolls"] == count and mine["rolls_with_odds"] == 0
    assert mine["not_compared"] == left_out
    assert mine["outcomes"] == [] and mine["fit"] is None
    assert mine["mean_luck_percentile"] is None
    assert players["rolls"] == count + 3 and players["rolls_with_odds"] == 3
    assert players["not_compared"] == left_out
    their_flips = kind_stats(players, "coin.flip")
    assert their_flips["not_compared"] == [] and their_flips["rolls_with_odds"] == 3
    assert sum(item["observed"] for item in their_flips["outcomes"]) == 3
    # The other player sees the public duels the same way.
    assert kind_stats(stats(table, table.other), "coin.duel")["not_compared"] == left_out
    # The GM reads every value: every duel counted, observed and compared.
    gm_stats = stats(table, table.gm)
    assert gm_stats["not_compared"] == []
    gms = kind_stats(gm_stats, "coin.duel")
    assert gms["rolls_with_odds"] == count and gms["not_compared"] == []
    won = sum(1 for entry in made if entry["result"]["won"])
    observed = {item["code"]: item["observed"] for item in gms["outcomes"]}
    assert observed == {"lost": count - won, "won": won}
    assert all(item["observed"] == item["observed_with_odds"] for item in gms["outcomes"])
    # Each duel's own odds, from the NPC's luck as it read it (DUEL-2 lowers it on a win).
    duels = table.get("/rolls?kind=coin.duel&limit=200", table.gm)["data"]
    assert any(duel["effects"] for duel in duels)
    chances = [Fraction(1, duel["request"]["opponent"]["sheet"]["luck"] + 1) for duel in duels]
    expected = {item["code"]: item["expected"] for item in gms["outcomes"]}
    assert expected["won"] == pytest.approx(float(sum(chances)))
    assert expected["lost"] == pytest.approx(float(sum(1 - p for p in chances)))
    assert gms["fit"] == fit([count - won, won], [expected["lost"], expected["won"]])


TIERS = ("critical_failure", "failure", "partial_success", "success", "critical_success")
AGAINST = ("critical_failure", "failure", "success")
TRACK = ("bruised", "hurt", "injured", "wounded", "mauled", "crippled", "incapacitated")


def label_rank(code: str) -> tuple[int, str]:
    return (TRACK.index(code) + 1 if code in TRACK else 0, code)


@pytest.mark.parametrize("reverse", [False, True])
def test_outcome_order_merges_the_odds_orders_whatever_order_they_come_in(reverse):
    def merged(*orders: tuple[str, ...], codes: tuple[str, ...] = ()) -> list[str]:
        ordered = list(reversed(orders)) if reverse else list(orders)
        return outcome_order(ordered, codes, label_rank)

    # JDR-11's tiers and JDR-13's three outcomes agree: one order, worst to best.
    assert merged(TIERS, AGAINST) == list(TIERS)
    # VAM-40: an attack's worst is a hazard's best; no order suits both: the labels' order,
    # a code without a label (unhurt, which reads no outcome) first.
    attack, hazard = ("unhurt", *TRACK), (*reversed(TRACK), "unhurt")
    assert merged(attack, hazard) == ["unhurt", *TRACK]
    assert merged(hazard) == list(hazard)  # one order: that order
    # A code no order names (observed without odds) is placed by the labels, deterministically.
    assert merged(("hurt", "injured"), codes=("bruised",)) == ["bruised", "hurt", "injured"]


def test_filters_and_groups(table):
    flips(table, 2)
    table.client.post(table.url("/sessions"), json={}, headers=table.gm.headers)
    flips(table, 3)
    table.post("/rolls", table.gm, {"kind": "dice", "notation": "1d4"})
    assert stats(table, table.gm, "?session=1")["rolls"] == 4
    assert stats(table, table.gm, "?session=0")["rolls"] == 2
    assert stats(table, table.gm, f"?actor_id={table.player.id}")["rolls"] == 5
    assert stats(table, table.gm, "?kind=coin.")["rolls"] == 5
    grouped = stats(table, table.gm, "?group_by=actor")
    groups = {group["key"]: group["rolls"] for group in grouped["groups"]}
    assert groups == {table.player.id: 5, table.gm.id: 1}
    by_session = stats(table, table.gm, "?group_by=session")["groups"]
    assert [(group["key"], group["rolls"]) for group in by_session] == [("0", 2), ("1", 4)]
    by_kind = stats(table, table.gm, "?group_by=kind")["groups"]
    assert [group["key"] for group in by_kind] == ["coin.flip", "dice"]
    assert stats(table, table.gm)["groups"] is None
    assert_problem(
        table.client.get(table.url("/stats?group_by=moon"), headers=table.gm.headers), 422
    )


def test_outsiders_get_no_statistics(table):
    outsider = _register(table.client, "Nina")
    response = table.client.get(table.url("/stats"), headers=outsider.headers)
    assert_problem(response, 404)
