"""Combat encounters: roster, initiative, rounds and turns, actions through the roll kinds."""

import uuid

from fastapi import APIRouter, Response

from app.core.database import SessionDep
from app.core.problems import problem_responses
from app.core.security import CurrentUser
from app.models.encounter import (
    CombatantCreate,
    EncounterAction,
    EncounterActionPublic,
    EncounterCreate,
    EncounterPublic,
    EncountersPublic,
)
from app.routers.common import Limit, Offset, SessionRoute
from app.services import encounters as service
from app.services.access import get_campaign_access
from app.services.idempotency import IdempotencyDep, run_idempotent

router = APIRouter(tags=["encounters"], route_class=SessionRoute)

WRITE_ERRORS = problem_responses(401, 403, 404, 409, 422)


@router.post(
    "/campaigns/{campaign_id}/encounters",
    status_code=201,
    response_model=EncounterPublic,
    operation_id="encounters-create",
    responses=WRITE_ERRORS,
)
def create_encounter(
    session: SessionDep,
    user: CurrentUser,
    campaign_id: uuid.UUID,
    data: EncounterCreate,
    idempotency: IdempotencyDep,
) -> Response:
    """Set up an encounter with its combatants (GM only)."""

    def work() -> EncounterPublic:
        access = get_campaign_access(session, campaign_id, user, lock=True)
        encounter = service.create(session, access, data)
        return service.view(session, access, encounter)

    return run_idempotent(session, user, str(campaign_id), idempotency, 201, work)


@router.get(
    "/campaigns/{campaign_id}/encounters",
    response_model=EncountersPublic,
    operation_id="encounters-list",
    responses=problem_responses(401, 404, 422),
)
def list_encounters(
    session: SessionDep,
    user: CurrentUser,
    campaign_id: uuid.UUID,
    limit: Limit = 50,
    offset: Offset = 0,
) -> EncountersPublic:
    """List the campaign's encounters, newest first."""
    access = get_campaign_access(session, campaign_id, user)
    rows, count = service.list_encounters(session, access, limit=limit, offset=offset)
    return EncountersPublic(data=[service.view(session, access, e) for e in rows], count=count)


@router.get(
    "/encounters/{encounter_id}",
    response_model=EncounterPublic,
    operation_id="encounters-get",
    responses=problem_responses(401, 404, 422),
)
def get_encounter(
    session: SessionDep, user: CurrentUser, encounter_id: uuid.UUID
) -> EncounterPublic:
    """Return an encounter: status, round, turn order, whose turn, each combatant's condition."""
    encounter, access = service.load(session, user, encounter_id)
    return service.view(session, access, encounter)


def _write(
    session: SessionDep,
    user: CurrentUser,
    encounter_id: uuid.UUID,
    idempotency: IdempotencyDep,
    status: int,
    change: object,
) -> Response:
    def work() -> EncounterPublic:
        encounter, access = service.load(session, user, encounter_id, lock=True)
        change(session, access, encounter)  # type: ignore[operator]
        return service.view(session, access, encounter)

    scope = str(encounter_id)
    return run_idempotent(session, user, scope, idempotency, status, work)


@router.post(
    "/encounters/{encounter_id}/combatants",
    status_code=201,
    response_model=EncounterPublic,
    operation_id="encounters-add-combatant",
    responses=WRITE_ERRORS,
)
def add_combatant(
    session: SessionDep,
    user: CurrentUser,
    encounter_id: uuid.UUID,
    data: CombatantCreate,
    idempotency: IdempotencyDep,
) -> Response:
    """Add a combatant; mid-fight they get initiative by the system's rule (GM only)."""
    return _write(
        session,
        user,
        encounter_id,
        idempotency,
        201,
        lambda s, a, e: service.join(s, a, e, data),
    )


@router.delete(
    "/encounters/{encounter_id}/combatants/{character_id}",
    response_model=EncounterPublic,
    operation_id="encounters-remove-combatant",
    responses=WRITE_ERRORS,
)
def remove_combatant(
    session: SessionDep, user: CurrentUser, encounter_id: uuid.UUID, character_id: uuid.UUID
) -> Response:
    """A combatant leaves the fight (GM only)."""
    return _write(
        session,
        user,
        encounter_id,
        None,
        200,
        lambda s, a, e: service.leave(s, a, e, character_id),
    )


@router.post(
    "/encounters/{encounter_id}/initiative",
    response_model=EncounterPublic,
    operation_id="encounters-initiative",
    responses=WRITE_ERRORS,
)
def roll_initiative(
    session: SessionDep, user: CurrentUser, encounter_id: uuid.UUID, idempotency: IdempotencyDep
) -> Response:
    """Roll initiative by the system's rule and start round 1 (GM only).

    JDR Express: 2D6 + physique, once per scene (JDR-30a/31/31a). Fabulae Tenebris: cards
    1..10 drawn without replacement, ascending (FAB-61). Vampire: the sources give no rule,
    so the classic one: 1D10 + Dextérité + Astuce, highest first, ties to the higher
    Dextérité + Astuce, then a 1D10 roll-off.
    """
    return _write(session, user, encounter_id, idempotency, 200, service.start)


@router.post(
    "/encounters/{encounter_id}/actions",
    status_code=201,
    response_model=EncounterActionPublic,
    operation_id="encounters-act",
    responses=WRITE_ERRORS,
)
def act(
    session: SessionDep,
    user: CurrentUser,
    encounter_id: uuid.UUID,
    action: EncounterAction,
    idempotency: IdempotencyDep,
) -> Response:
    """Act on your turn with one of the system's roll kinds (`actor_id` + the roll's body)."""

    def work() -> EncounterActionPublic:
        encounter, access = service.load(session, user, encounter_id, lock=True)
        entry = service.act(session, access, encounter, action)
        return EncounterActionPublic(
            encounter=service.view(session, access, encounter),
            entry=service.action_view(access, entry),
        )

    return run_idempotent(session, user, str(encounter_id), idempotency, 201, work)


@router.post(
    "/encounters/{encounter_id}/next",
    response_model=EncounterPublic,
    operation_id="encounters-next",
    responses=WRITE_ERRORS,
)
def next_turn(
    session: SessionDep, user: CurrentUser, encounter_id: uuid.UUID, idempotency: IdempotencyDep
) -> Response:
    """Pass the turn; after the last combatant a new round begins."""
    return _write(session, user, encounter_id, idempotency, 200, service.next_turn)


@router.post(
    "/encounters/{encounter_id}/end",
    response_model=EncounterPublic,
    operation_id="encounters-end",
    responses=WRITE_ERRORS,
)
def end_encounter(
    session: SessionDep, user: CurrentUser, encounter_id: uuid.UUID, idempotency: IdempotencyDep
) -> Response:
    """End the encounter (GM only)."""
    return _write(session, user, encounter_id, idempotency, 200, service.end)
