"""Vampire rules version 2 through the API: the corrections of 2026-11-30 (issue 19, points
1 to 4; vampire.md "Changes in rules version 2").

- VAM-30 corrected: a retry follows the latest failed attempt of its chain, a success
  closes it, and the same action again in the scene after a failure is its retry unless
  the Storyteller rules it a new action (`new_action`); a tense roll takes no penalty.
- VAM-20 corrected: an automatic success is the Storyteller's to allow (a roll request, or
  the campaign option `players_take_automatic`).
- VAM-2 corrected: an ability is one of the V20 abilities or one the sheet lists; any other
  name is 422 naming the nearest known ones.

Dice are scripted with `forced_dice`; refusals change nothing (`unchanged`).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.helpers import (
    assert_refused,
    assert_verified,
    get_entry,
    last_seq,
    new_scene,
    new_session,
    post_roll,
    url,
)
from tests.api.vampire.test_rolls import (
    LUCIEN,
    Table,
    act,
    acted,
    action_body,
    make_table,
    unchanged,
)
from tests.conftest import API, VAMPIRE_SHEET, assert_problem

FAIL = (2, 2, 2, 2, 2, 2)  # Astuce 3 + Subterfuge 3: no success at any difficulty above 2
SUCCEED = (9, 9, 9, 2, 2, 2)  # three successes up to difficulty 9


def retry_of(entry: dict[str, Any]) -> dict[str, Any] | None:
    """The retry an entry's request records (VAM-30), or None for a first attempt."""
    retry: dict[str, Any] | None = entry["request"].get("retry")
    return retry


def chain_seqs(entry: dict[str, Any]) -> list[int]:
    retry = retry_of(entry)
    return [attempt["seq"] for attempt in retry["chain"]] if retry else []


def ask(client, campaign, gm, character, **values: Any) -> dict[str, Any]:
    """The Storyteller's roll request of Astuce + Subterfuge, with these values."""
    body = {"kind": "vampire.action", "character_ids": [character["id"]], "values": values}
    response = client.post(url(campaign, "/roll-requests"), json=body, headers=gm.headers)
    assert response.status_code == 201, response.text
    return response.json()


def answer(client, campaign, caller, request: dict[str, Any], body: dict[str, Any]):
    return client.post(
        url(campaign, f"/rolls?request_id={request['id']}"), json=body, headers=caller.headers
    )


@pytest.fixture
def table(make_campaign, make_character, gm, player) -> Table:
    return make_table(make_campaign, make_character, gm, player)


@pytest.fixture
def storyteller(make_campaign, make_character, gm, player) -> Table:
    """A campaign where the Storyteller decides difficulties and automatic successes."""
    return make_table(make_campaign, make_character, gm, player, players_set_difficulty=False)


# --- the rules version ------------------------------------------------------------------------


def test_VAM30_corrected_entries_are_resolved_by_rules_version_2(
    client, table, gm, player, forced_dice
):
    forced_dice.push(*FAIL)
    first = acted(client, table.campaign, player, table.lucien)
    assert first["rules"] == "vampire@2"
    forced_dice.push(*FAIL)
    second = acted(client, table.campaign, player, table.lucien)
    assert second["rules"] == "vampire@2" and retry_of(second) is not None
    assert_verified(client, table.campaign, gm)


# --- VAM-30 corrected: a retry chain is a chain -----------------------------------------------


def test_VAM30_corrected_a_retry_follows_the_latest_failed_attempt(
    client, table, gm, player, forced_dice
):
    campaign, lucien = table.campaign, table.lucien
    forced_dice.push(*FAIL)
    first = acted(client, campaign, player, lucien)
    forced_dice.push(*FAIL)
    second = acted(client, campaign, player, lucien, retry_of=first["seq"])
    assert (second["result"]["difficulty"], second["result"]["retry_penalty"]) == (7, 1)
    # The rolls 5 and 6: a second retry of the first attempt is refused, naming the
    # retry that already follows it; it would have rolled at +1 again.
    with unchanged(client, gm, campaign, lucien):
        refused = assert_refused(
            act(client, campaign, player, lucien, retry_of=first["seq"]), "VAM-30"
        )
    assert f"attempt {first['seq']} was retried already (seq {second['seq']})" in refused["detail"]
    # The latest failed attempt is retried: the third attempt is +2 over the first.
    forced_dice.push(8, 8, 8, 2, 2, 2)
    third = acted(client, campaign, player, lucien, retry_of=second["seq"])
    assert (third["result"]["difficulty"], third["result"]["retry_penalty"]) == (8, 2)
    assert chain_seqs(third) == [first["seq"], second["seq"]]
    assert third["follows"] == second["seq"] and third["result"]["outcome"] == "success"
    assert_verified(client, campaign, gm)


