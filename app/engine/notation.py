"""Generic dice notation (roll kind `dice`): parse, then evaluate, then format.

Terms joined by `+`/`-`: `NdS`, `NdSkhK` (keep the K highest), `NdSklK` (keep the K lowest)
or an integer, e.g. `2d6+3`, `3d6kh2`, `1d12`, `4d10-1`. At most 100 dice and S ≤ 1000 per
roll, so no request can ask for unbounded work.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from pydantic import Field

from app.engine.contract import Model
from app.engine.dice import DiceSource
from app.engine.errors import InvalidInput

MAX_DICE = 100
MAX_SIDES = 1000
MAX_TERMS = 20
MAX_CONSTANT = 10_000
MAX_LENGTH = 100

_TERM = re.compile(
    r"(?:(?P<count>[0-9]+)d(?P<sides>[0-9]+)(?:k(?P<keep>[hl])(?P<kept>[0-9]+))?|(?P<constant>[0-9]+))"
)


@dataclass(frozen=True)
class DiceTerm:
    sign: Literal[1, -1]
    count: int
    sides: int
    keep: Literal["h", "l"] | None = None
    kept: int | None = None

    def text(self) -> str:
        suffix = f"k{self.keep}{self.kept}" if self.keep else ""
        return f"{self.count}d{self.sides}{suffix}"


@dataclass(frozen=True)
class ConstantTerm:
    sign: Literal[1, -1]
    value: int

    def text(self) -> str:
        return str(self.value)


Term = DiceTerm | ConstantTerm


def _invalid(notation: str, reason: str) -> InvalidInput:
    return InvalidInput(
        f"invalid dice notation '{notation}': {reason}. "
        "Write terms joined by + or -, each NdS, NdSkhK, NdSklK or an integer (e.g. 3d6kh2+1)",
        errors=[{"loc": ["body", "notation"], "msg": reason, "type": "dice_notation"}],
    )


def parse(notation: str) -> list[Term]:
    """The terms of a notation, or InvalidInput saying what is wrong."""
    return list(_parse(notation))


@lru_cache(maxsize=1024)
def _parse(notation: str) -> tuple[Term, ...]:
    # Parsing is pure, and tables reuse a few notations: verifying a log re-parses each.
    if len(notation) > MAX_LENGTH:
        raise _invalid(notation, f"it is longer than {MAX_LENGTH} characters")
    text = notation.replace(" ", "").lower()
    if not text:
        raise _invalid(notation, "it is empty")
    terms: list[Term] = []
    position = 0
    sign: Literal[1, -1] = 1
    if text[0] in "+-":
        sign, position = (1 if text[0] == "+" else -1), 1
    while True:
        match = _TERM.match(text, position)
        if match is None:
            found = repr(text[position]) if position < len(text) else "the end"
            raise _invalid(notation, f"expected a term at position {position + 1}, found {found}")
        if match["constant"] is not None:
            value = int(match["constant"])
            if value > MAX_CONSTANT:
                raise _invalid(notation, f"constant {value} is above {MAX_CONSTANT}")
            terms.append(ConstantTerm(sign, value))
        else:
            terms.append(_dice_term(notation, sign, match))
        position = match.end()
        if position == len(text):
            break
        if text[position] not in "+-":
            raise _invalid(notation, f"expected + or - at position {position + 1}")
        sign = 1 if text[position] == "+" else -1
        position += 1
    if len(terms) > MAX_TERMS:
        raise _invalid(notation, f"more than {MAX_TERMS} terms")
    total_dice = sum(t.count for t in terms if isinstance(t, DiceTerm))
    if total_dice > MAX_DICE:
        raise _invalid(notation, f"{total_dice} dice asked, at most {MAX_DICE} per roll")
    return tuple(terms)


def _dice_term(notation: str, sign: Literal[1, -1], match: re.Match[str]) -> DiceTerm:
    count, sides = int(match["count"]), int(match["sides"])
    if count < 1:
        raise _invalid(notation, "a dice term rolls at least one die")
    if count > MAX_DICE:
        raise _invalid(notation, f"{count} dice asked, at most {MAX_DICE} per roll")
    if not 1 <= sides <= MAX_SIDES:
        raise _invalid(notation, f"d{sides}: dice have 1..{MAX_SIDES} sides")
    if match["keep"] is None:
        return DiceTerm(sign, count, sides)
    keep: Literal["h", "l"] = "h" if match["keep"] == "h" else "l"
    kept = int(match["kept"])
    if not 1 <= kept <= count:
        raise _invalid(notation, f"keep {kept} of {count} dice: keep 1..{count}")
    return DiceTerm(sign, count, sides, keep, kept)


def canonical(terms: list[Term]) -> str:
    text = ""
    for index, term in enumerate(terms):
        if index or term.sign < 0:
            text += "+" if term.sign > 0 else "-"
        text += term.text()
    return text


def kept_flags(faces: list[int], keep: Literal["h", "l"] | None, kept: int | None) -> list[bool]:
    """Which dice count: the K highest (kh) or lowest (kl); ties go to the earlier die."""
    if keep is None or kept is None:
        return [True] * len(faces)
    order = sorted(
        range(len(faces)), key=lambda i: (-faces[i], i) if keep == "h" else (faces[i], i)
    )
    chosen = set(order[:kept])
    return [i in chosen for i in range(len(faces))]


class DiceTermResult(Model):
    """One term of a notation as rolled: its dice and which were kept, or a constant."""

    term: str = Field(description="the term in canonical form, e.g. 3d6kh2")
    sign: Literal[1, -1]
    value: int = Field(description="what the term adds, before its sign")
    dice: list[int] | None = Field(default=None, description="faces, in the order drawn")
    kept: list[bool] | None = Field(default=None, description="which dice count (kh, kl)")


class DiceResult(Model):
    notation: str = Field(description="the notation in canonical form")
    terms: list[DiceTermResult]
    total: int


def evaluate(terms: list[Term], dice: DiceSource) -> DiceResult:
    """Roll the terms in order; the result shows every die, which were kept, and the total."""
    shown: list[DiceTermResult] = []
    total = 0
    for term in terms:
        if isinstance(term, ConstantTerm):
            shown.append(DiceTermResult(term=term.text(), sign=term.sign, value=term.value))
            total += term.sign * term.value
            continue
        faces = [dice.roll(term.sides) for _ in range(term.count)]
        flags = kept_flags(faces, term.keep, term.kept)
        subtotal = sum(face for face, keep in zip(faces, flags, strict=True) if keep)
        shown.append(
            DiceTermResult(term=term.text(), sign=term.sign, dice=faces, kept=flags, value=subtotal)
        )
        total += term.sign * subtotal
    return DiceResult(notation=canonical(terms), terms=shown, total=total)
