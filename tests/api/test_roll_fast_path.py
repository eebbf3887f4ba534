"""The fast path of plain rolls and odds (issue 23, app/routers/common.py): a plain request
skips FastAPI's dependency solver; every other request, and every error, is answered by
FastAPI exactly as before."""

from __future__ import annotations

import inspect
from typing import Annotated, Any

import pytest
from fastapi import APIRouter, Depends, Header, HTTPException
from fastapi.testclient import TestClient

from app.core.database import ReadSessionDep, SessionDep
from app.core.security import CurrentUser, get_current_user
from app.main import app
from app.routers import common
from tests.conftest import API, VAMPIRE_SHEET

DICE = {"kind": "dice", "notation": "3d6kh2"}
# Headers that differ between any two answers.
VARYING = {"x-request-id", "date", "content-length"}


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """One item per POST .../rolls: whether it took the fast path."""
    taken: list[bool] = []
    plain_call = common.plain_call

    async def recording(request: Any, route: Any) -> common.PlainCall | None:
        call = await plain_call(request, route)
        taken.append(call is not None)
        return call

    monkeypatch.setattr(common, "plain_call", recording)
    return taken


def _rolls(campaign: dict[str, Any]) -> str:
    return f"{API}/campaigns/{campaign['id']}/rolls"


def _warm(client: TestClient, campaign: dict[str, Any], headers: dict[str, str]) -> None:
    # The first request of a key looks it up (FastAPI's path); later ones find it verified.
    assert client.post(_rolls(campaign), json=DICE, headers=headers).status_code == 201


def test_a_plain_roll_takes_the_fast_path_and_answers_as_before(
    client: TestClient, gm: Any, make_campaign: Any, calls: list[bool]
) -> None:
    campaign = make_campaign()
    _warm(client, campaign, gm.headers)
    fast = client.post(_rolls(campaign), json=DICE, headers=gm.headers)
    assert calls[-1] is True
    common_plain_call = common.plain_call
    try:
        common.plain_call = _never  # type: ignore[assignment]
        slow = client.post(_rolls(campaign), json=DICE, headers=gm.headers)
    finally:
        common.plain_call = common_plain_call  # type: ignore[assignment]
    assert fast.status_code == slow.status_code == 201
    assert _headers(fast) == _headers(slow)
    a, b = fast.json(), slow.json()
    assert a.keys() == b.keys() and b["seq"] == a["seq"] + 1
    assert a["actor_id"] == b["actor_id"] == gm.id
    listed = client.get(_rolls(campaign), headers=gm.headers).json()["data"]
    assert [entry["seq"] for entry in listed][-2:] == [a["seq"], b["seq"]]


async def _never(_request: Any, _route: Any) -> None:
    return None


def _headers(response: Any) -> dict[str, str]:
    return {k: v for k, v in response.headers.items() if k not in VARYING}


def _both(client: TestClient, method: str, url: str, **kwargs: Any) -> tuple[Any, Any]:
    """The answer with the fast path, then with FastAPI's path only."""
    fast = client.request(method, url, **kwargs)
    saved = common.plain_call
    try:
        common.plain_call = _never  # type: ignore[assignment]
        slow = client.request(method, url, **kwargs)
    finally:
        common.plain_call = saved  # type: ignore[assignment]
    return fast, slow


def test_what_is_not_plain_is_answered_by_fastapi_the_same(
    client: TestClient, gm: Any, outsider: Any, make_campaign: Any, calls: list[bool]
) -> None:
    campaign = make_campaign()
    _warm(client, campaign, gm.headers)
    assert client.get(f"{API}/campaigns", headers=outsider.headers).status_code == 200
    url = _rolls(campaign)
    json_headers = {**gm.headers, "Content-Type": "application/json"}
    cases: list[tuple[str, dict[str, Any]]] = [
        (url, {"json": {"kind": "dice"}, "headers": gm.headers}),  # body refused
        (url, {"json": {"kind": "nope", "notation": "1d6"}, "headers": gm.headers}),
        (url, {"content": b"{not json", "headers": json_headers}),
        (url, {"content": b'{"kind": "dice", "notation": "3d6kh2"}', "headers": gm.headers}),
        (url, {"json": DICE}),  # no key
        (url, {"json": DICE, "headers": {"Authorization": "Basic abc"}}),
        (url, {"json": DICE, "headers": {"Authorization": "Bearer noc_unknown"}}),
        (url, {"json": DICE, "headers": outsider.headers}),  # not a member: 404
        (url, {"json": DICE, "headers": {**gm.headers, "Accept-Language": "fr" * 101}}),
        (f"{API}/campaigns/not-a-uuid/rolls", {"json": DICE, "headers": gm.headers}),
        (f"{url}?request_id=nope", {"json": DICE, "headers": gm.headers}),
        (url, {"json": DICE, "headers": {**gm.headers, "Idempotency-Key": "bad key"}}),
    ]
    for target, kwargs in cases:
        fast, slow = _both(client, "POST", target, **kwargs)
        assert fast.status_code == slow.status_code, (target, kwargs, fast.text)
        assert fast.status_code >= 400, (target, kwargs)
        assert _headers(fast) == _headers(slow), (target, kwargs)
        assert fast.json() == slow.json(), (target, kwargs)
    # Only the warm-up and the outsider's roll were plain (its 404 comes from the roll).
    assert calls == [True] + [False] * 7 + [True] + [False] * 4


