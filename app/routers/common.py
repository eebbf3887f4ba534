"""What the routers share: the route class of every endpoint, and common query parameters."""

import functools
import inspect
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import Depends, Header, Query
from fastapi.routing import APIRoute
from sqlmodel import Session

from app.core.problems import Unprocessable
from app.engine.contract import Language, Visibility
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


# A header parameter, not a dependency: a sub-dependency costs every request more than the
# negotiation itself. Endpoints pass it to negotiate_language.
AcceptLanguage = Annotated[
    str | None,
    Header(
        alias="Accept-Language",
        max_length=200,
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
    if (
        created_after is not None
        and created_before is not None
        and _utc(created_after) >= _utc(created_before)
    ):
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


def _utc(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


Filters = Annotated[EntryFilters, Depends(entry_filters)]
WithOdds = Annotated[
    bool,
    Query(
        description="issue 21: give each visible roll whose kind has odds its `luck`: the "
        "exact probability of its outcome and its percentile"
    ),
]
