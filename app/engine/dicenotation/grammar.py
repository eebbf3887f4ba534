"""Parse a dice notation as dice-bot users write it (the d20 library's grammar, with Fudge
dice, `!` explosions, Roll20's `!!` compounding and success counts) into the tree of
`ast.py`, with every cap checked.

The grammar is our own, run by lark's LALR parser; spaces are ignored and letters may be
upper or lower case, so `3D6 KH2` is `3d6kh2`. A `#` starts the comment (the roll's label).

Rules version 3 (`dice@3`) reads these as version 2 did not:
- `!!`, `!!N`, `!!>N`, `!!<N` compound (Roll20): a die that meets the condition draws
  another die and adds it into itself, again while the new draw meets it, so `3d6!!` shows
  three values, e.g. `3d6!! (4, 9!!, 2) = 15` (the 9 is a 6 and a 3; `!!` marks it, and the
  roll's `added` lists the 3). Version 2 read `!!` as two `!` explosions, and replays so.
- Bare trailing words label the roll as d20 reads them: `1d20+5 Attack the guard`. Spaces
  still never split the notation (`4d6 kh3` keeps 3 dice, as before): the label starts at
  the first word, beginning with a letter, from which the rest cannot be read as notation.
  A first word that reads as notation (`4d6 kh`, `4d6 kh3x`, `1d20 d6`) is refused as a
  likely mistake rather than taken as a label; `# kh` says it is one.
- As d20: consecutive operations of one name (but mi and ma) are one operation whose
  selectors' picks join (`3d6kh1kl1` keeps the highest and the lowest; version 2 kept the
  highest, then the lowest of that one); `ra` adds one die at most (version 2: one per
  match); `/` rounds toward zero (-7/2 is -3; version 2 floored it to -4).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Final

from lark import Lark, Token, Transformer
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedInput, VisitError

from app.engine.bodies import readable_text
from app.engine.dicenotation.ast import (
    Binary,
    Count,
    Dice,
    Neg,
    Node,
    Notation,
    Number,
    Op,
    OpName,
    Paren,
    Selector,
    groups,
)
from app.engine.dicenotation.bounds import MAX_DICE, MAX_TOTAL, interval
from app.engine.errors import InvalidInput

MAX_LENGTH = 100  # characters, spaces and comment included
MAX_SIDES = 1000
MAX_NUMBER = 10_000  # any number written: a constant, a selector, a count
MAX_NESTING = 10  # parentheses inside parentheses
MAX_COMMENT = 100

# {compound} in the operation terminal: version 3 reads `!!` first (compounding); version 2
# has nothing there, so it lexes `!!` as two `!` explosions.
GRAMMAR = r"""
?start: sum
?sum: product
    | sum "+" product -> add
    | sum "-" product -> sub
?product: unary
    | product "*" unary -> mul
    | product "/" unary -> div
?unary: atom
    | "-" unary -> neg
    | "+" unary
?atom: INT -> number
    | dice
    | "(" sum ")" -> paren
dice: [INT] "d" SIZE OP* COUNT?
SIZE: /[0-9]+|%|f/
OP: /(kh|kl|dh|dl)[0-9]+|(k|p|rr|ro|ra|e|mi|ma)[hl<>]?[0-9]+|{compound}![<>]?[0-9]*/
COUNT: /[<>=][0-9]+/
INT: /[0-9]+/
"""

# The rules versions of the dice ruleset this grammar reads (`app.engine.rulesets.dice`).
VERSION_2: Final = 2
COMPOUNDING: Final = 3  # `!!` compounds, bare trailing words label the roll, d20's readings
LATEST: Final = COMPOUNDING
_PARSERS = {
    VERSION_2: Lark(
        GRAMMAR.replace("{compound}", ""),
        parser="lalr",
        lexer="contextual",
        maybe_placeholders=True,
    ),
    COMPOUNDING: Lark(
        GRAMMAR.replace("{compound}", "!![<>]?[0-9]*|"),
        parser="lalr",
        lexer="contextual",
        maybe_placeholders=True,
    ),
}
_OP = re.compile(
    r"(?P<name>kh|kl|dh|dl|k|p|rr|ro|ra|e|mi|ma|!!|!)(?P<kind>[hl<>]?)(?P<value>[0-9]*)"
)
# The start of a word that reads as notation, not as a label: a dice group (`d6`), or an
# operation with or without its number (`kh`, `kh3x`, `e6`); `4d6 kh` is a mistake to refuse.
_NOTATION_WORD = re.compile(
    r"d[0-9%]|(kh|kl|dh|dl|k|p|rr|ro|ra|e|mi|ma)[hl<>]?([0-9]|$)", re.IGNORECASE
)
_SHORTHANDS: dict[str, tuple[OpName, str]] = {
    "kh": ("k", "h"),
    "kl": ("k", "l"),
    "dh": ("p", "h"),
    "dl": ("p", "l"),
}
_NAMES = {
    "k": "keep (k)",
    "p": "drop (p)",
    "rr": "reroll (rr)",
    "ro": "reroll once (ro)",
    "ra": "reroll and add (ra)",
    "e": "explode (e, !)",
    "c": "compound (!!)",
    "mi": "minimum (mi)",
    "ma": "maximum (ma)",
}
HELP = (
    "Write dice as NdS, dS, d% or NdF with k/p/kh/kl/dh/dl, rr/ro/ra, e or !, !!, mi/ma and "
    "a success count >N, <N or =N; numbers; + - * / and parentheses; then a comment, after "
    "# or as words (e.g. 4d6kh3+2, 5d10>6, 3d6!!, 1d20+5 # attack, 1d20+5 Attack)"
)


ENDS_TOO_SOON = "it ends too soon: a term, a number or a ')' is missing"
OPERATION_LETTERS = frozenset("kpdrem!")


def shown(text: str) -> str:
    """Text quoted back in a message, every character that is not shown on one line (a
    control, a bidirectional override, a zero-width space) written as its escape: a relayed
    error must read as it was sent."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in text)


