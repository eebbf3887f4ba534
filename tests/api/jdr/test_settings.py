"""Each setting's kinds stay in their setting, and the examples of play of both rulebooks."""

from __future__ import annotations

import pytest

from tests.api.helpers import (
    assert_verified,
    last_seq,
    new_scene,
    new_session,
    post_roll,
    sheet_of,
    url,
)
from tests.api.jdr.plays import (
    CTHULHU,
    DRACULA,
    MIHAIL_WORDS,
    PENHALIGON_MARK,
    act,
    acted,
    facts,
    follow,
    followed,
    gm_event,
    partial_investigation,
    protection_roll,
)
from tests.conftest import (
    API,
    DRACULA_SHEET,
    assert_problem,
)

# --- settings: each setting's kinds stay in their setting ----------------------------------


def test_dracula_kinds_are_422_in_a_cthulhu_campaign(
    client, gm, player, cthulhu, penhaligon, make_character, forced_dice
):
    new_session(client, cthulhu, gm)
    action = partial_investigation(client, cthulhu, player, penhaligon, forced_dice)
    before = last_seq(client, cthulhu, gm)
    assert_problem(
        follow(client, cthulhu, player, "jdr.talisman", action["seq"], words=MIHAIL_WORDS), 422
    )
    assert_problem(
        follow(client, cthulhu, gm, "jdr.talisman_ruling", action["seq"], sincere=True), 422
    )
    assert_problem(gm_event(client, cthulhu, gm, "jdr.penance", penhaligon), 422)
    shoggoth = make_character(
        cthulhu,
        gm,
        kind="npc",
        name="Chose",
        sheet={"traits": {"mental": 0, "physique": 5, "social": 0}, "tags": ["vampire"]},
    )
    assert_problem(
        post_roll(
            client,
            cthulhu,
            player,
            {
                "kind": "jdr.holy_water",
                "attacker_id": penhaligon["id"],
                "target_id": shoggoth["id"],
            },
        ),
        422,
    )
    assert last_seq(client, cthulhu, gm) == before
    assert_problem(
        client.patch(
            f"{API}/characters/{penhaligon['id']}",
            json={"sheet": {"talisman": "ready"}},
            headers=gm.headers,
        ),
        422,
    )


def test_cthulhu_kinds_are_422_in_a_dracula_campaign(
    client, gm, player, dracula, mihail, forced_dice
):
    new_session(client, dracula, gm)
    forced_dice.push(3, 4)
    action = acted(client, dracula, player, mihail, context={"domain": "occult"})
    before = last_seq(client, dracula, gm)
    assert_problem(
        follow(client, dracula, player, "jdr.effleurement", action["seq"], mark="un tic"), 422
    )
    assert_problem(follow(client, dracula, gm, "jdr.effleurement_refusal", action["seq"]), 422)
    assert_problem(gm_event(client, dracula, gm, "jdr.sacrifice", mihail), 422)
    assert_problem(
        post_roll(
            client,
            dracula,
            player,
            {
                "kind": "jdr.mythos",
                "character_id": mihail["id"],
                "difficulty": 12,
                "source": "grimoire",
            },
        ),
        422,
    )
    assert last_seq(client, dracula, gm) == before
    assert sheet_of(client, gm, mihail).get("marks") is None


SOMEONE = "0b5e0000-0000-4000-8000-000000000001"
SETTING_RULES = [
    ({"kind": "jdr.talisman", "follows": 1, "words": "Seigneur"}, "JDR-20", "Dracula"),
    ({"kind": "jdr.talisman_ruling", "follows": 1, "sincere": True}, "JDR-21", "Dracula"),
    ({"kind": "jdr.penance", "character_id": SOMEONE}, "JDR-24", "Dracula"),
    (
        {"kind": "jdr.holy_water", "attacker_id": SOMEONE, "target_id": SOMEONE},
        "JDR-35",
        "Dracula",
    ),
    ({"kind": "jdr.effleurement", "follows": 1, "mark": "un tic"}, "JDR-28", "Cthulhu"),
    ({"kind": "jdr.effleurement_refusal", "follows": 1}, "JDR-29", "Cthulhu"),
    ({"kind": "jdr.sacrifice", "character_id": SOMEONE}, "JDR-29a", "Cthulhu"),
    (
        {"kind": "jdr.mythos", "character_id": SOMEONE, "difficulty": 9, "source": "lettre"},
        "JDR-40",
        "Cthulhu",
    ),
]