def test_VAM30_corrected_two_retries_cannot_follow_the_same_attempt_even_the_gms(
    client, table, gm, player, forced_dice
):
    campaign, lucien = table.campaign, table.lucien
    forced_dice.push(*FAIL)
    first = acted(client, campaign, player, lucien)
    forced_dice.push(*FAIL)
    second = acted(client, campaign, gm, lucien, retry_of=first["seq"])
    with unchanged(client, gm, campaign, lucien):
        for caller in (gm, player):
            assert_refused(act(client, campaign, caller, lucien, retry_of=first["seq"]), "VAM-30")
    stored = get_entry(client, campaign, gm, first["seq"])
    assert [f["seq"] for f in stored["follow_ups"]] == [second["seq"]]


def test_VAM30_corrected_a_success_closes_the_chain(client, table, gm, player, forced_dice):
    campaign, lucien = table.campaign, table.lucien
    forced_dice.push(*FAIL)
    first = acted(client, campaign, player, lucien)
    forced_dice.push(*SUCCEED)
    success = acted(client, campaign, player, lucien, retry_of=first["seq"])
    assert success["result"]["outcome"] == "success"
    with unchanged(client, gm, campaign, lucien):
        # Neither the success nor the failure before it is retried any more.
        assert_refused(act(client, campaign, player, lucien, retry_of=success["seq"]), "VAM-30")
        assert_refused(act(client, campaign, player, lucien, retry_of=first["seq"]), "VAM-30")
    # The same action again after the success is a new action, at the action's difficulty.
    forced_dice.push(*FAIL)
    again = acted(client, campaign, player, lucien)
    assert retry_of(again) is None and again.get("follows") is None
    assert (again["result"]["difficulty"], again["result"]["retry_penalty"]) == (6, 0)


def test_VAM30_corrected_the_same_action_again_after_a_failure_is_a_retry(
    client, table, gm, player, forced_dice
):
    campaign, lucien = table.campaign, table.lucien
    forced_dice.push(*FAIL)
    first = acted(client, campaign, player, lucien)
    # No retry_of: the same character, attribute and ability in the same scene after a
    # failure is taken as the retry of that failure (leaving it out avoided the penalty).
    forced_dice.push(*FAIL)
    second = acted(client, campaign, player, lucien)
    assert retry_of(second) == {
        "of": first["seq"],
        "chain": [
            {"seq": first["seq"], "outcome": "failure", "difficulty": 6, "visibility": "public"}
        ],
        "waived": False,
        "inferred": True,
    }
    assert second["follows"] == first["seq"]
    assert (second["result"]["difficulty"], second["result"]["retry_penalty"]) == (7, 1)
    forced_dice.push(*FAIL)
    third = acted(client, campaign, player, lucien)
    assert chain_seqs(third) == [first["seq"], second["seq"]]
    assert (third["result"]["difficulty"], third["result"]["retry_penalty"]) == (8, 2)
    # The GM's roll for the character is the same action too.
    forced_dice.push(*FAIL)
    fourth = acted(client, campaign, gm, lucien)
    assert chain_seqs(fourth) == [first["seq"], second["seq"], third["seq"]]
    assert fourth["result"]["difficulty"] == 9
    assert_verified(client, campaign, gm)


