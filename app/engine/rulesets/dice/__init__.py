"""Generic dice (`dice`): any notation, in any campaign, for tables the rules do not cover.

Rules version 2 (issue 21) reads dice notation as dice-bot users write it (`app.engine.
dicenotation`: d20, 4d6dl1, 3d6!, 5d10>6, 4dF, 1d%, * / and parentheses, a `# comment`) and
shows the roll as the d20 library does. Version 3 reads `!!` as Roll20's compounding (version
2 read it as two explosions), bare trailing words as the label (`1d20+5 Attack`), and as d20
does: `ra` adds one die at most, consecutive operations of one name join their selectors
(`3d6kh1kl1` keeps the highest and the lowest), `/` rounds toward zero. Each
entry replays under its own version's reading: version 1's notation (`app.engine.notation`),
version 2's grammar, or version 3's, and keeps its result exactly."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Final, Literal

from pydantic import ConfigDict, Field, StringConstraints

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
from app.engine.dicenotation import grammar
from app.engine.dicenotation.evaluate import evaluate_stored
from app.engine.dicenotation.render import render
from app.engine.dicenotation.results import DiceGroupRoll
from app.engine.notation import DiceTermResult
from app.engine.notation import evaluate as evaluate_v1
from app.engine.notation import parse as parse_v1

if TYPE_CHECKING:
    from app.engine.odds import Odds

# A label as dice@2 entries stored it in their request, read as it was then so that they
# replay unchanged (new entries file the body's label on the entry itself).
StoredLabel = Annotated[
    str, StringConstraints(min_length=1, max_length=100, pattern=r"^[^\x00-\x1f\x7f]*$")
]

# From this rules version on, the notation is issue 21's (dicenotation); before, NdS terms.
NOTATION_V2: Final = grammar.VERSION_2


class DiceRollCreate(RollBody):
    """Generic dice for tables the rules do not automate."""

    kind: Literal["dice"]
    notation: str = Field(
        min_length=1,
        max_length=100,
        description="dice notation as dice bots read it: NdS, dS, d%, NdF; keep/drop "
        "(kh, kl, dh, dl, k, p), rerolls (rr, ro, ra), explosions (!, !>N, e), compounding "
        "(!!, !!>N), mi/ma, success counts (>N, <N, =N); + - * / (toward zero) and parentheses; "
        "'# comment' or trailing words name the roll. ≤ 100 dice in all, S ≤ 1000",
        examples=["4d6dl1", "1d20+5 # attack", "1d20+5 Attack the guard", "5d10>6", "3d6!!"],
    )


class DiceRequest(Model):
    notation: str = Field(description="the notation as the roller wrote it")
    label: StoredLabel | None = Field(
        default=None,
        description="the label the roller gave, on entries logged before every kind took "
        "one (the entry's own `label` since); absent if none",
    )


class DiceResult(Model):
    """A generic roll. Version 1 stored `terms`; versions 2 and 3 store `groups` and
    `rendered`."""

    notation: str = Field(description="the notation in canonical form")
    terms: list[DiceTermResult] | None = Field(
        default=None, description="rules version 1: each term as rolled"
    )
    total: int = Field(description="the total; `/` rounds toward zero (rules version 2: down)")
    groups: list[DiceGroupRoll] | None = Field(
        default=None, description="rules versions 2 and 3: each dice group, left to right"
    )
    successes: int | None = Field(
        default=None, description="the successes of every group that counts them"
    )
    label: str | None = Field(
        default=None,
        description="the notation's # comment or trailing words (on entries logged before "
        "every kind took a label, the body's label)",
    )
    rendered: str | None = Field(
        default=None, description="as the d20 library writes it: 4d6dl1 (5, 3, 6, ~~1~~) = 14"
    )


def prepare(body: DiceRollCreate, table: Table) -> Prepared[DiceRequest]:
    character_id = None
    if body.character_id is not None:
        character_id = table.acting(body.character_id, _Someone).id
    grammar.parse(body.notation)  # a notation past a cap is refused before anything is drawn
    # The body's label is filed as the entry's own `label`, as on every kind.
    request = DiceRequest(notation=body.notation)
    return Prepared(request, character_id=character_id, visibility=body.visibility)


class _Someone(Snapshot):
    """A character as a generic roll names it: who rolls, not what their sheet holds."""

    model_config = ConfigDict(extra="ignore")


def resolve(
    request: DiceRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[DiceResult]:
    if version < NOTATION_V2:
        old = evaluate_v1(parse_v1(request.notation), dice)
        return Resolution(DiceResult(notation=old.notation, terms=old.terms, total=old.total))
    return Resolution(DiceResult.model_validate(_stored_result(request, dice, version)))


def replay(request: DiceRequest, dice: DiceSource, version: RulesVersion) -> dict[str, Any]:
    """`resolve(...).result.dump()`, without the models in between for versions 2 and 3:
    verification replays thousands of generic rolls."""
    if version < NOTATION_V2:
        return resolve(request, dice, version).result.dump()
    return _stored_result(request, dice, version)


def _stored_result(request: DiceRequest, dice: DiceSource, version: RulesVersion) -> dict[str, Any]:
    """Versions 2 and 3: the result as the log stores it (a `DiceResult` dumped)."""
    notation = grammar.parse(request.notation, version)
    total, groups = evaluate_stored(notation, dice)
    result: dict[str, Any] = {"notation": notation.canonical, "total": total, "groups": groups}
    counting = [group["successes"] for group in groups if "successes" in group]
    if counting:
        result["successes"] = sum(counting)
    label = request.label or notation.comment
    if label:
        result["label"] = label
    result["rendered"] = render(notation.expr, groups, total)
    return result


def summary(request: DiceRequest, result: DiceResult, language: Language) -> str:
    """Versions 2 and 3: the d20 rendering, after the label.
    Version 1: `3d6kh2+1: 6 4 (2) +1 → 11`."""
    colon = " :" if language == "fr" else ":"
    if result.rendered is not None:
        return f"{result.label}{colon} {result.rendered}" if result.label else result.rendered
    parts = []
    for term in result.terms or []:
        sign = "-" if term.sign < 0 else "+"
        if term.dice is None:
            parts.append(f"{sign}{term.value}")
            continue
        kept = term.kept or [True] * len(term.dice)
        faces = " ".join(str(f) if k else f"({f})" for f, k in zip(term.dice, kept, strict=True))
        parts.append(f"{'-' if term.sign < 0 else ''}{faces}" if not parts else f"{sign} {faces}")
    return f"{result.notation}{colon} {' '.join(parts)} → {result.total}"


def dice_odds(request: DiceRequest, version: RulesVersion) -> Odds:
    """Issue 21's odds, imported when first asked for: they need numpy, flint and icepool,
    which replaying a roll never does (nocturne-verify starts without them)."""
    from app.engine.rulesets.dice.odds import dice_odds as exact_odds

    return exact_odds(request, version)


DICE = RollKind(
    name="dice",
    title="Generic dice",
    body=DiceRollCreate,
    request=DiceRequest,
    result=DiceResult,
    prepare=prepare,
    resolve=resolve,
    replay=replay,
    summary=summary,
    odds=dice_odds,
)

RULESET = Ruleset(
    id="dice",
    name="Generic dice",
    version=grammar.LATEST,
    systems=(),
    kinds=(DICE,),
    labels={},
    generic=True,
)
