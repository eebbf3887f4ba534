"""Generic dice rolls, the log listings, visibility and redaction (FAIR-8..13)."""

import json
import subprocess
import sys

import pytest

from tests.conftest import API, assert_problem


def url(campaign, tail=""):
    return f"{API}/campaigns/{campaign['id']}{tail}"


def roll(client, campaign, caller, notation="3d6kh2+1", **extra):
    return client.post(
        url(campaign, "/rolls"),
        json={"kind": "dice", "notation": notation, **extra},
        headers=caller.headers,
    )


def test_dice_roll_returns_its_audit_entry(client, gm, make_campaign):
    campaign = make_campaign()
    response = roll(client, campaign, gm, "3d6kh2+1")
    assert response.status_code == 201
    entry = response.json()
    assert entry["kind"] == "dice" and entry["seq"] == 2 and entry["epoch"] == 1
    assert entry["request"] == {"notation": "3d6kh2+1"}
    assert [d["sides"] for d in entry["draws"]] == [6, 6, 6]  # FAIR-8: every die recorded
    # Rules version 2 (issue 21): each dice group's dice in draw order, the d20 rendering.
    assert entry["rules"] == "dice@3"
    (group,) = entry["result"]["groups"]
    faces = [d["face"] for d in entry["draws"]]
    assert group["dice"] == "3d6kh2" and [d["face"] for d in group["rolls"]] == faces
    dropped = [d.get("dropped", False) for d in group["rolls"]]
    assert dropped.count(True) == 1
    kept = sorted(faces, reverse=True)[:2]
    assert group["value"] == sum(kept)
    assert entry["result"]["total"] == sum(kept) + 1
    shown = ", ".join(f"~~{f}~~" if d else str(f) for f, d in zip(faces, dropped, strict=True))
    assert entry["result"]["rendered"] == f"3d6kh2 ({shown}) + 1 = {sum(kept) + 1}"
    assert entry["actor_id"] == gm.id and entry["visibility"] == "public"
    assert entry["follows"] is None and len(entry["hash"]) == 64


@pytest.mark.parametrize(
    ("notation", "fragment"),
    [
        ("101d6", "at most 100"),
        ("60d6+41d4", "at most 100"),
        ("1d1001", "1..1000 sides"),
        ("0d6", "at least one die"),
        ("1d6rr<7", "never end"),
        ("2d6**3", "unexpected '*'"),
        ("d", "it ends too soon"),
        ("(" * 11 + "1" + ")" * 11, "nest deeper than 10"),
    ],
)
def test_bad_notation_is_422_and_logs_nothing(client, gm, make_campaign, notation, fragment):
    campaign = make_campaign()
    body = assert_problem(roll(client, campaign, gm, notation), 422, fragment)
    assert body["errors"][0]["loc"] == ["body", "notation"]
    assert client.get(url(campaign, "/log"), headers=gm.headers).json()["data"][-1]["seq"] == 1


@pytest.mark.parametrize("huge", [2**31, 2**64, 10**20])
def test_a_seq_no_log_can_hold_is_422_not_500(client, gm, make_campaign, huge):
    # The seq column is 32-bit: past it, SQLite cannot even compare (and PostgreSQL casts).
    campaign = make_campaign("fabulae-tenebris")
    base = f"{API}/campaigns/{campaign['id']}"
    for path in (f"/log?after_seq={huge}", f"/rolls?after_seq={huge}", f"/rolls/{huge}"):
        assert_problem(client.get(base + path, headers=gm.headers), 422)
    body = {"kind": "fabulae.push", "follows": huge}
    assert_problem(client.post(f"{base}/rolls", json=body, headers=gm.headers), 422, "follows")


def test_unknown_kind_is_422(client, gm, make_campaign):
    campaign = make_campaign()
    response = client.post(url(campaign, "/rolls"), json={"kind": "d20.attack"}, headers=gm.headers)
    assert_problem(response, 422, "kind")


def test_players_roll_only_for_their_own_characters(
    client, gm, player, other_player, make_campaign, make_character
):
    campaign = make_campaign(players=(player, other_player))
    mine = make_character(campaign, player)
    assert roll(client, campaign, player, character_id=mine["id"]).status_code == 201
    assert_problem(roll(client, campaign, other_player, character_id=mine["id"]), 403)
    assert roll(client, campaign, gm, character_id=mine["id"]).status_code == 201


