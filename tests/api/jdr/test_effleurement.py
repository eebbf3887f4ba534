"""[C] The Effleurement Cosmique through the API (JDR-28, JDR-29, JDR-29a), and the counted
marks that make a PC the GM's (JDR-7, JDR-42).
"""

from __future__ import annotations

import pytest

from tests.api.helpers import (
    assert_refused,
    gm_patch,
    last_seq,
    log_entries,
    new_scene,
    new_session,
    post_roll,
    sheet_of,
)
from tests.api.jdr.plays import (
    act,
    acted,
    effect_fields,
    facts,
    five_counted_marks,
    follow,
    followed,
    gm_event,
    partial_investigation,
)
from tests.conftest import (
    API,
    CTHULHU_SHEET,
    assert_problem,
)

# --- JDR-28/29/29a: the Effleurement Cosmique [C] ------------------------------------------


def test_JDR_28_effleurement_turns_a_partial_success_into_success_with_a_counted_mark(
    client, gm, player, cthulhu, penhaligon, forced_dice
):
    new_session(client, cthulhu, gm)
    action = partial_investigation(client, cthulhu, player, penhaligon, forced_dice)
    touched = followed(
        client, cthulhu, player, "jdr.effleurement", action["seq"], mark="rêve d'eau noire"
    )
    assert touched["draws"] == [] and touched["follows"] == action["seq"]
    mark = {"description": "rêve d'eau noire", "counted": True, "scene": 1}
    assert touched["result"] == {
        "status": "applied",
        "tier": "success",
        "label": "Succès complet",
        "upgraded_from": "partial_success",
        "mark": mark,
        "counted_marks": 1,
    }
    sheet = sheet_of(client, player, penhaligon)
    assert sheet["marks"] == [mark] and sheet["effleurement"] == "spent"


@pytest.mark.parametrize(
    "domain", ["investigation", "erudition", "observation", "occult", "mythos"]
)
def test_JDR_29_effleurement_works_in_each_domain_of_hidden_truth(
    client, gm, player, cthulhu, penhaligon, forced_dice, domain
):
    new_session(client, cthulhu, gm)
    action = partial_investigation(client, cthulhu, player, penhaligon, forced_dice, domain)
    touched = followed(client, cthulhu, player, "jdr.effleurement", action["seq"], mark="un mot")
    assert touched["result"]["tier"] == "success"


def test_JDR_29_effleurement_refused_outside_its_domains(
    client, gm, player, cthulhu, penhaligon, forced_dice
):
    new_session(client, cthulhu, gm)
    forced_dice.push(3, 4)  # a bare-handed duel
    action = acted(client, cthulhu, player, penhaligon, context={"domain": "other"})
    before = last_seq(client, cthulhu, gm)
    response = follow(client, cthulhu, player, "jdr.effleurement", action["seq"], mark="un tic")
    assert_refused(response, "JDR-29")
    assert last_seq(client, cthulhu, gm) == before
    sheet = sheet_of(client, player, penhaligon)
    assert sheet["marks"] == [] and sheet["effleurement"] == "ready"


@pytest.mark.parametrize(("faces", "tier"), [((2, 3), "failure"), ((4, 4), "success")])
def test_JDR_28_effleurement_refused_unless_partial(
    client, gm, player, cthulhu, penhaligon, forced_dice, faces, tier
):
    new_session(client, cthulhu, gm)
    forced_dice.push(*faces)
    action = acted(client, cthulhu, player, penhaligon, context={"domain": "occult"})
    assert action["result"]["tier"] == tier
    assert_refused(
        follow(client, cthulhu, player, "jdr.effleurement", action["seq"], mark="un tic"),
        "JDR-28",
    )


