"""Sequela durations run (FAB-50/55 corrected): rounds count down as rounds pass (an
encounter records a `fabulae.round` at each new round); quarts end when the scene does;
days count down with each night the GM's clock passes; the GM may end one early. When a
sequela ends, its malus lifts and Sonné's bearer wakes."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from pydantic import Field

from app.engine.contract import (
    ClockCharacter,
    Effect,
    Language,
    Model,
    Prepared,
    Resolution,
    RollKind,
    RulesVersion,
    Table,
    effect,
)
from app.engine.dice import DiceSource
from app.engine.errors import InvalidInput, refusal
from app.engine.rulesets.fabulae.bodies import FabulaeEndSequelaCreate, FabulaeRoundCreate
from app.engine.rulesets.fabulae.labels import text
from app.engine.rulesets.fabulae.pools import CORRECTED, SYSTEM, FabulaeClock
from app.engine.rulesets.fabulae.sheet import FabulaeCharacter, Sequela

# « 3 rounds », « 2 quarts », « 5 days », as the sequela tables write them (FAB-50/55).
_COUNTED = re.compile(r"^(\d+) (rounds|quarts|days)$")
# The units a new scene ends: a fight is over, and a quart (6 hours) with it.
ENDS_WITH_THE_SCENE: Final = frozenset({"rounds", "quarts"})


def counted(sequela: Sequela) -> tuple[int, str] | None:
    """A sequela's duration as an amount and a unit, or None (permanent, mortal, narrated)."""
    found = _COUNTED.match(sequela.duration or "")
    return (int(found.group(1)), found.group(2)) if found else None


def pass_time(sequelae: Sequence[Sequela], unit: str) -> list[Sequela]:
    """One unit passes: each sequela counted in it counts down, and is gone at zero."""
    kept = []
    for sequela in sequelae:
        duration = counted(sequela)
        if duration is None or duration[1] != unit:
            kept.append(sequela)
        elif duration[0] > 1:
            kept.append(sequela.model_copy(update={"duration": f"{duration[0] - 1} {unit}"}))
    return kept


def scene_ends(sequelae: Sequence[Sequela]) -> list[Sequela]:
    """A new scene: the sequelae counted in rounds or quarts are over."""
    return [s for s in sequelae if (counted(s) or (0, ""))[1] not in ENDS_WITH_THE_SCENE]


def clock_sequelae(
    character: ClockCharacter, night_passed: bool, version: RulesVersion
) -> list[Effect]:
    """FAB-50/55 (corrected) at a scene start: the scene's sequelae end, a night counts a day."""
    raw = character.sheet.get("sequelae")
    if version < CORRECTED or not isinstance(raw, list) or not raw:
        return []
    before = [Sequela.model_validate(item) for item in raw]
    after = scene_ends(before)
    if night_passed:
        after = pass_time(after, "days")
    if after == before:
        return []
    return [
        effect(
            character.character_id,
            "sequelae",
            [s.model_dump(mode="json") for s in before],
            [s.model_dump(mode="json") for s in after],
            "FAB-50",
        )
    ]


def sequelae_effect(character: FabulaeCharacter, after: list[Sequela], rule: str) -> Effect:
    before = character.sheet.sequelae
    return effect(
        character.id,
        "sequelae",
        [s.model_dump(mode="json") for s in before],
        [s.model_dump(mode="json") for s in after],
        rule,
    )


# --- fabulae.round ----------------------------------------------------------------------------


class FabulaeRoundRequest(FabulaeClock):
    characters: list[FabulaeCharacter]


class FabulaeRoundResult(Model):
    lifted: dict[str, list[str]] = Field(
        description="per character, the sequelae whose last round passed"
    )


