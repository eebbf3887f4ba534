"""The feed's room (app/services/feed/reading.py) renders each sight once: members who may
see the same entries, follow-ups and committed values share one rendering, and every
member still receives exactly what GET /log shows them (FAIR-13, FAIR-18, FAIR-19, FAIR-21).
"""

from __future__ import annotations

import json
import uuid

from app.engine.registry import DEFAULT_REGISTRY
from app.models import User
from app.services.feed import reading
from app.services.feed.reading import Viewer, room_batch
from tests.api.helpers import new_session, rolled, url
from tests.api.jdr.plays import MIHAIL_WORDS, followed, partial_supernatural
from tests.conftest import API


def _log(client, campaign, caller, language: str) -> list[dict]:
    page = client.get(
        url(campaign, "/log?limit=200"),
        headers={**caller.headers, "Accept-Language": language},
    )
    assert page.status_code == 200, page.text
    return page.json()["data"]


def test_FAIR_13_each_sight_is_rendered_once_and_each_member_reads_what_GET_log_shows(
    session, client, register, gm, player, other_player, dracula, mihail, forced_dice
):
    third = register("Third player")
    added = client.post(
        f"{API}/campaigns/{dracula['id']}/members",
        json={"user_id": third.id, "role": "player"},
        headers=gm.headers,
    )
    assert added.status_code == 201, added.text
    new_session(client, dracula, gm)
    # FAIR-21: a ruling for the GM only on a player's Talisman (follow-ups seen unalike).
    action = partial_supernatural(client, dracula, player, mihail, forced_dice)
    invoked = followed(client, dracula, player, "jdr.talisman", action["seq"], words=MIHAIL_WORDS)
    followed(
        client, dracula, gm, "jdr.talisman_ruling", invoked["seq"], sincere=False, visibility="gm"
    )
    # FAIR-13: hidden rolls of each kind; FAIR-19: one of them disclosed to everyone.
    dice = {"kind": "dice", "notation": "2d6"}
    forced_dice.push(1, 2, 3, 4, 5, 6, 6, 5)
    blind = rolled(client, dracula, gm, {**dice, "visibility": "blind"})
    rolled(client, dracula, gm, {**dice, "visibility": "blind"})
    rolled(client, dracula, player, {**dice, "visibility": "gm"})
    rolled(client, dracula, other_player, {**dice, "visibility": "self"})
    disclosed = client.post(
        url(dracula, "/log/disclosures"), json={"seqs": [blind["seq"]]}, headers=gm.headers
    )
    assert disclosed.status_code == 201, disclosed.text

    roles = {gm.id: "gm", player.id: "player", other_player.id: "player", third.id: "player"}
    callers = (gm, player, other_player, third)
    viewers = [
        (Viewer(session.get(User, uuid.UUID(caller.id)), language, DEFAULT_REGISTRY), caller)
        for language in ("en", "fr")
        for caller in callers
    ]
    batch = room_batch(
        session,
        uuid.UUID(dracula["id"]),
        0,
        [(viewer, roles[caller.id]) for viewer, caller in viewers],
        set(),
        recheck=True,
    )

    for viewer, caller in viewers:
        events = batch.events[viewer.key]
        assert [json.loads(event.data) for event in events] == _log(
            client, dracula, caller, viewer.language
        )
    # Four sights: the GM sees everything, the player their roll for the GM, the other
    # player their own roll, the third neither; and each language is rendered apart.
    shown = {(caller.id, viewer.language): batch.events[viewer.key] for viewer, caller in viewers}
    for language in ("en", "fr"):
        renderings = {id(shown[(caller.id, language)]) for caller in callers}
        assert len(renderings) == len(callers)
    assert shown[(third.id, "en")] is not shown[(third.id, "fr")]


def test_FAIR_13_members_who_see_alike_share_one_rendering(
    session, client, register, gm, player, other_player, dracula
):
    dice = {"kind": "dice", "notation": "2d6"}
    rolled(client, dracula, gm, dice)
    rolled(client, dracula, gm, {**dice, "visibility": "blind"})
    rolled(client, dracula, player, dice)
    roles = {gm.id: "gm", player.id: "player", other_player.id: "player"}
    viewers = {
        caller.id: Viewer(session.get(User, uuid.UUID(caller.id)), "en", DEFAULT_REGISTRY)
        for caller in (gm, player, other_player)
    }
    batch = room_batch(
        session,
        uuid.UUID(dracula["id"]),
        0,
        [(viewer, roles[user_id]) for user_id, viewer in viewers.items()],
        set(),
        recheck=False,
    )
    players = [batch.events[viewers[caller.id].key] for caller in (player, other_player)]
    assert players[0] is players[1]  # one rendering for both players
    assert batch.events[viewers[gm.id].key] is not players[0]  # the GM sees the blind roll
    assert [json.loads(event.data) for event in players[0]] == _log(client, dracula, player, "en")
    seen = {event.seq: json.loads(event.data) for event in batch.events[viewers[gm.id].key]}
    assert [event.seq for event in players[0]] == sorted(seen)
    blind = [event for event in players[0] if json.loads(event.data).get("redacted")]
    assert len(blind) == 1 and "redacted" not in seen[blind[0].seq]


