"""Starting sessions and scenes (GM only): an audited entry whose recharges the rules compute."""

from __future__ import annotations

from sqlmodel import Session, col, select

from app.core.problems import Conflict, Unprocessable
from app.engine.contract import ClockCharacter, ClockRequest, Prepared
from app.engine.errors import RuleRefusal
from app.engine.registry import SCENE_STARTED, SESSION_STARTED, Registry
from app.models import Character, utcnow
from app.models.clock import ClockAdvance
from app.services.access import CampaignAccess, LockedAccess, update_locked_campaign
from app.services.log import SealedEntry, pending_waits, record


def _characters(
    session: Session, access: CampaignAccess, fields: tuple[str, ...], data: ClockAdvance
) -> list[ClockCharacter]:
    """Every live character, with the GM's facts and what the recharge rules read."""
    facts: dict[str, dict[str, bool]] = {}
    for item in data.characters:
        key = str(item.character_id)
        if key in facts:
            raise Unprocessable(f"character {item.character_id} is listed twice")
        facts[key] = item.model_dump(mode="json", exclude={"character_id"})
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
        characters.append(
            ClockCharacter(character_id=key, kind=character.kind, sheet=sheet, **facts.pop(key, {}))
        )
    if facts:
        raise Unprocessable(f"character {next(iter(facts))} is not in this campaign")
    return characters


def advance_clock(
    session: Session,
    access: LockedAccess,
    registry: Registry,
    data: ClockAdvance,
    *,
    new_session: bool,
) -> SealedEntry:
    """Start the next scene, or the next session (which also opens its first scene)."""
    access.require_gm("start sessions and scenes")
    campaign = access.campaign
    if not new_session and campaign.current_session == 0:
        raise Conflict("no session has started yet; POST .../sessions starts the first one")
    waiting = [wait.seq for wait in pending_waits(session, campaign.id) if wait.characters]
    if waiting:
        # FAIR-21: the recharges read and write every sheet, under changes the GM holds.
        listed = ", ".join(str(seq) for seq in waiting)
        raise RuleRefusal(
            f"FAIR-21: hidden entries {listed} wait for the GM: apply them (POST "
            ".../log/{seq}/apply, in log order) before the next scene or session, whose "
            "recharges read every sheet",
            rule="FAIR-21",
        )
    rules = registry.in_campaign(campaign.system, SESSION_STARTED if new_session else SCENE_STARTED)
    _, system = registry.system(campaign.system)
    request = ClockRequest(
        system=campaign.system,
        family=rules.ruleset.legacy_family or rules.ruleset.id,
        session=campaign.current_session + (1 if new_session else 0),
        scene=campaign.current_scene + 1,
        new_session=new_session,
        night_passed=data.night_passed,
        characters=_characters(session, access, system.clock_fields, data),
    )
    entry = record(session, access, rules, Prepared(request))
    update_locked_campaign(
        session,
        campaign,
        current_session=request.session,
        current_scene=request.scene,
        updated_at=utcnow(),
    )
    return entry
