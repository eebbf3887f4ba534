"""Issue 21, point 1: the full distribution, mean and deviation of any dice notation, exact,
checked against the brute force of every face sequence the kind's own resolve can draw, and
against sampling from the real stream."""

from __future__ import annotations

import itertools
import math
from collections import Counter
from fractions import Fraction

import icepool
import pytest
from flint import fmpz_poly
from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine.dice import HmacDiceStream
from app.engine.dicenotation import grammar
from app.engine.dicenotation.odds import notation_odds
from app.engine.dicenotation.ranked import keep_ends, keep_highest
from app.engine.dicenotation.sums import Dist, LikeDice
from app.engine.dicenotation.sums import exact as exact_weights
from app.engine.errors import InvalidInput
from app.engine.odds import (
    EXACT_DIGITS,
    EXACT_VALUES,
    TAIL_LEFT,
    DistributionOdds,
    Odds,
    distribution,
    enumerate_paths,
    luck_by_value,
    luck_by_values,
    weighted_distribution,
)
from app.engine.registry import DEFAULT_REGISTRY
from app.services.stats import chi_square_survival

RULES = DEFAULT_REGISTRY.for_entry({"kind": "dice", "rules": "dice@3"})
KIND, VERSION = RULES.kind, RULES.version
REFUSED = "refused"


def odds_of(notation: str) -> Odds:
    return KIND.odds(KIND.parse_request({"notation": notation}), VERSION)


def exact(odds: Odds, name: str) -> dict[int, Fraction]:
    (found,) = [d for d in odds.distributions if d.name == name]
    return {v.value: Fraction(v.exact) for v in found.values}


def brute(notation: str, max_dice: int) -> tuple[dict[str, Counter], Fraction]:
    """Every result resolve gives, weighted: totals, successes, and the weight cut off."""
    request = KIND.parse_request({"notation": notation})

    def run(dice):
        try:
            return KIND.resolve(request, dice, VERSION).result
        except InvalidInput:
            return REFUSED

    totals: Counter = Counter()
    successes: Counter = Counter()
    cut = Fraction(0)
    for weight, result in enumerate_paths(run, max_dice=max_dice):
        if result is None:
            cut += weight
            continue
        assert result != REFUSED, "a notation that parses is never refused once rolled"
        totals[result.total] += weight
        if result.successes is not None:
            successes[result.successes] += weight
    return {"total": totals, "successes": successes}, cut


EXACT = [
    "1d6",
    "d20",
    "2d6+3",
    "3d6kh2",
    "4d4dl1",
    "3d4kl1",
    "3d4dh1",
    "2d6-1d4",
    "1d6*1d4",
    "(1d6+1)/2",
    "1d8/1d3",
    "-1d4/3",
    "3dF",
    "2dF+1",
    "1d%",
    "4d4>3",
    "3d6<2",
    "3d6=6",
    "2d6>5+2d4>3",
    "3dF>1",
    "3d4mi2",
    "3d4ma3",
    "4d4k>2",
    "4d4p1",
    "2d4k4+1d6p<3",
    "2d4mi2kh1",
    "3d4ma3dl1",
    "(2d4+1)*(1d3-2)",
    # d20's readings (dice@3): joined keeps, ra adding one die at most, `/` toward zero.
    "3d4kh1kl1",
    "2d4kh1kl1",
    "3d3kh1kl1kh1",
    "4d4kl1kh2",
    "4d3pl1ph1",
    "5d3pl1ph2",
    "3d4mi2kh1kl1",
    "4d4ra4",
    "3d4ra4ra1",
    "3d4ra4>3",
    "2d4ra<5",
    "2d4mi2ra4",
    "3d4p1ra4",
    "(1d6-4)/2",
    "1d4/-2",
    "-7/2+1d4",
]


@pytest.mark.parametrize("notation", EXACT)
def test_odds_equal_the_brute_force_exactly(notation):
    seen, cut = brute(notation, max_dice=8)
    assert cut == 0
    odds = odds_of(notation)
    assert exact(odds, "total") == {v: p for v, p in seen["total"].items() if p}
    if seen["successes"]:
        assert exact(odds, "successes") == dict(seen["successes"])
    else:
        assert [d.name for d in odds.distributions] == ["total"]
    assert odds.outcomes == [] and odds.notes == []


