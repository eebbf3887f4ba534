"""The campaign's audit log: listing, export, verification."""

import json
import uuid
import weakref
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Response
from fastapi.responses import StreamingResponse
from sqlmodel import Session

from app.core.database import (
    LookupSessionDep,
    ReadOnlySessionDep,
    ReadSessionDep,
    SessionDep,
)
from app.core.problems import Unprocessable, problem_responses
from app.core.security import CurrentUser
from app.engine.bodies import MAX_SEQ
from app.engine.registry import Registry
from app.models import Campaign, User
from app.models.entries import DisclosureCreate, VerifyPublic
from app.models.typed import api_models
from app.routers.common import (
    AcceptLanguage,
    Filters,
    Limit,
    SessionRoute,
    WithOdds,
    negotiate_language,
)
from app.services import heavy_reads
from app.services import held as held_service
from app.services import log as log_service
from app.services.access import (
    MemberAccess,
    get_campaign_access,
    readable_access,
    readable_head,
)
from app.services.disclosure import MAX_DISCLOSED, disclose
from app.services.idempotency import IdempotencyDep, run_idempotent
from app.services.views import export_view, public_view, roll_view

NDJSON = "application/x-ndjson"
HEAD_HEADER = "Log-Head"


def build(registry: Registry) -> APIRouter:
    """The log router, its entries typed by this registry's kinds."""
    models = api_models(registry)
    router = APIRouter(
        prefix="/campaigns/{campaign_id}/log", tags=["log"], route_class=SessionRoute
    )

    @router.get(
        "",
        response_model=models.entries,
        response_model_exclude_unset=True,
        operation_id="log-list",
        responses=problem_responses(401, 404, 422),
    )
    def list_log(
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
        """List every entry in seq order (keyset pagination), redacted as the caller may see
        it."""
        access = readable_access(session, campaign_id, user)
        data, cursor = log_service.list_entries(
            session,
            access,
            registry,
            negotiate_language(accept_language),
            rolls_only=False,
            after_seq=after_seq,
            limit=limit,
            filters=filters,
            with_odds=with_odds,
        )
        return {"data": data, "next_after_seq": cursor}  # checked once, by response_model

    @router.get(
        "/verify",
        response_model=VerifyPublic,
        operation_id="log-verify",
        responses=problem_responses(401, 404, 422, 429),
    )
    async def verify_log(
        lookup: LookupSessionDep,
        session: ReadOnlySessionDep,
        user: CurrentUser,
        campaign_id: uuid.UUID,
    ) -> VerifyPublic:
        """Verify the whole log: hashes, seq, epochs, re-derived draws, every roll replayed
        with the rules version that made it."""
        with heavy_reads.slots.hold(user.id):
            return await heavy_reads.run(lambda: verified(lookup, session, user, campaign_id))

    def verified(
        lookup: Session, session: Session, user: User, campaign_id: uuid.UUID
    ) -> VerifyPublic:
        try:
            # A head already verified needs only the head (a loop of them ran beside rolls),
            # read through the lookup's ReadSession (issue 23): the READ ONLY transaction,
            # its BEGIN and its COMMIT, are for a head not verified yet.
            head_now = readable_head(lookup, campaign_id, user)
            lookup.rollback()  # its connection back to the pool before a long read
            report: VerifyPublic | None = heavy_reads.reports.get((campaign_id, *head_now))
            if report is None:
                campaign = readable_access(session, campaign_id, user).campaign
                head = (campaign.id, campaign.last_seq, campaign.last_hash)  # maybe newer
                found = log_service.verify_campaign(session, campaign, registry)
                report = VerifyPublic.model_validate(found.as_dict())
                heavy_reads.reports.put(head, report)
            return report
        finally:
            heavy_reads.end_reads(session)

    @router.get(
        "/export",
        response_class=StreamingResponse,
        operation_id="log-export",
        responses={
            200: {
                "description": "one entry per line in seq order, redacted as the caller may see it",
                "content": {NDJSON: {"schema": {"type": "string"}}},
                "headers": {
                    HEAD_HEADER: {
                        "description": "seq:hash of the log's last entry at export time",
                        "schema": {"type": "string"},
                    }
                },
            },
            **problem_responses(401, 404, 422, 429),
        },
    )
    async def export_log(
        session: ReadOnlySessionDep, user: CurrentUser, campaign_id: uuid.UUID
    ) -> StreamingResponse:
        """Export the log as NDJSON for offline verification with nocturne-verify."""
        heavy_reads.slots.take(user.id)
        release = heavy_reads.slots.released_once(user.id)
        try:
            access = await heavy_reads.run(lambda: opened_for_export(session, user, campaign_id))
        except BaseException:
            release()
            raise
        campaign = access.campaign
        # Up to the head read with the campaign: the export ends exactly on its Log-Head.
        entries = log_service.iter_entries(session, campaign, through_seq=campaign.last_seq)
        rendered = (
            json.dumps(export_view(entry, access), ensure_ascii=False, separators=(",", ":"))
            for entry in entries
        )

        async def lines() -> AsyncIterator[bytes]:
            try:
                async for batch in heavy_reads.iterate(rendered):
                    yield "\n".join(batch).encode() + b"\n"
            finally:
                release()
                await heavy_reads.run(lambda: heavy_reads.end_reads(session))

        stream = lines()
        # A stream never started (the client left before it) runs no finally: its slot is
        # given back when it is dropped.
        weakref.finalize(stream, release)

        filename = f"nocturne-{campaign_id}.ndjson"
        head = f"{campaign.last_seq}:{campaign.last_hash}"
        return StreamingResponse(
            stream,
            media_type=NDJSON,
            headers={
                "Content-Disposition": f'attachment; filename="{filename}"',
                # Give it to nocturne-verify --head so a cut-off export is caught.
                HEAD_HEADER: head,
            },
        )

    def opened_for_export(
        session: Session, user: User, campaign_id: uuid.UUID
    ) -> MemberAccess[Campaign]:
        access = readable_access(session, campaign_id, user)
        access.disclosed()  # read now, with the campaign
        return access

    @router.post(
        "/disclosures",
        status_code=201,
        response_model=models.entry,
        response_model_exclude_unset=True,
        operation_id="log-disclose",
        responses=problem_responses(401, 403, 404, 409, 422),
    )
    def create_disclosure(
        session: SessionDep,
        user: CurrentUser,
        campaign_id: uuid.UUID,
        data: DisclosureCreate,
        idempotency: IdempotencyDep,
        accept_language: AcceptLanguage = None,
    ) -> Response:
        """Disclose hidden entries to every member, with their keys and proofs (GM only)."""

        def work() -> dict[str, Any]:
            seqs = list(data.seqs)
            if data.from_seq is not None or data.to_seq is not None:
                if data.from_seq is None or data.to_seq is None or data.from_seq > data.to_seq:
                    raise Unprocessable("a range needs from_seq <= to_seq, both given")
                if data.to_seq - data.from_seq + 1 + len(seqs) > MAX_DISCLOSED:
                    raise Unprocessable(f"disclose at most {MAX_DISCLOSED} entries at once")
                seqs += range(data.from_seq, data.to_seq + 1)
            access = get_campaign_access(session, campaign_id, user, lock=True)
            entry = disclose(session, access, seqs)
            return public_view(entry, access, registry, negotiate_language(accept_language))

        return run_idempotent(session, user, str(campaign_id), idempotency, 201, work)

    @router.post(
        "/{seq}/apply",
        status_code=201,
        response_model=models.entry,
        response_model_exclude_unset=True,
        operation_id="log-apply-held-effects",
        responses=problem_responses(401, 403, 404, 409, 422),
    )
    def apply_held(
        session: SessionDep,
        user: CurrentUser,
        campaign_id: uuid.UUID,
        seq: Annotated[int, Path(ge=1, le=MAX_SEQ)],
        idempotency: IdempotencyDep,
        accept_language: AcceptLanguage = None,
    ) -> Response:
        """Apply a hidden roll's held changes to player sheets, then roll what it set off (GM)."""

        def work() -> dict[str, Any]:
            access = get_campaign_access(session, campaign_id, user, lock=True)
            entry = held_service.apply_held(session, access, registry, seq)
            return roll_view(entry, access, registry, negotiate_language(accept_language))

        return run_idempotent(session, user, str(campaign_id), idempotency, 201, work)

    return router
