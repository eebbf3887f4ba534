"""The turn guard and a clean roster (issue 19, points 9, 10 and 12), through the API.

A write names the turn it expects (`expected_turn: {round, character_id}` on /next and on
/actions) or the version it last saw (`If-Match` with the encounter's ETag); a stale one is
409 naming the current turn. The history lists every step. Removing or deleting the
combatant whose turn it is passes the turn on; a character fights in one running
encounter at a time; a combatant who is down is passed by, shown in the history.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.helpers import gm_patch, log_entries
from tests.api.test_encounters import (
    act,
    acted,
    created,
    current,
    enc_url,
    fighter,
    get,
    initiative,
    jdr_sheet,
    next_turn,
    ok,
    post,
    start_session,
    verify_ok,
)
from tests.conftest import API, assert_problem

DRACULA = "jdr-express-dracula"


@pytest.fixture
def table(client, gm, player, other_player, make_campaign, make_character):
    """A Dracula campaign with a session: Mihail (player), Ilona (other player), Strigoi and
    Loup (the GM's NPCs)."""
    campaign = make_campaign(DRACULA, players=(player, other_player))
    start_session(client, campaign, gm)
    return {
        "campaign": campaign,
        "mihail": make_character(campaign, player, sheet=jdr_sheet(3, 2, 1), name="Mihail"),
        "ilona": make_character(campaign, other_player, sheet=jdr_sheet(3, 2, 1), name="Ilona"),
        "strigoi": make_character(
            campaign, gm, sheet=jdr_sheet(2, 3, 1), kind="npc", name="Strigoi"
        ),
        "loup": make_character(campaign, gm, sheet=jdr_sheet(1, 2, 1), kind="npc", name="Loup"),
    }


def fight(client, gm, forced_dice, table, name: str = "Col de Borgo") -> dict[str, Any]:
    """Mihail 14, Ilona 10, Strigoi 5: Mihail's turn, round 1."""
    encounter = created(
        client,
        table["campaign"],
        gm,
        name,
        fighter(table["mihail"], "pcs"),
        fighter(table["ilona"], "pcs"),
        fighter(table["strigoi"], "foes"),
    )
    forced_dice.push(6, 6, 4, 4, 1, 1)
    encounter = initiative(client, encounter, gm)
    assert current(encounter) == "Mihail"
    return encounter


def expect(round_: int, character: dict[str, Any]) -> dict[str, Any]:
    return {"expected_turn": {"round": round_, "character_id": character["id"]}}


def etag(encounter: dict[str, Any]) -> str:
    return f'"{encounter["version"]}"'


def kinds(encounter: dict[str, Any]) -> list[tuple[str, str]]:
    names = {c["character_id"]: c["name"] for c in encounter["combatants"]}
    return [(item["kind"], names[item["actor_id"]]) for item in encounter["history"]]


# --- 9: the turn guard -------------------------------------------------------------------------


def test_a_stale_next_after_a_players_pass_is_409_and_skips_nobody(
    client, gm, player, forced_dice, table
):
    encounter = fight(client, gm, forced_dice, table)
    mihail, ilona = table["mihail"], table["ilona"]
    # The player passes Mihail's turn; the GM, who saw Mihail's turn too, sends a late pass.
    passed = ok(post(client, encounter, "/next", player, expect(1, mihail)))
    assert current(passed) == "Ilona"
    stale = post(client, encounter, "/next", gm, expect(1, mihail))
    body = assert_problem(stale, 409, "round 1, Ilona's turn", "expected round 1, Mihail's turn")
    assert body["type"] == "urn:nocturne:problem:stale-turn"
    assert body["current_turn"] == {"round": 1, "character_id": ilona["id"], "name": "Ilona"}
    assert stale.headers["ETag"] == etag(passed) == f'"{body["version"]}"'
    # Ilona keeps her turn: the stale pass changed nothing.
    now = get(client, encounter, gm)
    assert current(now) == "Ilona" and now["version"] == passed["version"]
    # The GM's pass naming the turn it is now goes through.
    assert current(ok(post(client, encounter, "/next", gm, expect(1, ilona)))) == "Strigoi"


def test_if_match_takes_the_etag_of_get_and_of_every_write(client, gm, player, forced_dice, table):
    encounter = fight(client, gm, forced_dice, table)
    seen = client.get(enc_url(encounter), headers=gm.headers)
    assert seen.headers["ETag"] == etag(seen.json()) == etag(encounter)
    passed = post(client, encounter, "/next", player, **{"If-Match": seen.headers["ETag"]})
    assert passed.status_code == 200, passed.text
    assert passed.headers["ETag"] == etag(passed.json()) != seen.headers["ETag"]
    # The version the GM saw before the player's pass is stale now.
    stale = post(client, encounter, "/next", gm, **{"If-Match": seen.headers["ETag"]})
    assert_problem(stale, 409, "If-Match", "Ilona's turn")
    assert stale.headers["ETag"] == passed.headers["ETag"]
    # Any of a list, a weakened tag (a proxy may weaken it) and * match.
    listed = f'"nope", W/{passed.headers["ETag"]}'
    moved = post(client, encounter, "/next", gm, **{"If-Match": listed})
    assert current(ok(moved)) == "Strigoi"
    assert current(ok(post(client, encounter, "/next", gm, **{"If-Match": "*"}))) == "Mihail"


def test_a_stale_action_is_409_and_rolls_nothing(client, gm, player, forced_dice, table):
    encounter = fight(client, gm, forced_dice, table)
    mihail, ilona, strigoi = table["mihail"], table["ilona"], table["strigoi"]
    swing = {"character_id": mihail["id"], "trait": "physique"}
    # A turn already gone (forced_dice would fail on an unscripted die: nothing is rolled).
    late = act(client, encounter, player, mihail, "jdr.action", **swing, **expect(2, mihail))
    assert_problem(late, 409, "round 1, Mihail's turn", "expected round 2")
    npc_swing = {"character_id": strigoi["id"], "trait": "physique", **expect(1, ilona)}
    stale = act(client, encounter, gm, strigoi, "jdr.action", override=True, **npc_swing)
    assert_problem(stale, 409, "expected round 1, Ilona's turn")
    assert get(client, encounter, gm)["history"] == []
    # Naming the turn it is, and the version, the action goes through with the new version.
    forced_dice.push(3, 3)
    response = post(
        client,
        encounter,
        "/actions",
        player,
        {"actor_id": mihail["id"], "kind": "jdr.action", **swing, **expect(1, mihail)},
        **{"If-Match": etag(encounter)},
    )
    hit = ok(response, 201)
    assert response.headers["ETag"] == etag(hit["encounter"]) != etag(encounter)
    assert "expected_turn" not in hit["entry"]["request"]  # the guard is not the roll's
    verify_ok(client, table["campaign"], gm)


def test_the_version_changes_with_every_step_and_the_history_lists_them(
    client, gm, player, forced_dice, table
):
    campaign, mihail, ilona, strigoi, loup = (
        table[k] for k in ("campaign", "mihail", "ilona", "strigoi", "loup")
    )
    versions = []
    response = post_encounter(client, campaign, gm, mihail, ilona, strigoi)
    versions.append(response.headers["ETag"])
    encounter = response.json()
    forced_dice.push(6, 6, 4, 4, 1, 1)
    versions.append(etag(initiative(client, encounter, gm)))
    forced_dice.push(3, 3)
    swing = {"character_id": mihail["id"], "trait": "physique"}
    versions.append(
        etag(acted(client, encounter, player, mihail, "jdr.action", **swing)["encounter"])
    )
    versions.append(etag(next_turn(client, encounter, player)))
    forced_dice.push(2, 2)  # Loup joins mid-fight: 2D6 + physique
    joined = ok(post(client, encounter, "/combatants", gm, fighter(loup, "foes")), 201)
    versions.append(etag(joined))
    left = client.delete(enc_url(encounter, f"/combatants/{strigoi['id']}"), headers=gm.headers)
    assert left.headers["ETag"] == etag(ok(left))
    versions.append(left.headers["ETag"])
    ended = ok(post(client, encounter, "/end", gm))
    versions.append(etag(ended))
    assert len(set(versions)) == len(versions), versions
    assert kinds(ended) == [
        ("jdr.action", "Mihail"),
        ("turn_passed", "Mihail"),
        ("joined", "Loup"),
        ("left", "Strigoi"),
    ]
    passed, joined_item, left_item = ended["history"][1:]
    assert passed["to"] == ilona["id"] and passed["round"] == 1
    assert left_item["reason"] == "removed"
    steps = ("encounter.turn", "encounter.joined", "encounter.left")
    turn, join, leave = (e for e in log_entries(client, campaign, gm) if e["kind"] in steps)
    assert (passed["seq"], joined_item["seq"], left_item["seq"]) == (
        turn["seq"],
        join["seq"],
        leave["seq"],
    )


def post_encounter(client, campaign, gm, *characters: dict[str, Any]):
    body = {"name": "Col", "combatants": [fighter(c, "pcs") for c in characters]}
    response = client.post(
        f"{API}/campaigns/{campaign['id']}/encounters", json=body, headers=gm.headers
    )
    assert response.status_code == 201, response.text
    assert response.headers["ETag"] == etag(response.json())
    return response


# --- 10: a clean roster ------------------------------------------------------------------------


def test_removing_the_combatant_whose_turn_it_is_passes_the_turn(
    client, gm, player, forced_dice, table
):
    encounter = fight(client, gm, forced_dice, table)
    mihail, strigoi = table["mihail"], table["strigoi"]
    gone = client.delete(enc_url(encounter, f"/combatants/{mihail['id']}"), headers=gm.headers)
    encounter = ok(gone)
    assert current(encounter) == "Ilona" and encounter["round"] == 1
    assert kinds(encounter) == [("left", "Mihail"), ("turn_passed", "Mihail")]
    # Another's removal leaves the turn where it is.
    encounter = ok(
        client.delete(enc_url(encounter, f"/combatants/{strigoi['id']}"), headers=gm.headers)
    )
    assert current(encounter) == "Ilona"
    # The last one out: nobody's turn, and nobody to pass it to.
    ilona = table["ilona"]
    encounter = ok(
        client.delete(enc_url(encounter, f"/combatants/{ilona['id']}"), headers=gm.headers)
    )
    assert encounter["current"] is None
    assert_problem(post(client, encounter, "/next", gm), 409, "no combatant")
    verify_ok(client, table["campaign"], gm)


def test_deleting_a_character_takes_it_out_of_its_encounters(
    client, gm, player, forced_dice, table
):
    campaign, mihail = table["campaign"], table["mihail"]
    encounter = fight(client, gm, forced_dice, table)
    later = created(client, campaign, gm, "La crypte", fighter(mihail, "pcs"))
    response = client.delete(f"{API}/characters/{mihail['id']}", headers=player.headers)
    assert response.status_code == 204, response.text
    encounter = get(client, encounter, gm)
    assert current(encounter) == "Ilona"
    gone = next(c for c in encounter["combatants"] if c["character_id"] == mihail["id"])
    assert gone["active"] is False
    left = next(item for item in encounter["history"] if item["kind"] == "left")
    assert (left["actor_id"], left["reason"]) == (mihail["id"], "deleted")
    assert [c["active"] for c in get(client, later, gm)["combatants"]] == [False]
    verify_ok(client, campaign, gm)


def test_a_character_fights_in_one_running_encounter_at_a_time(
    client, gm, player, forced_dice, table
):
    campaign, mihail, loup = table["campaign"], table["mihail"], table["loup"]
    running = fight(client, gm, forced_dice, table)
    # Setting up the next fight is fine; starting it while Mihail still fights is not.
    ambush = created(
        client, campaign, gm, "L'embuscade", fighter(mihail, "pcs"), fighter(loup, "foes")
    )
    refused = post(client, ambush, "/initiative", gm)
    body = assert_problem(refused, 409, "Mihail is already fighting", "'Col de Borgo'")
    assert body["encounter_id"] == running["id"]
    # Nor may he join another running one.
    other = created(client, campaign, gm, "Le loup", fighter(loup, "foes"))
    forced_dice.push(2, 2)
    other = initiative(client, other, gm)
    assert_problem(
        post(client, other, "/combatants", gm, fighter(mihail, "pcs")), 409, "Col de Borgo"
    )
    ok(post(client, other, "/end", gm))
    ok(post(client, running, "/end", gm))
    # Both keep the totals they rolled earlier in the scene (JDR-31): no dice.
    started = ok(post(client, ambush, "/initiative", gm))
    assert started["status"] == "active"


def test_JDR_36_a_destroyed_creature_is_passed_by_shown_in_the_history(
    client, gm, player, forced_dice, table
):
    campaign, strigoi = table["campaign"], table["strigoi"]
    gm_patch(client, gm, strigoi, {"destroyed": True})
    encounter = created(
        client,
        campaign,
        gm,
        "La crypte",
        fighter(strigoi, "foes"),
        fighter(table["mihail"], "pcs"),
    )
    forced_dice.push(6, 6, 1, 1)  # Strigoi 15 first, destroyed: Mihail acts
    encounter = initiative(client, encounter, gm)
    assert (encounter["round"], current(encounter)) == (1, "Mihail")
    (skip,) = encounter["history"]
    assert (skip["kind"], skip["actor_id"], skip["round"]) == ("turn_skipped", strigoi["id"], 1)
    assert skip["reason"] == "JDR-36: Strigoi is destroyed for good"
    # FAIR-21: why an NPC sits out is the GM's.
    (seen,) = get(client, encounter, player)["history"]
    assert "reason" not in seen and seen["kind"] == "turn_skipped"
    (turn,) = [e for e in log_entries(client, campaign, gm) if e["kind"] == "encounter.turn"]
    assert turn["request"]["skipped"] == [strigoi["id"]] and turn["seq"] == skip["seq"]
    # Round 2: passed by again.
    encounter = next_turn(client, encounter, player)
    assert (encounter["round"], current(encounter)) == (2, "Mihail")
    assert [i["kind"] for i in encounter["history"]] == [
        "turn_skipped",
        "turn_passed",
        "turn_skipped",
    ]


# --- 12: who ends an encounter -----------------------------------------------------------------


def test_the_gm_ends_an_encounter_not_the_player_whose_turn_it_is(
    client, gm, player, forced_dice, table
):
    encounter = fight(client, gm, forced_dice, table)
    assert_problem(post(client, encounter, "/end", player), 403, "GM")
    assert ok(post(client, encounter, "/end", gm))["status"] == "ended"


def test_a_player_sees_the_same_version_as_the_gm(client, gm, player, forced_dice, table):
    """The version is a digest of what every member sees: a player's If-Match works too."""
    encounter = fight(client, gm, forced_dice, table)
    assert get(client, encounter, player)["version"] == get(client, encounter, gm)["version"]
