"""A rolled notation written as the d20 library writes it: `4d6dl1 (5, 3, 6, ~~1~~) = 14`.

Dropped and rerolled dice are struck through (`~~1~~`), a die that added another is marked
`!`, a die that compounded (`!!`) shows its whole value marked `!!` (`9!!`, a 6 and a 3), a
die meeting the success count is in bold (`**8**`)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from app.engine.dicenotation.ast import Binary, Dice, Neg, Node, Number, Paren


def die_text(die: Mapping[str, Any]) -> str:
    """One die as stored (`RolledDie` dumped)."""
    text = str(die.get("value", die["face"]))
    text += ("!!" if die.get("added") else "") + ("!" if die.get("exploded") else "")
    if die.get("dropped") or die.get("rerolled"):
        return f"~~{text}~~"
    return f"**{text}**" if die.get("success") else text


def _node(node: Node, rolled: Iterator[Mapping[str, Any]]) -> str:
    if isinstance(node, Number):
        return str(node.value)
    if isinstance(node, Dice):
        group = next(rolled)
        return f"{group['dice']} ({', '.join(die_text(die) for die in group['rolls'])})"
    if isinstance(node, Neg):
        return f"-{_node(node.operand, rolled)}"
    if isinstance(node, Paren):
        return f"({_node(node.inner, rolled)})"
    assert isinstance(node, Binary)
    left = _node(node.left, rolled)
    return f"{left} {node.op} {_node(node.right, rolled)}"


def render(expr: Node, groups: Sequence[Mapping[str, Any]], total: int) -> str:
    """The expression with each group's dice (as stored: `DiceGroupRoll` dumped), then
    `= total`."""
    return f"{_node(expr, iter(groups))} = {total}"
