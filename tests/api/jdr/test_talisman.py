"""[D] The Talisman de Foi through the API: invocation, ruling, refusals (JDR-20..23), and
the cracked or spent talisman (JDR-24).
"""

from __future__ import annotations

import pytest

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
    crack,
    effect_fields,
    facts,
    follow,
    followed,
    gm_event,
    partial_supernatural,
)
from tests.conftest import (
    API,
    DRACULA_SHEET,
    assert_problem,
)

# --- JDR-20..23: the Talisman de Foi [D] ---------------------------------------------------


def test_JDR_20_invocation_is_pending_until_the_gm_rules(
    client, gm, player, dracula, mihail, forced_dice
):
    new_session(client, dracula, gm)
    action = partial_supernatural(client, dracula, player, mihail, forced_dice)
    invoked = followed(client, dracula, player, "jdr.talisman", action["seq"], words=MIHAIL_WORDS)
    assert invoked["kind"] == "jdr.talisman" and invoked["follows"] == action["seq"]
    assert invoked["draws"] == []  # no new dice (JDR-20)
    assert invoked["result"] == {
        "status": "pending",
        "words": MIHAIL_WORDS,
        "tier": "partial_success",
    }
    assert invoked["request"]["words"] == MIHAIL_WORDS
    assert sheet_of(client, player, mihail)["talisman"] == "ready"


def test_FAIR_21_a_gm_only_ruling_leaves_other_players_with_the_pending_status(
    client, gm, player, other_player, dracula, mihail, forced_dice
):
    new_session(client, dracula, gm)
    action = partial_supernatural(client, dracula, player, mihail, forced_dice)
    invoked = followed(client, dracula, player, "jdr.talisman", action["seq"], words=MIHAIL_WORDS)
    followed(
        client, dracula, gm, "jdr.talisman_ruling", invoked["seq"], sincere=False, visibility="gm"
    )

    def follow_ups(caller):
        url = f"{API}/campaigns/{dracula['id']}/rolls/{action['seq']}"
        return client.get(url, headers=caller.headers).json()["follow_ups"]

    assert follow_ups(gm) == [
        {"seq": invoked["seq"], "kind": "jdr.talisman", "status": "insincere"}
    ]
    # The verdict is the GM's to announce: the others still read the invocation's status.
    for caller in (player, other_player):
        assert follow_ups(caller) == [
            {"seq": invoked["seq"], "kind": "jdr.talisman", "status": "pending"}
        ]


def test_JDR_20_talisman_turns_a_partial_success_into_a_success_when_sincere(
    client, gm, player, dracula, mihail, forced_dice
):
    new_session(client, dracula, gm)
    action = partial_supernatural(client, dracula, player, mihail, forced_dice)
    invoked = followed(client, dracula, player, "jdr.talisman", action["seq"], words=MIHAIL_WORDS)
    ruling = followed(client, dracula, gm, "jdr.talisman_ruling", invoked["seq"], sincere=True)
    assert ruling["follows"] == invoked["seq"] and ruling["draws"] == []
    assert ruling["result"]["status"] == "sincere"
    assert ruling["result"]["tier"] == "success"
    assert ruling["result"]["label"] == "Succès complet"
    assert ruling["result"]["upgraded_from"] == "partial_success"
    assert ("talisman", "ready", "spent") in effect_fields(ruling)
    sheet = sheet_of(client, player, mihail)
    assert sheet["talisman"] == "spent" and sheet.get("faith_shaken") is None


def test_JDR_21_insincere_words_crack_the_talisman(
    client, gm, player, dracula, mihail, forced_dice
):
    new_session(client, dracula, gm)
    action = partial_supernatural(client, dracula, player, mihail, forced_dice)
    invoked = followed(
        client, dracula, player, "jdr.talisman", action["seq"], words="bon ben on essaie"
    )
    ruling = followed(client, dracula, gm, "jdr.talisman_ruling", invoked["seq"], sincere=False)
    assert ruling["result"]["status"] == "insincere"
    assert ruling["result"]["tier"] == "partial_success"
    assert ruling["result"]["label"] == "Succès partiel"
    sheet = sheet_of(client, player, mihail)
    assert sheet["talisman"] == "cracked"
    assert sheet["faith_shaken"] == {"cracked_scene": 1, "confrontation_scene": None}


