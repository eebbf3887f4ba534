"""Webhooks: the GM's URLs, posted every log entry as a player sees it, signed, retried."""

import uuid
from typing import Annotated, Literal

from fastapi import APIRouter, Query, Response

from app.core.database import ReadSessionDep, SessionDep
from app.core.problems import problem_responses
from app.core.security import CurrentUser
from app.engine.bodies import MAX_SEQ
from app.models.webhook import (
    WebhookCreate,
    WebhookCreated,
    WebhookDeliveriesPublic,
    WebhookPublic,
    WebhooksPublic,
    WebhookUpdate,
)
from app.routers.common import SessionRoute
from app.services.access import get_campaign_access
from app.services.idempotency import IdempotencyDep, run_idempotent
from app.services.webhooks import registry as service

router = APIRouter(
    prefix="/campaigns/{campaign_id}/webhooks", tags=["webhooks"], route_class=SessionRoute
)


@router.post(
    "",
    status_code=201,
    response_model=WebhookCreated,
    operation_id="webhooks-create",
    responses=problem_responses(401, 403, 404, 409, 422),
)
def create_webhook(
    session: SessionDep,
    user: CurrentUser,
    campaign_id: uuid.UUID,
    data: WebhookCreate,
    idempotency: IdempotencyDep,
) -> Response:
    """Register a webhook; the answer shows its signing secret, this once only (GM only)."""

    def work() -> WebhookCreated:
        return service.create_webhook(session, campaign_id, user, data)

    return run_idempotent(session, user, str(campaign_id), idempotency, 201, work)


@router.get(
    "",
    response_model=WebhooksPublic,
    operation_id="webhooks-list",
    responses=problem_responses(401, 403, 404, 422),
)
def list_webhooks(
    session: ReadSessionDep, user: CurrentUser, campaign_id: uuid.UUID
) -> WebhooksPublic:
    """List the campaign's webhooks, oldest first, without their secrets (GM only)."""
    access = get_campaign_access(session, campaign_id, user)
    data = service.list_webhooks(session, access)
    return WebhooksPublic(data=data, count=len(data))


@router.get(
    "/{webhook_id}",
    response_model=WebhookPublic,
    operation_id="webhooks-get",
    responses=problem_responses(401, 403, 404, 422),
)
def get_webhook(
    session: ReadSessionDep, user: CurrentUser, campaign_id: uuid.UUID, webhook_id: uuid.UUID
) -> WebhookPublic:
    """One webhook: whether it is enabled, and why not when it was disabled (GM only)."""
    access = get_campaign_access(session, campaign_id, user)
    return service.get_webhook(session, access, webhook_id)


@router.patch(
    "/{webhook_id}",
    response_model=WebhookPublic,
    operation_id="webhooks-update",
    responses=problem_responses(401, 403, 404, 422),
)
def update_webhook(
    session: SessionDep,
    user: CurrentUser,
    campaign_id: uuid.UUID,
    webhook_id: uuid.UUID,
    data: WebhookUpdate,
) -> WebhookPublic:
    """Change a webhook's URL, kinds or description, disable it, or enable it again (GM only)."""
    webhook = service.update_webhook(session, campaign_id, user, webhook_id, data)
    session.commit()
    return webhook


@router.delete(
    "/{webhook_id}",
    status_code=204,
    response_class=Response,
    response_model=None,
    operation_id="webhooks-delete",
    responses=problem_responses(401, 403, 404, 422),
)
def delete_webhook(
    session: SessionDep, user: CurrentUser, campaign_id: uuid.UUID, webhook_id: uuid.UUID
) -> None:
    """Delete a webhook with its deliveries; nothing more is posted to it (GM only)."""
    service.delete_webhook(session, campaign_id, user, webhook_id)
    session.commit()


@router.get(
    "/{webhook_id}/deliveries",
    response_model=WebhookDeliveriesPublic,
    operation_id="webhooks-deliveries",
    responses=problem_responses(401, 403, 404, 422),
)
def list_deliveries(
    session: ReadSessionDep,
    user: CurrentUser,
    campaign_id: uuid.UUID,
    webhook_id: uuid.UUID,
    status: Annotated[Literal["pending", "delivered", "failed"] | None, Query()] = None,
    before: Annotated[
        int | None,
        Query(ge=1, le=MAX_SEQ, description="deliveries of entries before this seq (next_before)"),
    ] = None,
    limit: Annotated[int, Query(ge=1, le=100, description="page size (≤ 100)")] = 50,
) -> WebhookDeliveriesPublic:
    """List a webhook's deliveries, newest entry first, each with its attempts (GM only)."""
    access = get_campaign_access(session, campaign_id, user)
    return service.list_deliveries(
        session, access, webhook_id, status=status, before=before, limit=limit
    )
