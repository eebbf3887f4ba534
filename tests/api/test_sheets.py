"""Character sheet validation through the API: JDR Express (Dracula, Cthulhu), Fabulae, Vampire.

Every refusal is a 422 problem+json whose detail names the field and whose `errors` carry
its `loc`; a refused edit leaves the sheet as it was.
"""

import copy
from datetime import UTC, datetime

import pytest

from tests.conftest import API, SHEETS, assert_problem

DRA, CTH, FAB, VAM = "jdr-express-dracula", "jdr-express-cthulhu", "fabulae-tenebris", "vampire"


def merged(base, patch):
    """JSON merge patch (RFC 7396) on a copy: the same patch serves creation and PATCH."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = copy.deepcopy(base) if isinstance(base, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merged(result.get(key), value)
    return result


def instant(value):
    """A timestamp from the API; naive ones (SQLite hands them back) are UTC."""
    moment = datetime.fromisoformat(value)
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def refused(response, loc, *fragments):
    """A 422 whose detail names the field (dotted loc) and each fragment, with loc in errors."""
    body = assert_problem(response, 422, ".".join(loc), *fragments)
    assert loc in [error["loc"] for error in body["errors"]], body["errors"]
    return body


def accepted(response, status=201):
    assert response.status_code == status, response.text
    return response.json()["sheet"]


@pytest.fixture
def post(client):
    def _post(campaign, caller, sheet, kind="pc"):
        body = {"name": "Mina", "kind": kind, "sheet": sheet}
        url = f"{API}/campaigns/{campaign['id']}/characters"
        return client.post(url, json=body, headers=caller.headers)

    return _post


@pytest.fixture
def gm_create(post, gm, make_campaign):
    """The GM creates a character in a new campaign, its sheet the system's sheet patched."""

    def _create(system, patch=None, *, kind="pc", options=None):
        campaign = make_campaign(system, options=options)
        return post(campaign, gm, merged(SHEETS[system], patch or {}), kind)

    return _create


@pytest.fixture
def patch_sheet(client):
    def _patch(character, caller, sheet_patch):
        url = f"{API}/characters/{character['id']}"
        return client.patch(url, json={"sheet": sheet_patch}, headers=caller.headers)

    return _patch


@pytest.fixture
def gm_character(gm, make_campaign, make_character):
    """A PC made by the GM, ready to be edited after creation."""
    return lambda system, **kw: make_character(make_campaign(system, **kw), gm)


LE5 = "less than or equal to 5"
GE0, GE1 = "greater than or equal to 0", "greater than or equal to 1"

# ---------------------------------------------------------------- JDR Express


@pytest.mark.parametrize("system", [DRA, CTH])
@pytest.mark.parametrize(("trait", "value", "fragment"), [("mental", -1, GE0), ("social", 6, LE5)])
def test_JDR_1_trait_outside_0_5_is_refused(gm_create, system, trait, value, fragment):
    refused(gm_create(system, {"traits": {trait: value}}), ["sheet", "traits", trait], fragment)


@pytest.mark.parametrize("system", [DRA, CTH])
def test_JDR_1_trait_bounds_are_accepted(gm_create, system):
    traits = {"mental": 0, "physique": 5, "social": 5}
    assert accepted(gm_create(system, {"traits": traits}))["traits"] == traits


def test_JDR_1_missing_trait_is_refused(gm_create):
    response = gm_create(DRA, {"traits": {"social": None}})
    refused(response, ["sheet", "traits", "social"], "Field required")


@pytest.mark.parametrize(
    ("talent", "field", "fragment"),
    [
        ({"name": "Escrime", "bonus": 0}, "bonus", GE1),
        ({"name": "Escrime", "bonus": 4}, "bonus", "less than or equal to 3"),
        ({"name": "", "bonus": 1}, "name", "at least 1 character"),
        ({"name": "x" * 61, "bonus": 1}, "name", "at most 60 characters"),
    ],
)
def test_JDR_1_talent_bonus_1_3_and_name_length(gm_create, talent, field, fragment):
    refused(gm_create(CTH, {"talents": [talent]}), ["sheet", "talents", "0", field], fragment)


def test_JDR_1_talent_bounds_are_accepted(gm_create):
    talents = [{"name": "x" * 60, "bonus": 3}, {"name": "Y", "bonus": 1}]
    assert accepted(gm_create(DRA, {"talents": talents}))["talents"] == talents


