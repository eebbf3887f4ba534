"""Roll requests: who may roll for whom, what the engine is asked, all in one transaction.

Each roll kind has a handler that reads what the rules need from the sheets into the
entry's `request`, then `record_resolution` draws the dice, logs, and applies the effects.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from sqlmodel import Session, col, select

from app.core.problems import Conflict, Forbidden, NotFound
from app.models import Character, LogEntry
from app.models.entries import DiceRollCreate
from app.services.access import CampaignAccess, can_edit_character, get_campaign_character
from app.services.log import SealedEntry, can_see, record_resolution

RollHandler = Callable[[Session, CampaignAccess, Any], SealedEntry]
ROLL_HANDLERS: dict[str, RollHandler] = {}


def roll_handler(kind: str) -> Callable[[RollHandler], RollHandler]:
    def register(handler: RollHandler) -> RollHandler:
        ROLL_HANDLERS[kind] = handler
        return handler

    return register


def acting_character(
    session: Session, access: CampaignAccess, character_id: uuid.UUID | None
) -> Character | None:
    """The character a roll is made for; players act only for their own PCs."""
    if character_id is None:
        return None
    return controlled_character(session, access, character_id)


def controlled_character(
    session: Session, access: CampaignAccess, character_id: uuid.UUID
) -> Character:
    """A character of the campaign the caller may act for: their own PC, or any for the GM."""
    character = get_campaign_character(session, access, character_id)
    if not can_edit_character(access, character):
        raise Forbidden(f"you may act only for your own characters, not {character.name}")
    return character


def snapshot(character: Character) -> dict[str, Any]:
    """What a rule reads of a character; recorded in the entry so it can be replayed."""
    return {
        "id": str(character.id),
        "name": character.name,
        "kind": character.kind,
        "sheet": character.sheet,
    }


def clock_request(access: CampaignAccess) -> dict[str, Any]:
    """The campaign clock and ruleset every rule request records."""
    campaign = access.campaign
    return {
        "system": campaign.system,
        "session": campaign.current_session,
        "scene": campaign.current_scene,
    }


def load_entry(session: Session, access: CampaignAccess, seq: int) -> dict[str, Any]:
    """An entry of this campaign's log, as a follow-up records it.

    An entry the caller may not see cannot be followed up by them: whether the rules
    accepted it would reveal the outcome the visibility hides (FAIR-13).
    """
    entry = session.get(LogEntry, (access.campaign.id, seq))
    if entry is None:
        raise NotFound(f"follows: there is no entry with seq {seq} in this campaign's log")
    if not can_see(entry, access):
        raise Conflict(
            f"entry {seq} is {entry.visibility}: its outcome is hidden from you, so only "
            "the GM can act on it",
            rule="FAIR-13",
        )
    data = {
        "seq": entry.seq,
        "kind": entry.kind,
        "visibility": entry.visibility,
        "actor_id": entry.actor_id,
        "character_id": entry.character_id,
        "request": entry.request,
        "result": entry.result,
        "effects": entry.effects,
    }
    return data


def load_follow_ups(session: Session, access: CampaignAccess, seq: int) -> list[dict[str, Any]]:
    """The entries that follow up `seq`, in order."""
    rows = session.exec(
        select(LogEntry)
        .where(col(LogEntry.campaign_id) == access.campaign.id, col(LogEntry.follows) == seq)
        .order_by(col(LogEntry.seq))
    ).all()
    return [
        {"seq": row.seq, "kind": row.kind, "character_id": row.character_id, "result": row.result}
        for row in rows
    ]


def create_roll(session: Session, access: CampaignAccess, body: Any) -> SealedEntry:
    return ROLL_HANDLERS[body.kind](session, access, body)


@roll_handler("dice")
def roll_dice(session: Session, access: CampaignAccess, body: DiceRollCreate) -> SealedEntry:
    character = acting_character(session, access, body.character_id)
    return record_resolution(
        session,
        access,
        kind="dice",
        request={"notation": body.notation},
        character_id=character.id if character else None,
        visibility=body.visibility,
    )
