"""Fabulae sequelae (FAB-50..55), death tests and stabilisation (FAB-51/52), attacks
(FAB-62..68), bursts and ammunition (FAB-65, FAB-71) through the API."""

from __future__ import annotations

import logging
import uuid

import pytest
from pydantic import TypeAdapter

from app.engine.registry import DEFAULT_REGISTRY
from app.models import User
from app.models.typed import api_models
from app.services.roll_batches import RollJob, make_rolls
from tests.api.fabulae.combat import (
    PHYSICAL,
    attack,
    body,
    defend,
    fields,
    lethal,
    shot_at_ada,
    unchanged,
)
from tests.api.fabulae.combat import table as combat_table
from tests.api.helpers import (
    assert_refused,
    committed,
    effect,
    get_entry,
    gm_patch,
    last_seq,
    post_roll,
    rolled,
    sheet_of,
    statements_reading,
    url,
)
from tests.conftest import assert_problem

table = combat_table  # the fixture that sets the table of every test here
ROLL_BODY = TypeAdapter(api_models(DEFAULT_REGISTRY).roll_body)

# --- FAB-50/55: sequela tables ------------------------------------------------------------


def test_FAB50_the_gm_calls_a_physical_sequela_with_weapon_feats_and_butcher(
    client, table, gm, player, forced_dice
):
    campaign, ada = table.campaign, table.ada
    request = body(
        "sequela", character_id=ada["id"], table="physical", weapon_mod=2, feats=1, butcher=True
    )
    with unchanged(client, gm, campaign, ada):
        assert_problem(post_roll(client, campaign, player, request), 403)
    forced_dice.push(5, 4, 2, 3)  # 9 + 2 + 1 + 2 = 14: internal, 2D6 days
    entry = rolled(client, campaign, gm, request)
    result = entry["result"]
    assert result["dice"] == [[5, 4]] and result["modifier"] == 5 and result["score"] == 14
    assert (result["code"], result["duration"]) == ("internal", "5 days")
    assert sheet_of(client, player, ada)["sequelae"][0]["code"] == "internal"


def test_FAB50_FAB90_tough_luck_keeps_the_lower_of_two_rolls(
    client, table, gm, player, forced_dice
):
    campaign, ada = table.campaign, table.ada
    gm_patch(client, gm, ada, {"talents": ["tough_luck"]})
    forced_dice.push(6, 6, 1, 2, 4)  # 12 and 3: keeps 3, stunned 1D6 rounds
    request = body("sequela", character_id=ada["id"], table="physical")
    result = rolled(client, campaign, gm, request)["result"]
    assert result["dice"] == [[6, 6], [1, 2]] and result["score"] == 3
    assert (result["code"], result["duration"]) == ("stunned", "4 rounds")


def test_FAB50_a_crushed_skull_kills(client, table, gm, player, forced_dice):
    campaign, ada = table.campaign, table.ada
    forced_dice.push(6, 6)
    request = body("sequela", character_id=ada["id"], table="physical", weapon_mod=2, feats=6)
    entry = rolled(client, campaign, gm, request)
    assert entry["result"]["code"] == "crushed" and entry["result"]["duration"] == "final"
    assert sheet_of(client, player, ada)["dead"] is True
    with unchanged(client, gm, campaign, ada, table.thug):
        assert_refused(post_roll(client, campaign, gm, attack(table.thug, ada)), "FAB-51")


def test_FAB55_mental_sequela_1D12_and_its_duration_dice(client, table, gm, player, forced_dice):
    campaign, ada = table.campaign, table.ada
    forced_dice.push(9, 1, 2, 3)  # delusion, 3D6 days
    entry = rolled(client, campaign, gm, body("sequela", character_id=ada["id"], table="mental"))
    assert entry["draws"] == [
        {"sides": 12, "face": 9},
        {"sides": 6, "face": 1},
        {"sides": 6, "face": 2},
        {"sides": 6, "face": 3},
    ]
    assert (entry["result"]["code"], entry["result"]["duration"]) == ("delusion", "6 days")
    forced_dice.push(2)
    white = rolled(client, campaign, gm, body("sequela", character_id=ada["id"], table="mental"))
    assert white["result"]["duration"] == "permanent" and len(white["draws"]) == 1
    assert [s["code"] for s in sheet_of(client, player, ada)["sequelae"]] == [
        "delusion",
        "white_hair",
    ]