@pytest.mark.parametrize(("body", "rule", "setting"), SETTING_RULES)
def test_a_setting_rule_in_the_other_setting_names_its_rule_and_setting(
    client, gm, dracula, cthulhu, body, rule, setting
):
    campaign, system = (cthulhu, CTHULHU) if setting == "Dracula" else (dracula, DRACULA)
    new_session(client, campaign, gm)
    before = last_seq(client, campaign, gm)
    problem = assert_problem(post_roll(client, campaign, gm, body), 422)
    assert problem["rule"] == rule
    assert problem["detail"] == (
        f"{rule} is a rule of the {setting} setting; this campaign plays {system}"
    )
    assert last_seq(client, campaign, gm) == before


def test_jdr_kinds_are_422_outside_jdr_campaigns(client, gm, make_campaign, make_character):
    campaign = make_campaign("vampire")
    lucie = make_character(campaign, gm, name="Lucie")
    client.post(url(campaign, "/sessions"), json={}, headers=gm.headers)
    assert_problem(act(client, campaign, gm, lucie), 422)


# --- the examples of play ------------------------------------------------------------------


def mihail_in_the_chapel(client, gm, player, make_campaign, make_character, forced_dice):
    campaign = make_campaign(DRACULA, players=(player,), name="Les Carpates")
    mihail = make_character(
        campaign,
        player,
        name="Père Mihail Stanescu",
        sheet={
            "traits": {"mental": 3, "physique": 2, "social": 2},
            "faith": "believer",
            "sacred_object": "croix d'argent ternie, portée sous la soutane",
            "weapons": [{"id": "ash_stake"}],
        },
    )
    vampire = make_character(
        campaign,
        gm,
        kind="npc",
        name="Vampire mineur",
        sheet={"traits": {"mental": 2, "physique": 3, "social": 1}, "tags": ["vampire", "undead"]},
    )
    new_session(client, campaign, gm)
    # 2D6 + Mental to drive the creature back in the sacristy: 3 + 4 + 3 = 10.
    forced_dice.push(3, 4)
    action = protection_roll(client, campaign, gm, player, mihail, supernatural=True)
    assert action["result"]["total"] == 10
    assert action["result"]["tier"] == "partial_success"
    assert action["result"]["label"] == "Succès partiel"
    invoked = followed(client, campaign, player, "jdr.talisman", action["seq"], words=MIHAIL_WORDS)
    assert invoked["result"]["status"] == "pending" and invoked["draws"] == []
    return campaign, mihail, vampire, invoked


def test_example_of_play_pere_mihail_sincere_word_of_faith(
    client, gm, player, make_campaign, make_character, forced_dice
):
    campaign, mihail, _, invoked = mihail_in_the_chapel(
        client, gm, player, make_campaign, make_character, forced_dice
    )
    ruling = followed(client, campaign, gm, "jdr.talisman_ruling", invoked["seq"], sincere=True)
    # "Le 10 devient succès complet": no new dice, the tier is read as 11-14.
    assert ruling["draws"] == []
    assert ruling["result"]["tier"] == "success"
    assert ruling["result"]["label"] == "Succès complet"
    sheet = sheet_of(client, player, mihail)
    assert sheet["talisman"] == "spent" and sheet.get("faith_shaken") is None
    # session_started, the action, the invocation, the ruling.
    assert assert_verified(client, campaign, gm)["replayed"] == 4