@pytest.mark.parametrize(("value", "fragment"), [(-1, GE0), (6, LE5)])
def test_JDR_2_defense_bonus_0_5(gm_create, value, fragment):
    refused(gm_create(DRA, {"defense_bonus": value}), ["sheet", "defense_bonus"], fragment)
    bound = max(0, min(5, value))
    assert accepted(gm_create(CTH, {"defense_bonus": bound}))["defense_bonus"] == bound


def test_JDR_3_wound_severity_must_be_known(gm_create):
    wounds = [{"severity": "serious", "note": "morsure"}, {"severity": "mortal"}]
    response = gm_create(DRA, {"wounds": wounds})
    refused(response, ["sheet", "wounds", "1", "severity"], "'light', 'serious' or 'critical'")
    sheet = accepted(gm_create(DRA, {"wounds": wounds[:1]}))
    assert sheet["wounds"] == [{"severity": "serious", "note": "morsure", "cared": False}]


def test_JDR_4_faith_must_be_believer_or_atheist(gm_create):
    refused(gm_create(DRA, {"faith": "agnostic"}), ["sheet", "faith"], "'believer' or 'atheist'")
    assert accepted(gm_create(DRA, {"faith": "atheist"}))["faith"] == "atheist"


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("faith", "believer"),
        ("sacred_object", "croix"),
        ("talisman", "ready"),
        ("instructed_by", "6f1c2a1e-0000-4000-8000-000000000000"),
    ],
)
def test_JDR_4_dracula_fields_are_refused_on_a_cthulhu_sheet(gm_create, field, value):
    refused(gm_create(CTH, {field: value}), ["sheet", field], "Extra inputs are not permitted")


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("marks", [{"description": "Le regard", "counted": True, "scene": 1}]),
        ("effleurement", "spent"),
    ],
)
def test_JDR_5_cthulhu_fields_are_refused_on_a_dracula_sheet(gm_create, field, value):
    refused(gm_create(DRA, {field: value}), ["sheet", field], "Extra inputs are not permitted")
    assert accepted(gm_create(CTH, {field: value}))[field] == value


@pytest.mark.parametrize(
    ("field", "good", "bad", "fragment"),
    [
        ("joker", "spent", "used", "'ready' or 'spent'"),
        ("status", "npc", "dead", "'active' or 'npc'"),
    ],
)
def test_JDR_6_joker_and_JDR_7_status_enums(gm_create, field, good, bad, fragment):
    refused(gm_create(CTH, {field: bad}), ["sheet", field], fragment)
    assert accepted(gm_create(CTH, {field: good}))[field] == good


# ---------------------------------------------------------------- unknown keys, every system


@pytest.mark.parametrize(
    ("system", "patch", "loc"),
    [
        (DRA, {"sanity": 3}, ["sheet", "sanity"]),
        (CTH, {"traits": {"charisma": 2}}, ["sheet", "traits", "charisma"]),
        (DRA, {"talents": [{"name": "L", "bonus": 1, "x": 1}]}, ["sheet", "talents", "0", "x"]),
        (FAB, {"mana": 3}, ["sheet", "mana"]),
        (FAB, {"skills": {"escrime": 1}}, ["sheet", "skills", "escrime"]),
        (VAM, {"humanity": 7}, ["sheet", "humanity"]),
        (VAM, {"willpower": {"temporary": 2}}, ["sheet", "willpower", "temporary"]),
    ],
)
def test_unknown_keys_are_refused(gm_create, system, patch, loc):
    refused(gm_create(system, patch), loc, "Extra inputs are not permitted")


# ---------------------------------------------------------------- Fabulae Tenebris


@pytest.fixture
def fab_player(player, post, make_campaign):
    """A player creates their own Fabulae PC (the creation budget applies)."""
    campaign = make_campaign(FAB, players=(player,))
    return lambda patch: post(campaign, player, merged(SHEETS[FAB], patch))


def test_FAB_1_creation_attributes_must_total_12(fab_player):
    response = fab_player({"attributes": {"physique": 4}})
    refused(response, ["sheet"], "attributes must total 12 points at creation, got 13")


@pytest.mark.parametrize(
    ("attributes", "fragment"),
    [
        ({"physique": 1, "habilete": 5}, "attribute physique must be 2..5 at creation, got 1"),
        ({"physique": 6, "habilete": 2, "intellect": 2, "empathie": 2}, "physique must be 2..5"),
    ],
)
def test_FAB_1_creation_attribute_must_be_2_5(fab_player, attributes, fragment):
    refused(fab_player({"attributes": attributes}), ["sheet"], fragment)


