"""Generic dice (`dice`): any notation, in any campaign, for tables the rules do not cover."""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field

from app.engine.bodies import RollBody
from app.engine.contract import (
    Language,
    Model,
    Prepared,
    Resolution,
    RollKind,
    Ruleset,
    RulesVersion,
    Snapshot,
    Table,
)
from app.engine.dice import DiceSource
from app.engine.notation import DiceResult, evaluate, parse


class DiceRollCreate(RollBody):
    """Generic dice for tables the rules do not automate."""

    kind: Literal["dice"]
    notation: str = Field(
        min_length=1,
        max_length=100,
        description="terms joined by + or -: NdS, NdSkhK, NdSklK or an integer; "
        "≤ 100 dice, S ≤ 1000",
        examples=["3d6kh2+1"],
    )


class DiceRequest(Model):
    notation: str = Field(description="the notation as the roller wrote it")


def prepare(body: DiceRollCreate, table: Table) -> Prepared[DiceRequest]:
    character_id = None
    if body.character_id is not None:
        character_id = table.acting(body.character_id, _Someone).id
    request = DiceRequest(notation=body.notation)
    return Prepared(request, character_id=character_id, visibility=body.visibility)


class _Someone(Snapshot):
    """A character as a generic roll names it: who rolls, not what their sheet holds."""

    model_config = ConfigDict(extra="ignore")


def resolve(
    request: DiceRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[DiceResult]:
    return Resolution(evaluate(parse(request.notation), dice))


def summary(request: DiceRequest, result: DiceResult, language: Language) -> str:
    """`3d6kh2+1: 6 4 (2) +1 → 11`: dropped dice in parentheses."""
    parts = []
    for term in result.terms:
        sign = "-" if term.sign < 0 else "+"
        if term.dice is None:
            parts.append(f"{sign}{term.value}")
            continue
        kept = term.kept or [True] * len(term.dice)
        faces = " ".join(str(f) if k else f"({f})" for f, k in zip(term.dice, kept, strict=True))
        parts.append(f"{'-' if term.sign < 0 else ''}{faces}" if not parts else f"{sign} {faces}")
    colon = " :" if language == "fr" else ":"
    return f"{result.notation}{colon} {' '.join(parts)} → {result.total}"


DICE = RollKind(
    name="dice",
    title="Generic dice",
    body=DiceRollCreate,
    request=DiceRequest,
    result=DiceResult,
    prepare=prepare,
    resolve=resolve,
    summary=summary,
)

RULESET = Ruleset(
    id="dice",
    name="Generic dice",
    version=1,
    systems=(),
    kinds=(DICE,),
    labels={},
    generic=True,
)