def test_VAM30_corrected_another_action_character_or_scene_is_not_a_retry(
    client, table, gm, player, forced_dice
):
    campaign, lucien, npc = table.campaign, table.lucien, table.npc
    new_session(client, campaign, gm)
    forced_dice.push(*FAIL)
    acted(client, campaign, player, lucien)
    # Another ability, no ability, another attribute: other actions, at 6.
    for attribute, ability, pool in (
        ("astuce", "experience_de_la_rue", 5),
        ("astuce", None, 3),
        ("perception", "subterfuge", 6),
    ):
        forced_dice.push(*[2] * pool)
        other = acted(client, campaign, player, lucien, attribute, ability)
        assert retry_of(other) is None and other["result"]["difficulty"] == 6, (attribute, ability)
    # Another character's same action (the Prévôt: Astuce 4 + Subterfuge 3).
    forced_dice.push(*[2] * 7)
    theirs = acted(client, campaign, gm, npc)
    assert retry_of(theirs) is None and theirs["result"]["difficulty"] == 6
    # Another scene: the failure is behind, the action starts afresh.
    new_scene(client, campaign, gm)
    forced_dice.push(*FAIL)
    later = acted(client, campaign, player, lucien)
    assert retry_of(later) is None and later["result"]["difficulty"] == 6


def test_VAM30_corrected_a_failure_behind_many_other_actions_is_still_retried(
    client, table, gm, player, forced_dice
):
    """Issue 23: the character's latest attempt is looked for newest first, a page of
    entries at a time; a failure behind more than a page of the character's other actions
    in the scene is still the one the same action retries."""
    campaign, lucien = table.campaign, table.lucien
    forced_dice.push(*FAIL)
    first = acted(client, campaign, player, lucien)
    for _ in range(20):  # Astuce alone, succeeding: another action, each one new
        forced_dice.push(9, 9, 9)
        other = acted(client, campaign, player, lucien, "astuce", None)
        assert retry_of(other) is None and other["result"]["outcome"] == "success"
    forced_dice.push(*FAIL)
    second = acted(client, campaign, player, lucien)
    assert chain_seqs(second) == [first["seq"]]
    assert (second["result"]["difficulty"], second["result"]["retry_penalty"]) == (7, 1)
    assert_verified(client, campaign, gm)


def test_VAM30_corrected_the_storyteller_rules_a_new_action(
    client, storyteller, gm, player, forced_dice
):
    campaign, lucien = storyteller.campaign, storyteller.lucien
    forced_dice.push(*FAIL)
    first = acted(client, campaign, player, lucien)
    # The Storyteller's own roll: a new action, recorded as ruled.
    forced_dice.push(*FAIL)
    fresh = acted(client, campaign, gm, lucien, new_action=True)
    assert retry_of(fresh) is None and fresh["request"]["new_action"] is True
    assert (fresh["result"]["difficulty"], fresh["result"]["retry_penalty"]) == (6, 0)
    # The Storyteller's roll request: the answer is a new action too.
    request = ask(client, campaign, gm, lucien, new_action=True)
    forced_dice.push(*FAIL)
    response = answer(client, campaign, player, request, action_body(lucien))
    assert response.status_code == 201, response.text
    answered = response.json()
    assert retry_of(answered) is None and answered["request"]["new_action"] is True
    assert answered["follows"] == request["seq"] and answered["result"]["difficulty"] == 6
    # Without the ruling, the answer to a request is the retry of the latest failure.
    request = ask(client, campaign, gm, lucien)
    forced_dice.push(*FAIL)
    response = answer(client, campaign, player, request, action_body(lucien))
    assert response.status_code == 201, response.text
    retried = response.json()
    assert retry_of(retried)["of"] == answered["seq"] and retried["follows"] == answered["seq"]
    assert retried["result"]["difficulty"] == 7
    assert_verified(client, campaign, gm)
    assert first["seq"] not in chain_seqs(retried)


def test_VAM30_corrected_only_the_storyteller_rules_a_new_action(
    client, table, gm, player, forced_dice
):
    campaign, lucien = table.campaign, table.lucien
    forced_dice.push(*FAIL)
    first = acted(client, campaign, player, lucien)
    with unchanged(client, gm, campaign, lucien):
        refused = assert_refused(
            act(client, campaign, player, lucien, new_action=True), "VAM-30", 403
        )
        assert "Storyteller" in refused["detail"]
        both = act(client, campaign, gm, lucien, new_action=True, retry_of=first["seq"])
        assert_problem(both, 422, "new_action and retry_of")


