"""Characters and their sheets."""

import uuid
from typing import Annotated, Any

from fastapi import APIRouter, Query, Response

from app.core.database import ReadSessionDep, SessionDep
from app.core.problems import problem_responses
from app.core.security import CurrentUser
from app.engine.registry import Registry
from app.models import CharacterCreate, CharacterUpdate
from app.models.character import CharacterKind
from app.models.typed import api_models
from app.routers.common import Limit, Offset, SessionRoute
from app.services import characters as service
from app.services.access import get_campaign_access, get_character_access
from app.services.idempotency import IdempotencyDep, run_idempotent


def build(registry: Registry) -> APIRouter:
    """The characters router, sheets typed by this registry's systems."""
    models = api_models(registry)
    router = APIRouter(tags=["characters"], route_class=SessionRoute)

    @router.post(
        "/campaigns/{campaign_id}/characters",
        status_code=201,
        response_model=models.character,
        operation_id="characters-create",
        responses=problem_responses(401, 403, 404, 409, 422),
    )
    def create_character(
        session: SessionDep,
        user: CurrentUser,
        campaign_id: uuid.UUID,
        data: CharacterCreate,
        idempotency: IdempotencyDep,
    ) -> Response:
        """Create a character; its sheet is validated by the campaign's ruleset."""

        def work() -> dict[str, Any]:
            access = get_campaign_access(session, campaign_id, user, lock=True)
            character = service.create_character(session, access, registry, data)
            session.flush()
            return service.character_public(character, access)

        return run_idempotent(session, user, str(campaign_id), idempotency, 201, work)

    @router.get(
        "/campaigns/{campaign_id}/characters",
        response_model=models.characters,
        operation_id="characters-list",
        responses=problem_responses(401, 404, 422),
    )
    def list_characters(
        session: ReadSessionDep,
        user: CurrentUser,
        campaign_id: uuid.UUID,
        kind: Annotated[CharacterKind | None, Query()] = None,
        owner_id: Annotated[uuid.UUID | None, Query()] = None,
        limit: Limit = 50,
        offset: Offset = 0,
    ) -> Any:
        """List the campaign's characters; players see NPCs without their sheets."""
        access = get_campaign_access(session, campaign_id, user)
        rows, count = service.list_characters(
            session, access, kind=kind, owner_id=owner_id, limit=limit, offset=offset
        )
        data = [service.character_public(c, access) for c in rows]
        return models.characters.model_validate({"data": data, "count": count})

    @router.get(
        "/characters/{character_id}",
        response_model=models.character,
        operation_id="characters-get",
        responses=problem_responses(401, 404, 422),
    )
    def get_character(session: ReadSessionDep, user: CurrentUser, character_id: uuid.UUID) -> Any:
        """Return one character."""
        character, access = get_character_access(session, character_id, user)
        return service.character_public(character, access)

    @router.patch(
        "/characters/{character_id}",
        response_model=models.character,
        operation_id="characters-update",
        responses=problem_responses(401, 403, 404, 422),
    )
    def update_character(
        session: SessionDep, user: CurrentUser, character_id: uuid.UUID, data: CharacterUpdate
    ) -> Any:
        """Edit a character; the sheet takes a JSON merge patch and is validated whole."""
        character, access = get_character_access(session, character_id, user, lock=True)
        service.update_character(session, access, registry, character, data)
        session.commit()
        return service.character_public(character, access)

    @router.delete(
        "/characters/{character_id}",
        status_code=204,
        response_class=Response,
        response_model=None,
        operation_id="characters-delete",
        responses=problem_responses(401, 403, 404, 422),
    )
    def delete_character(session: SessionDep, user: CurrentUser, character_id: uuid.UUID) -> None:
        """Retire a character (its owner or the GM); its past rolls stay in the log."""
        character, access = get_character_access(session, character_id, user, lock=True)
        service.delete_character(session, access, registry, character)
        session.commit()

    return router
