"""Rolls: every die from the campaign's committed stream, every roll an audit entry."""

import uuid
from typing import Annotated, Any

from fastapi import APIRouter, Body, Path, Query, Response
from fastapi.concurrency import run_in_threadpool
from sqlmodel import Session

from app.core.database import ReadSessionDep, SessionDep
from app.core.problems import problem_responses
from app.core.security import CurrentUser
from app.engine.bodies import MAX_SEQ
from app.engine.contract import Language
from app.engine.registry import Registry
from app.models import User
from app.models.typed import api_models
from app.routers.common import (
    AcceptLanguage,
    Filters,
    Limit,
    PlainCall,
    SessionRoute,
    WithOdds,
    ending_its_transaction,
    fast_path,
    negotiate_language,
)
from app.services import log as log_service
from app.services.access import CampaignAccess, get_campaign_access
from app.services.idempotency import IdempotencyDep, IdempotencyRequest, run_idempotent
from app.services.known_head import roll_on_known_head_on_loop
from app.services.log import SealedEntry
from app.services.luck import add_luck
from app.services.roll_batches import CampaignBatches, RollJob, make_rolls
from app.services.roll_requests import answer as answer_request
from app.services.rolls import create_roll
from app.services.views import annotate_follow_ups, public_view, roll_view


def build(registry: Registry) -> APIRouter:
    """The rolls router for the kinds of this registry."""
    models = api_models(registry)
    router = APIRouter(
        prefix="/campaigns/{campaign_id}/rolls", tags=["rolls"], route_class=SessionRoute
    )

    batches = CampaignBatches(make_rolls(registry))

    async def make(
        session: Session,
        user: User,
        campaign_id: uuid.UUID,
        body: Any,
        language: Language,
        idempotency: IdempotencyRequest | None = None,
        request_id: uuid.UUID | None = None,
    ) -> Response:
        if idempotency is None and request_id is None:
            # Issue 23: a plain dice roll on a head this worker knows is one statement,
            # awaited here; the others of a campaign queued in this process share one
            # transaction, made in a thread.
            made = await roll_on_known_head_on_loop(
                registry, session, user, campaign_id, body, language
            )
            if made is not None:
                return made
            job = RollJob(session, user, campaign_id, body, language)
            answer = await batches.submit(campaign_id, job)
            if isinstance(answer, Exception):
                raise answer
            return answer

        def work() -> tuple[SealedEntry, CampaignAccess]:
            access = get_campaign_access(session, campaign_id, user, lock=True)
            if request_id is not None:
                return answer_request(session, access, registry, body, request_id), access
            return create_roll(session, access, registry, body), access

        def present(made: tuple[SealedEntry, CampaignAccess]) -> dict[str, object]:
            entry, access = made
            return roll_view(entry, access, registry, language)

        def single(session: Session) -> Response:
            return run_idempotent(session, user, str(campaign_id), idempotency, 201, work, present)

        return await run_in_threadpool(ending_its_transaction(single), session=session)

    async def plain_roll(session: Session, call: PlainCall) -> Response:
        # A plain roll (no key to look up, no Idempotency-Key, no request_id): see fast_path.
        return await make(session, call.user, call.path["campaign_id"], call.body, call.language)

    @router.post(
        "",
        status_code=201,
        response_model=models.entry,
        operation_id="rolls-create",
        responses=problem_responses(401, 403, 404, 409, 422),
    )
    @fast_path(plain_roll)
    async def roll(
        session: SessionDep,
        user: CurrentUser,
        campaign_id: uuid.UUID,
        body: Annotated[models.roll_body, Body()],  # type: ignore[name-defined]
        idempotency: IdempotencyDep,
        accept_language: AcceptLanguage = None,
        request_id: Annotated[
            uuid.UUID | None,
            Query(description="the GM's roll request this roll answers: its values apply"),
        ] = None,
    ) -> Response:
        """Roll for a rule or a table; answers with the audit entry as the caller may see it."""
        language = negotiate_language(accept_language)
        return await make(session, user, campaign_id, body, language, idempotency, request_id)

    @router.get(
        "",
        response_model=models.entries,
        response_model_exclude_unset=True,
        operation_id="rolls-list",
        responses=problem_responses(401, 404, 422),
    )
    def list_rolls(
        session: ReadSessionDep,
        user: CurrentUser,
        campaign_id: uuid.UUID,
        filters: Filters,
        accept_language: AcceptLanguage = None,
        after_seq: Annotated[
            int, Query(ge=0, le=MAX_SEQ, description="return entries after this seq")
        ] = 0,
        limit: Limit = 50,
        with_odds: WithOdds = False,
    ) -> Any:
        """List roll entries in seq order (keyset pagination), redacted as the caller may see
        them."""
        access = get_campaign_access(session, campaign_id, user)
        data, cursor = log_service.list_entries(
            session,
            access,
            registry,
            negotiate_language(accept_language),
            rolls_only=True,
            after_seq=after_seq,
            limit=limit,
            filters=filters,
            with_odds=with_odds,
        )
        return {"data": data, "next_after_seq": cursor}  # checked once, by response_model

    @router.get(
        "/{seq}",
        response_model=models.entry,
        response_model_exclude_unset=True,
        operation_id="rolls-get",
        responses=problem_responses(401, 404, 422),
    )
    def get_roll(
        session: ReadSessionDep,
        user: CurrentUser,
        campaign_id: uuid.UUID,
        seq: Annotated[int, Path(ge=1, le=MAX_SEQ)],
        accept_language: AcceptLanguage = None,
        with_odds: WithOdds = False,
    ) -> Any:
        """Return one roll entry, redacted if the caller may not see it."""
        access = get_campaign_access(session, campaign_id, user)
        entry = log_service.get_roll(session, access, registry, seq)
        language = negotiate_language(accept_language)
        view = public_view(entry, access, registry, language)
        view = annotate_follow_ups(session, access, [view], registry, language)[0]
        if with_odds:
            add_luck(view, registry)
        return view

    return router
