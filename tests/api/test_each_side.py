"""Each side answers for itself (issue 15, part 3): the roller names the other side of a
two-sided roll, never spends its choices (FAB-90's once-a-session talents, FAB-13's
helpers); whoever plays that character does, or the GM."""

from __future__ import annotations

from typing import Any

from tests.api.fabulae.combat import defend
from tests.api.helpers import assert_verified, gm_patch, last_seq, post_roll
from tests.conftest import API, FABULAE_SHEET, assert_problem


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
    # Naming Bram as the other side is the roller's to do; the roll waits for Bram's
    # player (FAB-36), who may answer with his Expert, in his field (FAB-90).
    mine = opposed(ada, bram)
    for side in ("active", "passive"):
        mine[side].update(attribute="intellect", skill="connaissance")
    waiting = post_roll(client, campaign, player, mine).json()
    assert waiting["draws"] == [] and waiting["result"]["awaiting"]["character_id"] == bram["id"]
    answer = {"kind": "fabulae.oppose", "follows": waiting["seq"], "character_id": bram["id"]}
    assert_problem(post_roll(client, campaign, player, answer), 403)
    forced_dice.push(*[2] * 7)  # Ada's Intellect 3; Bram's Intellect 3 + Expert 1
    response = post_roll(client, campaign, other_player, {**answer, "talents": ["expert"]})
    assert response.status_code == 201, response.text
    assert response.json()["result"]["passive"]["pool"]["pool"] == 4


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


# --- FAB-62: the defender chooses the defense, and the attack waits for it ------------------


def bare_hands(attacker, target, **extra: Any) -> dict[str, Any]:
    """Physique 3 + Combat 2 − 1 bare hands: four dice; a parry rolls five, a dodge three."""
    return {
        "kind": "fabulae.attack",
        "attacker_id": attacker["id"],
        "target_id": target["id"],
        "mode": "melee",
        "weapon": "bare_hands",
        **extra,
    }


def rolled(client, campaign, caller, body: dict[str, Any], query: str = "") -> dict[str, Any]:
    response = client.post(
        f"{API}/campaigns/{campaign['id']}/rolls{query}", json=body, headers=caller.headers
    )
    assert response.status_code == 201, response.text
    return response.json()


def open_requests(client, campaign, caller) -> list[dict[str, Any]]:
    response = client.get(
        f"{API}/campaigns/{campaign['id']}/roll-requests?status=open", headers=caller.headers
    )
    assert response.status_code == 200, response.text
    return response.json()["data"]


def test_FAB_62_an_attack_on_another_players_character_waits_for_that_players_defense(
    client, gm, player, other_player, make_campaign, make_character, forced_dice
):
    campaign = make_campaign("fabulae-tenebris", players=(player, other_player))
    ada = make_character(campaign, player, sheet=FABULAE_SHEET, name="Ada")
    bram = make_character(campaign, other_player, sheet=FABULAE_SHEET, name="Bram")
    # Ada's player names Bram as the target, never his defense or his Absorb (FAB-34).
    before = last_seq(client, campaign, gm)
    for extra, rule in (({"defense": "none"}, "FAB-62"), ({"states": "now"}, "FAB-34")):
        refused = post_roll(client, campaign, player, bare_hands(ada, bram, **extra))
        assert assert_problem(refused, 403, "Bram")["rule"] == rule
    assert last_seq(client, campaign, gm) == before

    waiting = rolled(client, campaign, player, bare_hands(ada, bram))
    assert waiting["draws"] == [] and waiting["effects"] == []
    assert waiting["result"]["awaiting"]["character_id"] == bram["id"]
    assert "Awaiting the defense" in waiting["summary"]
    # The wait is a roll request to Bram's player, not to Ada's.
    (asked,) = open_requests(client, campaign, other_player)
    assert (asked["kind"], asked["character_ids"], asked["values"], asked["seq"]) == (
        "fabulae.defend",
        [bram["id"]],
        {"follows": waiting["seq"]},
        waiting["seq"],
    )
    assert open_requests(client, campaign, player) == []
    # A hidden attack on Bram would tell his player of it by waiting: refused.
    secret = bare_hands(ada, bram, visibility="self")
    assert_problem(post_roll(client, campaign, player, secret), 422, "FAB-62")
    # Ada's player cannot answer for Bram.
    assert_problem(post_roll(client, campaign, player, defend(waiting, bram, "none")), 403)
    assert_problem(post_roll(client, campaign, player, defend(waiting, ada, "none")), 422)

    # Bram dodges: Ada 6,6,2,2 against 6,2,2: net 1, damage 1, pending for Bram (FAB-34).
    forced_dice.push(6, 6, 2, 2, 6, 2, 2)
    query = f"?request_id={asked['id']}"
    answer = rolled(client, campaign, other_player, defend(waiting, bram, "dodge"), query)
    assert answer["follows"] == waiting["seq"] and answer["character_id"] == bram["id"]
    attack = answer["result"]["attack"]
    assert attack["defense"] == "dodge"
    assert attack["attacks"][0]["roll"]["passive"]["dice"] == [6, 2, 2]
    assert len(attack["pending_states"]) == 1
    assert open_requests(client, campaign, other_player) == []
    # Each side answers once: the request is closed and the defense is chosen.
    again = post_roll(client, campaign, other_player, defend(waiting, bram, "parry"))
    assert assert_problem(again, 409)["rule"] == "FAB-62"
    # The pending state is Bram's to absorb or accept, following the defense's entry.
    settled = rolled(
        client, campaign, other_player, {"kind": "fabulae.state_choice", "follows": answer["seq"]}
    )
    assert settled["result"]["state"] == "epuise"
    assert_verified(client, campaign, gm)


