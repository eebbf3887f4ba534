"""Who may set what (issue 15, part 2): difficulty, modifiers and tense are the GM's
(VAM-5, VAM-20, JDR-13, JDR-40, FAB-12, FAB-14) unless the campaign lets players set them."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.helpers import last_seq, post_roll
from tests.conftest import (
    CTHULHU_SHEET,
    FABULAE_SHEET,
    VAMPIRE_SHEET,
    assert_problem,
)


def refused(response, rule: str, field: str) -> dict[str, Any]:
    body = assert_problem(response, 403, field)
    assert body["rule"] == rule and "roll request" in body["detail"], body
    assert "players_set_difficulty" in body["detail"]
    return body


def vampire_action(character, **extra: Any) -> dict[str, Any]:
    return {
        "kind": "vampire.action",
        "character_id": character["id"],
        "attribute": "astuce",
        "ability": "subterfuge",
        **extra,
    }


@pytest.mark.parametrize(
    ("extra", "rule", "field"),
    [
        ({"difficulty": 4}, "VAM-5", "difficulty"),
        ({"modifier": 4}, "VAM-5", "modifier"),
        ({"tense": True}, "VAM-5", "tense"),
        ({"take_automatic": True, "difficulty": 3}, "VAM-5", "difficulty"),
        ({"take_automatic": True}, "VAM-20", "take_automatic"),
    ],
)
def test_VAM_5_VAM_20_a_player_does_not_set_what_the_storyteller_decides(
    client, gm, player, make_campaign, make_character, forced_dice, extra, rule, field
):
    campaign = make_campaign("vampire", players=(player,))
    lucien = make_character(campaign, player, sheet=VAMPIRE_SHEET, name="Lucien")
    before = last_seq(client, campaign, gm)
    refused(post_roll(client, campaign, player, vampire_action(lucien, **extra)), rule, field)
    assert last_seq(client, campaign, gm) == before  # nothing logged, nothing drawn
    # The Storyteller's own roll for the character sets them; so does a plain player roll
    # with none of them, at the default difficulty.
    forced_dice.push(*[8] * 8)  # Astuce 4 + Subterfuge 3 + 1: a success, so the player's
    # roll of the same action is a new one, not its retry (VAM-30 corrected)
    assert post_roll(client, campaign, gm, vampire_action(lucien, modifier=1)).status_code == 201
    forced_dice.push(*[2] * 7)
    plain = post_roll(client, campaign, player, vampire_action(lucien))
    assert plain.status_code == 201 and plain.json()["result"]["difficulty"] == 6


def test_VAM_5_the_campaign_option_lets_players_set_them(
    client, gm, player, make_campaign, make_character, forced_dice
):
    campaign = make_campaign("vampire", players=(player,))
    lucien = make_character(campaign, player, sheet=VAMPIRE_SHEET, name="Lucien")
    body = vampire_action(lucien, difficulty=4, modifier=1)
    refused(post_roll(client, campaign, player, body), "VAM-5", "difficulty, modifier")
    response = client.patch(
        f"/api/v1/campaigns/{campaign['id']}",
        json={"options": {"players_set_difficulty": True}},
        headers=gm.headers,
    )
    assert response.status_code == 200, response.text
    forced_dice.push(*[2] * 8)
    rolled = post_roll(client, campaign, player, body)
    assert rolled.status_code == 201, rolled.text
    assert rolled.json()["result"]["difficulty"] == 4


def test_JDR_40_the_mythos_difficulty_is_the_gms(
    client, gm, player, make_campaign, make_character, forced_dice
):
    campaign = make_campaign("jdr-express-cthulhu", players=(player,))
    carter = make_character(campaign, player, sheet=CTHULHU_SHEET, name="Carter")
    body = {
        "kind": "jdr.mythos",
        "character_id": carter["id"],
        "difficulty": 8,
        "source": "grimoire",
    }
    mythos = refused(post_roll(client, campaign, player, body), "JDR-40", "difficulty")
    assert "roll without it" not in mythos["detail"]  # required: the GM asks for the test
    action = {"kind": "jdr.action", "character_id": carter["id"], "trait": "mental"}
    optional = refused(
        post_roll(client, campaign, player, {**action, "difficulty": 9}), "JDR-13", "difficulty"
    )
    assert "roll without it" in optional["detail"]
    refused(post_roll(client, campaign, player, {**action, "modifier": 2}), "JDR-10", "modifier")
    forced_dice.push(3, 4)
    assert post_roll(client, campaign, gm, body).status_code == 201


def test_FAB_12_FAB_14_difficulty_and_situation_are_the_gms(
    client, gm, player, make_campaign, make_character, forced_dice
):
    campaign = make_campaign("fabulae-tenebris", players=(player,))
    ada = make_character(campaign, player, sheet=FABULAE_SHEET, name="Ada")
    thug = make_character(campaign, gm, sheet=FABULAE_SHEET, kind="npc", name="Thug")
    action = {
        "kind": "fabulae.action",
        "character_id": ada["id"],
        "attribute": "physique",
        "skill": "combat",
    }
    refused(
        post_roll(client, campaign, player, {**action, "difficulty": "very_hard"}),
        "FAB-12",
        "difficulty",
    )
    bonus = [{"source": "a lantern", "dice": 2}]
    refused(
        post_roll(client, campaign, player, {**action, "modifiers": bonus}), "FAB-14", "modifiers"
    )
    side = {"attribute": "physique", "skill": "combat"}
    opposed = {
        "kind": "fabulae.opposed",
        "active": {"character_id": ada["id"], **side},
        "passive": {"character_id": thug["id"], **side, "modifiers": [{"source": "x", "dice": -3}]},
    }
    refused(post_roll(client, campaign, player, opposed), "FAB-14", "passive.modifiers")
    forced_dice.push(*[2] * 7)  # Physique 3 + Combat 2 + the GM's 2
    assert post_roll(client, campaign, gm, {**action, "modifiers": bonus}).status_code == 201


def test_FAB_44_a_panic_rolls_modifier_is_the_gms(
    client, gm, player, make_campaign, make_character, forced_dice
):
    campaign = make_campaign("fabulae-tenebris", players=(player,))
    ada = make_character(campaign, player, sheet=FABULAE_SHEET, name="Ada")
    body = {"kind": "fabulae.panic", "character_id": ada["id"], "modifier": -2}
    refused(post_roll(client, campaign, player, body), "FAB-44", "modifier")
    forced_dice.push(4)
    assert post_roll(client, campaign, gm, body).status_code == 201
    forced_dice.push(4)
    plain = {"kind": "fabulae.panic", "character_id": ada["id"]}
    assert post_roll(client, campaign, player, plain).status_code == 201
