"""The rulesets the service runs, and their rules reference."""

from pathlib import Path as FilePath
from typing import Any

from fastapi import APIRouter, Path, Response
from pydantic import BaseModel, Field

from app.core.problems import NotFound, ServiceUnavailable, problem_responses
from app.core.security import CurrentUser
from app.engine.contract import Ruleset, System
from app.engine.registry import Registry
from app.routers.common import SessionRoute


def rules_dir() -> FilePath | None:
    """docs/rules/ beside the source tree, or in the working directory (an installed app)."""
    for base in (FilePath(__file__).resolve().parents[2], FilePath.cwd()):
        if (base / "docs" / "rules").is_dir():
            return base / "docs" / "rules"
    return None


FAIRNESS_DOCUMENT = "fairness"
MARKDOWN = "text/markdown; charset=utf-8"


class SystemSummary(BaseModel):
    id: str
    name: str
    ruleset: str = Field(description="the ruleset that runs it, e.g. jdr-express")
    rules_version: str = Field(description="the version entries record, e.g. jdr-express@3")


class SystemsPublic(BaseModel):
    data: list[SystemSummary]
    count: int


class ChoicePublic(BaseModel):
    """A body field (a dotted path for a nested one) and the rule that says whose it is."""

    field: str
    rule: str
    character: str | None = None


class KindPublic(BaseModel):
    kind: str
    title: str
    is_roll: bool = Field(description="draws dice: freezes the client seed, listed by GET /rolls")
    posted: bool = Field(description="sent to POST .../rolls (others the service makes itself)")
    gm_only: bool
    reaction: bool = Field(description="may come out of turn in an encounter")
    gm_decides: list[ChoicePublic] = Field(
        description="body fields the GM decides: a player sets them answering a roll request "
        "or under the campaign option players_set_difficulty"
    )
    other_side: list[ChoicePublic] = Field(
        description="body fields that are the other side's choices, made by whoever plays "
        "that character (`character`: the field naming it)"
    )
    roller_decides: list[ChoicePublic] = Field(
        description="the roller's own spending, which a roll request does not set"
    )


class LabelPublic(BaseModel):
    en: str
    fr: str


class SystemDetail(SystemSummary):
    rules: str = Field(description="the rules reference (Markdown), rule ids quoted in refusals")
    sheet_schema: dict[str, Any] = Field(description="JSON Schema of a character sheet")
    options_schema: dict[str, Any] = Field(description="JSON Schema of the campaign options")
    kinds: list[KindPublic] = Field(description="the entry kinds a campaign of it can hold")
    labels: dict[str, dict[str, LabelPublic]] = Field(
        description="group (tier, outcome, state…) → stable code → label in each language"
    )


def _markdown(document: str) -> Response:
    folder = rules_dir()
    if folder is None:
        raise ServiceUnavailable(
            "the rules reference (docs/rules/) is not installed beside this service; "
            "install it from the project's repository"
        )
    return Response((folder / f"{document}.md").read_text(encoding="utf-8"), media_type=MARKDOWN)


def build(registry: Registry) -> APIRouter:
    """The systems router, and the rules reference, for this registry."""
    router = APIRouter(tags=["systems"], route_class=SessionRoute)
    documents = {
        ruleset.document.removesuffix(".md"): ruleset
        for ruleset in registry.rulesets
        if ruleset.document is not None
    }

    def known_system(system_id: str) -> tuple[Ruleset, System]:
        """The system, or 404 naming the known ones."""
        if not registry.has_system(system_id):
            known = ", ".join(system.id for _, system in registry.systems)
            raise NotFound(f"unknown system '{system_id}'; known systems: {known}")
        return registry.system(system_id)

    def summary(system_id: str) -> SystemSummary:
        ruleset, system = registry.system(system_id)
        return SystemSummary(
            id=system.id, name=system.name, ruleset=ruleset.id, rules_version=ruleset.rules_id
        )

    @router.get(
        "/systems",
        response_model=SystemsPublic,
        operation_id="systems-list",
        responses=problem_responses(401),
    )
    def list_systems(_: CurrentUser) -> SystemsPublic:
        """List the systems a campaign can play."""
        data = [summary(system.id) for _, system in registry.systems]
        return SystemsPublic(data=data, count=len(data))

    @router.get(
        "/systems/{system_id}",
        response_model=SystemDetail,
        operation_id="systems-get",
        responses=problem_responses(401, 404, 422),
    )
    def get_system(_: CurrentUser, system_id: str = Path(max_length=40)) -> SystemDetail:
        """Return a system: its sheet and options schemas, its entry kinds and their labels."""
        ruleset, system = known_system(system_id)
        kinds = [
            KindPublic(
                kind=kind.name,
                title=kind.title,
                is_roll=kind.is_roll,
                posted=kind.body is not None,
                gm_only=kind.gm_only is not None,
                reaction=kind.reaction,
                gm_decides=[ChoicePublic(field=f, rule=r) for f, r in kind.gm_decides],
                other_side=[
                    ChoicePublic(field=f, rule=r, character=c) for f, c, r in kind.other_side
                ],
                roller_decides=[ChoicePublic(field=f, rule=r) for f, r in kind.roller_decides],
            )
            for kind in registry.campaign_kinds(system_id)
        ]
        return SystemDetail(
            id=system.id,
            name=system.name,
            ruleset=ruleset.id,
            rules_version=ruleset.rules_id,
            rules=f"/api/v1/systems/{system_id}/rules",
            sheet_schema=system.sheet.model_json_schema(),
            options_schema=system.options.model_json_schema(),
            kinds=kinds,
            labels=_labels(ruleset.labels),
        )

    @router.get(
        "/systems/{system_id}/rules",
        response_class=Response,
        operation_id="systems-rules",
        responses={
            200: {"description": "the rules reference", "content": {MARKDOWN: {}}},
            **problem_responses(404, 422),
        },
    )
    def get_system_rules(system_id: str = Path(max_length=40)) -> Response:
        """Return the system's rules reference as Markdown; each rule has an anchor (#JDR-22)."""
        ruleset, _ = known_system(system_id)
        if ruleset.document is None:
            raise NotFound(f"{ruleset.name} has no rules reference")
        return _markdown(ruleset.document.removesuffix(".md"))

    @router.get(
        "/rules/{document}",
        response_class=Response,
        operation_id="rules-get",
        responses={
            200: {"description": "a rules reference", "content": {MARKDOWN: {}}},
            **problem_responses(404, 422),
        },
    )
    def get_rules(document: str = Path(max_length=40)) -> Response:
        """Return a rules reference as Markdown: a ruleset's, or `fairness` (FAIR-1..21)."""
        if document != FAIRNESS_DOCUMENT and document not in documents:
            known = ", ".join([*documents, FAIRNESS_DOCUMENT])
            raise NotFound(f"no rules reference '{document}'; the references are {known}")
        return _markdown(document)

    return router


def _labels(labels: Any) -> dict[str, dict[str, LabelPublic]]:
    return {
        group: {code: LabelPublic(en=label.en, fr=label.fr) for code, label in codes.items()}
        for group, codes in labels.items()
    }
