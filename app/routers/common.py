"""What the routers share: the route class of every endpoint, and common query parameters."""

import functools
import inspect
from collections.abc import Callable
from typing import Annotated, Any

from fastapi import Header, Query
from fastapi.routing import APIRoute
from sqlmodel import Session

from app.engine.contract import Language

MAX_PAGE_SIZE = 200

Limit = Annotated[int, Query(ge=1, le=MAX_PAGE_SIZE, description="page size (≤ 200)")]
Offset = Annotated[int, Query(ge=0, le=1_000_000, description="rows to skip")]


def _ending_its_transaction(endpoint: Callable[..., Any]) -> Callable[..., Any]:
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
            endpoint = _ending_its_transaction(endpoint)
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