def test_JDR_21_only_the_gm_rules_and_only_once(client, gm, player, dracula, mihail, forced_dice):
    new_session(client, dracula, gm)
    action = partial_supernatural(client, dracula, player, mihail, forced_dice)
    invoked = followed(client, dracula, player, "jdr.talisman", action["seq"], words=MIHAIL_WORDS)
    before = last_seq(client, dracula, gm)
    response = follow(client, dracula, player, "jdr.talisman_ruling", invoked["seq"], sincere=True)
    assert_problem(response, 403, "GM")
    assert last_seq(client, dracula, gm) == before
    assert sheet_of(client, gm, mihail)["talisman"] == "ready"
    followed(client, dracula, gm, "jdr.talisman_ruling", invoked["seq"], sincere=True)
    assert_refused(
        follow(client, dracula, gm, "jdr.talisman_ruling", invoked["seq"], sincere=False),
        "JDR-21",
    )
    assert sheet_of(client, gm, mihail)["talisman"] == "spent"


def test_JDR_21_ruling_follows_only_an_invocation(client, gm, player, dracula, mihail, forced_dice):
    new_session(client, dracula, gm)
    action = partial_supernatural(client, dracula, player, mihail, forced_dice)
    response = follow(client, dracula, gm, "jdr.talisman_ruling", action["seq"], sincere=True)
    assert_problem(response, 422, "jdr.talisman")


def test_JDR_21_words_are_required(client, gm, player, dracula, mihail, forced_dice):
    new_session(client, dracula, gm)
    action = partial_supernatural(client, dracula, player, mihail, forced_dice)
    assert_problem(follow(client, dracula, player, "jdr.talisman", action["seq"]), 422)
    assert_problem(follow(client, dracula, player, "jdr.talisman", action["seq"], words=""), 422)
    assert_problem(follow(client, dracula, player, "jdr.talisman", action["seq"], words="   "), 422)


def test_JDR_22_talisman_refused_outside_a_supernatural_confrontation(
    client, gm, player, dracula, mihail, forced_dice
):
    new_session(client, dracula, gm)
    forced_dice.push(3, 4)  # a society interrogation: a partial success, but nothing uncanny
    action = acted(client, dracula, player, mihail, context={"supernatural": False})
    assert action["result"]["tier"] == "partial_success"
    before = last_seq(client, dracula, gm)
    response = follow(client, dracula, player, "jdr.talisman", action["seq"], words=MIHAIL_WORDS)
    assert_refused(response, "JDR-22")
    assert "supernatural" in response.json()["detail"]
    assert last_seq(client, dracula, gm) == before
    assert sheet_of(client, player, mihail)["talisman"] == "ready"


@pytest.mark.parametrize(
    ("faces", "tier"),
    [
        ((1, 1), "critical_failure"),
        ((2, 3), "failure"),
        ((4, 4), "success"),
        ((6, 6), "critical_success"),
    ],
)
def test_JDR_22_talisman_refused_unless_the_tier_is_partial(
    client, gm, player, dracula, mihail, forced_dice, faces, tier
):
    new_session(client, dracula, gm)
    forced_dice.push(*faces)
    action = acted(client, dracula, player, mihail, context={"supernatural": True})
    assert action["result"]["tier"] == tier
    response = follow(client, dracula, player, "jdr.talisman", action["seq"], words=MIHAIL_WORDS)
    assert_refused(response, "JDR-22")
    assert tier in response.json()["detail"]


@pytest.mark.parametrize("state", ["spent", "cracked"])
def test_JDR_22_talisman_refused_when_not_ready(
    client, gm, player, dracula, mihail, forced_dice, state
):
    new_session(client, dracula, gm)
    gm_patch(client, gm, mihail, {"talisman": state})
    action = partial_supernatural(client, dracula, player, mihail, forced_dice)
    before = last_seq(client, dracula, gm)
    response = follow(client, dracula, player, "jdr.talisman", action["seq"], words=MIHAIL_WORDS)
    assert_refused(response, "JDR-22")
    assert state in response.json()["detail"]
    assert last_seq(client, dracula, gm) == before
    assert sheet_of(client, player, mihail)["talisman"] == state


