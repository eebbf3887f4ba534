"""Users and API keys (issue: service foundation)."""

from sqlmodel import select

from app.core.settings import get_settings
from app.models import User
from tests.conftest import API, assert_problem


def test_register_returns_a_key_once_and_stores_only_its_hash(client, session):
    response = client.post(f"{API}/users", json={"name": "Mina"})
    assert response.status_code == 201
    body = response.json()
    assert set(body) == {"id", "name", "api_key"}
    assert body["name"] == "Mina"
    assert body["api_key"].startswith("noc_") and len(body["api_key"]) > 40
    stored = session.exec(select(User).where(User.name == "Mina")).one()
    assert stored.api_key_hash != body["api_key"]
    assert body["api_key"] not in stored.api_key_hash
    assert len(stored.api_key_hash) == 64


def test_me_returns_the_key_owner(client, gm):
    response = client.get(f"{API}/users/me", headers=gm.headers)
    assert response.status_code == 200
    assert response.json() == {"id": gm.id, "name": gm.name}


def test_missing_key_is_401_with_a_challenge(client):
    response = client.get(f"{API}/users/me")
    assert_problem(response, 401, "Authorization: Bearer")
    assert response.headers["www-authenticate"] == "Bearer"


def test_wrong_key_is_401(client, gm):
    response = client.get(f"{API}/users/me", headers={"Authorization": "Bearer noc_wrong"})
    assert_problem(response, 401, "unknown API key")


def test_non_bearer_scheme_is_401(client, gm):
    response = client.get(f"{API}/users/me", headers={"Authorization": f"Basic {gm.api_key}"})
    assert response.status_code == 401


def test_registration_can_be_turned_off(client, monkeypatch):
    monkeypatch.setattr(get_settings(), "allow_registration", False)
    response = client.post(f"{API}/users", json={"name": "Late"})
    assert_problem(response, 403, "registration is closed")


def test_registration_can_require_an_invite_token(client, monkeypatch):
    """Issue 16: a public deployment registers only with its token (REGISTRATION_TOKEN)."""
    monkeypatch.setattr(get_settings(), "registration_token", "open-sesame")
    assert_problem(client.post(f"{API}/users", json={"name": "Late"}), 403, "Registration-Token")
    wrong = {"Registration-Token": "open-sesam"}
    assert_problem(client.post(f"{API}/users", json={"name": "Late"}, headers=wrong), 403)
    right = {"Registration-Token": "open-sesame"}
    created = client.post(f"{API}/users", json={"name": "Late"}, headers=right)
    assert created.status_code == 201, created.text


def test_user_name_is_bounded(client):
    assert_problem(client.post(f"{API}/users", json={"name": ""}), 422)
    assert_problem(client.post(f"{API}/users", json={"name": "x" * 101}), 422)
    assert_problem(client.post(f"{API}/users", json={}), 422, "name")
