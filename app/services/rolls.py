"""Roll requests: who may roll for whom, what the engine is asked, all in one transaction.

Each roll kind has a handler that reads what the rules need from the sheets into the
entry's `request`, then `record_resolution` draws the dice, logs, and applies the effects.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from sqlmodel import Session

from app.core.problems import Forbidden
from app.models import Character
from app.models.entries import DiceRollCreate
from app.services.access import CampaignAccess, can_edit_character, get_campaign_character
from app.services.log import SealedEntry, record_resolution

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
    character = get_campaign_character(session, access, character_id)
    if not can_edit_character(access, character):
        raise Forbidden(f"you may roll only for your own characters, not {character.name}")
    return character


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
