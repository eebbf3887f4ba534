"""Every JDR entry kind, verified online and offline: one campaign per setting; the Cthulhu
one rolls real dice and rotates, so its draws are re-derived.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.helpers import (
    STRUCTURAL,
    gm_patch,
    log_entries,
    new_scene,
    new_session,
    url,
    verified_offline,
)
from tests.api.jdr.fights import (
    CTHULHU,
    JDR_KINDS,
    act,
    attacked,
    follow,
    gm_event,
    holy_water,
    initiative,
    mythos,
    npc,
)
from tests.conftest import (
    API,
    assert_problem,
)

# The Cthulhu campaign of these tests: Arkham.


@pytest.fixture
def cthulhu(make_campaign, player, other_player):
    return make_campaign(CTHULHU, players=(player, other_player), name="Arkham")


@pytest.fixture
def penhaligon(cthulhu, player, make_character):
    return make_character(
        cthulhu,
        player,
        name="Dr. Penhaligon",
        sheet={"traits": {"mental": 3, "physique": 1, "social": 2}},
    )


# --- replay: every JDR entry kind, verified online and offline ------------------------------


def rule_entries(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in entries if e["kind"] not in STRUCTURAL]


def test_replay_every_dracula_kind_verifies_online_and_offline(
    client, gm, player, dracula, hunter, vampire, brigand, tmp_path, forced_dice
):
    session = new_session(client, dracula, gm)
    assert session["current_session"] == 1
    # Talisman, sincere: spent.
    forced_dice.push(3, 5)  # 8 + Mental 2 = 10
    action = act(client, dracula, player, hunter, context={"supernatural": True})
    invoked = follow(
        client, dracula, player, "jdr.talisman", action["seq"], words="Seigneur, garde-moi."
    )
    follow(client, dracula, gm, "jdr.talisman_ruling", invoked["seq"], sincere=True)
    # A night of prayer: recharged.
    facts = [{"character_id": hunter["id"], "recollected": True}]
    scene = new_scene(client, dracula, gm, night=True, facts=facts)
    assert [(e["field"], e["after"]) for e in scene["effects"]] == [("talisman", "ready")]
    # A disputed context, then hollow words: cracked, then penance.
    forced_dice.push(4, 4)
    action = act(client, dracula, player, hunter)
    follow(client, dracula, gm, "jdr.context", action["seq"], context={"supernatural": True})
    invoked = follow(client, dracula, player, "jdr.talisman", action["seq"], words="bon ben")
    follow(client, dracula, gm, "jdr.talisman_ruling", invoked["seq"], sincere=False)
    gm_event(client, dracula, gm, "jdr.penance", hunter, "pèlerinage à pied")
    # The Joker on an icy stair.
    forced_dice.push(1, 1)
    action = act(client, dracula, player, hunter, "physique", context={"direct_peril": True})
    forced_dice.push(5, 5)
    follow(client, dracula, player, "jdr.joker", action["seq"])
    # A fight.
    new_scene(client, dracula, gm)
    forced_dice.push(6, 5, 2, 2, 3, 1)
    initiative(client, dracula, gm, hunter, vampire, brigand)
    forced_dice.push(2, 2)  # 4 + 3 + 1 = 8 against 6: a light wound
    attacked(client, dracula, player, hunter, vampire, "ash_stake")
    assert holy_water(client, dracula, player, hunter, vampire).status_code == 201
    forced_dice.push(6, 6)  # 12 + 3 = 15 against Defense 6: margin 9, serious
    hit = attacked(client, dracula, gm, vampire, hunter, {"name": "griffes"})
    assert hit["result"]["severity"] == "serious"
    gm_event(client, dracula, gm, "jdr.medical_care", hunter)
    forced_dice.push(2, 2)
    attacked(client, dracula, player, hunter, brigand, "cavalry_sabre")
    gm_patch(client, gm, brigand, {"tags": ["possessed"]})  # a structural sheet_edit
    # The next session recharges the Joker.
    session = new_session(client, dracula, gm)
    assert [(e["field"], e["after"]) for e in session["effects"]] == [("joker", "ready")]

    entries = log_entries(client, dracula, gm)
    kinds = {e["kind"] for e in entries}
    assert kinds >= JDR_KINDS - {
        "jdr.effleurement",
        "jdr.effleurement_refusal",
        "jdr.mythos",
        "jdr.mark",
        "jdr.sacrifice",
    }
    assert {"session_started", "scene_started"} <= kinds
    rules = rule_entries(entries)
    with_dice = [e for e in rules if e["draws"]]  # forced, public: they wait for the reveal
    report = client.get(url(dracula, "/log/verify"), headers=gm.headers).json()
    assert report == {
        "ok": True,
        "entries_checked": len(entries),
        "rederived": 0,
        "replayed": len(rules),
        "not_rederived": {"its epoch's seed is not revealed yet (FAIR-4)": len(with_dice)},
        "chain_only": {},
        "first_failure": None,
    }
    summary = verified_offline(client, dracula, gm, tmp_path)
    assert summary.startswith(f"OK: {len(entries)} entries checked")


def partial_success(client, campaign, caller, character, context):
    """Roll real dice until a partial success (each miss is one more replayed entry)."""
    for _ in range(200):
        action = act(client, campaign, caller, character, context=context)
        if action["result"]["tier"] == "partial_success":
            return action
    raise AssertionError("no partial success in 200 rolls")


def test_replay_every_cthulhu_kind_with_real_dice_then_rotate_re_derives(
    client, gm, player, cthulhu, penhaligon, make_character, tmp_path
):
    deep_one = npc(make_character, cthulhu, gm, "Profond", (1, 3, 0), tags=["creature"])
    new_session(client, cthulhu, gm)
    # Scene 1: an Effleurement the GM refuses.
    action = partial_success(client, cthulhu, player, penhaligon, {"domain": "investigation"})
    touched = follow(client, cthulhu, player, "jdr.effleurement", action["seq"], mark="un tic")
    follow(client, cthulhu, gm, "jdr.effleurement_refusal", touched["seq"], reason="aucun lien")
    # Scene 2: a disputed domain, an Effleurement, a sacrifice.
    new_scene(client, cthulhu, gm)
    action = partial_success(client, cthulhu, player, penhaligon, {"domain": "other"})
    follow(client, cthulhu, gm, "jdr.context", action["seq"], context={"domain": "occult"})
    follow(client, cthulhu, player, "jdr.effleurement", action["seq"], mark="rêve d'eau noire")
    gm_event(client, cthulhu, gm, "jdr.sacrifice", penhaligon, "brûle la page")
    # Scene 3: another Effleurement, then a safe night recharges it.
    new_scene(client, cthulhu, gm)
    action = partial_success(client, cthulhu, player, penhaligon, {"domain": "erudition"})
    follow(client, cthulhu, player, "jdr.effleurement", action["seq"], mark="hait les miroirs")
    facts = [{"character_id": penhaligon["id"], "slept_safely": True}]
    scene = new_scene(client, cthulhu, gm, night=True, facts=facts)
    assert [(e["field"], e["after"]) for e in scene["effects"]] == [("effleurement", "ready")]
    # The Joker in a car chase.
    action = act(client, cthulhu, player, penhaligon, "physique", context={"direct_peril": True})
    follow(client, cthulhu, player, "jdr.joker", action["seq"])
    # A fight, a wound cared for, forbidden knowledge.
    response = initiative(client, cthulhu, gm, penhaligon, deep_one)
    assert response.status_code == 201, response.text
    client.patch(
        f"{API}/characters/{penhaligon['id']}",
        json={"sheet": {"weapons": [{"id": "hunting_rifle"}]}},
        headers=player.headers,
    )
    attacked(client, cthulhu, player, penhaligon, deep_one, "hunting_rifle", short_range=True)
    attacked(client, cthulhu, gm, deep_one, penhaligon, {"name": "griffes"})
    gm_patch(client, gm, penhaligon, {"wounds": [{"severity": "serious", "note": "morsure"}]})
    gm_event(client, cthulhu, gm, "jdr.medical_care", penhaligon)
    # JDR-40: the GM sets the Mythos test's difficulty, so the GM rolls it; a success
    # waits for the mark's words (JDR-41).
    for _ in range(200):
        test = mythos(client, cthulhu, gm, penhaligon, 6, "lettre").json()
        if test["result"].get("mark_pending"):
            break
    follow(client, cthulhu, player, "jdr.mark", test["seq"], wording="rêve d'eau noire")
    session = new_session(client, cthulhu, gm)
    assert [(e["field"], e["after"]) for e in session["effects"]] == [("joker", "ready")]
    # JDR-25 (corrected): the Joker on an attack made against the PC redraws its dice.
    claws = attacked(client, cthulhu, gm, deep_one, penhaligon, {"name": "griffes"})
    follow(client, cthulhu, player, "jdr.joker", claws["seq"])

    rotated = client.post(url(cthulhu, "/fairness/rotate"), headers=gm.headers)
    assert rotated.status_code == 201, rotated.text

    entries = log_entries(client, cthulhu, gm)
    kinds = {e["kind"] for e in entries}
    assert kinds >= JDR_KINDS - {
        "jdr.talisman",
        "jdr.talisman_ruling",
        "jdr.holy_water",
        "jdr.penance",
    }
    assert {"session_started", "scene_started", "epoch_closed"} <= kinds
    rules = rule_entries(entries)
    with_dice = [e for e in rules if e["draws"]]
    assert len(with_dice) >= 9
    report = client.get(url(cthulhu, "/log/verify"), headers=gm.headers).json()
    assert report == {
        "ok": True,
        "entries_checked": len(entries),
        "rederived": len(with_dice),
        "replayed": len(rules),
        "not_rederived": {},
        "chain_only": {},
        "first_failure": None,
    }
    summary = verified_offline(client, cthulhu, gm, tmp_path)
    assert summary.startswith(f"OK: {len(entries)} entries checked")


def test_JDR_36_a_destroyed_vampire_no_longer_acts(client, gm, make_campaign, make_character):
    campaign = make_campaign("jdr-express-dracula")
    vampire = make_character(
        campaign,
        gm,
        kind="npc",
        name="Strigoi",
        sheet={"traits": {"mental": 1, "physique": 2, "social": 0}, "tags": ["vampire"]},
    )
    victim = make_character(campaign, gm, kind="npc", name="Villageois")
    client.patch(
        f"{API}/characters/{vampire['id']}", json={"sheet": {"destroyed": True}}, headers=gm.headers
    )
    base = f"{API}/campaigns/{campaign['id']}/rolls"
    attack = {
        "kind": "jdr.attack",
        "attacker_id": vampire["id"],
        "target_id": victim["id"],
        "weapon": {"name": "griffes"},
    }
    assert (
        assert_problem(client.post(base, json=attack, headers=gm.headers), 409)["rule"] == "JDR-36"
    )
    action = {"kind": "jdr.action", "character_id": vampire["id"], "trait": "physique"}
    assert (
        assert_problem(client.post(base, json=action, headers=gm.headers), 409)["rule"] == "JDR-36"
    )
