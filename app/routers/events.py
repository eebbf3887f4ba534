"""A live feed of a campaign: its new log entries, roll requests and encounters, as each
member may see them, pushed as Server-Sent Events."""

from __future__ import annotations

import json
import uuid
import weakref
from collections.abc import AsyncIterator
from typing import Annotated

import anyio
from fastapi import APIRouter, Depends, Header, Query, Request
from fastapi.security import HTTPAuthorizationCredentials
from sqlmodel import Session
from sse_starlette import EventSourceResponse, ServerSentEvent

from app.core.database import LookupSessionDep, SessionDep
from app.core.problems import NotFound, Unauthorized, Unprocessable, problem_responses
from app.core.security import CurrentUser, bearer, get_current_user
from app.core.settings import get_settings
from app.engine.bodies import MAX_SEQ
from app.engine.registry import Registry
from app.models import User
from app.models.feed import StreamTicketPublic
from app.routers.common import AcceptLanguage, SessionRoute, negotiate_language
from app.services.feed import reading, tickets
from app.services.feed.broker import Ended, Subscriber, broker
from app.services.feed.listener import ensure_listening
from app.services.feed.notices import listen_locally
from app.services.feed.reading import Event, Viewer

EVENT_STREAM = "text/event-stream"
STREAM_DOC = """\
`text/event-stream`. Each new log entry as `GET /log` shows it to you (`id:` its seq,
`event:` its kind, `data:` the entry's JSON; entries hidden from you arrive redacted, so
seqs never skip); `event: roll_request` and `event: encounter` (no id) when a roll request
or an encounter you may see changes, with its JSON as `GET` shows it; a `: ping` comment
line every few seconds; `event: end` with a `detail` when you may no longer follow the
campaign (removed, campaign deleted), after which the stream closes.
"""


def _sse(event: Event) -> ServerSentEvent:
    if event.seq is None:
        return ServerSentEvent(data=event.data, event=event.event)
    return ServerSentEvent(data=event.data, event=event.event, id=str(event.seq))


def _start_of(last_event_id: str | None, after_seq: int | None, head: int) -> int:
    """Where the stream starts: after Last-Event-ID (a browser reconnecting), or after_seq,
    or the log's head (live only)."""
    if last_event_id is not None and last_event_id.strip():
        try:
            seq = int(last_event_id)
        except ValueError:
            raise Unprocessable(
                "Last-Event-ID must be the seq of the last entry received"
            ) from None
        if not 0 <= seq <= MAX_SEQ:
            raise Unprocessable(f"Last-Event-ID must be between 0 and {MAX_SEQ}")
        return seq
    return head if after_seq is None else after_seq


async def _follow(subscriber: Subscriber, cursor: int) -> AsyncIterator[ServerSentEvent]:
    """The entries after `cursor` read from the log, then live ones; each once, in order."""
    campaign_id, viewer = subscriber.campaign_id, subscriber.viewer
    try:
        while True:
            try:
                while True:  # what the stream has not sent yet, from the log itself
                    page = await anyio.to_thread.run_sync(
                        reading.catch_up, campaign_id, viewer, cursor, limiter=broker.limiter
                    )
                    for event in page:
                        cursor = event.seq or cursor
                        yield _sse(event)
                    if len(page) < reading.PAGE:
                        break
            except NotFound:
                yield _end("you are no longer a member of this campaign")
                return
            subscriber.behind = False
            while not subscriber.behind:
                item = await subscriber.queue.get()
                if isinstance(item, Ended):
                    yield _end(item.reason)
                    return
                entries = [e.seq for e in item if e.seq is not None and e.seq > cursor]
                if entries and entries[0] > cursor + 1:
                    break  # a gap: this stream fell behind; read the log from its cursor
                for event in item:
                    if event.seq is None or event.seq > cursor:
                        cursor = event.seq or cursor
                        yield _sse(event)
    finally:
        broker.leave(subscriber)


