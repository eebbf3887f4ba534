"""The guard in front of the API (issue 16): bodies past the size limit are refused while
they are read (413), JSON nested past the depth limit and NUL characters in the query string
or the path are refused (422) before any handler or parser recurses into them, and nothing
is logged."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError
from sqlalchemy.exc import OperationalError

from app.core.request_guard import json_depth_exceeds
from app.core.settings import get_settings
from app.models.user import UserBase
from tests.api.helpers import last_seq
from tests.conftest import API, assert_problem


def test_a_body_past_the_size_limit_is_413_before_it_is_parsed(client):
    limit = get_settings().max_body_bytes
    name = "x" * (limit + 1)
    response = client.post(
        f"{API}/users",
        content=json.dumps({"name": name}),
        headers={"Content-Type": "application/json"},
    )
    body = assert_problem(response, 413, str(limit))
    assert body["title"] == "Content Too Large"
    assert response.headers["content-type"].startswith("application/problem+json")


def test_nesting_past_the_depth_limit_is_422_even_holding_nul(client, gm, make_campaign):
    campaign = make_campaign("vampire")
    before = last_seq(client, campaign, gm)
    deep = "[" * 3000 + '"\\u0000"' + "]" * 3000
    response = client.post(
        f"{API}/campaigns/{campaign['id']}/rolls",
        content=deep,
        headers={**gm.headers, "Content-Type": "application/json"},
    )
    assert_problem(response, 422, "nested deeper")
    depth = get_settings().max_json_depth
    nested = {
        "kind": "dice",
        "notation": "1d6",
        "x": json.loads("[" * (depth + 1) + "]" * (depth + 1)),
    }
    assert_problem(
        client.post(f"{API}/campaigns/{campaign['id']}/rolls", json=nested, headers=gm.headers),
        422,
        "nested deeper",
    )
    assert last_seq(client, campaign, gm) == before


@pytest.mark.parametrize("path", ["/log", "/rolls"])
def test_nul_in_the_query_string_is_422(client, gm, make_campaign, path):
    campaign = make_campaign("vampire")
    response = client.get(f"{API}/campaigns/{campaign['id']}{path}?kind=%00", headers=gm.headers)
    assert_problem(response, 422, "NUL")


@pytest.mark.parametrize(
    ("text", "limit", "exceeds"),
    [
        (b"[[[]]]", 3, False),
        (b"[[[[]]]]", 3, True),
        (b'["[[[[[[", "{{{{"]', 3, False),  # brackets inside strings do not nest
        (b'["\\"[[[[", [[]]]', 3, False),  # an escaped quote does not end the string
        (b'{"a": {"b": {"c": {}}}}', 3, True),
        (b"[" * 10, 32, False),  # too few brackets to scan
    ],
)
def test_json_depth_is_read_from_the_bytes(text, limit, exceeds):
    assert json_depth_exceeds(text, limit) is exceeds


def test_nul_in_the_path_is_422(client, gm, player, make_campaign):
    """An invitation's code is free text in the path, read from the database: a NUL there
    was a 500 (found fuzzing the live API)."""
    invitation = client.post(f"{API}/invitations/a%00b/accept", headers=player.headers)
    assert_problem(invitation, 422, "NUL")
    campaign = make_campaign("vampire")
    roll = client.post(
        f"{API}/campaigns/{campaign['id']}%00/rolls",
        json={"kind": "dice", "notation": "1d6"},
        headers=gm.headers,
    )
    assert_problem(roll, 422, "NUL")
    assert last_seq(client, campaign, gm) == 1  # nothing rolled: only its epoch is logged


@pytest.mark.parametrize(
    "name", ["evil\u202egnp.exe", "tab\there", "\u2066Ada\u2069", "bell\u0007"]
)
def test_a_name_with_a_control_or_bidi_override_character_is_422(client, gm, name):
    assert_problem(client.post(f"{API}/users", json={"name": name}), 422, "control character")
    response = client.post(
        f"{API}/campaigns", json={"name": name, "system": "vampire"}, headers=gm.headers
    )
    assert_problem(response, 422, "control character")


def test_a_name_is_stored_nfc_normalized(client, gm, make_campaign, make_character):
    decomposed = "Ame\u0301lie"  # e + combining acute
    response = client.post(f"{API}/users", json={"name": decomposed})
    assert response.status_code == 201, response.text
    assert response.json()["name"] == "Am\u00e9lie"
    campaign = make_campaign("vampire")
    character = make_character(campaign, gm, name=decomposed)
    assert character["name"] == "Am\u00e9lie"
    renamed = client.patch(
        f"{API}/characters/{character['id']}", json={"name": "Lu\u202ecien"}, headers=gm.headers
    )
    assert_problem(renamed, 422, "U+202E")


def test_a_name_is_as_long_as_it_is_once_composed(client, gm, make_campaign, make_character):
    """U+FB2C composes (NFC) to three characters: the limit holds for the stored name, so a
    name within it before composing but past it after is a 422, never a database error."""
    grows = "\ufb2c" * 50  # 50 characters sent, 150 stored
    assert_problem(client.post(f"{API}/users", json={"name": grows}), 422, "at most 100")
    created = client.post(
        f"{API}/campaigns", json={"name": grows, "system": "vampire"}, headers=gm.headers
    )
    assert_problem(created, 422, "at most 120")
    campaign = make_campaign("vampire")
    renamed = client.patch(
        f"{API}/campaigns/{campaign['id']}", json={"name": grows}, headers=gm.headers
    )
    assert_problem(renamed, 422, "at most 120")
    character = make_character(campaign, gm)
    renamed = client.patch(
        f"{API}/characters/{character['id']}", json={"name": grows}, headers=gm.headers
    )
    assert_problem(renamed, 422, "at most 100")
    fight = client.post(
        f"{API}/campaigns/{campaign['id']}/encounters",
        json={"name": grows, "combatants": [{"character_id": character["id"], "side": "a"}]},
        headers=gm.headers,
    )
    assert_problem(fight, 422, "at most 120")
    # Text sent as bytes by a Python caller is read, normalized and checked the same way.
    assert UserBase.model_validate({"name": "Ame\u0301lie".encode()}).name == "Am\u00e9lie"
    with pytest.raises(ValidationError, match="U\\+202E"):
        UserBase.model_validate({"name": "\u202eevil".encode()})
    fits = "\ufb2c" * 40  # 120 once composed
    renamed = client.patch(
        f"{API}/campaigns/{campaign['id']}", json={"name": fits}, headers=gm.headers
    )
    assert renamed.status_code == 200, renamed.text
    assert len(renamed.json()["name"]) == 120


def test_every_response_carries_the_security_headers_and_api_answers_are_not_cached(client):
    created = client.post(f"{API}/users", json={"name": "Mina"})
    assert created.status_code == 201 and "api_key" in created.json()
    for response in (created, client.get(f"{API}/nowhere"), client.get("/docs")):
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.headers["referrer-policy"] == "no-referrer"
        assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
    # The answer that carries an API key is never stored by a cache.
    assert created.headers["cache-control"] == "no-store"


def test_405_names_every_method_the_path_takes(client, gm, make_campaign):
    campaign = make_campaign("vampire")
    response = client.put(f"{API}/campaigns/{campaign['id']}", json={}, headers=gm.headers)
    assert_problem(response, 405, "PUT")
    assert response.headers["allow"] == "DELETE, GET, PATCH"


def test_a_database_outage_is_503_with_retry_after(client, gm, session, monkeypatch):
    def dropped(*args, **kwargs):
        raise OperationalError("SELECT 1", {}, Exception("server closed the connection"))

    monkeypatch.setattr(session, "exec", dropped)
    monkeypatch.setattr(session, "execute", dropped)
    monkeypatch.setattr(session, "get", dropped)
    response = client.get(f"{API}/campaigns", headers=gm.headers)
    assert_problem(response, 503, "retry")
    assert response.headers["retry-after"] == "5"
