"""Roll requests (issue 15, part 1): the GM asks characters for a roll with the values the
GM decides (VAM-5, JDR-40, FAB-12/14); each character's player answers once, and keeps
them."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.helpers import assert_verified, last_seq, log_entries, post_roll
from tests.conftest import (
    API,
    CTHULHU_SHEET,
    FABULAE_SHEET,
    VAMPIRE_SHEET,
    assert_problem,
)


def ask(client, campaign, caller, **body: Any):
    return client.post(
        f"{API}/campaigns/{campaign['id']}/roll-requests", json=body, headers=caller.headers
    )


def asked(client, campaign, gm, **body: Any) -> dict[str, Any]:
    response = ask(client, campaign, gm, **body)
    assert response.status_code == 201, response.text
    return response.json()


def answer(client, campaign, caller, request_id: str, body: dict[str, Any]):
    return client.post(
        f"{API}/campaigns/{campaign['id']}/rolls?request_id={request_id}",
        json=body,
        headers=caller.headers,
    )


def requests_of(client, campaign, caller, status: str | None = None) -> list[dict[str, Any]]:
    query = f"?status={status}" if status else ""
    response = client.get(
        f"{API}/campaigns/{campaign['id']}/roll-requests{query}", headers=caller.headers
    )
    assert response.status_code == 200, response.text
    return response.json()["data"]


def started_encounter(client, campaign, gm, character) -> dict[str, Any]:
    """An encounter of one combatant, its initiative rolled (the caller forces the die)."""
    encounter = client.post(
        f"{API}/campaigns/{campaign['id']}/encounters",
        json={"name": "L'Elysium", "combatants": [{"character_id": character["id"]}]},
        headers=gm.headers,
    ).json()
    started = client.post(f"{API}/encounters/{encounter['id']}/initiative", headers=gm.headers)
    assert started.status_code == 200, started.text
    return encounter


def action(character, **extra: Any) -> dict[str, Any]:
    return {
        "kind": "vampire.action",
        "character_id": character["id"],
        "attribute": "astuce",
        "ability": "subterfuge",
        **extra,
    }


def test_VAM_5_the_storyteller_asks_and_each_player_answers_once_with_the_set_values(
    client, gm, player, other_player, outsider, make_campaign, make_character, forced_dice
):
    campaign = make_campaign("vampire", players=(player, other_player))
    lucien = make_character(campaign, player, sheet=VAMPIRE_SHEET, name="Lucien")
    mireille = make_character(campaign, other_player, sheet=VAMPIRE_SHEET, name="Mireille")
    request = asked(
        client,
        campaign,
        gm,
        kind="vampire.action",
        character_ids=[lucien["id"], mireille["id"]],
        values={"difficulty": 8, "modifier": -1, "tense": True},
        note="Le prince vous dévisage : mentez.",
    )
    assert request["status"] == "open" and request["answers"] == {}
    (logged,) = [e for e in log_entries(client, campaign, gm) if e["seq"] == request["seq"]]
    assert logged["kind"] == "roll_requested" and logged["visibility"] == "public"
    assert [r["id"] for r in requests_of(client, campaign, player, "open")] == [request["id"]]

    # The answer may not change what the Storyteller set, nor add what they decide.
    before = last_seq(client, campaign, gm)
    for body, status, words in (
        (action(lucien, difficulty=5), 422, "difficulty: the GM's request sets it to 8"),
        (action(lucien, visibility="blind"), 422, "visibility"),
        (action(lucien, take_automatic=True), 403, "take_automatic"),
        ({**action(lucien), "kind": "vampire.willpower_restore"}, 422, None),
    ):
        response = answer(client, campaign, player, request["id"], body)
        assert_problem(response, status, *([words] if words else []))
    assert_problem(answer(client, campaign, player, request["id"], action(mireille)), 403)
    assert last_seq(client, campaign, gm) == before

    forced_dice.push(*[8] * 6)  # Astuce 4 + Subterfuge 3 − 1
    response = answer(client, campaign, player, request["id"], action(lucien, difficulty=8))
    assert response.status_code == 201, response.text
    rolled = response.json()
    assert rolled["follows"] == request["seq"]
    assert (rolled["result"]["difficulty"], rolled["result"]["pool"]) == (8, 6)
    assert rolled["request"]["tense"] is True
    again = answer(client, campaign, player, request["id"], action(lucien))
    assert_problem(again, 409, f"answered the request already, at seq {rolled['seq']}")

    forced_dice.push(*[2] * 6)
    assert (
        answer(client, campaign, other_player, request["id"], action(mireille)).status_code == 201
    )
    (done,) = requests_of(client, campaign, gm, "closed")
    assert set(done["answers"]) == {lucien["id"], mireille["id"]}
    assert_verified(client, campaign, gm)  # the answers replay, following the request
    # Whoever is not a member sees nothing of it.
    path = f"{API}/campaigns/{campaign['id']}/roll-requests/{request['id']}"
    assert_problem(client.get(path, headers=outsider.headers), 404)


def test_the_gm_cancels_an_open_request_and_it_takes_no_answer(
    client, gm, player, make_campaign, make_character
):
    campaign = make_campaign("vampire", players=(player,))
    lucien = make_character(campaign, player, sheet=VAMPIRE_SHEET, name="Lucien")
    request = asked(client, campaign, gm, kind="vampire.action", character_ids=[lucien["id"]])
    path = f"{API}/campaigns/{campaign['id']}/roll-requests/{request['id']}"
    assert_problem(client.delete(path, headers=player.headers), 403, "GM")
    assert client.delete(path, headers=gm.headers).status_code == 204
    assert_problem(client.delete(path, headers=gm.headers), 409, "cancelled")
    assert_problem(answer(client, campaign, player, request["id"], action(lucien)), 409)
    cancelled = log_entries(client, campaign, gm)[-1]
    assert cancelled["kind"] == "roll_request_cancelled"
    assert cancelled["follows"] == request["seq"]
    assert requests_of(client, campaign, player, "open") == []
    assert [r["status"] for r in requests_of(client, campaign, player)] == ["cancelled"]


def test_JDR_40_a_mythos_test_at_the_gms_difficulty(
    client, gm, player, make_campaign, make_character, forced_dice
):
    campaign = make_campaign("jdr-express-cthulhu", players=(player,))
    carter = make_character(campaign, player, sheet=CTHULHU_SHEET, name="Carter")
    request = asked(
        client,
        campaign,
        gm,
        kind="jdr.mythos",
        character_ids=[carter["id"]],
        values={"difficulty": 9},
        visibility="gm",
    )
    # The body names a required field the request sets (the difficulty) with its value.
    body = {"kind": "jdr.mythos", "character_id": carter["id"], "source": "un grimoire"}
    changed = answer(client, campaign, player, request["id"], {**body, "difficulty": 7})
    assert_problem(changed, 422, "the GM's request sets it to 9")
    body["difficulty"] = 9
    forced_dice.push(5, 6)
    rolled = answer(client, campaign, player, request["id"], body)
    assert rolled.status_code == 201, rolled.text
    assert rolled.json()["visibility"] == "gm" and rolled.json()["request"]["difficulty"] == 9


def test_FAB_12_FAB_14_an_action_at_the_gms_difficulty_and_situation(
    client, gm, player, make_campaign, make_character, forced_dice
):
    campaign = make_campaign("fabulae-tenebris", players=(player,))
    ada = make_character(campaign, player, sheet=FABULAE_SHEET, name="Ada")
    request = asked(
        client,
        campaign,
        gm,
        kind="fabulae.action",
        character_ids=[ada["id"]],
        values={"difficulty": "very_hard", "modifiers": [{"source": "fog", "dice": -1}]},
    )
    body = {
        "kind": "fabulae.action",
        "character_id": ada["id"],
        "attribute": "intellect",
        "skill": "observation",
    }
    forced_dice.push(*[2] * 3)  # Intellect 3 + Observation 2 − 1 − 1
    rolled = answer(client, campaign, player, request["id"], body)
    assert rolled.status_code == 201, rolled.text
    pool = rolled.json()["result"]["pool"]
    assert (pool["difficulty"], pool["modifiers"], pool["pool"]) == (-1, -1, 3)


def test_bad_requests_are_refused_and_log_nothing(
    client, gm, player, make_campaign, make_character
):
    campaign = make_campaign("vampire", players=(player,))
    lucien = make_character(campaign, player, sheet=VAMPIRE_SHEET, name="Lucien")
    before = last_seq(client, campaign, gm)
    base = {"kind": "vampire.action", "character_ids": [lucien["id"]]}
    assert_problem(ask(client, campaign, player, **base), 403, "GM")
    for body, words in (
        ({**base, "values": {"difficulty": 11}}, "values.difficulty"),
        ({**base, "values": {"dificulty": 7}}, "values.dificulty"),
        ({**base, "values": {"character_id": lucien["id"]}}, "values.character_id"),
        ({**base, "kind": "jdr.action"}, None),
        ({**base, "kind": "vampire.willpower_restore"}, "not asked for"),
        ({**base, "character_ids": []}, None),
    ):
        response = ask(client, campaign, gm, **body)
        assert_problem(response, 422, *([words] if words else []))
    missing = {**base, "character_ids": ["00000000-0000-4000-8000-000000000000"]}
    assert_problem(ask(client, campaign, gm, **missing), 404)
    assert last_seq(client, campaign, gm) == before


def test_VAM_5_in_an_encounter_the_action_answers_what_the_gm_imposed(
    client, gm, player, make_campaign, make_character, forced_dice
):
    campaign = make_campaign("vampire", players=(player,))
    lucien = make_character(campaign, player, sheet=VAMPIRE_SHEET, name="Lucien")
    forced_dice.push(5)  # Lucien's initiative die
    encounter = started_encounter(client, campaign, gm, lucien)
    request = asked(
        client,
        campaign,
        gm,
        kind="vampire.action",
        character_ids=[lucien["id"]],
        values={"difficulty": 7, "tense": True},
    )
    act = f"{API}/encounters/{encounter['id']}/actions"
    body = {"actor_id": lucien["id"], **action(lucien)}
    # Unasked, the player may not make the action tense (VAM-5); answering, it is.
    refused = client.post(act, json={**body, "tense": True}, headers=player.headers)
    assert_problem(refused, 403, "tense")
    forced_dice.push(*[7] * 7)
    response = client.post(f"{act}?request_id={request['id']}", json=body, headers=player.headers)
    assert response.status_code == 201, response.text
    entry = response.json()["entry"]
    assert entry["follows"] == request["seq"] and entry["request"]["tense"] is True
    assert entry["result"]["difficulty"] == 7
    assert requests_of(client, campaign, gm, "closed")[0]["answers"] == {lucien["id"]: entry["seq"]}


def test_VAM_30_a_retry_answering_a_request_still_follows_the_roll_it_retries(
    client, gm, player, make_campaign, make_character, forced_dice
):
    campaign = make_campaign("vampire", players=(player,))
    lucien = make_character(campaign, player, sheet=VAMPIRE_SHEET, name="Lucien")
    forced_dice.push(*[2] * 7)
    failed = client.post(
        f"{API}/campaigns/{campaign['id']}/rolls", json=action(lucien), headers=player.headers
    ).json()
    assert failed["result"]["outcome"] == "failure"
    request = asked(client, campaign, gm, kind="vampire.action", character_ids=[lucien["id"]])
    forced_dice.push(*[9] * 7)
    retry = answer(client, campaign, player, request["id"], action(lucien, retry_of=failed["seq"]))
    assert retry.status_code == 201, retry.text
    assert retry.json()["follows"] == failed["seq"]
    (closed,) = requests_of(client, campaign, gm, "closed")
    assert closed["answers"] == {lucien["id"]: retry.json()["seq"]}


def test_a_player_sees_only_the_requests_for_their_characters(
    client, gm, player, other_player, make_campaign, make_character
):
    campaign = make_campaign("vampire", players=(player, other_player))
    lucien = make_character(campaign, player, sheet=VAMPIRE_SHEET, name="Lucien")
    request = asked(client, campaign, gm, kind="vampire.action", character_ids=[lucien["id"]])
    path = f"{API}/campaigns/{campaign['id']}/roll-requests/{request['id']}"
    assert client.get(path, headers=player.headers).status_code == 200
    assert_problem(client.get(path, headers=other_player.headers), 404)
    assert requests_of(client, campaign, other_player) == []
    assert [r["id"] for r in requests_of(client, campaign, gm)] == [request["id"]]


def test_a_hidden_requests_note_is_the_gms_and_an_idempotency_key_names_one_request(
    client, gm, player, other_player, make_campaign, make_character, forced_dice
):
    campaign = make_campaign("vampire", players=(player, other_player))
    lucien = make_character(campaign, player, sheet=VAMPIRE_SHEET, name="Lucien")
    hidden = asked(
        client,
        campaign,
        gm,
        kind="vampire.action",
        character_ids=[lucien["id"]],
        visibility="blind",
        note="le goule derrière le rideau",
    )
    (seen,) = [e for e in log_entries(client, campaign, other_player) if e["seq"] == hidden["seq"]]
    assert seen["redacted"] is True and "goule" not in str(seen)
    other = asked(client, campaign, gm, kind="vampire.action", character_ids=[lucien["id"]])
    forced_dice.push(*[2] * 7)
    key = {"Idempotency-Key": "answer-1", **player.headers}
    path = f"{API}/campaigns/{campaign['id']}/rolls?request_id="
    first = client.post(path + hidden["id"], json=action(lucien), headers=key)
    assert first.status_code == 201, first.text
    # The same key for another request is another request: refused, not replayed.
    assert_problem(client.post(path + other["id"], json=action(lucien), headers=key), 422)
    assert requests_of(client, campaign, gm, "open")[0]["id"] == other["id"]


def test_JDR_30_a_requested_weapon_is_repeated_as_the_gm_set_it(
    client, gm, player, make_campaign, make_character, forced_dice
):
    from tests.conftest import DRACULA_SHEET

    campaign = make_campaign("jdr-express-dracula", players=(player,))
    mihail = make_character(campaign, player, sheet=DRACULA_SHEET, name="Mihail")
    brigand = make_character(campaign, gm, sheet=DRACULA_SHEET, kind="npc", name="Brigand")
    weapon = {"name": "sabre", "bonus": 1}
    request = asked(
        client,
        campaign,
        gm,
        kind="jdr.attack",
        character_ids=[mihail["id"]],
        values={"weapon": weapon},
    )
    body = {"kind": "jdr.attack", "attacker_id": mihail["id"], "target_id": brigand["id"]}
    forced_dice.push(3, 4)
    response = answer(client, campaign, player, request["id"], {**body, "weapon": weapon})
    assert response.status_code == 201, response.text
    assert response.json()["request"]["weapon"]["bonus"] == 1


def test_VAM_14_the_storytellers_explosive_in_a_request_is_the_answers(
    client, gm, player, make_campaign, make_character, forced_dice
):
    """A player may not set explosive (VAM-14); answering the Storyteller's request that
    sets it, the roll carries it as the Storyteller's."""
    campaign = make_campaign("vampire", players=(player,))
    lucien = make_character(campaign, player, sheet=VAMPIRE_SHEET, name="Lucien")
    refused = post_roll(client, campaign, player, action(lucien, explosive=True))
    assert assert_problem(refused, 403)["rule"] == "VAM-14"
    request = asked(
        client,
        campaign,
        gm,
        kind="vampire.action",
        character_ids=[lucien["id"]],
        values={"explosive": True},
    )
    forced_dice.push(*[7] * 7)
    response = answer(client, campaign, player, request["id"], action(lucien))
    assert response.status_code == 201, response.text
    assert response.json()["request"]["explosive"] is True