def test_FAB_62_the_gms_npc_attack_waits_for_the_players_choice_and_a_grapple_too(
    client, gm, player, make_campaign, make_character, forced_dice
):
    campaign = make_campaign("fabulae-tenebris", players=(player,))
    ada = make_character(campaign, player, sheet=FABULAE_SHEET, name="Ada")
    thug = make_character(campaign, gm, sheet=FABULAE_SHEET, kind="npc", name="Thug")
    grapple = {"kind": "fabulae.grapple", "attacker_id": thug["id"], "target_id": ada["id"]}
    waiting = rolled(client, campaign, gm, grapple)
    assert waiting["result"]["awaiting"]["character_id"] == ada["id"]
    (asked,) = open_requests(client, campaign, player)
    assert asked["kind"] == "fabulae.defend"
    # Ada parries: Thug's hold 3 + 2 = 5 dice (2s) against her 5 (one 6): not grappled.
    forced_dice.push(2, 2, 2, 2, 2, 6, 2, 2, 2, 2)
    answer = rolled(client, campaign, player, defend(waiting, ada, "parry"))
    assert answer["result"]["grapple"]["grappled"] is False
    assert open_requests(client, campaign, player) == []
    # In the open, the GM does not choose for Ada's player (FAB-62, FAB-34)...
    for extra, rule in (({"defense": "none"}, "FAB-62"), ({"states": "now"}, "FAB-34")):
        refused = post_roll(client, campaign, gm, bare_hands(thug, ada, **extra))
        assert assert_problem(refused, 403, "Ada's player")["rule"] == rule
    # ...but answers the wait for a player who is away.
    waiting = rolled(client, campaign, gm, bare_hands(thug, ada))
    forced_dice.push(2, 2, 2, 2, 2, 2, 2)  # Thug's four dice, Ada's dodge three
    assert rolled(client, campaign, gm, defend(waiting, ada, "dodge"))["actor_id"] == gm.id
    # A secret attack cannot ask Ada's player without telling her of it: the GM chooses,
    # and leaving the defense out gives none.
    hidden = bare_hands(thug, ada, visibility="gm")
    forced_dice.push(2, 2, 2, 2)
    at_once = rolled(client, campaign, gm, hidden)
    assert at_once["result"]["defense"] == "none" and "awaiting" not in at_once["result"]


def test_FAB_62_the_gm_cancels_a_wait_and_the_attack_stays_unresolved(
    client, gm, player, make_campaign, make_character
):
    campaign = make_campaign("fabulae-tenebris", players=(player,))
    ada = make_character(campaign, player, sheet=FABULAE_SHEET, name="Ada")
    thug = make_character(campaign, gm, sheet=FABULAE_SHEET, kind="npc", name="Thug")
    waiting = rolled(client, campaign, player, bare_hands(ada, thug))
    (asked,) = open_requests(client, campaign, gm)
    cancelled = client.delete(
        f"{API}/campaigns/{campaign['id']}/roll-requests/{asked['id']}", headers=gm.headers
    )
    assert cancelled.status_code == 204, cancelled.text
    before = last_seq(client, campaign, gm)
    refused = post_roll(client, campaign, gm, defend(waiting, thug, "none"))
    assert_problem(refused, 409, "cancelled")
    assert last_seq(client, campaign, gm) == before


