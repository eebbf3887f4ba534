"""Idempotency-Key: a retried request gets the stored response and never new dice.

The key is claimed in its own short transaction, so a concurrent duplicate sees it and
gets 409. The response is stored in the same transaction as the work it answers, so a key
marked done always has its work committed, and a key still pending after
`ABANDONED_AFTER` never had its work committed and may be taken over. A request that was
only stalling then finds the key no longer its own claim, and keeps nothing (409).
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Annotated, Any

import rfc8785
from fastapi import Depends, Header, Request
from fastapi.responses import JSONResponse
from pydantic_core import to_jsonable_python
from sqlalchemy import delete, insert
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, update

from app.core.problems import PROBLEM_MEDIA_TYPE, Conflict, Unprocessable, engine_problem
from app.engine.errors import RuleRefusal
from app.models import Encounter, IdempotencyKey, User
from app.models.base import utcnow
from app.services.access import get_campaign_access

REPLAY_HEADER = "Idempotent-Replayed"
ABANDONED_AFTER = timedelta(minutes=2)


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
    work: Callable[[], Any],
) -> JSONResponse:
    """Run `work` (which must not commit) once per key, commit, and answer with its result."""
    claimed_at: datetime | None = None
    if idempotency is not None:
        claim = _claim(session, user.id, scope, idempotency)
        if isinstance(claim, JSONResponse):
            _may_replay(session, user, scope)
            return claim
        claimed_at = claim
    media_type = None
    try:
        try:
            body = to_jsonable_python(work())
        except RuleRefusal as refusal:
            if refusal.recorded_seq is None:
                raise
            # The rules refused, but the attempt belongs in the log (FAB-14): keep it.
            status_code, body = engine_problem(refusal)
            media_type = PROBLEM_MEDIA_TYPE
        if idempotency is not None:
            stored = session.exec(
                update(IdempotencyKey)
                .where(_still_claimed(user.id, scope, idempotency.key, claimed_at))
                .values(status_code=status_code, response_body=body, completed_at=utcnow())
            )
            if stored.rowcount != 1:
                # This request stalled past ABANDONED_AFTER and a retry took the key over:
                # the retry's work is the one that counts, and this one's is rolled back.
                raise Conflict(
                    "a retry with this Idempotency-Key took it over while this request was "
                    "still running; retry to get its response"
                )
        session.commit()
    except BaseException:
        session.rollback()
        if idempotency is not None:
            _release(session, user.id, scope, idempotency.key, claimed_at)
        raise
    return JSONResponse(body, status_code=status_code, media_type=media_type)


def _may_replay(session: Session, user: User, scope: str) -> None:
    """A stored answer is replayed only to whoever may still act where it was made: a
    member of its campaign (404 otherwise, as for any of the campaign's endpoints)."""
    try:
        scope_id = uuid.UUID(scope)
    except ValueError:
        return  # not a campaign's (creating one)
    encounter = session.get(Encounter, scope_id)
    get_campaign_access(session, encounter.campaign_id if encounter else scope_id, user)


def _still_claimed(user_id: uuid.UUID, scope: str, key: str, claimed_at: datetime | None) -> Any:
    """The key's row while it is still the pending claim made at `claimed_at`."""
    return (
        (col(IdempotencyKey.user_id) == user_id)
        & (col(IdempotencyKey.scope) == scope)
        & (col(IdempotencyKey.key) == key)
        & (col(IdempotencyKey.created_at) == claimed_at)
        & col(IdempotencyKey.status_code).is_(None)
    )


def _claim(
    session: Session, user_id: uuid.UUID, scope: str, idempotency: IdempotencyRequest
) -> JSONResponse | datetime:
    """The stored response to replay, or the time this request claimed the key at."""
    claimed_at = utcnow()
    try:
        # A Core INSERT: the key may already sit in this session's identity map.
        session.execute(
            insert(IdempotencyKey).values(
                user_id=user_id,
                scope=scope,
                key=idempotency.key,
                fingerprint=idempotency.fingerprint,
                created_at=claimed_at,
            )
        )
        session.commit()
        return claimed_at
    except IntegrityError:
        session.rollback()
    stored = session.get(IdempotencyKey, (user_id, scope, idempotency.key), populate_existing=True)
    if stored is None:  # released between our insert and this read: a plain retry
        return _claim(session, user_id, scope, idempotency)
    if stored.fingerprint != idempotency.fingerprint:
        raise Unprocessable(
            "this Idempotency-Key was used with another request body; "
            "use a new key for a new request"
        )
    if stored.status_code is not None:
        return JSONResponse(
            stored.response_body,
            status_code=stored.status_code,
            headers={REPLAY_HEADER: "true"},
            media_type=PROBLEM_MEDIA_TYPE if stored.status_code >= 400 else None,
        )
    if stored.created_at < claimed_at - ABANDONED_AFTER:
        # Pending this long means its work never committed: take the key over.
        taken = session.exec(
            update(IdempotencyKey)
            .where(_still_claimed(user_id, scope, idempotency.key, stored.created_at))
            .values(created_at=claimed_at)
        )
        session.commit()
        if taken.rowcount == 1:
            return claimed_at
    raise Conflict(
        "a request with this Idempotency-Key is still being processed; retry in a moment"
    )


def _release(
    session: Session, user_id: uuid.UUID, scope: str, key: str, claimed_at: datetime | None
) -> None:
    """The work failed: forget the key so the client may retry, unless a retry now holds it."""
    session.execute(delete(IdempotencyKey).where(_still_claimed(user_id, scope, key, claimed_at)))
    session.commit()
