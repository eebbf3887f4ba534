"""Odds and statistics: the exact probability of every outcome of a roll before it is
made, how lucky the rolls made were, and whether the dice look fair."""

import uuid
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Body, Query, Response
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel, Field, TypeAdapter
from sqlmodel import Session

from app.core.database import ReadSessionDep
from app.core.problems import problem_responses
from app.core.security import CurrentUser
from app.engine.odds import Odds
from app.engine.registry import Registry
from app.models.stats import StatsPublic
from app.models.typed import api_models
from app.routers.common import Filters, PlainCall, SessionRoute, ending_its_transaction, fast_path
from app.services.access import readable_access
from app.services.idempotency import json_response
from app.services.odds import campaign_odds
from app.services.stats import campaign_stats


class OddsPublic(BaseModel):
    """The exact odds of a roll, before it is made."""

    kind: str
    rules: str = Field(description="the rules version that would resolve it", examples=["coin@1"])
    odds: Odds


# What FastAPI's response_model does with the endpoint's answer: validate, then write JSON.
_ODDS_ANSWER = TypeAdapter(OddsPublic)


def build(registry: Registry) -> APIRouter:
    """The odds router for the kinds of this registry."""
    models = api_models(registry)
    # Documented with the rolls (the odds of one) and the log (its statistics).
    router = APIRouter(prefix="/campaigns/{campaign_id}", route_class=SessionRoute)

    def answer(session: Session, call: PlainCall) -> Response:
        found = campaign_odds(session, call.path["campaign_id"], call.user, registry, call.body)
        odds = _ODDS_ANSWER.validate_python(found)
        return json_response(_ODDS_ANSWER.dump_json(odds), 200)

    async def plain_odds(session: Session, call: PlainCall) -> Response:
        # Issue 23: a plain request (no request_id) skips FastAPI's solver (see fast_path).
        return await run_in_threadpool(ending_its_transaction(answer), session=session, call=call)

    @router.post(
        "/odds",
        tags=["rolls"],
        response_model=OddsPublic,
        operation_id="odds-compute",
        responses=problem_responses(401, 403, 404, 409, 422),
    )
    @fast_path(plain_odds, reads_only=True)
    def compute_odds(
        session: ReadSessionDep,
        user: CurrentUser,
        campaign_id: uuid.UUID,
        body: Annotated[models.roll_body, Body()],  # type: ignore[name-defined]
        request_id: Annotated[
            uuid.UUID | None,
            Query(description="the odds of an answer to this roll request, with the GM's values"),
        ] = None,
    ) -> Any:
        """The exact probability of every outcome the rules define for this roll: the same
        body as POST .../rolls, the character's sheet read as the roll would read it.
        Nothing is drawn or logged. A player may not ask for odds that read an NPC's values
        or an entry hidden from them (403)."""
        return campaign_odds(session, campaign_id, user, registry, body, request_id)

    @router.get(
        "/stats",
        tags=["log"],
        response_model=StatsPublic,
        operation_id="stats-get",
        responses=problem_responses(401, 404, 422),
    )
    def get_stats(
        session: ReadSessionDep,
        user: CurrentUser,
        campaign_id: uuid.UUID,
        filters: Filters,
        group_by: Annotated[
            Literal["actor", "character", "kind", "session", "scene"] | None,
            Query(description="also give the statistics of each actor, character, kind, ..."),
        ] = None,
    ) -> Any:
        """Statistics of the rolls the filters select: counts, observed against expected
        outcomes (each roll's own exact odds, summed), a chi-square goodness-of-fit test,
        the mean luck percentile, and per die size the face counts with a uniformity test.
        A player's statistics count what they may see; the GM's, everything."""
        access = readable_access(session, campaign_id, user)
        return campaign_stats(session, access, registry, filters, group_by)

    return router
