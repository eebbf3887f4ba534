"""Liveness and database reachability."""

from typing import Literal

from fastapi import APIRouter
from pydantic import BaseModel
from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError

from app.core.database import ReadSessionDep
from app.core.problems import ServiceUnavailable, problem_responses
from app.routers.common import SessionRoute

router = APIRouter(tags=["health"], route_class=SessionRoute)


class HealthPublic(BaseModel):
    status: Literal["ok"]
    database: Literal["ok"]


@router.get(
    "/health",
    response_model=HealthPublic,
    operation_id="health-get",
    responses=problem_responses(503),
)
def get_health(session: ReadSessionDep) -> HealthPublic:
    """Report that the service runs and its database answers (no authentication)."""
    try:
        session.exec(text("SELECT 1"))  # type: ignore[call-overload]
    except SQLAlchemyError as exc:
        raise ServiceUnavailable(
            f"the database is unreachable ({type(exc).__name__}); check DATABASE_URL",
            database="unreachable",
        ) from None
    return HealthPublic(status="ok", database="ok")
