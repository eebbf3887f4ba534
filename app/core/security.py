"""API keys: random bearer tokens, stored as SHA-256 hashes, checked on every request."""

from __future__ import annotations

import hashlib
import secrets
from typing import Annotated

from fastapi import Depends
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlmodel import select

from app.core.database import SessionDep
from app.core.problems import Unauthorized
from app.models import User

API_KEY_PREFIX = "noc_"
_bearer = HTTPBearer(auto_error=False, description="the api_key returned by POST /users")
_CHALLENGE = {"WWW-Authenticate": "Bearer"}


def new_api_key() -> str:
    return API_KEY_PREFIX + secrets.token_urlsafe(32)


def hash_api_key(api_key: str) -> str:
    # Keys carry 256 bits of entropy, so a fast hash is enough: nothing to brute-force.
    return hashlib.sha256(api_key.encode()).hexdigest()


def get_current_user(
    session: SessionDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> User:
    if credentials is None:
        raise Unauthorized(
            "send your API key as 'Authorization: Bearer <api_key>' (POST /api/v1/users gives one)",
            headers=_CHALLENGE,
        )
    user = session.exec(
        select(User).where(User.api_key_hash == hash_api_key(credentials.credentials))
    ).first()
    if user is None:
        raise Unauthorized(
            "unknown API key; check it was copied whole or register again", headers=_CHALLENGE
        )
    return user


CurrentUser = Annotated[User, Depends(get_current_user)]