def test_example_of_play_pere_mihail_hollow_words_crack_the_cross(
    client, gm, player, make_campaign, make_character, forced_dice
):
    campaign, mihail, vampire, invoked = mihail_in_the_chapel(
        client, gm, player, make_campaign, make_character, forced_dice
    )
    ruling = followed(client, campaign, gm, "jdr.talisman_ruling", invoked["seq"], sincere=False)
    # "le 10 serait resté un succès partiel, et la croix se serait fissurée pour la prochaine fois"
    assert ruling["result"]["tier"] == "partial_success"
    sheet = sheet_of(client, player, mihail)
    assert sheet["talisman"] == "cracked"
    assert sheet["faith_shaken"] == {"cracked_scene": 1, "confrontation_scene": None}
    # The next night, the next confrontation: Disadvantage on protection and attack.
    new_scene(client, campaign, gm, night=True, facts=[facts(mihail, recollected=True)])
    forced_dice.push(6, 3, 2)
    protection = protection_roll(client, campaign, gm, player, mihail, supernatural=True)
    assert protection["result"]["mode"] == "disadvantage"
    assert protection["result"]["kept"] == [False, True, True]
    assert protection["result"]["total"] == 5 + 3
    forced_dice.push(6, 6, 1)
    attack = post_roll(
        client,
        campaign,
        player,
        {
            "kind": "jdr.attack",
            "attacker_id": mihail["id"],
            "target_id": vampire["id"],
            "weapon": "ash_stake",
        },
    ).json()
    assert attack["result"]["auto_disadvantage"] == ["faith_shaken"]
    assert attack["result"]["kept"] == [True, False, True]
    assert sheet_of(client, player, mihail)["talisman"] == "cracked"
    # session_started, action, invocation, ruling, scene_started, protection, attack.
    assert assert_verified(client, campaign, gm)["replayed"] == 7


def test_example_of_play_dr_penhaligon_effleurement_at_innsmouth(
    client, gm, player, make_campaign, make_character, forced_dice
):
    campaign = make_campaign(CTHULHU, players=(player,), name="Innsmouth")
    penhaligon = make_character(
        campaign,
        player,
        name="Dr. Penhaligon",
        sheet={"traits": {"mental": 3, "physique": 1, "social": 2}},
    )
    new_session(client, campaign, gm)
    # He examines the corpse dragged from the water: a Mental roll of 10.
    forced_dice.push(4, 3)
    action = acted(
        client, campaign, player, penhaligon, "mental", context={"domain": "investigation"}
    )
    assert action["result"]["total"] == 10
    assert action["result"]["tier"] == "partial_success"
    touched = followed(
        client, campaign, player, "jdr.effleurement", action["seq"], mark=PENHALIGON_MARK
    )
    assert touched["draws"] == []
    assert touched["result"]["tier"] == "success"
    assert touched["result"]["label"] == "Succès complet"
    assert touched["result"]["mark"] == {
        "description": PENHALIGON_MARK,
        "counted": True,
        "scene": 1,
    }
    sheet = sheet_of(client, player, penhaligon)
    assert sheet["marks"] == [{"description": PENHALIGON_MARK, "counted": True, "scene": 1}]
    assert sheet["effleurement"] == "spent" and sheet["status"] == "active"
    # session_started, the action, the Effleurement.
    assert assert_verified(client, campaign, gm)["replayed"] == 3


def test_JDR_23_instructed_by_names_a_believing_pc_of_the_campaign(
    client, gm, player, other_player, make_campaign, make_character
):
    campaign = make_campaign(DRACULA, players=(player, other_player))
    atheist = make_character(campaign, player, sheet={**DRACULA_SHEET, "faith": "atheist"})
    believer = make_character(campaign, other_player, name="Soeur Ilinca")
    other_atheist = make_character(
        campaign, other_player, name="Radu", sheet={**DRACULA_SHEET, "faith": "atheist"}
    )
    url_ = f"{API}/characters/{atheist['id']}"
    for wrong in (other_atheist["id"], atheist["id"], "00000000-0000-4000-8000-000000000000"):
        response = client.patch(url_, json={"sheet": {"instructed_by": wrong}}, headers=gm.headers)
        body = assert_problem(response, 422, "JDR-23")
        assert body["rule"] == "JDR-23"
    response = client.patch(
        url_, json={"sheet": {"instructed_by": believer["id"]}}, headers=gm.headers
    )
    assert response.status_code == 200
    assert response.json()["sheet"]["instructed_by"] == believer["id"]
