"""The GM's webhooks: register (the secret shown once), list, change, delete, and read
each one's deliveries with their attempts."""

from __future__ import annotations

import base64
import secrets
import uuid

from sqlalchemy import delete, update
from sqlmodel import Session, col, select

from app.core.problems import Conflict, NotFound
from app.core.settings import get_settings
from app.models import User, Webhook, WebhookAttempt, WebhookDelivery, utcnow
from app.models.webhook import (
    WebhookAttemptPublic,
    WebhookCreate,
    WebhookCreated,
    WebhookDeliveriesPublic,
    WebhookDeliveryPublic,
    WebhookPublic,
    WebhookUpdate,
)
from app.services.access import (
    CampaignAccess,
    LockedAccess,
    get_campaign_access,
    update_locked_campaign,
)
from app.services.webhooks.addresses import check_url

MAX_WEBHOOKS = 10
DISABLED_BY_GM = "disabled by the GM"


def new_secret() -> str:
    """A Standard Webhooks signing secret: whsec_ and 24 random bytes in base64."""
    return "whsec_" + base64.b64encode(secrets.token_bytes(24)).decode("ascii")


def webhook_public(row: Webhook) -> WebhookPublic:
    return WebhookPublic.model_validate(row.model_dump(exclude={"secret"}))


def _at_most(count: int) -> None:
    if count >= MAX_WEBHOOKS:
        raise Conflict(
            f"a campaign has at most {MAX_WEBHOOKS} webhooks; delete one before adding another"
        )


def _check_url(url: str) -> None:
    check_url(url, allow_private=get_settings().webhook_allow_private_addresses)


def _gm(session: Session, campaign_id: uuid.UUID, user: User, action: str) -> CampaignAccess:
    access = get_campaign_access(session, campaign_id, user)
    access.require_gm(action)
    return access


def _locked_gm(session: Session, campaign_id: uuid.UUID, user: User, action: str) -> LockedAccess:
    # Taken once a new URL is checked: resolving it may take a while, and the table's rolls
    # do not wait for it.
    access = get_campaign_access(session, campaign_id, user, lock=True)
    access.require_gm(action)
    return access


def create_webhook(
    session: Session, campaign_id: uuid.UUID, user: User, data: WebhookCreate
) -> WebhookCreated:
    """Register a webhook; the answer is the only one to show its secret."""
    _at_most(_gm(session, campaign_id, user, "register webhooks").campaign.webhooks)
    _check_url(data.url)
    access = _locked_gm(session, campaign_id, user, "register webhooks")
    campaign = access.campaign
    _at_most(campaign.webhooks)
    now = utcnow()
    row = Webhook(
        campaign_id=campaign.id,
        url=data.url,
        kinds=list(dict.fromkeys(data.kinds)),
        description=data.description,
        secret=new_secret(),
        created_at=now,
        updated_at=now,
    )
    session.add(row)
    update_locked_campaign(session, campaign, webhooks=campaign.webhooks + 1)
    return WebhookCreated.model_validate(row.model_dump())


def _webhook(
    session: Session, access: CampaignAccess, webhook_id: uuid.UUID, *, lock: bool = False
) -> Webhook:
    # Whoever changes a webhook or its deliveries locks the webhook's row first (the sender
    # too): they take turns, and never deadlock.
    row = session.get(
        Webhook, (access.campaign.id, webhook_id), populate_existing=True, with_for_update=lock
    )
    if row is None:
        raise NotFound(f"no webhook {webhook_id} in this campaign")
    return row


def list_webhooks(session: Session, access: CampaignAccess) -> list[WebhookPublic]:
    access.require_gm("read the campaign's webhooks")
    rows = session.exec(
        select(Webhook)
        .where(col(Webhook.campaign_id) == access.campaign.id)
        .order_by(col(Webhook.created_at), col(Webhook.id))
    ).all()
    return [webhook_public(row) for row in rows]


def get_webhook(session: Session, access: CampaignAccess, webhook_id: uuid.UUID) -> WebhookPublic:
    access.require_gm("read the campaign's webhooks")
    return webhook_public(_webhook(session, access, webhook_id))


def fail_pending(session: Session, campaign_id: uuid.UUID, webhook_id: uuid.UUID) -> None:
    """A disabled webhook's pending deliveries are given up: nothing is posted later."""
    session.execute(
        update(WebhookDelivery)
        .where(
            col(WebhookDelivery.campaign_id) == campaign_id,
            col(WebhookDelivery.webhook_id) == webhook_id,
            col(WebhookDelivery.status) == "pending",
        )
        .values(status="failed", leased_until=None)
    )


