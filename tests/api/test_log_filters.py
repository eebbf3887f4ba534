"""Issue 21, point 4: the audit's filters on GET /rolls and GET /log (actor, character,
kind exact or by prefix, session, scene, visibility, time range); every entry records its
session and scene, beside its hashed content (FAIR-10), and a filter never reveals what a
hidden entry holds (FAIR-13)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from tests.api.helpers import rolled, url
from tests.conftest import API, assert_problem


def dice(client, campaign, caller, **extra: Any) -> dict[str, Any]:
    return rolled(client, campaign, caller, {"kind": "dice", "notation": "1d6", **extra})


def action(client, campaign, caller, character) -> dict[str, Any]:
    body = {"kind": "jdr.action", "character_id": character["id"], "trait": "mental"}
    return rolled(client, campaign, caller, body)


def listed(client, campaign, caller, tail: str, query: str = "") -> list[dict[str, Any]]:
    response = client.get(url(campaign, f"{tail}?limit=200{query}"), headers=caller.headers)
    assert response.status_code == 200, response.text
    return response.json()["data"]


def seqs(entries: list[dict[str, Any]]) -> list[int]:
    return [entry["seq"] for entry in entries]


def test_every_entry_records_its_session_and_scene_generic_dice_included(
    client, gm, player, make_campaign
):
    campaign = make_campaign(players=(player,))
    before = dice(client, campaign, player)
    client.post(url(campaign, "/sessions"), json={}, headers=gm.headers)
    first = dice(client, campaign, player)
    client.post(url(campaign, "/scenes"), json={}, headers=gm.headers)
    second = dice(client, campaign, gm)
    client.post(url(campaign, "/sessions"), json={}, headers=gm.headers)
    third = dice(client, campaign, player)
    assert (before["session"], before["scene"]) == (0, 0)
    assert (first["session"], first["scene"]) == (1, 1)
    assert (second["session"], second["scene"]) == (1, 2)
    assert (third["session"], third["scene"]) == (2, 3)
    log = listed(client, campaign, gm, "/log")
    places = {entry["kind"]: [] for entry in log}
    for entry in log:
        places[entry["kind"]].append((entry["session"], entry["scene"]))
    # A clock entry belongs to the session and scene it opens.
    assert places["session_started"] == [(1, 1), (2, 3)]
    assert places["scene_started"] == [(1, 2)]
    one = client.get(url(campaign, f"/rolls/{second['seq']}"), headers=player.headers).json()
    assert (one["session"], one["scene"]) == (1, 2)
    # FAIR-10: recorded beside the entry, never hashed: the export does not carry them.
    export = client.get(url(campaign, "/log/export"), headers=gm.headers).text
    exported = [json.loads(line) for line in export.splitlines()]
    assert exported and all("session" not in e and "scene" not in e for e in exported)
    verified = client.get(url(campaign, "/log/verify"), headers=gm.headers).json()
    assert verified["ok"] is True


def test_filters_by_session_scene_actor_and_visibility(client, gm, player, make_campaign):
    campaign = make_campaign(players=(player,))
    client.post(url(campaign, "/sessions"), json={}, headers=gm.headers)
    a = dice(client, campaign, player)
    b = dice(client, campaign, gm, visibility="gm")
    client.post(url(campaign, "/scenes"), json={}, headers=gm.headers)
    c = dice(client, campaign, player)
    client.post(url(campaign, "/sessions"), json={}, headers=gm.headers)
    d = dice(client, campaign, gm)
    assert seqs(listed(client, campaign, gm, "/rolls", "&session=1")) == seqs([a, b, c])
    assert seqs(listed(client, campaign, gm, "/rolls", "&session=1&scene=2")) == [c["seq"]]
    assert seqs(listed(client, campaign, gm, "/rolls", "&scene=3")) == [d["seq"]]
    by_player = listed(client, campaign, gm, "/rolls", f"&actor_id={player.id}")
    assert seqs(by_player) == seqs([a, c])
    assert seqs(listed(client, campaign, gm, "/rolls", "&visibility=gm")) == [b["seq"]]
    assert seqs(listed(client, campaign, gm, "/rolls", "&visibility=public")) == seqs([a, c, d])
    # The log lists every kind; its filters are the same.
    session_two = listed(client, campaign, gm, "/log", "&session=2")
    assert [entry["kind"] for entry in session_two] == ["session_started", "dice"]


def test_kind_filter_exact_or_by_prefix(client, gm, player, make_campaign, make_character):
    campaign = make_campaign(players=(player,))
    hero = make_character(campaign, player)
    rolled_dice = dice(client, campaign, player)
    acted = action(client, campaign, player, hero)
    assert seqs(listed(client, campaign, gm, "/rolls", "&kind=jdr.")) == [acted["seq"]]
    assert seqs(listed(client, campaign, gm, "/rolls", "&kind=jdr.action")) == [acted["seq"]]
    assert seqs(listed(client, campaign, gm, "/rolls", "&kind=dice")) == [rolled_dice["seq"]]
    # A kind no entry can have is a mistake, said as such (not an empty page): a prefix is
    # only a prefix when it ends in ".", so "jdr" names an exact kind, and none is "jdr".
    for path in (
        "/rolls?kind=jdr",
        "/rolls?kind=JDR.ACTION",
        "/log?kind=epoch_",
        "/log?kind=*",
        "/rolls?kind=%25.",  # LIKE's wildcards are plain characters in a prefix
        "/stats?kind=jdr",
        "/stats?kind=wod.",  # no ruleset has this family
    ):
        assert_problem(client.get(url(campaign, path), headers=gm.headers), 422, "kind")
    assert listed(client, campaign, gm, "/rolls", "&kind=epoch_opened") == []  # not a roll
    assert [e["kind"] for e in listed(client, campaign, gm, "/log", "&kind=epoch_opened")] == [
        "epoch_opened"
    ]


def test_time_range_filters_by_created_at(client, gm, make_campaign):
    campaign = make_campaign()
    first = dice(client, campaign, gm)
    second = dice(client, campaign, gm)
    middle = first["created_at"]
    # [created_after, created_before): the first bound is in, the second out.
    from_first = listed(client, campaign, gm, "/rolls", f"&created_after={middle}")
    assert seqs(from_first) == [first["seq"], second["seq"]]
    after_first = listed(client, campaign, gm, "/rolls", f"&created_after={second['created_at']}")
    assert seqs(after_first) == [second["seq"]]
    before_second = listed(
        client, campaign, gm, "/rolls", f"&created_before={second['created_at']}"
    )
    assert seqs(before_second) == [first["seq"]]
    # Any RFC 3339 offset: the same moment in +02:00 is compared as UTC.
    moment = datetime.fromisoformat(middle.replace("Z", "+00:00"))
    paris = moment.astimezone(timezone(timedelta(hours=2))).isoformat()
    query = f"&created_after={paris.replace('+', '%2B')}"
    assert seqs(listed(client, campaign, gm, "/rolls", query)) == seqs([first, second])
    hour_ago = (datetime.now(UTC) - timedelta(hours=1)).isoformat().replace("+00:00", "Z")
    in_hour = (datetime.now(UTC) + timedelta(hours=1)).isoformat().replace("+00:00", "Z")
    window = f"&created_after={hour_ago}&created_before={in_hour}"
    assert seqs(listed(client, campaign, gm, "/rolls", window)) == seqs([first, second])
    backwards = client.get(
        url(campaign, f"/rolls?created_after={in_hour}&created_before={hour_ago}"),
        headers=gm.headers,
    )
    assert_problem(backwards, 422, "created_after")
    bad = client.get(url(campaign, "/log?created_after=yesterday"), headers=gm.headers)
    assert bad.status_code == 422
    # A moment UTC has no date for (year 0, year 10000) is refused, not a 500.
    for name, moment in (
        ("created_after", "0001-01-01T00:00:00%2B01:00"),
        ("created_before", "9999-12-31T23:30:00-01:00"),
    ):
        for tail in ("/log", "/rolls", "/stats"):
            refused = client.get(url(campaign, f"{tail}?{name}={moment}"), headers=gm.headers)
            assert_problem(refused, 422, name)
    edge = "&created_after=0001-01-01T00:00:00Z&created_before=9999-12-31T23:59:59Z"
    assert seqs(listed(client, campaign, gm, "/rolls", edge)) == seqs([first, second])


def test_FAIR_13_filters_never_list_hidden_entries_to_whoever_may_not_see_them(
    client, gm, player, other_player, make_campaign, make_character
):
    campaign = make_campaign(players=(player, other_player))
    hero = make_character(campaign, player)
    client.post(url(campaign, "/sessions"), json={}, headers=gm.headers)
    hidden = rolled(
        client,
        campaign,
        player,
        {"kind": "jdr.action", "character_id": hero["id"], "trait": "mental", "visibility": "gm"},
    )
    shown = dice(client, campaign, player)
    # Unfiltered, the other player reads the hidden entry redacted (FAIR-13) ...
    unfiltered = listed(client, campaign, other_player, "/rolls")
    assert [e.get("redacted", False) for e in unfiltered] == [True, False]
    # ... and no filter on what it holds lists it, not even redacted.
    for query in (
        f"&character_id={hero['id']}",
        "&kind=jdr.",
        "&kind=jdr.action",
        f"&actor_id={player.id}",
        "&session=1",
        "&scene=1",
        "&visibility=gm",
    ):
        found = listed(client, campaign, other_player, "/rolls", query)
        assert hidden["seq"] not in seqs(found), query
        found_log = listed(client, campaign, other_player, "/log", query)
        assert hidden["seq"] not in seqs(found_log), query
    assert seqs(listed(client, campaign, other_player, "/rolls", "&session=1")) == [shown["seq"]]
    # The roller and the GM, who may see it, find it.
    for caller in (player, gm):
        query = f"&character_id={hero['id']}&kind=jdr."
        assert seqs(listed(client, campaign, caller, "/rolls", query)) == [hidden["seq"]]


def test_filters_page_with_the_cursor(client, gm, make_campaign):
    campaign = make_campaign()
    made = [dice(client, campaign, gm, visibility="gm" if i % 2 else "public") for i in range(5)]
    first = client.get(url(campaign, "/rolls?visibility=public&limit=2"), headers=gm.headers).json()
    assert seqs(first["data"]) == [made[0]["seq"], made[2]["seq"]]
    rest = client.get(
        url(campaign, f"/rolls?visibility=public&limit=2&after_seq={first['next_after_seq']}"),
        headers=gm.headers,
    ).json()
    assert seqs(rest["data"]) == [made[4]["seq"]] and rest["next_after_seq"] is None


def test_filter_values_are_checked(client, gm, make_campaign):
    campaign = make_campaign()
    for query in ("visibility=secret", "session=-1", "actor_id=nobody", "scene=x"):
        response = client.get(url(campaign, f"/log?{query}"), headers=gm.headers)
        assert_problem(response, 422)
    before_any = client.get(f"{API}/campaigns/{campaign['id']}/log?session=0", headers=gm.headers)
    assert [entry["kind"] for entry in before_any.json()["data"]] == ["epoch_opened"]
