"""Invitations: the GM creates, lists and revokes codes; a registered user joins with one."""

from __future__ import annotations

import secrets
import uuid
from datetime import timedelta

from sqlalchemy import func
from sqlmodel import Session, col, select

from app.core.problems import Conflict, Gone, NotFound
from app.models import (
    Campaign,
    CampaignMember,
    Invitation,
    InvitationCreate,
    InvitationPublic,
    MemberPublic,
    User,
    utcnow,
)
from app.models.invitation import InvitationStatus
from app.services.access import CampaignAccess
from app.services.members import member_public


def status_of(invitation: Invitation) -> InvitationStatus:
    if invitation.revoked_at is not None:
        return "revoked"
    if invitation.uses >= invitation.max_uses:
        return "used_up"
    if invitation.expires_at <= utcnow():
        return "expired"
    return "active"


def invitation_public(invitation: Invitation) -> InvitationPublic:
    return InvitationPublic.model_validate(
        {**invitation.model_dump(), "status": status_of(invitation)}
    )


def create_invitation(
    session: Session, access: CampaignAccess, data: InvitationCreate
) -> InvitationPublic:
    access.require_gm("invite players")
    now = utcnow()
    invitation = Invitation(
        campaign_id=access.campaign.id,
        code=secrets.token_urlsafe(16),
        role=data.role,
        max_uses=data.max_uses,
        created_by=access.user.id,
        created_at=now,
        expires_at=now + timedelta(hours=data.expires_in_hours),
    )
    session.add(invitation)
    return invitation_public(invitation)


def list_invitations(
    session: Session, access: CampaignAccess, *, limit: int, offset: int
) -> tuple[list[InvitationPublic], int]:
    access.require_gm("list invitations")
    condition = col(Invitation.campaign_id) == access.campaign.id
    count = session.exec(select(func.count()).select_from(Invitation).where(condition)).one()
    rows = session.exec(
        select(Invitation)
        .where(condition)
        .order_by(col(Invitation.created_at).desc(), col(Invitation.id))
        .limit(limit)
        .offset(offset)
    ).all()
    return [invitation_public(row) for row in rows], count


def revoke_invitation(session: Session, access: CampaignAccess, invitation_id: uuid.UUID) -> None:
    access.require_gm("revoke invitations")
    invitation = session.get(Invitation, (access.campaign.id, invitation_id))
    if invitation is None:
        raise NotFound(f"no invitation {invitation_id} in this campaign")
    if invitation.revoked_at is None:
        invitation.revoked_at = utcnow()
        session.add(invitation)


def accept_invitation(session: Session, user: User, code: str) -> MemberPublic:
    """Join the invitation's campaign with its role, once per user, within its uses."""
    # Issue 23: the code alone finds its campaign (uq_invitation_code_campaign_id leads with
    # it); the row is then locked by its full key, within that campaign only.
    key = session.exec(
        select(Invitation.campaign_id, Invitation.id).where(col(Invitation.code) == code)
    ).first()
    # Locked: two users taking the last use of a code do not both get in.
    invitation = (
        session.get(Invitation, tuple(key), with_for_update=True, populate_existing=True)
        if key is not None
        else None
    )
    campaign = session.get(Campaign, invitation.campaign_id) if invitation else None
    if invitation is None or campaign is None or campaign.deleted_at is not None:
        raise NotFound("no invitation with this code; ask the GM for a new one")
    status = status_of(invitation)
    if status != "active":
        why = {"revoked": "was revoked", "used_up": "has been used up", "expired": "has expired"}
        raise Gone(f"this invitation {why[status]}; ask the GM for a new one")
    if session.get(CampaignMember, (campaign.id, user.id)) is not None:
        raise Conflict(f"you are already a member of {campaign.name!r}")
    member = CampaignMember(campaign_id=campaign.id, user_id=user.id, role=invitation.role)
    invitation.uses += 1
    session.add(member)
    session.add(invitation)
    return member_public(member, user.name)