def test_FAIR_21_members_who_see_the_follow_ups_apart_are_rendered_apart(
    session, client, gm, player, other_player, dracula, mihail, forced_dice, monkeypatch
):
    """A room far behind reads its entries in several reads: the follow-ups of the first
    read's entries may come after it, and they too decide what each member reads."""
    new_session(client, dracula, gm)
    action = partial_supernatural(client, dracula, player, mihail, forced_dice)
    followed(
        client,
        dracula,
        player,
        "jdr.talisman",
        action["seq"],
        words=MIHAIL_WORDS,
        visibility="gm",
    )
    monkeypatch.setattr(reading, "PAGE", 1)
    monkeypatch.setattr(reading, "ROOM_READ", 1)  # this read stops at the action
    viewers = {
        caller.id: Viewer(session.get(User, uuid.UUID(caller.id)), "en", DEFAULT_REGISTRY)
        for caller in (player, other_player)
    }
    batch = room_batch(
        session,
        uuid.UUID(dracula["id"]),
        action["seq"] - 1,
        [(viewer, "player") for viewer in viewers.values()],
        set(),
        recheck=False,
    )
    assert batch.more and batch.head == action["seq"]
    for caller in (player, other_player):
        (event,) = batch.events[viewers[caller.id].key]
        logged = {entry["seq"]: entry for entry in _log(client, dracula, caller, "en")}
        assert json.loads(event.data) == logged[action["seq"]]
    mine, theirs = (batch.events[viewers[caller.id].key] for caller in (player, other_player))
    assert json.loads(mine[0].data)["follow_ups"] != json.loads(theirs[0].data)["follow_ups"]


def test_FAIR_18_19_an_npcs_committed_values_open_for_the_gm_alone_until_disclosed(
    session, client, gm, player, other_player, dracula, brigand, forced_dice
):
    """A public roll of an NPC commits its values to the players (FAIR-18) until the GM
    discloses it (FAIR-19); a room's viewers, a player first, read what GET /log shows."""
    new_session(client, dracula, gm)
    forced_dice.push(5, 2)
    action = rolled(
        client,
        dracula,
        gm,
        {"kind": "jdr.action", "character_id": brigand["id"], "trait": "mental"},
    )
    callers = (player, gm, other_player)  # a player first: the disclosures pass along
    roles = {gm.id: "gm", player.id: "player", other_player.id: "player"}

    def room() -> dict[str, list]:
        viewers = [
            (Viewer(session.get(User, uuid.UUID(caller.id)), "en", DEFAULT_REGISTRY), caller)
            for caller in callers
        ]
        batch = room_batch(
            session,
            uuid.UUID(dracula["id"]),
            action["seq"] - 1,
            [(viewer, roles[caller.id]) for viewer, caller in viewers],
            set(),
            recheck=False,
        )
        shown = {caller.id: batch.events[viewer.key] for viewer, caller in viewers}
        for caller in callers:
            logged = _log(client, dracula, caller, "en")
            assert [json.loads(event.data) for event in shown[caller.id]] == [
                entry for entry in logged if entry["seq"] >= action["seq"]
            ]
        return shown

    before = room()
    assert before[player.id] is before[other_player.id]
    assert before[gm.id] is not before[player.id]
    gm_view, player_view = (json.loads(before[who.id][0].data) for who in (gm, player))
    assert "disclosures" in gm_view and "disclosures" not in player_view
    assert gm_view["result"] != player_view["result"]  # the players read commitments

    disclosed = client.post(
        url(dracula, "/log/disclosures"), json={"seqs": [action["seq"]]}, headers=gm.headers
    )
    assert disclosed.status_code == 201, disclosed.text
    after = room()
    assert after[player.id] is after[other_player.id] is after[gm.id]  # one sight now
    opened = json.loads(after[player.id][0].data)
    assert opened["result"] == gm_view["result"] and opened["disclosures"]
