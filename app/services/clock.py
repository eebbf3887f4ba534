"""Starting sessions and scenes (GM only): an audited entry whose recharges the rules compute."""

from __future__ import annotations

from typing import Any

from sqlmodel import Session

from app.core.problems import Conflict, Unprocessable
from app.engine.systems import get_ruleset
from app.models import Character, utcnow
from app.models.clock import ClockAdvance
from app.services.access import CampaignAccess
from app.services.log import SealedEntry, record_resolution


def _facts(session: Session, access: CampaignAccess, data: ClockAdvance) -> list[dict[str, Any]]:
    facts: list[dict[str, Any]] = []
    seen = set()
    for item in data.characters:
        if item.character_id in seen:
            raise Unprocessable(f"character {item.character_id} is listed twice")
        seen.add(item.character_id)
        character = session.get(Character, item.character_id)
        if (
            character is None
            or character.deleted_at is not None
            or character.campaign_id != access.campaign.id
        ):
            raise Unprocessable(f"character {item.character_id} is not in this campaign")
        facts.append(item.model_dump(mode="json"))
    return facts


def advance_clock(
    session: Session, access: CampaignAccess, data: ClockAdvance, *, new_session: bool
) -> SealedEntry:
    """Start the next scene, or the next session (which also opens its first scene)."""
    access.require_gm("start sessions and scenes")
    campaign = access.campaign
    if not new_session and campaign.current_session == 0:
        raise Conflict("no session has started yet; POST .../sessions starts the first one")
    request = {
        "system": campaign.system,
        "family": get_ruleset(campaign.system).family,
        "session": campaign.current_session + (1 if new_session else 0),
        "scene": campaign.current_scene + 1,
        "night_passed": data.night_passed,
        "characters": _facts(session, access, data),
    }
    entry = record_resolution(
        session,
        access,
        kind="session_started" if new_session else "scene_started",
        request=request,
    )
    campaign.current_session = entry.result["session"]
    campaign.current_scene = entry.result["scene"]
    campaign.updated_at = utcnow()
    session.add(campaign)
    return entry
