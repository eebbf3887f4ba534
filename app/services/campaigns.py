"""Campaigns: creation, listing, edits, soft deletion."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import Session, col, select

from app.engine.registry import Registry
from app.engine.systems import validate_options
from app.models import (
    Campaign,
    CampaignMember,
    CampaignUpdate,
    User,
    utcnow,
)
from app.models.campaign import CampaignCreate
from app.services.access import LockedAccess, LockedCampaign, update_locked_campaign
from app.services.feed.notices import note_change
from app.services.log import append_entry, close_for_good, open_epoch


def campaign_public(campaign: Campaign, role: str) -> dict[str, Any]:
    head = {"seq": campaign.last_seq, "hash": campaign.last_hash}
    return {**campaign.model_dump(), "role": role, "log_head": head}


def create_campaign(
    session: Session, user: User, registry: Registry, data: CampaignCreate
) -> Campaign:
    """The caller becomes the GM of a new campaign; its first seed epoch opens (FAIR-1)."""
    _, system = registry.system(data.system)
    options = validate_options(system, data.options)
    campaign = Campaign(name=data.name, system=data.system, options=options, gm_id=user.id)
    session.add(campaign)
    session.flush()
    session.add(CampaignMember(campaign_id=campaign.id, user_id=user.id, role="gm"))
    head = LockedCampaign.created(campaign)
    open_epoch(session, head, user.id)
    # Keep the ORM copy in step with the row that the epoch's statements changed.
    for name in ("current_epoch", "last_seq", "last_hash"):
        set_committed_value(campaign, name, getattr(head, name))
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


def update_campaign(
    session: Session, access: LockedAccess, registry: Registry, data: CampaignUpdate
) -> Campaign:
    """Apply the GM's changes; returns the campaign as it now stands."""
    access.require_gm("edit the campaign")
    campaign = access.campaign
    changes = data.model_dump(exclude_unset=True)
    values: dict[str, Any] = {"updated_at": utcnow()}
    if changes.get("options") is not None:
        options = validate_options(registry.system(campaign.system)[1], changes["options"])
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
            values["options"] = options
    if changes.get("name") is not None:
        values["name"] = changes["name"]
    update_locked_campaign(session, campaign, **values)
    return load_campaign(session, campaign)


def load_campaign(session: Session, campaign: LockedCampaign) -> Campaign:
    """The whole row of a locked campaign, as this transaction's statements left it."""
    row = session.get(Campaign, campaign.id, populate_existing=True)
    assert row is not None  # locked by this transaction, so it exists
    return row


def delete_campaign(session: Session, access: LockedAccess) -> None:
    """Soft delete: members lose access, the GM keeps the audit log for export (FAIR-12),
    and the open epoch's seed is revealed first, so every roll stays verifiable (FAIR-4)."""
    access.require_gm("delete the campaign")
    close_for_good(session, access)
    update_locked_campaign(session, access.campaign, deleted_at=utcnow())
    note_change(session, access.campaign.id, "members")  # the players' streams end
