"""Fabulae grapples (FAB-63), dangers (FAB-73), repairs (FAB-67), talents in combat (FAB-90)
and powers (FAB-100..102) through the API."""

from __future__ import annotations

import pytest

from tests.api.fabulae.combat import (
    BASE_SHEET,
    FAB,
    PHYSICAL,
    attack,
    body,
    defend,
    fields,
    unchanged,
)
from tests.api.fabulae.combat import table as combat_table
from tests.api.helpers import (
    assert_refused,
    committed,
    effect,
    get_entry,
    gm_patch,
    new_scene,
    new_session,
    post_roll,
    rolled,
    sheet_of,
)
from tests.conftest import API, assert_problem

table = combat_table  # the fixture that sets the table of every test here

# --- FAB-63: grapples ---------------------------------------------------------------------


def test_FAB63_FAIR_20_grapple_strangle_and_break_free(client, table, gm, player, forced_dice):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    strangle = body("strangle", attacker_id=thug["id"], target_id=ada["id"])
    with unchanged(client, gm, campaign, ada, thug):
        assert_refused(post_roll(client, campaign, gm, strangle), "FAB-63")
        free = body("break_free", character_id=ada["id"])
        assert_problem(post_roll(client, campaign, player, free), 422, "FAB-63")
    # Thug: Physique 3 + Combat 2 = 5 dice; Ada's player dodges: Physique 3 + Athlétisme 0 = 3.
    grab = body("grapple", attacker_id=thug["id"], target_id=ada["id"])
    waiting = rolled(client, campaign, gm, grab)
    forced_dice.push(6, 2, 2, 2, 2, 2, 2, 2)
    grabbed = rolled(client, campaign, player, defend(waiting, ada, "dodge"))
    assert grabbed["result"]["grapple"]["grappled"] is True
    assert grabbed["effects"] == [effect(ada, "grappled_by", None, thug["id"], "FAB-63")]
    choked = rolled(client, campaign, gm, strangle)
    assert choked["draws"] == [] and choked["result"]["damage"] == 1
    # The state waits for Ada's player (FAB-34), who accepts it.
    assert len(choked["result"]["pending_states"]) == 1
    rolled(client, campaign, player, body("state_choice", follows=choked["seq"]))
    # FAIR-20: a strangle may draw sequela dice, so it is a roll, listed with the rolls.
    listed = client.get(
        f"{API}/campaigns/{campaign['id']}/rolls?kind=fabulae.strangle", headers=gm.headers
    )
    assert [entry["seq"] for entry in listed.json()["data"]] == [choked["seq"]]
    assert sheet_of(client, player, ada)["states"] == ["epuise"]
    # Ada's only action: Physique 3 + Combat 2 against the hold (5 dice).
    forced_dice.push(6, 2, 2, 2, 2, 6, 2, 2, 2, 2)
    held = rolled(client, campaign, player, body("break_free", character_id=ada["id"]))
    assert held["result"]["freed"] is False and held["effects"] == []
    forced_dice.push(6, 6, 2, 2, 2, 6, 2, 2, 2, 2)
    freed = rolled(client, campaign, player, body("break_free", character_id=ada["id"]))
    assert freed["result"]["freed"] is True
    assert freed["effects"] == [effect(ada, "grappled_by", thug["id"], None, "FAB-63")]
    with unchanged(client, gm, campaign, ada, thug):
        assert_refused(post_roll(client, campaign, gm, strangle), "FAB-63")


def test_FAB63_a_failed_grapple_holds_nobody(client, table, gm, player, forced_dice):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    grapple = body("grapple", attacker_id=thug["id"], target_id=ada["id"])
    waiting = rolled(client, campaign, gm, grapple)
    assert waiting["result"]["awaiting"]["character_id"] == ada["id"]  # FAB-62: Ada's choice
    forced_dice.push(2, 2, 2, 2, 2)
    entry = rolled(client, campaign, player, defend(waiting, ada, "none"))
    assert entry["result"]["grapple"]["grappled"] is False and entry["effects"] == []


# --- FAB-73: dangers ------------------------------------------------------------------------