def test_VAM30_corrected_a_retry_taken_as_such_keeps_its_actions_difficulty(
    client, table, gm, player, forced_dice
):
    campaign, lucien = table.campaign, table.lucien
    forced_dice.push(*FAIL)
    first = acted(client, campaign, player, lucien, difficulty=6)
    with unchanged(client, gm, campaign, lucien):
        response = act(client, campaign, player, lucien, difficulty=8)
        body = assert_problem(response, 422, f"taken as a retry of {first['seq']}", "new_action")
        assert body["rule"] == "VAM-30"
    forced_dice.push(*FAIL)
    same = acted(client, campaign, player, lucien, difficulty=6)
    assert same["result"]["difficulty"] == 7
    # The Storyteller rules the harder roll a new action.
    forced_dice.push(*FAIL)
    harder = acted(client, campaign, gm, lucien, difficulty=8, new_action=True)
    assert retry_of(harder) is None and harder["result"]["difficulty"] == 8


def test_VAM30_corrected_nothing_is_taken_as_a_retry_with_the_penalty_off(
    client, make_campaign, make_character, gm, player, forced_dice
):
    table = make_table(make_campaign, make_character, gm, player, retry_penalty=False)
    forced_dice.push(*FAIL)
    acted(client, table.campaign, player, table.lucien)
    forced_dice.push(*FAIL)
    again = acted(client, table.campaign, player, table.lucien, difficulty=8)
    assert retry_of(again) is None and again["result"]["difficulty"] == 8


def test_VAM30_corrected_an_attempt_hidden_from_the_player_is_not_retried_unseen(
    client, table, gm, player, forced_dice
):
    # FAIR-13: whether the GM's blind roll failed is hidden from the player, so it does not
    # make the player's roll a retry (which would show its failure); the GM names it.
    campaign, lucien = table.campaign, table.lucien
    forced_dice.push(*FAIL)
    blind = acted(client, campaign, gm, lucien, visibility="blind")
    applied = client.post(url(campaign, f"/log/{blind['seq']}/apply"), headers=gm.headers)
    assert applied.status_code == 201, applied.text  # FAIR-21: Lucien's sheet is read again
    forced_dice.push(*FAIL)
    own = get_entry(client, campaign, gm, acted(client, campaign, player, lucien)["seq"])
    assert retry_of(own) is None and own["result"]["difficulty"] == 6
    # Nor does it follow it; the Storyteller, who sees the blind attempt, names it to retry it.
    assert own.get("follows") is None and blind["seq"] < own["seq"]


def test_VAM30_corrected_another_characters_hidden_roll_leaves_a_roll_public(
    client, table, gm, player, forced_dice
):
    campaign, lucien, npc = table.campaign, table.lucien, table.npc
    forced_dice.push(*[2] * 7)
    acted(client, campaign, gm, npc, visibility="gm")  # the Storyteller's secret roll
    forced_dice.push(*FAIL)
    own = acted(client, campaign, player, lucien)
    assert own["visibility"] == "public" and own.get("redacted") is not True


def test_VAM30_corrected_an_attempt_hidden_from_the_player_leaves_the_next_roll_public(
    client, table, gm, player, forced_dice
):
    campaign, lucien = table.campaign, table.lucien
    forced_dice.push(*FAIL)
    blind = acted(client, campaign, gm, lucien, visibility="blind")
    applied = client.post(url(campaign, f"/log/{blind['seq']}/apply"), headers=gm.headers)
    assert applied.status_code == 201, applied.text
    forced_dice.push(*FAIL)
    own = acted(client, campaign, player, lucien)
    assert own["visibility"] == "public" and retry_of(own) is None


# --- VAM-30 corrected: no retry penalty in tense situations --------------------------------


def test_VAM30_corrected_a_tense_retry_takes_no_penalty(client, table, gm, player, forced_dice):
    campaign, lucien = table.campaign, table.lucien
    forced_dice.push(*FAIL)
    first = acted(client, campaign, player, lucien)
    forced_dice.push(*FAIL)
    tense = acted(client, campaign, player, lucien, retry_of=first["seq"], tense=True)
    assert (tense["result"]["difficulty"], tense["result"]["retry_penalty"]) == (6, 0)
    # The tense attempt still failed: it counts in the chain of a calm retry.
    forced_dice.push(*FAIL)
    calm = acted(client, campaign, player, lucien, retry_of=tense["seq"])
    assert (calm["result"]["difficulty"], calm["result"]["retry_penalty"]) == (8, 2)


