"""Distributions as integer weights (`Dist`), and the sum of n like dice: exact, the n-th
power of the die's weight polynomial, or, when the sum spans more values than a distribution
lists exact fractions for (`EXACT_VALUES`), kept as `LikeDice` and written as floats.

Why floats there: 100d100's exact weights take 6.6M bits and FLINT's power alone ~30 ms,
its 9,901 fractions 4 MB of JSON; an FFT power of the die's probabilities takes ~1 ms and
is within 1e-12 of the exact values, the contract of issue 21 for floats.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np
from flint import fmpz_poly
from numpy import fft

from app.engine.errors import InvalidInput
from app.engine.odds import EXACT_VALUES

MAX_VALUES = 20_000  # values a distribution may span
# The size of a group's exact weights, summed over its values: 100d100 takes 6.6M bits, and
# its answer would be 4 MB of exact fractions.
MAX_BITS = 7_000_000


@dataclass(frozen=True)
class Dist:
    """Integer weights by value over a common denominator."""

    weights: dict[int, int]
    denominator: int

    @staticmethod
    def constant(value: int) -> Dist:
        return Dist({value: 1}, 1)

    def fractions(self) -> dict[int, Fraction]:
        return {v: Fraction(w, self.denominator) for v, w in self.weights.items() if w}

    def negated(self) -> Dist:
        return Dist({-v: w for v, w in self.weights.items()}, self.denominator)


def refuse(written: str, reason: str) -> InvalidInput:
    return InvalidInput(f"the odds of '{written}' are not computed: {reason}")


@dataclass(frozen=True)
class LikeDice:
    """The sum of `count` dice each worth `die`, plus `offset`. Only built when every value
    between the die's lowest and highest has a chance: the sum then gives every value of
    its span, and the floats of an FFT need no support of their own."""

    die: Dist
    count: int
    offset: int = 0

    @property
    def low(self) -> int:
        return self.count * min(self.die.weights) + self.offset

    @property
    def span(self) -> int:
        return self.count * (max(self.die.weights) - min(self.die.weights)) + 1

    def shifted(self, by: int) -> LikeDice:
        return LikeDice(self.die, self.count, self.offset + by)

    def negated(self) -> LikeDice:
        return LikeDice(self.die.negated(), self.count, -self.offset)

    def exact(self) -> Dist:
        power = _exact_power(self.die, self.count)
        return Dist({v + self.offset: w for v, w in power.weights.items()}, power.denominator)

    def mean_and_variance(self) -> tuple[Fraction, Fraction]:
        """Exact, from the die's own: n times its mean (plus the offset), n times its
        variance."""
        die = self.die
        first = sum(v * w for v, w in die.weights.items())
        second = sum(v * v * w for v, w in die.weights.items())
        mean = Fraction(first, die.denominator)
        variance = Fraction(second * die.denominator - first * first, die.denominator**2)
        return self.count * mean + self.offset, self.count * variance

    def probabilities(self) -> list[float]:
        """The probability of each value from `low` up, within 1e-12 of the exact one.

        The n-th power of the die's probabilities' Fourier transform: each transformed value
        is at most 1 in size and carries an error near 1e-16, which the power multiplies by
        at most n (100 dice), and the inverse transform averages; tests measure the largest
        error against the exact fractions (about 1e-16). A tail value whose probability is
        below that error comes out as noise around 0: clipped to [0, 1]."""
        faces = tuple(sorted(self.die.weights.items()))
        return list(_like_probabilities(faces, self.die.denominator, self.count, self.span))


@lru_cache(maxsize=32)  # up to 20,000 floats each
def _like_probabilities(
    faces: tuple[tuple[int, int], ...], denominator: int, count: int, span: int
) -> tuple[float, ...]:
    """`LikeDice.probabilities` by the die and the count alone: the sums that differ by a
    constant (100d6+1, 100d6+2, ...) share one transform."""
    weights = dict(faces)
    low, high = faces[0][0], faces[-1][0]
    die = np.array([weights.get(v, 0) / denominator for v in range(low, high + 1)])
    size = 1 << (span - 1).bit_length()
    transformed = fft.rfft(die, size) ** count
    summed = fft.irfft(transformed, size)[:span]
    probabilities: list[float] = np.clip(summed, 0.0, 1.0).tolist()
    return tuple(probabilities)


def sum_of_like_dice(die: Dist, count: int, written: str) -> Dist | LikeDice:
    """The sum of `count` independent copies of `die`: exact weights when the sum spans at
    most EXACT_VALUES values (or the die leaves a gap), else unexpanded LikeDice."""
    low, high = min(die.weights), max(die.weights)
    span = count * (high - low) + 1
    if span > MAX_VALUES:
        raise refuse(written, f"its total spans more than {MAX_VALUES} values")
    # The same refusal whichever way the sum is written, so that an operation that needs
    # its exact weights (`100d100*2`) can still have them.
    if (die.denominator**count).bit_length() * span > MAX_BITS:
        raise refuse(written, f"its exact weights would take more than {MAX_BITS} bits")
    gapless = all(die.weights.get(v, 0) > 0 for v in range(low, high + 1))
    if span > EXACT_VALUES and gapless:
        return LikeDice(die, count)
    return _exact_power(die, count)


def power(die: Dist, count: int, written: str) -> Dist:
    """The exact sum of `count` copies of `die`, refused past the caps."""
    found = sum_of_like_dice(die, count, written)
    return found.exact() if isinstance(found, LikeDice) else found


def exact(dist: Dist | LikeDice) -> Dist:
    return dist.exact() if isinstance(dist, LikeDice) else dist


def _exact_power(die: Dist, count: int) -> Dist:
    """The n-th power of the weight polynomial, by FLINT's exact integer polynomials (fast
    multiplication in C; Python's integers took tens of milliseconds at 100d20)."""
    low, high = min(die.weights), max(die.weights)
    polynomial = fmpz_poly([die.weights.get(low + i, 0) for i in range(high - low + 1)]) ** count
    weights = {count * low + i: int(c) for i, c in enumerate(polynomial.coeffs()) if c}
    return Dist(weights, die.denominator**count)