def test_FAB73_only_the_gm_exposes_to_a_danger(client, table, gm, player):
    campaign, ada = table.campaign, table.ada
    with unchanged(client, gm, campaign, ada):
        fire = body("danger", character_id=ada["id"], danger="fire")
        assert_problem(post_roll(client, campaign, player, fire), 403)
        hot = body("danger", character_id=ada["id"], danger="fire", intensity=10)
        assert_problem(post_roll(client, campaign, gm, hot), 422, "FAB-73")


def test_FAB73_fire_grows_a_die_each_round(client, table, gm, player, forced_dice):
    campaign, ada = table.campaign, table.ada
    forced_dice.push(6, 2, 2, 2, 6, 6)  # intensity 4, third round: 6 dice
    fire = body("danger", character_id=ada["id"], danger="fire", intensity=4, round=3)
    entry = rolled(client, campaign, gm, {**fire, "states": "now"})
    assert entry["result"]["damage"] == 3
    assert sheet_of(client, player, ada)["states"] == PHYSICAL


def test_FAB73_explosion_base_through_armor_and_extra_sixes(client, table, gm, player, forced_dice):
    campaign, ada = table.campaign, table.ada
    gm_patch(client, gm, ada, {"armor": {"id": "leather_coat", "value": 1}})
    forced_dice.push(6, 6)  # intensity 8 at medium range: 2 dice, one extra six
    forced_dice.push(2)  # the coat
    blast = body(
        "danger",
        character_id=ada["id"],
        danger="explosion",
        intensity=8,
        damage=2,
        medium_range=True,
        states="now",
    )
    entry = rolled(client, campaign, gm, blast)
    assert (entry["result"]["extra_net"], entry["result"]["damage"]) == (1, 3)
    sheet = sheet_of(client, player, ada)
    assert sheet["states"] == PHYSICAL
    assert sheet["armor"] == {"id": "leather_coat", "value": 0}


def test_FAB73_drowning(client, table, gm, player, forced_dice):
    campaign, ada = table.campaign, table.ada
    gm_patch(client, gm, ada, {"armor": {"id": "guard_mail", "value": 2}})
    sink = rolled(client, campaign, gm, body("danger", character_id=ada["id"], danger="drowning"))
    assert sink["result"]["sinks"] is True and sink["draws"] == []
    forced_dice.push(2, 2, 2, 2, 2)
    under = body(
        "danger", character_id=ada["id"], danger="drowning", phase="underwater", states="now"
    )
    entry = rolled(client, campaign, gm, under)
    assert entry["result"]["damage"] == 1
    assert sheet_of(client, player, ada)["states"] == ["epuise"]


def test_FAB73_poison_is_opposed_by_its_toxicity(client, table, gm, player, forced_dice):
    campaign, ada = table.campaign, table.ada
    forced_dice.push(6, 2, 2, 2, 2)  # Physique 3 + Résistance 2
    forced_dice.push(6, 6, 2, 2)  # toxicity 4
    poison = body("danger", character_id=ada["id"], danger="poison", intensity=4)
    entry = rolled(client, campaign, gm, poison)
    assert entry["result"]["roll"]["net"] == -1 and entry["result"]["damage"] == 1
    assert entry["result"]["per"] == "round"
    assert len(entry["result"]["pending_states"]) == 1


@pytest.mark.parametrize(("talent", "stress"), [("beast_friend", 1), ("cool_head", 0)])
def test_FAB73_cold_damages_and_stresses(client, table, gm, player, forced_dice, talent, stress):
    campaign, ada = table.campaign, table.ada
    gm_patch(client, gm, ada, {"talents": [talent]})
    forced_dice.push(2, 2, 2, 2, 2)
    cold = body("danger", character_id=ada["id"], danger="cold", states="now")
    entry = rolled(client, campaign, gm, cold)
    assert entry["result"]["damage"] == 1 and entry["result"]["stress_gained"] == stress
    sheet = sheet_of(client, player, ada)
    assert sheet["stress"] == stress and sheet["states"] == ["epuise"]


# --- FAB-67: repairs --------------------------------------------------------------------------


