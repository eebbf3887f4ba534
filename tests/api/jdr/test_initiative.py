"""Initiative through POST .../rolls (JDR-30a, JDR-31, JDR-31a)."""

from __future__ import annotations

import pytest

from tests.api.helpers import (
    assert_refused,
    last_seq,
    new_scene,
    new_session,
    post_roll,
)
from tests.api.jdr.fights import (
    initiative,
    npc,
)
from tests.conftest import assert_problem

# --- JDR-30a / JDR-31 / JDR-31a: initiative ------------------------------------------------


@pytest.fixture
def party(dracula, player, other_player, make_character):
    def pc(owner, name, physique):
        return make_character(
            dracula,
            owner,
            name=name,
            sheet={"traits": {"mental": 2, "physique": physique, "social": 2}},
        )

    return pc


def ranks(entry) -> list[str]:
    return [row["name"] for row in sorted(entry["result"]["order"], key=lambda r: r["rank"])]


def test_JDR_30a_initiative_highest_total_acts_first(
    client, gm, player, other_player, dracula, party, make_character, forced_dice
):
    jonathan = party(player, "Jonathan", 3)
    mina = party(other_player, "Mina", 1)
    wolf = npc(make_character, dracula, gm, "Loup", (0, 2, 0))
    new_session(client, dracula, gm)
    forced_dice.push(1, 1, 6, 6, 3, 3)
    entry = initiative(client, dracula, gm, jonathan, wolf, mina)
    assert entry.status_code == 201, entry.text
    entry = entry.json()
    assert entry["kind"] == "jdr.initiative" and entry["character_id"] is None
    assert [d["face"] for d in entry["draws"]] == [1, 1, 6, 6, 3, 3]
    assert ranks(entry) == ["Loup", "Mina", "Jonathan"]
    by_name = {row["name"]: row for row in entry["result"]["order"]}
    assert by_name["Jonathan"]["total"] == 2 + 3 and by_name["Jonathan"]["dice"] == [1, 1]
    assert by_name["Loup"]["total"] == 12 + 2 and by_name["Loup"]["kind"] == "npc"
    assert by_name["Mina"]["total"] == 6 + 1 and by_name["Mina"]["rank"] == 2
    assert entry["effects"] == []


def test_JDR_30a_a_pc_goes_before_an_npc_on_a_tie(
    client, gm, player, dracula, party, make_character, forced_dice
):
    wolf = npc(make_character, dracula, gm, "Loup", (0, 3, 0))
    jonathan = party(player, "Jonathan", 2)
    new_session(client, dracula, gm)
    forced_dice.push(1, 3, 2, 3)  # the wolf 4 + 3 = 7, Jonathan 5 + 2 = 7
    entry = initiative(client, dracula, gm, wolf, jonathan).json()
    assert len(entry["draws"]) == 4  # no roll-off between a PC and an NPC
    assert ranks(entry) == ["Jonathan", "Loup"]


def test_JDR_30a_the_gm_gives_the_players_order_between_tied_pcs(
    client, gm, player, other_player, dracula, party, forced_dice
):
    jonathan = party(player, "Jonathan", 3)
    mina = party(other_player, "Mina", 1)
    new_session(client, dracula, gm)
    forced_dice.push(2, 2, 3, 3)  # 4 + 3 = 7 and 6 + 1 = 7
    entry = initiative(client, dracula, gm, jonathan, mina, order=[mina, jonathan]).json()
    assert len(entry["draws"]) == 4
    assert ranks(entry) == ["Mina", "Jonathan"]


def test_JDR_30a_by_default_higher_physique_breaks_a_tie_between_pcs(
    client, gm, player, other_player, dracula, party, forced_dice
):
    mina = party(other_player, "Mina", 1)
    jonathan = party(player, "Jonathan", 3)
    new_session(client, dracula, gm)
    forced_dice.push(3, 3, 2, 2)  # 6 + 1 = 7 and 4 + 3 = 7
    entry = initiative(client, dracula, gm, mina, jonathan).json()
    assert len(entry["draws"]) == 4
    assert ranks(entry) == ["Jonathan", "Mina"]


