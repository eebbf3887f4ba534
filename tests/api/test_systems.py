"""The rulesets and their sheet schemas."""

import pytest

from tests.conftest import API, assert_problem

SYSTEM_IDS = ["jdr-express-dracula", "jdr-express-cthulhu", "fabulae-tenebris", "vampire"]


def test_lists_the_four_rulesets(client, gm):
    response = client.get(f"{API}/systems", headers=gm.headers)
    assert response.status_code == 200
    body = response.json()
    assert body["count"] == 4
    assert [s["id"] for s in body["data"]] == SYSTEM_IDS
    assert all(s["name"] for s in body["data"])


@pytest.mark.parametrize("system_id", SYSTEM_IDS)
def test_each_system_returns_sheet_and_options_schemas(client, gm, system_id):
    response = client.get(f"{API}/systems/{system_id}", headers=gm.headers)
    assert response.status_code == 200
    body = response.json()
    assert body["id"] == system_id
    assert body["sheet_schema"]["type"] == "object"
    assert body["sheet_schema"]["additionalProperties"] is False
    assert body["options_schema"]["type"] == "object"


def test_sheet_schemas_carry_the_rule_ranges(client, gm):
    jdr = client.get(f"{API}/systems/jdr-express-dracula", headers=gm.headers).json()
    traits = jdr["sheet_schema"]["$defs"]["Traits"]["properties"]["mental"]
    assert (traits["minimum"], traits["maximum"]) == (0, 5)  # JDR-1
    vampire = client.get(f"{API}/systems/vampire", headers=gm.headers).json()
    assert set(vampire["options_schema"]["properties"]) == {
        "players_set_difficulty",
        "blank_botch",
        "retry_penalty",
        "players_take_automatic",
    }


def test_unknown_system_is_404(client, gm):
    assert_problem(client.get(f"{API}/systems/d20", headers=gm.headers), 404, "unknown system")


def test_systems_need_a_key(client):
    assert client.get(f"{API}/systems").status_code == 401
