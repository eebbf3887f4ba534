"""The Fabulae Tenebris corrections of 2026-11-30 (rules version 2) through the API: who
may act (FAB-23/51/63), the defender's protection bonus (FAB-62), one sequela per attack
(FAB-23), ranges (FAB-71), powers (FAB-102), stress dice (FAB-42), the Prouesse label
(FAB-36), the third push (FAB-33), cool_head on one's own jolt (FAB-41)."""

from __future__ import annotations

from tests.api.fabulae.combat import (
    PHYSICAL,
    attack,
    body,
    defend,
    fields,
    lethal,
    unchanged,
)
from tests.api.fabulae.combat import table as combat_table
from tests.api.helpers import (
    assert_refused,
    get_entry,
    gm_patch,
    new_scene,
    new_session,
    post_roll,
    rolled,
    sheet_of,
)
from tests.conftest import API, assert_problem

table = combat_table
BROKEN = {"states": PHYSICAL, "broken": True, "broken_track": "physical"}


# --- who may act (FAB-23, FAB-51, FAB-63 corrected) -----------------------------------------


def test_FAB23_corrected_a_broken_character_neither_attacks_nor_acts(client, table, gm, player):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    gm_patch(client, gm, ada, {**BROKEN, "weapons": [{"id": "revolver"}]})
    with unchanged(client, gm, campaign, ada, thug):
        shot = post_roll(client, campaign, player, attack(ada, thug))
        assert "is Broken" in assert_refused(shot, "FAB-23")["detail"]
        sneak = body("action", character_id=ada["id"], attribute="habilete", skill="furtivite")
        assert_refused(post_roll(client, campaign, player, sneak), "FAB-23")


def test_FAB23_corrected_a_broken_character_still_takes_its_death_test(
    client, table, gm, player, forced_dice
):
    campaign, ada = table.campaign, table.ada
    gm_patch(client, gm, ada, {**BROKEN, "sequelae": [lethal("impaled", "immediate")]})
    forced_dice.push(6, 2, 2)  # 3 + 2 − Meurtri − Blessé (FAB-21)
    test = rolled(client, campaign, player, body("death_test", character_id=ada["id"], sequela=0))
    assert test["result"]["survived"] is True and test["rules"] == "fabulae-tenebris@3"


def test_FAB51_corrected_a_dead_character_makes_no_roll(client, table, gm, player):
    campaign, ada = table.campaign, table.ada
    gm_patch(client, gm, ada, {"dead": True})
    with unchanged(client, gm, campaign, ada):
        for request in (
            body("action", character_id=ada["id"], attribute="physique", skill="combat"),
            body("grapple", attacker_id=ada["id"], target_id=table.thug["id"]),
            body("recover", character_id=ada["id"], mode="rest", duration="night"),
            body("panic", character_id=ada["id"]),
            body("danger", character_id=ada["id"], danger="fire"),
            body("sequela", character_id=ada["id"], table="physical"),
            body("destiny_award", character_id=ada["id"]),
            body("stress", character_ids=[ada["id"]], amount=1),
        ):
            by_the_gm = ("panic", "danger", "sequela", "destiny_award", "stress")
            caller = gm if request["kind"].removeprefix("fabulae.") in by_the_gm else player
            assert_refused(post_roll(client, campaign, caller, request), "FAB-51")


def test_FAB51_corrected_a_dead_character_is_not_grappled(client, table, gm, player):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    gm_patch(client, gm, thug, {"dead": True})
    grab = body("grapple", attacker_id=ada["id"], target_id=thug["id"])
    with unchanged(client, gm, campaign, ada, thug):
        assert_refused(post_roll(client, campaign, player, grab), "FAB-51")


