"""Exact odds of a roll before it is made (issue 21): the probability of every outcome the
rules define and the distributions of what they count, and how lucky a made roll was.

A roll kind computes its own odds (`RollKind.odds`) from its request, exactly: with
fractions, or icepool's exact dice arithmetic. `enumerate_paths` is the brute force every
kind's odds are tested against: it runs the kind's own `resolve` over every sequence of
faces a small pool can draw, each weighted by its probability.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Callable, Iterator, Mapping, Sequence
from fractions import Fraction
from functools import lru_cache
from itertools import accumulate
from typing import Annotated, Any, overload

from pydantic import Field, WrapSerializer

from app.engine.contract import Model
from app.engine.dice import Draw
from app.engine.errors import InvalidInput


class OutcomeOdds(Model):
    """One outcome the rules define (its code, as the roll's `outcome` gives it)."""

    code: str
    probability: float = Field(ge=0, le=1)
    exact: str = Field(description="the probability as a fraction p/q")


# A distribution lists an exact fraction per value up to this many values; a larger one gives
# floats within 1e-12 of the exact values (issue 21's contract for floats), and leaves out the
# values of its two ends whose probabilities add up to less than TAIL_LEFT at each end. Exact
# fractions cost with values × digits: 100d4's 301 values of ~60 digits are written in ~2 ms,
# 100d10's 901 of ~100 digits took ~9 ms, 100d100's 9,901 of ~200 digits 4 MB of JSON.
EXACT_VALUES = 400
TAIL_LEFT = 2.5e-13
# ... and while its fractions stay under this many digits: a success count has few values
# but may have a denominator of thousands of digits (100d1000rr1=1: about 6,300), which no
# reader wants written out (and Python writes no integer past 4,300 digits).
EXACT_DIGITS = 1000
_EXACT_BITS = int(EXACT_DIGITS * math.log2(10))


def exact_fits(denominator: int) -> bool:
    """Whether fractions over this denominator are written exactly (EXACT_DIGITS)."""
    return denominator.bit_length() <= _EXACT_BITS


class ValueOdds(Model):
    value: int
    probability: float = Field(ge=0, le=1)
    exact: str | None = Field(
        default=None,
        exclude_if=lambda exact: exact is None,
        description=f"the probability as a fraction p/q, present when the distribution has at "
        f"most {EXACT_VALUES:,} values and its fractions at most {EXACT_DIGITS:,} digits; "
        f"beyond, `probability` is within 1e-12 of the exact "
        f"value, and the values at either end whose probabilities add up to less than "
        f"{TAIL_LEFT:g} are left out",
    )


class PackedValues(Sequence[ValueOdds]):
    """A distribution's values as parallel arrays (values ascending, their floats, and their
    exact fractions when the distribution lists them); a ValueOdds is made only when one is
    read, and the JSON is written from the arrays. Three objects per value (a model, its
    dict, its set of fields) held in every cached answer made the garbage collector's full
    collections the odds' slowest requests, and 100d100's 4,068 of them took longer to build
    than the answer took to write."""

    __slots__ = ("_exact", "_probabilities", "_values")

    def __init__(
        self,
        values: Sequence[int],
        probabilities: Sequence[float],
        exact: Sequence[str] | None = None,
    ) -> None:
        if len(values) != len(probabilities) or (exact is not None and len(exact) != len(values)):
            raise ValueError("the arrays of a distribution's values differ in length")
        self._values, self._probabilities, self._exact = values, probabilities, exact

    def __len__(self) -> int:
        return len(self._values)

    @overload
    def __getitem__(self, index: int) -> ValueOdds: ...
    @overload
    def __getitem__(self, index: slice) -> list[ValueOdds]: ...
    def __getitem__(self, index: int | slice) -> ValueOdds | list[ValueOdds]:
        if isinstance(index, slice):
            return [self._item(at) for at in range(len(self))[index]]
        return self._item(range(len(self))[index])  # IndexError past either end

    def __iter__(self) -> Iterator[ValueOdds]:
        return (self._item(at) for at in range(len(self)))

    def _item(self, at: int) -> ValueOdds:
        # Built without validation (as model_construct builds it, in a tenth of its time):
        # the arrays are checked where they are made. Each its own set of fields set, as
        # pydantic expects (a shared frozenset broke `dump()`'s exclude_unset).
        item = object.__new__(ValueOdds)
        exact = None if self._exact is None else self._exact[at]
        fields = {"value": self._values[at], "probability": self._probabilities[at], "exact": exact}
        object.__setattr__(item, "__dict__", fields)
        fields_set = {"value", "probability", "exact"} if exact else {"value", "probability"}
        object.__setattr__(item, "__pydantic_fields_set__", fields_set)
        object.__setattr__(item, "__pydantic_extra__", None)
        object.__setattr__(item, "__pydantic_private__", None)
        return item

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and list(self) == list(other)

    def __repr__(self) -> str:
        return f"PackedValues({len(self)} values)"

    def pairs(self) -> list[tuple[int, float]]:
        return list(zip(self._values, self._probabilities, strict=True))

    def dumped(self) -> list[dict[str, Any]]:
        """The values as their JSON writes them (`exact` left out when not listed)."""
        if self._exact is None:
            return [
                {"value": value, "probability": probability}
                for value, probability in zip(self._values, self._probabilities, strict=True)
            ]
        return [
            {"value": value, "probability": probability, "exact": exact}
            for value, probability, exact in zip(
                self._values, self._probabilities, self._exact, strict=True
            )
        ]


# Packed values are written from their arrays, the same JSON a list of ValueOdds writes. A
# lambda: a serializer's annotated return type would become the documented one.
_WRITE_VALUES = WrapSerializer(
    lambda values, write: values.dumped() if isinstance(values, PackedValues) else write(values)
)


class DistributionOdds(Model):
    """The distribution of a number the roll counts (its total, its sixes, its damage)."""

    name: str
    values: Annotated[Sequence[ValueOdds], _WRITE_VALUES]
    mean: float
    deviation: float

    def pairs(self) -> list[tuple[int, float]]:
        """(value, probability) ascending by value, without building a ValueOdds per value."""
        if isinstance(self.values, PackedValues):
            return self.values.pairs()
        return [(item.value, item.probability) for item in self.values]


class Odds(Model):
    """What a roll may give, before it is made. `outcomes` run from the worst to the best."""

    outcomes: list[OutcomeOdds]
    distributions: list[DistributionOdds] = Field(default_factory=list)
    notes: list[str] = Field(
        default_factory=list, description="what these odds leave out (a later push, …)"
    )
    no_outcome: str | None = Field(
        default=None,
        description="the outcome code standing for a result the rules give no outcome "
        "(a damage roll that leaves its target unhurt)",
    )
    ranked_by: str | None = Field(
        default=None,
        description="for a kind without outcomes (generic dice): the distribution whose value "
        "ranks a result, e.g. its total",
    )


def fraction_text(value: Fraction) -> str:
    if not exact_fits(value.denominator):
        raise InvalidInput(
            f"these odds are not computed: their exact fractions would pass {EXACT_DIGITS:,} "
            "digits; ask for a smaller pool"
        )
    return f"{value.numerator}/{value.denominator}"


def outcome_odds(ordered: list[tuple[str, Fraction]]) -> list[OutcomeOdds]:
    """Outcomes worst to best, their probabilities exact; zero-probability ones kept (the
    client shows every outcome the rules define)."""
    return [
        OutcomeOdds(code=code, probability=float(p), exact=fraction_text(p)) for code, p in ordered
    ]


def distribution(name: str, weights: Mapping[int, Fraction]) -> DistributionOdds:
    """A distribution from exact probabilities by value (they sum to 1)."""
    total = sum(weights.values(), Fraction(0))
    if total != 1:
        raise ValueError(f"{name}: probabilities sum to {total}, not 1")
    if any(p < 0 for p in weights.values()):
        raise ValueError(f"{name}: a negative probability")
    mean = sum((value * p for value, p in weights.items()), Fraction(0))
    variance = sum(((value - mean) ** 2 * p for value, p in weights.items()), Fraction(0))
    ordered = sorted((value, p) for value, p in weights.items() if p)
    return DistributionOdds.model_construct(
        name=name,
        values=PackedValues(
            [int(value) for value, _ in ordered],
            [float(p) for _, p in ordered],
            [fraction_text(p) for _, p in ordered],
        ),
        mean=float(mean),
        deviation=math.sqrt(variance),
    )


def weighted_distribution(
    name: str, weights: Mapping[int, int], denominator: int
) -> DistributionOdds:
    """`distribution` of integer weights over their common denominator (they sum to it), the
    same answer without a Fraction per value: a 100-dice sum has thousands of values, and a
    Fraction normalized for each, then summed, took most of its odds' time. Past
    EXACT_VALUES values or EXACT_DIGITS digits, the correctly rounded floats alone."""
    if sum(weights.values()) != denominator:
        raise ValueError(f"{name}: weights sum to {sum(weights.values())}, not {denominator}")
    first = sum(value * w for value, w in weights.items())
    second = sum(value * value * w for value, w in weights.items())
    variance = Fraction(second * denominator - first * first, denominator * denominator)
    mean = float(Fraction(first, denominator))
    if sum(1 for w in weights.values() if w) > EXACT_VALUES or not exact_fits(denominator):
        ordered = sorted(value for value, w in weights.items() if w)
        # w / denominator is correctly rounded, as float(Fraction) is.
        rounded = [weights[value] / denominator for value in ordered]
        return float_distribution(name, ordered, rounded, mean, math.sqrt(variance))
    reduce = _reducer(denominator)
    texts: dict[int, str] = {}  # by weight: a sum of like dice is symmetric, half repeat
    values: list[int] = []
    floats: list[float] = []
    exact: list[str] = []
    for value in sorted(weights):
        w = weights[value]
        if not w:
            continue
        if w < 0:
            raise ValueError(f"{name}: a negative weight {w} at {value}")
        text = texts.get(w)
        if text is None:
            text = texts[w] = reduce.text(w)
        values.append(value)
        floats.append(w / denominator)  # correctly rounded, as float(Fraction) is
        exact.append(text)
    # Not validated again: every field is checked above (integers, a weight in [0,
    # denominator], its text), and validating hundreds of long fractions only costs time.
    return DistributionOdds.model_construct(
        name=name,
        values=PackedValues(values, floats, exact),
        mean=mean,
        deviation=math.sqrt(variance),
    )


def float_distribution(
    name: str, values: Sequence[int], probabilities: Sequence[float], mean: float, deviation: float
) -> DistributionOdds:
    """A distribution past EXACT_VALUES values: floats (each in [0, 1], in the order of their
    values) and no fractions, less the ends of at most TAIL_LEFT each; mean and deviation
    are the whole distribution's."""
    first, last = _kept_ends(probabilities)
    return DistributionOdds.model_construct(
        name=name,
        values=PackedValues(values[first:last], probabilities[first:last]),
        mean=mean,
        deviation=deviation,
    )


def _kept_ends(probabilities: Sequence[float]) -> tuple[int, int]:
    """[first, last): the values kept once each end whose probabilities add up to less than
    TAIL_LEFT is left out (the most probable value always stays). Running sums in C and a
    bisection: the ends of 100d100 are 5,800 values."""
    first = min(bisect_left(list(accumulate(probabilities)), TAIL_LEFT), len(probabilities) - 1)
    dropped = bisect_left(list(accumulate(reversed(probabilities))), TAIL_LEFT)
    return first, max(len(probabilities) - dropped, first + 1)


_SMALL_PRIMES = [p for p in range(2, 1000) if all(p % q for q in range(2, math.isqrt(p) + 1))]


@lru_cache(maxsize=64)
def _reducer(denominator: int) -> _Reducer:
    """The reducer of a denominator many requests share (10^pool, 6^dice): factored once."""
    return _Reducer(denominator)


class _Reducer:
    """Writes w/denominator in lowest terms. A dice denominator is a product of small primes
    (a d20's 100th power is 2^200·5^100): the common factor is then read from w's trailing
    zero bits and its gcd with a word-sized power of each odd prime, far quicker than a gcd
    of two 400-bit integers; otherwise, or when w holds more of a prime, the gcd."""

    def __init__(self, denominator: int) -> None:
        self.denominator = denominator
        # (prime, its exponent in the denominator, its largest power below 2^62 within it,
        # whether that power is less than the denominator's)
        self.powers: list[tuple[int, int, int, bool]] | None = []
        rest = denominator
        for prime in _SMALL_PRIMES:
            if rest % prime == 0:
                exponent = 0
                while rest % prime == 0:
                    rest //= prime
                    exponent += 1
                probe = 1
                for _ in range(exponent):
                    if probe * prime >= 2**62:
                        break
                    probe *= prime
                self.powers.append((prime, exponent, probe, probe != prime**exponent))
        if rest != 1:
            self.powers = None
        self.denominators: dict[int, str] = {}  # by common factor

    def common(self, w: int) -> int:
        if self.powers is None:
            return math.gcd(w, self.denominator)
        common = 1
        for prime, exponent, probe, partial in self.powers:
            if prime == 2:
                common <<= min((w & -w).bit_length() - 1, exponent)
                continue
            if w % prime:  # most weights: a remainder by a word, quicker than a gcd
                continue
            found = math.gcd(w, probe)  # w modulo one word, then a word's gcd
            if found == probe and partial:
                return math.gcd(w, self.denominator)  # w may hold more of this prime
            common *= found
        return common

    def text(self, w: int) -> str:
        common = self.common(w)
        below = self.denominators.get(common)
        if below is None:
            below = self.denominators[common] = str(self.denominator // common)
        return f"{w // common}/{below}"


class Luck(Model):
    """How lucky a made roll was, given its inputs."""

    outcome: str = Field(description="the outcome it got")
    probability: float = Field(description="the probability of that outcome")
    percentile: float = Field(
        ge=0,
        le=100,
        description="mid-rank percentile among the outcomes, worst to best: 50 is an "
        "ordinary roll, near 100 a lucky one, near 0 an unlucky one",
    )


def luck(odds: Odds, outcome: str) -> Luck:
    """The mid-rank percentile of `outcome`: P(worse) + P(same) / 2."""
    below = Fraction(0)
    for item in odds.outcomes:
        p = Fraction(item.exact)
        if item.code == outcome:
            percentile = float(below + p / 2) * 100
            return Luck(outcome=outcome, probability=float(p), percentile=percentile)
        below += p
    raise InvalidInput(f"outcome {outcome!r} is not one these odds define")


def _ranking_distribution(odds: Odds) -> DistributionOdds:
    found = next((d for d in odds.distributions if d.name == odds.ranked_by), None)
    if found is None:
        raise InvalidInput(f"these odds rank no result (no distribution {odds.ranked_by!r})")
    return found


def luck_by_values(odds: Odds) -> dict[int, tuple[float, float]]:
    """The luck of every value the ranking distribution gives, in one pass: value ->
    (probability, mid-rank percentile P(less) + P(equal) / 2).

    From the floats of the odds with compensated (Neumaier) summation, within 1e-12 of the
    exact sums: reading back every exact fraction of a 100-dice distribution costs a hundred
    times more, for digits a percentile does not show."""
    table: dict[int, tuple[float, float]] = {}
    below = compensation = 0.0
    for value, p in sorted(_ranking_distribution(odds).pairs()):
        table[value] = (p, min(100.0, (below + compensation + p / 2) * 100))
        added = below + p
        if abs(below) >= abs(p):
            compensation += (below - added) + p
        else:
            compensation += (p - added) + below
        below = added
    return table


def luck_by_value(odds: Odds, value: int) -> Luck:
    """A kind without outcomes: the mid-rank percentile of `value` in the distribution
    `odds.ranked_by` names (see `luck_by_values`); a value it gives no chance ranks above
    every value below it."""
    table = luck_by_values(odds)
    found = table.get(value)
    if found is None:
        below = math.fsum(p for other, (p, _) in table.items() if other < value)
        found = (0.0, min(100.0, below * 100))
    return Luck(outcome=str(value), probability=found[0], percentile=found[1])


# --- brute force: every sequence of faces --------------------------------------------------


class _Path:
    """A dice source that replays `prefix` and then draws face 1, noting each die's sides:
    the enumerator walks every sequence of faces depth first."""

    def __init__(self, prefix: list[int], max_dice: int) -> None:
        self.prefix = prefix
        self.max_dice = max_dice
        self.sides: list[int] = []
        self._draws: list[Draw] = []

    def roll(self, sides: int) -> int:
        if len(self.sides) >= self.max_dice:
            raise _TooDeep
        index = len(self.sides)
        face = self.prefix[index] if index < len(self.prefix) else 1
        self.sides.append(sides)
        self._draws.append({"sides": sides, "face": face})
        return face

    @property
    def draws(self) -> list[Draw]:
        return list(self._draws)


class _TooDeep(Exception):
    """A path drew more dice than the enumeration allows (an explosion chain)."""


def enumerate_paths(
    run: Callable[[Any], Any], *, max_dice: int = 12, max_paths: int = 2_000_000
) -> Iterator[tuple[Fraction, Any]]:
    """Every result `run(dice)` can give, with the probability of the faces that gave it.

    `run` takes a dice source (call a kind's resolve with it). Paths that draw more than
    `max_dice` dice (explosions) are cut and reported with result None: their probability
    is what the brute force leaves unexplored, to bound a test's tolerance.
    """
    stack: list[list[int]] = [[]]
    paths = 0
    while stack:
        prefix = stack.pop()
        source = _Path(prefix, max_dice)
        try:
            result = run(source)
        except _TooDeep:
            result = None
        paths += 1
        if paths > max_paths:
            raise ValueError(f"more than {max_paths} paths: too large to enumerate")
        # Branch on every die drawn past the prefix: faces 2..S of each (face 1 is this path).
        for index in range(len(source.sides) - 1, len(prefix) - 1, -1):
            faces = source.sides[index]
            base = [*prefix, *([1] * (index - len(prefix)))]
            for face in range(faces, 1, -1):
                stack.append([*base, face])
        weight = Fraction(1)
        for faces in source.sides:
            weight /= faces
        yield weight, result