def test_JDR_22_talisman_refused_without_a_sacred_object(
    client, gm, player, dracula, make_character, forced_dice
):
    sheet = {key: value for key, value in DRACULA_SHEET.items() if key != "sacred_object"}
    pc = make_character(dracula, player, name="Jonathan", sheet=sheet)
    new_session(client, dracula, gm)
    action = partial_supernatural(client, dracula, player, pc, forced_dice)
    response = follow(client, dracula, player, "jdr.talisman", action["seq"], words=MIHAIL_WORDS)
    assert_refused(response, "JDR-22")
    assert "sacred object" in response.json()["detail"]


def test_JDR_22_sacred_object_established_in_this_scene_works_only_from_the_next(
    client, gm, player, dracula, make_character, forced_dice
):
    sheet = {key: value for key, value in DRACULA_SHEET.items() if key != "sacred_object"}
    pc = make_character(dracula, player, name="Jonathan", sheet=sheet)
    new_session(client, dracula, gm)
    # Mid-scene the player "remembers" a relic, and tries to backdate it.
    response = client.patch(
        f"{API}/characters/{pc['id']}",
        json={"sheet": {"sacred_object": "médaillon béni", "sacred_object_scene": 0}},
        headers=player.headers,
    )
    assert response.status_code == 200, response.text
    assert response.json()["sheet"]["sacred_object_scene"] == 1
    action = partial_supernatural(client, dracula, player, pc, forced_dice)
    response = follow(client, dracula, player, "jdr.talisman", action["seq"], words=MIHAIL_WORDS)
    assert_refused(response, "JDR-22")
    # In the next scene the object was established before the scene started.
    new_scene(client, dracula, gm)
    action = partial_supernatural(client, dracula, player, pc, forced_dice)
    invoked = followed(client, dracula, player, "jdr.talisman", action["seq"], words=MIHAIL_WORDS)
    assert invoked["result"]["status"] == "pending"


def test_JDR_22_a_sacred_object_listed_at_creation_counts_from_the_first_scene(
    client, gm, player, dracula, make_character, forced_dice
):
    # JDR-22 (corrected): created during scene 1 with its object, the PC may invoke in it.
    new_session(client, dracula, gm)
    pc = make_character(dracula, player, name="Mina")
    assert pc["sheet"]["sacred_object_scene"] == 1
    assert pc["sheet"]["sacred_object_from_creation"] is True
    action = partial_supernatural(client, dracula, player, pc, forced_dice)
    invoked = follow(client, dracula, player, "jdr.talisman", action["seq"], words=MIHAIL_WORDS)
    assert invoked.status_code == 201, invoked.text


def test_JDR_22_an_object_added_during_a_scene_waits_for_the_next_scene(
    client, gm, player, dracula, make_character, forced_dice
):
    new_session(client, dracula, gm)
    pc = make_character(
        dracula, player, name="Lucy", sheet={**DRACULA_SHEET, "sacred_object": None}
    )
    pc = client.patch(
        f"{API}/characters/{pc['id']}",
        json={"sheet": {"sacred_object": "chapelet", "sacred_object_from_creation": True}},
        headers=player.headers,
    ).json()
    assert pc["sheet"]["sacred_object_from_creation"] is False  # only the rules set it
    action = partial_supernatural(client, dracula, player, pc, forced_dice)
    assert_refused(
        follow(client, dracula, player, "jdr.talisman", action["seq"], words=MIHAIL_WORDS),
        "JDR-22",
    )


def test_JDR_22_changing_the_sacred_object_mid_scene_is_refused(
    client, gm, player, dracula, mihail, forced_dice
):
    new_session(client, dracula, gm)
    gm_patch(client, gm, mihail, {"sacred_object": "hostie consacrée"})
    action = partial_supernatural(client, dracula, player, mihail, forced_dice)
    assert_refused(
        follow(client, dracula, player, "jdr.talisman", action["seq"], words=MIHAIL_WORDS),
        "JDR-22",
    )


