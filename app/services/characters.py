"""Character creation and edits: the sheet rules, who may change what, GM overrides."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel
from sqlalchemy import func
from sqlmodel import Session, col, select

from app.core.problems import Forbidden, Unprocessable
from app.engine.contract import CharacterKind, System, to_json
from app.engine.registry import Registry
from app.engine.systems import default_sheet_values, derive, validate_sheet
from app.models import (
    CampaignMember,
    Character,
    CharacterCreate,
    CharacterUpdate,
    utcnow,
)
from app.services import encounters
from app.services.access import CampaignAccess, LockedAccess, can_edit_character
from app.services.awaiting import character_retired
from app.services.log import append_entry
from app.services.table import CampaignTable


def merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7396 JSON merge patch: objects merge recursively, null removes a key."""
    if not isinstance(patch, dict):
        return patch
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


def _require_member(session: Session, access: CampaignAccess, user_id: uuid.UUID) -> None:
    member = session.get(CampaignMember, (access.campaign.id, user_id))
    if member is None:
        raise Unprocessable(
            f"owner_id {user_id} is not a member of this campaign; add them as a member first"
        )


def changed_fields(
    before: dict[str, Any],
    after: dict[str, Any],
    fields: frozenset[str],
    defaults: Mapping[str, Any] | None = None,
) -> list[str]:
    """The fields that differ; one a sheet saved before it existed counts as its default
    (a rules update adds managed fields that no edit of the player's has touched)."""
    known = defaults or {}
    return sorted(name for name in fields if before.get(name, known.get(name)) != after.get(name))


def field_defaults(sheet: type[BaseModel], names: Iterable[str]) -> dict[str, Any]:
    """The JSON defaults of these sheet fields."""
    fields = sheet.model_fields
    return {
        name: to_json(fields[name].get_default(call_default_factory=True))
        for name in names
        if name in fields
    }


def create_character(
    session: Session, access: CampaignAccess, registry: Registry, data: CharacterCreate
) -> Character:
    _, system = registry.system(access.campaign.system)
    owner_id = data.owner_id
    if not access.is_gm:
        if data.kind != "pc":
            raise Forbidden("only the GM creates NPCs; players create their own PCs")
        if owner_id not in (None, access.user.id):
            raise Forbidden("a player creates characters only for themselves; leave owner_id out")
        owner_id = access.user.id
    elif owner_id is not None:
        _require_member(session, access, owner_id)
    elif data.kind == "pc":
        owner_id = access.user.id

    sheet = validate_sheet(
        system, data.sheet, kind=data.kind, options=access.campaign.options, creating=True
    )
    sheet = derive(system, None, sheet, access.campaign.current_scene)
    if not access.is_gm:
        _refuse_player_set_resources(system, data.sheet, sheet)
    if system.check_sheet is not None:
        system.check_sheet(CampaignTable(session, access, for_rolls=False), None, None, sheet)
    character = Character(
        campaign_id=access.campaign.id,
        name=data.name,
        kind=data.kind,
        owner_id=owner_id,
        sheet=sheet,
    )
    session.add(character)
    return character


def _refuse_player_set_resources(
    system: System, raw: dict[str, Any], sheet: dict[str, Any]
) -> None:
    """At creation a player takes the starting value of every resource the rules spend."""
    defaults = default_sheet_values(system)
    chosen = [
        name
        for name in system.protected_fields - system.creation_choices
        if name in raw and sheet.get(name) != defaults.get(name)
    ]
    if chosen:
        names = ", ".join(sorted(chosen))
        raise Forbidden(
            f"{names}: resources the rules spend start at their default; "
            "leave them out, or ask the GM to set them"
        )