# --- FAB-51/52: death tests and stabilisation ------------------------------------------------


def test_FAB51_death_test_reprieve_then_death(client, table, gm, player, forced_dice):
    campaign, ada = table.campaign, table.ada
    gm_patch(client, gm, ada, {"sequelae": [lethal("impaled", "immediate")]})
    test = body("death_test", character_id=ada["id"], sequela=0)
    forced_dice.push(6, 2, 2, 2, 2)  # Physique 3 + Résistance 2
    survived = rolled(client, campaign, player, test)
    assert survived["result"]["survived"] is True and survived["effects"] == []
    assert survived["result"]["pool"]["pool"] == 5
    forced_dice.push(2, 2, 2, 2, 2)
    died = rolled(client, campaign, player, test)
    assert died["result"]["survived"] is False
    assert died["effects"] == [effect(ada, "dead", False, True, "FAB-51")]
    with unchanged(client, gm, campaign, ada):
        assert_refused(post_roll(client, campaign, player, test), "FAB-51")


def test_FAB51_FAB90_iron_will_adds_two_dice(client, table, gm, player, forced_dice):
    campaign, ada = table.campaign, table.ada
    gm_patch(client, gm, ada, {"talents": ["iron_will"], "sequelae": [lethal("spine", "round")]})
    forced_dice.push(2, 2, 2, 2, 2, 2, 6)
    entry = rolled(client, campaign, player, body("death_test", character_id=ada["id"], sequela=0))
    assert entry["result"]["pool"]["pool"] == 7
    assert entry["result"]["pool"]["modifier_dice"] == [{"source": "iron_will", "dice": 2}]
    assert entry["result"]["survived"] is True


def test_FAB51_FAB52_death_test_refusals(client, table, gm, player):
    campaign, ada = table.campaign, table.ada
    bruise = {"kind": "physical", "code": "bruise", "duration": "2 rounds"}
    gm_patch(client, gm, ada, {"sequelae": [bruise, lethal("bleeding", "quart", True)]})
    with unchanged(client, gm, campaign, ada):
        for index, rule in ((0, "FAB-51"), (1, "FAB-52")):
            test = body("death_test", character_id=ada["id"], sequela=index)
            assert_refused(post_roll(client, campaign, player, test), rule)
        test = body("death_test", character_id=ada["id"], sequela=5)
        assert_problem(post_roll(client, campaign, player, test), 422)
        bram_test = body("death_test", character_id=table.bram["id"], sequela=0)
        assert_problem(post_roll(client, campaign, player, bram_test), 403)


def test_FAB52_an_ally_stabilises_step_by_step(
    client, table, gm, player, other_player, forced_dice
):
    campaign, ada, bram = table.campaign, table.ada, table.bram
    gm_patch(client, gm, ada, {"sequelae": [lethal("spine", "round")]})
    care = body("stabilize", healer_id=bram["id"], character_id=ada["id"], sequela=0)
    forced_dice.push(2, 2, 2, 2, 2)  # Intellect 3 + Soin 2: failure
    failed = rolled(client, campaign, other_player, care)
    assert failed["result"]["outcome"] == "failure" and failed["effects"] == []
    forced_dice.push(6, 2, 2, 2, 2)
    tour = rolled(client, campaign, other_player, care)
    assert (tour["result"]["delay"], tour["result"]["stabilised"]) == ("tour", False)
    forced_dice.push(6, 2, 2, 2, 2)
    quart = rolled(client, campaign, other_player, care)
    assert (quart["result"]["delay"], quart["result"]["stabilised"]) == ("quart", True)
    assert sheet_of(client, player, ada)["sequelae"][0]["stabilised"] is True
    with unchanged(client, gm, campaign, ada):
        assert_refused(post_roll(client, campaign, other_player, care), "FAB-52")
        test = body("death_test", character_id=ada["id"], sequela=0)
        assert_refused(post_roll(client, campaign, player, test), "FAB-52")