def test_VAM30_corrected_a_tense_roll_is_not_taken_as_a_retry(
    client, table, gm, player, forced_dice
):
    campaign, lucien = table.campaign, table.lucien
    forced_dice.push(*FAIL)
    acted(client, campaign, player, lucien)
    forced_dice.push(*FAIL)
    tense = acted(client, campaign, player, lucien, tense=True, difficulty=8)
    assert retry_of(tense) is None and tense["result"]["difficulty"] == 8


def test_VAM30_corrected_a_retry_in_an_encounter_takes_no_penalty(
    client, table, gm, player, forced_dice
):
    campaign, lucien = table.campaign, table.lucien
    encounter = client.post(
        url(campaign, "/encounters"),
        json={"name": "Le quai", "combatants": [{"character_id": lucien["id"]}]},
        headers=gm.headers,
    ).json()
    actions = f"{API}/encounters/{encounter['id']}/actions"
    forced_dice.push(5)  # initiative
    started = client.post(f"{API}/encounters/{encounter['id']}/initiative", headers=gm.headers)
    assert started.status_code == 200, started.text
    body = {"actor_id": lucien["id"], **action_body(lucien, difficulty=8)}
    forced_dice.push(*FAIL)
    first = client.post(actions, json=body, headers=player.headers)
    assert first.status_code == 201, first.text
    seq = first.json()["entry"]["seq"]
    # The Storyteller lets Lucien try again at once (override): a fight is tense.
    forced_dice.push(*FAIL)
    again = {**body, "retry_of": seq, "override": True}
    retry = client.post(actions, json=again, headers=gm.headers)
    assert retry.status_code == 201, retry.text
    entry = retry.json()["entry"]
    assert entry["request"]["tense"] is True and chain_seqs(entry) == [seq]
    assert (entry["result"]["difficulty"], entry["result"]["retry_penalty"]) == (8, 0)  # not 9


# --- VAM-20 corrected: automatic success is the Storyteller's to allow ------------------------


def test_VAM20_corrected_a_player_takes_an_automatic_success_as_the_storyteller_allows(
    client, storyteller, gm, player
):
    campaign, lucien = storyteller.campaign, storyteller.lucien
    with unchanged(client, gm, campaign, lucien):
        refused = assert_refused(
            act(client, campaign, player, lucien, take_automatic=True), "VAM-20", 403
        )
    assert "take_automatic" in refused["detail"] and "roll request" in refused["detail"]
    assert "players_take_automatic" in refused["detail"]
    # The Storyteller may always (pool 6 against the default 6)…
    mine = acted(client, campaign, gm, lucien, take_automatic=True)
    assert mine["result"]["automatic"] is True and mine["draws"] == []
    # …and offers it in a roll request the player answers.
    request = ask(client, campaign, gm, lucien, take_automatic=True)
    response = answer(client, campaign, player, request, action_body(lucien))
    assert response.status_code == 201, response.text
    assert response.json()["result"]["automatic"] is True
    assert response.json()["request"]["take_automatic"] is True


def test_VAM20_corrected_the_campaign_option_lets_players_take_it_unprompted(
    client, make_campaign, make_character, gm, player
):
    table = make_table(
        make_campaign,
        make_character,
        gm,
        player,
        players_set_difficulty=False,
        players_take_automatic=True,
    )
    taken = acted(client, table.campaign, player, table.lucien, take_automatic=True)
    assert taken["result"]["automatic"] is True
    assert taken["request"]["options"]["players_take_automatic"] is True
    # The difficulty stays the Storyteller's (VAM-5).
    with unchanged(client, gm, table.campaign, table.lucien):
        response = act(
            client, table.campaign, player, table.lucien, take_automatic=True, difficulty=3
        )
        assert assert_problem(response, 403, "difficulty")["rule"] == "VAM-5"
    # Still never in a tense situation.
    request = ask(client, table.campaign, gm, table.lucien, tense=True)
    tense = answer(
        client, table.campaign, player, request, action_body(table.lucien, take_automatic=True)
    )
    assert_refused(tense, "VAM-20")