def invalid(notation: str, reason: str) -> InvalidInput:
    return InvalidInput(
        f"invalid dice notation '{shown(notation)}': {shown(reason)}. {HELP}",
        errors=[{"loc": ["body", "notation"], "msg": reason, "type": "dice_notation"}],
    )


def parse(notation: str, version: int = LATEST) -> Notation:
    """The notation's tree as the dice ruleset's rules `version` reads it (2 or 3), or
    InvalidInput saying what is wrong or what is too much."""
    return _parse(notation, COMPOUNDING if version >= COMPOUNDING else VERSION_2)


@lru_cache(maxsize=1024)
def _parse(notation: str, version: int) -> Notation:
    if len(notation) > MAX_LENGTH:
        raise invalid(notation, f"it is longer than {MAX_LENGTH} characters")
    expression, hash_, comment = notation.partition("#")
    label = comment.strip() if hash_ else None
    if label is not None:
        _check_label(notation, label, version)
    try:
        return Notation(_expression(notation, expression, version), label or None)
    except InvalidInput as refusal:
        if version < COMPOUNDING:
            raise
        expr, start = _with_trailing_label(notation, expression, version, refusal)
        trailing = notation[start:].strip()
        _check_label(notation, trailing, version)
        return Notation(expr, trailing)


def _check_label(notation: str, label: str, version: int) -> None:
    if any(ord(c) < 32 or ord(c) == 127 for c in label):
        raise invalid(notation, "the comment holds a control character")
    if version >= COMPOUNDING and label:
        # From version 3 a comment is held to what every label is: visible, on one line.
        try:
            readable_text(label)
        except ValueError as unreadable:
            raise invalid(notation, f"the comment: {unreadable}") from None


def _with_trailing_label(
    notation: str, expression: str, version: int, refusal: InvalidInput
) -> tuple[Node, int]:
    """d20's bare comment: the longest run of leading words that reads as notation, when the
    word after it starts with a letter; that word starts the label. Returns the expression
    and where the label starts. Without such a run, the refusal of the shortest candidate
    (it names what is wrong with the notation itself), or of the whole when there is none."""
    words = list(re.finditer(r"\S+", expression))
    last_refusal = refusal
    for index in range(len(words) - 1, 0, -1):
        first = words[index].group()
        if not first[0].isalpha():
            continue
        try:
            expr = _expression(notation, expression[: words[index].start()], version)
        except InvalidInput as error:
            last_refusal = error
            continue
        if _NOTATION_WORD.match(first):
            raise invalid(
                notation,
                f"'{first}' reads as notation, not as a label: write the operation in full "
                f"(kh3, dl1, e6, +1d6), or the comment after '#'",
            )
        return expr, words[index].start()
    raise last_refusal