def test_FAB50_corrected_an_unconscious_character_does_not_act(client, table, gm, player):
    campaign, ada = table.campaign, table.ada
    stunned = {"kind": "physical", "code": "stunned", "duration": "3 rounds"}
    gm_patch(client, gm, ada, {"sequelae": [stunned]})
    with unchanged(client, gm, campaign, ada):
        act = body("action", character_id=ada["id"], attribute="physique", skill="combat")
        assert (
            "unconscious"
            in assert_refused(post_roll(client, campaign, player, act), "FAB-50")["detail"]
        )


def test_FAB63_corrected_a_grappled_character_only_tries_to_break_free(
    client, table, gm, player, forced_dice
):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    gm_patch(client, gm, ada, {"grappled_by": thug["id"], "weapons": [{"id": "revolver"}]})
    with unchanged(client, gm, campaign, ada, thug):
        shot = post_roll(client, campaign, player, attack(ada, thug))
        assert "only action left is to break free" in assert_refused(shot, "FAB-63")["detail"]
    forced_dice.push(6, 6, 2, 2, 2, 2, 2, 2, 2, 2)  # Ada 5 dice against Thug's hold, 5 dice
    freed = rolled(client, campaign, player, body("break_free", character_id=ada["id"]))
    assert freed["result"]["roll"]["winner"] == "active"
    assert sheet_of(client, player, ada)["grappled_by"] is None


def test_FAB62_corrected_the_fallen_and_the_held_are_attacked_undefended(
    client, table, gm, player, forced_dice
):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    waiting = rolled(client, campaign, gm, attack(thug, ada, "knife"))
    gm_patch(client, gm, ada, {"grappled_by": thug["id"]})
    # Held since the attack began: her player may answer only "none".
    with unchanged(client, gm, campaign, ada, thug):
        parry = post_roll(client, campaign, player, defend(waiting, ada, "parry"))
        assert assert_problem(parry, 422, "cannot parry or dodge now")["rule"] == "FAB-62"
    # Held when the attack comes: no wait for her player, and no defense die is drawn.
    forced_dice.push(2, 2, 2, 2, 2, 2)  # Thug's knife: 3 + 2 + 1
    entry = rolled(client, campaign, gm, attack(thug, ada, "knife"))
    assert entry["result"]["defense"] == "none" and "awaiting" not in entry["result"]


# --- FAB-62 (corrected): the protection bonus on the parry or dodge -------------------------


def test_FAB62_corrected_the_parry_adds_the_defenders_protection_bonus(
    client, table, gm, player, forced_dice
):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    gm_patch(client, gm, ada, {"armor": {"id": "guard_mail", "value": 2}})
    waiting = rolled(client, campaign, gm, attack(thug, ada, "knife"))
    forced_dice.push(2, 2, 2, 2, 2, 2)  # Thug: 3 + 2 + knife 1
    forced_dice.push(2, 2, 2, 2, 2, 2, 2)  # Ada parries: 3 + 2 + mail 2
    entry = rolled(client, campaign, player, defend(waiting, ada, "parry"))
    (attempt,) = entry["result"]["attack"]["attacks"]
    pool = attempt["roll"]["passive"]["pool"]
    assert pool["pool"] == 7
    assert pool["modifier_dice"] == [{"source": "protection bonus", "dice": 2}]


# --- FAB-23 (corrected): one sequela per attack ---------------------------------------------


def test_FAB23_corrected_a_pcs_pending_damage_rolls_one_sequela(
    client, table, gm, player, forced_dice
):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    gm_patch(client, gm, ada, {"states": PHYSICAL})
    waiting = rolled(client, campaign, gm, attack(thug, ada, "knife"))
    forced_dice.push(6, 6, 2, 2, 2, 2)  # Thug's knife: 2 + 1 feat = 3 damage, undefended
    hit = rolled(client, campaign, player, defend(waiting, ada, "none"))
    assert len(hit["result"]["attack"]["pending_states"]) == 3
    # FAB-34: the character shows what waits for its player.
    assert sheet_of(client, player, ada)["states_pending"] == 3
    forced_dice.push(3, 4)  # 7 + the knife's 0 + 1 feat = 8: sprain, 1D6 quarts
    forced_dice.push(2)
    first = rolled(client, campaign, player, body("state_choice", follows=hit["seq"]))
    assert first["result"]["broken"] is True and first["result"]["sequela"]["code"] == "sprain"
    for _ in range(2):
        more = rolled(client, campaign, player, body("state_choice", follows=hit["seq"]))
        assert more["result"]["broken"] is True and "sequela" not in more["result"]
        assert more["draws"] == []
    assert [s["code"] for s in sheet_of(client, gm, ada)["sequelae"]] == ["sprain"]
    assert sheet_of(client, player, ada)["states_pending"] == 0


