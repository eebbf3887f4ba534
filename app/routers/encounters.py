"""Combat encounters: roster, initiative, rounds and turns, actions through the roll kinds."""

import json
import uuid
from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, Header, Query, Response
from sqlmodel import Session

from app.core.database import LookupSessionDep, ReadSessionDep, SessionDep
from app.core.problems import problem_responses
from app.core.security import CurrentUser
from app.engine.registry import Registry
from app.models import Encounter
from app.models.encounter import CombatantCreate, EncounterCreate, InitiativeCall, NextTurn
from app.models.typed import api_models
from app.routers.common import AcceptLanguage, Limit, Offset, SessionRoute, negotiate_language
from app.services import encounters as service
from app.services.access import CampaignAccess, LockedAccess, get_campaign_access
from app.services.encounter_guard import Expected, etag, version_of
from app.services.idempotency import IdempotencyDep, run_idempotent
from app.services.views import roll_view

WRITE_ERRORS = problem_responses(401, 403, 404, 409, 422)
Change = Callable[[Session, LockedAccess, Encounter], Any]
IfMatch = Annotated[
    str | None,
    Header(
        alias="If-Match",
        description="the encounter's ETag (its version) this write expects: 409 when it "
        "changed meanwhile (the turn guard)",
    ),
]
ETAG = {"ETag": {"description": "the encounter's version, quoted", "schema": {"type": "string"}}}


def tagged(response: Response, *path: str) -> Response:
    """The ETag of the encounter a successful answer holds (at `path` in its body)."""
    if response.status_code < 300:
        found: Any = json.loads(bytes(response.body))
        for key in path:
            found = found.get(key) if isinstance(found, dict) else None
        if isinstance(found, dict) and isinstance(found.get("version"), str):
            response.headers["ETag"] = etag(found["version"])
    return response