def _expression(notation: str, expression: str, version: int) -> Node:
    """The tree of the notation's expression (its text before any comment), caps checked."""
    text = "".join(expression.split()).lower()
    if not text:
        raise invalid(notation, "it is empty")
    _check_nesting(notation, text)
    _check_comparisons(notation, text)
    try:
        tree = _PARSERS[version].parse(text)
        expr: Node = _Build(notation, version).transform(tree)
    except VisitError as error:
        if isinstance(error.orig_exc, InvalidInput):
            raise error.orig_exc from None
        raise invalid(notation, "it cannot be read") from None
    except UnexpectedCharacters as error:
        position = error.pos_in_stream or 0
        if position >= len(text):
            raise invalid(notation, ENDS_TOO_SOON) from None
        reason = f"unexpected {text[position]!r} at position {position + 1}"
        if text[position] in OPERATION_LETTERS:
            reason += ": an operation takes its number or selector (kh3, dl1, rr<2, e6, >6)"
        raise invalid(notation, reason) from None
    except UnexpectedInput as error:
        token = getattr(error, "token", None)
        if not isinstance(token, Token) or token.type == "$END":
            raise invalid(notation, ENDS_TOO_SOON) from None
        raise invalid(notation, f"unexpected '{token}'") from None
    except LarkError:
        raise invalid(notation, "it cannot be read") from None
    total = sum(group.count for group in groups(expr))
    if total > MAX_DICE:
        raise invalid(notation, f"{total} dice asked, at most {MAX_DICE} per roll")
    try:
        low, high = interval(expr)
    except ValueError as divisor:
        raise invalid(notation, f"the divisor '{divisor}' can come to 0") from None
    if max(-low, high) > MAX_TOTAL:
        raise invalid(notation, f"its value could pass ±2^53 ({MAX_TOTAL})")
    return expr


def _check_nesting(notation: str, text: str) -> None:
    depth = 0
    for char in text:
        depth += 1 if char == "(" else -1 if char == ")" else 0
        if depth > MAX_NESTING:
            raise invalid(notation, f"parentheses nest deeper than {MAX_NESTING}")


# `<=` or `>=` after an explosion, a compounding, a set operation or a dice group.
_OR_EQUAL = re.compile(r"(!!|!|k|p|rr|ro|ra|e)?([<>])=([0-9]*)")


def _check_comparisons(notation: str, text: str) -> None:
    """`<=` and `>=` are comparisons of no notation this grammar reads (d20 has none in a
    dice group; Roll20 writes N itself for 'or more'): say what the user may write instead,
    and whether that could ever end."""
    found = _OR_EQUAL.search(text)
    if found is None:
        return
    op, sign, digits = found.groups()
    number = digits or "N"
    if op in ("!", "!!"):
        meaning = "or less" if sign == "<" else "or more"
        name = "compounds" if op == "!!" else "explodes"
        reason = (
            f"'{op}{sign}=' is not a comparison the notation has: '{op}{sign}N' {name} on N "
            f"{meaning}, so write '{op}{sign}{number}'"
        )
        sizes = re.findall(r"d([0-9]+|%|f)", text[: found.start()])
        if digits and sizes:
            size = sizes[-1]
            # The faces run from low to high: compared with their ends, not one by one (a
            # die of 10^14 sides is refused later, for its size).
            low, high = (-1, 1) if size == "f" else (1, _sides(size))
            value = int(digits)
            if low <= high and (high <= value if sign == "<" else low >= value):
                reason += f", which matches every face of d{size.upper()}: it would never end"
    elif op:
        strict = "below" if sign == "<" else "above"
        step = str(int(digits) + (1 if sign == "<" else -1)) if digits else "N"
        reason = (
            f"'{op}{sign}=' is not a comparison the notation has: '{op}{sign}N' picks the "
            f"dice strictly {strict} N, as d20 reads it, so write '{op}{sign}{step}'"
        )
    else:
        meaning = "or less" if sign == "<" else "or more"
        reason = (
            f"'{sign}=' is not a comparison the notation has: a success count '{sign}N' "
            f"already counts N {meaning}, so write '{sign}{number}'"
        )
    raise invalid(notation, reason)


def _sides(size: str) -> int:
    return 100 if size == "%" else int(size)


