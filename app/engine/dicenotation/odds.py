"""The exact distribution of a notation's total (and of its successes), before it is rolled.

A distribution is integer weights over values with their denominator (`Dist`): dice groups
are summed by powers of their weight polynomial (FLINT's exact integer polynomials; a sum
spanning more than EXACT_VALUES values stays unexpanded, `LikeDice`, for its floats, see
`sums.py`),
single dice go through icepool (rerolls, compounding), keeps by rank through `ranked.py`,
and groups combine by + - * /.
What the odds cannot compute exactly in reasonable time is refused with InvalidInput: an
operation order the evaluator allows but no closed form follows (an operation after an
explosion, a second keep by rank, a keep by rank and by value at once), a keep of both
ends past MAX_BOTH_ENDS, or a total spanning more than MAX_VALUES values.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable

import icepool
from flint import fmpz_poly

from app.engine.dicenotation.ast import Binary, Dice, Neg, Node, Notation, Number, Op, Paren
from app.engine.dicenotation.evaluate import MAX_EXPLOSIONS, MAX_REROLLS
from app.engine.dicenotation.ranked import keep_ends, keep_highest
from app.engine.dicenotation.sums import (
    MAX_BITS,
    MAX_VALUES,
    Dist,
    LikeDice,
    exact,
    power,
    refuse,
    sum_of_like_dice,
)
from app.engine.errors import InvalidInput

MAX_PAIRS = 200_000  # value pairs combined by + - * / (or by a die and what it adds)
MAX_RANKED = 2_000  # dice × faces of a group kept by rank (`ranked.py`: 100d20kh50 ~0.1 s)
# dice² × faces of a group that keeps dice of both ends or the middle (`3d6kh1kl1`, d20's
# joined selectors): `keep_ends` works face by face through every count of dice.
MAX_BOTH_ENDS = 5_000
DROPPED = -(10**9)  # a die a value selector dropped: it adds nothing and counts no success


def _from_die(die: icepool.Die[int]) -> Dist:
    return Dist({int(v): int(q) for v, q in die.items() if q}, int(die.denominator()))


Summed = Dist | LikeDice  # a group's sum: LikeDice when large, see sums.py


def _combine(left: Summed, right: Summed, node: Binary, written: str) -> Summed:
    op = node.op
    # A large sum of like dice plus or minus a number stays unexpanded (`100d100+5`).
    if op in ("+", "-"):
        number = _single(right)
        if isinstance(left, LikeDice) and number is not None:
            return left.shifted(number if op == "+" else -number)
        number = _single(left)
        if isinstance(right, LikeDice) and number is not None:
            return (right if op == "+" else right.negated()).shifted(number)
    left, right = exact(left), exact(right)
    if len(left.weights) * len(right.weights) > MAX_PAIRS:
        raise refuse(written, f"'{op}' would combine more than {MAX_PAIRS} pairs of values")
    if op == "/" and 0 in right.weights:
        raise refuse(written, "its divisor can come to 0, and such a roll is refused")
    weights: dict[int, int] = defaultdict(int)
    for a, wa in left.weights.items():
        for b, wb in right.weights.items():
            weights[node.apply(a, b)] += wa * wb
    if max(weights) - min(weights) + 1 > MAX_VALUES:
        raise refuse(written, f"its total spans more than {MAX_VALUES} values")
    return Dist(dict(weights), left.denominator * right.denominator)


def _single(dist: Summed) -> int | None:
    """The value of a distribution that gives one value for sure (a number)."""
    if isinstance(dist, Dist) and len(dist.weights) == 1:
        return next(iter(dist.weights))
    return None


class _Group:
    """The odds of one dice group: one die through its per-die operations (rerolls, `!!`,
    mi/ma, keeps by value), then an explosion or a keep by rank, then the sum of its dice."""

    def __init__(self, group: Dice, written: str) -> None:
        self.group, self.written = group, written
        self.base: icepool.Die[int] = icepool.Die(list(group.faces))

    def refuse(self, op: Op, reason: str) -> InvalidInput:
        return refuse(self.written, f"'{op.written}' {reason}")

    def dists(self) -> tuple[Summed, Summed | None]:
        """The group's value and, when it counts them, its successes (the same number)."""
        die, ops = self.base, list(self.group.ops)
        while ops and not _ends_per_die(ops[0]):
            die = self._per_die(die, ops.pop(0))
        if ops and len(ops) > 1:
            raise self.refuse(ops[1], "follows an explosion or a keep by rank")
        if ops and ops[0].max_targets is not None:  # d20's ra: one die at most
            total = self._add_once(die, ops[0])
            return total, (total if self.group.counting is not None else None)
        if not ops:
            contributions = self._contributions(_from_die(die))
        elif ops[0].name in ("e", "ra"):
            contributions = self._chain(die, ops[0])
        else:
            if self.group.counting is not None:
                raise self.refuse(ops[0], "keeps by rank before a success count")
            if DROPPED in die:
                raise self.refuse(ops[0], "keeps by rank after a keep or drop by value")
            return self._ranked(die, ops[0]), None
        summed = sum_of_like_dice(contributions, self.group.count, self.written)
        return summed, (summed if self.group.counting is not None else None)

    def _per_die(self, die: icepool.Die[int], op: Op) -> icepool.Die[int]:
        match = op.matches
        if op.name in ("rr", "ro"):
            # A reroll draws a fresh die; rr rerolls it again while it matches (up to
            # MAX_REROLLS draws: past them the roll is refused, see the notes).
            fresh = self.base
            if op.name == "rr":
                matching = [v for v in self.group.faces if match(v)]
                fresh = self.base.reroll(matching, depth=MAX_REROLLS - 1)
            return die.map(lambda v: fresh if v != DROPPED and match(v) else v)
        if op.name == "c":
            return self._compound(die, op)
        if op.name in ("k", "p"):
            keep = op.name == "k"
            return die.map(lambda v: v if v == DROPPED or match(v) == keep else DROPPED)
        bound = op.bound
        if op.name == "mi":
            return die.map(lambda v: v if v == DROPPED else max(v, bound))
        return die.map(lambda v: v if v == DROPPED else min(v, bound))

    def _contribution(self, value: int) -> int:
        """What one die adds to the group: its value, or 1 for a success when counting."""
        if value == DROPPED:
            return 0
        counting = self.group.counting
        if counting is None:
            return value
        return 1 if counting.matches(value) else 0

    def _contributions(self, dist: Dist) -> Dist:
        weights: dict[int, int] = defaultdict(int)
        for v, w in dist.weights.items():
            weights[self._contribution(v)] += w
        return Dist(dict(weights), dist.denominator)

    def _chain(self, die: icepool.Die[int], op: Op) -> Dist:
        """A die and what it adds: `e` explodes each new die too (up to MAX_EXPLOSIONS), `ra`
        adds one die. New dice are fresh: no earlier operation applies to them."""
        fresh = _from_die(self.base)
        tail = self._contributions(fresh)  # the last die of a chain: it does not explode
        for _ in range((MAX_EXPLOSIONS if op.name == "e" else 1) - 1):
            tail = self._extend(fresh, tail, op)
        return self._extend(_from_die(die), tail, op)

    def _compound(self, die: icepool.Die[int], op: Op) -> icepool.Die[int]:
        """`!!`: a matching die adds a fresh die into itself, which adds another while it
        matches, up to MAX_EXPLOSIONS draws; the die is then one value like any other."""
        fresh = _from_die(self.base)
        tail = fresh  # the last draw a die may add: it adds no other

        def itself(value: int) -> int:
            return value

        for _ in range(MAX_EXPLOSIONS - 1):
            tail = self._extend(fresh, tail, op, itself)
        head = self._extend(_from_die(die), tail, op, itself)
        return icepool.Die(head.weights)

    def _extend(
        self, head: Dist, tail: Dist, op: Op, own: Callable[[int], int] | None = None
    ) -> Dist:
        """A die (`head`) followed, when it matches, by what its added die (`tail`) comes to;
        the die counts for `own(value)`, by default what it adds to the group."""
        own = own or self._contribution
        if len(head.weights) * len(tail.weights) > MAX_PAIRS:
            raise self.refuse(op, f"would combine more than {MAX_PAIRS} pairs of values")
        weights: dict[int, int] = defaultdict(int)
        for v, w in head.weights.items():
            if v != DROPPED and op.matches(v):
                for t, wt in tail.weights.items():
                    weights[own(v) + t] += w * wt
            else:
                weights[own(v)] += w * tail.denominator
        values = [v for v in weights if v != DROPPED]
        if values and max(values) - min(values) + 1 > MAX_VALUES:
            raise refuse(self.written, f"its total spans more than {MAX_VALUES} values")
        return Dist(dict(weights), head.denominator * tail.denominator)

    def _add_once(self, die: icepool.Die[int], op: Op) -> Dist:
        """d20's `ra`: the group's dice, and one fresh die more when any of them matches.
        The sum with no match is the power of the unmatched values alone; the rest has a
        match, and adds the fresh die (a product of weight polynomials)."""
        one, n = _from_die(die), self.group.count
        unmatched = {v: w for v, w in one.weights.items() if v == DROPPED or not op.matches(v)}
        every = power(self._contributions(one), n, self.written)
        none = Dist({}, every.denominator)
        if unmatched:
            none = power(self._contributions(Dist(unmatched, one.denominator)), n, self.written)
        fresh = self._contributions(_from_die(self.base))
        low, high = min(every.weights), max(every.weights)
        fresh_low, fresh_high = min(fresh.weights), max(fresh.weights)
        span = high + fresh_high - low - fresh_low + 1
        if span > MAX_VALUES:
            raise refuse(self.written, f"its total spans more than {MAX_VALUES} values")
        denominator = every.denominator * fresh.denominator
        if denominator.bit_length() * span > MAX_BITS:
            raise refuse(self.written, f"its exact weights would take more than {MAX_BITS} bits")
        matched = fmpz_poly(
            [every.weights.get(v, 0) - none.weights.get(v, 0) for v in range(low, high + 1)]
        )
        added = fmpz_poly([fresh.weights.get(v, 0) for v in range(fresh_low, fresh_high + 1)])
        weights = {
            low + fresh_low + i: int(c) for i, c in enumerate((matched * added).coeffs()) if c
        }
        for value, weight in none.weights.items():
            weights[value] = weights.get(value, 0) + weight * fresh.denominator
        return Dist(weights, denominator)

    def _ranked(self, die: icepool.Die[int], op: Op) -> Dist:
        n = self.group.count
        if n * len(die) > MAX_RANKED:
            raise self.refuse(op, f"keeps by rank among more than {MAX_RANKED} dice × faces")
        if not all(selector.kind in ("h", "l") for selector in op.selectors):
            raise self.refuse(op, "keeps by rank and by value at once")
        highest = max((x.value for x in op.selectors if x.kind == "h"), default=0)
        lowest = max((x.value for x in op.selectors if x.kind == "l"), default=0)
        one = _from_die(die)
        if highest and lowest:  # d20's joined selectors, as `kh1kl1`
            if n * n * len(die) > MAX_BOTH_ENDS:
                raise self.refuse(
                    op, f"keeps dice of both ends among more than {MAX_BOTH_ENDS} dice² × faces"
                )
            kept = keep_ends(one.weights, n, highest, lowest, op.name == "k")
            return Dist(kept, one.denominator**n)
        rank = min(highest or lowest, n)
        count = rank if op.name == "k" else n - rank
        if count == 0:
            return Dist.constant(0)
        # k keeps what hN/lN names; p keeps the others (the lowest when it drops the highest).
        if (highest > 0) == (op.name == "k"):
            return Dist(keep_highest(one.weights, n, count), one.denominator**n)
        # The lowest are the highest of the values negated.
        negated = keep_highest({-v: w for v, w in one.weights.items()}, n, count)
        return Dist({-v: w for v, w in negated.items()}, one.denominator**n)


def _ends_per_die(op: Op) -> bool:
    """An explosion, or a keep by rank: what follows no longer acts on one die at a time."""
    return op.name in ("e", "ra") or op.ranked


def _node(node: Node, written: str, counted: list[Summed]) -> Summed:
    if isinstance(node, Number):
        return Dist.constant(node.value)
    if isinstance(node, Dice):
        total, successes = _Group(node, written).dists()
        if successes is not None:
            counted.append(successes)
        return total
    if isinstance(node, Neg):
        return _node(node.operand, written, counted).negated()
    if isinstance(node, Paren):
        return _node(node.inner, written, counted)
    assert isinstance(node, Binary)
    left = _node(node.left, written, counted)
    return _combine(left, _node(node.right, written, counted), node, written)


def notation_odds(notation: Notation, written: str) -> tuple[Summed, Summed | None]:
    """The distribution of the total and, when a group counts them, of the successes: exact
    weights, or a large sum of like dice to be written as floats."""
    counted: list[Summed] = []
    total = _node(notation.expr, written, counted)
    successes = None
    adding = Binary("+", Number(0), Number(0))  # successes of several groups add up
    for dist in counted:
        successes = dist if successes is None else _combine(successes, dist, adding, written)
    return total, successes
