"""What a notation can come to, found before any die is drawn: a division whose divisor can
be 0, or a value past ±2^53, is refused then, never after the dice are drawn (a refusal that
depended on the dice would show them without a roll to pay for them)."""

from __future__ import annotations

from app.engine.dicenotation.ast import Binary, Dice, Neg, Node, Number, Paren

MAX_TOTAL = 2**53  # integers JSON carries exactly
MAX_DICE = 100  # dice rolled in all: a notation's own, explosions and rerolls
# Operations that draw more dice: ra and e add them to the group, c (`!!`) into one die;
# either way the group's value is a sum of at most MAX_DICE dice.
ADDING = ("ra", "e", "c")
DROPPING = ("k", "p")


def interval(node: Node) -> tuple[int, int]:
    """The least and greatest value the node can take (a superset: never too narrow).

    Raises ValueError naming the divisor that can come to 0."""
    if isinstance(node, Number):
        return node.value, node.value
    if isinstance(node, Dice):
        return _dice(node)
    if isinstance(node, Neg):
        low, high = interval(node.operand)
        return -high, -low
    if isinstance(node, Paren):
        return interval(node.inner)
    return _binary(node)


def _dice(group: Dice) -> tuple[int, int]:
    if group.counting is not None:
        return 0, MAX_DICE
    values = list(group.faces) + [op.bound for op in group.ops if op.name in ("mi", "ma")]
    low, high = min(values), max(values)
    names = {op.name for op in group.ops}
    most = MAX_DICE if names & set(ADDING) else group.count
    least = 0 if names & set(DROPPING) else group.count
    # The sum of between `least` and `most` dice, each within low..high.
    return (min(least * low, most * low), max(least * high, most * high))


def _binary(node: Binary) -> tuple[int, int]:
    (a, b), (c, d) = interval(node.left), interval(node.right)
    if node.op == "+":
        return a + c, b + d
    if node.op == "-":
        return a - d, b - c
    if node.op == "/" and c <= 0 <= d:
        raise ValueError(node.right.text())
    # Both products and quotients (floored or truncated) are monotone in each operand on an
    # interval free of 0 divisors: the corners bound them.
    corners = [node.apply(x, y) for x in (a, b) for y in (c, d)]
    return min(corners), max(corners)