def test_FAB_62_with_the_option_an_npc_defends_by_itself_with_its_larger_pool(
    client, gm, player, make_campaign, make_character, forced_dice
):
    campaign = make_campaign(
        "fabulae-tenebris", players=(player,), options={"npc_choices_auto": True}
    )
    ada = make_character(campaign, player, sheet=FABULAE_SHEET, name="Ada")
    # Thug: parry Physique 3 + Combat 2 = 5 dice; dodge Physique 3 + Athlétisme 3 = 6.
    nimble = {**FABULAE_SHEET, "skills": {**FABULAE_SHEET["skills"], "athletisme": 3}}
    thug = make_character(campaign, gm, sheet=nimble, kind="npc", name="Thug")
    forced_dice.push(2, 2, 2, 2, *[2] * 6)
    entry = rolled(client, campaign, player, bare_hands(ada, thug))
    assert entry["result"]["defense"] == "dodge" and "awaiting" not in entry["result"]
    assert len(entry["result"]["attacks"][0]["roll"]["passive"]["dice"]) == 6
    assert open_requests(client, campaign, gm) == []


def test_FAB_34_a_power_on_another_players_character_leaves_its_absorb_to_them(
    client, gm, player, other_player, make_campaign, make_character
):
    campaign = make_campaign(
        "fabulae-tenebris", players=(player, other_player), options={"powers_allowed": True}
    )
    caster = {**FABULAE_SHEET, "powers": ["bolt"], "pp": 3, "pp_max": 3}
    ada = make_character(campaign, gm, sheet=caster, name="Ada", owner_id=player.id)
    bram = make_character(campaign, other_player, sheet=FABULAE_SHEET, name="Bram")
    bolt = {
        "kind": "fabulae.power",
        "character_id": ada["id"],
        "power": "bolt",
        "pp": 1,
        "targets": [bram["id"]],
        "states": "now",
    }
    before = last_seq(client, campaign, gm)
    assert assert_problem(post_roll(client, campaign, player, bolt), 403, "Bram")["rule"] == (
        "FAB-34"
    )
    assert last_seq(client, campaign, gm) == before


# --- JDR-30: an attack has no choice for the target to make ---------------------------------


def test_JDR_30_a_player_attacks_another_players_character_and_the_wound_lands_on_it(
    client, gm, player, other_player, make_campaign, make_character, forced_dice
):
    """JDR Express leaves the target nothing to choose (its Defense is a number on its
    sheet): the attack resolves at once, and changes the target's sheet only by the wound."""
    campaign = make_campaign("jdr-express-dracula", players=(player, other_player))
    mina = make_character(campaign, player, name="Mina")
    jonathan = make_character(campaign, other_player, name="Jonathan")
    forced_dice.push(6, 6)
    entry = rolled(
        client,
        campaign,
        player,
        {
            "kind": "jdr.attack",
            "attacker_id": mina["id"],
            "target_id": jonathan["id"],
        },
    )
    assert entry["effects"], entry["result"]
    assert {effect["character_id"] for effect in entry["effects"]} == {jonathan["id"]}
    assert {effect["field"] for effect in entry["effects"]} <= {"wounds"}


def test_each_kind_lists_whose_choices_its_fields_are(client, gm):
    """GET /systems/{id} tells integrators which fields are the GM's, the other side's
    and the roller's own (issue 15)."""
    response = client.get(f"{API}/systems/fabulae-tenebris", headers=gm.headers)
    assert response.status_code == 200, response.text
    kinds = {kind["kind"]: kind for kind in response.json()["kinds"]}
    assert {"field": "defense", "rule": "FAB-62", "character": "target_id"} in kinds[
        "fabulae.attack"
    ]["other_side"]
    assert {"field": "modifiers", "rule": "FAB-14", "character": None} in kinds["fabulae.attack"][
        "gm_decides"
    ]
    assert kinds["fabulae.action"]["roller_decides"] == [
        {"field": "talents", "rule": "FAB-90", "character": None},
        {"field": "helpers", "rule": "FAB-13", "character": None},
    ]


