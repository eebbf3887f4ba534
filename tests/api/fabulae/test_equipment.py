"""Weapons, armor and items through the API (FAB-71, FAB-72, FAB-75, issue 18).

A player lists their PC's catalog weapons and armor at creation (creation choices); then
only the GM and the rules change them. A weapon or an armor with its own values is the
GM's to add (`custom_weapons`, `custom_armors`), and the sheet's `weapons` and `armor`
name it by its name; an attack, a reload and a repair read its values from the sheet.
The inventory stays the player's, within FAB-75's capacity.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.fabulae.combat import BASE_SHEET, FAB, PHYSICAL, Table, attack, body
from tests.api.fabulae.combat import table as combat_table
from tests.api.helpers import gm_patch, rolled, sheet_of
from tests.conftest import API, assert_problem

table = combat_table  # the fixture that sets the table of the tests after creation

ELVEN_RIFLE: dict[str, Any] = {
    "name": "Fusil elfique",
    "roll_bonus": 3,
    "damage": 3,
    "range": "long",
    "hands": 1,
    "sequela_mod": 2,
    "ammo": 4,
}
CUIRASS: dict[str, Any] = {"name": "Cuirasse de Lenzbourg", "value": 5}


@pytest.fixture
def campaign(make_campaign, player) -> dict[str, Any]:
    return make_campaign(FAB, players=(player,))


@pytest.fixture
def create(client, player, campaign):
    """The player creates their own PC: BASE_SHEET with these fields (the response)."""

    def _create(fields: dict[str, Any]):
        character = {"name": "Ada", "kind": "pc", "sheet": {**BASE_SHEET, **fields}}
        url = f"{API}/campaigns/{campaign['id']}/characters"
        return client.post(url, json=character, headers=player.headers)

    return _create


@pytest.fixture
def characters(client, gm, campaign):
    """How many characters the campaign holds now."""

    def _count() -> int:
        url = f"{API}/campaigns/{campaign['id']}/characters"
        return client.get(url, headers=gm.headers).json()["count"]

    return _count


def patch(client, caller, character, sheet: dict[str, Any]):
    url = f"{API}/characters/{character['id']}"
    return client.patch(url, json={"sheet": sheet}, headers=caller.headers)


def granted(client, gm, character, **sheet: Any) -> dict[str, Any]:
    """The GM adds a weapon or an armor with its own values, and the sheet names it."""
    return gm_patch(client, gm, character, sheet)


# --- creation: the player's catalog choices ---------------------------------------------------


def test_FAB71_FAB72_corrected_a_player_lists_catalog_weapons_and_armor_at_creation(create):
    weapons = [{"id": "revolver"}, {"id": "shotgun", "ammo": 1}, {"id": "knife"}]
    response = create({"weapons": weapons, "armor": {"id": "guard_mail"}})
    assert response.status_code == 201, response.text
    sheet = response.json()["sheet"]
    # Ammunition left out starts full; the armor starts at its catalog value.
    assert sheet["weapons"] == [
        {"id": "revolver", "ammo": 6},
        {"id": "shotgun", "ammo": 1},
        {"id": "knife", "ammo": None},
    ]
    assert sheet["armor"] == {"id": "guard_mail", "value": 2}
    assert (sheet["custom_weapons"], sheet["custom_armors"]) == ([], [])


@pytest.mark.parametrize(
    ("patch_", "loc", "fragment"),
    [
        ({"weapons": [{"id": "revolver", "ammo": 7}]}, "sheet.weapons.0", "at most 6 rounds"),
        ({"weapons": [{"id": "sabre", "ammo": 1}]}, "sheet.weapons.0", "takes no ammunition"),
        ({"armor": {"id": "leather_coat", "value": 2}}, "sheet.armor", "base value of 1"),
    ],
)
def test_FAB71_FAB72_corrected_a_player_stays_within_the_catalogs_values(
    characters, create, patch_, loc, fragment
):
    assert_problem(create(patch_), 422, loc, fragment)
    assert characters() == 0


def test_FAB71_FAB72_corrected_the_players_weapons_and_armor_are_the_gms_after_creation(
    client, gm, player, create
):
    response = create({"weapons": [{"id": "knife"}], "armor": {"id": "leather_coat"}})
    ada = response.json()
    for change in ({"weapons": [{"id": "sabre"}]}, {"armor": {"id": "factory_plate"}}):
        assert_problem(patch(client, player, ada, change), 403)
    assert sheet_of(client, player, ada)["weapons"] == [{"id": "knife", "ammo": None}]
    sheet = gm_patch(client, gm, ada, {"weapons": [{"id": "sabre"}]})
    assert sheet["weapons"] == [{"id": "sabre", "ammo": None}]


# --- outside the catalog: the GM's to add -----------------------------------------------------


@pytest.mark.parametrize(
    ("patch_", "status", "fragment"),
    [
        # Values of their own: the GM's fields, refused to a player.
        ({"custom_weapons": [ELVEN_RIFLE]}, 403, "custom_weapons"),
        ({"custom_armors": [CUIRASS]}, 403, "custom_armors"),
        (
            {"custom_weapons": [ELVEN_RIFLE], "weapons": [{"id": "Fusil elfique"}]},
            403,
            "ask the GM",
        ),
        # A name the catalog does not know, without the GM's values behind it.
        ({"weapons": [{"id": "Fusil elfique"}]}, 422, "any other weapon is the GM's to add"),
        ({"armor": {"id": "Cuirasse de Lenzbourg"}}, 422, "any other armor is the GM's to add"),
        # Values written on the weapon itself.
        ({"weapons": [{"id": "knife", "damage": 4}]}, 422, "sheet.weapons.0.damage"),
    ],
)
def test_FAB71_FAB72_corrected_a_player_cannot_give_a_weapon_or_armor_its_own_values(
    characters, create, patch_, status, fragment
):
    assert_problem(create(patch_), status, fragment)
    assert characters() == 0


def test_FAB71_FAB72_corrected_a_player_cannot_add_the_gms_weapon_after_creation(
    client, gm, player, table: Table
):
    ada = table.ada
    change = {"custom_weapons": [ELVEN_RIFLE], "weapons": [{"id": "Fusil elfique"}]}
    assert_problem(patch(client, player, ada, change), 403, "custom_weapons")
    assert sheet_of(client, gm, ada)["custom_weapons"] == []


def test_FAB71_the_gm_adds_a_weapon_with_its_own_values_loaded_to_its_capacity(
    client, gm, table: Table
):
    sheet = granted(
        client, gm, table.ada, custom_weapons=[ELVEN_RIFLE], weapons=[{"id": "Fusil elfique"}]
    )
    assert sheet["weapons"] == [{"id": "Fusil elfique", "ammo": 4}]
    assert sheet["custom_weapons"] == [{**ELVEN_RIFLE, "burst": False, "blunt": False}]


@pytest.mark.parametrize(
    ("sheet", "fragment"),
    [
        ({"weapons": [{"id": "Fusil elfique", "ammo": 5}]}, "holds at most 4 rounds"),
        (
            {"custom_weapons": [{**ELVEN_RIFLE, "name": "revolver"}], "weapons": []},
            "'revolver' is a catalog weapon: give the GM's weapon another name",
        ),
        ({"custom_weapons": [ELVEN_RIFLE, ELVEN_RIFLE]}, "listed more than once"),
        ({"custom_weapons": [{**ELVEN_RIFLE, "ammo": None, "burst": True}]}, "holds rounds"),
        ({"custom_weapons": [{**ELVEN_RIFLE, "damage": 7}]}, "sheet.custom_weapons.0.damage"),
        ({"custom_armors": [{**CUIRASS, "value": 7}]}, "sheet.custom_armors.0.value"),
        ({"armor": {"id": "Cuirasse de Lenzbourg", "value": 6}}, "base value of 5, got 6"),
        ({"custom_weapons": []}, "sheet.weapons.0.id"),  # still carried: name it first
    ],
)
def test_FAB71_FAB72_the_gms_values_are_checked_too(client, gm, table: Table, sheet, fragment):
    ada = table.ada
    granted(
        client,
        gm,
        ada,
        custom_weapons=[ELVEN_RIFLE],
        weapons=[{"id": "Fusil elfique"}],
        custom_armors=[CUIRASS],
    )
    before = sheet_of(client, gm, ada)
    assert_problem(patch(client, gm, ada, sheet), 422, fragment)
    assert sheet_of(client, gm, ada) == before


def test_FAB71_FAB65_an_attack_with_the_gms_weapon_reads_its_values(
    client, gm, player, table: Table, forced_dice
):
    campaign, ada, thug = table.campaign, table.ada, table.thug
    granted(client, gm, ada, custom_weapons=[ELVEN_RIFLE], weapons=[{"id": "Fusil elfique"}])
    # Habileté 3 + Tir 2 + the rifle's own +3 − long range 2 (within its range, FAB-71)
    # = 6 dice; one 6: the rifle's own 3 damage.
    forced_dice.push(6, 2, 2, 2, 2, 2)
    request = attack(ada, thug, "Fusil elfique", mode="ranged", situation=["long_range"])
    entry = rolled(client, campaign, player, request)
    (hit,) = entry["result"]["attacks"]
    pool = hit["roll"]["active"]["pool"]
    assert pool["pool"] == 6
    assert {"source": "weapon Fusil elfique", "dice": 3} in pool["modifier_dice"]
    assert (hit["damage"], hit["through"]) == (3, 3)
    assert sheet_of(client, gm, thug)["states"] == PHYSICAL
    assert sheet_of(client, player, ada)["weapons"] == [{"id": "Fusil elfique", "ammo": 3}]


def test_FAB71_the_gms_one_handed_gun_reloads_in_a_fast_action(
    client, gm, player, table: Table, forced_dice
):
    campaign, ada = table.campaign, table.ada
    granted(
        client,
        gm,
        ada,
        custom_weapons=[ELVEN_RIFLE],
        weapons=[{"id": "Fusil elfique", "ammo": 1}],
    )
    reload = body("reload", character_id=ada["id"], weapon="Fusil elfique")
    entry = rolled(client, campaign, player, reload)
    assert entry["result"] == {"weapon": "Fusil elfique", "ammo": 4, "action": "fast"}
    assert sheet_of(client, player, ada)["weapons"] == [{"id": "Fusil elfique", "ammo": 4}]


def test_FAB72_FAB67_the_gms_armor_protects_with_its_own_value(
    client, gm, player, table: Table, forced_dice
):
    campaign, ada = table.campaign, table.ada
    sheet = granted(client, gm, ada, custom_armors=[CUIRASS], armor={"id": "Cuirasse de Lenzbourg"})
    assert sheet["armor"] == {"id": "Cuirasse de Lenzbourg", "value": 5}  # starts whole
    forced_dice.push(6, 2, 2, 2, 2, 2, 2)  # Thug's revolver: 7 dice, 2 damage
    forced_dice.push(6, 6, 2, 2, 2)  # the cuirass's 5 protection dice
    entry = rolled(client, campaign, gm, attack(table.thug, ada))
    (hit,) = entry["result"]["attacks"]
    assert hit["protection"]["armor"] == 5 and len(hit["protection"]["dice"]) == 5
    assert (hit["protection"]["absorbed"], hit["through"]) == (2, 0)
    assert sheet_of(client, player, ada)["armor"]["value"] == 5


def test_FAB67_FAB72_the_gms_armor_is_repaired_up_to_its_own_value(
    client, gm, player, table: Table, forced_dice
):
    campaign, ada = table.campaign, table.ada
    worn = {"id": "Cuirasse de Lenzbourg", "value": 2}
    granted(client, gm, ada, custom_armors=[CUIRASS], armor=worn)
    forced_dice.push(6, 6, 6)  # Intellect 3 + Bricolage 0: 1 + 2 Prouesses
    repair = body("repair", character_id=ada["id"], owner_id=ada["id"], attribute="intellect")
    entry = rolled(client, campaign, player, repair)
    assert entry["result"]["armor_value"] == 5  # 2 + 3: the cuirass's 5, past the catalog's 4
    assert sheet_of(client, player, ada)["armor"] == {**worn, "value": 5}


# --- the inventory (FAB-75, FAB-76) -----------------------------------------------------------


def test_FAB75_the_inventory_stays_the_players_to_write(client, player, create):
    items = [{"name": "corde", "count": 2}, {"name": "montre", "count": 3, "tiny": True}]
    response = create({"inventory": items, "weapons": [{"id": "knife"}]})
    assert response.status_code == 201, response.text
    ada = response.json()
    more = [*items, {"name": "lanterne"}]
    changed = patch(client, player, ada, {"inventory": more, "backpack": True, "crowns": 40})
    assert changed.status_code == 200, changed.text
    sheet = changed.json()["sheet"]
    assert (len(sheet["inventory"]), sheet["backpack"], sheet["crowns"]) == (3, True, 40)


def test_FAB75_capacity_is_still_twice_physique(client, player, create, characters):
    rope = {"name": "corde", "count": 7}  # Physique 3: 6 items
    response = create({"inventory": [rope], "weapons": [{"id": "revolver"}]})
    assert_problem(response, 422, "capacity is 6", "2 × Physique")
    assert characters() == 0
    ada = create({"inventory": [{**rope, "count": 6}]}).json()
    assert_problem(patch(client, player, ada, {"inventory": [rope]}), 422, "capacity is 6")
    with_backpack = patch(client, player, ada, {"inventory": [rope], "backpack": True})
    assert with_backpack.status_code == 200, with_backpack.text
