"""JDR Express roll kinds: who may act, and what each rule reads, recorded for replay."""

from __future__ import annotations

import uuid
from typing import Any

from sqlmodel import Session, col, select

from app.core.problems import Conflict, Unprocessable
from app.models import Character, LogEntry
from app.models.jdr import (
    JdrActionCreate,
    JdrAttackCreate,
    JdrContextCreate,
    JdrEffleurementCreate,
    JdrEffleurementRefusalCreate,
    JdrEventBase,
    JdrHolyWaterCreate,
    JdrInitiativeCreate,
    JdrJokerCreate,
    JdrMythosCreate,
    JdrTalismanCreate,
    JdrTalismanRulingCreate,
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


def _playable(access: CampaignAccess, character: Character) -> Character:
    """JDR-42: a PC past five counted marks is the GM's now."""
    if not access.is_gm and character.sheet.get("status") == "npc":
        raise Conflict(
            f"JDR-42: {character.name} bears more than five counted marks and has become an "
            "NPC; only the GM plays them now",
            rule="JDR-42",
        )
    return character


def _actor(session: Session, access: CampaignAccess, character_id: Any) -> Character:
    return _playable(access, controlled_character(session, access, character_id))


def _record(
    session: Session,
    access: CampaignAccess,
    kind: str,
    request: dict[str, Any],
    character: Character,
    visibility: str,
    follows: int | None = None,
) -> SealedEntry:
    return record_resolution(
        session,
        access,
        kind=kind,
        request={**clock_request(access), **request},
        character_id=character.id,
        visibility=visibility,
        follows=follows,
    )


@roll_handler("jdr.action")
def action(session: Session, access: CampaignAccess, body: JdrActionCreate) -> SealedEntry:
    character = _actor(session, access, body.character_id)
    request = {
        "character": snapshot(character),
        "trait": body.trait,
        "talent": body.talent,
        "modifier": body.modifier,
        "advantage": body.advantage,
        "disadvantage": body.disadvantage,
        "difficulty": body.difficulty,
        "context": body.context.model_dump(),
        "no_talent_bonus": body.no_talent_bonus,
    }
    return _record(session, access, "jdr.action", request, character, body.visibility)


def _followed(
    session: Session, access: CampaignAccess, follows: int, *, gm_only: str | None = None
) -> tuple[dict[str, Any], Character]:
    """The entry followed up and its character, checking who may act on it."""
    if gm_only is not None:
        access.require_gm(gm_only)
    entry = load_entry(session, access, follows)
    if entry["character_id"] is None:
        raise Unprocessable(f"follows: entry {follows} ({entry['kind']}) concerns no character")
    character = get_campaign_character(session, access, uuid.UUID(entry["character_id"]))
    if gm_only is None:
        character = _actor(session, access, character.id)
    return entry, character


def _action_follow_up(
    session: Session, access: CampaignAccess, body: Any, extra: dict[str, Any]
) -> SealedEntry:
    """Talisman, Effleurement, Joker: follow-ups by the player on their own action."""
    action, character = _followed(session, access, body.follows)
    request = {
        "character": snapshot(character),
        "action": {key: action[key] for key in ("seq", "kind", "request", "result")},
        "follow_ups": load_follow_ups(session, access, body.follows),
        **extra,
    }
    visibility = body.visibility or action["visibility"]
    return _record(session, access, body.kind, request, character, visibility, body.follows)


@roll_handler("jdr.talisman")
def talisman(session: Session, access: CampaignAccess, body: JdrTalismanCreate) -> SealedEntry:
    return _action_follow_up(session, access, body, {"words": body.words})


@roll_handler("jdr.effleurement")
def effleurement(
    session: Session, access: CampaignAccess, body: JdrEffleurementCreate
) -> SealedEntry:
    return _action_follow_up(session, access, body, {"mark": body.mark})


@roll_handler("jdr.joker")
def joker(session: Session, access: CampaignAccess, body: JdrJokerCreate) -> SealedEntry:
    return _action_follow_up(session, access, body, {})


@roll_handler("jdr.talisman_ruling")
def talisman_ruling(
    session: Session, access: CampaignAccess, body: JdrTalismanRulingCreate
) -> SealedEntry:
    invocation, character = _followed(
        session, access, body.follows, gm_only="rule on a Talisman invocation"
    )
    request = {
        "character": snapshot(character),
        "invocation": {key: invocation[key] for key in ("seq", "kind", "result")},
        "rulings": load_follow_ups(session, access, body.follows),
        "sincere": body.sincere,
    }
    visibility = body.visibility or invocation["visibility"]
    return _record(session, access, body.kind, request, character, visibility, body.follows)


@roll_handler("jdr.effleurement_refusal")
def effleurement_refusal(
    session: Session, access: CampaignAccess, body: JdrEffleurementRefusalCreate
) -> SealedEntry:
    touched, character = _followed(session, access, body.follows, gm_only="refuse an Effleurement")
    request = {
        "character": snapshot(character),
        "effleurement": {key: touched[key] for key in ("seq", "kind", "result", "effects")},
        "refusals": load_follow_ups(session, access, body.follows),
        "reason": body.reason,
    }
    visibility = body.visibility or touched["visibility"]
    return _record(session, access, body.kind, request, character, visibility, body.follows)


@roll_handler("jdr.context")
def context(session: Session, access: CampaignAccess, body: JdrContextCreate) -> SealedEntry:
    action, character = _followed(session, access, body.follows, gm_only="amend a roll's context")
    request = {
        "action": {key: action[key] for key in ("seq", "kind", "request")},
        "follow_ups": load_follow_ups(session, access, body.follows),
        "context": body.context.model_dump(),
    }
    visibility = body.visibility or action["visibility"]
    return _record(session, access, body.kind, request, character, visibility, body.follows)


def _fight(
    session: Session, access: CampaignAccess, body: JdrAttackCreate | JdrHolyWaterCreate
) -> tuple[Character, Character]:
    attacker = _actor(session, access, body.attacker_id)
    target = get_campaign_character(session, access, body.target_id)
    if target.id == attacker.id:
        raise Unprocessable("a character does not attack themselves: choose another target")
    return attacker, target


@roll_handler("jdr.attack")
def attack(session: Session, access: CampaignAccess, body: JdrAttackCreate) -> SealedEntry:
    attacker, target = _fight(session, access, body)
    request = {
        "attacker": snapshot(attacker),
        "target": snapshot(target),
        "weapon": body.weapon.model_dump(),
        "advantage": body.advantage,
        "disadvantage": body.disadvantage,
        "context": body.context.model_dump(),
        "sleeping_target": body.sleeping_target,
    }
    return _record(session, access, body.kind, request, attacker, body.visibility)


@roll_handler("jdr.holy_water")
def holy_water(session: Session, access: CampaignAccess, body: JdrHolyWaterCreate) -> SealedEntry:
    attacker, target = _fight(session, access, body)
    request = {"attacker": snapshot(attacker), "target": snapshot(target)}
    return _record(session, access, body.kind, request, attacker, body.visibility)


def initiative_rolled_this_scene(session: Session, access: CampaignAccess) -> list[str]:
    """JDR-31: who already has initiative in the current scene."""
    rows = session.exec(
        select(LogEntry).where(
            col(LogEntry.campaign_id) == access.campaign.id, col(LogEntry.kind) == "jdr.initiative"
        )
    ).all()
    scene = access.campaign.current_scene
    return [
        combatant["id"]
        for row in rows
        if row.request.get("scene") == scene
        for combatant in row.request["combatants"]
    ]


def initiative_request(
    session: Session, access: CampaignAccess, body: JdrInitiativeCreate
) -> dict[str, Any]:
    seen = set()
    combatants = []
    for entry in body.combatants:
        if entry.character_id in seen:
            raise Unprocessable(f"combatant {entry.character_id} is listed twice")
        seen.add(entry.character_id)
        character = get_campaign_character(session, access, entry.character_id)
        combatants.append(
            {
                "id": str(character.id),
                "name": character.name,
                "kind": character.kind,
                "physique": character.sheet["traits"]["physique"],
                "wounds": character.sheet.get("wounds", []),
                "surprise": entry.surprise,
                "off_guard": entry.off_guard,
            }
        )
    return {
        "combatants": combatants,
        "order": [str(x) for x in body.order or []],
        "already_rolled": initiative_rolled_this_scene(session, access),
    }


@roll_handler("jdr.initiative")
def initiative(session: Session, access: CampaignAccess, body: JdrInitiativeCreate) -> SealedEntry:
    access.require_gm("call for initiative")
    request = {**clock_request(access), **initiative_request(session, access, body)}
    return record_resolution(
        session, access, kind=body.kind, request=request, visibility=body.visibility
    )


@roll_handler("jdr.mythos")
def mythos(session: Session, access: CampaignAccess, body: JdrMythosCreate) -> SealedEntry:
    character = _actor(session, access, body.character_id)
    request = {
        "character": snapshot(character),
        "difficulty": body.difficulty,
        "source": body.source,
        "detail": body.detail,
        "advantage": body.advantage,
        "disadvantage": body.disadvantage,
    }
    return _record(session, access, body.kind, request, character, body.visibility)


def _gm_event(session: Session, access: CampaignAccess, body: JdrEventBase) -> SealedEntry:
    access.require_gm(f"record a {body.kind}")  # type: ignore[attr-defined]
    character = get_campaign_character(session, access, body.character_id)
    request = {"character": snapshot(character), "description": body.description}
    return _record(session, access, body.kind, request, character, body.visibility)  # type: ignore[attr-defined]


for _kind in ("jdr.sacrifice", "jdr.penance", "jdr.medical_care"):
    roll_handler(_kind)(_gm_event)