def test_FAB52_FAB90_medic_adds_a_die_and_nobody_stabilises_themselves(
    client, table, gm, player, other_player, forced_dice
):
    campaign, ada, bram = table.campaign, table.ada, table.bram
    gm_patch(client, gm, ada, {"sequelae": [lethal("impaled", "immediate")]})
    gm_patch(client, gm, bram, {"talents": ["medic"]})
    with unchanged(client, gm, campaign, ada):
        own = body("stabilize", healer_id=ada["id"], character_id=ada["id"], sequela=0)
        assert_refused(post_roll(client, campaign, player, own), "FAB-52")
    forced_dice.push(2, 2, 2, 2, 2, 6)
    care = body("stabilize", healer_id=bram["id"], character_id=ada["id"], sequela=0)
    entry = rolled(client, campaign, other_player, care)
    assert entry["result"]["pool"]["modifier_dice"] == [{"source": "medic", "dice": 1}]
    assert entry["result"]["delay"] == "round"


# --- FAB-62..68: attacks ----------------------------------------------------------------------


def test_FAB62_melee_waits_for_the_gms_parry_then_lands_on_the_npc(
    client, table, gm, player, forced_dice
):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    gm_patch(client, gm, ada, {"weapons": [{"id": "knife"}]})
    waiting = rolled(
        client, campaign, player, attack(ada, thug, "knife", situation=["target_on_ground"])
    )
    # FAB-62: the defender chooses first; no die is drawn until the GM answers for Thug.
    assert waiting["draws"] == [] and waiting["effects"] == []
    assert waiting["result"]["awaiting"] == {
        "choice": "defense",
        "character_id": thug["id"],
        "answer": "fabulae.defend",
        "rule": "FAB-62",
    }
    # Ada: Physique 3 + Combat 2 + knife 1 + target on the ground 2 = 8 dice;
    # Thug parries: Physique 3 + Combat 2 = 5 dice.
    forced_dice.push(6, 6, 6, 2, 2, 2, 2, 2)
    forced_dice.push(6, 2, 2, 2, 2)
    entry = rolled(client, campaign, gm, defend(waiting, thug, "parry"))
    assert entry["follows"] == waiting["seq"] and entry["character_id"] == thug["id"]
    (hit,) = entry["result"]["attack"]["attacks"]
    assert hit["roll"]["active"]["pool"]["pool"] == 8
    assert hit["roll"]["passive"]["dice"] == [6, 2, 2, 2, 2]
    assert (hit["roll"]["net"], hit["roll"]["feats"], hit["damage"]) == (2, 1, 3)
    # FAIR-18: Ada's player reads Thug's change committed; the GM reads it whole.
    (seen,) = get_entry(client, campaign, player, entry["seq"])["effects"]
    assert committed(seen["before"]) and committed(seen["after"])
    assert entry["effects"] == [effect(thug, "states", [], PHYSICAL, "FAB-68")]
    assert sheet_of(client, gm, thug)["states"] == PHYSICAL


