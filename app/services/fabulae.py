"""Fabulae Tenebris roll kinds: who may act, and what each rule reads, recorded for replay."""

from __future__ import annotations

import uuid
from typing import Any

from sqlmodel import Session

from app.core.problems import RecordedRefusal, Unprocessable
from app.models import Character
from app.models.fabulae import (
    FabulaeAbsorbCreate,
    FabulaeActionCreate,
    FabulaeDestinyAwardCreate,
    FabulaeOpposedCreate,
    FabulaePanicCreate,
    FabulaePushCreate,
    FabulaeRecoverCreate,
    FabulaeStateChoiceCreate,
    FabulaeStressCreate,
    FabulaeStressResistCreate,
)
from app.services.access import CampaignAccess, get_campaign_character
from app.services.log import SealedEntry, record_resolution
from app.services.rolls import (
    clock_request,
    controlled_character,
    load_entry,
    load_follow_ups,
    roll_handler,
    snapshot,
)

ROLL_FIELDS = ("attribute", "skill", "difficulty", "helpers", "modifiers", "talents", "passive")


def _record(
    session: Session,
    access: CampaignAccess,
    kind: str,
    request: dict[str, Any],
    character: Character | None,
    visibility: str,
    follows: int | None = None,
) -> SealedEntry:
    return record_resolution(
        session,
        access,
        kind=kind,
        request={**clock_request(access), **request},
        character_id=character.id if character else None,
        visibility=visibility,
        follows=follows,
    )


def _roll_inputs(body: Any) -> dict[str, Any]:
    return body.model_dump(mode="json", include=set(ROLL_FIELDS))  # type: ignore[no-any-return]


def _panicked(result: dict[str, Any]) -> list[str]:
    """Which sides of a roll rolled a 1 on a stress die (FAB-42)."""
    if "active" in result:
        return [side for side in ("active", "passive") if result[side]["outcome"] == "panic"]
    return ["self"] if result.get("outcome") == "panic" else []


def _after_roll(
    session: Session,
    access: CampaignAccess,
    entry: SealedEntry,
    characters: dict[str, Character],
    visibility: str,
) -> SealedEntry:
    """FAB-42: a stress 1 sets off the panic roll, as its own entry; FAB-14 is recorded."""
    for side in _panicked(entry.result):
        character = characters[side]
        entry.triggered.append(
            _record(
                session,
                access,
                "fabulae.panic",
                {"character": snapshot(character), "allies": [], "modifier": 0},
                character,
                visibility,
                follows=entry.seq,
            )
        )
    outcome = entry.result.get("outcome")
    side = entry.result.get("active", entry.result)
    if outcome == "impossible":
        pool = side["pool"]["pool"]
        raise RecordedRefusal(
            f"FAB-14: the pool is {pool} dice after every modifier, so the action is "
            f"impossible; no dice were drawn and the attempt is recorded as seq {entry.seq}",
            rule="FAB-14",
            seq=entry.seq,
        )
    return entry


@roll_handler("fabulae.action")
def action(session: Session, access: CampaignAccess, body: FabulaeActionCreate) -> SealedEntry:
    character = controlled_character(session, access, body.character_id)
    request = {"character": snapshot(character), "roll": _roll_inputs(body)}
    entry = _record(session, access, body.kind, request, character, body.visibility)
    return _after_roll(session, access, entry, {"self": character}, body.visibility)


@roll_handler("fabulae.opposed")
def opposed(session: Session, access: CampaignAccess, body: FabulaeOpposedCreate) -> SealedEntry:
    active = controlled_character(session, access, body.active.character_id)
    passive = get_campaign_character(session, access, body.passive.character_id)
    if active.id == passive.id:
        raise Unprocessable("an opposed roll needs two different characters")
    request = {
        "active": {"character": snapshot(active), "roll": _roll_inputs(body.active)},
        "passive": {"character": snapshot(passive), "roll": _roll_inputs(body.passive)},
    }
    entry = _record(session, access, body.kind, request, active, body.visibility)
    sides = {"active": active, "passive": passive}
    return _after_roll(session, access, entry, sides, body.visibility)


def _followed(
    session: Session, access: CampaignAccess, follows: int
) -> tuple[dict[str, Any], Character]:
    """The entry followed up and the character who rolled it, whom the caller must control."""
    entry = load_entry(session, access, follows)
    if entry["character_id"] is None:
        raise Unprocessable(f"follows: entry {follows} ({entry['kind']}) concerns no character")
    return entry, controlled_character(session, access, uuid.UUID(entry["character_id"]))


