"""app/engine/odds.py's own parts (issue 21): a distribution's values packed as arrays read
and write exactly as a list of ValueOdds does."""

import gc
import random
from fractions import Fraction

import pytest

from app.engine.odds import (
    DistributionOdds,
    Odds,
    PackedValues,
    ValueOdds,
    distribution,
    luck_by_value,
    weighted_distribution,
)


def listed(values: PackedValues) -> list[ValueOdds]:
    return [ValueOdds.model_validate(item.model_dump()) for item in values]


def test_packed_values_read_as_a_list_of_value_odds():
    packed = PackedValues([1, 2, 3], [0.25, 0.5, 0.25], ["1/4", "1/2", "1/4"])
    assert len(packed) == 3
    assert packed[1] == ValueOdds(value=2, probability=0.5, exact="1/2")
    assert packed[-1].value == 3
    assert [item.value for item in packed[1:]] == [2, 3]
    assert packed == listed(packed) and listed(packed) == list(packed)
    assert packed.pairs() == [(1, 0.25), (2, 0.5), (3, 0.25)]
    with pytest.raises(IndexError):
        packed[3]


def test_packed_values_refuse_arrays_of_different_lengths():
    with pytest.raises(ValueError, match="differ in length"):
        PackedValues([1, 2], [1.0])
    with pytest.raises(ValueError, match="differ in length"):
        PackedValues([1], [1.0], ["1/1", "0/1"])


@pytest.mark.parametrize("exact", [True, False])
def test_packed_values_write_the_json_a_list_writes(exact):
    """The same bytes, and the same API schema: a float's `exact` left out, as a ValueOdds
    without one leaves it out."""
    packed = PackedValues([2, 3, 4], [0.25, 0.5, 0.25], ["1/4", "1/2", "1/4"] if exact else None)
    as_packed = DistributionOdds.model_construct(name="t", values=packed, mean=3.0, deviation=0.5)
    as_list = DistributionOdds(name="t", values=listed(packed), mean=3.0, deviation=0.5)
    assert as_packed.model_dump_json() == as_list.model_dump_json()
    assert as_packed.dump() == as_list.dump()
    assert ('"exact"' in as_packed.model_dump_json()) == exact
    validated = DistributionOdds.model_validate_json(as_packed.model_dump_json())
    assert validated == as_packed
    assert DistributionOdds.model_json_schema(mode="serialization")["properties"]["values"] == {
        "items": {"$ref": "#/$defs/ValueOdds"},
        "title": "Values",
        "type": "array",
    }


def test_a_distribution_keeps_no_object_per_value():
    """Cached answers hold their values as arrays: thousands of ValueOdds per answer made the
    garbage collector's full collections the slowest odds requests."""
    weights = {value: 1 for value in range(300)}
    found = weighted_distribution("total", weights, 300)
    assert isinstance(found.values, PackedValues)
    arrays = [held for held in gc.get_referents(found.values) if isinstance(held, list)]
    held = [item for array in arrays for item in array]
    assert len(held) == 3 * 300 and all(type(item) in (int, float, str) for item in held)
    exact = distribution("total", {value: Fraction(1, 300) for value in range(300)})
    assert isinstance(exact.values, PackedValues)
    assert exact.values[0].exact == "1/300" and found.values[0].exact == "1/300"


def test_luck_reads_packed_values_without_building_them():
    odds = Odds(
        outcomes=[],
        distributions=[distribution("total", {1: Fraction(1, 4), 2: Fraction(3, 4)})],
        ranked_by="total",
    )
    assert luck_by_value(odds, 2).percentile == pytest.approx(62.5)
    assert luck_by_value(odds, 1).percentile == pytest.approx(12.5)


@pytest.mark.parametrize(
    "denominator", [6**180, 10**100, 2**64, 3**100 * 5**40, 7**3 * 10**20, 6**5, 997 * 1009]
)
def test_exact_fractions_are_written_in_lowest_terms(denominator):
    """A dice denominator's common factor with a weight is read prime by prime (a word-sized
    remainder, then a gcd): weights holding high powers of its primes, or none, and a
    denominator of primes past the table, all reduce as Fraction does."""
    rng = random.Random(denominator % 1000)
    weights = {1, denominator - 1, denominator // 2, denominator // 3 or 1}
    for factor in (1, 2, 3, 9, 6**40, 3**60, 2**100, 5**30):
        weights |= {rng.randrange(1, denominator) * factor % denominator or 1 for _ in range(50)}
    for w in sorted(weights):
        written = weighted_distribution("t", {0: w, 1: denominator - w}, denominator)
        for item, weight in zip(written.values, (w, denominator - w), strict=True):
            reduced = Fraction(weight, denominator)
            assert item.exact == f"{reduced.numerator}/{reduced.denominator}", weight
