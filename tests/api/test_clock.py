"""The campaign clock: sessions and scenes."""

import uuid

from tests.conftest import API, assert_problem


def test_session_start_opens_a_scene_and_scenes_count_up(client, gm, make_campaign):
    campaign = make_campaign()
    url = f"{API}/campaigns/{campaign['id']}"
    first = client.post(f"{url}/sessions", json={}, headers=gm.headers)
    assert first.status_code == 201
    assert (first.json()["current_session"], first.json()["current_scene"]) == (1, 1)
    scene = client.post(f"{url}/scenes", json={"night_passed": True}, headers=gm.headers)
    assert (scene.json()["current_session"], scene.json()["current_scene"]) == (1, 2)
    campaign_now = client.get(url, headers=gm.headers).json()
    assert (campaign_now["current_session"], campaign_now["current_scene"]) == (1, 2)


def test_scene_before_any_session_is_409(client, gm, make_campaign):
    campaign = make_campaign()
    response = client.post(f"{API}/campaigns/{campaign['id']}/scenes", json={}, headers=gm.headers)
    assert_problem(response, 409, "no session")


def test_only_gm_advances_the_clock(client, gm, player, make_campaign):
    campaign = make_campaign(players=(player,))
    url = f"{API}/campaigns/{campaign['id']}/sessions"
    assert_problem(client.post(url, json={}, headers=player.headers), 403, "GM")


def test_facts_must_name_characters_of_the_campaign(client, gm, make_campaign):
    campaign = make_campaign()
    response = client.post(
        f"{API}/campaigns/{campaign['id']}/sessions",
        json={"characters": [{"character_id": str(uuid.uuid4()), "recollected": True}]},
        headers=gm.headers,
    )
    assert_problem(response, 422, "not in this campaign")
    after = client.get(f"{API}/campaigns/{campaign['id']}", headers=gm.headers).json()
    assert after["current_session"] == 0
