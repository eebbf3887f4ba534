"""What the JDR Express action tests post: rolls, follow-ups and the GM's records."""

from __future__ import annotations

from typing import Any

from tests.api.helpers import post_roll
from tests.conftest import API

DRACULA = "jdr-express-dracula"
CTHULHU = "jdr-express-cthulhu"
MIHAIL_WORDS = (
    "J'ai été défroqué par mes pairs, mais pas par Dieu. Au nom du Père, du Fils, et du "
    "Saint-Esprit, créature, retire-toi."
)
PENHALIGON_MARK = "ne supporte plus de se voir dans un miroir avant l'aube"


def act(client, campaign, caller, character, trait: str = "mental", **extra: Any):
    body = {"kind": "jdr.action", "character_id": character["id"], "trait": trait, **extra}
    return post_roll(client, campaign, caller, body)


def acted(client, campaign, caller, character, trait: str = "mental", **extra: Any):
    response = act(client, campaign, caller, character, trait, **extra)
    assert response.status_code == 201, response.text
    return response.json()


def protection_roll(client, campaign, gm, player, character, trait="mental", **context: Any):
    """JDR-24 (corrected): the GM marks a protection roll (a roll request that sets
    `context.protection`); the player answers it with their own dice."""
    asked = client.post(
        f"{API}/campaigns/{campaign['id']}/roll-requests",
        json={
            "kind": "jdr.action",
            "character_ids": [character["id"]],
            "values": {"context.protection": True},
        },
        headers=gm.headers,
    )
    assert asked.status_code == 201, asked.text
    body = {
        "kind": "jdr.action",
        "character_id": character["id"],
        "trait": trait,
        "context": {"protection": True, **context},
    }
    answered = client.post(
        f"{API}/campaigns/{campaign['id']}/rolls?request_id={asked.json()['id']}",
        json=body,
        headers=player.headers,
    )
    assert answered.status_code == 201, answered.text
    return answered.json()


def follow(client, campaign, caller, kind: str, follows: int, **extra: Any):
    return post_roll(client, campaign, caller, {"kind": kind, "follows": follows, **extra})


def followed(client, campaign, caller, kind: str, follows: int, **extra: Any):
    response = follow(client, campaign, caller, kind, follows, **extra)
    assert response.status_code == 201, response.text
    return response.json()


def gm_event(client, campaign, gm, kind: str, character, description: str = ""):
    return post_roll(
        client,
        campaign,
        gm,
        {"kind": kind, "character_id": character["id"], "description": description},
    )


def facts(character, **flags: bool) -> dict[str, Any]:
    return {"character_id": character["id"], **flags}


def effect_fields(entry: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    return [(e["field"], e["before"], e["after"]) for e in entry["effects"]]


def partial_supernatural(client, campaign, caller, character, forced_dice, **context: Any):
    """A total of 10 (3 + 4 + Mental 3) in a proven supernatural confrontation."""
    forced_dice.push(3, 4)
    action = acted(client, campaign, caller, character, context={"supernatural": True, **context})
    assert action["result"]["tier"] == "partial_success"
    return action


def crack(client, campaign, gm, player, character, forced_dice) -> None:
    action = partial_supernatural(client, campaign, player, character, forced_dice)
    invoked = followed(client, campaign, player, "jdr.talisman", action["seq"], words="bon ben")
    followed(client, campaign, gm, "jdr.talisman_ruling", invoked["seq"], sincere=False)


def peril(client, campaign, caller, character, forced_dice, faces=(1, 1), **extra: Any):
    """A physique roll in direct peril (a fall on an icy stair)."""
    forced_dice.push(*faces)
    return acted(
        client, campaign, caller, character, "physique", context={"direct_peril": True}, **extra
    )


def partial_investigation(client, campaign, caller, character, forced_dice, domain="investigation"):
    forced_dice.push(3, 4)
    action = acted(client, campaign, caller, character, context={"domain": domain})
    assert action["result"]["tier"] == "partial_success"
    return action


def five_counted_marks() -> list[dict[str, Any]]:
    return [{"description": f"marque {n}", "counted": True, "scene": 0} for n in range(1, 6)]