def test_FAB_14_an_impossible_answer_in_an_encounter_still_answers_the_request(
    client, gm, player, make_campaign, make_character, forced_dice
):
    campaign = make_campaign("fabulae-tenebris", players=(player,))
    ada = make_character(campaign, player, sheet=FABULAE_SHEET, name="Ada")
    forced_dice.push(1)  # Ada's card
    encounter = started_encounter(client, campaign, gm, ada)
    chains = [{"source": "chains", "dice": -6}]
    request = asked(
        client,
        campaign,
        gm,
        kind="fabulae.action",
        character_ids=[ada["id"]],
        values={"modifiers": chains},
    )
    body = {
        "actor_id": ada["id"],
        "kind": "fabulae.action",
        "character_id": ada["id"],
        "attribute": "physique",
    }
    url = f"{API}/encounters/{encounter['id']}/actions?request_id={request['id']}"
    refused = client.post(url, json=body, headers=player.headers)
    assert assert_problem(refused, 409, "impossible")["rule"] == "FAB-14"
    (closed,) = requests_of(client, campaign, gm, "closed")
    assert closed["answers"] == {ada["id"]: last_seq(client, campaign, gm)}


def test_FAB_12_a_request_sets_one_side_of_an_opposed_roll_and_leaves_the_roller_its_own(
    client, gm, player, make_campaign, make_character, forced_dice
):
    campaign = make_campaign("fabulae-tenebris", players=(player,))
    ada = make_character(campaign, player, sheet=FABULAE_SHEET, name="Ada")
    thug = make_character(campaign, gm, sheet=FABULAE_SHEET, kind="npc", name="Thug")
    # The answering player's own talents and Willpower are not the GM's to spend.
    refused = ask(
        client,
        campaign,
        gm,
        kind="fabulae.opposed",
        character_ids=[ada["id"]],
        values={"active.talents": ["expert"]},
    )
    assert_problem(refused, 422, "own choice", "FAB-90")
    assert_problem(
        ask(
            client,
            campaign,
            gm,
            kind="fabulae.opposed",
            character_ids=[ada["id"]],
            values={"active.nothing": 1},
        ),
        422,
        "values.active.nothing",
    )
    request = asked(
        client,
        campaign,
        gm,
        kind="fabulae.opposed",
        character_ids=[ada["id"]],
        values={"passive.difficulty": "very_hard"},
    )
    side = {"attribute": "physique", "skill": "combat"}
    body = {
        "kind": "fabulae.opposed",
        "active": {"character_id": ada["id"], **side},
        "passive": {"character_id": thug["id"], **side},
    }
    altered = {**body, "passive": {**body["passive"], "difficulty": "hard"}}
    assert_problem(
        answer(client, campaign, player, request["id"], altered), 422, "passive.difficulty"
    )
    response = answer(client, campaign, player, request["id"], body)
    assert response.status_code == 201, response.text
    waiting = response.json()
    assert waiting["request"]["passive"]["roll"]["difficulty"] == "very_hard"
    # Thug's side is the GM's to answer (FAB-36); the GM's difficulty holds.
    forced_dice.push(*[2] * 9)  # Ada's five dice, Thug's five less one (FAB-12)
    reply = {"kind": "fabulae.oppose", "follows": waiting["seq"], "character_id": thug["id"]}
    response = client.post(
        f"{API}/campaigns/{campaign['id']}/rolls", json=reply, headers=gm.headers
    )
    assert response.status_code == 201, response.text
    assert response.json()["result"]["passive"]["pool"]["pool"] == 4


