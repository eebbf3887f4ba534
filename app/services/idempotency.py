"""Idempotency-Key: a retry with the same key gets the stored response and never new dice.

The key is claimed inside the very transaction that does the work and stores the response,
so no claim outlives its request: a request that fails or whose worker dies rolls back and
leaves the key free at once. Concurrent duplicates are kept apart by what holds that
transaction: on PostgreSQL a transaction-level advisory lock on the key (a duplicate that
cannot take it gets 409), on SQLite the write lock every writing request begins with (a
duplicate waits for it, then replays the stored response).
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, TypeVar

import rfc8785
from fastapi import Depends, Header, Request
from fastapi.responses import JSONResponse, Response
from pydantic_core import to_json, to_jsonable_python
from sqlalchemy import func, insert, select
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, update

from app.core.problems import PROBLEM_MEDIA_TYPE, Conflict, Unprocessable, engine_problem
from app.engine.errors import RuleRefusal
from app.models import IdempotencyKey, User
from app.models.base import utcnow
from app.services.access import find_encounter, get_campaign_access

REPLAY_HEADER = "Idempotent-Replayed"
T = TypeVar("T")


@dataclass(frozen=True)
class IdempotencyRequest:
    key: str
    fingerprint: str


async def idempotency_request(
    request: Request,
    idempotency_key: Annotated[
        str | None,
        Header(
            alias="Idempotency-Key",
            min_length=1,
            max_length=255,
            pattern=r"^[\x21-\x7e]+$",
            description="retrying with the same key and body returns the stored response",
        ),
    ] = None,
) -> IdempotencyRequest | None:
    if idempotency_key is None:
        return None
    body = await request.body()
    # The query is part of the request (a roll's ?request_id= answers one request or another).
    target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    return IdempotencyRequest(idempotency_key, fingerprint(request.method, target, body))


def fingerprint(method: str, path: str, body: bytes) -> str:
    """What makes two requests the same: method, path, and the body as canonical JSON."""
    try:
        # The same JSON in another layout is the same request.
        canonical = rfc8785.dumps(json.loads(body)) if body else b""
    except (ValueError, rfc8785.CanonicalizationError):
        canonical = body
    digest = hashlib.sha256()
    digest.update(f"{method} {path}\n".encode())
    digest.update(canonical)
    return digest.hexdigest()


IdempotencyDep = Annotated[IdempotencyRequest | None, Depends(idempotency_request)]


def run_idempotent(
    session: Session,
    user: User,
    scope: str,
    idempotency: IdempotencyRequest | None,
    status_code: int,
    work: Callable[[], T],
    present: Callable[[T], Any] | None = None,
) -> Response:
    """Run `work` (which must not commit) once per key, commit, and answer with its result,
    or with `present(result)`.

    Without a key, `present` runs after the commit: a roll's view is built once its
    campaign's lock is released (issue 23), not while every other roll of the campaign
    waits. With a key, the answer is stored in the same transaction, so it is built first.
    """
    media_type = None
    done: Any = None
    try:
        if idempotency is not None:
            stored = _claim(session, user.id, scope, idempotency)
            if stored is not None:
                session.rollback()
                _may_replay(session, user, scope)
                return stored
        try:
            done = work()
            body = None if present is not None and idempotency is None else _answer(done, present)
        except RuleRefusal as refusal:
            if refusal.recorded_seq is None:
                raise
            # The rules refused, but the attempt belongs in the log (FAB-14): keep it.
            status_code, body = engine_problem(refusal)
            media_type = PROBLEM_MEDIA_TYPE
        if idempotency is not None:
            _store(session, user.id, scope, idempotency, status_code, body)
        session.commit()
    except BaseException:
        session.rollback()
        raise
    if body is None:
        # One pass from the view to JSON bytes: no JSON-ready copy for json.dumps to walk.
        return json_response(to_json(present(done) if present is not None else done), status_code)
    return JSONResponse(body, status_code=status_code, media_type=media_type)


def json_response(body: bytes, status_code: int) -> Response:
    """An answer whose JSON bytes are already written (pydantic_core.to_json)."""
    return Response(body, status_code=status_code, media_type="application/json")


def _answer(done: T, present: Callable[[T], Any] | None) -> Any:
    return to_jsonable_python(present(done) if present is not None else done)


def _may_replay(session: Session, user: User, scope: str) -> None:
    """A stored answer is replayed only to whoever may still act where it was made: a
    member of its campaign (404 otherwise, as for any of the campaign's endpoints)."""
    try:
        scope_id = uuid.UUID(scope)
    except ValueError:
        return  # not a campaign's (creating one)
    encounter = find_encounter(session, scope_id)
    get_campaign_access(session, encounter.campaign_id if encounter else scope_id, user)


def advisory_lock_id(user_id: uuid.UUID, scope: str, key: str) -> int:
    """The key's PostgreSQL advisory lock: 64 bits of a hash of what identifies the key."""
    digest = hashlib.sha256(f"idempotency\n{user_id}\n{scope}\n{key}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def _claim(
    session: Session, user_id: uuid.UUID, scope: str, idempotency: IdempotencyRequest
) -> JSONResponse | None:
    """The stored response to replay, or None when this transaction now holds the key."""
    if session.get_bind().dialect.name == "postgresql":
        lock_id = advisory_lock_id(user_id, scope, idempotency.key)
        taken = session.scalar(select(func.pg_try_advisory_xact_lock(lock_id)))
        if not taken:
            raise Conflict(
                "a request with this Idempotency-Key is still being processed; retry in a moment"
            )
    # On SQLite this transaction began with the write lock: no duplicate runs meanwhile.
    stored = session.get(IdempotencyKey, (user_id, scope, idempotency.key), populate_existing=True)
    if stored is None:
        return None
    if stored.fingerprint != idempotency.fingerprint:
        raise Unprocessable(
            "this Idempotency-Key was used with another request body; "
            "use a new key for a new request"
        )
    if stored.status_code is None:
        # A claim committed without its response by an earlier version of this service:
        # its work never committed, so the key is free.
        return None
    return JSONResponse(
        stored.response_body,
        status_code=stored.status_code,
        headers={REPLAY_HEADER: "true"},
        media_type=PROBLEM_MEDIA_TYPE if stored.status_code >= 400 else None,
    )


def _store(
    session: Session,
    user_id: uuid.UUID,
    scope: str,
    idempotency: IdempotencyRequest,
    status_code: int,
    body: Any,
) -> None:
    """The response, kept with the work it answers (same transaction)."""
    now = utcnow()
    identity = (
        (col(IdempotencyKey.user_id) == user_id)
        & (col(IdempotencyKey.scope) == scope)
        & (col(IdempotencyKey.key) == idempotency.key)
    )
    # Core statements: the key may already sit in this session's identity map.
    replaced = session.exec(
        update(IdempotencyKey)
        .where(identity & col(IdempotencyKey.status_code).is_(None))
        .values(status_code=status_code, response_body=body, completed_at=now)
    )
    if replaced.rowcount == 1:
        return
    try:
        with session.begin_nested():
            session.execute(
                insert(IdempotencyKey).values(
                    user_id=user_id,
                    scope=scope,
                    key=idempotency.key,
                    fingerprint=idempotency.fingerprint,
                    status_code=status_code,
                    response_body=body,
                    created_at=now,
                    completed_at=now,
                )
            )
    except IntegrityError:
        # Only a writer that bypassed the lock could get here; its answer stands.
        raise Conflict(
            "another request with this Idempotency-Key completed meanwhile; retry to get "
            "its response"
        ) from None
