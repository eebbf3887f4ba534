"""Campaigns and their clock."""

import uuid
from typing import Any

from fastapi import APIRouter, Response
from pydantic import TypeAdapter
from sqlmodel import Session

from app.core.database import ReadSessionDep, SessionDep
from app.core.problems import problem_responses
from app.core.security import CurrentUser
from app.engine.registry import Registry
from app.models import CampaignUpdate, User
from app.models.campaign import CampaignCreate
from app.models.clock import ClockAdvance, ClockPublic
from app.models.typed import api_models
from app.routers.common import Limit, Offset, SessionRoute
from app.services import campaigns as service
from app.services.access import get_campaign_access
from app.services.clock import advance_clock
from app.services.idempotency import IdempotencyDep, IdempotencyRequest, run_idempotent


def build(registry: Registry) -> APIRouter:
    """The campaigns router, systems typed by this registry."""
    models = api_models(registry)
    campaign_view: TypeAdapter[Any] = TypeAdapter(models.campaign_public)
    router = APIRouter(prefix="/campaigns", tags=["campaigns"], route_class=SessionRoute)

    @router.post(
        "",
        status_code=201,
        response_model=models.campaign_public,
        operation_id="campaigns-create",
        responses=problem_responses(401, 409, 422),
    )
    def create_campaign(
        session: SessionDep,
        user: CurrentUser,
        data: models.campaign_create,  # type: ignore[name-defined]
        idempotency: IdempotencyDep,
    ) -> Response:
        """Create a campaign for one ruleset; the caller becomes its GM and its first epoch
        opens."""

        def work() -> Any:
            created = CampaignCreate.model_validate(data.model_dump())
            campaign = service.create_campaign(session, user, registry, created)
            shown = campaign_view.validate_python(service.campaign_public(campaign, "gm"))
            return campaign_view.dump_python(shown, mode="json")

        return run_idempotent(session, user, "campaigns", idempotency, 201, work)

    @router.get(
        "",
        response_model=models.campaigns,
        operation_id="campaigns-list",
        responses=problem_responses(401, 422),
    )
    def list_campaigns(
        session: ReadSessionDep, user: CurrentUser, limit: Limit = 50, offset: Offset = 0
    ) -> Any:
        """List the campaigns the caller belongs to, newest first."""
        rows, count = service.list_campaigns(session, user, limit=limit, offset=offset)
        data = [service.campaign_public(campaign, role) for campaign, role in rows]
        return models.campaigns.model_validate({"data": data, "count": count})

    @router.get(
        "/{campaign_id}",
        response_model=models.campaign_public,
        operation_id="campaigns-get",
        responses=problem_responses(401, 404, 422),
    )
    def get_campaign(
        session: ReadSessionDep, user: CurrentUser, campaign_id: uuid.UUID, response: Response
    ) -> Any:
        """Return one campaign with its current session and scene, and its log's head."""
        access = get_campaign_access(session, campaign_id, user)
        found = service.campaign_public(access.campaign, access.role)
        response.headers["Log-Head"] = f"{found['log_head']['seq']} {found['log_head']['hash']}"
        return found

    @router.patch(
        "/{campaign_id}",
        response_model=models.campaign_public,
        operation_id="campaigns-update",
        responses=problem_responses(401, 403, 404, 422),
    )
    def update_campaign(
        session: SessionDep, user: CurrentUser, campaign_id: uuid.UUID, data: CampaignUpdate
    ) -> Any:
        """Rename a campaign or change its options (GM only)."""
        access = get_campaign_access(session, campaign_id, user, lock=True)
        campaign = service.update_campaign(session, access, registry, data)
        session.commit()
        return service.campaign_public(campaign, access.role)

    @router.delete(
        "/{campaign_id}",
        status_code=204,
        response_class=Response,
        response_model=None,
        operation_id="campaigns-delete",
        responses=problem_responses(401, 403, 404, 422),
    )
    def delete_campaign(session: SessionDep, user: CurrentUser, campaign_id: uuid.UUID) -> None:
        """Soft-delete a campaign (GM only); its audit log stays exportable by the GM."""
        access = get_campaign_access(session, campaign_id, user, lock=True)
        service.delete_campaign(session, access)
        session.commit()

    @router.post(
        "/{campaign_id}/sessions",
        status_code=201,
        response_model=ClockPublic,
        operation_id="campaigns-start-session",
        responses=problem_responses(401, 403, 404, 409, 422),
    )
    def start_session(
        session: SessionDep,
        user: CurrentUser,
        campaign_id: uuid.UUID,
        data: ClockAdvance,
        idempotency: IdempotencyDep,
    ) -> Response:
        """Start the next game session, which opens its first scene (GM only)."""
        return _advance(session, user, campaign_id, data, idempotency, new_session=True)

    @router.post(
        "/{campaign_id}/scenes",
        status_code=201,
        response_model=ClockPublic,
        operation_id="campaigns-start-scene",
        responses=problem_responses(401, 403, 404, 409, 422),
    )
    def start_scene(
        session: SessionDep,
        user: CurrentUser,
        campaign_id: uuid.UUID,
        data: ClockAdvance,
        idempotency: IdempotencyDep,
    ) -> Response:
        """Start the next scene of the current session (GM only)."""
        return _advance(session, user, campaign_id, data, idempotency, new_session=False)

    def _advance(
        session: Session,
        user: User,
        campaign_id: uuid.UUID,
        data: ClockAdvance,
        idempotency: IdempotencyRequest | None,
        *,
        new_session: bool,
    ) -> Response:
        def work() -> ClockPublic:
            access = get_campaign_access(session, campaign_id, user, lock=True)
            entry = advance_clock(session, access, registry, data, new_session=new_session)
            return ClockPublic(
                current_session=access.campaign.current_session,
                current_scene=access.campaign.current_scene,
                seq=entry.seq,
                effects=entry.resolution.effects if entry.resolution else [],
            )

        return run_idempotent(session, user, str(campaign_id), idempotency, 201, work)

    return router