def prepare_round(body: FabulaeRoundCreate, table: Table) -> Prepared[FabulaeRoundRequest]:
    if len(set(body.character_ids)) != len(body.character_ids):
        raise InvalidInput("a character is listed twice")
    characters = [table.character(str(cid), FabulaeCharacter) for cid in body.character_ids]
    request = FabulaeRoundRequest(
        system=SYSTEM, session=table.session, scene=table.scene, characters=characters
    )
    return Prepared(request, character_id=None, visibility=body.visibility)


def resolve_round(
    request: FabulaeRoundRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[FabulaeRoundResult]:
    """FAB-50 (corrected): a round passes; Sonné, Hématome… count down, then lift."""
    effects, lifted = [], {}
    for character in request.characters:
        before = character.sheet.sequelae
        after = pass_time(before, "rounds")
        if after != before:
            effects.append(sequelae_effect(character, after, "FAB-50"))
            gone = [s.code for s in before if counted(s) == (1, "rounds")]
            if gone:
                lifted[character.id] = gone
    return Resolution(FabulaeRoundResult(lifted=lifted), effects)


def round_summary(
    request: FabulaeRoundRequest, result: FabulaeRoundResult, language: Language
) -> str:
    """« Round suivant »: what lifted is in the effects, an NPC's for the GM only (FAIR-18)."""
    return "Round suivant" if language == "fr" else "Next round"


ROUND: RollKind[FabulaeRoundCreate, FabulaeRoundRequest, FabulaeRoundResult] = RollKind(
    name="fabulae.round",
    npc_values=(("/lifted/*", "/characters/*"),),
    title="A round passes",
    body=FabulaeRoundCreate,
    request=FabulaeRoundRequest,
    result=FabulaeRoundResult,
    prepare=prepare_round,
    resolve=resolve_round,
    summary=round_summary,
    is_roll=False,
    gm_only="pass a round",
)


# --- fabulae.end_sequela ----------------------------------------------------------------------


class FabulaeEndSequelaRequest(FabulaeClock):
    character: FabulaeCharacter
    sequela: int


class FabulaeEndSequelaResult(Model):
    ended: str


def prepare_end_sequela(
    body: FabulaeEndSequelaCreate, table: Table
) -> Prepared[FabulaeEndSequelaRequest]:
    character = table.character(str(body.character_id), FabulaeCharacter)
    request = FabulaeEndSequelaRequest(
        system=SYSTEM,
        session=table.session,
        scene=table.scene,
        character=character,
        sequela=body.sequela,
    )
    return Prepared(request, character_id=character.id, visibility=body.visibility)


def resolve_end_sequela(
    request: FabulaeEndSequelaRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[FabulaeEndSequelaResult]:
    """FAB-50/55 (corrected): the GM ends a sequela early; its malus lifts."""
    character = request.character
    sequelae = list(character.sheet.sequelae)
    if not 0 <= request.sequela < len(sequelae):
        raise refusal(
            "FAB-50",
            f"{character.name} carries {len(sequelae)} sequela(e); no index {request.sequela}",
        )
    ended = sequelae.pop(request.sequela)
    return Resolution(
        FabulaeEndSequelaResult(ended=ended.code), [sequelae_effect(character, sequelae, "FAB-50")]
    )


def end_sequela_summary(
    request: FabulaeEndSequelaRequest, result: FabulaeEndSequelaResult, language: Language
) -> str:
    word = "fin de" if language == "fr" else "end of"
    return f"{request.character.name} — {word} {text('sequela', result.ended, language)}"


END_SEQUELA: RollKind[
    FabulaeEndSequelaCreate, FabulaeEndSequelaRequest, FabulaeEndSequelaResult
] = RollKind(
    name="fabulae.end_sequela",
    title="Sequela ended",
    body=FabulaeEndSequelaCreate,
    request=FabulaeEndSequelaRequest,
    result=FabulaeEndSequelaResult,
    prepare=prepare_end_sequela,
    resolve=resolve_end_sequela,
    summary=end_sequela_summary,
    is_roll=False,
    gm_only="end a sequela",
)