def build(registry: Registry) -> APIRouter:
    """The encounters router, actions typed by this registry's kinds."""
    models = api_models(registry)
    router = APIRouter(tags=["encounters"], route_class=SessionRoute)

    def encounter_view(
        session: Session, access: CampaignAccess, encounter: Encounter
    ) -> dict[str, Any]:
        """The encounter checked against its schema, as stored (no key added)."""
        view = models.encounter.model_validate(service.view(session, access, registry, encounter))
        return view.model_dump(mode="json", exclude_unset=True)

    def write(
        session: Session,
        user: CurrentUser,
        encounter_id: uuid.UUID,
        idempotency: IdempotencyDep,
        status: int,
        change: Change,
        expected: Expected,
    ) -> Response:
        def work() -> Any:
            encounter, access = service.load(
                session, user, encounter_id, lock=True, expected=expected
            )
            change(session, access, encounter)
            return encounter_view(session, access, encounter)

        return tagged(run_idempotent(session, user, str(encounter_id), idempotency, status, work))

    @router.post(
        "/campaigns/{campaign_id}/encounters",
        status_code=201,
        response_model=models.encounter,
        operation_id="encounters-create",
        responses={**WRITE_ERRORS, 201: {"headers": ETAG}},
    )
    def create_encounter(
        session: SessionDep,
        user: CurrentUser,
        campaign_id: uuid.UUID,
        data: EncounterCreate,
        idempotency: IdempotencyDep,
    ) -> Response:
        """Set up an encounter with its combatants (GM only)."""

        def work() -> Any:
            access = get_campaign_access(session, campaign_id, user, lock=True)
            encounter = service.create(session, access, registry, data)
            return encounter_view(session, access, encounter)

        return tagged(run_idempotent(session, user, str(campaign_id), idempotency, 201, work))

    @router.get(
        "/campaigns/{campaign_id}/encounters",
        response_model=models.encounters,
        response_model_exclude_unset=True,
        operation_id="encounters-list",
        responses=problem_responses(401, 404, 422),
    )
    def list_encounters(
        session: ReadSessionDep,
        user: CurrentUser,
        campaign_id: uuid.UUID,
        limit: Limit = 50,
        offset: Offset = 0,
    ) -> Any:
        """List the campaign's encounters, newest first."""
        access = get_campaign_access(session, campaign_id, user)
        rows, count = service.list_encounters(session, access, limit=limit, offset=offset)
        data = [service.view(session, access, registry, e) for e in rows]
        return models.encounters.model_validate({"data": data, "count": count})

    @router.get(
        "/encounters/{encounter_id}",
        response_model=models.encounter,
        response_model_exclude_unset=True,
        operation_id="encounters-get",
        responses={**problem_responses(401, 404, 422), 200: {"headers": ETAG}},
    )
    def get_encounter(
        session: ReadSessionDep, user: CurrentUser, encounter_id: uuid.UUID, response: Response
    ) -> Any:
        """Return an encounter: status, round, turn order, whose turn, each combatant's
        condition, its version (also the ETag header)."""
        encounter, access = service.load(session, user, encounter_id)
        response.headers["ETag"] = etag(version_of(encounter))
        return encounter_view(session, access, encounter)

    @router.post(
        "/encounters/{encounter_id}/combatants",
        status_code=201,
        response_model=models.encounter,
        operation_id="encounters-add-combatant",
        responses={**WRITE_ERRORS, 201: {"headers": ETAG}},
    )
    def add_combatant(
        session: SessionDep,
        user: CurrentUser,
        encounter_id: uuid.UUID,
        data: CombatantCreate,
        idempotency: IdempotencyDep,
        if_match: IfMatch = None,
    ) -> Response:
        """Add a combatant; mid-fight they get initiative by the system's rule (GM only)."""
        return write(
            session,
            user,
            encounter_id,
            idempotency,
            201,
            lambda s, a, e: service.join(s, a, registry, e, data),
            Expected(if_match),
        )

    @router.delete(
        "/encounters/{encounter_id}/combatants/{character_id}",
        response_model=models.encounter,
        operation_id="encounters-remove-combatant",
        responses={**WRITE_ERRORS, 200: {"headers": ETAG}},
    )
    def remove_combatant(
        session: SessionDep,
        user: CurrentUser,
        encounter_id: uuid.UUID,
        character_id: uuid.UUID,
        if_match: IfMatch = None,
    ) -> Response:
        """A combatant leaves the fight, passing the turn on if it was theirs (GM only)."""
        return write(
            session,
            user,
            encounter_id,
            None,
            200,
            lambda s, a, e: service.leave(s, a, registry, e, character_id),
            Expected(if_match),
        )

    @router.post(
        "/encounters/{encounter_id}/initiative",
        response_model=models.encounter,
        operation_id="encounters-initiative",
        responses={**WRITE_ERRORS, 200: {"headers": ETAG}},
    )
    def roll_initiative(
        session: SessionDep,
        user: CurrentUser,
        encounter_id: uuid.UUID,
        idempotency: IdempotencyDep,
        call: Annotated[InitiativeCall | None, Body()] = None,
        if_match: IfMatch = None,
    ) -> Response:
        """Roll initiative by the system's rule and start round 1 (GM only).

        JDR Express: 2D6 + physique, once per scene (JDR-30a/31/31a); `tie_order` gives the
        players' order between tied PCs. Fabulae Tenebris: cards 1..10 drawn without
        replacement, ascending (FAB-61). Vampire: the sources give no rule, so the classic
        one: 1D10 + Dextérité + Astuce, highest first, ties to the higher Dextérité +
        Astuce, then a 1D10 roll-off.
        """
        tie_order = call.tie_order if call is not None else None
        return write(
            session,
            user,
            encounter_id,
            idempotency,
            200,
            lambda s, a, e: service.start(s, a, registry, e, tie_order),
            Expected(if_match),
        )

    def member(session: LookupSessionDep, user: CurrentUser, encounter_id: uuid.UUID) -> None:
        """404 for a non-member before the action's body is read: they learn nothing of it."""
        service.load(session, user, encounter_id)
        session.rollback()  # a read only: no transaction is held until the action runs

    @router.post(
        "/encounters/{encounter_id}/actions",
        status_code=201,
        response_model=models.action_public,
        operation_id="encounters-act",
        responses={**WRITE_ERRORS, 201: {"headers": ETAG}},
    )
    def act(
        session: SessionDep,
        user: CurrentUser,
        encounter_id: uuid.UUID,
        _member: Annotated[None, Depends(member)],
        action: models.action,  # type: ignore[name-defined]
        idempotency: IdempotencyDep,
        accept_language: AcceptLanguage = None,
        request_id: Annotated[
            uuid.UUID | None,
            Query(description="the GM's roll request this action answers: its values apply"),
        ] = None,
        if_match: IfMatch = None,
    ) -> Response:
        """Act on your turn with one of the system's roll kinds (`actor_id` + the roll's
        body)."""
        expected = Expected(if_match, action.expected_turn)

        def work() -> Any:
            encounter, access = service.load(
                session, user, encounter_id, lock=True, expected=expected
            )
            entry = service.act(session, access, registry, encounter, action, request_id)
            return {
                "encounter": service.view(session, access, registry, encounter),
                "entry": roll_view(entry, access, registry, negotiate_language(accept_language)),
            }

        return tagged(
            run_idempotent(session, user, str(encounter_id), idempotency, 201, work), "encounter"
        )

    @router.post(
        "/encounters/{encounter_id}/next",
        response_model=models.encounter,
        operation_id="encounters-next",
        responses={**WRITE_ERRORS, 200: {"headers": ETAG}},
    )
    def next_turn(
        session: SessionDep,
        user: CurrentUser,
        encounter_id: uuid.UUID,
        idempotency: IdempotencyDep,
        data: Annotated[NextTurn | None, Body()] = None,
        if_match: IfMatch = None,
    ) -> Response:
        """Pass the turn; after the last combatant a new round begins."""
        expected_turn = data.expected_turn if data is not None else None
        return write(
            session,
            user,
            encounter_id,
            idempotency,
            200,
            lambda s, a, e: service.next_turn(s, a, registry, e),
            Expected(if_match, expected_turn),
        )

    @router.post(
        "/encounters/{encounter_id}/end",
        response_model=models.encounter,
        operation_id="encounters-end",
        responses={**WRITE_ERRORS, 200: {"headers": ETAG}},
    )
    def end_encounter(
        session: SessionDep,
        user: CurrentUser,
        encounter_id: uuid.UUID,
        idempotency: IdempotencyDep,
        if_match: IfMatch = None,
    ) -> Response:
        """End the encounter (GM only)."""
        return write(session, user, encounter_id, idempotency, 200, service.end, Expected(if_match))

    return router