# --- FAB-71 (corrected): range columns and situation factors --------------------------------


def test_FAB71_corrected_a_weapon_fires_only_within_its_range(client, table, gm):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    with unchanged(client, gm, campaign, ada, thug):
        for factor in ("long_range", "extreme_range"):
            shot = post_roll(client, campaign, gm, attack(thug, ada, situation=[factor]))
            body_ = assert_problem(shot, 422, "revolver fires up to medium range")
            assert body_["rule"] == "FAB-71"


def test_FAB64_corrected_factors_describing_one_fact_are_refused_together(client, table, gm):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    with unchanged(client, gm, campaign, ada, thug):
        for situation in (
            ["medium_range", "contact_short_weapon"],
            ["half_light", "total_darkness"],
            ["small_target", "large_target"],
            ["medium_range", "medium_range"],
        ):
            shot = post_roll(client, campaign, gm, attack(thug, ada, situation=situation))
            assert_problem(shot, 422)


# --- FAB-102 (corrected): the powers ---------------------------------------------------------


def test_FAB102_corrected_light_dark_hinders_every_sight_roll(
    client, table, gm, player, forced_dice
):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    gm_patch(client, gm, ada, {"powers": ["light_dark"], "pp": 1, "pp_max": 1})
    forced_dice.push(6, 2, 2, 2)  # Intellect 3 + Connaissance 0, one stress die: one six
    cast = body("power", character_id=ada["id"], power="light_dark", pp=1, targets=[thug["id"]])
    entry = rolled(client, campaign, player, cast)
    assert entry["result"]["malus"] == -2
    (effect_,) = sheet_of(client, gm, thug)["active_effects"]
    assert effect_["skills"] == {"observation": -2, "tir": -2}


def test_FAB102_an_active_effect_gives_at_most_ten_dice_either_way(client, table, gm, player):
    """Unbounded, an effect of 200,000 dice made a pool whose odds ran for hours (found
    fuzzing the live API): an edit keeps each within ±10, as all_rolls is."""
    thug = table.thug
    for dice in (11, -11, 200_000):
        for part in ("skills", "attributes"):
            effect_ = {
                "source": "barrier",
                part: {"combat" if part == "skills" else "physique": dice},
            }
            refused = client.patch(
                f"{API}/characters/{thug['id']}",
                json={"sheet": {"active_effects": [effect_]}},
                headers=gm.headers,
            )
            assert_problem(refused, 422, "FAB-102")
    kept = gm_patch(
        client, gm, thug, {"active_effects": [{"source": "barrier", "skills": {"combat": 10}}]}
    )
    assert kept["active_effects"][0]["skills"] == {"combat": 10}


def test_FAB102_corrected_invisibility_hinders_a_grapple(client, table, gm, player, forced_dice):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    gm_patch(client, gm, ada, {"powers": ["invisibility"], "pp": 1, "pp_max": 1})
    cast = body("power", character_id=ada["id"], power="invisibility", pp=1, targets=[ada["id"]])
    rolled(client, campaign, player, cast)
    grab = body("grapple", attacker_id=thug["id"], target_id=ada["id"])
    waiting = rolled(client, campaign, gm, grab)
    forced_dice.push(2, 2)  # Thug's grab: 3 + 2 − 3
    entry = rolled(client, campaign, player, defend(waiting, ada, "none"))
    seen = get_entry(client, campaign, gm, entry["seq"])  # an NPC's pool is the GM's (FAIR-18)
    pool = seen["result"]["grapple"]["roll"]["active"]["pool"]
    assert pool["modifier_dice"] == [{"source": "powers on the target", "dice": -3}]