def test_JDR_23_atheist_needs_a_believer_to_instruct_them(
    client, gm, player, other_player, dracula, mihail, make_character, forced_dice
):
    sheet = {**DRACULA_SHEET, "faith": "atheist", "sacred_object": "croix de sa mère"}
    van = make_character(dracula, other_player, name="Van Helsing", sheet=sheet)
    assert van["sheet"]["faith"] == "atheist"
    new_session(client, dracula, gm)
    action = partial_supernatural(client, dracula, other_player, van, forced_dice)
    response = follow(
        client, dracula, other_player, "jdr.talisman", action["seq"], words="Je crois."
    )
    assert_refused(response, "JDR-23")
    # The player cannot set it; the GM records Mihail's instruction.
    assert_problem(
        client.patch(
            f"{API}/characters/{van['id']}",
            json={"sheet": {"instructed_by": mihail["id"]}},
            headers=other_player.headers,
        ),
        403,
    )
    assert (
        gm_patch(client, gm, van, {"instructed_by": mihail["id"]})["instructed_by"] == mihail["id"]
    )
    invoked = followed(
        client, dracula, other_player, "jdr.talisman", action["seq"], words="Je crois."
    )
    assert invoked["result"]["status"] == "pending"


def test_JDR_20_second_invocation_on_the_same_action_is_refused(
    client, gm, player, dracula, mihail, forced_dice
):
    new_session(client, dracula, gm)
    action = partial_supernatural(client, dracula, player, mihail, forced_dice)
    followed(client, dracula, player, "jdr.talisman", action["seq"], words=MIHAIL_WORDS)
    assert_refused(
        follow(client, dracula, player, "jdr.talisman", action["seq"], words=MIHAIL_WORDS),
        "JDR-20",
    )


def test_JDR_20_once_per_scene_a_spent_talisman_cannot_be_invoked_again(
    client, gm, player, dracula, mihail, forced_dice
):
    new_session(client, dracula, gm)
    action = partial_supernatural(client, dracula, player, mihail, forced_dice)
    invoked = followed(client, dracula, player, "jdr.talisman", action["seq"], words=MIHAIL_WORDS)
    followed(client, dracula, gm, "jdr.talisman_ruling", invoked["seq"], sincere=True)
    again = partial_supernatural(client, dracula, player, mihail, forced_dice)
    assert_refused(
        follow(client, dracula, player, "jdr.talisman", again["seq"], words=MIHAIL_WORDS),
        "JDR-22",
    )


def test_JDR_20_a_second_invocation_in_the_same_scene_is_refused_while_one_is_pending(
    client, gm, player, dracula, mihail, forced_dice
):
    new_session(client, dracula, gm)
    first = partial_supernatural(client, dracula, player, mihail, forced_dice)
    second = partial_supernatural(client, dracula, player, mihail, forced_dice)
    followed(client, dracula, player, "jdr.talisman", first["seq"], words=MIHAIL_WORDS)
    assert_refused(
        follow(client, dracula, player, "jdr.talisman", second["seq"], words=MIHAIL_WORDS),
        "JDR-20",
    )


def test_JDR_20_once_per_scene_even_after_a_penance_in_the_scene(
    client, gm, player, dracula, mihail, forced_dice
):
    new_session(client, dracula, gm)
    crack(client, dracula, gm, player, mihail, forced_dice)
    assert gm_event(client, dracula, gm, "jdr.penance", mihail).status_code == 201
    assert sheet_of(client, gm, mihail)["talisman"] == "ready"
    again = partial_supernatural(client, dracula, player, mihail, forced_dice)
    assert_refused(
        follow(client, dracula, player, "jdr.talisman", again["seq"], words=MIHAIL_WORDS),
        "JDR-20",
    )
    new_scene(client, dracula, gm)
    later = partial_supernatural(client, dracula, player, mihail, forced_dice)
    invoked = followed(client, dracula, player, "jdr.talisman", later["seq"], words=MIHAIL_WORDS)
    assert invoked["result"]["status"] == "pending"


