"""What the routers share: the route class of every endpoint, and common query parameters."""

import functools
import inspect
import json
import uuid
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Annotated, Any, TypeVar

from fastapi import Depends, Header, Query, Request, Response
from fastapi.routing import APIRoute
from fastapi.security.utils import get_authorization_scheme_param
from sqlmodel import Session

from app.core.database import (
    close_session,
    get_db,
    get_lookup_session,
    get_read_session,
    open_request_session,
)
from app.core.problems import Unprocessable
from app.core.security import bearer, get_current_user, hash_api_key, verified_keys
from app.engine.contract import Language, Visibility
from app.models import User
from app.services.idempotency import idempotency_request
from app.services.log import EntryFilters

MAX_PAGE_SIZE = 200

Limit = Annotated[int, Query(ge=1, le=MAX_PAGE_SIZE, description="page size (≤ 200)")]
Offset = Annotated[int, Query(ge=0, le=1_000_000, description="rows to skip")]


def ending_its_transaction(endpoint: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(endpoint)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return endpoint(*args, **kwargs)
        finally:
            for session in kwargs.values():
                if isinstance(session, Session) and session.in_transaction():
                    # Nothing uncommitted is kept; what the response reads stays loaded.
                    session.expunge_all()
                    session.rollback()

    return run


class SessionRoute(APIRoute):
    """A route whose sync endpoint ends its session's transaction before leaving its thread.

    FastAPI validates a sync endpoint's response in another thread of the pool. A session
    still in its transaction would hold its pooled connection while it waits for that
    thread; once every thread waits for a connection, the worker stalls until the pool
    times out. Writes commit in their service; this ends the reads.
    """

    def __init__(self, path: str, endpoint: Callable[..., Any], **kwargs: Any) -> None:
        if not inspect.iscoroutinefunction(endpoint):
            endpoint = ending_its_transaction(endpoint)
        super().__init__(path, endpoint, **kwargs)

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()
        fast: FastPath | None = getattr(self.endpoint, FAST_PATH, None)
        if fast is None:
            return handler
        reads_only: bool = getattr(self.endpoint, FAST_PATH_READS_ONLY)
        check_fast_path_resolves(self, reads_only)
        route = self

        async def app(request: Request) -> Response:
            call = await plain_call(request, route)
            if call is None:
                return await handler(request)
            override = session_override(request, get_read_session if reads_only else get_db)
            if override is None:
                return await handler(request)
            if override is not False:
                with contextmanager(override)() as session:  # type: ignore[arg-type]
                    return await fast(session, call)
            session = open_request_session(request.method, reads_only=reads_only)
            try:
                return await fast(session, call)
            finally:
                await close_session(session)

        return app


# --- the fast path of plain requests (issue 23) ---------------------------------------------


@dataclass(frozen=True)
class PlainCall:
    """What a plain request's endpoint is called with, resolved without FastAPI's solver."""

    user: User
    path: dict[str, Any]
    body: Any
    language: Language


FastPath = Callable[[Session, PlainCall], Awaitable[Response]]
# What plain_call stands in for: the session, the bearer key and its user, and an
# Idempotency-Key (a plain request has none); check_fast_path_resolves holds endpoints to it.
FAST_PATH_RESOLVES: frozenset[Any] = frozenset(
    {get_db, get_read_session, get_current_user, get_lookup_session, bearer, idempotency_request}
)
FAST_PATH = "__nocturne_fast_path__"
FAST_PATH_READS_ONLY = "__nocturne_fast_path_reads_only__"
Endpoint = TypeVar("Endpoint", bound=Callable[..., Any])


def fast_path(handler: FastPath, *, reads_only: bool = False) -> Callable[[Endpoint], Endpoint]:
    """Mark an endpoint of a SessionRoute: its plain requests go to `handler`.

    FastAPI's dependency solver costs a request more than what it resolves (for an audited
    roll, 23% of a worker's time: the session, the bearer key, five parameters, the body).
    A plain request (see plain_call) is resolved here in one place with the route's own
    fields; any other request, and every error, goes through FastAPI as before, so the
    answers, the errors and the OpenAPI document stay the same. A handler that only reads
    says so (`reads_only`): its session is a ReadSession, which refuses writes.
    """

    def mark(endpoint: Endpoint) -> Endpoint:
        setattr(endpoint, FAST_PATH, handler)
        setattr(endpoint, FAST_PATH_READS_ONLY, reads_only)
        return endpoint

    return mark


def check_fast_path_resolves(route: APIRoute, reads_only: bool) -> None:
    """Refuse, when the app is built, a fast path on an endpoint with a dependency or a
    header plain_call does not resolve: a check added later as a dependency would
    otherwise be skipped for plain requests. Its session is the endpoint's own kind: a
    ReadSession for a fast path that only reads, the session of get_db for the others."""
    calls: set[Any] = set()
    headers = {header.alias for header in route.dependant.header_params}
    stack = list(route.dependant.dependencies)
    while stack:
        dependency = stack.pop()
        calls.add(dependency.call)
        stack.extend(dependency.dependencies)
    unknown = [str(getattr(c, "__name__", c)) for c in calls - FAST_PATH_RESOLVES]
    unknown += sorted(headers - {"Accept-Language"})
    other_session = get_db if reads_only else get_read_session
    if other_session in calls:
        unknown.append(f"{other_session.__name__} (the fast path's session is the other kind)")
    if unknown:
        raise RuntimeError(
            f"{route.path}: its fast path does not resolve {', '.join(unknown)}: resolve "
            "them in plain_call, or leave the endpoint to FastAPI"
        )


async def plain_call(request: Request, route: APIRoute) -> PlainCall | None:
    """The caller, path values, body and language of a plain request, or None.

    Plain: no query string, no Idempotency-Key, an Accept-Language FastAPI would accept, a
    bearer key found among the recently verified ones, path values and a JSON body (sent as
    application/json) the route's own fields accept. Anything else (a key to look up, a
    value to refuse) is FastAPI's to answer.
    """
    if request.scope.get("query_string"):
        return None
    headers = request.headers
    if "idempotency-key" in headers:
        return None
    accept_language = headers.get("accept-language")
    if accept_language is not None and len(accept_language) > MAX_ACCEPT_LANGUAGE:
        return None
    scheme, credentials = get_authorization_scheme_param(headers.get("authorization"))
    if scheme.lower() != "bearer" or not credentials:
        return None
    user = verified_keys.get(hash_api_key(credentials))
    if user is None:
        return None
    path: dict[str, Any] = {}
    path_params = request.path_params
    for field in route.dependant.path_params:
        value, errors = field.validate(path_params.get(field.alias), {}, loc=("path", field.alias))
        if errors:
            return None
        path[field.name] = value
    body: Any = None
    if route.body_field is not None:
        if headers.get("content-type") != "application/json":
            return None
        try:
            data = json.loads(await request.body())
        except ValueError:
            return None
        body, errors = route.body_field.validate(data, {}, loc=("body",))
        if errors:
            return None
    return PlainCall(user, path, body, negotiate_language(accept_language))


def session_override(
    request: Request, dependency: Callable[..., Any]
) -> Callable[[], Iterator[Session]] | bool | None:
    """How the fast path gets its session: False when nothing it resolves is overridden
    (it opens one as `dependency`, get_db or get_read_session, does), the override of
    `dependency` when it is a plain generator (the tests' session, followed as FastAPI
    would), or None when it cannot follow the overrides (FastAPI's path then)."""
    app = request.scope.get("app")
    overrides: dict[Any, Any] = getattr(app, "dependency_overrides", None) or {}
    if not overrides:
        return False
    if get_current_user in overrides:
        return None
    override = overrides.get(dependency)
    if override is None:
        return False
    if inspect.isgeneratorfunction(override) and not inspect.signature(override).parameters:
        return override  # type: ignore[no-any-return]
    return None


def negotiate_language(accept_language: str | None) -> Language:
    """en or fr, whichever the Accept-Language header prefers (RFC 9110 q-values); English
    when it names neither."""
    if not accept_language:
        return "en"
    best: Language = "en"
    best_q = -1.0
    for position, item in enumerate(accept_language.split(",")[:20]):
        tag, *params = (part.strip() for part in item.split(";"))
        primary = tag.lower().split("-")[0]
        if primary not in ("en", "fr", "*"):
            continue
        q = 1.0
        for param in params:
            if param.startswith("q="):
                try:
                    q = float(param[2:])
                except ValueError:
                    q = -1.0
        # Earlier tags win ties; "*" stands for English, the default.
        score = q - position * 1e-6
        if q > 0 and score > best_q:
            best_q, best = score, "fr" if primary == "fr" else "en"
    return best


MAX_ACCEPT_LANGUAGE = 200
# A header parameter, not a dependency: a sub-dependency costs every request more than the
# negotiation itself. Endpoints pass it to negotiate_language.
AcceptLanguage = Annotated[
    str | None,
    Header(
        alias="Accept-Language",
        max_length=MAX_ACCEPT_LANGUAGE,
        description="en or fr: the language of summaries and labels",
    ),
]


async def entry_filters(
    actor_id: Annotated[
        uuid.UUID | None, Query(description="entries made by this member (their user id)")
    ] = None,
    character_id: Annotated[
        uuid.UUID | None, Query(description="entries of this character")
    ] = None,
    kind: Annotated[
        str | None,
        Query(
            max_length=60,
            description='an exact kind, or a prefix ending in "." (fabulae. lists every '
            "Fabulae kind)",
        ),
    ] = None,
    session: Annotated[
        int | None, Query(ge=0, le=1_000_000, description="entries made in this session")
    ] = None,
    scene: Annotated[
        int | None, Query(ge=0, le=1_000_000, description="entries made in this scene")
    ] = None,
    visibility: Annotated[Visibility | None, Query()] = None,
    created_after: Annotated[
        datetime | None, Query(description="RFC 3339: entries made at or after this moment")
    ] = None,
    created_before: Annotated[
        datetime | None, Query(description="RFC 3339: entries made before this moment (not at it)")
    ] = None,
) -> EntryFilters:
    """The audit's filters (issue 21). Async: it runs inline, not in the thread pool. A
    filtered listing leaves out the entries the caller may not see."""
    if created_after is not None:
        created_after = _utc(created_after, "created_after")
    if created_before is not None:
        created_before = _utc(created_before, "created_before")
    if created_after is not None and created_before is not None and created_after >= created_before:
        raise Unprocessable("created_after must be earlier than created_before")
    return EntryFilters(
        actor_id=actor_id,
        character_id=character_id,
        kind=kind,
        session=session,
        scene=scene,
        visibility=visibility,
        created_after=created_after,
        created_before=created_before,
    )


def _utc(moment: datetime, name: str) -> datetime:
    """The moment in UTC (naive means UTC), or 422 when UTC has no such date."""
    aware = moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
    try:
        return aware.astimezone(UTC)
    except OverflowError:  # 0001-01-01T00:00+01:00 is in year 0 in UTC
        raise Unprocessable(
            f"{name} must fall between the years 1 and 9999 in UTC; {moment.isoformat()} does not"
        ) from None


Filters = Annotated[EntryFilters, Depends(entry_filters)]
WithOdds = Annotated[
    bool,
    Query(
        description="issue 21: give each visible roll whose kind has odds its `luck`: the "
        "exact probability of its outcome and its percentile"
    ),
]
