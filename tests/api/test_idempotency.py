"""Idempotency-Key on every POST that rolls or changes state: a retry never gets new dice."""

import json
import uuid

from sqlalchemy import insert

from app.models import IdempotencyKey, utcnow
from app.services.idempotency import fingerprint
from tests.conftest import API, assert_problem

ROLL = {"kind": "dice", "notation": "4d6kh3"}


def url(campaign, tail=""):
    return f"{API}/campaigns/{campaign['id']}{tail}"


def post_roll(client, campaign, caller, key, body=ROLL):
    return client.post(
        url(campaign, "/rolls"), json=body, headers={**caller.headers, "Idempotency-Key": key}
    )


def roll_count(client, campaign, caller):
    return len(client.get(url(campaign, "/rolls"), headers=caller.headers).json()["data"])


def test_a_retry_gets_the_stored_response_and_no_new_entry(client, gm, make_campaign):
    campaign = make_campaign()
    first = post_roll(client, campaign, gm, "roll-1")
    retry = post_roll(client, campaign, gm, "roll-1")
    assert first.status_code == retry.status_code == 201
    assert retry.json() == first.json()
    assert retry.headers["idempotent-replayed"] == "true"
    assert "idempotent-replayed" not in first.headers
    assert roll_count(client, campaign, gm) == 1


def test_the_same_json_in_another_layout_is_the_same_request(client, gm, make_campaign):
    campaign = make_campaign()
    post_roll(client, campaign, gm, "k")
    retry = client.post(
        url(campaign, "/rolls"),
        content=b'{ "notation" : "4d6kh3",  "kind": "dice" }',
        headers={**gm.headers, "Idempotency-Key": "k", "Content-Type": "application/json"},
    )
    assert retry.status_code == 201 and retry.headers["idempotent-replayed"] == "true"


def test_the_same_key_with_another_body_is_422(client, gm, make_campaign):
    campaign = make_campaign()
    post_roll(client, campaign, gm, "k")
    response = post_roll(client, campaign, gm, "k", {"kind": "dice", "notation": "1d20"})
    assert_problem(response, 422, "another request body")
    assert roll_count(client, campaign, gm) == 1


def claim_without_response(session, campaign, caller, key):
    """A claim an earlier version of the service committed before its work, then died."""
    path = f"/api/v1/campaigns/{campaign['id']}/rolls"
    session.execute(
        insert(IdempotencyKey).values(
            user_id=uuid.UUID(caller.id),
            scope=campaign["id"],
            key=key,
            fingerprint=fingerprint("POST", path, json.dumps(ROLL).encode()),
            created_at=utcnow(),
        )
    )
    session.commit()  # into the test's outer transaction, like another request's claim


def test_a_claim_left_without_its_response_is_free_at_once(session, client, gm, make_campaign):
    # A key is only ever stored with its response: one without never had its work committed.
    campaign = make_campaign()
    claim_without_response(session, campaign, gm, "crashed")
    response = post_roll(client, campaign, gm, "crashed")
    assert response.status_code == 201 and "idempotent-replayed" not in response.headers
    assert roll_count(client, campaign, gm) == 1
    assert post_roll(client, campaign, gm, "crashed").headers["idempotent-replayed"] == "true"


def test_failed_requests_release_their_key(client, gm, make_campaign):
    campaign = make_campaign()
    bad = post_roll(client, campaign, gm, "k", {"kind": "dice", "notation": "1d1001"})
    assert bad.status_code == 422
    fixed = post_roll(client, campaign, gm, "k", {"kind": "dice", "notation": "1d100"})
    assert fixed.status_code == 201 and "idempotent-replayed" not in fixed.headers


def test_keys_are_scoped_to_the_user_and_campaign(client, gm, player, make_campaign):
    first = make_campaign(players=(player,))
    second = make_campaign(name="Autre")
    assert "idempotent-replayed" not in post_roll(client, first, gm, "same").headers
    assert "idempotent-replayed" not in post_roll(client, second, gm, "same").headers
    assert "idempotent-replayed" not in post_roll(client, first, player, "same").headers


def test_state_changing_posts_take_a_key(client, gm, make_campaign):
    campaign = make_campaign()
    for path in ("/sessions", "/scenes", "/fairness/rotate"):
        headers = {**gm.headers, "Idempotency-Key": f"key{path}"}
        first = client.post(url(campaign, path), json={}, headers=headers)
        retry = client.post(url(campaign, path), json={}, headers=headers)
        assert first.status_code == 201, first.text
        assert retry.json() == first.json() and retry.headers["idempotent-replayed"] == "true"
    created = client.post(
        f"{API}/campaigns",
        json={"name": "Idem", "system": "vampire"},
        headers={**gm.headers, "Idempotency-Key": "new-campaign"},
    )
    again = client.post(
        f"{API}/campaigns",
        json={"name": "Idem", "system": "vampire"},
        headers={**gm.headers, "Idempotency-Key": "new-campaign"},
    )
    assert again.json()["id"] == created.json()["id"]
    assert client.get(f"{API}/campaigns", headers=gm.headers).json()["count"] == 2


def test_malformed_key_is_422(client, gm, make_campaign):
    campaign = make_campaign()
    assert_problem(post_roll(client, campaign, gm, "has space"), 422, "Idempotency-Key")
    assert_problem(post_roll(client, campaign, gm, "x" * 256), 422)


def test_a_removed_member_gets_no_replay(client, gm, player, make_campaign):
    """Issue 16: a stored answer is replayed only to a current member of its campaign."""
    campaign = make_campaign(players=(player,))
    first = post_roll(client, campaign, player, "mine-1")
    assert first.status_code == 201, first.text
    removed = client.delete(url(campaign, f"/members/{player.id}"), headers=gm.headers)
    assert removed.status_code == 204, removed.text
    assert_problem(post_roll(client, campaign, player, "mine-1"), 404)
