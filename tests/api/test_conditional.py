"""Cheap polling (issue 20, point 4): an ETag on every JSON GET, If-None-Match answered 304
with no body, and the campaign's log head."""

from __future__ import annotations

from tests.api.helpers import post_roll
from tests.conftest import API, FABULAE_SHEET


def test_a_campaign_shows_its_log_head_and_answers_304_while_unchanged(
    client, gm, player, make_campaign, make_character, forced_dice
):
    campaign = make_campaign("fabulae-tenebris", players=(player,))
    url = f"{API}/campaigns/{campaign['id']}"
    first = client.get(url, headers=player.headers)
    assert first.status_code == 200
    head = first.json()["log_head"]
    assert first.headers["Log-Head"] == f"{head['seq']} {head['hash']}"
    etag = first.headers["ETag"]
    unchanged = client.get(url, headers={**player.headers, "If-None-Match": etag})
    assert unchanged.status_code == 304 and unchanged.content == b""
    assert unchanged.headers["ETag"] == etag
    # The GM reads another body (their role), so another tag.
    assert client.get(url, headers=gm.headers).headers["ETag"] != etag
    # A roll moves the head: the same tag is answered in full.
    ada = make_character(campaign, player, sheet={**FABULAE_SHEET}, name="Ada")
    forced_dice.push(2, 2, 2, 2, 2)
    body = {
        "kind": "fabulae.action",
        "character_id": ada["id"],
        "attribute": "intellect",
        "skill": "observation",
    }
    assert post_roll(client, campaign, player, body).status_code == 201
    moved = client.get(url, headers={**player.headers, "If-None-Match": etag})
    assert moved.status_code == 200 and moved.json()["log_head"]["seq"] > head["seq"]


def test_lists_characters_and_entries_answer_304_while_unchanged(
    client, gm, player, make_campaign, make_character, forced_dice
):
    campaign = make_campaign("fabulae-tenebris", players=(player,))
    ada = make_character(campaign, player, sheet={**FABULAE_SHEET}, name="Ada")
    forced_dice.push(2, 2, 2, 2, 2)
    body = {
        "kind": "fabulae.action",
        "character_id": ada["id"],
        "attribute": "intellect",
        "skill": "observation",
    }
    seq = post_roll(client, campaign, player, body).json()["seq"]
    for url in (
        f"{API}/campaigns/{campaign['id']}/log?after_seq=0",
        f"{API}/characters/{ada['id']}",
        f"{API}/campaigns/{campaign['id']}/rolls/{seq}",
    ):
        first = client.get(url, headers=player.headers)
        assert first.status_code == 200, (url, first.text)
        again = client.get(url, headers={**player.headers, "If-None-Match": first.headers["ETag"]})
        assert again.status_code == 304, url
        stale = client.get(url, headers={**player.headers, "If-None-Match": '"nope"'})
        assert stale.status_code == 200 and stale.json() == first.json()


def test_an_encounter_keeps_its_own_version_as_its_etag(client, gm, player, make_campaign):
    campaign = make_campaign("fabulae-tenebris", players=(player,))
    created = client.post(
        f"{API}/campaigns/{campaign['id']}/encounters",
        json={"name": "Quai", "combatants": []},
        headers=gm.headers,
    )
    assert created.status_code == 201, created.text
    url = f"{API}/encounters/{created.json()['id']}"
    first = client.get(url, headers=gm.headers)
    assert first.headers["ETag"] == f'"{first.json()["version"]}"'
    assert (
        client.get(url, headers={**gm.headers, "If-None-Match": first.headers["ETag"]}).status_code
        == 304
    )


def test_every_json_GET_documents_If_None_Match_and_its_304(client):
    document = client.get("/openapi.json").json()
    gets = {
        path: operations["get"]
        for path, operations in document["paths"].items()
        if "get" in operations
        and "application/json" in operations["get"]["responses"].get("200", {}).get("content", {})
    }
    assert f"{API}/campaigns/{{campaign_id}}/log" in gets
    for path, operation in gets.items():
        assert "304" in operation["responses"], path
        assert "ETag" in operation["responses"]["200"]["headers"], path
        names = [parameter["name"].lower() for parameter in operation.get("parameters", [])]
        assert names.count("if-none-match") == 1, path
    stream = document["paths"][f"{API}/campaigns/{{campaign_id}}/events"]["get"]
    assert "304" not in stream["responses"]  # a stream is never answered 304