def test_VAM_21_a_request_does_not_spend_the_players_willpower(
    client, gm, player, make_campaign, make_character
):
    campaign = make_campaign("vampire", players=(player,))
    lucien = make_character(campaign, player, sheet=VAMPIRE_SHEET, name="Lucien")
    refused = ask(
        client,
        campaign,
        gm,
        kind="vampire.action",
        character_ids=[lucien["id"]],
        values={"willpower": True},
    )
    assert_problem(refused, 422, "VAM-21")


def test_request_values_are_read_strictly_and_named_once(
    client, gm, player, make_campaign, make_character
):
    campaign = make_campaign("vampire", players=(player,))
    lucien = make_character(campaign, player, sheet=VAMPIRE_SHEET, name="Lucien")
    for values, words in (
        ({"explosive": "yes"}, "values.explosive"),
        ({"difficulty": "7"}, "values.difficulty"),
        ({"tense": 1}, "values.tense"),
    ):
        response = ask(
            client,
            campaign,
            gm,
            kind="vampire.action",
            character_ids=[lucien["id"]],
            values=values,
        )
        assert_problem(response, 422, words)
    fab = make_campaign("fabulae-tenebris", players=(player,))
    ada = make_character(fab, player, sheet=FABULAE_SHEET, name="Ada")
    side = {"character_id": ada["id"], "attribute": "physique"}
    both = ask(
        client,
        fab,
        gm,
        kind="fabulae.opposed",
        character_ids=[ada["id"]],
        values={"passive": side, "passive.difficulty": "very_hard"},
    )
    assert_problem(both, 422, "both")
    listed = ask(
        client,
        fab,
        gm,
        kind="fabulae.opposed",
        character_ids=[ada["id"]],
        values={"passive.modifiers.0.dice": 1},
    )
    assert_problem(listed, 422, "set modifiers whole")


