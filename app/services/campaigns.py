"""Campaigns: creation, listing, edits, soft deletion."""

from __future__ import annotations

from sqlalchemy import func
from sqlmodel import Session, col, select

from app.engine.systems import get_ruleset
from app.models import (
    Campaign,
    CampaignCreate,
    CampaignMember,
    CampaignPublic,
    CampaignUpdate,
    User,
    utcnow,
)
from app.services.access import CampaignAccess
from app.services.log import append_entry, open_epoch


def campaign_public(campaign: Campaign, role: str) -> CampaignPublic:
    return CampaignPublic.model_validate({**campaign.model_dump(), "role": role})


def create_campaign(session: Session, user: User, data: CampaignCreate) -> Campaign:
    """The caller becomes the GM of a new campaign; its first seed epoch opens (FAIR-1)."""
    options = get_ruleset(data.system).validate_options(data.options)
    campaign = Campaign(name=data.name, system=data.system, options=options, gm_id=user.id)
    session.add(campaign)
    session.flush()
    session.add(CampaignMember(campaign_id=campaign.id, user_id=user.id, role="gm"))
    open_epoch(session, campaign, user.id)
    return campaign


def list_campaigns(
    session: Session, user: User, *, limit: int, offset: int
) -> tuple[list[tuple[Campaign, str]], int]:
    conditions = [col(CampaignMember.user_id) == user.id, col(Campaign.deleted_at).is_(None)]
    joined = select(Campaign, CampaignMember.role).join(
        CampaignMember, col(CampaignMember.campaign_id) == col(Campaign.id)
    )
    count = session.exec(
        select(func.count())
        .select_from(Campaign)
        .join(CampaignMember, col(CampaignMember.campaign_id) == col(Campaign.id))
        .where(*conditions)
    ).one()
    rows = session.exec(
        joined.where(*conditions)
        .order_by(col(Campaign.created_at).desc(), col(Campaign.id))
        .limit(limit)
        .offset(offset)
    ).all()
    return [(campaign, role) for campaign, role in rows], count


def update_campaign(session: Session, access: CampaignAccess, data: CampaignUpdate) -> None:
    access.require_gm("edit the campaign")
    campaign = access.campaign
    changes = data.model_dump(exclude_unset=True)
    if changes.get("options") is not None:
        options = get_ruleset(campaign.system).validate_options(changes["options"])
        if options != campaign.options:
            # Options change how the rules resolve, so the audit log keeps each change.
            append_entry(
                session,
                campaign,
                kind="options_changed",
                actor_id=access.user.id,
                request={"options": options},
                effects=[{"field": "options", "before": campaign.options, "after": options}],
            )
            campaign.options = options
    if changes.get("name") is not None:
        campaign.name = changes["name"]
    campaign.updated_at = utcnow()
    session.add(campaign)


def delete_campaign(session: Session, access: CampaignAccess) -> None:
    """Soft delete: members lose access, the GM keeps the audit log for export (FAIR-12)."""
    access.require_gm("delete the campaign")
    access.campaign.deleted_at = utcnow()
    session.add(access.campaign)