def update_character(
    session: Session,
    access: CampaignAccess,
    registry: Registry,
    character: Character,
    data: CharacterUpdate,
) -> list[str]:
    """Apply an edit; returns the protected resources a GM override changed."""
    if not can_edit_character(access, character):
        raise Forbidden("a player may edit only their own player characters")
    changes = data.model_dump(exclude_unset=True)
    if not access.is_gm and ({"kind", "owner_id"} & changes.keys()):
        raise Forbidden("only the GM changes a character's kind or owner")
    if "kind" in changes and changes["kind"] is None:
        raise Unprocessable("kind cannot be null; use 'pc' or 'npc'")
    if "name" in changes and changes["name"] is None:
        raise Unprocessable("name cannot be null")
    if changes.get("owner_id") is not None:
        _require_member(session, access, changes["owner_id"])

    _, system = registry.system(access.campaign.system)
    kind: CharacterKind = changes.get("kind") or character.kind  # type: ignore[assignment]
    overridden: list[str] = []
    if "sheet" in changes:
        if changes["sheet"] is None:
            raise Unprocessable("sheet cannot be null; send a merge patch of the fields to change")
        merged = merge_patch(character.sheet, changes["sheet"])
        sheet = validate_sheet(
            system, merged, kind=kind, options=access.campaign.options, creating=False
        )
        sheet = derive(system, character.sheet, sheet, access.campaign.current_scene)
        missing = [name for name in system.protected_fields if name not in character.sheet]
        overridden = changed_fields(
            character.sheet,
            sheet,
            system.protected_fields,
            field_defaults(system.sheet, missing),
        )
        if overridden and not access.is_gm:
            raise Forbidden(
                f"{', '.join(overridden)}: resources the rules spend change only through rule "
                "actions or a GM override"
            )
        if system.check_sheet is not None:
            table = CampaignTable(session, access, for_rolls=False)
            system.check_sheet(table, str(character.id), character.sheet, sheet)
        _log_sheet_change(session, access, character, sheet, override=bool(overridden))
        character.sheet = sheet
    elif "kind" in changes:
        # A PC's sheet may carry creation-only rules; re-check it under its new kind.
        validate_sheet(
            system, character.sheet, kind=kind, options=access.campaign.options, creating=False
        )
    for field in ("name", "kind", "owner_id"):
        if field in changes:
            setattr(character, field, changes[field])
    character.updated_at = utcnow()
    session.add(character)
    return overridden


def _log_sheet_change(
    session: Session,
    access: CampaignAccess,
    character: Character,
    sheet: dict[str, Any],
    *,
    override: bool,
) -> None:
    """Every sheet change is an audit entry; a GM changing a spent resource is an override."""
    changed = sorted(
        k for k in sheet.keys() | character.sheet.keys() if sheet.get(k) != character.sheet.get(k)
    )
    if not changed:
        return
    effects = [
        {
            "character_id": str(character.id),
            "field": field,
            "before": character.sheet.get(field),
            "after": sheet.get(field),
        }
        for field in changed
    ]
    append_entry(
        session,
        access.campaign,
        kind="sheet_override" if override else "sheet_edit",
        actor_id=access.user.id,
        character_id=character.id,
        # An NPC's sheet is the GM's secret (FAIR-13 "gm": the roller and the GM).
        visibility="gm" if character.kind == "npc" else "public",
        request={"fields": changed},
        effects=effects,
    )


def list_characters(
    session: Session,
    access: CampaignAccess,
    *,
    kind: str | None,
    owner_id: uuid.UUID | None,
    limit: int,
    offset: int,
) -> tuple[list[Character], int]:
    conditions = [
        col(Character.campaign_id) == access.campaign.id,
        col(Character.deleted_at).is_(None),
    ]
    if kind is not None:
        conditions.append(col(Character.kind) == kind)
    if owner_id is not None:
        conditions.append(col(Character.owner_id) == owner_id)
    count = session.exec(select(func.count()).select_from(Character).where(*conditions)).one()
    rows = session.exec(
        select(Character)
        .where(*conditions)
        .order_by(col(Character.created_at), col(Character.id))
        .limit(limit)
        .offset(offset)
    ).all()
    return list(rows), count


def character_public(character: Character, access: CampaignAccess) -> dict[str, Any]:
    """A character as the caller may see it: players do not see NPC sheets."""
    hidden = character.kind == "npc" and not access.is_gm
    view = {
        **character.model_dump(exclude={"deleted_at"}),
        "system": access.campaign.system,
        "sheet": {} if hidden else character.sheet,
        "sheet_hidden": hidden,
    }
    if hidden:
        # FAIR-21: the stamp moves with the sheet, so it would tell a player that a blind
        # attack on the NPC wounded it.
        view["updated_at"] = character.created_at
    return view


def delete_character(
    session: Session, access: LockedAccess, registry: Registry, character: Character
) -> None:
    """Retire a character (its owner or the GM): its past rolls stay in the log, its open
    roll requests close, and it leaves every encounter not ended, passing the turn on if
    it was theirs."""
    if not can_edit_character(access, character):
        raise Forbidden("only the GM or the character's player may delete it")
    character.deleted_at = utcnow()
    session.add(character)
    character_retired(session, character)
    encounters.character_deleted(session, access, registry, character.id)