def test_JDR_30a_then_a_recorded_1d6_roll_off(
    client, gm, player, other_player, dracula, party, forced_dice
):
    jonathan = party(player, "Jonathan", 2)
    mina = party(other_player, "Mina", 2)
    new_session(client, dracula, gm)
    # Both 6 + 2 = 8 with the same physique: a roll-off, tied once (4, 4), then 1 against 6.
    forced_dice.push(3, 3, 2, 4, 4, 4, 1, 6)
    entry = initiative(client, dracula, gm, jonathan, mina).json()
    assert [d["face"] for d in entry["draws"]] == [3, 3, 2, 4, 4, 4, 1, 6]
    assert all(d["sides"] == 6 for d in entry["draws"])
    assert ranks(entry) == ["Mina", "Jonathan"]
    by_name = {row["name"]: row for row in entry["result"]["order"]}
    assert by_name["Jonathan"]["rolloff"] == [4, 1]
    assert by_name["Mina"]["rolloff"] == [4, 6]


def test_JDR_31a_surprise_gives_plus_two(
    client, gm, player, dracula, party, make_character, forced_dice
):
    jonathan = party(player, "Jonathan", 2)
    strigoi = npc(make_character, dracula, gm, "Strigoi", (1, 2, 1))
    new_session(client, dracula, gm)
    forced_dice.push(4, 4, 3, 4)  # Jonathan 8 + 2 = 10; the strigoi 7 + 2 + 2 = 11
    entry = initiative(
        client,
        dracula,
        gm,
        jonathan,
        {"character_id": strigoi["id"], "surprise": True},
    ).json()
    by_name = {row["name"]: row for row in entry["result"]["order"]}
    assert by_name["Strigoi"]["surprise"] == 2 and by_name["Strigoi"]["total"] == 11
    assert by_name["Jonathan"]["surprise"] == 0 and by_name["Jonathan"]["total"] == 10
    assert ranks(entry) == ["Strigoi", "Jonathan"]


def test_JDR_31a_a_pc_caught_off_guard_acts_last(
    client, gm, player, other_player, dracula, party, make_character, forced_dice
):
    jonathan = party(player, "Jonathan", 3)
    mina = party(other_player, "Mina", 1)
    wolf = npc(make_character, dracula, gm, "Loup", (0, 1, 0))
    new_session(client, dracula, gm)
    forced_dice.push(6, 6, 1, 1, 2, 1)  # Jonathan 15, Mina 3, the wolf 4
    entry = initiative(
        client,
        dracula,
        gm,
        {"character_id": jonathan["id"], "off_guard": True},
        mina,
        wolf,
    ).json()
    assert ranks(entry) == ["Loup", "Mina", "Jonathan"]
    by_name = {row["name"]: row for row in entry["result"]["order"]}
    assert by_name["Jonathan"]["off_guard"] is True and by_name["Jonathan"]["total"] == 15


def test_JDR_31_initiative_once_per_scene(
    client, gm, player, other_player, dracula, party, make_character, forced_dice
):
    jonathan = party(player, "Jonathan", 3)
    mina = party(other_player, "Mina", 1)
    wolf = npc(make_character, dracula, gm, "Loup", (0, 1, 0))
    new_session(client, dracula, gm)
    forced_dice.push(3, 3, 4, 4)
    assert initiative(client, dracula, gm, jonathan, wolf).status_code == 201
    before = last_seq(client, dracula, gm)
    response = initiative(client, dracula, gm, jonathan, mina)
    assert_refused(response, "JDR-31")
    assert "Jonathan" in response.json()["detail"]
    assert_refused(initiative(client, dracula, gm, wolf), "JDR-31")
    assert last_seq(client, dracula, gm) == before
    # Someone joining the fight mid-scene rolls once too.
    forced_dice.push(5, 5)
    assert initiative(client, dracula, gm, mina).status_code == 201
    assert_refused(initiative(client, dracula, gm, mina), "JDR-31")
    # A new scene, a new initiative.
    new_scene(client, dracula, gm)
    forced_dice.push(1, 2, 3, 4, 5, 6)
    assert initiative(client, dracula, gm, jonathan, mina, wolf).status_code == 201


def test_JDR_31_only_the_gm_calls_initiative(client, gm, player, dracula, party, forced_dice):
    jonathan = party(player, "Jonathan", 3)
    new_session(client, dracula, gm)
    assert_problem(initiative(client, dracula, player, jonathan), 403)
    forced_dice.push(2, 2)
    assert initiative(client, dracula, gm, jonathan).status_code == 201


def test_JDR_31_a_combatant_listed_twice_is_422(client, gm, player, dracula, party):
    jonathan = party(player, "Jonathan", 3)
    new_session(client, dracula, gm)
    assert_problem(initiative(client, dracula, gm, jonathan, jonathan), 422, "twice")
    assert_problem(
        post_roll(client, dracula, gm, {"kind": "jdr.initiative", "combatants": []}), 422
    )
