"""Rolls: every die from the campaign's committed stream, every roll an audit entry."""

import uuid
from typing import Annotated

from fastapi import APIRouter, Body, Path, Query, Response
from pydantic import TypeAdapter

from app.core.database import SessionDep
from app.core.problems import problem_responses
from app.core.security import CurrentUser
from app.models.entries import EntriesPublic, EntryView
from app.models.rolls import RollCreate
from app.routers.common import Limit, SessionRoute
from app.services import fabulae as _fabulae_rolls  # noqa: F401 (registers handlers)
from app.services import jdr as _jdr_rolls  # noqa: F401 (registers handlers)
from app.services import log as log_service
from app.services import vampire as _vampire_rolls  # noqa: F401 (registers handlers)
from app.services.access import get_campaign_access
from app.services.idempotency import IdempotencyDep, run_idempotent
from app.services.rolls import create_roll

router = APIRouter(
    prefix="/campaigns/{campaign_id}/rolls", tags=["rolls"], route_class=SessionRoute
)

ENTRY_VIEW: TypeAdapter[EntryView] = TypeAdapter(EntryView)


@router.post(
    "",
    status_code=201,
    response_model=EntryView,
    operation_id="rolls-create",
    responses=problem_responses(401, 403, 404, 409, 422),
)
def roll(
    session: SessionDep,
    user: CurrentUser,
    campaign_id: uuid.UUID,
    body: Annotated[RollCreate, Body()],
    idempotency: IdempotencyDep,
) -> Response:
    """Roll for a rule or a table; answers with the audit entry as the caller may see it."""

    def work() -> dict[str, object]:
        access = get_campaign_access(session, campaign_id, user, lock=True)
        entry = create_roll(session, access, body)
        view = log_service.public_view(entry, access)
        if not view.get("redacted"):
            view["triggered"] = [log_service.public_view(t, access) for t in entry.triggered]
        return view

    return run_idempotent(session, user, str(campaign_id), idempotency, 201, work)


@router.get(
    "",
    response_model=EntriesPublic,
    operation_id="rolls-list",
    responses=problem_responses(401, 404, 422),
)
def list_rolls(
    session: SessionDep,
    user: CurrentUser,
    campaign_id: uuid.UUID,
    after_seq: Annotated[int, Query(ge=0, description="return entries after this seq")] = 0,
    limit: Limit = 50,
    character_id: Annotated[uuid.UUID | None, Query()] = None,
    kind: Annotated[str | None, Query(max_length=60)] = None,
) -> EntriesPublic:
    """List roll entries in seq order (keyset pagination), redacted as the caller may see them."""
    access = get_campaign_access(session, campaign_id, user)
    data, cursor = log_service.list_entries(
        session,
        access,
        rolls_only=True,
        after_seq=after_seq,
        limit=limit,
        character_id=character_id,
        kind=kind,
    )
    return EntriesPublic.model_validate({"data": data, "next_after_seq": cursor})


@router.get(
    "/{seq}",
    response_model=EntryView,
    operation_id="rolls-get",
    responses=problem_responses(401, 404, 422),
)
def get_roll(
    session: SessionDep,
    user: CurrentUser,
    campaign_id: uuid.UUID,
    seq: Annotated[int, Path(ge=1)],
) -> EntryView:
    """Return one roll entry, redacted if the caller may not see it."""
    access = get_campaign_access(session, campaign_id, user)
    entry = log_service.get_roll(session, access, seq)
    view = log_service.public_view(entry, access)
    return ENTRY_VIEW.validate_python(log_service.annotate_follow_ups(session, access, [view])[0])