def test_FAB102_corrected_an_enchanted_weapon_adds_one_net_damage(
    client, table, gm, player, forced_dice
):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    gm_patch(client, gm, ada, {"powers": ["enchant_weapon"], "pp": 1, "pp_max": 1})
    gm_patch(client, gm, thug, {"armor": {"id": "factory_plate", "value": 4}})
    cast = body("power", character_id=ada["id"], power="enchant_weapon", pp=1, targets=[ada["id"]])
    enchanted = rolled(client, campaign, player, cast)
    assert enchanted["result"]["applied"] is True
    (effect_,) = sheet_of(client, player, ada)["active_effects"]
    assert effect_["net_damage"] == 1
    # Ada's bare hands (3 + 2 − 1, one stress die) hit; the plate absorbs the one damage,
    # yet the enchantment's net damage gets through.
    forced_dice.push(6, 2, 2, 2, 2)
    forced_dice.push(6, 2, 2, 2)  # the plate's four dice: one six
    shot = attack(ada, thug, "bare_hands", defense="none")
    entry = rolled(client, campaign, gm, shot)
    (hit,) = entry["result"]["attacks"]
    assert (hit["damage"], hit["protection"]["absorbed"], hit["through"]) == (1, 1, 1)


# --- FAB-42 (corrected): stress dice join action rolls only ----------------------------------


def test_FAB42_corrected_a_death_test_rolls_no_stress_dice(client, table, gm, player, forced_dice):
    campaign, ada = table.campaign, table.ada
    gm_patch(client, gm, ada, {"stress": 4, "sequelae": [lethal("impaled", "immediate")]})
    forced_dice.push(2, 2, 2, 2, 6)  # Physique 3 + Résistance 2, and no stress die
    test = rolled(client, campaign, player, body("death_test", character_id=ada["id"], sequela=0))
    assert test["result"]["stress_dice"] == [] and test["result"]["pool"]["stress_dice"] == 0
    assert test["result"]["survived"] is True and test["triggered"] == []


# --- FAB-36, FAB-33, FAB-41: smaller corrections ---------------------------------------------


def test_FAB36_an_opposed_win_by_two_sixes_reads_prouesse(client, table, gm, forced_dice):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    side = {"attribute": "physique", "skill": "combat"}
    opposed = {
        "kind": "fabulae.opposed",
        "active": {"character_id": ada["id"], **side},
        "passive": {"character_id": thug["id"], **side},
    }
    forced_dice.push(6, 6, 6, 2, 2, 6, 2, 2, 2, 2)
    entry = rolled(client, campaign, gm, opposed)
    assert (entry["result"]["net"], entry["result"]["outcome"]) == (2, "success")
    assert entry["result"]["label"] == "Prouesse"


def test_FAB33_a_third_push_is_refused_saying_why(client, table, gm, player, forced_dice):
    campaign, ada = table.campaign, table.ada
    gm_patch(client, gm, ada, {"talents": ["double_push_physique"]})
    forced_dice.push(*[2] * 15)  # the roll, then two pushes rerolling its five dice
    action = body("action", character_id=ada["id"], attribute="physique", skill="combat")
    entry = rolled(client, campaign, player, action)
    for _ in range(2):
        rolled(client, campaign, player, body("push", follows=entry["seq"]))
    with unchanged(client, gm, campaign, ada):
        third = post_roll(client, campaign, player, body("push", follows=entry["seq"]))
        assert "pushed twice already" in assert_refused(third, "FAB-33")["detail"]