def test_FAB67_bricolage_repairs_worn_armor(client, table, gm, player, other_player, forced_dice):
    campaign, ada, bram = table.campaign, table.ada, table.bram
    gm_patch(client, gm, ada, {"armor": {"id": "guard_mail", "value": 0}})
    gm_patch(client, gm, bram, {"talents": ["tinkerer"]})
    forced_dice.push(6, 6, 2, 2, 2)  # Intellect 3 + Bricolage 0 + tinkerer 2
    fix = body("repair", character_id=bram["id"], owner_id=ada["id"], talents=["tinkerer"])
    entry = rolled(client, campaign, other_player, fix)
    assert entry["result"]["armor_value"] == 2
    assert fields(entry, ada) == {
        "armor": ({"id": "guard_mail", "value": 0}, {"id": "guard_mail", "value": 2}, "FAB-67")
    }
    with unchanged(client, gm, campaign, ada, bram):
        assert_refused(post_roll(client, campaign, other_player, fix), "FAB-67")
        nothing = body("repair", character_id=bram["id"], owner_id=table.thug["id"])
        assert_refused(post_roll(client, campaign, other_player, nothing), "FAB-67")


# --- FAB-90: talents in combat --------------------------------------------------------------


def test_FAB90_cogneur_hits_harder_barehanded(client, table, gm, player, forced_dice):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    gm_patch(client, gm, ada, {"talents": ["cogneur"]})
    waiting = rolled(client, campaign, player, attack(ada, thug, "bare_hands"))
    forced_dice.push(6, 2, 2, 2)  # Physique 3 + Combat 2 − bare hands 1
    entry = rolled(client, campaign, gm, defend(waiting, thug, "none"))  # FAB-62
    assert entry["result"]["attack"]["attacks"][0]["damage"] == 2
    assert sheet_of(client, gm, thug)["states"] == ["epuise", "meurtri"]


def test_FAB90_fine_gachette_aims_better_in_half_light(client, table, gm, player, forced_dice):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    gm_patch(client, gm, ada, {"talents": ["fine_gachette"], "weapons": [{"id": "revolver"}]})
    forced_dice.push(*[2] * 10)  # 3 + 2 + 2 + aimed 3, half-light ignored
    request = attack(ada, thug, situation=["half_light"], aimed=True)
    pool = rolled(client, campaign, player, request)["result"]["attacks"][0]["roll"]["active"]
    assert pool["pool"]["pool"] == 10
    assert {"source": "aimed", "dice": 3} in pool["pool"]["modifier_dice"]


def test_FAB90_snap_shot(client, table, gm, player, forced_dice):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    gm_patch(client, gm, ada, {"talents": ["snap_shot"], "weapons": [{"id": "revolver"}]})
    forced_dice.push(*[2] * 5)
    entry = rolled(client, campaign, player, attack(ada, thug, snap_shot=True))
    assert entry["result"]["attacks"][0]["roll"]["active"]["pool"]["pool"] == 5


def test_FAB90_butcher_on_a_human_npc(client, table, gm, player, forced_dice):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    gm_patch(client, gm, ada, {"talents": ["butcher"], "weapons": [{"id": "knife"}]})
    gm_patch(client, gm, thug, {"states": PHYSICAL})
    waiting = rolled(client, campaign, player, attack(ada, thug, "knife"))
    forced_dice.push(6, 2, 2, 2, 2, 2)  # knife: 2 damage on a full track
    forced_dice.push(3, 3, 2)  # 6 + butcher 2 = 8: sprain, 1D6 quarts
    entry = rolled(client, campaign, gm, defend(waiting, thug, "none"))  # FAB-62
    # FAIR-18: the states an NPC's track took are the GM's to read.
    seen = get_entry(client, campaign, player, entry["seq"])
    assert committed(seen["result"]["attack"]["states_checked"])
    # FAB-23 (corrected): one sequela per attack, however many damage points got through.
    checked = entry["result"]["attack"]["states_checked"]
    assert [c.get("broken") for c in checked] == [True, True]
    sequelae = [c["sequela"] for c in checked if "sequela" in c]
    assert [(s["modifier"], s["code"], s["duration"]) for s in sequelae] == [
        (2, "sprain", "2 quarts")
    ]
    assert sheet_of(client, gm, thug)["broken"] is True