def test_JDR_20_talisman_belongs_to_pcs_and_to_the_roller(
    client, gm, player, other_player, dracula, mihail, make_character, forced_dice
):
    new_session(client, dracula, gm)
    action = partial_supernatural(client, dracula, player, mihail, forced_dice)
    assert_problem(
        follow(client, dracula, other_player, "jdr.talisman", action["seq"], words=MIHAIL_WORDS),
        403,
    )
    priest = make_character(dracula, gm, kind="npc", name="Higoumène", sheet=DRACULA_SHEET)
    new_scene(client, dracula, gm)
    npc_action = partial_supernatural(client, dracula, gm, priest, forced_dice)
    assert_refused(
        follow(client, dracula, gm, "jdr.talisman", npc_action["seq"], words=MIHAIL_WORDS),
        "JDR-20",
    )


def test_JDR_20_talisman_applies_in_the_scene_of_its_roll(
    client, gm, player, dracula, mihail, forced_dice
):
    new_session(client, dracula, gm)
    action = partial_supernatural(client, dracula, player, mihail, forced_dice)
    new_scene(client, dracula, gm)
    assert_refused(
        follow(client, dracula, player, "jdr.talisman", action["seq"], words=MIHAIL_WORDS),
        "JDR-20",
    )


# --- JDR-24: cracked and spent talismans ---------------------------------------------------


def test_JDR_24_cracked_talisman_burdens_the_next_supernatural_confrontation_only(
    client, gm, player, dracula, mihail, forced_dice
):
    new_session(client, dracula, gm)
    crack(client, dracula, gm, player, mihail, forced_dice)
    protection = {"supernatural": True, "protection": True}
    # Not in the scene of the crack.
    forced_dice.push(5, 5)
    result = acted(client, dracula, player, mihail, context=protection)["result"]
    assert result["mode"] == "normal" and result["auto_disadvantage"] == []

    new_scene(client, dracula, gm, night=True)
    # Not on a roll that is no protection, nor on a protection against mundane wolves.
    forced_dice.push(5, 5)
    result = acted(client, dracula, player, mihail, context={"supernatural": True})["result"]
    assert result["mode"] == "normal"
    forced_dice.push(5, 5)
    result = acted(client, dracula, player, mihail, context={"protection": True})["result"]
    assert result["mode"] == "normal"
    # The next supernatural confrontation: Disadvantage on every protection roll in it.
    forced_dice.push(6, 2, 5)
    entry = acted(client, dracula, player, mihail, context=protection)
    assert entry["result"]["mode"] == "disadvantage"
    assert entry["result"]["auto_disadvantage"] == ["faith_shaken"]
    assert entry["result"]["kept"] == [False, True, True] and entry["result"]["total"] == 10
    assert effect_fields(entry) == [
        (
            "faith_shaken",
            {"cracked_scene": 1, "confrontation_scene": None},
            {"cracked_scene": 1, "confrontation_scene": 2},
        )
    ]
    forced_dice.push(6, 6, 1)
    result = acted(client, dracula, player, mihail, context=protection)["result"]
    assert result["auto_disadvantage"] == ["faith_shaken"] and result["total"] == 7 + 3

    new_scene(client, dracula, gm, night=True, facts=[facts(mihail, recollected=True)])
    forced_dice.push(6, 6)
    result = acted(client, dracula, player, mihail, context=protection)["result"]
    assert result["mode"] == "normal" and result["auto_disadvantage"] == []
    # It stays cracked until penance; recollection does not mend it.
    sheet = sheet_of(client, player, mihail)
    assert sheet["talisman"] == "cracked"
    action = partial_supernatural(client, dracula, player, mihail, forced_dice)
    assert_refused(
        follow(client, dracula, player, "jdr.talisman", action["seq"], words=MIHAIL_WORDS),
        "JDR-22",
    )


def test_JDR_24_penance_restores_a_cracked_talisman(
    client, gm, player, dracula, mihail, forced_dice
):
    new_session(client, dracula, gm)
    assert_refused(gm_event(client, dracula, gm, "jdr.penance", mihail), "JDR-24")
    crack(client, dracula, gm, player, mihail, forced_dice)
    assert_problem(gm_event(client, dracula, player, "jdr.penance", mihail), 403)
    assert sheet_of(client, gm, mihail)["talisman"] == "cracked"
    penance = gm_event(client, dracula, gm, "jdr.penance", mihail, "confession au monastère")
    assert penance.status_code == 201, penance.text
    penance = penance.json()
    assert penance["draws"] == [] and penance["result"]["restored"] == "talisman"
    assert penance["result"]["description"] == "confession au monastère"
    sheet = sheet_of(client, gm, mihail)
    assert sheet["talisman"] == "ready" and sheet.get("faith_shaken") is None
    # The faith is rebuilt: no Disadvantage in the next confrontation.
    new_scene(client, dracula, gm, night=True)
    forced_dice.push(5, 5)
    result = acted(
        client, dracula, player, mihail, context={"supernatural": True, "protection": True}
    )["result"]
    assert result["mode"] == "normal"


