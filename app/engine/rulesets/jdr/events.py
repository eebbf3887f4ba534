"""What the GM records for a character (penance JDR-24, sacrifice JDR-29a), and medical care
(JDR-3, JDR-33), which lifts the Disadvantage of serious and critical wounds."""

from __future__ import annotations

from typing import TypeVar

from pydantic import Field

from app.engine.contract import (
    Language,
    Model,
    Outcome,
    Prepared,
    Resolution,
    RollKind,
    RulesVersion,
    Table,
    effect,
)
from app.engine.dice import DiceSource
from app.engine.errors import refusal
from app.engine.rulesets.jdr.bodies import JdrEventBase, JdrMedicalCareCreate
from app.engine.rulesets.jdr.certain import certain_odds
from app.engine.rulesets.jdr.core import JdrSystem, setting_of
from app.engine.rulesets.jdr.labels import EVENTS
from app.engine.rulesets.jdr.sheet import AnyJdrCharacter, JdrCharacter


class JdrEventRequest(Model):
    """A GM's record about one character: the character and what happened."""

    system: JdrSystem
    session: int
    scene: int
    description: str = Field(default="", description="what happened, in the GM's words")


EventT = TypeVar("EventT", bound=JdrEventRequest)


def event_request(
    body: JdrEventBase, table: Table, model: type[EventT], character: type[AnyJdrCharacter]
) -> Prepared[EventT]:
    """The request of a GM's record: any character of the campaign, no JDR-42 check."""
    found = table.character(body.character_id, character)
    request = model.model_validate(
        {
            "system": setting_of(table),
            "session": table.session,
            "scene": table.scene,
            "character": found,
            "description": body.description,
        }
    )
    return Prepared(request, character_id=found.id, visibility=body.visibility)


def event_words(name: str, event: str, description: str, language: Language) -> str:
    """« Père Mihail — Talisman restauré par pénitence : Confession »."""
    words = f"{name} — {EVENTS[event].text(language)}"
    if description:
        words += f" : {description}" if language == "fr" else f": {description}"
    return words


# --- JDR-3: medical care ---------------------------------------------------------------------


class JdrMedicalCareRequest(JdrEventRequest):
    character: JdrCharacter


class JdrMedicalCareResult(Model):
    cared: int = Field(description="serious wounds cared for, and critical ones (version 4)")
    description: str


def resolve_medical_care(
    request: JdrMedicalCareRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[JdrMedicalCareResult]:
    """JDR-3/JDR-33: medical care lifts the Disadvantage of serious wounds, and from version
    4 of critical ones (JDR-33, corrected); a critical wound's lasting loss stays."""
    character = request.character
    before = character.sheet.wounds
    wounds = [wound.model_copy() for wound in before]
    cares_for = {"serious", "critical"} if version >= 4 else {"serious"}
    treated = 0
    for wound in wounds:
        if wound.severity in cares_for and not wound.cared:
            wound.cared = True
            treated += 1
    if not treated:
        what = "serious or critical wound" if version >= 4 else "serious wound"
        raise refusal("JDR-3", f"no {what} awaits medical care")
    result = JdrMedicalCareResult(cared=treated, description=request.description)
    return Resolution(result, [effect(character.id, "wounds", before, wounds, "JDR-3")])


def prepare_medical_care(
    body: JdrMedicalCareCreate, table: Table
) -> Prepared[JdrMedicalCareRequest]:
    return event_request(body, table, JdrMedicalCareRequest, JdrCharacter)


def medical_care_summary(
    request: JdrMedicalCareRequest, result: JdrMedicalCareResult, language: Language
) -> str:
    """« Père Mihail — Blessures graves soignées (2) : le docteur Seward »."""
    name = f"{request.character.name}"
    words = event_words(name, "wounds_cared", "", language) + f" ({result.cared})"
    if result.description:
        words += f" : {result.description}" if language == "fr" else f": {result.description}"
    return words


def medical_care_outcome(result: JdrMedicalCareResult) -> Outcome:
    return Outcome("event", "wounds_cared")


MEDICAL_CARE: RollKind[JdrMedicalCareCreate, JdrMedicalCareRequest, JdrMedicalCareResult] = (
    RollKind(
        name="jdr.medical_care",
        title="Medical care",
        body=JdrMedicalCareCreate,
        request=JdrMedicalCareRequest,
        result=JdrMedicalCareResult,
        prepare=prepare_medical_care,
        resolve=resolve_medical_care,
        summary=medical_care_summary,
        outcome=medical_care_outcome,
        odds=certain_odds(
            resolve_medical_care,
            medical_care_outcome,
            ("wounds_cared",),
            "the GM records the care (JDR-3)",
        ),
        is_roll=False,
        gm_only="record a jdr.medical_care",
    )
)