def test_FAB90_second_wind_once_per_session(client, table, gm, player, forced_dice):
    campaign, ada = table.campaign, table.ada
    broken = {"states": PHYSICAL, "broken": True, "broken_track": "physical"}
    gm_patch(client, gm, ada, {"talents": ["second_wind"], **broken})
    new_session(client, campaign, gm)
    wind = body("second_wind", character_id=ada["id"])
    forced_dice.push(6, 6, 2)  # Physique 3 + Résistance 2 − Meurtri − Blessé
    entry = rolled(client, campaign, player, wind)
    assert entry["result"]["cleared"] == ["blesse", "meurtri"]
    sheet = sheet_of(client, player, ada)
    assert sheet["states"] == ["epuise"] and sheet["broken"] is False
    assert sheet["second_wind_session"] == 1
    gm_patch(client, gm, ada, broken)
    with unchanged(client, gm, campaign, ada):
        assert_refused(post_roll(client, campaign, player, wind), "FAB-90")
    new_session(client, campaign, gm)
    forced_dice.push(2, 2, 2)
    assert rolled(client, campaign, player, wind)["result"]["outcome"] == "failure"
    gm_patch(client, gm, ada, {"broken": False, "broken_track": None, "states": []})
    new_session(client, campaign, gm)
    with unchanged(client, gm, campaign, ada):
        assert_refused(post_roll(client, campaign, player, wind), "FAB-90")


def test_FAB90_street_rat_rerolls_one_failed_die(client, table, gm, player, forced_dice):
    campaign, ada = table.campaign, table.ada
    gm_patch(client, gm, ada, {"talents": ["street_rat"]})
    forced_dice.push(2, 3, 4)  # Habileté 3 + Furtivité 0
    action = {
        "kind": "fabulae.action",
        "character_id": ada["id"],
        "attribute": "habilete",
        "skill": "furtivite",
    }
    sneak = rolled(client, campaign, player, action)
    forced_dice.push(6)
    rat = rolled(client, campaign, player, body("street_rat", follows=sneak["seq"], die=1))
    assert rat["result"]["dice"] == [2, 6, 4] and rat["result"]["outcome"] == "success"
    assert rat["follows"] == sneak["seq"]
    with unchanged(client, gm, campaign, ada):
        again = body("street_rat", follows=sneak["seq"], die=0)
        assert_refused(post_roll(client, campaign, player, again), "FAB-90")


# --- FAB-100..102: powers ---------------------------------------------------------------------


def test_FAB100_a_bolt_spends_pp_adds_stress_and_hurts(client, table, gm, player, forced_dice):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    gm_patch(client, gm, ada, {"powers": ["bolt"], "pp": 4, "pp_max": 5})
    forced_dice.push(6, 6, 2, 2, 2)  # Intellect 3 + Connaissance 0, 2 stress dice: 3 damage
    bolt = body("power", character_id=ada["id"], power="bolt", pp=2, targets=[thug["id"]])
    entry = rolled(client, campaign, player, bolt)
    assert entry["result"]["pp"] == 2 and entry["result"]["stress_gained"] == 2
    assert entry["result"]["targets"][thug["id"]]["through"] == 3
    assert fields(entry, ada) == {"pp": (4, 2, "FAB-100"), "stress": (0, 2, "FAB-100")}
    # FAIR-18: the player reads Thug's change committed; the GM reads it whole.
    assert all(committed(value) for value in fields(entry, thug)["states"][:2])
    seen_by_gm = get_entry(client, campaign, gm, entry["seq"])
    assert fields(seen_by_gm, thug) == {"states": ([], PHYSICAL, "FAB-102")}