@roll_handler("fabulae.push")
def push(session: Session, access: CampaignAccess, body: FabulaePushCreate) -> SealedEntry:
    action, character = _followed(session, access, body.follows)
    request = {
        "character": snapshot(character),
        "action": {key: action[key] for key in ("seq", "kind", "request", "result")},
        "follow_ups": load_follow_ups(session, access, body.follows),
        "state": body.state,
        "absorb": body.absorb,
    }
    visibility = body.visibility or action["visibility"]
    entry = _record(session, access, body.kind, request, character, visibility, body.follows)
    sides = {"self": character, "active": character}
    if entry.result.get("active", entry.result).get("outcome") == "panic":
        return _after_roll(session, access, entry, sides, visibility)
    return entry


def _settle(
    session: Session, access: CampaignAccess, body: Any, extra: dict[str, Any]
) -> SealedEntry:
    threat, character = _followed(session, access, body.follows)
    request = {
        "character": snapshot(character),
        "threat": {key: threat[key] for key in ("seq", "kind", "result")},
        "settled": load_follow_ups(session, access, body.follows),
        **extra,
    }
    visibility = body.visibility or threat["visibility"]
    return _record(session, access, body.kind, request, character, visibility, body.follows)


@roll_handler("fabulae.state_choice")
def state_choice(
    session: Session, access: CampaignAccess, body: FabulaeStateChoiceCreate
) -> SealedEntry:
    return _settle(session, access, body, {"state": body.state})


@roll_handler("fabulae.absorb")
def absorb(session: Session, access: CampaignAccess, body: FabulaeAbsorbCreate) -> SealedEntry:
    return _settle(session, access, body, {})


def _campaign_characters(
    session: Session, access: CampaignAccess, ids: list[uuid.UUID]
) -> list[Character]:
    if len(set(ids)) != len(ids):
        raise Unprocessable("a character is listed twice")
    return [get_campaign_character(session, access, character_id) for character_id in ids]


@roll_handler("fabulae.stress")
def stress(session: Session, access: CampaignAccess, body: FabulaeStressCreate) -> SealedEntry:
    access.require_gm("give stress")
    characters = _campaign_characters(session, access, body.character_ids)
    request = {
        "characters": [snapshot(c) for c in characters],
        "amount": body.amount,
        "reason": body.reason,
    }
    subject = characters[0] if len(characters) == 1 else None
    return _record(session, access, body.kind, request, subject, body.visibility)


@roll_handler("fabulae.stress_resist")
def stress_resist(
    session: Session, access: CampaignAccess, body: FabulaeStressResistCreate
) -> SealedEntry:
    character = controlled_character(session, access, body.character_id)
    roll = {
        "attribute": body.attribute,
        "skill": "resistance",
        "helpers": body.helpers,
        "modifiers": [m.model_dump() for m in body.modifiers],
    }
    request = {"character": snapshot(character), "roll": roll}
    entry = _record(session, access, body.kind, request, character, body.visibility)
    return _after_roll(session, access, entry, {"self": character}, body.visibility)


@roll_handler("fabulae.panic")
def panic(session: Session, access: CampaignAccess, body: FabulaePanicCreate) -> SealedEntry:
    character = controlled_character(session, access, body.character_id)
    if body.character_id in body.allies:
        raise Unprocessable("the panicking character is not one of their own allies")
    allies = _campaign_characters(session, access, body.allies)
    request = {
        "character": snapshot(character),
        "allies": [snapshot(a) for a in allies],
        "modifier": body.modifier,
    }
    return _record(session, access, body.kind, request, character, body.visibility)


@roll_handler("fabulae.recover")
def recover(session: Session, access: CampaignAccess, body: FabulaeRecoverCreate) -> SealedEntry:
    request: dict[str, Any] = {"mode": body.mode}
    if body.mode == "care":
        if body.healer_id is None or body.track is None:
            raise Unprocessable("care needs healer_id (who rolls Soin) and track")
        healer = controlled_character(session, access, body.healer_id)
        patient = get_campaign_character(session, access, body.character_id)
        roller = healer
        request.update(
            {
                "healer": snapshot(healer),
                "track": body.track,
                "helpers": body.helpers,
                "modifiers": [m.model_dump() for m in body.modifiers],
            }
        )
    else:
        patient = controlled_character(session, access, body.character_id)
        roller = patient
        if body.mode == "rest":
            if body.duration is None:
                raise Unprocessable("rest needs a duration: quart, tour or night")
            request["duration"] = body.duration
    request["patient"] = snapshot(patient)
    entry = _record(session, access, body.kind, request, roller, body.visibility)
    if body.mode == "rest":
        return entry
    return _after_roll(session, access, entry, {"self": roller}, body.visibility)


@roll_handler("fabulae.destiny_award")
def destiny_award(
    session: Session, access: CampaignAccess, body: FabulaeDestinyAwardCreate
) -> SealedEntry:
    access.require_gm("award Destiny")
    character = get_campaign_character(session, access, body.character_id)
    request = {"character": snapshot(character), "reason": body.reason}
    return _record(session, access, body.kind, request, character, body.visibility)