def test_FAB_62_FAB_36_an_answer_keeps_the_visibility_of_the_roll_it_answers(
    client, gm, player, other_player, make_campaign, make_character, forced_dice
):
    campaign = make_campaign("fabulae-tenebris", players=(player, other_player))
    ada = make_character(campaign, player, sheet=FABULAE_SHEET, name="Ada")
    bram = make_character(campaign, other_player, sheet=FABULAE_SHEET, name="Bram")
    waiting = rolled(client, campaign, player, opposed(ada, bram))
    answer = {"kind": "fabulae.oppose", "follows": waiting["seq"], "character_id": bram["id"]}
    before = last_seq(client, campaign, gm)
    hidden = post_roll(client, campaign, other_player, {**answer, "visibility": "blind"})
    assert_problem(hidden, 422, "visibility")
    # A talent that adds nothing to this roll is refused before any die is drawn.
    useless = post_roll(client, campaign, other_player, {**answer, "talents": ["cogneur"]})
    assert_problem(useless, 422, "cogneur")
    assert last_seq(client, campaign, gm) == before
    forced_dice.push(*[2] * 10)
    entry = rolled(client, campaign, other_player, {**answer, "visibility": "public"})
    assert entry["visibility"] == "public"
    # The wait is no roll to push; the answer is.
    push = {"kind": "fabulae.push", "follows": waiting["seq"]}
    assert_problem(post_roll(client, campaign, player, push), 422, "answer")


def test_a_request_does_not_make_the_other_sides_choices(
    client, gm, player, make_campaign, make_character
):
    campaign = make_campaign("fabulae-tenebris", players=(player,))
    ada = make_character(campaign, player, sheet=FABULAE_SHEET, name="Ada")
    for kind, values, rule in (
        ("fabulae.attack", {"defense": "parry"}, "FAB-62"),
        ("fabulae.attack", {"states": "now"}, "FAB-34"),
        ("fabulae.attack", {"talents": ["all_in"]}, "FAB-90"),
        ("fabulae.opposed", {"passive.talents": ["expert"]}, "FAB-90"),
        ("fabulae.action", {"helpers": 2}, "FAB-13"),
    ):
        response = client.post(
            f"{API}/campaigns/{campaign['id']}/roll-requests",
            json={"kind": kind, "character_ids": [ada["id"]], "values": values},
            headers=gm.headers,
        )
        assert_problem(response, 422, rule)
    assert open_requests(client, campaign, gm) == []


def test_a_request_closes_when_its_last_character_is_retired(
    client, gm, player, other_player, make_campaign, make_character
):
    campaign = make_campaign("fabulae-tenebris", players=(player, other_player))
    ada = make_character(campaign, player, sheet=FABULAE_SHEET, name="Ada")
    bram = make_character(campaign, other_player, sheet=FABULAE_SHEET, name="Bram")
    waiting = rolled(client, campaign, player, bare_hands(ada, bram))
    assert len(open_requests(client, campaign, gm)) == 1
    retired = client.delete(f"{API}/characters/{bram['id']}", headers=other_player.headers)
    assert retired.status_code == 204, retired.text
    assert open_requests(client, campaign, gm) == []
    assert waiting["result"]["awaiting"]["character_id"] == bram["id"]


def test_FAB_63_FAB_34_a_strangled_players_character_settles_its_own_state(
    client, gm, player, other_player, make_campaign, make_character
):
    campaign = make_campaign("fabulae-tenebris", players=(player, other_player))
    ada = make_character(campaign, player, sheet=FABULAE_SHEET, name="Ada")
    bram = make_character(campaign, other_player, sheet=FABULAE_SHEET, name="Bram")
    gm_patch(client, gm, bram, {"grappled_by": ada["id"]})
    strangle = {"kind": "fabulae.strangle", "attacker_id": ada["id"], "target_id": bram["id"]}
    refused = post_roll(client, campaign, player, {**strangle, "states": "now"})
    assert assert_problem(refused, 403, "Bram")["rule"] == "FAB-34"
    choked = rolled(client, campaign, player, strangle)
    assert len(choked["result"]["pending_states"]) == 1
    accept = {"kind": "fabulae.state_choice", "follows": choked["seq"]}
    assert_problem(post_roll(client, campaign, player, accept), 403)  # not Ada's to accept
    settled = rolled(client, campaign, other_player, accept)
    assert settled["character_id"] == bram["id"] and settled["result"]["state"] == "epuise"


def test_JDR_35_holy_water_on_another_players_character_changes_nothing_of_theirs(
    client, gm, player, other_player, make_campaign, make_character
):
    campaign = make_campaign("jdr-express-dracula", players=(player, other_player))
    mina = make_character(campaign, player, name="Mina")
    jonathan = make_character(campaign, other_player, name="Jonathan")
    before = client.get(f"{API}/characters/{jonathan['id']}", headers=gm.headers).json()["sheet"]
    body = {"kind": "jdr.holy_water", "attacker_id": mina["id"], "target_id": jonathan["id"]}
    entry = rolled(client, campaign, player, body)
    assert entry["effects"] == []  # no vampire: recorded with no effect
    after = client.get(f"{API}/characters/{jonathan['id']}", headers=gm.headers).json()["sheet"]
    assert after == before
