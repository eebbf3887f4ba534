"""Roll requests: the GM asks characters for a roll with the difficulty, modifiers, tense
and visibility the GM decides; players answer with `POST .../rolls?request_id=`."""

import uuid
from typing import Annotated, Literal

from fastapi import APIRouter, Query, Response

from app.core.database import ReadSessionDep, SessionDep
from app.core.problems import problem_responses
from app.core.security import CurrentUser
from app.engine.registry import Registry
from app.models import RollRequestCreate, RollRequestPublic, RollRequestsPublic
from app.routers.common import Limit, Offset, SessionRoute
from app.services import roll_requests as service
from app.services.access import get_campaign_access
from app.services.idempotency import IdempotencyDep, run_idempotent


def build(registry: Registry) -> APIRouter:
    """The roll requests router, for the kinds of this registry."""
    router = APIRouter(
        prefix="/campaigns/{campaign_id}/roll-requests",
        tags=["roll-requests"],
        route_class=SessionRoute,
    )

    @router.post(
        "",
        status_code=201,
        response_model=RollRequestPublic,
        operation_id="roll-requests-create",
        responses=problem_responses(401, 403, 404, 422),
    )
    def create_request(
        session: SessionDep,
        user: CurrentUser,
        campaign_id: uuid.UUID,
        data: RollRequestCreate,
        idempotency: IdempotencyDep,
    ) -> Response:
        """Ask characters for a roll with the values the GM decides (GM only)."""

        def work() -> RollRequestPublic:
            access = get_campaign_access(session, campaign_id, user, lock=True)
            return service.create_request(session, access, registry, data)

        return run_idempotent(session, user, str(campaign_id), idempotency, 201, work)

    @router.get(
        "",
        response_model=RollRequestsPublic,
        operation_id="roll-requests-list",
        responses=problem_responses(401, 404, 422),
    )
    def list_requests(
        session: ReadSessionDep,
        user: CurrentUser,
        campaign_id: uuid.UUID,
        status: Annotated[Literal["open", "closed", "cancelled"] | None, Query()] = None,
        limit: Limit = 50,
        offset: Offset = 0,
    ) -> RollRequestsPublic:
        """List roll requests, newest first: the GM's all, a player's those for their characters."""
        access = get_campaign_access(session, campaign_id, user)
        data, count = service.list_requests(
            session, access, status=status, limit=limit, offset=offset
        )
        return RollRequestsPublic(data=data, count=count)

    @router.get(
        "/{request_id}",
        response_model=RollRequestPublic,
        operation_id="roll-requests-get",
        responses=problem_responses(401, 404, 422),
    )
    def get_request(
        session: ReadSessionDep, user: CurrentUser, campaign_id: uuid.UUID, request_id: uuid.UUID
    ) -> RollRequestPublic:
        """One roll request, with the seqs of the rolls that answered it."""
        access = get_campaign_access(session, campaign_id, user)
        return service.get_request(session, access, request_id)

    @router.delete(
        "/{request_id}",
        status_code=204,
        response_class=Response,
        response_model=None,
        operation_id="roll-requests-cancel",
        responses=problem_responses(401, 403, 404, 409, 422),
    )
    def cancel_request(
        session: SessionDep, user: CurrentUser, campaign_id: uuid.UUID, request_id: uuid.UUID
    ) -> None:
        """Withdraw an open roll request (GM only)."""
        access = get_campaign_access(session, campaign_id, user, lock=True)
        service.cancel_request(session, access, request_id)
        session.commit()

    return router