def test_FAB62_a_failed_attack_deals_nothing(client, table, gm, player, forced_dice):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    gm_patch(client, gm, ada, {"weapons": [{"id": "knife"}]})
    waiting = rolled(client, campaign, player, attack(ada, thug, "knife"))
    forced_dice.push(6, 2, 2, 2, 2, 2, 6, 2, 3, 4)  # 1 six each: Thug dodges (3 + 1)
    entry = rolled(client, campaign, gm, defend(waiting, thug, "dodge"))
    assert entry["result"]["attack"]["attacks"][0]["hit"] is False and entry["effects"] == []
    # FAIR-18: the NPC's pool is the GM's to read.
    seen = get_entry(client, campaign, player, entry["seq"])
    assert committed(seen["result"]["attack"]["attacks"][0]["roll"]["passive"]["pool"])
    assert entry["result"]["attack"]["attacks"][0]["roll"]["passive"]["pool"]["skill"] == 1


def test_FAB62_FAB64_refused_inputs(client, table, gm, player):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    cases = [
        attack(thug, ada, defense="parry", visibility="gm"),  # a shot is not parried
        attack(thug, ada, "knife", situation=["medium_range"]),  # a ranged factor in melee
        attack(thug, ada, situation=["sneak_attack"]),
        attack(thug, ada, "knife", aimed=True),
        attack(thug, ada, "sabre"),  # not carried
        attack(thug, ada, "revolver", mode="melee"),
        attack(thug, ada, snap_shot=True),  # without the talent
        attack(thug, thug),
    ]
    with unchanged(client, gm, campaign, ada, thug):
        for request in cases:
            assert_problem(post_roll(client, campaign, gm, request), 422)
        assert_problem(post_roll(client, campaign, player, attack(thug, ada)), 403)
        assert_problem(post_roll(client, campaign, gm, attack(thug, ada, cover=2)), 422)


def test_FAB64_aim_and_ranged_factors_in_the_pool(client, table, gm, player, forced_dice):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    gm_patch(client, gm, ada, {"weapons": [{"id": "revolver"}]})
    forced_dice.push(*[2] * 10)  # 3 + 2 + revolver 2 − medium 1 + large 2 + aimed 2
    request = attack(ada, thug, situation=["medium_range", "large_target"], aimed=True)
    entry = rolled(client, campaign, player, request)
    pool = entry["result"]["attacks"][0]["roll"]["active"]["pool"]
    assert pool["pool"] == 10
    assert pool["modifier_dice"] == [
        {"source": "medium_range", "dice": -1},
        {"source": "large_target", "dice": 2},
        {"source": "weapon revolver", "dice": 2},
        {"source": "aimed", "dice": 2},
    ]
    assert sheet_of(client, player, ada)["weapons"] == [{"id": "revolver", "ammo": 5}]


def test_FAB64_contact_with_a_revolver_adds_three(client, table, gm, forced_dice):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    forced_dice.push(*[2] * 10)
    request = attack(thug, ada, situation=["contact_short_weapon"])
    entry = rolled(client, campaign, gm, request)
    assert entry["result"]["attacks"][0]["roll"]["active"]["pool"]["pool"] == 10


def test_FAB66_FAB67_mail_and_cover_absorb_everything_and_the_mail_holds(
    client, table, gm, player, forced_dice
):
    campaign, ada = table.campaign, table.ada
    gm_patch(client, gm, ada, {"armor": {"id": "guard_mail", "value": 2}})
    forced_dice.push(6, 2, 2, 2, 2, 2, 2)  # 7 dice, 2 damage
    forced_dice.push(6, 6, 2, 2, 2)  # mail 2 + crates 3
    entry = rolled(client, campaign, gm, attack(table.thug, ada, cover=3))
    (hit,) = entry["result"]["attacks"]
    assert hit["through"] == 0 and hit["protection"]["absorbed"] == 2
    assert "pending_states" not in entry["result"]
    assert fields(entry, ada) == {}
    assert sheet_of(client, player, ada)["armor"] == {"id": "guard_mail", "value": 2}