def test_the_language_and_an_idempotency_key_are_honoured(
    client: TestClient, gm: Any, make_campaign: Any, calls: list[bool]
) -> None:
    campaign = make_campaign()
    _warm(client, campaign, gm.headers)
    url = _rolls(campaign)
    # A label shows the language in the summary whatever the dice: "Perception:" in English,
    # "Perception :" in French (two rolls' dice alone may well agree).
    labelled = {**DICE, "label": "Perception"}
    french_headers = {**gm.headers, "Accept-Language": "fr"}
    english = client.post(url, json=labelled, headers=gm.headers).json()
    french = client.post(url, json=labelled, headers=french_headers).json()
    assert calls[-2:] == [True, True]
    assert english["summary"].startswith("Perception: ")
    assert french["summary"].startswith("Perception : ")
    keyed = {**gm.headers, "Idempotency-Key": "fast-path-1"}
    first = client.post(url, json=DICE, headers=keyed)
    again = client.post(url, json=DICE, headers=keyed)
    assert calls[-2:] == [False, False]
    assert first.status_code == again.status_code == 201
    assert first.json() == again.json() and again.headers["Idempotent-Replayed"] == "true"


def test_overriding_the_caller_sends_every_roll_through_fastapi(
    client: TestClient, gm: Any, make_campaign: Any, calls: list[bool]
) -> None:
    campaign = make_campaign()
    _warm(client, campaign, gm.headers)
    # An override the fast path cannot follow: FastAPI resolves the request, with it.
    app.dependency_overrides[get_current_user] = _refuse
    try:
        response = client.post(_rolls(campaign), json=DICE, headers=gm.headers)
    finally:
        app.dependency_overrides.pop(get_current_user)
    assert calls[-1] is True  # plain, yet answered by FastAPI
    assert response.status_code == 418


async def _refuse() -> None:
    raise HTTPException(status_code=418, detail="overridden")


async def _answer(session: Any, call: common.PlainCall) -> Any:
    raise AssertionError("never called")


def _must_be_gm() -> None:
    """A check added later, as a dependency."""


@pytest.mark.parametrize(
    ("extra", "unknown"),
    [
        ({"check": Annotated[None, Depends(_must_be_gm)]}, "_must_be_gm"),
        ({"trace": Annotated[str | None, Header(alias="X-Trace")]}, "X-Trace"),
    ],
)
def test_a_fast_path_refuses_an_endpoint_with_what_it_does_not_resolve(extra, unknown):
    """Built with a dependency or header plain_call does not stand in for, the route is
    refused at once: a plain request would otherwise skip it."""

    def endpoint(session: SessionDep, user: CurrentUser, **kwargs: Any) -> None:
        """An endpoint."""

    parameters = [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation)
        for name, annotation in extra.items()
    ]
    signature = inspect.signature(endpoint)
    endpoint.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[*list(signature.parameters.values())[:2], *parameters]
    )
    router = APIRouter(route_class=common.SessionRoute)
    with pytest.raises(RuntimeError, match=f"does not resolve {unknown}"):
        router.post("/probe", response_model=None)(common.fast_path(_answer)(endpoint))
    plain = APIRouter(route_class=common.SessionRoute)
    plain.post("/probe", response_model=None)(common.fast_path(_answer)(_plain_endpoint))


def _reads_in_a_write_session(session: SessionDep) -> None:
    """A helper dependency that came to open the session of writes."""