def test_rolls_list_only_rolls_and_log_lists_everything(client, gm, make_campaign):
    campaign = make_campaign()
    client.post(url(campaign, "/sessions"), json={}, headers=gm.headers)
    roll(client, campaign, gm)
    rolls = client.get(url(campaign, "/rolls"), headers=gm.headers).json()
    assert [e["kind"] for e in rolls["data"]] == ["dice"]
    log = client.get(url(campaign, "/log"), headers=gm.headers).json()
    assert [e["kind"] for e in log["data"]] == ["epoch_opened", "session_started", "dice"]
    assert [e["seq"] for e in log["data"]] == [1, 2, 3]


def test_keyset_pagination(client, gm, make_campaign):
    campaign = make_campaign()
    for _ in range(5):
        roll(client, campaign, gm, "1d6")
    first = client.get(url(campaign, "/rolls?limit=2"), headers=gm.headers).json()
    assert [e["seq"] for e in first["data"]] == [2, 3] and first["next_after_seq"] == 3
    second = client.get(url(campaign, "/rolls?limit=2&after_seq=3"), headers=gm.headers).json()
    assert [e["seq"] for e in second["data"]] == [4, 5]
    last = client.get(url(campaign, "/rolls?limit=2&after_seq=5"), headers=gm.headers).json()
    assert [e["seq"] for e in last["data"]] == [6] and last["next_after_seq"] is None
    assert_problem(client.get(url(campaign, "/rolls?limit=201"), headers=gm.headers), 422)


def test_filters_by_character_and_kind(client, gm, player, make_campaign, make_character):
    campaign = make_campaign(players=(player,))
    mine = make_character(campaign, player)
    roll(client, campaign, player, character_id=mine["id"])
    roll(client, campaign, gm)
    by_character = client.get(
        url(campaign, f"/rolls?character_id={mine['id']}"), headers=gm.headers
    ).json()
    assert [e["character_id"] for e in by_character["data"]] == [mine["id"]]
    by_kind = client.get(url(campaign, "/log?kind=epoch_opened"), headers=gm.headers).json()
    assert [e["seq"] for e in by_kind["data"]] == [1]


def test_get_one_roll_and_404_for_other_entries(client, gm, make_campaign):
    campaign = make_campaign()
    rolled = roll(client, campaign, gm).json()
    assert client.get(url(campaign, f"/rolls/{rolled['seq']}"), headers=gm.headers).json() == rolled
    assert_problem(client.get(url(campaign, "/rolls/1"), headers=gm.headers), 404, "no roll")
    assert_problem(client.get(url(campaign, "/rolls/999"), headers=gm.headers), 404)


# FAIR-13: who sees what; everyone else gets the redacted form.
VISIBILITY = {
    # visibility: (roller sees, GM sees, other player sees)
    "public": (True, True, True),
    "gm": (True, True, False),
    "self": (True, True, False),
    "blind": (False, True, False),
}


@pytest.mark.parametrize("visibility", sorted(VISIBILITY))
def test_FAIR_13_visibility_and_redaction(
    client, gm, player, other_player, make_campaign, visibility
):
    campaign = make_campaign(players=(player, other_player))
    response = roll(client, campaign, player, visibility=visibility)
    assert response.status_code == 201
    roller_sees, gm_sees, other_sees = VISIBILITY[visibility]
    seq = response.json()["seq"]
    for caller, sees in ((player, roller_sees), (gm, gm_sees), (other_player, other_sees)):
        views = [
            client.get(url(campaign, f"/rolls/{seq}"), headers=caller.headers).json(),
            client.get(url(campaign, "/rolls"), headers=caller.headers).json()["data"][0],
            client.get(url(campaign, "/log"), headers=caller.headers).json()["data"][-1],
        ]
        if caller is player:
            views.append(response.json())
        for view in views:
            if sees:
                assert "result" in view and "redacted" not in view
            else:
                assert view == {
                    "seq": seq,
                    "epoch": 1,
                    "kind": "dice",
                    "visibility": visibility,
                    "created_at": view["created_at"],
                    "prev_hash": view["prev_hash"],
                    "content_hash": view["content_hash"],
                    "hash": view["hash"],
                    "redacted": True,
                }