ADDING = [
    "2d6rr1",
    "2d4ro<2",
    "1d4rr<3",
    "2d6ra6",
    "1d6!",
    "2d4!",
    "1d6!>5",
    "2d4e4>4",
    "1d4rr1!",
    "3d4rr1kh2",
    "3d4ro1dl1",
    "3dF!",
    "1d4!+1d3!",
    # !! compounds (dice@3): a die and what it adds are one value, which later operations see.
    "1d6!!",
    "2d4!!",
    "1d6!!>5",
    "2d3!!<1",
    "3d4!!kh2",
    "2d4!!>3>6",
    "2d4!!mi6",
    "3d3p1!!",
    "1d4rr1!!",
    "2d3!!!",
    "3dF!!",
    # Joined explosions and rerolls (dice@3): a die matching any selector.
    "2d4e1e4",
    "2d6rr1rr2",
    "1d4!1!4",
    "2d4ro1ro2",
]


@pytest.mark.parametrize("notation", ADDING)
def test_odds_with_rerolls_and_explosions_are_within_what_the_brute_force_cut(notation):
    seen, cut = brute(notation, max_dice=7)
    odds = odds_of(notation)
    assert odds.notes == []  # these never reach 100 dice: the odds are exact
    for name in ("total", "successes"):
        if not seen[name]:
            continue
        computed = exact(odds, name)
        assert set(seen[name]) <= set(computed)
        for value, p in computed.items():
            # The brute force stops at 7 dice: what it cut is the only difference.
            assert 0 <= p - seen[name].get(value, 0) <= cut
    assert sum(exact(odds, "total").values()) == 1


def test_a_notation_that_could_reach_100_dice_says_its_odds_leave_that_cap_out():
    assert "Once 100 dice are drawn" in odds_of("10d6!").notes[0]
    assert odds_of("4d6!").notes == []  # 4 × 21 dice at most


def test_d20s_ra_reaches_the_cap_on_dice_only_from_100_dice():
    # ra adds one die at most (dice@3): 99d6ra6 draws 100 dice at most, 100d6ra6 would draw
    # 101, and the 100-dice cap stops the last.
    assert odds_of("99d6ra6").notes == []
    assert "Once 100 dice are drawn" in odds_of("100d6ra6").notes[0]


def test_the_caps_on_one_die_are_in_the_odds_exactly():
    # A d2 that explodes on 2 adds 2 at most 20 times: P(total = 41) = 2^-21.
    total = exact(odds_of("1d2!"), "total")
    assert total[41] == Fraction(1, 2**21) and total[42 - 1] == max(total.values()) / 2**20
    # rr1 on a d2 rerolls at most 20 times and keeps the last 1.
    assert exact(odds_of("1d2rr1"), "total") == {1: Fraction(1, 2**21), 2: 1 - Fraction(1, 2**21)}


def test_the_cap_on_compounding_is_in_the_odds_exactly():
    # A d2 compounding on 2 adds at most 20 dice into itself: 42 is twenty-one 2s.
    total = exact(odds_of("1d2!!"), "total")
    assert total[42] == total[41] == Fraction(1, 2**21) and max(total) == 42


def test_dice_at_2_odds_read_double_bang_as_two_explosions():
    # Version 2 entries' luck keeps their own reading: `!` then `!`, which no closed form
    # follows; version 3's compounding has exact odds.
    v2 = DEFAULT_REGISTRY.for_entry({"kind": "dice", "rules": "dice@2"})
    request = v2.kind.parse_request({"notation": "3d6!!"})
    with pytest.raises(InvalidInput, match="follows an explosion"):
        v2.kind.odds(request, v2.version)
    assert sum(exact(odds_of("3d6!!"), "total").values()) == 1