def test_FAB_1_creation_attribute_bounds_are_accepted(fab_player):
    attributes = {"physique": 2, "habilete": 5, "intellect": 3, "empathie": 2}
    assert accepted(fab_player({"attributes": attributes}))["attributes"] == attributes


@pytest.mark.parametrize("value", [0, 6])
def test_FAB_1_after_creation_attributes_range_0_6(gm, gm_character, patch_sheet, value):
    character = gm_character(FAB)
    response = patch_sheet(character, gm, {"attributes": {"physique": value}})
    assert accepted(response, 200)["attributes"]["physique"] == value
    response = patch_sheet(character, gm, {"attributes": {"physique": 7}})
    refused(response, ["sheet", "attributes", "physique"], "less than or equal to 6")


def test_FAB_3_creation_skills_must_total_10(fab_player):
    refused(fab_player({"skills": {"athletisme": 1}}), ["sheet"], "skills must total 10", "got 11")


def test_FAB_3_creation_skill_must_be_0_3(fab_player):
    response = fab_player({"skills": {"combat": 4, "tir": 1}})
    refused(response, ["sheet"], "skill combat must be 0..3 at creation, got 4")


def test_FAB_3_after_creation_skills_range_0_5(gm, gm_character, patch_sheet):
    character = gm_character(FAB)
    sheet = accepted(patch_sheet(character, gm, {"skills": {"combat": 5}}), 200)
    assert sheet["skills"]["combat"] == 5
    response = patch_sheet(character, gm, {"skills": {"combat": 6}})
    refused(response, ["sheet", "skills", "combat"], LE5)


@pytest.fixture
def fab_caster(player, post, make_campaign):
    """A player creates their own Fabulae PC in a campaign that allows powers (FAB-100)."""
    campaign = make_campaign(FAB, players=(player,), options={"powers_allowed": True})
    return lambda patch: post(campaign, player, merged(SHEETS[FAB], patch))


@pytest.mark.parametrize(
    ("talents", "powers"),
    [([], []), (["cool_head", "medic"], []), (["cool_head"], ["bolt", "calm"]), ([], ["bolt"] * 2)],
)
def test_FAB_5_corrected_a_new_pc_takes_a_talent_and_or_a_power(fab_caster, talents, powers):
    response = fab_caster({"talents": talents, "powers": powers})
    refused(
        response,
        ["sheet"],
        "one starting talent, or one power, or both",
        f"got {len(talents)} talent(s) and {len(powers)} power(s)",
    )


@pytest.mark.parametrize(
    ("talents", "powers"), [(["cool_head"], []), ([], ["bolt"]), (["cool_head"], ["bolt"])]
)
def test_FAB_5_corrected_one_talent_one_power_or_both_are_accepted(fab_caster, talents, powers):
    sheet = accepted(fab_caster({"talents": talents, "powers": powers}))
    assert (sheet["talents"], sheet["powers"]) == (talents, powers)


def test_FAB_5_gm_npcs_are_exempt_from_the_creation_budget(gm_create):
    patch = {
        "attributes": {"physique": 6, "habilete": 6, "intellect": 0, "empathie": 6},
        "skills": {"combat": 5, "tir": 5},
        "talents": [],
    }
    assert accepted(gm_create(FAB, patch, kind="npc"))["attributes"]["physique"] == 6
    # A PC is not exempt, even when the GM makes it.
    refused(gm_create(FAB, patch), ["sheet"], "FAB-1", "FAB-3", "FAB-5")


def test_FAB_5_powers_need_the_campaign_option(gm_create):
    powers = {"powers": ["bolt"], "pp_max": 2, "pp": 2}
    refused(gm_create(FAB, powers), ["sheet"], "does not allow powers", "powers_allowed")
    sheet = accepted(gm_create(FAB, powers, options={"powers_allowed": True}))
    assert (sheet["powers"], sheet["pp"], sheet["pp_max"]) == (["bolt"], 2, 2)


def test_FAB_5_unknown_power_is_refused(gm_create):
    response = gm_create(FAB, {"powers": ["fireball"]}, options={"powers_allowed": True})
    refused(response, ["sheet", "powers", "0"], "unknown power 'fireball'")


def test_FAB_5_pp_cannot_exceed_pp_max(gm_create):
    refused(gm_create(FAB, {"pp": 3, "pp_max": 2}), ["sheet"], "pp (3) cannot exceed pp_max (2)")