# system, kind, the GM's values, an altered one, the answer's body (character id filled in),
# the faces the answer draws.
FLOWS = [
    (
        "vampire",
        VAMPIRE_SHEET,
        "vampire.action",
        {"difficulty": 8},
        {"difficulty": 5},
        {"attribute": "astuce", "ability": "subterfuge"},
        [8] * 7,  # Astuce 4 + Subterfuge 3
    ),
    (
        "jdr-express-cthulhu",
        CTHULHU_SHEET,
        "jdr.mythos",
        {"difficulty": 9},
        {"difficulty": 7},
        {"difficulty": 9, "source": "un grimoire"},
        [5, 6],
    ),
    (
        "fabulae-tenebris",
        FABULAE_SHEET,
        "fabulae.action",
        {"difficulty": "very_hard"},
        {"difficulty": "hard"},
        {"attribute": "intellect", "skill": "observation"},
        [2] * 4,  # Intellect 3 + Observation 2 − 1
    ),
]


@pytest.mark.parametrize(("system", "sheet", "kind", "values", "altered", "body", "faces"), FLOWS)
def test_VAM_5_JDR_40_FAB_12_the_request_flow_in_each_ruleset(
    client,
    gm,
    player,
    make_campaign,
    make_character,
    forced_dice,
    system,
    sheet,
    kind,
    values,
    altered,
    body,
    faces,
):
    """Ask, list, refuse an altered answer, answer, refuse a second answer, cancel."""
    campaign = make_campaign(system, players=(player,))
    hero = make_character(campaign, player, sheet=sheet, name="Hero")
    request = asked(client, campaign, gm, kind=kind, character_ids=[hero["id"]], values=values)
    assert [r["id"] for r in requests_of(client, campaign, player, "open")] == [request["id"]]
    reply = {"kind": kind, "character_id": hero["id"], **body}
    before = last_seq(client, campaign, gm)
    changed = answer(client, campaign, player, request["id"], {**reply, **altered})
    assert_problem(changed, 422, "the GM's request sets it")
    assert last_seq(client, campaign, gm) == before
    forced_dice.push(*faces)
    rolled = answer(client, campaign, player, request["id"], reply)
    assert rolled.status_code == 201, rolled.text
    assert rolled.json()["follows"] == request["seq"]
    assert_problem(answer(client, campaign, player, request["id"], reply), 409)
    assert requests_of(client, campaign, player, "closed")[0]["answers"] == {
        hero["id"]: rolled.json()["seq"]
    }
    second = asked(client, campaign, gm, kind=kind, character_ids=[hero["id"]], values=values)
    path = f"{API}/campaigns/{campaign['id']}/roll-requests/{second['id']}"
    assert client.delete(path, headers=gm.headers).status_code == 204
    assert_problem(answer(client, campaign, player, second["id"], reply), 409, "cancelled")
    assert_verified(client, campaign, gm)