def test_a_distribution_is_exact_up_to_its_digits_then_floats():
    """EXACT_DIGITS: fractions past it are not written (Python writes no integer past 4,300
    digits); the floats are the correctly rounded ones."""
    for digits, written in ((EXACT_DIGITS - 1, True), (EXACT_DIGITS + 1, False)):
        denominator = 2 * 10**digits
        found = weighted_distribution(
            "total", {0: denominator // 2, 1: denominator // 2}, denominator
        )
        assert [v.probability for v in found.values] == [0.5, 0.5]
        assert [v.exact for v in found.values] == (["1/2", "1/2"] if written else [None, None])
        assert found.mean == 0.5


def exact_sum(count: int, sides: int, offset: int = 0) -> dict[int, Fraction]:
    """The exact law of NdS + offset, by integer polynomials (independent of the odds)."""
    coefficients = (fmpz_poly([1] * sides) ** count).coeffs()
    return {count + offset + i: Fraction(int(c), sides**count) for i, c in enumerate(coefficients)}


def assert_floats_within_1e_12(found: DistributionOdds, law: dict[int, Fraction]) -> None:
    """Issue 21's contract for floats: every value within 1e-12 of its exact probability (a
    value left out reads 0), the ends left out below TAIL_LEFT each, the sum 1 within 1e-12,
    no fraction written; mean and deviation those of the whole law."""
    listed = {v.value: v.probability for v in found.values}
    assert all(v.exact is None for v in found.values)
    assert [v.value for v in found.values] == sorted(listed)
    assert set(listed) <= set(law) and len(found.values) > 1
    assert max(abs(listed.get(value, 0.0) - p) for value, p in law.items()) <= 1e-12
    assert sum(p for value, p in law.items() if value < min(listed)) < TAIL_LEFT
    assert sum(p for value, p in law.items() if value > max(listed)) < TAIL_LEFT
    assert abs(math.fsum(listed.values()) - 1) <= 1e-12
    mean = sum(value * p for value, p in law.items())
    variance = sum((value - mean) ** 2 * p for value, p in law.items())
    assert found.mean == float(mean)
    assert math.isclose(found.deviation, math.sqrt(variance), rel_tol=1e-12)


@pytest.mark.parametrize(
    ("notation", "count", "sides", "offset", "sign"),
    [
        ("100d100", 100, 100, 0, 1),
        ("100d100+7", 100, 100, 7, 1),
        ("100d20", 100, 20, 0, 1),
        ("3-100d20", 100, 20, 3, -1),
        ("-100d12", 100, 12, 0, -1),
        ("1+100d12+4-2", 100, 12, 3, 1),
        ("100d6", 100, 6, 0, 1),
        ("100d10+3", 100, 10, 3, 1),
        ("100d99", 100, 99, 0, 1),
    ],
)
def test_a_sum_of_like_dice_past_400_values_gives_floats_within_1e_12(
    notation, count, sides, offset, sign
):
    """The largest generic dice: floats by FFT, each within 1e-12 of the exact fraction."""
    (total,) = odds_of(notation).distributions
    law = {sign * v + offset: p for v, p in exact_sum(count, sides).items()}
    assert len(law) > EXACT_VALUES
    assert_floats_within_1e_12(total, law)


@pytest.mark.parametrize(("count", "sides"), [(100, 100), (100, 20), (50, 6), (100, 2)])
def test_the_fft_of_like_dice_is_within_1e_12_of_the_exact_law(count, sides):
    like = LikeDice(Dist(dict.fromkeys(range(1, sides + 1), 1), sides), count)
    law = exact_sum(count, sides)
    floats = like.probabilities()
    assert len(floats) == len(law) and like.low == min(law)
    assert max(abs(f - law[like.low + i]) for i, f in enumerate(floats)) <= 1e-12
    assert all(0 <= f <= 1 for f in floats) and abs(math.fsum(floats) - 1) <= 1e-12
    assert like.exact().fractions() == law


def test_a_distribution_past_400_values_from_exact_weights_gives_rounded_floats():
    # `*` needs the exact weights: their floats are correctly rounded, the ends left out.
    (total,) = odds_of("100d20*2").distributions
    law = {2 * v: p for v, p in exact_sum(100, 20).items()}
    assert len(law) > EXACT_VALUES
    assert_floats_within_1e_12(total, law)
    assert all(v.probability == float(law[v.value]) for v in total.values)


@pytest.mark.parametrize(
    ("notation", "exact"), [("100d6", False), ("100d4", True), ("100d20*2", False)]
)
def test_odds_built_without_validation_dump_as_validated_ones(notation, exact):
    """The values `_float_values` and `_exact_values` build unvalidated dump, unset fields
    left out, exactly as the same odds validated from their JSON (a shared frozenset of
    fields set made exclude_unset raise)."""
    (built,) = odds_of(notation).distributions
    validated = DistributionOdds.model_validate_json(built.model_dump_json())
    total = built.dump()
    assert total == validated.dump()
    assert all(("exact" in v) == exact for v in total["values"])


def test_a_distribution_of_at_most_400_values_stays_exact():
    (total,) = odds_of("100d4").distributions  # 301 values
    assert exact(odds_of("100d4"), "total") == exact_sum(100, 4)
    assert len(total.values) == 301 and total.values[0].exact == f"1/{4**100}"
    assert EXACT_VALUES == 400


def test_a_gap_in_the_die_keeps_the_exact_power():
    # k>10 leaves a d20 worth 0 or 11..20: the sum gives no value between 1 and 10, so the
    # floats come from the exact weights, and list no value the dice cannot give.
    (total,) = odds_of("100d20k>10").distributions
    listed = {v.value for v in total.values}
    assert not listed & set(range(1, 11))
    assert all(v.exact is None for v in total.values)
    assert abs(math.fsum(v.probability for v in total.values) - 1) <= 1e-12


def test_floats_are_valid_odds_and_write_no_exact_key():
    odds = odds_of("100d100")
    assert Odds.model_validate(odds.model_dump()) == odds
    written = odds.model_dump_json()
    assert '"exact"' not in written
    assert all(v.probability > 0 for v in odds.distributions[0].values)  # the ends left out
    assert '"exact"' in odds_of("3d6").model_dump_json()


@pytest.mark.parametrize(
    ("weights", "denominator"),
    [
        ({2: 1, 3: 2, 4: 1}, 4),
        ({0: 1, 1: 1008}, 1009),  # a prime past the small ones: the gcd
        ({0: 3**10, 1: 3**12 - 3**10}, 3**12),  # 3^12 fits a word: read by one small gcd
        ({0: 3**45, 1: 3**50 - 3**45}, 3**50),  # more 3s than a word holds: the full gcd
        ({-5: 7, 5: 2**40 - 7}, 2**40),
    ],
)
def test_weighted_distribution_is_the_distribution_of_the_fractions(weights, denominator):
    fractions = {v: Fraction(w, denominator) for v, w in weights.items()}
    expected = distribution("total", fractions).model_dump()
    assert weighted_distribution("total", weights, denominator).model_dump() == expected


@pytest.mark.parametrize(
    ("weights", "n", "k"),
    [
        ({v: 1 for v in range(1, 7)}, 4, 3),  # counted from the dice above t
        ({v: 1 for v in range(1, 7)}, 10, 9),  # from the dice below t (k > 2(n-k) + 4)
        ({v: 1 for v in range(1, 5)}, 12, 2),
        ({v: 1 for v in range(1, 5)}, 12, 11),
        ({-1: 1, 0: 1, 1: 1}, 6, 4),
        ({1: 3, 4: 5, 7: 1}, 9, 8),  # a die its per-die operations weighted unevenly
        ({-3: 2, 4: 4, 9: 1}, 5, 1),
    ],
)
def test_keep_highest_equals_icepools_pool(weights, n, k):
    pool = icepool.Die(weights).pool(n).highest(k).sum()
    denominator = sum(weights.values()) ** n
    expected = {v: q * denominator // pool.denominator() for v, q in pool.items() if q}
    assert keep_highest(weights, n, k) == expected


@pytest.mark.parametrize(
    ("weights", "n", "highest", "lowest", "keep"),
    [
        ({v: 1 for v in range(1, 7)}, 3, 1, 1, True),
        ({v: 1 for v in range(1, 5)}, 5, 2, 2, True),
        ({v: 1 for v in range(1, 5)}, 5, 1, 2, False),
        ({1: 3, 4: 5, 7: 1}, 5, 3, 1, True),
        ({-1: 1, 0: 1, 1: 1}, 6, 2, 3, False),
        ({v: 1 for v in range(1, 4)}, 3, 3, 3, True),
    ],
)
def test_keep_ends_equals_enumerating_every_roll_with_d20s_ties(weights, n, highest, lowest, keep):
    """d20 sorts for each selector, ties to the earlier die: on equal dice, hA and lB pick
    the same earliest ones (3d6kh1kl1 on 4, 4, 4 keeps one 4)."""
    expected: Counter = Counter()
    for roll in itertools.product(weights, repeat=n):
        by_high = sorted(range(n), key=lambda i: (-roll[i], i))[:highest]
        by_low = sorted(range(n), key=lambda i: (roll[i], i))[:lowest]
        picked = set(by_high) | set(by_low)
        kept = picked if keep else set(range(n)) - picked
        expected[sum(roll[i] for i in kept)] += math.prod(weights[v] for v in roll)
    assert keep_ends(weights, n, highest, lowest, keep) == dict(expected)


def test_joined_keeps_at_the_cap_are_exact():
    # 5000 dice² × faces at most: 50d2 keeping the highest 10 and the lowest 10.
    total = exact(odds_of("50d2kh10kl10"), "total")
    assert sum(total.values()) == 1 and min(total) == 10 and max(total) == 30
    # Fifty 1s: both selectors pick the first ten 1s.
    assert total[10] == Fraction(1, 2**50)
    # Ten 2s kept and ten 1s: from ten to forty 2s among the fifty.
    assert total[30] == Fraction(sum(math.comb(50, k) for k in range(10, 41)), 2**50)


def test_dice_at_2_odds_keep_version_2s_readings():
    v2 = DEFAULT_REGISTRY.for_entry({"kind": "dice", "rules": "dice@2"})

    def odds_v2(notation: str) -> Odds:
        return v2.kind.odds(v2.kind.parse_request({"notation": notation}), v2.version)

    # (1d4-4)/2 floors in version 2: -3/2 is -2, -1/2 is -1; version 3 rounds toward zero.
    (old,) = odds_v2("(1d4-4)/2").distributions
    assert {v.value: Fraction(v.exact) for v in old.values} == {
        -2: Fraction(1, 4),
        -1: Fraction(1, 2),
        0: Fraction(1, 4),
    }
    assert exact(odds_of("(1d4-4)/2"), "total") == {-1: Fraction(1, 2), 0: Fraction(1, 2)}
    # Version 2 kept the highest, then the lowest of that one: no closed form follows.
    with pytest.raises(InvalidInput, match="follows an explosion or a keep by rank"):
        odds_v2("3d6kh1kl1")
    # Version 2's ra adds a die for each 4: 2d4ra4 can come to 16.
    assert max(v.value for v in odds_v2("2d4ra4").distributions[0].values) == 16
    assert max(exact(odds_of("2d4ra4"), "total")) == 12


def test_mean_and_deviation_of_100d6():
    (total,) = odds_of("100d6").distributions
    assert total.mean == 350
    assert math.isclose(total.deviation, math.sqrt(100 * 35 / 12), rel_tol=1e-12)
    assert abs(math.fsum(v.probability for v in total.values) - 1) <= 1e-12


@pytest.mark.parametrize(
    ("notation", "fragment"),
    [
        ("100d1000", "spans more than 20000 values"),
        ("1d6!kh1", "follows an explosion or a keep by rank"),
        ("4d6kh3pl1", "follows an explosion or a keep by rank"),
        ("4d6kh3>4", "keeps by rank before a success count"),
        ("4d6p1kh2", "after a keep or drop by value"),
        ("(10d6*10d6)*(20d100)", "more than 200000 pairs"),
        ("100d6!", "more than 7000000 bits"),
        ("1d1000!", "more than 200000 pairs"),
        ("1d1000!!", "more than 200000 pairs"),
        ("50d6*50d6", "spans more than 20000 values"),
        ("4d6kh1k>4", "keeps by rank and by value at once"),
        ("20d20kh1kl1", "keeps dice of both ends among more than 5000 dice² × faces"),
        ("4d6pl1ph1>3", "keeps by rank before a success count"),
    ],
)
def test_odds_it_cannot_compute_are_refused_saying_why(notation, fragment):
    with pytest.raises(InvalidInput, match="odds of") as error:
        odds_of(notation)
    assert fragment in str(error.value)


@pytest.mark.parametrize(
    "notation", ["4d6kh3", "5d10>6", "2d6!+1d4", "3d6!!kh2", "4d6kh1kl1", "5d6ra6"]
)
def test_sampling_the_real_stream_agrees_with_the_odds(notation):
    request = KIND.parse_request({"notation": notation})
    observed: Counter = Counter()
    rolls = 10_000
    for nonce in range(1, rolls + 1):
        stream = HmacDiceStream(bytes(range(32)), "odds", 1, notation, nonce)
        observed[KIND.resolve(request, stream, VERSION).result.total] += 1
    expected = exact(odds_of(notation), "total")
    # Bins of at least 5 expected rolls: values in order, the small tails merged.
    bins: list[tuple[float, int]] = []
    mass, count = 0.0, 0
    for value in sorted(set(expected) | set(observed)):
        mass += float(expected.get(value, 0)) * rolls
        count += observed.get(value, 0)
        if mass >= 5:
            bins.append((mass, count))
            mass, count = 0.0, 0
    if mass or count:
        last_mass, last_count = bins.pop()
        bins.append((last_mass + mass, last_count + count))
    statistic = sum((o - e) ** 2 / e for e, o in bins)
    assert chi_square_survival(len(bins) - 1, statistic) > 0.001


_GROUP = st.builds(
    lambda count, sides, ops, counting: f"{count}d{sides}{''.join(ops)}{counting}",
    st.integers(1, 2),
    st.sampled_from(["2", "3", "4", "F"]),
    st.lists(
        st.sampled_from(["kh1", "kl1", "dh1", "dl1", "k>1", "p1", "mi2", "ma2", "ra2"]), max_size=2
    ),
    st.sampled_from(["", "", ">2", "<1", "=2"]),
)
_EXPRESSION = st.builds(
    lambda left, op, right: f"{left}{op}{right}",
    _GROUP,
    st.sampled_from(["+", "-", "*", "/", "+(1-", "*-"]),
    st.one_of(_GROUP, st.integers(1, 3).map(str)),
).map(lambda text: text + ")" if "(" in text else text)


@settings(max_examples=150, deadline=None)
@given(_EXPRESSION)
def test_odds_of_random_small_notations_equal_the_brute_force_or_are_refused(notation):
    try:
        odds = odds_of(notation)
    except InvalidInput as error:
        # What the odds cannot compute, or a notation refused before any die (a divisor
        # that can come to 0).
        assert "odds of" in str(error) or "can come to 0" in str(error)
        return
    seen, cut = brute(notation, max_dice=8)
    assert cut == 0
    assert exact(odds, "total") == {v: p for v, p in seen["total"].items() if p}
    if seen["successes"]:
        assert exact(odds, "successes") == {v: p for v, p in seen["successes"].items() if p}


@pytest.mark.parametrize("notation", ["1d20", "3d6kh2+1", "4dF", "2d4!", "100d4"])
def test_the_luck_of_every_value_is_its_exact_mid_rank_within_1e_12(notation):
    """What the statistics and ?with_odds look up for many rolls of one request: from the
    floats of the odds, within 1e-12 of the exact P(less) + P(equal) / 2."""
    odds = odds_of(notation)
    table = luck_by_values(odds)
    law = exact(odds, "total")
    assert set(table) == set(law)
    below = Fraction(0)
    for value in sorted(law):
        p = law[value]
        probability, percentile = table[value]
        assert abs(probability - p) <= 1e-12 * p
        assert abs(percentile - (below + p / 2) * 100) <= 1e-12
        assert luck_by_value(odds, value).percentile == percentile
        below += p
    # A value the odds give no chance ranks above all that are below it.
    assert luck_by_value(odds, max(law) + 1).percentile == pytest.approx(100, abs=1e-12)
    assert luck_by_value(odds, min(law) - 1).percentile == 0


@pytest.mark.parametrize("notation", ["100d100", "2d10!"])
def test_the_luck_of_floats_is_the_mid_rank_within_1e_12_even_in_the_ends_left_out(notation):
    """Floats within 1e-12 make the mid-rank P(less) + P(equal) / 2 within 1e-12 (the
    percentile, a hundred times it, within 1e-10); a value of an end left out ranks as
    the values around it."""
    odds = odds_of(notation)
    assert all(v.exact is None for v in odds.distributions[0].values)
    if notation == "100d100":
        law = exact_sum(100, 100)
    else:  # the exact weights the odds were written from (brute-forced for small pools)
        total, _ = notation_odds(grammar.parse(notation, VERSION), notation)
        law = exact_weights(total).fractions()
    table = luck_by_values(odds)
    below = Fraction(0)
    for value in sorted(law):
        p = law[value]
        found = table.get(value) or (lambda luck: (luck.probability, luck.percentile))(
            luck_by_value(odds, value)
        )
        assert abs(found[0] - p) <= 1e-12
        assert abs(found[1] / 100 - (below + p / 2)) <= 1e-12
        below += p