@pytest.mark.parametrize(("value", "fragment"), [(-1, GE0), (101, "less than or equal to 100")])
def test_FAB_76_crowns_0_100(fab_player, value, fragment):
    refused(fab_player({"crowns": value}), ["sheet", "crowns"], fragment)
    assert accepted(fab_player({"crowns": 100}))["crowns"] == 100


@pytest.mark.parametrize(
    ("armor", "loc", "fragment"),
    [
        ({"id": "mithril", "value": 1}, ["sheet", "armor", "id"], "'leather_coat'"),
        ({"id": "leather_coat", "value": 2}, ["sheet", "armor"], "base value of 1, got 2"),
        ({"id": "guard_mail", "value": 3}, ["sheet", "armor"], "base value of 2, got 3"),
    ],
)
def test_FAB_72_armor_id_and_value_within_base(gm_create, armor, loc, fragment):
    refused(gm_create(FAB, {"armor": armor}), loc, fragment)
    worn = {"id": "factory_plate", "value": 4}  # at its base value
    assert accepted(gm_create(FAB, {"armor": worn}))["armor"] == worn


@pytest.mark.parametrize(
    ("weapon", "loc", "fragment"),
    [
        ({"id": "lightsaber"}, ["sheet", "weapons", "0", "id"], "'revolver'"),
        ({"id": "revolver", "ammo": 7}, ["sheet", "weapons", "0"], "holds at most 6 rounds"),
        ({"id": "knife", "ammo": 1}, ["sheet", "weapons", "0"], "takes no ammunition"),
    ],
)
def test_FAB_71_weapon_ids_and_ammo(gm_create, weapon, loc, fragment):
    refused(gm_create(FAB, {"weapons": [weapon]}), loc, fragment)


def test_FAB_71_firearm_is_loaded_to_capacity_by_default(gm_create):
    weapons = [{"id": "revolver"}, {"id": "shotgun", "ammo": 1}, {"id": "sabre"}]
    assert accepted(gm_create(FAB, {"weapons": weapons}))["weapons"] == [
        {"id": "revolver", "ammo": 6},
        {"id": "shotgun", "ammo": 1},
        {"id": "sabre", "ammo": None},
    ]


def rope(count):
    return {"name": "corde", "count": count}


@pytest.mark.parametrize(
    ("patch", "ok"),
    [
        ({"inventory": [rope(6)]}, True),  # Physique 3: capacity 6
        ({"inventory": [rope(7)]}, False),
        ({"backpack": True, "inventory": [rope(12)]}, True),
        ({"backpack": True, "inventory": [rope(13)]}, False),
        ({"inventory": [rope(6), {"name": "montre", "count": 50, "tiny": True}]}, True),
    ],
)
def test_FAB_75_inventory_capacity_is_twice_physique(fab_player, patch, ok):
    response = fab_player(patch)
    if ok:
        assert accepted(response)["inventory"][0]["count"] == patch["inventory"][0]["count"]
    else:
        capacity = 12 if patch.get("backpack") else 6
        refused(response, ["sheet"], f"capacity is {capacity}", "2 × Physique")


@pytest.mark.parametrize("patch", [{"talents": ["extra_box"]}, {"extra_box_track": "mental"}])
def test_FAB_22_extra_box_track_exactly_with_the_talent(fab_player, patch):
    refused(fab_player(patch), ["sheet"], "extra_box_track must be set exactly when")
    sheet = accepted(fab_player({"talents": ["extra_box"], "extra_box_track": "mental"}))
    assert sheet["extra_box_track"] == "mental"


def test_FAB_talents_must_be_known_and_listed_once(gm, gm_character, patch_sheet):
    character = gm_character(FAB)
    response = patch_sheet(character, gm, {"talents": ["ninja"]})
    refused(response, ["sheet", "talents", "0"], "'cool_head'")
    response = patch_sheet(character, gm, {"talents": ["medic", "medic"]})
    refused(response, ["sheet"], "talents are listed more than once")
    response = patch_sheet(character, gm, {"talents": ["cool_head", "medic"]})
    assert accepted(response, 200)["talents"] == ["cool_head", "medic"]


def test_FAB_20_unknown_state_is_refused(gm, gm_character, patch_sheet):
    character = gm_character(FAB)
    response = patch_sheet(character, gm, {"states": ["dead"]})
    refused(response, ["sheet", "states", "0"], "'epuise'")
    sheet = accepted(patch_sheet(character, gm, {"states": ["meurtri"]}), 200)
    assert sheet["states"] == ["meurtri"]


