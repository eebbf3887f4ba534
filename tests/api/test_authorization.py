"""The authorization matrix: anonymous, non-member, player, other player, GM, per endpoint.

A non-member gets 404 for everything in a campaign (its existence stays private); a member
without the right gets 403; a missing key is 401.
"""

import pytest

from tests.conftest import API

ROLES = ("anonymous", "outsider", "player", "other_player", "gm")

# (method, path, body, expected status for each role in ROLES order)
CASES = {
    "campaign-get": ("GET", "/campaigns/{c}", None, (401, 404, 200, 200, 200)),
    "campaign-patch": ("PATCH", "/campaigns/{c}", {"name": "N"}, (401, 404, 403, 403, 200)),
    "campaign-delete": ("DELETE", "/campaigns/{c}", None, (401, 404, 403, 403, 204)),
    "session-start": ("POST", "/campaigns/{c}/sessions", {}, (401, 404, 403, 403, 201)),
    "scene-start": ("POST", "/campaigns/{c}/scenes", {}, (401, 404, 403, 403, 201)),
    "member-add": (
        "POST",
        "/campaigns/{c}/members",
        {"user_id": "{newcomer}"},
        (401, 404, 403, 403, 201),
    ),
    "member-list": ("GET", "/campaigns/{c}/members", None, (401, 404, 200, 200, 200)),
    "member-remove-player": (
        "DELETE",
        "/campaigns/{c}/members/{player}",
        None,
        (401, 404, 204, 403, 204),
    ),
    "character-create": (
        "POST",
        "/campaigns/{c}/characters",
        {"name": "New", "sheet": "{sheet}"},
        (401, 404, 201, 201, 201),
    ),
    "character-list": ("GET", "/campaigns/{c}/characters", None, (401, 404, 200, 200, 200)),
    "character-get": ("GET", "/characters/{pc}", None, (401, 404, 200, 200, 200)),
    "character-patch": ("PATCH", "/characters/{pc}", {"name": "N"}, (401, 404, 200, 403, 200)),
    "character-delete": ("DELETE", "/characters/{pc}", None, (401, 404, 204, 403, 204)),
    "npc-patch": ("PATCH", "/characters/{npc}", {"name": "N"}, (401, 404, 403, 403, 200)),
}


def _fill(value, names):
    if isinstance(value, str):
        return names[value[1:-1]] if value.startswith("{") and value.endswith("}") else value
    if isinstance(value, dict):
        return {key: _fill(item, names) for key, item in value.items()}
    return value


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("role", ROLES)
def test_authorization_matrix(
    client, gm, player, other_player, outsider, register, make_campaign, make_character, case, role
):
    method, path, body, expected = CASES[case]
    campaign = make_campaign(players=(player, other_player))
    client.post(f"{API}/campaigns/{campaign['id']}/sessions", json={}, headers=gm.headers)
    pc = make_character(campaign, player)
    npc = make_character(campaign, gm, kind="npc", name="Comte")
    names = {
        "c": campaign["id"],
        "pc": pc["id"],
        "npc": npc["id"],
        "player": player.id,
        "newcomer": register("Newcomer").id,
        "sheet": pc["sheet"],
    }
    callers = {"outsider": outsider, "player": player, "other_player": other_player, "gm": gm}
    headers = callers[role].headers if role in callers else {}
    url = API + path.format(**names)
    response = client.request(method, url, json=_fill(body, names), headers=headers)
    assert response.status_code == expected[ROLES.index(role)], response.text
    if response.status_code >= 400:
        assert response.headers["content-type"].startswith("application/problem+json")
