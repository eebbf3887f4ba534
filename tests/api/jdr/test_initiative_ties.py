"""An encounter's initiative takes the players' order between tied PCs (JDR-30a); a stake
for a sleeping target is refused against a combatant of the same fight (JDR-36)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.helpers import assert_refused, log_entries, new_session
from tests.api.test_encounters import (
    act,
    created,
    fighter,
    ok,
    order,
    post,
    verify_ok,
)
from tests.conftest import API, FABULAE_SHEET, assert_problem

DRACULA = "jdr-express-dracula"


def jdr_pc(make_character, campaign, owner, name: str, physique: int) -> dict[str, Any]:
    sheet = {"traits": {"mental": 2, "physique": physique, "social": 2}}
    return make_character(campaign, owner, name=name, sheet=sheet)


@pytest.fixture
def col(client, gm, player, other_player, make_campaign, make_character):
    """Jonathan and Mina (physique 2 each), and a wolf (physique 1), at setup."""
    campaign = make_campaign(DRACULA, players=(player, other_player))
    new_session(client, campaign, gm)
    jonathan = jdr_pc(make_character, campaign, player, "Jonathan", 2)
    mina = jdr_pc(make_character, campaign, other_player, "Mina", 2)
    wolf = make_character(
        campaign,
        gm,
        kind="npc",
        name="Loup",
        sheet={"traits": {"mental": 0, "physique": 1, "social": 0}},
    )
    encounter = created(
        client,
        campaign,
        gm,
        "Col de Borgo",
        fighter(jonathan, "pcs"),
        fighter(mina, "pcs"),
        fighter(wolf, "foes"),
    )
    return campaign, encounter, jonathan, mina, wolf


def call(client, encounter, gm, *tied: dict[str, Any]):
    return post(client, encounter, "/initiative", gm, {"tie_order": [c["id"] for c in tied]})


def test_JDR_30a_tied_pcs_take_the_order_the_players_chose(client, gm, forced_dice, col):
    campaign, encounter, jonathan, mina, _wolf = col
    forced_dice.push(3, 3, 4, 2, 1, 1)  # 6 + 2 = 8, 6 + 2 = 8 (same physique), the wolf 3
    encounter = ok(call(client, encounter, gm, mina, jonathan))
    # No roll-off is drawn: the players chose (forced_dice would fail on an unscripted die).
    assert order(encounter) == ["Mina", "Jonathan", "Loup"]
    (entry,) = [e for e in log_entries(client, campaign, gm) if e["kind"] == "jdr.initiative"]
    assert entry["request"]["order"] == [mina["id"], jonathan["id"]]
    assert [row["rolloff"] for row in entry["result"]["order"]] == [[], [], []]
    verify_ok(client, campaign, gm)


def test_JDR_30a_without_the_players_order_a_tie_goes_to_the_roll_off(client, gm, forced_dice, col):
    _campaign, encounter, *_ = col
    forced_dice.push(3, 3, 4, 2, 1, 1, 2, 5)  # Jonathan 2, Mina 5 in the roll-off
    encounter = ok(post(client, encounter, "/initiative", gm, {}))
    assert order(encounter) == ["Mina", "Jonathan", "Loup"]


def test_JDR_30a_the_tie_order_names_pcs_of_the_encounter_once(
    client, gm, make_character, forced_dice, col
):
    campaign, encounter, jonathan, mina, wolf = col
    stranger = jdr_pc(make_character, campaign, gm, "Van Helsing", 3)
    # Nothing is rolled for a refused call.
    assert_refused(call(client, encounter, gm, wolf, jonathan), "JDR-30a", 422)
    assert_problem(call(client, encounter, gm, stranger, jonathan), 422, "not in this encounter")
    assert_problem(call(client, encounter, gm, mina, mina), 422, "twice")
    assert_problem(
        post(client, encounter, "/initiative", gm, {"tie_order": ["x"]}), 422, "tie_order"
    )


def test_JDR_30a_other_rulesets_break_their_ties_themselves(
    client, gm, player, make_campaign, make_character
):
    campaign = make_campaign("fabulae-tenebris", players=(player,))
    ada = make_character(campaign, player, sheet=FABULAE_SHEET, name="Ada")
    encounter = created(client, campaign, gm, "L'usine", fighter(ada, "pcs"))
    assert_problem(call(client, encounter, gm, ada), 422, "send no tie_order")


def test_JDR_36_no_sleeping_target_among_those_fighting(
    client, gm, player, forced_dice, col, make_character
):
    campaign, encounter, jonathan, _mina, wolf = col
    forced_dice.push(6, 6, 1, 1, 1, 1)  # Jonathan 14, Mina 4, the wolf 3
    encounter = ok(post(client, encounter, "/initiative", gm))
    stake = {"attacker_id": jonathan["id"], "target_id": wolf["id"], "sleeping_target": True}
    refused = act(client, encounter, player, jonathan, "jdr.attack", **stake)
    body = assert_refused(refused, "JDR-36")
    assert "Loup is fighting in an encounter" in body["detail"]
    # Not even the GM, out of turn: whoever fights is awake.
    forced = act(client, encounter, gm, jonathan, "jdr.attack", override=True, **stake)
    assert_refused(forced, "JDR-36")
    # Nor from outside the fight, through POST .../rolls: the wolf is awake all the same.
    sheet = {"traits": {"mental": 1, "physique": 1, "social": 1}}
    comte = make_character(campaign, gm, kind="npc", name="Le comte", sheet=sheet)
    outside = client.post(
        f"{API}/campaigns/{campaign['id']}/rolls",
        json={"kind": "jdr.attack", **stake, "attacker_id": comte["id"]},
        headers=gm.headers,
    )
    assert_refused(outside, "JDR-36")
    assert [e["kind"] for e in log_entries(client, campaign, gm)][-1] == "jdr.initiative"
