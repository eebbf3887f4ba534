"""Seed epochs: commitments, client seeds, rotation and reveal (FAIR-1..4)."""

import uuid

from fastapi import APIRouter, Response
from sqlmodel import Session

from app.core.database import SessionDep
from app.core.problems import problem_responses
from app.core.security import CurrentUser
from app.models import Campaign, SeedEpoch
from app.models.entries import ClientSeedUpdate, EpochPublic, FairnessPublic
from app.routers.common import SessionRoute
from app.services import log as log_service
from app.services.access import LockedCampaign, get_campaign_access, readable_access
from app.services.idempotency import IdempotencyDep, run_idempotent

router = APIRouter(
    prefix="/campaigns/{campaign_id}/fairness", tags=["fairness"], route_class=SessionRoute
)


def _epoch_public(epoch: SeedEpoch) -> EpochPublic:
    closed = epoch.closed_seq is not None
    return EpochPublic(
        epoch=epoch.number,
        commitment=epoch.commitment,
        client_seed=epoch.client_seed,
        first_seq=epoch.opened_seq,
        first_roll_seq=epoch.first_roll_seq,
        hidden_root=epoch.hidden_root,
        last_seq=epoch.closed_seq,
        # FAIR-2: the seed is shown only once its epoch is closed.
        server_seed=epoch.server_seed if closed else None,
    )


def fairness_view(session: Session, campaign: Campaign | LockedCampaign) -> FairnessPublic:
    epochs = log_service.list_epochs(session, campaign)
    current = next(e for e in epochs if e.number == campaign.current_epoch)
    return FairnessPublic(
        campaign_id=campaign.id,
        current=_epoch_public(current),
        past=[_epoch_public(e) for e in epochs if e.closed_seq is not None],
    )


@router.get(
    "",
    response_model=FairnessPublic,
    operation_id="fairness-get",
    responses=problem_responses(401, 404, 422),
)
def get_fairness(session: SessionDep, user: CurrentUser, campaign_id: uuid.UUID) -> FairnessPublic:
    """Show the current epoch's commitment and client seed, and past epochs' revealed seeds."""
    access = readable_access(session, campaign_id, user)
    if access.campaign.current_epoch == 0:  # a campaign from before the audit log
        # Its first epoch opens now: a write, in a transaction begun as a writer (on SQLite
        # a read transaction cannot become one once another writer has committed).
        session.rollback()
        session.connection(execution_options={"sqlite_begin": "IMMEDIATE"})
        locked = get_campaign_access(session, campaign_id, user, lock=True)
        log_service.current_epoch(session, locked)
        session.commit()
        return fairness_view(session, locked.campaign)
    return fairness_view(session, access.campaign)


@router.put(
    "/client-seed",
    response_model=FairnessPublic,
    operation_id="fairness-set-client-seed",
    responses=problem_responses(401, 404, 409, 422),
)
def set_client_seed(
    session: SessionDep, user: CurrentUser, campaign_id: uuid.UUID, data: ClientSeedUpdate
) -> FairnessPublic:
    """Set the current epoch's client seed (any member), until the epoch's first roll."""
    access = get_campaign_access(session, campaign_id, user, lock=True)
    log_service.set_client_seed(session, access, data.client_seed)
    session.commit()
    return fairness_view(session, access.campaign)


@router.post(
    "/rotate",
    status_code=201,
    response_model=FairnessPublic,
    operation_id="fairness-rotate",
    responses=problem_responses(401, 403, 404, 409, 422),
)
def rotate(
    session: SessionDep, user: CurrentUser, campaign_id: uuid.UUID, idempotency: IdempotencyDep
) -> Response:
    """Close and reveal the current epoch and open a new one (GM only)."""

    def work() -> FairnessPublic:
        # A campaign deleted before its seed was revealed may still be rotated by its GM.
        access = get_campaign_access(session, campaign_id, user, lock=True, include_deleted=True)
        log_service.rotate_epoch(session, access)
        session.flush()
        return fairness_view(session, access.campaign)

    return run_idempotent(session, user, str(campaign_id), idempotency, 201, work)
