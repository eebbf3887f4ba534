"""Coin flip: a toy ruleset, the one docs/adding-a-ruleset.md walks through.

COIN-1 A flip is called heads or tails; a d2 decides (1 heads, 2 tails).
COIN-2 A wrong call costs the caller one point of luck.
COIN-3 With no luck left, a character cannot flip.
COIN-4 (rules version 2) A right call wins back one point of luck, up to 3.
"""

from __future__ import annotations

import uuid
from fractions import Fraction
from typing import Final, Literal

from pydantic import Field

from app.engine.bodies import RollBody
from app.engine.contract import (
    Label,
    Language,
    Model,
    Outcome,
    Prepared,
    Resolution,
    RollKind,
    Ruleset,
    RulesVersion,
    Snapshot,
    System,
    Table,
    effect,
)
from app.engine.dice import DiceSource
from app.engine.errors import refusal
from app.engine.odds import Odds, distribution, outcome_odds
from app.engine.sheets import Sheet, StrictModel, enum_labels, managed, managed_fields

Side = Literal["heads", "tails"]
SIDES: Final = {"heads": Label("Heads", "Pile"), "tails": Label("Tails", "Face")}
OUTCOMES: Final = {"won": Label("Called right", "Bien vu"), "lost": Label("Called wrong", "Raté")}


class CoinSheet(Sheet):
    """A coin flipper."""

    luck: int = managed(3, ge=0, le=10, title="Luck", description="Lost on a wrong call (COIN-2)")


class CoinOptions(StrictModel):
    """Coin flip campaigns have no options."""


class CoinCharacter(Snapshot):
    sheet: CoinSheet


class CoinFlipCreate(RollBody):
    """Call a side and flip (COIN-1)."""

    kind: Literal["coin.flip"]
    character_id: uuid.UUID
    call: Side = Field(json_schema_extra=enum_labels(SIDES))


class CoinFlipRequest(Model):
    system: Literal["coin-flip"]
    character: CoinCharacter
    call: Side


class CoinFlipResult(Model):
    face: Side
    won: bool


def prepare(body: CoinFlipCreate, table: Table) -> Prepared[CoinFlipRequest]:
    character = table.acting(body.character_id, CoinCharacter)
    request = CoinFlipRequest(system="coin-flip", character=character, call=body.call)
    return Prepared(request, character_id=character.id, visibility=body.visibility)


def resolve(
    request: CoinFlipRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[CoinFlipResult]:
    luck = request.character.sheet.luck
    if luck == 0:
        raise refusal("COIN-3", f"{request.character.name} has no luck left to flip")
    face: Side = "heads" if dice.roll(2) == 1 else "tails"
    won = face == request.call
    effects = [] if won else [effect(request.character.id, "luck", luck, luck - 1, "COIN-2")]
    if won and version >= 2 and luck < 3:  # a fix that changes results: only from version 2
        effects.append(effect(request.character.id, "luck", luck, luck + 1, "COIN-4"))
    return Resolution(CoinFlipResult(face=face, won=won), effects)


def odds(request: CoinFlipRequest, version: RulesVersion) -> Odds:
    """COIN-1: an exact coin, whichever side is called; COIN-3 refuses as the roll would."""
    if request.character.sheet.luck == 0:
        raise refusal("COIN-3", f"{request.character.name} has no luck left to flip")
    half = Fraction(1, 2)
    return Odds(
        outcomes=outcome_odds([("lost", half), ("won", half)]),
        distributions=[distribution("luck_change", _luck_changes(request, version))],
    )


def _luck_changes(request: CoinFlipRequest, version: RulesVersion) -> dict[int, Fraction]:
    """COIN-2 costs a point on a wrong call; COIN-4 (version 2) wins one back below 3."""
    gain = 1 if version >= 2 and request.character.sheet.luck < 3 else 0
    changes: dict[int, Fraction] = {}
    for change in (-1, gain):
        changes[change] = changes.get(change, Fraction(0)) + Fraction(1, 2)
    return changes


def summary(request: CoinFlipRequest, result: CoinFlipResult, language: Language) -> str:
    called, fell = SIDES[request.call].text(language), SIDES[result.face].text(language)
    verdict = OUTCOMES["won" if result.won else "lost"].text(language)
    if language == "fr":
        return f"{request.character.name} annonce {called} : {fell}, {verdict}"
    return f"{request.character.name} calls {called}: {fell}, {verdict}"


FLIP: RollKind[CoinFlipCreate, CoinFlipRequest, CoinFlipResult] = RollKind(
    name="coin.flip",
    title="Coin flip",
    body=CoinFlipCreate,
    request=CoinFlipRequest,
    result=CoinFlipResult,
    prepare=prepare,
    resolve=resolve,
    summary=summary,
    outcome=lambda result: Outcome("outcome", "won" if result.won else "lost"),
    odds=odds,
)

RULESET = Ruleset(
    id="coin",
    name="Coin flip",
    version=1,
    systems=(
        System(
            id="coin-flip",
            name="Coin flip",
            sheet=CoinSheet,
            options=CoinOptions,
            protected_fields=managed_fields(CoinSheet),
        ),
    ),
    kinds=(FLIP,),
    labels={"side": SIDES, "outcome": OUTCOMES},
    rule_prefixes=("COIN",),
)