def test_FAB41_corrected_cool_head_does_not_soften_the_panickers_own_jolt(
    client, table, gm, forced_dice
):
    campaign, ada, bram = table.campaign, table.ada, table.bram
    gm_patch(client, gm, ada, {"talents": ["cool_head"], "stress": 3})
    gm_patch(client, gm, bram, {"talents": ["cool_head"]})
    forced_dice.push(6)  # 6 + 3 − 2 = 7: a jolt, +1 stress to Ada and her allies
    panic = body("panic", character_id=ada["id"], allies=[bram["id"]])
    entry = rolled(client, campaign, gm, panic)
    assert entry["result"]["code"] == "jolt"
    # Ada's own jolt is hers whole; cool_head still softens what reaches Bram (FAB-41).
    assert fields(entry, ada) == {"stress": (3, 4, "FAB-44")}
    assert fields(entry, bram) == {}


def test_FAB73_corrected_without_sleep_stress_does_not_heal(client, table, gm, player):
    campaign, ada = table.campaign, table.ada
    gm_patch(client, gm, ada, {"stress": 2, "deprived": ["sleep"]})
    resist = body("stress_resist", character_id=ada["id"])
    with unchanged(client, gm, campaign, ada):
        assert (
            "has not slept"
            in assert_refused(post_roll(client, campaign, player, resist), "FAB-73")["detail"]
        )


# --- FAB-50/55 (corrected): sequela durations run -------------------------------------------


def test_FAB50_corrected_a_scene_ends_rounds_and_quarts_and_a_night_counts_a_day(
    client, table, gm, player, forced_dice
):
    campaign, ada, bram = table.campaign, table.ada, table.bram
    sequelae = [
        {"kind": "physical", "code": "bruise", "duration": "2 rounds"},
        {"kind": "physical", "code": "sprain", "duration": "3 quarts"},
        {"kind": "physical", "code": "bleeding", "duration": "2 days", "lethal": True},
        {"kind": "mental", "code": "white_hair", "duration": "permanent"},
    ]
    new_session(client, campaign, gm)
    for character in (ada, bram):
        gm_patch(
            client,
            gm,
            character,
            {"sequelae": sequelae, "powers": ["barrier"], "pp": 1, "pp_max": 1},
        )
        cast = body(
            "power",
            character_id=character["id"],
            power="barrier",
            pp=1,
            targets=[character["id"]],
        )
        rolled(client, campaign, gm, cast)
    # A scene without a night: the powers' effects, the rounds and the quarts end.
    new_scene(client, campaign, gm)
    for character in (ada, bram):  # each sheet, though their changes interleave in the entry
        sheet = sheet_of(client, gm, character)
        assert sheet["active_effects"] == []
        assert [(s["code"], s["duration"]) for s in sheet["sequelae"]] == [
            ("bleeding", "2 days"),
            ("white_hair", "permanent"),
        ]
    # Each night the GM's clock passes counts a day.
    new_scene(client, campaign, gm, night=True)
    assert sheet_of(client, gm, ada)["sequelae"][0]["duration"] == "1 days"
    new_session(client, campaign, gm, night=True)
    assert [s["code"] for s in sheet_of(client, gm, ada)["sequelae"]] == ["white_hair"]
    # The GM ends one early.
    ended = rolled(client, campaign, gm, body("end_sequela", character_id=ada["id"], sequela=0))
    assert ended["result"] == {"ended": "white_hair"}
    assert sheet_of(client, player, ada)["sequelae"] == []
    with unchanged(client, gm, campaign, ada):
        again = post_roll(
            client, campaign, gm, body("end_sequela", character_id=ada["id"], sequela=0)
        )
        assert_refused(again, "FAB-50")
        mine = post_roll(
            client, campaign, player, body("end_sequela", character_id=bram["id"], sequela=0)
        )
        assert_problem(mine, 403)


