"""Campaign members."""

import uuid

from tests.conftest import API, assert_problem


def members_url(campaign):
    return f"{API}/campaigns/{campaign['id']}/members"


def test_gm_adds_a_player_and_everyone_lists_members(client, gm, player, make_campaign):
    campaign = make_campaign()
    response = client.post(
        members_url(campaign), json={"user_id": player.id, "role": "player"}, headers=gm.headers
    )
    assert response.status_code == 201
    assert response.json()["role"] == "player" and response.json()["name"] == player.name
    listing = client.get(members_url(campaign), headers=player.headers).json()
    assert listing["count"] == 2
    assert {(m["user_id"], m["role"]) for m in listing["data"]} == {
        (gm.id, "gm"),
        (player.id, "player"),
    }


def test_role_must_be_player(client, gm, player, make_campaign):
    campaign = make_campaign()
    response = client.post(
        members_url(campaign), json={"user_id": player.id, "role": "gm"}, headers=gm.headers
    )
    assert_problem(response, 422, "role")


def test_adding_twice_is_409(client, gm, player, make_campaign):
    campaign = make_campaign(players=(player,))
    response = client.post(members_url(campaign), json={"user_id": player.id}, headers=gm.headers)
    assert_problem(response, 409, "already a member")


def test_unknown_user_is_422(client, gm, make_campaign):
    campaign = make_campaign()
    response = client.post(
        members_url(campaign), json={"user_id": str(uuid.uuid4())}, headers=gm.headers
    )
    assert_problem(response, 422, "does not exist")


def test_player_cannot_add_members(client, gm, player, other_player, make_campaign):
    campaign = make_campaign(players=(player,))
    response = client.post(
        members_url(campaign), json={"user_id": other_player.id}, headers=player.headers
    )
    assert_problem(response, 403)


def test_non_member_gets_404(client, gm, outsider, make_campaign):
    campaign = make_campaign()
    assert_problem(client.get(members_url(campaign), headers=outsider.headers), 404)


def test_gm_removes_a_player_who_then_loses_access(client, gm, player, make_campaign):
    campaign = make_campaign(players=(player,))
    response = client.delete(f"{members_url(campaign)}/{player.id}", headers=gm.headers)
    assert response.status_code == 204
    assert_problem(client.get(f"{API}/campaigns/{campaign['id']}", headers=player.headers), 404)


def test_player_may_leave_but_not_remove_others(client, gm, player, other_player, make_campaign):
    campaign = make_campaign(players=(player, other_player))
    assert_problem(
        client.delete(f"{members_url(campaign)}/{other_player.id}", headers=player.headers), 403
    )
    assert (
        client.delete(f"{members_url(campaign)}/{player.id}", headers=player.headers).status_code
        == 204
    )


def test_gm_cannot_leave(client, gm, make_campaign):
    campaign = make_campaign()
    assert_problem(client.delete(f"{members_url(campaign)}/{gm.id}", headers=gm.headers), 409)


def test_removing_a_non_member_is_404(client, gm, outsider, make_campaign):
    campaign = make_campaign()
    assert_problem(client.delete(f"{members_url(campaign)}/{outsider.id}", headers=gm.headers), 404)