def test_JDR_28_spent_effleurement_and_a_second_one_on_the_same_action_are_refused(
    client, gm, player, cthulhu, penhaligon, forced_dice
):
    new_session(client, cthulhu, gm)
    action = partial_investigation(client, cthulhu, player, penhaligon, forced_dice)
    followed(client, cthulhu, player, "jdr.effleurement", action["seq"], mark="un tic")
    gm_patch(client, gm, penhaligon, {"effleurement": "ready"})
    assert_refused(
        follow(client, cthulhu, player, "jdr.effleurement", action["seq"], mark="un autre"),
        "JDR-28",
    )
    gm_patch(client, gm, penhaligon, {"effleurement": "spent"})
    other = partial_investigation(client, cthulhu, player, penhaligon, forced_dice)
    response = follow(client, cthulhu, player, "jdr.effleurement", other["seq"], mark="un autre")
    assert_refused(response, "JDR-28")
    assert len(sheet_of(client, player, penhaligon)["marks"]) == 1


def test_JDR_28_once_per_scene_even_after_a_sacrifice_in_the_scene(
    client, gm, player, cthulhu, penhaligon, forced_dice
):
    new_session(client, cthulhu, gm)
    action = partial_investigation(client, cthulhu, player, penhaligon, forced_dice)
    followed(client, cthulhu, player, "jdr.effleurement", action["seq"], mark="un tic")
    assert (
        gm_event(client, cthulhu, gm, "jdr.sacrifice", penhaligon, "brûle une page").status_code
        == 201
    )
    assert sheet_of(client, gm, penhaligon)["effleurement"] == "ready"
    again = partial_investigation(client, cthulhu, player, penhaligon, forced_dice)
    assert_refused(
        follow(client, cthulhu, player, "jdr.effleurement", again["seq"], mark="un autre"),
        "JDR-28",
    )
    new_scene(client, cthulhu, gm)
    later = partial_investigation(client, cthulhu, player, penhaligon, forced_dice)
    touched = followed(client, cthulhu, player, "jdr.effleurement", later["seq"], mark="un autre")
    assert touched["result"]["tier"] == "success"
    assert len(sheet_of(client, gm, penhaligon)["marks"]) == 2


def test_JDR_28_the_player_describes_the_mark(
    client, gm, player, other_player, cthulhu, penhaligon, make_character, forced_dice
):
    new_session(client, cthulhu, gm)
    action = partial_investigation(client, cthulhu, player, penhaligon, forced_dice)
    assert_problem(follow(client, cthulhu, player, "jdr.effleurement", action["seq"]), 422)
    assert_problem(
        follow(client, cthulhu, player, "jdr.effleurement", action["seq"], mark=" "), 422
    )
    assert_problem(
        follow(client, cthulhu, other_player, "jdr.effleurement", action["seq"], mark="x"), 403
    )
    witness = make_character(cthulhu, gm, kind="npc", name="Témoin", sheet=CTHULHU_SHEET)
    npc_action = partial_investigation(client, cthulhu, gm, witness, forced_dice)
    assert_refused(
        follow(client, cthulhu, gm, "jdr.effleurement", npc_action["seq"], mark="x"), "JDR-28"
    )


def test_JDR_29_gm_refusal_undoes_the_effleurement(
    client, gm, player, cthulhu, penhaligon, forced_dice
):
    new_session(client, cthulhu, gm)
    gm_patch(
        client,
        gm,
        penhaligon,
        {"marks": [{"description": "cauchemar de cloches", "counted": True, "scene": 0}]},
    )
    action = partial_investigation(client, cthulhu, player, penhaligon, forced_dice, "observation")
    touched = followed(client, cthulhu, player, "jdr.effleurement", action["seq"], mark="un tic")
    assert len(sheet_of(client, gm, penhaligon)["marks"]) == 2

    response = follow(client, cthulhu, player, "jdr.effleurement_refusal", touched["seq"])
    assert_problem(response, 403, "GM")
    refusal = followed(
        client,
        cthulhu,
        gm,
        "jdr.effleurement_refusal",
        touched["seq"],
        reason="aucun lien avec une vérité cachée",
    )
    assert refusal["follows"] == touched["seq"] and refusal["draws"] == []
    assert refusal["result"] == {
        "status": "refused",
        "tier": "partial_success",
        "label": "Succès partiel",
        "reason": "aucun lien avec une vérité cachée",
    }
    sheet = sheet_of(client, gm, penhaligon)
    assert sheet["marks"] == [{"description": "cauchemar de cloches", "counted": True, "scene": 0}]
    assert sheet["effleurement"] == "ready"
    # Recorded once.
    assert_refused(
        follow(client, cthulhu, gm, "jdr.effleurement_refusal", touched["seq"]), "JDR-29"
    )
    assert_problem(follow(client, cthulhu, gm, "jdr.effleurement_refusal", action["seq"]), 422)
    kinds = [e["kind"] for e in log_entries(client, cthulhu, gm)]
    assert kinds.count("jdr.effleurement_refusal") == 1