def update_webhook(
    session: Session, campaign_id: uuid.UUID, user: User, webhook_id: uuid.UUID, data: WebhookUpdate
) -> WebhookPublic:
    """Change the URL, kinds or description; disable (its pending deliveries are given up)
    or enable again (its failures forgotten)."""
    row = _webhook(session, _gm(session, campaign_id, user, "change webhooks"), webhook_id)
    if data.url is not None and data.url != row.url:
        _check_url(data.url)
    # Under the lock, a roll reads the webhook as it was or as it is now, never in between.
    access = _locked_gm(session, campaign_id, user, "change webhooks")
    row = _webhook(session, access, webhook_id, lock=True)
    if data.url is not None:
        row.url = data.url
    if data.kinds is not None:
        row.kinds = list(dict.fromkeys(data.kinds))
    if data.description is not None:
        row.description = data.description
    if data.enabled is True and not row.enabled:
        row.enabled, row.disabled_reason, row.failing_since = True, None, None
    elif data.enabled is False and row.enabled:
        row.enabled, row.disabled_reason = False, DISABLED_BY_GM
        fail_pending(session, row.campaign_id, row.id)
    row.updated_at = utcnow()
    session.add(row)
    session.flush()
    return webhook_public(row)


def delete_webhook(
    session: Session, campaign_id: uuid.UUID, user: User, webhook_id: uuid.UUID
) -> None:
    """Delete a webhook, its deliveries and their attempts."""
    access = _locked_gm(session, campaign_id, user, "delete webhooks")
    row = _webhook(session, access, webhook_id, lock=True)
    campaign_id = access.campaign.id
    deliveries = select(WebhookDelivery.id).where(
        col(WebhookDelivery.campaign_id) == campaign_id,
        col(WebhookDelivery.webhook_id) == webhook_id,
    )
    session.execute(
        delete(WebhookAttempt).where(
            col(WebhookAttempt.campaign_id) == campaign_id,
            col(WebhookAttempt.delivery_id).in_(deliveries),
        )
    )
    session.execute(
        delete(WebhookDelivery).where(
            col(WebhookDelivery.campaign_id) == campaign_id,
            col(WebhookDelivery.webhook_id) == webhook_id,
        )
    )
    session.delete(row)
    update_locked_campaign(session, access.campaign, webhooks=access.campaign.webhooks - 1)


def list_deliveries(
    session: Session,
    access: CampaignAccess,
    webhook_id: uuid.UUID,
    *,
    status: str | None,
    before: int | None,
    limit: int,
) -> WebhookDeliveriesPublic:
    """A webhook's deliveries, newest entry first, each with its attempts."""
    access.require_gm("read webhook deliveries")
    webhook = _webhook(session, access, webhook_id)
    conditions = [
        col(WebhookDelivery.campaign_id) == webhook.campaign_id,
        col(WebhookDelivery.webhook_id) == webhook.id,
    ]
    if status is not None:
        conditions.append(col(WebhookDelivery.status) == status)
    if before is not None:
        conditions.append(col(WebhookDelivery.seq) < before)
    rows = session.exec(
        select(WebhookDelivery)
        .where(*conditions)
        .order_by(col(WebhookDelivery.seq).desc())
        .limit(limit + 1)
    ).all()
    page = rows[:limit]
    attempts: dict[uuid.UUID, list[WebhookAttemptPublic]] = {row.id: [] for row in page}
    if page:
        found = session.exec(
            select(WebhookAttempt)
            .where(
                col(WebhookAttempt.campaign_id) == webhook.campaign_id,
                col(WebhookAttempt.delivery_id).in_(list(attempts)),
            )
            .order_by(col(WebhookAttempt.number))
        ).all()
        for attempt in found:
            attempts[attempt.delivery_id].append(
                WebhookAttemptPublic.model_validate(attempt.model_dump())
            )
    data = [
        WebhookDeliveryPublic(
            id=row.id,
            webhook_id=row.webhook_id,
            seq=row.seq,
            kind=row.kind,
            status=row.status,
            attempts=attempts[row.id],
            next_attempt_at=row.next_attempt_at if row.status == "pending" else None,
            created_at=row.created_at,
        )
        for row in page
    ]
    next_before = page[-1].seq if len(rows) > limit else None
    return WebhookDeliveriesPublic(data=data, next_before=next_before)
