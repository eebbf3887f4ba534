"""Starting sessions and scenes (GM only): an audited entry whose recharges the rules compute."""

from __future__ import annotations

from typing import Any

from sqlmodel import Session, col, select

from app.core.problems import Conflict, Unprocessable
from app.engine.systems import get_ruleset
from app.models import Character, utcnow
from app.models.clock import ClockAdvance
from app.services.access import CampaignAccess, LockedAccess, update_locked_campaign
from app.services.log import SealedEntry, record_resolution


def _characters(
    session: Session, access: CampaignAccess, data: ClockAdvance
) -> list[dict[str, Any]]:
    """Every live character, with the GM's facts and what the recharge rules read."""
    facts: dict[str, dict[str, Any]] = {}
    for item in data.characters:
        key = str(item.character_id)
        if key in facts:
            raise Unprocessable(f"character {item.character_id} is listed twice")
        facts[key] = item.model_dump(mode="json", exclude={"character_id"})
    fields = get_ruleset(access.campaign.system).clock_fields
    rows = session.exec(
        select(Character)
        .where(
            col(Character.campaign_id) == access.campaign.id,
            col(Character.deleted_at).is_(None),
        )
        .order_by(col(Character.created_at), col(Character.id))
    ).all()
    characters = []
    for character in rows:
        key = str(character.id)
        sheet = {name: character.sheet.get(name) for name in fields if name in character.sheet}
        entry = {"character_id": key, "kind": character.kind, "sheet": sheet}
        characters.append({**entry, **facts.pop(key, {})})
    if facts:
        raise Unprocessable(f"character {next(iter(facts))} is not in this campaign")
    return characters


def advance_clock(
    session: Session, access: LockedAccess, data: ClockAdvance, *, new_session: bool
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
        "new_session": new_session,
        "night_passed": data.night_passed,
        "characters": _characters(session, access, data),
    }
    entry = record_resolution(
        session,
        access,
        kind="session_started" if new_session else "scene_started",
        request=request,
    )
    update_locked_campaign(
        session,
        campaign,
        current_session=entry.result["session"],
        current_scene=entry.result["scene"],
        updated_at=utcnow(),
    )
    return entry
