"""Odds and statistics: the exact probability of every outcome of a roll before it is
made, how lucky the rolls made were, and whether the dice look fair."""

import uuid
from typing import Annotated, Any

from fastapi import APIRouter, Body
from pydantic import BaseModel, Field

from app.core.database import SessionDep
from app.core.problems import problem_responses
from app.core.security import CurrentUser
from app.engine.odds import Odds
from app.engine.registry import Registry
from app.models.typed import api_models
from app.routers.common import SessionRoute
from app.services.access import get_campaign_access
from app.services.odds import roll_odds


class OddsPublic(BaseModel):
    """The exact odds of a roll, before it is made."""

    kind: str
    rules: str = Field(description="the rules version that would resolve it", examples=["coin@1"])
    odds: Odds


def build(registry: Registry) -> APIRouter:
    """The odds router for the kinds of this registry."""
    models = api_models(registry)
    # Documented with the rolls (the odds of one) and the log (its statistics).
    router = APIRouter(prefix="/campaigns/{campaign_id}", route_class=SessionRoute)

    @router.post(
        "/odds",
        tags=["rolls"],
        response_model=OddsPublic,
        operation_id="odds-compute",
        responses=problem_responses(401, 403, 404, 409, 422),
    )
    def compute_odds(
        session: SessionDep,
        user: CurrentUser,
        campaign_id: uuid.UUID,
        body: Annotated[models.roll_body, Body()],  # type: ignore[name-defined]
    ) -> Any:
        """The exact probability of every outcome the rules define for this roll: the same
        body as POST .../rolls, the character's sheet read as the roll would read it.
        Nothing is drawn or logged. A player may not ask for odds that read an NPC's values
        or an entry hidden from them (403)."""
        access = get_campaign_access(session, campaign_id, user)
        return roll_odds(session, access, registry, body)

    return router