def test_FAB34_FAB68_whether_a_players_character_absorbs_is_its_players_choice(
    client, table, gm, player, forced_dice
):
    campaign, ada = table.campaign, table.ada
    # The GM's public shot may not take Ada's Absorb from her player (FAB-34).
    refused = post_roll(client, campaign, gm, attack(table.thug, ada, states="now"))
    assert_problem(refused, 403, "Ada's player")
    forced_dice.push(6, 6, 2, 2, 2, 2, 2)  # 3 damage, no armor
    entry = rolled(client, campaign, gm, attack(table.thug, ada))
    assert len(entry["result"]["pending_states"]) == 3
    assert sheet_of(client, player, ada)["states"] == []
    # A hidden roll's states are the GM's to land at once, held for the GM to apply.
    forced_dice.push(6, 6, 2, 2, 2, 2, 2)
    secret = rolled(client, campaign, gm, attack(table.thug, ada, states="now", visibility="gm"))
    assert [s["state"] for s in secret["result"]["states_checked"]] == PHYSICAL


def test_FAB21_FAB50_FAB75_maluses_reach_the_attack_and_the_dodge(
    client, table, gm, player, forced_dice
):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    internal = lethal("internal", "tour")
    gm_patch(client, gm, thug, {"states": ["meurtri"], "sequelae": [internal]})
    gm_patch(client, gm, ada, {"backpack": True})
    # Thug: 3 + 2 + knife 1 − Meurtri 1 − internal 2 = 3; Ada dodges: 3 + 0 − backpack 2 = 1.
    waiting = rolled(client, campaign, gm, attack(thug, ada, "knife"))
    forced_dice.push(2, 2, 2, 2)
    entry = rolled(client, campaign, player, defend(waiting, ada, "dodge"))  # FAB-62
    entry = get_entry(client, campaign, gm, entry["seq"])  # Thug's pool is the GM's to read
    roll = entry["result"]["attack"]["attacks"][0]["roll"]
    assert roll["active"]["pool"]["pool"] == 3
    assert roll["active"]["pool"]["situation_dice"] == [{"source": "sequela internal", "dice": -2}]
    assert roll["passive"]["pool"]["situation_dice"] == [
        {"source": "backpack in combat", "dice": -2}
    ]


def test_FAB42_an_attacker_who_panics_rolls_on_the_panic_table(
    client, table, gm, player, forced_dice
):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    gm_patch(client, gm, thug, {"stress": 1})
    forced_dice.push(6, 6, 2, 2, 2, 2, 2, 1)  # the stress die shows 1
    forced_dice.push(3)  # the panic roll: 3 + 1 stress = 4, cool
    entry = rolled(client, campaign, gm, attack(thug, ada))
    assert entry["result"]["panic"] is True
    assert entry["result"]["attacks"][0]["hit"] is False
    assert [t["kind"] for t in entry["triggered"]] == ["fabulae.panic"]
    assert entry["triggered"][0]["follows"] == entry["seq"]
    assert entry["triggered"][0]["result"]["code"] == "cool"
    assert sheet_of(client, player, ada)["states"] == []


