"""Characters: who may create, read, edit and delete; protected resources; NPC secrecy."""

import uuid

from app.models import Character
from tests.conftest import API, DRACULA_SHEET, FABULAE_SHEET, assert_problem


def characters_url(campaign):
    return f"{API}/campaigns/{campaign['id']}/characters"


def test_player_creates_own_pc_with_defaults_filled(client, gm, player, make_campaign):
    campaign = make_campaign(players=(player,))
    response = client.post(
        characters_url(campaign),
        json={"name": "Mihail", "kind": "pc", "sheet": DRACULA_SHEET},
        headers=player.headers,
    )
    assert response.status_code == 201
    body = response.json()
    assert body["owner_id"] == player.id and body["kind"] == "pc"
    assert body["sheet"]["joker"] == "ready"  # JDR-6 default
    assert body["sheet"]["talisman"] == "ready"  # JDR-4 default
    assert body["sheet"]["wounds"] == []


def test_player_cannot_create_an_npc(client, gm, player, make_campaign):
    campaign = make_campaign(players=(player,))
    response = client.post(
        characters_url(campaign),
        json={"name": "Vlad", "kind": "npc", "sheet": DRACULA_SHEET},
        headers=player.headers,
    )
    assert_problem(response, 403, "NPC")


def test_player_cannot_create_for_someone_else(client, gm, player, other_player, make_campaign):
    campaign = make_campaign(players=(player, other_player))
    response = client.post(
        characters_url(campaign),
        json={"name": "X", "sheet": DRACULA_SHEET, "owner_id": other_player.id},
        headers=player.headers,
    )
    assert_problem(response, 403, "themselves")


def test_player_cannot_start_with_spent_resources_set(client, gm, player, make_campaign):
    campaign = make_campaign(players=(player,))
    response = client.post(
        characters_url(campaign),
        json={"name": "X", "sheet": {**DRACULA_SHEET, "talisman": "cracked"}},
        headers=player.headers,
    )
    assert_problem(response, 403, "talisman")


def test_player_chooses_faith_at_creation(client, gm, player, make_campaign, make_character):
    campaign = make_campaign(players=(player,))
    character = make_character(campaign, player, sheet={**DRACULA_SHEET, "faith": "atheist"})
    assert character["sheet"]["faith"] == "atheist"


def test_gm_creates_npc_and_pc_for_a_player(client, gm, player, make_campaign, make_character):
    campaign = make_campaign(players=(player,))
    npc = make_character(campaign, gm, kind="npc", name="Comte")
    assert npc["owner_id"] is None
    pc = make_character(campaign, gm, owner_id=player.id, name="Jonathan")
    assert pc["owner_id"] == player.id


def test_owner_must_be_a_member(client, gm, outsider, make_campaign):
    campaign = make_campaign()
    response = client.post(
        characters_url(campaign),
        json={"name": "X", "sheet": DRACULA_SHEET, "owner_id": outsider.id},
        headers=gm.headers,
    )
    assert_problem(response, 422, "not a member")


def test_listing_hides_npc_sheets_from_players(client, gm, player, make_campaign, make_character):
    campaign = make_campaign(players=(player,))
    make_character(campaign, player, name="Mihail")
    npc = make_character(campaign, gm, kind="npc", name="Comte")
    as_player = client.get(characters_url(campaign), headers=player.headers).json()
    assert as_player["count"] == 2
    hidden = next(c for c in as_player["data"] if c["id"] == npc["id"])
    assert hidden["sheet"] == {} and hidden["sheet_hidden"] is True
    as_gm = client.get(characters_url(campaign), headers=gm.headers).json()
    assert next(c for c in as_gm["data"] if c["id"] == npc["id"])["sheet"]["traits"]
    single = client.get(f"{API}/characters/{npc['id']}", headers=player.headers).json()
    assert single["sheet"] == {}


def test_listing_filters_by_kind_and_owner(client, gm, player, make_campaign, make_character):
    campaign = make_campaign(players=(player,))
    mine = make_character(campaign, player)
    make_character(campaign, gm, kind="npc", name="Comte")
    pcs = client.get(f"{characters_url(campaign)}?kind=pc", headers=gm.headers).json()
    assert [c["id"] for c in pcs["data"]] == [mine["id"]]
    owned = client.get(
        f"{characters_url(campaign)}?owner_id={player.id}", headers=gm.headers
    ).json()
    assert owned["count"] == 1


def test_player_edits_own_pc_with_a_merge_patch(client, gm, player, make_campaign, make_character):
    campaign = make_campaign(players=(player,))
    character = make_character(campaign, player)
    response = client.patch(
        f"{API}/characters/{character['id']}",
        json={"name": "Père Mihail Stanescu", "sheet": {"traits": {"social": 2}}},
        headers=player.headers,
    )
    assert response.status_code == 200
    body = response.json()
    assert body["name"] == "Père Mihail Stanescu"
    assert body["sheet"]["traits"] == {"mental": 3, "physique": 2, "social": 2}


