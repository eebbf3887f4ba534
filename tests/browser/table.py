"""A table to look at in the browser: a GM, a player and a campaign per ruleset, with rolls
of every kind the page draws differently (kept and dropped dice, a follow-up, a hidden
roll, a closed epoch, an encounter). Built through the API of a running server, so the
browser tests and scripts/screenshots.py see exactly what a real table would."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import httpx

from tests.conftest import DRACULA_SHEET, FABULAE_SHEET, VAMPIRE_SHEET

API = "/api/v1"


@dataclass
class Campaign:
    id: str
    name: str
    system: str
    characters: dict[str, str] = field(default_factory=dict)  # name -> id
    seqs: dict[str, int] = field(default_factory=dict)  # what the page is tested on -> seq


@dataclass
class Table:
    gm_key: str
    player_key: str
    player_name: str
    campaigns: dict[str, Campaign] = field(default_factory=dict)  # system -> campaign


class Api:
    """The calls the set-up makes, each checked: a set-up that fails says where."""

    def __init__(self, http: httpx.Client) -> None:
        self.http = http

    def call(self, method: str, path: str, key: str | None, body: Any = None) -> Any:
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        response = self.http.request(method, API + path, json=body, headers=headers)
        if response.status_code >= 300:
            raise AssertionError(f"{method} {path}: {response.status_code} {response.text}")
        return response.json() if response.content else None

    def user(self, name: str) -> dict[str, Any]:
        return dict(self.call("POST", "/users", None, {"name": name}))

    def campaign(self, gm: str, name: str, system: str, player_id: str) -> Campaign:
        body = self.call("POST", "/campaigns", gm, {"name": name, "system": system})
        campaign = Campaign(body["id"], name, system)
        self.call(
            "POST",
            f"/campaigns/{campaign.id}/members",
            gm,
            {"user_id": player_id, "role": "player"},
        )
        self.call("POST", f"/campaigns/{campaign.id}/sessions", gm, {})
        return campaign

    def character(
        self, campaign: Campaign, key: str, name: str, sheet: dict[str, Any], kind: str = "pc"
    ) -> str:
        body = {"name": name, "kind": kind, "sheet": sheet}
        made = self.call("POST", f"/campaigns/{campaign.id}/characters", key, body)
        campaign.characters[name] = made["id"]
        return str(made["id"])

    def roll(self, campaign: Campaign, key: str, body: dict[str, Any]) -> dict[str, Any]:
        return dict(self.call("POST", f"/campaigns/{campaign.id}/rolls", key, body))


def build_table(http: httpx.Client) -> Table:
    api = Api(http)
    gm = api.user("Gabrielle")
    player = api.user("Paul")
    table = Table(gm["api_key"], player["api_key"], player["name"])
    gm_key, player_key = gm["api_key"], player["api_key"]

    # JDR Express (Dracula): an action, a Joker that rerolls it, generic dice with a dropped
    # die, a hidden roll the player sees redacted, then a rotation that reveals the seed.
    jdr = api.campaign(gm_key, "Les Carpates", "jdr-express-dracula", player["id"])
    mihail = api.character(jdr, player_key, "Mihail", DRACULA_SHEET)
    api.character(jdr, gm_key, "Strigoi", DRACULA_SHEET, kind="npc")
    action = api.roll(
        jdr,
        player_key,
        {
            "kind": "jdr.action",
            "character_id": mihail,
            "trait": "physique",
            "context": {"direct_peril": True},
        },
    )
    jdr.seqs["action"] = action["seq"]
    joker = api.roll(
        jdr, player_key, {"kind": "jdr.joker", "follows": action["seq"], "character_id": mihail}
    )
    jdr.seqs["joker"] = joker["seq"]
    dice = api.roll(
        jdr,
        player_key,
        {"kind": "dice", "notation": "4d6dl1", "label": "Force", "character_id": mihail},
    )
    jdr.seqs["dice"] = dice["seq"]
    blind = api.roll(jdr, gm_key, {"kind": "dice", "notation": "1d20", "visibility": "gm"})
    jdr.seqs["hidden"] = blind["seq"]
    api.call("POST", f"/campaigns/{jdr.id}/fairness/rotate", gm_key)
    table.campaigns[jdr.system] = jdr

    # Fabulae Tenebris: an action roll.
    fabulae = api.campaign(gm_key, "Londres, 1888", "fabulae-tenebris", player["id"])
    ada = api.character(fabulae, player_key, "Ada", FABULAE_SHEET)
    fab = api.roll(
        fabulae,
        player_key,
        {"kind": "fabulae.action", "character_id": ada, "attribute": "physique", "skill": "combat"},
    )
    fabulae.seqs["action"] = fab["seq"]
    table.campaigns[fabulae.system] = fabulae

    # Vampire: an action, and an encounter with its initiative rolled.
    vampire = api.campaign(gm_key, "Chicago by Night", "vampire", player["id"])
    lucien = api.character(vampire, player_key, "Lucien", VAMPIRE_SHEET)
    ghoul = api.character(vampire, gm_key, "Ghoul", VAMPIRE_SHEET, kind="npc")
    vam = api.roll(
        vampire,
        player_key,
        {
            "kind": "vampire.action",
            "character_id": lucien,
            "attribute": "astuce",
            "ability": "subterfuge",
        },
    )
    vampire.seqs["action"] = vam["seq"]
    encounter = api.call(
        "POST",
        f"/campaigns/{vampire.id}/encounters",
        gm_key,
        {
            "name": "Le parking",
            "combatants": [
                {"character_id": lucien, "side": "kindred"},
                {"character_id": ghoul, "side": "foes"},
            ],
        },
    )
    api.call("POST", f"/encounters/{encounter['id']}/initiative", gm_key)
    table.campaigns[vampire.system] = vampire
    return table
