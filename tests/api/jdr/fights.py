"""What the JDR Express combat tests post: attacks, holy water, initiative, the Mythos."""

from __future__ import annotations

from typing import Any

from tests.api.helpers import (
    get_entry,
    post_roll,
    rolled,
    sheet_of,
)

DRACULA = "jdr-express-dracula"
CTHULHU = "jdr-express-cthulhu"
JDR_KINDS = {
    "jdr.action",
    "jdr.talisman",
    "jdr.talisman_ruling",
    "jdr.effleurement",
    "jdr.effleurement_refusal",
    "jdr.joker",
    "jdr.context",
    "jdr.attack",
    "jdr.holy_water",
    "jdr.initiative",
    "jdr.mythos",
    "jdr.sacrifice",
    "jdr.penance",
    "jdr.medical_care",
    "jdr.mark",
}


def attack_body(attacker, target, weapon: str | dict[str, Any] | None = None, **extra: Any):
    """An attack with a weapon the attacker's sheet lists (its catalog id), the GM's
    improvised one (a dict of values), or bare hands (None)."""
    body = {"kind": "jdr.attack", "attacker_id": attacker["id"], "target_id": target["id"]}
    if weapon is not None:
        body["weapon"] = weapon
    return {**body, **extra}


def attack(client, campaign, caller, attacker, target, weapon=None, **extra: Any):
    return post_roll(client, campaign, caller, attack_body(attacker, target, weapon, **extra))


def attacked(client, campaign, caller, attacker, target, weapon=None, read_as=None, **extra: Any):
    """The attack as its caller reads it, or as `read_as` does (the GM reads what the rules
    read of an NPC target, committed to players: FAIR-18)."""
    response = attack(client, campaign, caller, attacker, target, weapon, **extra)
    assert response.status_code == 201, response.text
    if read_as is None:
        return response.json()
    return get_entry(client, campaign, read_as, response.json()["seq"])


def holy_water(client, campaign, caller, attacker, target):
    body = {"kind": "jdr.holy_water", "attacker_id": attacker["id"], "target_id": target["id"]}
    return post_roll(client, campaign, caller, body)


def initiative(client, campaign, caller, *combatants, order=None):
    body: dict[str, Any] = {
        "kind": "jdr.initiative",
        "combatants": [c if "character_id" in c else {"character_id": c["id"]} for c in combatants],
    }
    if order is not None:
        body["order"] = [c["id"] for c in order]
    return post_roll(client, campaign, caller, body)


def mythos(client, campaign, caller, character, difficulty: int, source: str, **extra: Any):
    body = {
        "kind": "jdr.mythos",
        "character_id": character["id"],
        "difficulty": difficulty,
        "source": source,
        **extra,
    }
    return post_roll(client, campaign, caller, body)


def act(client, campaign, caller, character, trait="mental", **extra: Any):
    body = {"kind": "jdr.action", "character_id": character["id"], "trait": trait, **extra}
    return rolled(client, campaign, caller, body)


def follow(client, campaign, caller, kind: str, follows: int, **extra: Any):
    return rolled(client, campaign, caller, {"kind": kind, "follows": follows, **extra})


def gm_event(client, campaign, gm, kind: str, character, description: str = ""):
    body = {"kind": kind, "character_id": character["id"], "description": description}
    return rolled(client, campaign, gm, body)


def wounds(client, gm, character) -> list[dict[str, Any]]:
    return sheet_of(client, gm, character)["wounds"]


def npc(make_character, campaign, gm, name: str, traits=(1, 2, 1), **sheet: Any):
    mental, physique, social = traits
    return make_character(
        campaign,
        gm,
        kind="npc",
        name=name,
        sheet={"traits": {"mental": mental, "physique": physique, "social": social}, **sheet},
    )
