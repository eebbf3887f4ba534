"""Campaigns: create, list, read, edit, soft delete."""

import pytest

from tests.api.helpers import assert_verified, log_entries
from tests.conftest import API, assert_problem


@pytest.mark.parametrize(
    "system", ["jdr-express-dracula", "jdr-express-cthulhu", "fabulae-tenebris", "vampire"]
)
def test_create_makes_the_caller_gm(client, gm, system):
    response = client.post(
        f"{API}/campaigns", json={"name": "Nuit", "system": system}, headers=gm.headers
    )
    assert response.status_code == 201
    body = response.json()
    assert body["system"] == system
    assert body["gm_id"] == gm.id
    assert body["role"] == "gm"
    assert (body["current_session"], body["current_scene"]) == (0, 0)


def test_options_get_their_defaults(client, gm):
    body = client.post(
        f"{API}/campaigns", json={"name": "V", "system": "vampire"}, headers=gm.headers
    ).json()
    assert body["options"] == {
        "players_set_difficulty": False,
        "blank_botch": False,
        "retry_penalty": True,
        "players_take_automatic": False,
    }


def test_unknown_option_is_422_naming_it(client, gm):
    response = client.post(
        f"{API}/campaigns",
        json={"name": "F", "system": "fabulae-tenebris", "options": {"powers": True}},
        headers=gm.headers,
    )
    body = assert_problem(response, 422, "options.powers")
    assert body["errors"][0]["loc"] == ["options", "powers"]


def test_unknown_system_is_422(client, gm):
    response = client.post(
        f"{API}/campaigns", json={"name": "X", "system": "d20"}, headers=gm.headers
    )
    body = assert_problem(response, 422, "system")
    assert body["errors"][0]["loc"] == ["body", "system"]


def test_list_shows_only_the_callers_campaigns_with_pagination(
    client, gm, player, outsider, make_campaign
):
    first = make_campaign(name="One", players=(player,))
    make_campaign(name="Two")
    make_campaign(name="Three", players=(player,))
    page = client.get(f"{API}/campaigns?limit=2", headers=gm.headers).json()
    assert page["count"] == 3 and len(page["data"]) == 2
    assert [c["name"] for c in page["data"]] == ["Three", "Two"]
    rest = client.get(f"{API}/campaigns?limit=2&offset=2", headers=gm.headers).json()
    assert [c["id"] for c in rest["data"]] == [first["id"]]
    mine = client.get(f"{API}/campaigns", headers=player.headers).json()
    assert mine["count"] == 2 and {c["role"] for c in mine["data"]} == {"player"}
    assert client.get(f"{API}/campaigns", headers=outsider.headers).json() == {
        "data": [],
        "count": 0,
    }


@pytest.mark.parametrize("query", ["limit=201", "limit=0", "offset=-1"])
def test_page_bounds(client, gm, query):
    assert_problem(client.get(f"{API}/campaigns?{query}", headers=gm.headers), 422)


def test_member_reads_campaign_and_non_member_gets_404(client, gm, player, outsider, make_campaign):
    campaign = make_campaign(players=(player,))
    url = f"{API}/campaigns/{campaign['id']}"
    assert client.get(url, headers=player.headers).json()["role"] == "player"
    assert_problem(client.get(url, headers=outsider.headers), 404, "not found")


def test_gm_renames_and_changes_options(client, gm, make_campaign):
    campaign = make_campaign("fabulae-tenebris")
    response = client.patch(
        f"{API}/campaigns/{campaign['id']}",
        json={"name": "Londres", "options": {"powers_allowed": True}},
        headers=gm.headers,
    )
    assert response.status_code == 200
    assert response.json()["name"] == "Londres"
    assert response.json()["options"] == {
        "players_set_difficulty": False,
        "powers_allowed": True,
        "npc_choices_auto": False,
    }


def test_an_option_is_true_or_false_not_a_word(client, gm, make_campaign):
    campaign = make_campaign("vampire")
    response = client.patch(
        f"{API}/campaigns/{campaign['id']}",
        json={"options": {"players_set_difficulty": "yes"}},
        headers=gm.headers,
    )
    assert_problem(response, 422, "players_set_difficulty")
    stored = client.get(f"{API}/campaigns/{campaign['id']}", headers=gm.headers).json()
    assert stored["options"]["players_set_difficulty"] is False


def test_player_cannot_edit_campaign(client, gm, player, make_campaign):
    campaign = make_campaign(players=(player,))
    response = client.patch(
        f"{API}/campaigns/{campaign['id']}", json={"name": "Mine"}, headers=player.headers
    )
    assert_problem(response, 403, "GM")
    assert (
        client.get(f"{API}/campaigns/{campaign['id']}", headers=gm.headers).json()["name"]
        == (campaign["name"])
    )


def test_bad_options_change_nothing(client, gm, make_campaign):
    campaign = make_campaign("vampire")
    response = client.patch(
        f"{API}/campaigns/{campaign['id']}",
        json={"name": "Renamed", "options": {"blank_botch": "maybe"}},
        headers=gm.headers,
    )
    assert_problem(response, 422, "blank_botch")
    after = client.get(f"{API}/campaigns/{campaign['id']}", headers=gm.headers).json()
    assert after["name"] == campaign["name"]


def test_delete_is_soft_and_gm_only(client, gm, player, make_campaign):
    campaign = make_campaign(players=(player,))
    url = f"{API}/campaigns/{campaign['id']}"
    assert_problem(client.delete(url, headers=player.headers), 403)
    assert client.delete(url, headers=gm.headers).status_code == 204
    assert_problem(client.get(url, headers=gm.headers), 404)
    assert client.get(f"{API}/campaigns", headers=gm.headers).json()["count"] == 0


def test_FAIR_4_deleting_reveals_the_open_seed_and_the_gm_still_verifies(
    client, gm, player, make_campaign
):
    """Issue 16: a deleted campaign's last epoch is revealed at deletion, so its rolls stay
    verifiable by its GM; its members lose access."""
    campaign = make_campaign(players=(player,))
    url = f"{API}/campaigns/{campaign['id']}"
    roll = client.post(f"{url}/rolls", json={"kind": "dice", "notation": "2d6"}, headers=gm.headers)
    assert roll.status_code == 201, roll.text
    assert client.delete(url, headers=gm.headers).status_code == 204
    entries = log_entries(client, campaign, gm)
    closed = entries[-1]
    assert closed["kind"] == "epoch_closed" and closed["epoch"] == roll.json()["epoch"]
    fairness = client.get(f"{url}/fairness", headers=gm.headers)
    assert fairness.status_code == 200, fairness.text
    current = fairness.json()["current"]  # no epoch opens after it
    assert current["epoch"] == closed["epoch"] and current["last_seq"] == closed["seq"]
    assert current["server_seed"] == closed["result"]["server_seed"]
    assert_verified(client, campaign, gm)
    assert_problem(client.get(f"{url}/log", headers=player.headers), 404)
    assert_problem(client.get(f"{url}/fairness", headers=player.headers), 404)
    # Nothing is left to reveal, and a deleted campaign opens no new epoch.
    assert_problem(client.post(f"{url}/fairness/rotate", headers=gm.headers), 409, "revealed")
    assert log_entries(client, campaign, gm) == entries


def test_name_is_bounded(client, gm):
    response = client.post(
        f"{API}/campaigns", json={"name": "x" * 121, "system": "vampire"}, headers=gm.headers
    )
    assert_problem(response, 422, "name")
