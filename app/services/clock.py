"""Starting sessions and scenes (GM only)."""

from __future__ import annotations

from sqlmodel import Session

from app.core.problems import Conflict, Unprocessable
from app.models import Character, utcnow
from app.models.clock import ClockAdvance, ClockPublic
from app.services.access import CampaignAccess


def _check_facts(session: Session, access: CampaignAccess, data: ClockAdvance) -> None:
    seen = set()
    for facts in data.characters:
        if facts.character_id in seen:
            raise Unprocessable(f"character {facts.character_id} is listed twice")
        seen.add(facts.character_id)
        character = session.get(Character, facts.character_id)
        if (
            character is None
            or character.deleted_at is not None
            or character.campaign_id != access.campaign.id
        ):
            raise Unprocessable(f"character {facts.character_id} is not in this campaign")


def advance_clock(
    session: Session, access: CampaignAccess, data: ClockAdvance, *, new_session: bool
) -> ClockPublic:
    """Start the next scene, or the next session (which also opens its first scene)."""
    access.require_gm("start sessions and scenes")
    _check_facts(session, access, data)
    campaign = access.campaign
    if not new_session and campaign.current_session == 0:
        raise Conflict("no session has started yet; POST .../sessions starts the first one")
    if new_session:
        campaign.current_session += 1
    campaign.current_scene += 1
    campaign.updated_at = utcnow()
    session.add(campaign)
    return ClockPublic(
        current_session=campaign.current_session, current_scene=campaign.current_scene
    )