def test_FAIR_18_a_bolt_shows_players_an_npc_targets_armor_and_states_committed(
    client, table, gm, player, forced_dice
):
    """As an attack's: the protection dice, the armor and the states an NPC target's sheet
    gave the bolt are committed for players; the GM reads them whole."""
    campaign, ada, thug = table.campaign, table.ada, table.thug
    gm_patch(client, gm, ada, {"powers": ["bolt"], "pp": 4, "pp_max": 5})
    gm_patch(client, gm, thug, {"armor": {"id": "factory_plate"}})
    forced_dice.push(6, 6, 2, 2, 2, 2, 2, 2, 2)  # 3 damage; the plate's 4 dice absorb none
    bolt = body("power", character_id=ada["id"], power="bolt", pp=2, targets=[thug["id"]])
    entry = rolled(client, campaign, player, bolt)
    hit = entry["result"]["targets"][thug["id"]]
    assert committed(hit["protection"])
    shown = [name for name in ("states_checked", "pending_states") if hit.get(name) is not None]
    assert shown and all(committed(hit[name]) for name in shown)
    whole = get_entry(client, campaign, gm, entry["seq"])["result"]["targets"][thug["id"]]
    assert whole["protection"]["armor"] == 4 and whole["through"] == 3
    verified = client.get(f"{API}/campaigns/{campaign['id']}/log/verify", headers=gm.headers)
    assert verified.json()["ok"] is True, verified.text


def test_FAB100_refusals(client, table, make_campaign, make_character, gm, player):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    gm_patch(client, gm, ada, {"powers": ["bolt"], "pp": 1, "pp_max": 2})
    with unchanged(client, gm, campaign, ada, thug):
        short = body("power", character_id=ada["id"], power="bolt", pp=2, targets=[thug["id"]])
        assert_refused(post_roll(client, campaign, player, short), "FAB-100")
        other = body("power", character_id=ada["id"], power="drain", pp=1, targets=[thug["id"]])
        assert_refused(post_roll(client, campaign, player, other), "FAB-100")
        unknown = body("power", character_id=ada["id"], power="fireball", pp=1)
        assert_problem(post_roll(client, campaign, player, unknown), 422)
    plain = make_campaign(FAB, players=(player,), name="Sans pouvoirs")
    eve = make_character(plain, player, sheet=BASE_SHEET, name="Eve")
    response = client.patch(
        f"{API}/characters/{eve['id']}", json={"sheet": {"powers": ["bolt"]}}, headers=gm.headers
    )
    assert_problem(response, 422, "powers_allowed")
    with unchanged(client, gm, plain, eve):
        trance = body("power", character_id=eve["id"], power="trance", pp=1)
        assert_refused(post_roll(client, plain, player, trance), "FAB-100")


def test_FAB102_barrier_protects_until_the_scene_ends(client, table, gm, player, forced_dice):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    gm_patch(
        client,
        gm,
        ada,
        {"powers": ["barrier"], "pp": 2, "pp_max": 2, "armor": {"id": "leather_coat", "value": 1}},
    )
    new_session(client, campaign, gm)
    cast = body("power", character_id=ada["id"], power="barrier", pp=1, targets=[ada["id"]])
    entry = rolled(client, campaign, player, cast)
    assert entry["draws"] == [] and entry["result"]["applied"] is True
    effects = sheet_of(client, player, ada)["active_effects"]
    assert [(e["source"], e["armor"], e["caster_id"]) for e in effects] == [
        ("barrier", 2, ada["id"])
    ]
    forced_dice.push(6, 2, 2, 2, 2, 2, 2)  # the shot, 2 damage
    forced_dice.push(6, 6, 2)  # coat 1 + barrier 2
    shot = rolled(client, campaign, gm, attack(thug, ada))
    protection = shot["result"]["attacks"][0]["protection"]
    assert (protection["armor"], protection["powers"], protection["absorbed"]) == (1, 2, 2)
    scene = new_scene(client, campaign, gm)
    assert scene["effects"] == [effect(ada, "active_effects", effects, [], "FAB-102")]
    assert sheet_of(client, player, ada)["active_effects"] == []