# ---------------------------------------------------------------- Vampire


@pytest.mark.parametrize("name", ["force", "apparence", "astuce"])
@pytest.mark.parametrize(("value", "fragment"), [(0, GE1), (6, LE5)])
def test_VAM_1_attribute_outside_1_5_is_refused(gm_create, name, value, fragment):
    refused(gm_create(VAM, {"attributes": {name: value}}), ["sheet", "attributes", name], fragment)


def test_VAM_1_attribute_bounds_and_all_nine_required(gm_create):
    sheet = accepted(gm_create(VAM, {"attributes": {"force": 1, "astuce": 5}}))
    assert (sheet["attributes"]["force"], sheet["attributes"]["astuce"]) == (1, 5)
    response = gm_create(VAM, {"attributes": {"intelligence": None}})
    refused(response, ["sheet", "attributes", "intelligence"], "Field required")


@pytest.mark.parametrize(("value", "fragment"), [(-1, GE0), (6, LE5)])
def test_VAM_2_ability_outside_0_5_is_refused(gm_create, value, fragment):
    response = gm_create(VAM, {"abilities": {"bagarre": value}})
    refused(response, ["sheet", "abilities", "bagarre"], fragment)


@pytest.mark.parametrize("ability", ["Bagarre", "1bagarre", "armes-a-feu", "a" * 41])
def test_VAM_2_ability_id_must_be_a_lowercase_id(gm_create, ability):
    response = gm_create(VAM, {"abilities": {ability: 2}})
    refused(response, ["sheet", "abilities", ability, "[key]"], "should match pattern")


def test_VAM_2_ability_bounds_and_custom_ids_are_accepted(gm_create):
    abilities = {"bagarre": 0, "thaumaturgie": 5, "conduite_2": 1}
    assert accepted(gm_create(VAM, {"abilities": abilities}))["abilities"] == merged(
        SHEETS[VAM]["abilities"], abilities
    )


@pytest.mark.parametrize(
    ("willpower", "loc", "fragment"),
    [
        ({"max": 0, "current": 0}, ["sheet", "willpower", "max"], GE1),
        ({"max": 11, "current": 5}, ["sheet", "willpower", "max"], "less than or equal to 10"),
        ({"max": 5, "current": -1}, ["sheet", "willpower", "current"], GE0),
        ({"max": 5, "current": 6}, ["sheet", "willpower"], "current (6) cannot exceed max (5)"),
    ],
)
def test_VAM_3_willpower_max_1_10_and_current_within_max(gm_create, willpower, loc, fragment):
    refused(gm_create(VAM, {"willpower": willpower}), loc, fragment)


def test_VAM_3_willpower_bounds_are_accepted(gm_create):
    willpower = {"max": 10, "current": 0}
    assert accepted(gm_create(VAM, {"willpower": willpower}))["willpower"] == willpower
    refused(gm_create(VAM, {"willpower": None}), ["sheet", "willpower"], "Field required")


# ---------------------------------------------------------------- a refusal changes nothing


@pytest.fixture
def player_character(player, make_campaign, make_character):
    """A player's own PC, which both the player and the GM may edit."""
    return lambda system: make_character(make_campaign(system, players=(player,)), player)


@pytest.mark.parametrize(
    ("system", "editor", "patch", "loc"),
    [
        (DRA, "player", {"traits": {"mental": 6}}, ["sheet", "traits", "mental"]),
        (CTH, "gm", {"wounds": [{"severity": "mortal"}]}, ["sheet", "wounds", "0", "severity"]),
        (FAB, "player", {"attributes": {"physique": 7}}, ["sheet", "attributes", "physique"]),
        (FAB, "gm", {"pp": 1, "crowns": 5}, ["sheet"]),
        (FAB, "player", {"inventory": [{"name": "brique", "count": 7}]}, ["sheet"]),
        (VAM, "gm", {"willpower": {"current": 6}}, ["sheet", "willpower"]),
        (VAM, "player", {"attributes": {"astuce": None}}, ["sheet", "attributes", "astuce"]),
    ],
)
def test_refused_patch_leaves_the_sheet_unchanged(
    request, client, gm, player, player_character, patch_sheet, system, editor, patch, loc
):
    character = player_character(system)
    refused(patch_sheet(character, request.getfixturevalue(editor), patch), loc)
    after = client.get(f"{API}/characters/{character['id']}", headers=gm.headers).json()
    assert after["sheet"] == character["sheet"]
    assert instant(after["updated_at"]) == instant(character["updated_at"])