def test_JDR_29a_safe_sleep_recharges_the_effleurement(
    client, gm, player, cthulhu, penhaligon, forced_dice
):
    new_session(client, cthulhu, gm)
    action = partial_investigation(client, cthulhu, player, penhaligon, forced_dice)
    followed(client, cthulhu, player, "jdr.effleurement", action["seq"], mark="un tic")
    scene = new_scene(client, cthulhu, gm, night=True)
    assert scene["effects"] == []
    scene = new_scene(client, cthulhu, gm, facts=[facts(penhaligon, slept_safely=True)])
    assert scene["effects"] == []
    assert sheet_of(client, player, penhaligon)["effleurement"] == "spent"
    scene = new_scene(client, cthulhu, gm, night=True, facts=[facts(penhaligon, slept_safely=True)])
    assert [(e["field"], e["before"], e["after"], e["rule"]) for e in scene["effects"]] == [
        ("effleurement", "spent", "ready", "JDR-29a")
    ]
    assert sheet_of(client, player, penhaligon)["effleurement"] == "ready"
    # Recollection is the Talisman's; it recharges nothing here.
    again = partial_investigation(client, cthulhu, player, penhaligon, forced_dice)
    followed(client, cthulhu, player, "jdr.effleurement", again["seq"], mark="un autre tic")
    scene = new_scene(client, cthulhu, gm, night=True, facts=[facts(penhaligon, recollected=True)])
    assert scene["effects"] == []


def test_JDR_29a_sacrifice_of_knowledge_recharges_the_effleurement(
    client, gm, player, cthulhu, penhaligon, forced_dice
):
    new_session(client, cthulhu, gm)
    before = last_seq(client, cthulhu, gm)
    assert_refused(gm_event(client, cthulhu, gm, "jdr.sacrifice", penhaligon), "JDR-29a")
    assert last_seq(client, cthulhu, gm) == before
    action = partial_investigation(client, cthulhu, player, penhaligon, forced_dice)
    followed(client, cthulhu, player, "jdr.effleurement", action["seq"], mark="un tic")
    assert_problem(gm_event(client, cthulhu, player, "jdr.sacrifice", penhaligon), 403)
    sacrifice = gm_event(
        client, cthulhu, gm, "jdr.sacrifice", penhaligon, "jette la statuette à la mer"
    )
    assert sacrifice.status_code == 201, sacrifice.text
    sacrifice = sacrifice.json()
    assert sacrifice["draws"] == [] and sacrifice["result"]["recharged"] == "effleurement"
    assert ("effleurement", "spent", "ready") in effect_fields(sacrifice)
    assert sheet_of(client, player, penhaligon)["effleurement"] == "ready"


# --- JDR-7 / JDR-42: more than five counted marks ------------------------------------------