def test_FAIR_13_character_filter_does_not_reveal_hidden_entries(
    client, gm, player, other_player, make_campaign, make_character
):
    campaign = make_campaign(players=(player, other_player))
    mine = make_character(campaign, player)
    roll(client, campaign, player, character_id=mine["id"], visibility="gm")
    listing = client.get(
        url(campaign, f"/rolls?character_id={mine['id']}"), headers=other_player.headers
    ).json()
    assert listing["data"] == []


def test_clock_options_and_sheet_changes_are_entries(
    client, gm, player, make_campaign, make_character
):
    campaign = make_campaign("vampire", players=(player,))
    pc = make_character(campaign, player, name="Lucie")
    client.post(url(campaign, "/sessions"), json={"night_passed": True}, headers=gm.headers)
    client.post(url(campaign, "/scenes"), json={}, headers=gm.headers)
    client.patch(url(campaign), json={"options": {"blank_botch": True}}, headers=gm.headers)
    client.patch(
        f"{API}/characters/{pc['id']}",
        json={"sheet": {"willpower": {"max": 5, "current": 3}}},
        headers=gm.headers,
    )
    client.patch(
        f"{API}/characters/{pc['id']}",
        json={"sheet": {"abilities": {"bagarre": 2}}},
        headers=player.headers,
    )
    entries = client.get(url(campaign, "/log"), headers=gm.headers).json()["data"]
    kinds = [e["kind"] for e in entries]
    assert kinds == [
        "epoch_opened",
        "session_started",
        "scene_started",
        "options_changed",
        "sheet_override",
        "sheet_edit",
    ]
    session_entry, scene_entry = entries[1], entries[2]
    assert session_entry["result"] == {"session": 1, "scene": 1}
    assert scene_entry["result"] == {"session": 1, "scene": 2}
    override = entries[4]
    assert override["actor_id"] == gm.id and override["character_id"] == pc["id"]
    assert override["effects"] == [
        {
            "character_id": pc["id"],
            "field": "willpower",
            "before": {"max": 5, "current": 5},
            "after": {"max": 5, "current": 3},
        }
    ]
    assert client.get(url(campaign, "/log/verify"), headers=gm.headers).json()["ok"] is True


def test_export_is_ndjson_and_verifies_offline_even_redacted(
    client, gm, player, make_campaign, tmp_path
):
    campaign = make_campaign(players=(player,))
    roll(client, campaign, gm, "2d6", visibility="blind")
    roll(client, campaign, player, "1d20")
    client.post(url(campaign, "/fairness/rotate"), headers=gm.headers)
    roll(client, campaign, player, "1d8", visibility="self")
    for caller, redacted in ((gm, 0), (player, 1)):
        response = client.get(url(campaign, "/log/export"), headers=caller.headers)
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("application/x-ndjson")
        lines = [json.loads(line) for line in response.text.splitlines()]
        assert [entry["seq"] for entry in lines] == list(range(1, 7))
        assert sum(1 for entry in lines if entry.get("redacted")) == redacted
        export = tmp_path / f"{caller.name}.ndjson"
        export.write_bytes(response.content)
        checked = subprocess.run(
            [sys.executable, "-m", "app.verify", str(export)], capture_output=True, text=True
        )
        assert checked.returncode == 0, checked.stdout + checked.stderr
        assert checked.stdout.startswith("OK: 6 entries checked")


def test_deleted_campaign_log_stays_exportable_by_its_gm(client, gm, player, make_campaign):
    campaign = make_campaign(players=(player,))
    roll(client, campaign, gm)
    client.delete(url(campaign), headers=gm.headers)
    export = client.get(url(campaign, "/log/export"), headers=gm.headers)
    lines = export.text.splitlines()
    # The epoch opened, the roll, and the epoch closed by the deletion, its seed revealed.
    assert export.status_code == 200 and len(lines) == 3
    assert json.loads(lines[-1])["kind"] == "epoch_closed"
    assert client.get(url(campaign, "/log/verify"), headers=gm.headers).json()["ok"] is True
    assert_problem(client.get(url(campaign, "/log/export"), headers=player.headers), 404)
    assert_problem(roll(client, campaign, gm), 404)