def test_VAM20_corrected_the_option_is_declared_with_the_systems_options(client, gm):
    response = client.get(f"{API}/systems/vampire", headers=gm.headers)
    assert response.status_code == 200, response.text
    options = response.json()["options_schema"]["properties"]
    assert options["players_take_automatic"]["default"] is False
    assert "VAM-20" in options["players_take_automatic"]["description"]


# --- VAM-2 corrected: a misspelled ability is an error ---------------------------------------


@pytest.mark.parametrize(
    ("ability", "nearest"),
    [("atletisme", "athletisme"), ("subterfug", "subterfuge"), ("vigilence", "vigilance")],
)
def test_VAM2_corrected_a_misspelled_ability_is_422_naming_the_nearest(
    client, table, gm, player, ability, nearest
):
    campaign, lucien = table.campaign, table.lucien
    with unchanged(client, gm, campaign, lucien):
        response = act(client, campaign, player, lucien, "vigueur", ability)
        body = assert_problem(response, 422, repr(ability), nearest)
    assert body["rule"] == "VAM-2" and body["detail"].startswith("VAM-2")
    assert body["errors"][0]["loc"] == ["body", "ability"]


def test_VAM2_corrected_an_unknown_ability_far_from_any_lists_the_sheets(client, table, gm, player):
    with unchanged(client, gm, table.campaign, table.lucien):
        response = act(client, table.campaign, player, table.lucien, "astuce", "xylophone")
        assert_problem(response, 422, "'xylophone'", "athletisme, commandement")


def test_VAM2_corrected_a_v20_ability_or_one_the_sheet_lists_is_rolled(
    client, make_campaign, make_character, gm, player, forced_dice
):
    campaign = make_campaign("vampire", players=(player,), options={"players_set_difficulty": True})
    sheet = {**LUCIEN, "abilities": {**LUCIEN["abilities"], "thaumaturgie": 2}}
    lucien = make_character(campaign, player, sheet=sheet, name="Lucien")
    # Bagarre is a V20 ability the sheet does not list: 0 dots, the attribute alone.
    forced_dice.push(2)
    brawl = acted(client, campaign, player, lucien, "force", "bagarre")
    assert (brawl["result"]["pool"], brawl["result"]["ability_value"]) == (1, 0)
    # The campaign's own ability, listed on the sheet.
    forced_dice.push(*[2] * 4)
    own = acted(client, campaign, player, lucien, "intelligence", "thaumaturgie")
    assert (own["result"]["pool"], own["result"]["ability_value"]) == (4, 2)
    # A misspelling of it is refused, naming it.
    assert_problem(
        act(client, campaign, player, lucien, "intelligence", "taumaturgie"), 422, "thaumaturgie"
    )
    # An explicit retry of a misspelled action is the same 422, not "another action".
    response = act(
        client, campaign, player, lucien, "intelligence", "taumaturgie", retry_of=own["seq"]
    )
    assert assert_problem(response, 422)["rule"] == "VAM-2"
    assert last_seq(client, campaign, gm) == own["seq"]


def test_VAM2_corrected_the_storytellers_rolls_are_checked_too(client, table, gm):
    body = action_body(table.npc, "astuce", "subterfuje")
    with unchanged(client, gm, table.campaign, table.npc):
        assert_problem(post_roll(client, table.campaign, gm, body), 422, "subterfuge")


def test_VAM2_corrected_a_sheets_own_ability_is_no_misspelt_v20_one(
    client, make_campaign, gm, player
):
    campaign = make_campaign("vampire", players=(player,))
    sheet = {**VAMPIRE_SHEET, "abilities": {"atletisme": 3}}
    response = client.post(
        f"{API}/campaigns/{campaign['id']}/characters",
        json={"name": "Lucien", "kind": "pc", "sheet": sheet},
        headers=player.headers,
    )
    assert_problem(response, 422, "looks like the V20 ability 'athletisme'")
    own = {**VAMPIRE_SHEET, "abilities": {"cartographie_occulte": 2}}  # a name of its own
    response = client.post(
        f"{API}/campaigns/{campaign['id']}/characters",
        json={"name": "Lucien", "kind": "pc", "sheet": own},
        headers=player.headers,
    )
    assert response.status_code == 201, response.text
