"""The Joker du destin through the API (JDR-25..27)."""

from __future__ import annotations

from tests.api.helpers import (
    assert_refused,
    gm_patch,
    last_seq,
    new_scene,
    new_session,
    sheet_of,
)
from tests.api.jdr.plays import (
    MIHAIL_WORDS,
    acted,
    effect_fields,
    facts,
    follow,
    followed,
    partial_supernatural,
    peril,
)
from tests.conftest import DRACULA_SHEET, assert_problem

# --- JDR-25/26/27: the Joker du destin -------------------------------------------------------


def test_JDR_25_joker_rerolls_an_action_of_direct_peril_with_new_dice(
    client, gm, player, dracula, mihail, forced_dice
):
    new_session(client, dracula, gm)
    action = peril(client, dracula, player, mihail, forced_dice, talent="Théologie")
    assert action["result"]["total"] == 2 + 2 + 2 and action["result"]["tier"] == "failure"
    forced_dice.push(5, 6)
    joker = followed(client, dracula, player, "jdr.joker", action["seq"])
    assert joker["kind"] == "jdr.joker" and joker["follows"] == action["seq"]
    assert [d["face"] for d in joker["draws"]] == [5, 6]
    result = joker["result"]
    assert result["dice"] == [5, 6] and result["rerolls"] == action["seq"]
    assert result["total"] == 11 + 2 + 2 and result["tier"] == "critical_success"
    assert result["label"] == "Succès critique"
    assert ("joker", "ready", "spent") in effect_fields(joker)
    assert sheet_of(client, player, mihail)["joker"] == "spent"


def test_FAIR_21_JDR_26_a_held_joker_is_applied_before_the_next_session_recharges_it(
    client, gm, player, dracula, mihail, forced_dice
):
    new_session(client, dracula, gm)
    action = peril(client, dracula, player, mihail, forced_dice, visibility="self")
    forced_dice.push(5, 6)
    joker = followed(client, dracula, player, "jdr.joker", action["seq"])
    assert joker["effects_held"] is True and sheet_of(client, gm, mihail)["joker"] == "ready"
    # The next session's recharge reads every sheet: the held Joker would be lost in it.
    sessions = f"/api/v1/campaigns/{dracula['id']}/sessions"
    before = last_seq(client, dracula, gm)
    response = client.post(sessions, json={"characters": []}, headers=gm.headers)
    body = assert_problem(response, 409, f"hidden entries {action['seq']}, {joker['seq']} wait")
    assert body["rule"] == "FAIR-21" and "apply them" in body["detail"]
    assert last_seq(client, dracula, gm) == before
    for seq in (action["seq"], joker["seq"]):
        applied = client.post(
            f"/api/v1/campaigns/{dracula['id']}/log/{seq}/apply", headers=gm.headers
        )
        assert applied.status_code == 201, applied.text
    assert sheet_of(client, gm, mihail)["joker"] == "spent"
    new_session(client, dracula, gm)
    assert sheet_of(client, gm, mihail)["joker"] == "ready"  # JDR-26: recharged


def test_JDR_25_joker_keeps_the_rolls_advantage(
    client, gm, player, cthulhu, penhaligon, forced_dice
):
    new_session(client, cthulhu, gm)
    forced_dice.push(1, 1, 2)
    action = acted(
        client,
        cthulhu,
        player,
        penhaligon,
        "physique",
        advantage=True,
        context={"direct_peril": True},
    )
    forced_dice.push(1, 6, 6)
    result = followed(client, cthulhu, player, "jdr.joker", action["seq"])["result"]
    assert result["mode"] == "advantage" and result["kept"] == [False, True, True]
    assert result["total"] == 12 + 1


def test_JDR_25_joker_refused_without_direct_peril(
    client, gm, player, dracula, mihail, forced_dice
):
    new_session(client, dracula, gm)
    forced_dice.push(1, 1)
    action = acted(client, dracula, player, mihail, "physique")
    before = last_seq(client, dracula, gm)
    assert_refused(follow(client, dracula, player, "jdr.joker", action["seq"]), "JDR-25")
    assert last_seq(client, dracula, gm) == before
    assert sheet_of(client, player, mihail)["joker"] == "ready"


def test_JDR_25_the_second_result_is_final(client, gm, player, dracula, mihail, forced_dice):
    new_session(client, dracula, gm)
    action = peril(client, dracula, player, mihail, forced_dice)
    forced_dice.push(2, 3)  # 5 + physique 2 = 7: a failure, and it is kept
    joker = followed(client, dracula, player, "jdr.joker", action["seq"])
    assert joker["result"]["tier"] == "failure"
    gm_patch(client, gm, mihail, {"joker": "ready"})  # even with a Joker at hand
    assert_refused(follow(client, dracula, player, "jdr.joker", action["seq"]), "JDR-25")
    assert_refused(follow(client, dracula, player, "jdr.joker", joker["seq"]), "JDR-25")


def test_JDR_25_joker_belongs_to_pcs(client, gm, dracula, make_character, forced_dice):
    new_session(client, dracula, gm)
    innkeeper = make_character(dracula, gm, kind="npc", name="Aubergiste", sheet=DRACULA_SHEET)
    action = peril(client, dracula, gm, innkeeper, forced_dice)
    assert_refused(follow(client, dracula, gm, "jdr.joker", action["seq"]), "JDR-25")


