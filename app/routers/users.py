"""Users and their API keys."""

import hmac
from typing import Annotated

from fastapi import APIRouter, Header

from app.core.database import SessionDep
from app.core.problems import Forbidden, problem_responses
from app.core.security import CurrentUser, hash_api_key, new_api_key
from app.core.settings import get_settings
from app.models import User, UserCreate, UserCreated, UserPublic
from app.routers.common import SessionRoute

router = APIRouter(prefix="/users", tags=["users"], route_class=SessionRoute)


@router.post(
    "",
    status_code=201,
    response_model=UserCreated,
    operation_id="users-create",
    responses=problem_responses(403, 422),
)
def create_user(
    session: SessionDep,
    data: UserCreate,
    registration_token: Annotated[
        str | None,
        Header(
            alias="Registration-Token",
            max_length=200,
            description="required when the server sets REGISTRATION_TOKEN",
        ),
    ] = None,
) -> UserCreated:
    """Register a user and return their API key, shown this once only."""
    settings = get_settings()
    if not settings.allow_registration:
        raise Forbidden("registration is closed on this server (ALLOW_REGISTRATION=false)")
    expected = settings.registration_token
    given = (registration_token or "").encode()
    if expected and not hmac.compare_digest(given, expected.encode()):
        raise Forbidden(
            "this server registers only with its invite token: send it in the "
            "Registration-Token header"
        )
    api_key = new_api_key()
    user = User(name=data.name, api_key_hash=hash_api_key(api_key))
    session.add(user)
    session.commit()
    return UserCreated(id=user.id, name=user.name, api_key=api_key)


@router.get(
    "/me",
    response_model=UserPublic,
    operation_id="users-me",
    responses=problem_responses(401),
)
def read_me(user: CurrentUser) -> User:
    """Return the user the API key belongs to."""
    return user
