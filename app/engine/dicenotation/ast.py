"""The tree of a dice notation: frozen values, built by the parser, read by the evaluator,
the renderer and the odds."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Literal

# What a selector picks among a group's dice (the d20 library's selectors): the N highest
# or lowest, or every die whose value is N, above N or below N (strictly).
SelectorKind = Literal["h", "l", "=", ">", "<"]
# d20's set operations: keep, drop (p), reroll repeatedly (rr), reroll once (ro), reroll
# and add (ra), explode (e), minimum (mi), maximum (ma); and Roll20's compounding (c, `!!`).
OpName = Literal["k", "p", "rr", "ro", "ra", "e", "c", "mi", "ma"]
# A success count's test (Roll20's `>N`, `<N`, `=N`): N itself counts for > and <.
CountKind = Literal[">=", "<=", "="]


@dataclass(frozen=True)
class Selector:
    kind: SelectorKind
    value: int

    def matches(self, value: int) -> bool:
        """For value selectors only (h and l rank dice, they do not test one)."""
        if self.kind == ">":
            return value > self.value
        if self.kind == "<":
            return value < self.value
        return value == self.value

    def text(self) -> str:
        return f"{'' if self.kind == '=' else self.kind}{self.value}"


@dataclass(frozen=True)
class Op:
    """One set operation. From rules version 3, consecutive operations of one name (but mi
    and ma) are one operation with several selectors, as in d20: `3d6kh1kl1` keeps what
    either picks. Version 2 applies each in turn, so its operations have one selector."""

    name: OpName
    selectors: tuple[Selector, ...]
    # How it was written, for the canonical form: `kh3`, `dl1` or `!` shorthands.
    written: str
    # d20's `ra` (version 3) picks one matching die at most; version 2's, every match.
    max_targets: int | None = None

    @property
    def ranked(self) -> bool:
        """Whether a selector ranks the dice (hN, lN) rather than testing each value."""
        return any(selector.kind in ("h", "l") for selector in self.selectors)

    def matches(self, value: int) -> bool:
        """Whether a value selector picks the value (for value selectors only)."""
        return any(selector.matches(value) for selector in self.selectors)

    @property
    def bound(self) -> int:
        """mi and ma's number (they take one selector, never merged)."""
        return self.selectors[-1].value

    def text(self) -> str:
        return self.written


@dataclass(frozen=True)
class Count:
    kind: CountKind
    value: int

    def matches(self, value: int) -> bool:
        if self.kind == ">=":
            return value >= self.value
        if self.kind == "<=":
            return value <= self.value
        return value == self.value

    def text(self) -> str:
        return {">=": ">", "<=": "<", "=": "="}[self.kind] + str(self.value)


@dataclass(frozen=True)
class Dice:
    """`NdS` with its operations in order, and perhaps a success count."""

    count: int
    sides: int  # 3 for Fudge dice, 100 for d%
    fudge: bool = False
    percent: bool = False
    ops: tuple[Op, ...] = ()
    counting: Count | None = None

    @property
    def faces(self) -> tuple[int, ...]:
        """The values one die shows: 1..S, or -1, 0, +1 for a Fudge die."""
        return (-1, 0, 1) if self.fudge else tuple(range(1, self.sides + 1))

    def text(self) -> str:
        size = "F" if self.fudge else "%" if self.percent else str(self.sides)
        ops = "".join(op.text() for op in self.ops)
        counting = self.counting.text() if self.counting else ""
        return f"{self.count}d{size}{ops}{counting}"

    @cached_property
    def canonical(self) -> str:
        """`text()`, written once per group: parsed notations are cached and rolled often."""
        return self.text()


@dataclass(frozen=True)
class Number:
    value: int

    def text(self) -> str:
        return str(self.value)


@dataclass(frozen=True)
class Neg:
    operand: Node

    def text(self) -> str:
        return f"-{self.operand.text()}"


@dataclass(frozen=True)
class Paren:
    inner: Node

    def text(self) -> str:
        return f"({self.inner.text()})"


BinaryOp = Literal["+", "-", "*", "/"]


@dataclass(frozen=True)
class Binary:
    op: BinaryOp
    left: Node
    right: Node
    # `/` rounds toward zero from rules version 3, as d20 does (-7/2 is -3); version 2 floors.
    truncates: bool = False

    def text(self) -> str:
        return f"{self.left.text()}{self.op}{self.right.text()}"

    def apply(self, left: int, right: int) -> int:
        """The operation on two values; a divisor is never 0 (`grammar.parse` refuses one
        that can be, and the odds leave 0 out)."""
        if self.op == "+":
            return left + right
        if self.op == "-":
            return left - right
        if self.op == "*":
            return left * right
        if self.truncates and (left < 0) != (right < 0):
            return -(-left // right)
        return left // right


Node = Number | Dice | Neg | Paren | Binary


@dataclass(frozen=True)
class Notation:
    """A parsed notation: its expression and the comment after `#`, if any."""

    expr: Node
    comment: str | None = None

    def text(self) -> str:
        return self.expr.text()

    @cached_property
    def canonical(self) -> str:
        """`text()`, written once: parsed notations are cached and rolled often."""
        return self.text()


def groups(node: Node) -> list[Dice]:
    """The dice groups of an expression, left to right (the order they are rolled)."""
    if isinstance(node, Dice):
        return [node]
    if isinstance(node, Neg):
        return groups(node.operand)
    if isinstance(node, Paren):
        return groups(node.inner)
    if isinstance(node, Binary):
        return groups(node.left) + groups(node.right)
    return []