def _end(reason: str) -> ServerSentEvent:
    return ServerSentEvent(data=json.dumps({"detail": reason}), event="end")


def _listen_for_commits() -> None:
    """Wake this process's rooms: by LISTEN on PostgreSQL, by its own commits on SQLite."""
    settings = get_settings()
    if settings.is_sqlite:
        listen_locally(broker.hear_from_thread)
    else:
        ensure_listening(broker, settings.database_url)


async def _authenticated(
    session: Session,
    lookup: Session,
    campaign_id: uuid.UUID,
    credentials: HTTPAuthorizationCredentials | None,
    ticket: str | None,
) -> User:
    """The ticket's user (redeeming it writes, in `session`), or the bearer key's (looked up
    in `lookup` when the worker has not verified it yet)."""
    if ticket is not None:
        return await anyio.to_thread.run_sync(tickets.redeem, session, campaign_id, ticket)
    if credentials is None:
        raise Unauthorized(
            "send your API key as 'Authorization: Bearer <api_key>', or from a browser a "
            "stream ticket as ?ticket= (POST .../events/ticket)",
            headers={"WWW-Authenticate": "Bearer"},
        )
    return await get_current_user(lookup, credentials)


def build(registry: Registry) -> APIRouter:
    """The events router, rendering entries with this registry's kinds."""
    router = APIRouter(
        prefix="/campaigns/{campaign_id}/events", tags=["events"], route_class=SessionRoute
    )

    @router.get(
        "",
        response_class=EventSourceResponse,
        operation_id="events-follow",
        responses={
            200: {
                "description": STREAM_DOC,
                "content": {EVENT_STREAM: {"schema": {"type": "string"}}},
            },
            **problem_responses(401, 404, 422, 429, 503),
        },
    )
    async def follow(
        session: SessionDep,
        lookup: LookupSessionDep,
        campaign_id: uuid.UUID,
        credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
        ticket: Annotated[
            str | None,
            Query(
                max_length=100, description="a stream ticket, instead of the Authorization header"
            ),
        ] = None,
        after_seq: Annotated[
            int | None,
            Query(ge=0, le=MAX_SEQ, description="send the entries after this seq first (0: all)"),
        ] = None,
        last_event_id: Annotated[
            str | None, Header(max_length=20, description="set by EventSource when it reconnects")
        ] = None,
        accept_language: AcceptLanguage = None,
    ) -> EventSourceResponse:
        """Follow the campaign live (Server-Sent Events): its entries as you may see them,
        resumable by Last-Event-ID or after_seq."""
        user = await _authenticated(session, lookup, campaign_id, credentials, ticket)
        role, head = await anyio.to_thread.run_sync(reading.open_stream, session, campaign_id, user)
        start = _start_of(last_event_id, after_seq, head)
        viewer = Viewer(user, negotiate_language(accept_language), registry)
        subscriber = Subscriber(campaign_id, viewer, role)
        _listen_for_commits()
        broker.join(subscriber, head)
        stream = _follow(subscriber, start)
        # A stream never started (the client left first) runs no finally: leave when dropped.
        weakref.finalize(stream, broker.leave, subscriber)
        settings = get_settings()
        return EventSourceResponse(
            stream,
            ping=settings.feed_heartbeat_seconds,
            headers={"Cache-Control": "no-store"},
        )

    @router.post(
        "/ticket",
        status_code=201,
        response_model=StreamTicketPublic,
        operation_id="events-ticket",
        responses=problem_responses(401, 404, 422),
    )
    def create_ticket(
        session: SessionDep, user: CurrentUser, campaign_id: uuid.UUID, request: Request
    ) -> StreamTicketPublic:
        """A single-use ticket, good for a minute, that opens one event stream from a browser
        (EventSource sends no Authorization header)."""
        path = request.url_for("follow", campaign_id=campaign_id).path
        return tickets.issue(session, campaign_id, user, path)

    return router