def test_FAB23_corrected_a_broken_holder_holds_no_one(client, table, gm, player):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    gm_patch(client, gm, ada, {"grappled_by": thug["id"]})
    gm_patch(client, gm, thug, BROKEN)
    freed = rolled(client, campaign, player, body("break_free", character_id=ada["id"]))
    assert freed["draws"] == [] and freed["result"]["freed"] is True
    # Why is the GM's to read: it tells the NPC's state (FAIR-18).
    assert "is Broken" in get_entry(client, campaign, gm, freed["seq"])["result"]["hold_lost"]
    assert "is Broken" not in str(freed["result"])
    assert sheet_of(client, player, ada)["grappled_by"] is None


def test_FAIR18_what_lands_on_an_npc_is_the_gms_to_read(client, table, gm, player, forced_dice):
    campaign, thug = table.campaign, table.thug
    forced_dice.push(6, 2, 2)  # a fire of three dice: one damage
    fire = body("danger", character_id=thug["id"], danger="fire", states="pending")
    burnt = rolled(client, campaign, gm, fire)
    settled = rolled(client, campaign, gm, body("state_choice", follows=burnt["seq"]))
    assert settled["result"]["state"] == "epuise"
    seen = get_entry(client, campaign, player, settled["seq"])
    assert "epuise" not in str(seen["result"]) and "Épuisé" not in seen["summary"]
    assert seen["outcome"]["code"] == "settled"


def test_FAB101_corrected_a_failed_light_dark_changes_nothing(
    client, table, gm, player, forced_dice
):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    gm_patch(client, gm, ada, {"powers": ["light_dark"], "pp": 1, "pp_max": 1})
    forced_dice.push(2, 2, 2, 3)  # no six: the shadow does not fall
    cast = body("power", character_id=ada["id"], power="light_dark", pp=1, targets=[thug["id"]])
    entry = rolled(client, campaign, player, cast)
    assert entry["result"]["roll"]["outcome"] == "failure" and "malus" not in entry["result"]
    assert sheet_of(client, gm, thug)["active_effects"] == []
    assert fields(entry, ada) == {"pp": (1, 0, "FAB-100"), "stress": (0, 1, "FAB-100")}


def test_FAB14_corrected_an_impossible_power_spends_nothing(client, table, gm, player):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    gm_patch(
        client, gm, ada, {"powers": ["bolt"], "pp": 1, "pp_max": 1, "attributes": {"intellect": 0}}
    )
    cast = body("power", character_id=ada["id"], power="bolt", pp=1, targets=[thug["id"]])
    before = sheet_of(client, gm, ada)
    refused = post_roll(client, campaign, player, cast)
    assert_refused(refused, "FAB-14")
    assert sheet_of(client, gm, ada) == before


def test_FAB44_corrected_a_triggered_jolt_reaches_the_allies_the_roll_names(
    client, table, gm, player, forced_dice
):
    campaign, ada, bram, thug = table.campaign, table.ada, table.bram, table.thug
    gm_patch(client, gm, ada, {"stress": 3})
    look = body(
        "action",
        character_id=ada["id"],
        attribute="intellect",
        skill="observation",
        allies=[bram["id"]],
    )
    forced_dice.push(2, 2, 2, 2, 2, 1, 3, 3)  # a stress 1: panic
    forced_dice.push(4)  # 4 + 3 = 7: a jolt
    entry = rolled(client, campaign, player, look)
    (panic,) = entry["triggered"]
    assert panic["result"]["code"] == "jolt"
    assert sheet_of(client, gm, bram)["stress"] == 1 and sheet_of(client, gm, thug)["stress"] == 0
    with unchanged(client, gm, campaign, ada, bram):
        for allies, status in (([ada["id"]], 422), (["fab00000-0000-4000-8000-00000000dead"], 404)):
            refused = post_roll(client, campaign, player, {**look, "allies": allies})
            assert_problem(refused, status)