@pytest.mark.parametrize("kind", ["grapple", "break_free", "danger", "power", "parry"])
def test_FAB42_every_stress_1_sets_off_a_panic_roll(client, table, gm, player, forced_dice, kind):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    gm_patch(client, gm, ada, {"stress": 1})
    gm_patch(client, gm, thug, {"stress": 1})
    if kind == "grapple":
        # FAB-62: the grapple waits for Ada's player, whose answer rolls it.
        grapple = body("grapple", attacker_id=thug["id"], target_id=ada["id"])
        forced_dice.push(2, 2, 2, 2, 2, 1)
        request = defend(rolled(client, campaign, gm, grapple), ada, "none")
        caller = player
    elif kind == "break_free":
        gm_patch(client, gm, ada, {"grappled_by": thug["id"]})
        forced_dice.push(2, 2, 2, 2, 2, 1, 2, 2, 2, 2, 2, 2)
        request = body("break_free", character_id=ada["id"])
        caller = player
    elif kind == "danger":
        forced_dice.push(2, 2, 2, 2, 2, 1)
        request = body("danger", character_id=ada["id"], danger="cold", states="now")
        caller = gm
    elif kind == "power":
        gm_patch(client, gm, ada, {"powers": ["bolt"], "pp": 1, "pp_max": 1})
        # FAB-100 (corrected): the roll counts the stress its PP add: two stress dice.
        forced_dice.push(2, 2, 2, 2, 1)
        request = body("power", character_id=ada["id"], power="bolt", pp=1, targets=[thug["id"]])
        caller = player
    else:
        gm_patch(client, gm, thug, {"stress": 0})
        waiting = rolled(client, campaign, gm, attack(thug, ada, "knife"))
        forced_dice.push(2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1)
        request = defend(waiting, ada, "parry")  # FAB-62: Ada's player parries
        caller = player
    # The panic roll: 3 + 1 stress = 4, cool (the caster's 2 + 2 stress).
    forced_dice.push(2 if kind == "power" else 3)
    entry = rolled(client, campaign, caller, request)
    assert [t["kind"] for t in entry["triggered"]] == ["fabulae.panic"], entry["result"]
    assert entry["triggered"][0]["follows"] == entry["seq"]
    assert entry["triggered"][0]["result"]["code"] == "cool"


def test_FAB14_an_impossible_attack_is_refused_and_recorded(client, table, gm):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    chains = [{"source": "chains", "dice": -6}]
    situation = ["medium_range", "small_target"]
    request = attack(thug, ada, situation=situation, modifiers=chains)  # 7 − 9
    before = last_seq(client, campaign, gm)
    response = post_roll(client, campaign, gm, request)
    assert_refused(response, "FAB-14")
    assert last_seq(client, campaign, gm) == before + 1
    assert sheet_of(client, gm, thug)["weapons"][0] == {"id": "revolver", "ammo": 6}


def test_FAB14_FAB51_a_refused_impossible_death_test_changes_nothing(client, table, gm, player):
    campaign, ada = table.campaign, table.ada
    gm_patch(
        client,
        gm,
        ada,
        {
            "states": ["meurtri", "blesse", "apeure", "demoralise"],
            "sequelae": [lethal("internal", "tour")],
        },
    )  # Physique 3 + Résistance 2 − 4 states − 2 internal = −1
    response = post_roll(
        client, campaign, player, body("death_test", character_id=ada["id"], sequela=0)
    )
    assert_refused(response, "FAB-14")
    assert sheet_of(client, player, ada)["dead"] is False


# --- FAB-65: bursts, FAB-71: ammunition -------------------------------------------------------


@pytest.mark.parametrize("master", [False, True])
def test_FAB65_a_burst_rolls_its_ammunition_and_stresses_the_shooter(
    client, table, gm, player, forced_dice, master
):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    talents = ["burst_master"] if master else []
    gm_patch(client, gm, thug, {"weapons": [{"id": "repeating_rifle"}], "talents": talents})
    forced_dice.push(5)  # 1D20 for three attacks
    forced_dice.push(*[2] * 21)  # three attacks of 7 dice, no six
    request = attack(thug, ada, "repeating_rifle", burst=3, burst_fire=True)
    entry = rolled(client, campaign, gm, request)
    assert entry["draws"][0] == {"sides": 20, "face": 5}
    assert entry["result"]["ammo"] == {"die": 20, "spent": 5, "left": 3}
    assert len(entry["result"]["attacks"]) == 3
    sheet = sheet_of(client, gm, thug)
    assert sheet["weapons"] == [{"id": "repeating_rifle", "ammo": 3}]
    assert sheet["stress"] == (0 if master else 1)
    assert ("stress_gained" in entry["result"]) is (not master)


