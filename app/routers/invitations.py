"""Invitations: the GM hands out a code with a role, an expiry and a use count; a
registered user joins the campaign with it."""

import uuid
from typing import Annotated

from fastapi import APIRouter, Path, Response

from app.core.database import ReadSessionDep, SessionDep
from app.core.problems import problem_responses
from app.core.security import CurrentUser
from app.models import InvitationCreate, InvitationPublic, InvitationsPublic, MemberPublic
from app.routers.common import Limit, Offset, SessionRoute
from app.services import invitations as service
from app.services.access import get_campaign_access
from app.services.idempotency import IdempotencyDep, run_idempotent

router = APIRouter(tags=["invitations"], route_class=SessionRoute)


@router.post(
    "/campaigns/{campaign_id}/invitations",
    status_code=201,
    response_model=InvitationPublic,
    operation_id="invitations-create",
    responses=problem_responses(401, 403, 404, 422),
)
def create_invitation(
    session: SessionDep,
    user: CurrentUser,
    campaign_id: uuid.UUID,
    data: InvitationCreate,
    idempotency: IdempotencyDep,
) -> Response:
    """Create an invitation code for the campaign (GM only)."""

    def work() -> InvitationPublic:
        access = get_campaign_access(session, campaign_id, user)
        return service.create_invitation(session, access, data)

    return run_idempotent(session, user, str(campaign_id), idempotency, 201, work)


@router.get(
    "/campaigns/{campaign_id}/invitations",
    response_model=InvitationsPublic,
    operation_id="invitations-list",
    responses=problem_responses(401, 403, 404, 422),
)
def list_invitations(
    session: ReadSessionDep,
    user: CurrentUser,
    campaign_id: uuid.UUID,
    limit: Limit = 50,
    offset: Offset = 0,
) -> InvitationsPublic:
    """List the campaign's invitations, newest first, with their status (GM only)."""
    access = get_campaign_access(session, campaign_id, user)
    data, count = service.list_invitations(session, access, limit=limit, offset=offset)
    return InvitationsPublic(data=data, count=count)


@router.delete(
    "/campaigns/{campaign_id}/invitations/{invitation_id}",
    status_code=204,
    response_class=Response,
    response_model=None,
    operation_id="invitations-revoke",
    responses=problem_responses(401, 403, 404, 422),
)
def revoke_invitation(
    session: SessionDep, user: CurrentUser, campaign_id: uuid.UUID, invitation_id: uuid.UUID
) -> None:
    """Revoke an invitation: its code no longer lets anyone join (GM only)."""
    access = get_campaign_access(session, campaign_id, user)
    service.revoke_invitation(session, access, invitation_id)
    session.commit()


@router.post(
    "/invitations/{code}/accept",
    status_code=201,
    response_model=MemberPublic,
    operation_id="invitations-accept",
    responses=problem_responses(401, 404, 409, 410, 422),
)
def accept_invitation(
    session: SessionDep,
    user: CurrentUser,
    code: Annotated[str, Path(min_length=1, max_length=64)],
) -> MemberPublic:
    """Join the campaign an invitation code is for, with its role."""
    member = service.accept_invitation(session, user, code)
    session.commit()
    return member