class _Build(Transformer[Token, Node]):
    def __init__(self, notation: str, version: int) -> None:
        super().__init__()
        self.notation = notation
        self.d20 = version >= COMPOUNDING  # d20's readings of ops, `ra` and `/`

    def _number(self, digits: str, what: str) -> int:
        value = int(digits)
        if value > MAX_NUMBER:
            raise invalid(self.notation, f"{what} {value} is above {MAX_NUMBER}")
        return value

    def number(self, children: list[Token]) -> Node:
        return Number(self._number(children[0], "number"))

    def add(self, children: list[Node]) -> Node:
        return Binary("+", children[0], children[1])

    def sub(self, children: list[Node]) -> Node:
        return Binary("-", children[0], children[1])

    def mul(self, children: list[Node]) -> Node:
        return Binary("*", children[0], children[1])

    def div(self, children: list[Node]) -> Node:
        return Binary("/", children[0], children[1], truncates=self.d20)

    def neg(self, children: list[Node]) -> Node:
        return Neg(children[0])

    def paren(self, children: list[Node]) -> Node:
        return Paren(children[0])

    def dice(self, children: list[Any]) -> Node:
        count_token, size, *rest = children
        count = 1 if count_token is None else int(count_token)
        if count < 1:
            raise invalid(self.notation, "a dice group rolls at least one die")
        if count > MAX_DICE:
            raise invalid(self.notation, f"{count} dice asked, at most {MAX_DICE} per roll")
        fudge, percent = size == "f", size == "%"
        sides = 3 if fudge else 100 if percent else int(size)
        if not 1 <= sides <= MAX_SIDES:
            raise invalid(self.notation, f"d{int(size)}: dice have 1..{MAX_SIDES} sides")
        counting = None
        if rest and rest[-1] is not None and rest[-1].type == "COUNT":
            counting = self._count(rest.pop())
        rest = [token for token in rest if token is not None]
        group = Dice(count, sides, fudge, percent, (), counting)
        ops = [self._op(token, group) for token in rest]
        if self.d20:
            ops = [self._never_ending(op, group) for op in _merged(ops)]
        return Dice(count, sides, fudge, percent, tuple(ops), counting)

    def _count(self, token: Token) -> Count:
        value = self._number(token[1:], "success count")
        return Count(">=" if token[0] == ">" else "<=" if token[0] == "<" else "=", value)

    def _op(self, token: Token, group: Dice) -> Op:
        match = _OP.fullmatch(token)
        if match is None:  # the lexer's pattern and this one accept the same words
            raise invalid(self.notation, f"'{token}' is not an operation")
        name, kind, digits = match["name"], match["kind"], match["value"]
        written = name + kind + (str(int(digits)) if digits else "")  # 02 is written 2
        if name in ("!", "!!"):
            if kind and not digits:
                raise invalid(self.notation, f"'{token}' needs a number after '{kind}'")
            if not digits:
                selector = Selector("=", max(group.faces))
            else:
                value = self._number(digits, "explosion threshold")
                # Roll20's `!>N` and `!<N` include N.
                selector = (
                    Selector(">", value - 1)
                    if kind == ">"
                    else Selector("<", value + 1)
                    if kind == "<"
                    else Selector("=", value)
                )
            return self._checked(Op("e" if name == "!" else "c", (selector,), written), group)
        op_name, kind = _SHORTHANDS.get(name, (name, kind))
        value = self._number(digits, "selector")
        selector = Selector(kind or "=", value)  # type: ignore[arg-type]
        most = 1 if op_name == "ra" and self.d20 else None  # d20's ra: one die at most
        op = Op(op_name, (selector,), written, most)  # type: ignore[arg-type]
        return self._checked(op, group)

    def _checked(self, op: Op, group: Dice) -> Op:
        if op.ranked and op.name not in ("k", "p"):
            raise invalid(
                self.notation,
                f"'{op.written}': {_NAMES[op.name]} takes N, >N or <N, not hN or lN",
            )
        if op.name in ("mi", "ma") and op.selectors[0].kind != "=":
            raise invalid(self.notation, f"'{op.written}': {_NAMES[op.name]} takes a number")
        return self._never_ending(op, group)

    def _never_ending(self, op: Op, group: Dice) -> Op:
        if op.name in ("rr", "e", "c") and all(op.matches(f) for f in group.faces):
            verb = "together match" if len(op.selectors) > 1 else "matches"
            raise invalid(
                self.notation,
                f"'{op.written}' {verb} every face of d{group.sides}: it would never end",
            )
        return op


def _merged(ops: list[Op]) -> list[Op]:
    """d20's reading (version 3): an operation of the same name as the one before it (but mi
    and ma, which apply at once) adds its selectors to it: `kh1kl1` keeps what either picks."""
    merged: list[Op] = []
    for op in ops:
        last = merged[-1] if merged else None
        if last is None or op.name != last.name or op.name in ("mi", "ma"):
            merged.append(op)
            continue
        selectors, written = last.selectors + op.selectors, last.written + op.written
        merged[-1] = Op(op.name, selectors, written, last.max_targets)
    return merged