def test_FAB65_FAB71_burst_and_ammunition_refusals(client, table, gm):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    with unchanged(client, gm, campaign, ada, thug):
        request = attack(thug, ada, burst=2, burst_fire=True)  # a revolver
        assert_problem(post_roll(client, campaign, gm, request), 422, "FAB-65")
    gm_patch(client, gm, thug, {"weapons": [{"id": "revolver", "ammo": 0}]})
    with unchanged(client, gm, campaign, ada, thug):
        assert_refused(post_roll(client, campaign, gm, attack(thug, ada)), "FAB-71")


def test_FAB65_a_burst_with_a_wrong_talent_is_refused_before_its_dice(client, table, gm, caplog):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    gm_patch(client, gm, thug, {"weapons": [{"id": "repeating_rifle"}], "talents": ["all_in"]})
    request = attack(thug, ada, "repeating_rifle", burst=2, burst_fire=True, talents=["all_in"])
    with caplog.at_level(logging.ERROR, logger="nocturne.rules"):
        response = post_roll(client, campaign, gm, request)
    body_ = assert_problem(response, 422)
    assert not [r for r in caplog.records if "refused after drawing dice" in r.getMessage()]
    assert "all_in" in body_["detail"]


@pytest.mark.parametrize(("quick", "action"), [(False, "fast"), (True, "free")])
def test_FAB71_FAB90_reload(client, table, gm, player, quick, action):
    campaign, ada = table.campaign, table.ada
    talents = ["quick_reload"] if quick else ["beast_friend"]
    gm_patch(client, gm, ada, {"weapons": [{"id": "revolver", "ammo": 2}], "talents": talents})
    reload = body("reload", character_id=ada["id"], weapon="revolver")
    entry = rolled(client, campaign, player, reload)
    assert entry["result"] == {"weapon": "revolver", "ammo": 6, "action": action}
    assert entry["draws"] == []
    assert sheet_of(client, player, ada)["weapons"] == [{"id": "revolver", "ammo": 6}]
    with unchanged(client, gm, campaign, ada):
        assert_refused(post_roll(client, campaign, player, reload), "FAB-71")
        knife = body("reload", character_id=ada["id"], weapon="knife")
        assert_problem(post_roll(client, campaign, player, knife), 422)


@pytest.mark.parametrize("path", ["/odds", "/rolls"])
def test_an_attack_reads_its_attacker_and_target_in_one_query(path, client, table, gm, session):
    """The characters a body names are read together (issue 21's odds latency, issue 23's
    rolls): the attacker and the target in one statement, not one each. Odds, read without
    the lock, read them with the campaign and the caller's membership (issue 23)."""
    with (
        statements_reading(session, "character") as reads,
        statements_reading(session, "campaign_member") as memberships,
    ):
        response = client.post(
            url(table.campaign, path), json=shot_at_ada(table), headers=gm.headers
        )
    assert response.status_code in (200, 201), response.text
    assert len(reads) == 1, "\n\n".join(reads)
    assert "IN (" in reads[0] or "IN (__[POSTCOMPILE" in reads[0], reads[0]
    if path == "/odds":
        assert memberships == reads, "\n\n".join(memberships)


def test_attacks_in_one_batch_read_their_attackers_and_targets_in_one_query(table, gm, session):
    """Issue 23: a batch of rolls reads the characters its rolls name at once; each attack
    then finds its attacker and target in the session, not in a query of its own."""
    gm_user = session.get(User, uuid.UUID(gm.id))
    jobs = [
        RollJob(
            session,
            gm_user,
            uuid.UUID(table.campaign["id"]),
            ROLL_BODY.validate_python(shot),
            "en",
        )
        for shot in (shot_at_ada(table), attack(table.thug, table.bram, situation=["medium_range"]))
    ]
    with statements_reading(session, "character") as reads:
        answers = make_rolls(DEFAULT_REGISTRY)(jobs)
    assert [getattr(answer, "status_code", answer) for answer in answers] == [201, 201]
    assert len(reads) == 1, "\n\n".join(reads)
