"""Campaign membership."""

from __future__ import annotations

import uuid

from sqlalchemy import func, update
from sqlmodel import Session, col, select

from app.core.problems import Conflict, Forbidden, NotFound, Unprocessable
from app.models import Campaign, CampaignMember, MemberCreate, MemberPublic, User, utcnow
from app.services.access import CampaignAccess
from app.services.feed.notices import note_change

_campaigns = Campaign.__table__  # type: ignore[attr-defined]


def member_public(member: CampaignMember, name: str) -> MemberPublic:
    return MemberPublic.model_validate(
        {
            "user_id": member.user_id,
            "name": name,
            "role": member.role,
            "joined_at": member.joined_at,
        }
    )


def add_member(session: Session, access: CampaignAccess, data: MemberCreate) -> MemberPublic:
    access.require_gm("add members")
    user = session.get(User, data.user_id)
    if user is None:
        raise Unprocessable(f"user {data.user_id} does not exist; they register with POST /users")
    if session.get(CampaignMember, (access.campaign.id, data.user_id)) is not None:
        raise Conflict(f"user {data.user_id} is already a member of this campaign")
    member = CampaignMember(campaign_id=access.campaign.id, user_id=user.id, role=data.role)
    session.add(member)
    note_change(session, access.campaign.id, "members")
    return member_public(member, user.name)


def list_members(
    session: Session, access: CampaignAccess, *, limit: int, offset: int
) -> tuple[list[MemberPublic], int]:
    condition = CampaignMember.campaign_id == access.campaign.id
    count = session.exec(select(func.count()).select_from(CampaignMember).where(condition)).one()
    rows = session.exec(
        select(CampaignMember, User.name)
        .join(User, col(User.id) == col(CampaignMember.user_id))
        .where(condition)
        .order_by(col(CampaignMember.joined_at), col(CampaignMember.user_id))
        .limit(limit)
        .offset(offset)
    ).all()
    return [member_public(member, name) for member, name in rows], count


def remove_member(session: Session, access: CampaignAccess, user_id: uuid.UUID) -> None:
    """The GM removes a player; a player may leave on their own."""
    if not access.is_gm and user_id != access.user.id:
        raise Forbidden("only the GM removes other members; a player may remove only themselves")
    member = session.get(CampaignMember, (access.campaign.id, user_id))
    if member is None:
        raise NotFound(f"user {user_id} is not a member of this campaign")
    if member.role == "gm":
        raise Conflict("the GM cannot leave their campaign; delete the campaign instead")
    session.delete(member)
    # A roll on a head a worker knows appends only if the campaign's row is unchanged
    # (known_head.py): a removal changes it, so the removed member's roll is refused.
    session.execute(
        update(_campaigns).where(_campaigns.c.id == access.campaign.id).values(updated_at=utcnow())
    )
    note_change(session, access.campaign.id, "members")  # their streams end
