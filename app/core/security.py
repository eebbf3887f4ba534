"""API keys: random bearer tokens, stored as SHA-256 hashes, checked on every request."""

from __future__ import annotations

import hashlib
import secrets
import threading
import time
from typing import Annotated

from fastapi import Depends
from fastapi.concurrency import run_in_threadpool
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlmodel import Session, select

from app.core.database import LookupSessionDep
from app.core.problems import Unauthorized
from app.models import User

API_KEY_PREFIX = "noc_"
bearer = HTTPBearer(auto_error=False, description="the api_key returned by POST /users")
_CHALLENGE = {"WWW-Authenticate": "Bearer"}


def new_api_key() -> str:
    return API_KEY_PREFIX + secrets.token_urlsafe(32)


def hash_api_key(api_key: str) -> str:
    # Keys carry 256 bits of entropy, so a fast hash is enough: nothing to brute-force.
    return hashlib.sha256(api_key.encode()).hexdigest()


class VerifiedKeys:
    """Keys recently found in the database, so most requests skip the lookup.

    Keys are never revoked or rotated by this API, so a remembered key cannot go stale;
    the time limit bounds what a future revocation would have to wait for.
    """

    def __init__(self, seconds: float = 60.0, size: int = 10_000) -> None:
        self.seconds = seconds
        self.size = size
        self._users: dict[str, tuple[float, User]] = {}
        self._lock = threading.Lock()

    def get(self, key_hash: str) -> User | None:
        found = self._users.get(key_hash)
        if found is None or found[0] < time.monotonic():
            return None
        return found[1]

    def remember(self, key_hash: str, user: User) -> None:
        with self._lock:
            if len(self._users) >= self.size:
                self._users.clear()
            self._users[key_hash] = (time.monotonic() + self.seconds, user)

    def forget_all(self) -> None:
        with self._lock:
            self._users.clear()


verified_keys = VerifiedKeys()


def _lookup(session: Session, key_hash: str) -> User | None:
    user = session.exec(select(User).where(User.api_key_hash == key_hash)).first()
    if user is not None:
        session.expunge(user)  # shared across requests: detached, read-only
        verified_keys.remember(key_hash, user)
    # Give the connection back before the endpoint waits for a thread (see SessionRoute).
    session.rollback()
    return user


async def get_current_user(
    session: LookupSessionDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> User:
    if credentials is None:
        raise Unauthorized(
            "send your API key as 'Authorization: Bearer <api_key>' (POST /api/v1/users gives one)",
            headers=_CHALLENGE,
        )
    key_hash = hash_api_key(credentials.credentials)
    user = verified_keys.get(key_hash)
    if user is None:
        # The database call runs in the threadpool like every other: sync sessions.
        user = await run_in_threadpool(_lookup, session, key_hash)
    if user is None:
        raise Unauthorized(
            "unknown API key; check it was copied whole or register again", headers=_CHALLENGE
        )
    return user


CurrentUser = Annotated[User, Depends(get_current_user)]