def test_JDR_26_joker_spent_until_the_next_session(
    client, gm, player, dracula, mihail, forced_dice
):
    new_session(client, dracula, gm)
    action = peril(client, dracula, player, mihail, forced_dice)
    forced_dice.push(2, 2)
    followed(client, dracula, player, "jdr.joker", action["seq"])
    other = peril(client, dracula, player, mihail, forced_dice)
    assert_refused(follow(client, dracula, player, "jdr.joker", other["seq"]), "JDR-26")
    # A new scene, even after a night, is the same session.
    scene = new_scene(client, dracula, gm, night=True, facts=[facts(mihail, recollected=True)])
    assert scene["effects"] == []
    later = peril(client, dracula, player, mihail, forced_dice)
    assert_refused(follow(client, dracula, player, "jdr.joker", later["seq"]), "JDR-26")
    assert sheet_of(client, player, mihail)["joker"] == "spent"

    session = new_session(client, dracula, gm)
    assert [(e["field"], e["before"], e["after"], e["rule"]) for e in session["effects"]] == [
        ("joker", "spent", "ready", "JDR-26")
    ]
    assert sheet_of(client, player, mihail)["joker"] == "ready"
    fresh = peril(client, dracula, player, mihail, forced_dice)
    forced_dice.push(6, 6)
    assert followed(client, dracula, player, "jdr.joker", fresh["seq"])["result"]["total"] == 14


def test_JDR_27_joker_refused_after_the_talisman(client, gm, player, dracula, mihail, forced_dice):
    new_session(client, dracula, gm)
    action = partial_supernatural(client, dracula, player, mihail, forced_dice, direct_peril=True)
    invoked = followed(client, dracula, player, "jdr.talisman", action["seq"], words=MIHAIL_WORDS)
    assert_refused(follow(client, dracula, player, "jdr.joker", action["seq"]), "JDR-27")
    followed(client, dracula, gm, "jdr.talisman_ruling", invoked["seq"], sincere=False)
    assert_refused(follow(client, dracula, player, "jdr.joker", action["seq"]), "JDR-27")
    assert sheet_of(client, player, mihail)["joker"] == "ready"


def test_JDR_27_talisman_refused_after_the_joker(client, gm, player, dracula, mihail, forced_dice):
    new_session(client, dracula, gm)
    action = partial_supernatural(client, dracula, player, mihail, forced_dice, direct_peril=True)
    forced_dice.push(4, 3)  # the reroll: 7 + Mental 3 = 10, a partial success again
    joker = followed(client, dracula, player, "jdr.joker", action["seq"])
    assert joker["result"]["tier"] == "partial_success"
    # Neither on the original action nor on the reroll.
    assert_refused(
        follow(client, dracula, player, "jdr.talisman", action["seq"], words=MIHAIL_WORDS),
        "JDR-27",
    )
    assert_refused(
        follow(client, dracula, player, "jdr.talisman", joker["seq"], words=MIHAIL_WORDS),
        "JDR-27",
    )
    assert sheet_of(client, player, mihail)["talisman"] == "ready"


def test_JDR_27_joker_refused_after_the_effleurement(
    client, gm, player, cthulhu, penhaligon, forced_dice
):
    new_session(client, cthulhu, gm)
    forced_dice.push(3, 4)
    action = acted(
        client,
        cthulhu,
        player,
        penhaligon,
        context={"domain": "investigation", "direct_peril": True},
    )
    followed(client, cthulhu, player, "jdr.effleurement", action["seq"], mark="un tic nerveux")
    assert_refused(follow(client, cthulhu, player, "jdr.joker", action["seq"]), "JDR-27")
    assert sheet_of(client, player, penhaligon)["joker"] == "ready"


def test_JDR_27_effleurement_refused_after_the_joker(
    client, gm, player, cthulhu, penhaligon, forced_dice
):
    new_session(client, cthulhu, gm)
    forced_dice.push(3, 4)
    action = acted(
        client,
        cthulhu,
        player,
        penhaligon,
        context={"domain": "investigation", "direct_peril": True},
    )
    forced_dice.push(4, 3)
    joker = followed(client, cthulhu, player, "jdr.joker", action["seq"])
    assert joker["result"]["tier"] == "partial_success"
    for seq in (action["seq"], joker["seq"]):
        assert_refused(
            follow(client, cthulhu, player, "jdr.effleurement", seq, mark="un tic"), "JDR-27"
        )
    sheet = sheet_of(client, player, penhaligon)
    assert sheet["marks"] == [] and sheet["effleurement"] == "ready"


def test_FAIR_21_a_joker_that_reads_a_blind_ruling_is_blind_too(
    client, gm, player, other_player, cthulhu, penhaligon, forced_dice
):
    # The Joker's request carries the GM's context ruling it followed: public, it would
    # publish a ruling the GM made blind.
    new_session(client, cthulhu, gm)
    forced_dice.push(1, 1)
    action = acted(client, cthulhu, player, penhaligon, "physique")
    followed(
        client,
        cthulhu,
        gm,
        "jdr.context",
        action["seq"],
        context={"direct_peril": True},
        visibility="blind",
    )
    forced_dice.push(6, 5)
    joker = followed(client, cthulhu, player, "jdr.joker", action["seq"])
    assert joker["redacted"] is True and joker["visibility"] == "blind"
    url = f"/api/v1/campaigns/{cthulhu['id']}/rolls/{joker['seq']}"
    assert client.get(url, headers=gm.headers).json()["result"]["total"] == 12
    assert client.get(url, headers=other_player.headers).json()["redacted"] is True
