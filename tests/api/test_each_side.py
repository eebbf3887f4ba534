"""Each side answers for itself (issue 15, part 3): the roller names the other side of a
two-sided roll, never spends its choices (FAB-90's once-a-session talents, FAB-13's
helpers); whoever plays that character does, or the GM."""

from __future__ import annotations

from typing import Any

from tests.api.helpers import last_seq, post_roll
from tests.conftest import FABULAE_SHEET, assert_problem


def opposed(active, passive, **passive_extra: Any) -> dict[str, Any]:
    side = {"attribute": "physique", "skill": "combat"}
    return {
        "kind": "fabulae.opposed",
        "active": {"character_id": active["id"], **side},
        "passive": {"character_id": passive["id"], **side, **passive_extra},
    }


def test_FAB_90_a_player_does_not_spend_another_characters_talent(
    client, gm, player, other_player, make_campaign, make_character, forced_dice
):
    campaign = make_campaign("fabulae-tenebris", players=(player, other_player))
    ada = make_character(campaign, player, sheet=FABULAE_SHEET, name="Ada")
    expert = {**FABULAE_SHEET, "talents": ["expert"]}
    bram = make_character(campaign, other_player, sheet=expert, name="Bram")
    before = last_seq(client, campaign, gm)
    for extra, rule, field in (
        ({"talents": ["expert"]}, "FAB-90", "passive.talents"),
        ({"helpers": 2}, "FAB-13", "passive.helpers"),
    ):
        body = assert_problem(
            post_roll(client, campaign, player, opposed(ada, bram, **extra)), 403, field, "Bram"
        )
        assert body["rule"] == rule
    assert last_seq(client, campaign, gm) == before
    # Naming Bram as the other side is the roller's to do; Bram's Expert stays his.
    forced_dice.push(*[2] * 10)
    assert post_roll(client, campaign, player, opposed(ada, bram)).status_code == 201
    # Bram's player answers for Bram: his Expert, in his field (FAB-90).
    forced_dice.push(*[2] * 9)  # Intellect 3 + Connaissance 0 + Expert 1, Ada's 5
    mine = opposed(bram, ada)
    mine["active"].update(attribute="intellect", skill="connaissance", talents=["expert"])
    response = post_roll(client, campaign, other_player, mine)
    assert response.status_code == 201, response.text


def test_FAB_90_the_gm_makes_an_npcs_choices(
    client, gm, player, make_campaign, make_character, forced_dice
):
    campaign = make_campaign("fabulae-tenebris", players=(player,))
    ada = make_character(campaign, player, sheet=FABULAE_SHEET, name="Ada")
    expert = {**FABULAE_SHEET, "talents": ["expert"]}
    thug = make_character(campaign, gm, sheet=expert, kind="npc", name="Thug")
    body = opposed(ada, thug, talents=["expert"], attribute="intellect", skill="connaissance")
    assert_problem(post_roll(client, campaign, player, body), 403, "Thug")
    forced_dice.push(*[2] * 9)  # Ada's 5; Thug's Intellect 3 + Connaissance 0 + Expert 1
    assert post_roll(client, campaign, gm, body).status_code == 201
