"""Roll a parsed notation: every die from the campaign's dice source, in order, left to right.

Operations apply in the order written to the dice still counting (neither dropped nor
rerolled), as in the d20 library: `k`/`p` keep or drop what their selectors pick (ties go to
the earlier die; several selectors, from rules version 3, pick what any of them picks), `rr`
rerolls a die while it matches, `ro` once, `ra` adds a die for the first match (version 2:
one for each match), `e` (`!`) adds a die for each match, new dice included, `c` (`!!`,
Roll20's compounding) adds each new draw into the die itself while the last draw matches
(one die, one value; the draws it added are listed with it), `mi`/`ma` raise or lower
values. A success count replaces the group's sum by the number of counted dice that meet it.
`/` rounds toward zero from version 3 (floors in version 2), so every total is an integer.

Nothing is refused once a die is drawn (`grammar.parse` refuses what can be known before:
a divisor that can be 0, a value past ±2^53): the caps on what dice add stop it instead, and
the group says so (`stopped`). A die rerolls at most MAX_REROLLS times (it keeps the last),
explodes or compounds at most MAX_EXPLOSIONS times, and once MAX_DICE dice are drawn nothing
adds more.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.engine.dice import DiceSource
from app.engine.dicenotation.ast import Dice, Neg, Node, Notation, Number, Op, Paren
from app.engine.dicenotation.bounds import MAX_DICE
from app.engine.dicenotation.results import DiceGroupRoll

MAX_REROLLS = 20  # rr on one die
MAX_EXPLOSIONS = 20  # e or ! from one die; !! into one die


@dataclass(slots=True)
class _Die:
    face: int
    value: int
    depth: int = 0  # how many explosions led to it
    dropped: bool = False
    rerolled: bool = False
    exploded: bool = False
    success: bool = False
    added: list[int] = field(default_factory=list)  # faces `!!` compounded into it

    @property
    def counts(self) -> bool:
        return not (self.dropped or self.rerolled)

    def stored(self) -> dict[str, Any]:
        """The die as the log stores it (a `RolledDie` dumped): its face, and the flags and
        values that are set, nothing else."""
        die: dict[str, Any] = {"face": self.face}
        if self.value != self.face:
            die["value"] = self.value
        if self.added:
            die["added"] = list(self.added)
        if self.dropped:
            die["dropped"] = True
        if self.rerolled:
            die["rerolled"] = True
        if self.exploded:
            die["exploded"] = True
        if self.success:
            die["success"] = True
        return die


class _Roller:
    def __init__(self, dice: DiceSource) -> None:
        self.dice = dice
        self.drawn = 0
        self.groups: list[dict[str, Any]] = []  # as the log stores them
        self.stopped: list[str] = []  # the caps that stopped the current group

    def can_add(self, op: Op) -> bool:
        """Whether a die may still be added (MAX_DICE in all); noted when it may not."""
        if self.drawn < MAX_DICE:
            return True
        self.stop(f"{op.written}: no more than {MAX_DICE} dice in all")
        return False

    def stop(self, why: str) -> None:
        if why not in self.stopped:
            self.stopped.append(why)

    def draw(self, group: Dice) -> _Die:
        self.drawn += 1
        face = self.dice.roll(group.sides) - 2 if group.fudge else self.dice.roll(group.sides)
        return _Die(face, face)

    def value(self, node: Node) -> int:
        if isinstance(node, Number):
            return node.value
        if isinstance(node, Dice):
            return self.group(node)
        if isinstance(node, Neg):
            return -self.value(node.operand)
        if isinstance(node, Paren):
            return self.value(node.inner)
        return node.apply(self.value(node.left), self.value(node.right))

    def group(self, group: Dice) -> int:
        self.stopped = []
        dice = [self.draw(group) for _ in range(group.count)]
        for op in group.ops:
            self.operate(op, group, dice)
        counted = [die for die in dice if die.counts]
        stored: dict[str, Any] = {"dice": group.canonical, "rolls": []}
        if group.counting is None:
            value = sum(die.value for die in counted)
        else:
            for die in counted:
                die.success = group.counting.matches(die.value)
            value = sum(die.success for die in counted)
            stored["successes"] = value
        if self.stopped:
            stored["stopped"] = list(self.stopped)
        stored["rolls"] = [d.stored() for d in dice]
        stored["value"] = value
        self.groups.append(stored)
        return value

    def operate(self, op: Op, group: Dice, dice: list[_Die]) -> None:
        alive = [die for die in dice if die.counts]
        picked = _select(op, alive)
        if op.name == "k":
            for die in alive:
                die.dropped = die.dropped or id(die) not in picked
        elif op.name == "p":
            for die in alive:
                die.dropped = die.dropped or id(die) in picked
        elif op.name in ("rr", "ro"):
            for die in alive:
                current, times = die, 0
                while op.matches(current.value):
                    if times == (MAX_REROLLS if op.name == "rr" else 1):
                        if op.name == "rr":
                            self.stop(f"{op.written}: a die rerolls at most {MAX_REROLLS} times")
                        break
                    if not self.can_add(op):
                        break
                    current.rerolled = True
                    current = self.draw(group)
                    dice.append(current)
                    times += 1
        elif op.name == "ra":
            for die in alive:
                if id(die) in picked and self.can_add(op):
                    die.exploded = True
                    dice.append(self.draw(group))
        elif op.name == "e":
            self.explode(op, group, dice, alive)
        elif op.name == "c":
            self.compound(op, group, alive)
        else:  # mi, ma
            for die in alive:
                bound = op.bound
                die.value = max(die.value, bound) if op.name == "mi" else min(die.value, bound)

    def explode(self, op: Op, group: Dice, dice: list[_Die], alive: list[_Die]) -> None:
        queue = list(alive)
        while queue:
            die = queue.pop(0)
            if not op.matches(die.value):
                continue
            if die.depth == MAX_EXPLOSIONS:
                self.stop(f"{op.written}: a die explodes at most {MAX_EXPLOSIONS} times")
                continue
            if not self.can_add(op):
                return
            die.exploded = True
            added = self.draw(group)
            added.depth = die.depth + 1
            dice.append(added)
            queue.append(added)

    def compound(self, op: Op, group: Dice, alive: list[_Die]) -> None:
        """Roll20's `!!`: each die in turn draws while its last draw matches (the die's own
        value first), every draw added into it."""
        for die in alive:
            last, times = die.value, 0
            while op.matches(last):
                if times == MAX_EXPLOSIONS:
                    self.stop(f"{op.written}: a die compounds at most {MAX_EXPLOSIONS} times")
                    break
                if not self.can_add(op):
                    return
                last = self.draw(group).face
                die.added.append(last)
                die.value += last
                times += 1


def _select(op: Op, alive: list[_Die]) -> set[int]:
    """The ids of the dice an operation's selectors pick, as d20's `SetOperator.select`: what
    any selector picks (hN/lN rank, ties to the earlier die); with `max_targets`, the first
    picks of the first selectors, up to that many."""
    picked: set[int] = set()
    for selector in op.selectors:
        if op.max_targets is not None and len(picked) >= op.max_targets:
            break
        if selector.kind in ("h", "l"):
            high = selector.kind == "h"
            order = sorted(
                range(len(alive)), key=lambda i: (-alive[i].value if high else alive[i].value, i)
            )
            chosen = [alive[i] for i in order[: selector.value]]
        else:
            chosen = [die for die in alive if selector.matches(die.value)]
        if op.max_targets is not None:
            chosen = chosen[: op.max_targets - len(picked)]
        picked.update(id(die) for die in chosen)
    return picked


def evaluate_stored(notation: Notation, dice: DiceSource) -> tuple[int, list[dict[str, Any]]]:
    """The total and the rolled groups, left to right, as the log stores them (each a
    `DiceGroupRoll` dumped): what a replay compares, with no model built."""
    roller = _Roller(dice)
    return roller.value(notation.expr), roller.groups


def evaluate(notation: Notation, dice: DiceSource) -> tuple[int, list[DiceGroupRoll]]:
    """The total and the rolled groups, left to right."""
    total, groups = evaluate_stored(notation, dice)
    return total, [DiceGroupRoll.model_validate(group) for group in groups]
