"""RFC 9457 problem details: the one shape of every error the API returns."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from sqlalchemy.exc import InterfaceError, OperationalError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from app.engine.errors import EngineError, InvalidInput, NotPermitted, RuleRefusal
from app.engine.registry import RULE_ID, Registry

PROBLEM_MEDIA_TYPE = "application/problem+json"
logger = logging.getLogger("nocturne.errors")


class FieldError(BaseModel):
    """One offending field of a request."""

    loc: list[str | int] = Field(description="path to the field, e.g. ['body', 'sheet', 'traits']")
    msg: str
    type: str


class Problem(BaseModel):
    """An RFC 9457 problem: `detail` says what to change."""

    type: str = Field(default="about:blank", description="URI identifying the problem type")
    title: str
    status: int
    detail: str
    instance: str | None = None
    rule: str | None = Field(default=None, description="id of the rule that refused the request")
    rule_url: str | None = Field(
        default=None, description="where the rules reference states that rule (Markdown)"
    )
    seq: int | None = Field(
        default=None, description="the entry that records a refused attempt (FAB-14)"
    )
    errors: list[FieldError] | None = Field(default=None, description="the offending fields")


class ProblemError(Exception):
    """Raised by the service layer; rendered as problem+json."""

    status = 400
    title = "Bad Request"
    type = "about:blank"

    def __init__(
        self,
        detail: str,
        *,
        headers: dict[str, str] | None = None,
        rule: str | None = None,
        **extra: Any,
    ) -> None:
        super().__init__(detail)
        self.detail = detail
        self.headers = headers
        self.rule = rule
        self.extra = extra


class Unauthorized(ProblemError):
    status, title = 401, "Unauthorized"


class Forbidden(ProblemError):
    status, title = 403, "Forbidden"


class NotFound(ProblemError):
    status, title = 404, "Not Found"


class Conflict(ProblemError):
    status, title = 409, "Conflict"


class Gone(ProblemError):
    status, title = 410, "Gone"


class Unprocessable(ProblemError):
    status, title = 422, "Unprocessable Content"


class TooManyRequests(ProblemError):
    status, title = 429, "Too Many Requests"
    type = "urn:nocturne:problem:rate-limited"


class ServiceUnavailable(ProblemError):
    status, title = 503, "Service Unavailable"


# Rule prefix → the rules reference that holds it; every app adds its registry's.
_RULE_DOCUMENTS: dict[str, str] = {"FAIR": "fairness"}


def index_rule_documents(registry: Registry) -> None:
    """Learn which rules reference states each rule id of these rulesets."""
    for ruleset in registry.rulesets:
        if ruleset.document is not None:
            for prefix in ruleset.rule_prefixes:
                _RULE_DOCUMENTS[prefix] = ruleset.document.removesuffix(".md")


def rule_url(rule: str | None) -> str | None:
    """The rule's anchor in its rules reference, e.g. /api/v1/rules/jdr-express#JDR-22."""
    match = RULE_ID.fullmatch(rule) if rule else None
    document = _RULE_DOCUMENTS.get(match["prefix"]) if match else None
    return f"/api/v1/rules/{document}#{rule}" if document else None


def engine_problem(exc: EngineError) -> tuple[int, dict[str, Any]]:
    """The status and problem body of an engine error (a refusal, invalid input, ...)."""
    if isinstance(exc, RuleRefusal):
        status, type_ = 409, "urn:nocturne:problem:rule-refusal"
    elif isinstance(exc, InvalidInput):
        status, type_ = 422, "urn:nocturne:problem:invalid-input"
    elif isinstance(exc, NotPermitted):
        status, type_ = 403, "about:blank"
    else:
        status, type_ = 500, "urn:nocturne:problem:engine-error"
        logger.error("engine error: %s", exc.detail)
    body: dict[str, Any] = {
        "type": type_,
        "title": exc.title,
        "status": status,
        "detail": exc.detail,
    }
    extra = {
        "rule": exc.rule,
        "rule_url": rule_url(exc.rule),
        "errors": exc.errors or None,
        "seq": exc.recorded_seq if isinstance(exc, RuleRefusal) else None,
    }
    body.update({key: value for key, value in extra.items() if value is not None})
    return status, body


def problem_response(
    status: int,
    title: str,
    detail: str,
    *,
    type_: str = "about:blank",
    headers: Mapping[str, str] | None = None,
    **extra: Any,
) -> JSONResponse:
    body: dict[str, Any] = {"type": type_, "title": title, "status": status, "detail": detail}
    if extra.get("rule"):
        extra["rule_url"] = rule_url(extra["rule"])
    body.update({key: value for key, value in extra.items() if value is not None})
    return JSONResponse(body, status_code=status, media_type=PROBLEM_MEDIA_TYPE, headers=headers)


