"""Invitations (issue 15, part 4): the GM hands out a code; a registered user joins with it."""

from __future__ import annotations

from datetime import timedelta

from sqlmodel import select

from app.models import Invitation, utcnow
from tests.conftest import API, assert_problem


def invite(client, campaign, caller, **body):
    return client.post(
        f"{API}/campaigns/{campaign['id']}/invitations", json=body, headers=caller.headers
    )


def accept(client, code, caller):
    return client.post(f"{API}/invitations/{code}/accept", headers=caller.headers)


def members(client, campaign, caller) -> set[str]:
    response = client.get(f"{API}/campaigns/{campaign['id']}/members", headers=caller.headers)
    assert response.status_code == 200, response.text
    return {m["user_id"] for m in response.json()["data"]}


def test_a_user_joins_with_the_gms_code_and_plays(client, gm, player, make_campaign):
    campaign = make_campaign()
    response = invite(client, campaign, gm)
    assert response.status_code == 201, response.text
    invitation = response.json()
    assert invitation["status"] == "active" and invitation["role"] == "player"
    assert (invitation["uses"], invitation["max_uses"]) == (0, 1)
    assert len(invitation["code"]) >= 22
    joined = accept(client, invitation["code"], player)
    assert joined.status_code == 201, joined.text
    assert joined.json()["user_id"] == player.id and joined.json()["role"] == "player"
    assert player.id in members(client, campaign, gm)
    # A member now: the campaign's log is theirs to read.
    log = client.get(f"{API}/campaigns/{campaign['id']}/log", headers=player.headers)
    assert log.status_code == 200
    (listed,) = client.get(
        f"{API}/campaigns/{campaign['id']}/invitations", headers=gm.headers
    ).json()["data"]
    assert (listed["uses"], listed["status"]) == (1, "used_up")


def test_a_code_serves_its_uses_once_per_user(
    client, gm, player, other_player, outsider, make_campaign
):
    campaign = make_campaign()
    code = invite(client, campaign, gm, max_uses=2).json()["code"]
    assert accept(client, code, player).status_code == 201
    assert_problem(accept(client, code, player), 409, "already a member")
    assert accept(client, code, other_player).status_code == 201
    assert_problem(accept(client, code, outsider), 410, "used up")
    assert outsider.id not in members(client, campaign, gm)


def test_revoked_and_expired_codes_let_nobody_in(
    client, gm, player, outsider, make_campaign, session
):
    campaign = make_campaign()
    revoked = invite(client, campaign, gm).json()
    path = f"{API}/campaigns/{campaign['id']}/invitations/{revoked['id']}"
    assert_problem(client.delete(path, headers=player.headers), 404)  # not a member
    assert client.delete(path, headers=gm.headers).status_code == 204
    assert_problem(accept(client, revoked["code"], outsider), 410, "revoked")
    expired = invite(client, campaign, gm, expires_in_hours=1).json()
    row = session.exec(select(Invitation).where(Invitation.code == expired["code"])).one()
    row.expires_at = utcnow() - timedelta(minutes=1)
    session.add(row)
    session.commit()
    assert_problem(accept(client, expired["code"], outsider), 410, "expired")
    assert_problem(accept(client, "no-such-code", outsider), 404, "no invitation")
    statuses = {
        i["id"]: i["status"]
        for i in client.get(
            f"{API}/campaigns/{campaign['id']}/invitations", headers=gm.headers
        ).json()["data"]
    }
    assert statuses == {revoked["id"]: "revoked", expired["id"]: "expired"}
    assert members(client, campaign, gm) == {gm.id}


def test_only_the_gm_invites_lists_and_revokes(client, gm, player, make_campaign):
    campaign = make_campaign(players=(player,))
    assert_problem(invite(client, campaign, player), 403, "GM")
    listing = client.get(f"{API}/campaigns/{campaign['id']}/invitations", headers=player.headers)
    assert_problem(listing, 403, "GM")
    invitation = invite(client, campaign, gm).json()
    path = f"{API}/campaigns/{campaign['id']}/invitations/{invitation['id']}"
    assert_problem(client.delete(path, headers=player.headers), 403, "GM")
    for body in ({"role": "gm"}, {"max_uses": 0}, {"expires_in_hours": 0}, {"extra": 1}):
        assert_problem(invite(client, campaign, gm, **body), 422)
