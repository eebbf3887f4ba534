"""The turn guard of an encounter (issue 19): a version every step changes (its ETag), and
the turn a write expects; a stale write is refused and changes nothing."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from app.core.problems import Conflict
from app.models import Encounter
from app.models.encounter import ExpectedTurn


@dataclass(frozen=True)
class Expected:
    """What a write expects of the encounter (the turn guard): the version it last saw (an
    If-Match header, as sent) and the turn it means to act in or pass."""

    if_match: str | None = None
    turn: ExpectedTurn | None = None


class StaleTurn(Conflict):
    """The encounter moved on since the caller last saw it."""

    type = "urn:nocturne:problem:stale-turn"


def current(encounter: Encounter) -> dict[str, Any] | None:
    """The combatant whose turn it is: none before the start, after the end, or while the
    turn stays with one who left because nobody else may act."""
    if encounter.status != "active" or not encounter.combatants:
        return None
    combatant = encounter.combatants[encounter.turn % len(encounter.combatants)]
    return combatant if combatant["active"] else None


def version_of(encounter: Encounter) -> str:
    """A digest of what every member sees of the encounter's turns: status, round, whose turn,
    the roster's order and who still fights, and the history. Every step adds to the history
    or changes the status, so the version never comes back. Nothing hidden goes in: an
    NPC's initiative, its bindings or a skip's reason could be searched for in it."""
    state = {
        "id": str(encounter.id),
        "status": encounter.status,
        "round": encounter.round,
        "turn": encounter.turn,
        "roster": [[c["character_id"], c["active"]] for c in encounter.combatants],
        "history": [
            [item["round"], item["actor_id"], item["kind"], item["seq"], item.get("to")]
            for item in encounter.history
        ],
    }
    digest = hashlib.sha256(json.dumps(state, separators=(",", ":")).encode())
    return digest.hexdigest()[:24]


def etag(version: str) -> str:
    """The ETag header of an encounter's version."""
    return f'"{version}"'


def _matches(if_match: str, version: str) -> bool:
    """If-Match: `*`, or one of the listed tags is the version (a weak tag, as a proxy may
    weaken it, or a bare version are taken too)."""
    tags = [tag.strip() for tag in if_match.split(",")]
    return any(tag == "*" or tag.removeprefix("W/").strip('"') == version for tag in tags)


def _turn_named(encounter: Encounter) -> str:
    if encounter.status != "active":
        return f"the encounter is {encounter.status}"
    turn_of = current(encounter)
    whose = f"{turn_of['name']}'s turn" if turn_of else "nobody's turn"
    return f"it is round {encounter.round}, {whose}"


def guard(encounter: Encounter, expected: Expected) -> None:
    """409 unless the encounter is at the version and in the turn the write expects."""
    version = version_of(encounter)
    turn_of = current(encounter)
    stale = []
    if expected.if_match is not None and not _matches(expected.if_match, version):
        stale.append(f"If-Match {expected.if_match} is not its version {etag(version)}")
    want = expected.turn
    if want is not None and (
        turn_of is None
        or encounter.status != "active"
        or encounter.round != want.round
        or turn_of["character_id"] != str(want.character_id)
    ):
        names = {c["character_id"]: c["name"] for c in encounter.combatants}
        who = names.get(str(want.character_id), str(want.character_id))
        stale.append(f"expected round {want.round}, {who}'s turn")
    if not stale:
        return
    now = (
        {"round": encounter.round, "character_id": turn_of["character_id"], "name": turn_of["name"]}
        if turn_of is not None
        else None
    )
    raise StaleTurn(
        f"stale: {_turn_named(encounter)} ({'; '.join(stale)}); read the encounter again",
        headers={"ETag": etag(version)},
        current_turn=now,
        version=version,
    )