def _json_safe_loc(loc: Any) -> list[str | int]:
    return [part if isinstance(part, int) else str(part) for part in loc]


async def _problem_error(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ProblemError)
    return problem_response(
        exc.status,
        exc.title,
        exc.detail,
        type_=exc.type,
        headers=exc.headers,
        rule=exc.rule,
        **exc.extra,
    )


async def _engine_error(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, EngineError)
    status, body = engine_problem(exc)
    return JSONResponse(body, status_code=status, media_type=PROBLEM_MEDIA_TYPE)


async def _validation_error(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    errors = [
        {"loc": _json_safe_loc(err.get("loc", ())), "msg": str(err.get("msg")), "type": err["type"]}
        for err in exc.errors()
    ]
    summary = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in errors[:5])
    if len(errors) > 5:
        summary += f"; and {len(errors) - 5} more"
    return problem_response(
        422,
        "Unprocessable Content",
        f"the request is invalid: {summary}",
        type_="urn:nocturne:problem:validation-error",
        errors=errors,
    )


async def _http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    title = {404: "Not Found", 405: "Method Not Allowed", 401: "Unauthorized"}.get(
        exc.status_code, "HTTP error"
    )
    detail = exc.detail if isinstance(exc.detail, str) else str(exc.detail)
    if exc.status_code == 400 and detail == "There was an error parsing the body":
        # Same status as FastAPI's other malformed-JSON errors, so clients handle one case.
        return problem_response(
            422,
            "Unprocessable Content",
            "the request body is not valid UTF-8 JSON",
            type_="urn:nocturne:problem:validation-error",
        )
    if exc.status_code == 404 and detail == "Not Found":
        detail = "no such endpoint; the API is described at /docs and /openapi.json"
    headers = exc.headers
    if exc.status_code == 405:
        # Every method the path takes, across the routes that share it (the router names
        # only the first route's).
        allowed = allowed_methods(request)
        headers = {**(headers or {}), "Allow": ", ".join(allowed)}
        detail = f"{request.method} is not allowed here; this path takes {', '.join(allowed)}"
    return problem_response(exc.status_code, title, detail, headers=headers)


def allowed_methods(request: Request) -> list[str]:
    """The methods some route of the app takes for this path, as the router would match."""
    routes = request.app.router.routes
    return [
        method
        for method in ("DELETE", "GET", "PATCH", "POST", "PUT")
        if any(r.matches({**request.scope, "method": method})[0] == Match.FULL for r in routes)
    ]


async def _database_unavailable(_: Request, exc: Exception) -> JSONResponse:
    """The database dropped or refused the connection (or SQLite stayed locked): the
    request changed nothing; the pool discards the broken connection by itself."""
    logger.warning("database unavailable: %s", type(exc).__name__)
    return problem_response(
        503,
        "Service Unavailable",
        "the database is unavailable for a moment; nothing was changed, retry shortly",
        headers={"Retry-After": "5"},
    )


async def _unexpected_error(_: Request, exc: Exception) -> JSONResponse:
    logger.exception("unhandled error", exc_info=exc)
    return problem_response(
        500,
        "Internal Server Error",
        "the server failed to handle this request; it was logged, please report it",
    )


def install_problem_handlers(app: FastAPI) -> None:
    app.add_exception_handler(ProblemError, _problem_error)
    app.add_exception_handler(EngineError, _engine_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(OperationalError, _database_unavailable)
    app.add_exception_handler(InterfaceError, _database_unavailable)
    app.add_exception_handler(Exception, _unexpected_error)


def problem_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI `responses` entries documenting problem+json errors."""
    descriptions = {
        400: "Bad request",
        401: "Missing or unknown API key",
        403: "The caller's role does not allow this",
        404: "Not found, or not visible to the caller",
        409: "Refused by a rule or by the current state",
        410: "No longer usable (a revoked, used-up or expired invitation)",
        422: "Invalid input; `errors` lists the offending fields",
        429: "Over a rate limit; retry after `Retry-After` seconds",
        503: "The database is unreachable",
    }
    schema = {"$ref": "#/components/schemas/Problem"}
    return {
        status: {
            "description": descriptions.get(status, "Error"),
            "content": {PROBLEM_MEDIA_TYPE: {"schema": schema}},
        }
        for status in statuses
    }