def test_JDR_24_spent_talisman_recharges_after_a_night_and_recollection_only(
    client, gm, player, dracula, mihail, forced_dice
):
    new_session(client, dracula, gm)
    action = partial_supernatural(client, dracula, player, mihail, forced_dice)
    invoked = followed(client, dracula, player, "jdr.talisman", action["seq"], words=MIHAIL_WORDS)
    followed(client, dracula, gm, "jdr.talisman_ruling", invoked["seq"], sincere=True)

    scene = new_scene(client, dracula, gm, night=True)
    assert scene["effects"] == [] and sheet_of(client, gm, mihail)["talisman"] == "spent"
    scene = new_scene(client, dracula, gm, facts=[facts(mihail, recollected=True)])
    assert scene["effects"] == [] and sheet_of(client, gm, mihail)["talisman"] == "spent"
    scene = new_scene(client, dracula, gm, night=True, facts=[facts(mihail, recollected=True)])
    assert [(e["character_id"], e["field"], e["after"]) for e in scene["effects"]] == [
        (mihail["id"], "talisman", "ready")
    ]
    assert scene["effects"][0]["rule"] == "JDR-24"
    assert sheet_of(client, gm, mihail)["talisman"] == "ready"
    again = partial_supernatural(client, dracula, player, mihail, forced_dice)
    invoked = followed(client, dracula, player, "jdr.talisman", again["seq"], words=MIHAIL_WORDS)
    assert invoked["result"]["status"] == "pending"


def test_JDR_24_a_new_session_after_a_night_of_prayer_also_recharges(
    client, gm, player, dracula, mihail, forced_dice
):
    new_session(client, dracula, gm)
    action = partial_supernatural(client, dracula, player, mihail, forced_dice)
    invoked = followed(client, dracula, player, "jdr.talisman", action["seq"], words=MIHAIL_WORDS)
    followed(client, dracula, gm, "jdr.talisman_ruling", invoked["seq"], sincere=True)
    session = new_session(client, dracula, gm, night=True, facts=[facts(mihail, recollected=True)])
    assert ("talisman", "ready") in [(e["field"], e["after"]) for e in session["effects"]]


def test_FAIR_14_a_ruling_changed_in_the_database_leaves_its_action_without_a_verdict(
    session, client, gm, player, dracula, mihail, forced_dice
):
    """A ruling whose result lost its tier (changed outside the service) does not fail the
    page of the action it settles: the action shows no final standing, the ruling unfit."""
    from sqlalchemy import update

    from app.models import LogEntry
    from tests.api.test_tampering import commit_tampering, lift_append_only_trigger, where

    new_session(client, dracula, gm)
    action = partial_supernatural(client, dracula, player, mihail, forced_dice)
    invoked = followed(client, dracula, player, "jdr.talisman", action["seq"], words=MIHAIL_WORDS)
    ruling = followed(client, dracula, gm, "jdr.talisman_ruling", invoked["seq"], sincere=True)
    lift_append_only_trigger(session)
    session.execute(
        update(LogEntry).where(where(dracula, ruling["seq"])).values(result={"total": 12})
    )
    session.execute(update(LogEntry).where(where(dracula, invoked["seq"])).values(result=7))
    commit_tampering(session)
    for caller in (gm, player):
        listed = client.get(
            f"{API}/campaigns/{dracula['id']}/log?limit=200", headers=caller.headers
        )
        assert listed.status_code == 200, listed.text
        by_seq = {entry["seq"]: entry for entry in listed.json()["data"]}
        assert by_seq[ruling["seq"]]["unfit"] is True and by_seq[invoked["seq"]]["unfit"] is True
        assert by_seq[action["seq"]].get("final") is None
        assert by_seq[action["seq"]]["follow_ups"] == []