def test_merge_patch_null_removes_a_key(client, gm, player, make_campaign, make_character):
    campaign = make_campaign(players=(player,))
    character = make_character(campaign, player)
    response = client.patch(
        f"{API}/characters/{character['id']}",
        json={"sheet": {"sacred_object": None}},
        headers=player.headers,
    )
    assert response.status_code == 200
    assert response.json()["sheet"]["sacred_object"] is None


def test_player_cannot_spend_resources_by_editing(
    client, gm, player, make_campaign, make_character
):
    campaign = make_campaign(players=(player,))
    character = make_character(campaign, player)
    response = client.patch(
        f"{API}/characters/{character['id']}",
        json={"sheet": {"joker": "spent", "wounds": []}},
        headers=player.headers,
    )
    assert_problem(response, 403, "joker", "GM override")
    after = client.get(f"{API}/characters/{character['id']}", headers=gm.headers).json()
    assert after["sheet"]["joker"] == "ready"


def test_gm_overrides_a_resource(client, gm, player, make_campaign, make_character):
    campaign = make_campaign(players=(player,))
    character = make_character(campaign, player)
    response = client.patch(
        f"{API}/characters/{character['id']}",
        json={"sheet": {"joker": "spent"}},
        headers=gm.headers,
    )
    assert response.status_code == 200
    assert response.json()["sheet"]["joker"] == "spent"


def test_other_player_cannot_edit_or_delete(
    client, gm, player, other_player, make_campaign, make_character
):
    campaign = make_campaign(players=(player, other_player))
    character = make_character(campaign, player)
    url = f"{API}/characters/{character['id']}"
    assert_problem(client.patch(url, json={"name": "Mine"}, headers=other_player.headers), 403)
    assert_problem(client.delete(url, headers=other_player.headers), 403)
    assert client.get(url, headers=other_player.headers).json()["name"] == character["name"]


def test_only_gm_changes_kind_or_owner(client, gm, player, make_campaign, make_character):
    campaign = make_campaign(players=(player,))
    character = make_character(campaign, player)
    url = f"{API}/characters/{character['id']}"
    assert_problem(client.patch(url, json={"kind": "npc"}, headers=player.headers), 403)
    response = client.patch(url, json={"kind": "npc", "owner_id": gm.id}, headers=gm.headers)
    assert response.status_code == 200
    assert response.json()["kind"] == "npc"


def test_invalid_patch_changes_nothing(client, gm, player, make_campaign, make_character):
    campaign = make_campaign(players=(player,))
    character = make_character(campaign, player)
    url = f"{API}/characters/{character['id']}"
    response = client.patch(
        url, json={"name": "Renamed", "sheet": {"traits": {"mental": 9}}}, headers=player.headers
    )
    assert_problem(response, 422, "sheet.traits.mental")
    after = client.get(url, headers=player.headers).json()
    assert after["name"] == character["name"] and after["sheet"] == character["sheet"]


def test_owner_deletes_and_character_disappears(client, gm, player, make_campaign, make_character):
    campaign = make_campaign(players=(player,))
    character = make_character(campaign, player)
    url = f"{API}/characters/{character['id']}"
    assert client.delete(url, headers=player.headers).status_code == 204
    assert_problem(client.get(url, headers=gm.headers), 404)
    assert client.get(characters_url(campaign), headers=gm.headers).json()["count"] == 0


def test_non_member_gets_404_for_characters(client, gm, outsider, make_campaign, make_character):
    campaign = make_campaign()
    character = make_character(campaign, gm)
    url = f"{API}/characters/{character['id']}"
    assert_problem(client.get(url, headers=outsider.headers), 404)
    assert_problem(client.patch(url, json={"name": "x"}, headers=outsider.headers), 404)
    assert_problem(client.get(characters_url(campaign), headers=outsider.headers), 404)
    assert_problem(client.get(f"{API}/characters/{uuid.uuid4()}", headers=gm.headers), 404)


def test_a_sheet_saved_before_a_rules_update_is_still_its_players_to_edit(
    client, session, player, make_campaign, make_character
):
    # Rules updates add managed fields (Fabulae's `states_pending`, `deprived`); a sheet
    # saved before them lacks them, and an edit that leaves them out changes none of them.
    campaign = make_campaign("fabulae-tenebris", players=(player,))
    character = make_character(campaign, player, sheet={**FABULAE_SHEET})
    stored = session.get(Character, (uuid.UUID(campaign["id"]), uuid.UUID(character["id"])))
    assert stored is not None
    stored.sheet = {
        k: v for k, v in stored.sheet.items() if k not in ("states_pending", "deprived")
    }
    session.add(stored)
    session.flush()
    response = client.patch(
        f"{API}/characters/{character['id']}",
        json={"sheet": {"inventory": [{"name": "lanterne"}]}},
        headers=player.headers,
    )
    assert response.status_code == 200, response.text
    assert response.json()["sheet"]["states_pending"] == 0