def test_JDR_42_a_sixth_counted_mark_makes_the_pc_an_npc(
    client, gm, player, cthulhu, penhaligon, forced_dice
):
    new_session(client, cthulhu, gm)
    uncounted = {"description": "un détail", "counted": False, "scene": 0}
    gm_patch(client, gm, penhaligon, {"marks": [*five_counted_marks(), uncounted, uncounted]})
    # Five counted marks (uncounted ones aside) keep the PC playable.
    action = partial_investigation(client, cthulhu, player, penhaligon, forced_dice)
    touched = followed(client, cthulhu, player, "jdr.effleurement", action["seq"], mark="la 6e")
    assert touched["result"]["counted_marks"] == 6
    assert ("status", "active", "npc") in effect_fields(touched)
    assert [e["rule"] for e in touched["effects"] if e["field"] == "status"] == ["JDR-42"]
    assert sheet_of(client, gm, penhaligon)["status"] == "npc"

    before = last_seq(client, cthulhu, gm)
    for response in (
        act(client, cthulhu, player, penhaligon),
        post_roll(
            client,
            cthulhu,
            player,
            {
                "kind": "jdr.mythos",
                "character_id": penhaligon["id"],
                "difficulty": 9,
                "source": "une lettre",
            },
        ),
        follow(client, cthulhu, player, "jdr.joker", action["seq"]),
    ):
        assert_refused(response, "JDR-42")
    assert last_seq(client, cthulhu, gm) == before
    # The player cannot bring them back.
    assert_problem(
        client.patch(
            f"{API}/characters/{penhaligon['id']}",
            json={"sheet": {"status": "active"}},
            headers=player.headers,
        ),
        403,
    )
    # The GM plays them now.
    forced_dice.push(3, 3)
    entry = acted(client, cthulhu, gm, penhaligon)
    assert entry["actor_id"] == gm.id and entry["result"]["total"] == 9


def test_JDR_42_five_counted_marks_keep_the_pc_active(
    client, gm, player, cthulhu, penhaligon, forced_dice
):
    new_session(client, cthulhu, gm)
    gm_patch(client, gm, penhaligon, {"marks": five_counted_marks()[:4]})
    action = partial_investigation(client, cthulhu, player, penhaligon, forced_dice)
    touched = followed(client, cthulhu, player, "jdr.effleurement", action["seq"], mark="la 5e")
    assert touched["result"]["counted_marks"] == 5
    assert "status" not in [e["field"] for e in touched["effects"]]
    assert sheet_of(client, gm, penhaligon)["status"] == "active"
    forced_dice.push(3, 3)
    assert act(client, cthulhu, player, penhaligon).status_code == 201


def test_JDR_42_a_critical_mythos_failure_can_be_the_sixth_mark(
    client, gm, player, cthulhu, penhaligon, forced_dice
):
    new_session(client, cthulhu, gm)
    gm_patch(client, gm, penhaligon, {"marks": five_counted_marks()})
    forced_dice.push(1, 1)
    entry = post_roll(
        client,
        cthulhu,
        player,
        {
            "kind": "jdr.mythos",
            "character_id": penhaligon["id"],
            "difficulty": 15,
            "source": "fragment du Necronomicon",
        },
    ).json()
    assert entry["result"]["outcome"] == "critical_failure"
    assert ("status", "active", "npc") in effect_fields(entry)
    assert_refused(act(client, cthulhu, player, penhaligon), "JDR-42")


def test_JDR_42_gm_refusal_of_the_sixth_mark_makes_the_pc_playable_again(
    client, gm, player, cthulhu, penhaligon, forced_dice
):
    new_session(client, cthulhu, gm)
    gm_patch(client, gm, penhaligon, {"marks": five_counted_marks()})
    action = partial_investigation(client, cthulhu, player, penhaligon, forced_dice)
    touched = followed(client, cthulhu, player, "jdr.effleurement", action["seq"], mark="la 6e")
    assert sheet_of(client, gm, penhaligon)["status"] == "npc"
    refusal = followed(client, cthulhu, gm, "jdr.effleurement_refusal", touched["seq"])
    assert ("status", "npc", "active") in effect_fields(refusal)
    assert sheet_of(client, gm, penhaligon)["status"] == "active"
    forced_dice.push(3, 3)
    assert act(client, cthulhu, player, penhaligon).status_code == 201