def test_a_reading_fast_path_refuses_the_session_of_writes_at_any_depth(monkeypatch):
    """A fast path that only reads serves its ReadSession: an endpoint that would also get
    the session of writes, even through another dependency, is refused."""
    known = common.FAST_PATH_RESOLVES | {_reads_in_a_write_session}
    monkeypatch.setattr(common, "FAST_PATH_RESOLVES", known)

    def endpoint(
        session: ReadSessionDep,
        user: CurrentUser,
        helper: Annotated[None, Depends(_reads_in_a_write_session)],
    ) -> None:
        """An endpoint."""

    router = APIRouter(route_class=common.SessionRoute)
    with pytest.raises(RuntimeError, match=r"get_db \(the fast path's session is the other"):
        router.post("/probe", response_model=None)(
            common.fast_path(_answer, reads_only=True)(endpoint)
        )


async def _plain_endpoint(session: SessionDep, user: CurrentUser) -> None:
    """What the fast path resolves, nothing else."""


# --- the odds (POST .../odds) ---------------------------------------------------------------


def _odds(campaign: dict[str, Any]) -> str:
    return f"{API}/campaigns/{campaign['id']}/odds"


def test_plain_odds_take_the_fast_path_and_answer_byte_for_byte_as_before(
    client: TestClient,
    gm: Any,
    player: Any,
    make_campaign: Any,
    make_character: Any,
    calls: list[bool],
) -> None:
    campaign = make_campaign("vampire", players=(player,))
    lucien = make_character(campaign, player, sheet=VAMPIRE_SHEET, name="Lucien")
    _warm(client, campaign, gm.headers)
    _warm(client, campaign, player.headers)
    bodies = [
        DICE,
        {"kind": "dice", "notation": "8d10>6"},
        {
            "kind": "vampire.action",
            "character_id": lucien["id"],
            "attribute": "astuce",
            "ability": "subterfuge",
            "difficulty": 7,
        },
    ]
    for caller in (gm, player):
        for body in bodies:
            before = len(calls)
            fast, slow = _both(client, "POST", _odds(campaign), json=body, headers=caller.headers)
            assert calls[before:] == [True]  # then FastAPI's path, unrecorded
            assert fast.status_code == slow.status_code == 200, fast.text
            assert _headers(fast) == _headers(slow)
            assert fast.content == slow.content
            assert fast.json()["kind"] == body["kind"]


def test_FAIR_18_odds_refusals_are_the_same_on_both_paths(
    client: TestClient,
    gm: Any,
    player: Any,
    outsider: Any,
    make_campaign: Any,
    make_character: Any,
    calls: list[bool],
) -> None:
    campaign = make_campaign("vampire", players=(player,))
    npc = make_character(campaign, gm, sheet=VAMPIRE_SHEET, name="Le prince", kind="npc")
    # Each key looked up once (FastAPI's path): later requests find it verified.
    assert client.get(f"{API}/campaigns", headers=player.headers).status_code == 200
    assert client.get(f"{API}/campaigns", headers=outsider.headers).status_code == 200
    npc_action = {
        "kind": "vampire.action",
        "character_id": npc["id"],
        "attribute": "force",
        "difficulty": 6,
    }
    cases: list[tuple[str, dict[str, Any], int]] = [
        # FAIR-18: a player may not read an NPC's values through its odds.
        (_odds(campaign), {"json": npc_action, "headers": player.headers}, 403),
        (_odds(campaign), {"json": DICE, "headers": outsider.headers}, 404),
        (_odds(campaign), {"json": {"kind": "dice", "notation": "d"}, "headers": gm.headers}, 422),
        (_odds(campaign), {"json": {"kind": "coin.flip"}, "headers": gm.headers}, 422),
        (f"{_odds(campaign)}?request_id=nope", {"json": DICE, "headers": gm.headers}, 422),
    ]
    before = len(calls)
    for target, kwargs, status in cases:
        fast, slow = _both(client, "POST", target, **kwargs)
        assert fast.status_code == slow.status_code == status, (target, kwargs, fast.text)
        assert _headers(fast) == _headers(slow), (target, kwargs)
        assert fast.json() == slow.json(), (target, kwargs)
    # The refusals of plain requests came from the fast path (the access's, FAIR-18's and the
    # notation's errors, answered by the same handlers); a body the route's model refuses,
    # or a query, is FastAPI's to answer.
    assert calls[before:] == [True, True, True, False, False]