def test_FAB102_deflection_and_the_gm_ending_it(client, table, gm, player, forced_dice):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    gm_patch(client, gm, ada, {"powers": ["deflection"], "pp": 1, "pp_max": 1})
    cast = body("power", character_id=ada["id"], power="deflection", pp=1, targets=[ada["id"]])
    rolled(client, campaign, player, cast)
    forced_dice.push(*[2] * 4)  # 7 − 3 (FAB-102 corrected: −3, as invisibility)
    shot = rolled(client, campaign, gm, attack(thug, ada))
    pool = shot["result"]["attacks"][0]["roll"]["active"]["pool"]
    assert {"source": "powers on the target", "dice": -3} in pool["modifier_dice"]
    end = body("end_effect", character_id=ada["id"], source="deflection")
    with unchanged(client, gm, campaign, ada):
        assert_problem(post_roll(client, campaign, player, end), 403)
    ended = rolled(client, campaign, gm, end)
    assert ended["result"] == {"ended": "deflection"}
    assert sheet_of(client, player, ada)["active_effects"] == []
    with unchanged(client, gm, campaign, ada):
        assert_refused(post_roll(client, campaign, gm, end), "FAB-102")


def test_FAB102_horror_sets_off_a_panic_roll_per_target(client, table, gm, player, forced_dice):
    campaign, ada, bram, thug = table.campaign, table.ada, table.bram, table.thug
    gm_patch(client, gm, ada, {"powers": ["horror"], "pp": 1, "pp_max": 1})
    gm_patch(client, gm, thug, {"stress": 3})
    # FAB-102 (corrected): horror worsens the panic, +1. Thug: 4 + 3 + 1 = 8 tremors;
    # Bram: 4 + 0 + 1 = 5 cool.
    forced_dice.push(4, 4)
    cast = body(
        "power", character_id=ada["id"], power="horror", pp=1, targets=[thug["id"], bram["id"]]
    )
    entry = rolled(client, campaign, player, cast)
    assert entry["draws"] == []
    panics = entry["triggered"]
    assert [(p["kind"], p["character_id"], p["follows"]) for p in panics] == [
        ("fabulae.panic", thug["id"], entry["seq"]),
        ("fabulae.panic", bram["id"], entry["seq"]),
    ]
    assert [p["result"]["modifier"] for p in panics] == [1, 1]
    assert [p["result"]["code"] for p in panics] == ["tremors", "cool"]


def test_FAB102_drain_and_calm(client, table, gm, player, forced_dice):
    campaign, ada, bram = table.campaign, table.ada, table.bram
    gm_patch(client, gm, ada, {"powers": ["drain", "calm"], "pp": 4, "pp_max": 5})
    gm_patch(client, gm, bram, {"pp": 2, "pp_max": 3})
    forced_dice.push(6, 2, 2, 2, 2, 2, 2)  # Ada 3 dice + 1 stress against Bram's Intellect 3
    forced_dice.push(2)  # 1D3
    drain = body("power", character_id=ada["id"], power="drain", pp=1, targets=[bram["id"]])
    entry = rolled(client, campaign, player, drain)
    assert entry["draws"][-1] == {"sides": 3, "face": 2}
    assert entry["result"]["stolen"] == 2
    assert fields(entry, bram) == {"pp": (2, 0, "FAB-102")}
    assert fields(entry, ada)["pp"] == (4, 5, "FAB-100")
    gm_patch(client, gm, bram, {"stress": 3, "states": ["enerve", "apeure", "demoralise"]})
    calm = body("power", character_id=ada["id"], power="calm", pp=1, targets=[bram["id"]])
    calmed = rolled(client, campaign, player, calm)
    # FAB-102 (corrected): one of Apeuré and Démoralisé, by default the worse.
    assert fields(calmed, bram) == {
        "stress": (3, 0, "FAB-102"),
        "states": (["enerve", "apeure", "demoralise"], ["enerve", "apeure"], "FAB-102"),
    }
    chosen = body(
        "power", character_id=ada["id"], power="calm", pp=1, targets=[bram["id"]], option="apeure"
    )
    calmed = rolled(client, campaign, player, chosen)
    assert fields(calmed, bram) == {"states": (["enerve", "apeure"], ["enerve"], "FAB-102")}
    wrong = {**chosen, "option": "epuise"}
    with unchanged(client, gm, campaign, bram):
        assert_problem(post_roll(client, campaign, player, wrong), 422, "apeure or demoralise")
