"""Campaign members."""

import uuid

from fastapi import APIRouter, Response

from app.core.database import ReadSessionDep, SessionDep
from app.core.problems import problem_responses
from app.core.security import CurrentUser
from app.models import MemberCreate, MemberPublic, MembersPublic
from app.routers.common import Limit, Offset, SessionRoute
from app.services import members as service
from app.services.access import get_campaign_access
from app.services.idempotency import IdempotencyDep, run_idempotent

router = APIRouter(
    prefix="/campaigns/{campaign_id}/members", tags=["members"], route_class=SessionRoute
)


@router.post(
    "",
    status_code=201,
    response_model=MemberPublic,
    operation_id="members-create",
    responses=problem_responses(401, 403, 404, 409, 422),
)
def add_member(
    session: SessionDep,
    user: CurrentUser,
    campaign_id: uuid.UUID,
    data: MemberCreate,
    idempotency: IdempotencyDep,
) -> Response:
    """Add a registered user to the campaign as a player (GM only)."""

    def work() -> MemberPublic:
        access = get_campaign_access(session, campaign_id, user, lock=True)
        return service.add_member(session, access, data)

    return run_idempotent(session, user, str(campaign_id), idempotency, 201, work)


@router.get(
    "",
    response_model=MembersPublic,
    operation_id="members-list",
    responses=problem_responses(401, 404, 422),
)
def list_members(
    session: ReadSessionDep,
    user: CurrentUser,
    campaign_id: uuid.UUID,
    limit: Limit = 50,
    offset: Offset = 0,
) -> MembersPublic:
    """List the campaign's GM and players."""
    access = get_campaign_access(session, campaign_id, user)
    data, count = service.list_members(session, access, limit=limit, offset=offset)
    return MembersPublic(data=data, count=count)


@router.delete(
    "/{user_id}",
    status_code=204,
    response_class=Response,
    response_model=None,
    operation_id="members-delete",
    responses=problem_responses(401, 403, 404, 409, 422),
)
def remove_member(
    session: SessionDep, user: CurrentUser, campaign_id: uuid.UUID, user_id: uuid.UUID
) -> None:
    """Remove a player (GM), or leave the campaign (the player themselves)."""
    access = get_campaign_access(session, campaign_id, user, lock=True)
    service.remove_member(session, access, user_id)
    session.commit()
