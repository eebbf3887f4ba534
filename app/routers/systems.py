"""The rulesets the service runs."""

from typing import Any

from fastapi import APIRouter, Path
from pydantic import BaseModel, Field

from app.core.problems import NotFound, problem_responses
from app.core.security import CurrentUser
from app.engine.systems import RULESETS, SystemId
from app.routers.common import SessionRoute

router = APIRouter(prefix="/systems", tags=["systems"], route_class=SessionRoute)


class SystemSummary(BaseModel):
    id: SystemId
    name: str


class SystemsPublic(BaseModel):
    data: list[SystemSummary]
    count: int


class SystemDetail(SystemSummary):
    rules: str = Field(description="the rules reference file, rule ids quoted in every refusal")
    sheet_schema: dict[str, Any] = Field(description="JSON Schema of a character sheet")
    options_schema: dict[str, Any] = Field(description="JSON Schema of the campaign options")


@router.get(
    "",
    response_model=SystemsPublic,
    operation_id="systems-list",
    responses=problem_responses(401),
)
def list_systems(_: CurrentUser) -> SystemsPublic:
    """List the four rulesets a campaign can use."""
    data = [SystemSummary(id=r.id, name=r.name) for r in RULESETS.values()]
    return SystemsPublic(data=data, count=len(data))


@router.get(
    "/{system_id}",
    response_model=SystemDetail,
    operation_id="systems-get",
    responses=problem_responses(401, 404, 422),
)
def get_system(_: CurrentUser, system_id: str = Path(max_length=40)) -> SystemDetail:
    """Return a ruleset with the JSON Schemas of its character sheet and campaign options."""
    ruleset = RULESETS.get(system_id)
    if ruleset is None:
        raise NotFound(f"unknown system '{system_id}'; known systems: {', '.join(RULESETS)}")
    return SystemDetail(
        id=ruleset.id,
        name=ruleset.name,
        rules=ruleset.rules_file,
        sheet_schema=ruleset.sheet_schema(),
        options_schema=ruleset.options_schema(),
    )
