"""Who may see and change what: campaign membership and roles."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from sqlalchemy import bindparam
from sqlmodel import Session, col, select

from app.core.problems import Forbidden, NotFound
from app.models import Campaign, CampaignMember, Character, SeedEpoch, User


@dataclass
class CampaignAccess:
    """A campaign as one member sees it; `epoch` is its current seed epoch once locked."""

    campaign: Campaign
    user: User
    role: str
    epoch: SeedEpoch | None = None

    @property
    def is_gm(self) -> bool:
        return self.role == "gm"

    def require_gm(self, action: str) -> None:
        if not self.is_gm:
            raise Forbidden(f"only the campaign's GM may {action}")


def campaign_not_found(campaign_id: uuid.UUID) -> NotFound:
    # The same answer for "does not exist" and "you are not a member": existence stays private.
    return NotFound(f"campaign {campaign_id} not found, or you are not one of its members")


# Built once: every request reads its campaign, and rebuilding the statement (and its cache
# key) cost more than running it.
_ACCESS = (
    select(Campaign, CampaignMember.role)
    .join(CampaignMember, col(CampaignMember.campaign_id) == col(Campaign.id))
    .where(Campaign.id == bindparam("campaign_id"), CampaignMember.user_id == bindparam("user_id"))
)
# FAIR-5: the roll's lock on the campaign row, with its current seed epoch in the same query.
_LOCKED_ACCESS = (
    _ACCESS.add_columns(SeedEpoch)
    .outerjoin(
        SeedEpoch,
        (col(SeedEpoch.campaign_id) == col(Campaign.id))
        & (col(SeedEpoch.number) == col(Campaign.current_epoch)),
    )
    .with_for_update(of=Campaign)
)


def get_campaign_access(
    session: Session,
    campaign_id: uuid.UUID,
    user: User,
    *,
    lock: bool = False,
    include_deleted: bool = False,
) -> CampaignAccess:
    """The campaign and the caller's role, or 404.

    `lock` holds the campaign row until commit (FAIR-5), and loads the current seed epoch
    in the same query: whoever locks is about to append to the log.
    """
    statement: Any = _LOCKED_ACCESS if lock else _ACCESS
    params = {"campaign_id": campaign_id, "user_id": user.id}
    row: Any = session.execute(statement, params).first()
    if row is None:
        raise campaign_not_found(campaign_id)
    campaign, role = row[0], row[1]
    if campaign.deleted_at is not None and not include_deleted:
        raise campaign_not_found(campaign_id)
    # Held here: the session's identity map keeps only objects someone references.
    epoch = row[2] if lock else None
    return CampaignAccess(campaign=campaign, user=user, role=role, epoch=epoch)


def get_character_access(
    session: Session, character_id: uuid.UUID, user: User, *, lock: bool = False
) -> tuple[Character, CampaignAccess]:
    """A character and the caller's access to its campaign, or 404 for non-members."""
    character = session.get(Character, character_id)
    if character is None or character.deleted_at is not None:
        raise NotFound(f"character {character_id} not found, or not in one of your campaigns")
    try:
        access = get_campaign_access(session, character.campaign_id, user, lock=lock)
    except NotFound:
        raise NotFound(
            f"character {character_id} not found, or not in one of your campaigns"
        ) from None
    return character, access


def get_campaign_character(
    session: Session, access: CampaignAccess, character_id: uuid.UUID
) -> Character:
    """A live character of this campaign, or 404."""
    character = session.get(Character, character_id)
    if (
        character is None
        or character.deleted_at is not None
        or character.campaign_id != access.campaign.id
    ):
        raise NotFound(f"character {character_id} is not in campaign {access.campaign.id}")
    return character


def can_edit_character(access: CampaignAccess, character: Character) -> bool:
    """The GM edits everything; a player edits only their own PCs."""
    return access.is_gm or (character.kind == "pc" and character.owner_id == access.user.id)
