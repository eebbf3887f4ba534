"""Hidden values in the hashed content (FAIR-18): what a rule read of an NPC (its sheet,
its initiative inputs and row) and what it changed there are hashed as salted
commitments; the GM holds the disclosures.

Every member can check the chain; only whoever holds a value's disclosure can open it, and
the GM's export, which carries them all, replays every entry.
"""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Sequence
from typing import Any

from sqlmodel import Session

from app.engine.canonical import canonical_json, json_may_contain
from app.engine.hidden import (
    COMMIT,
    NPC_IDENTITY,
    SALT_BYTES,
    CharacterValue,
    npc_value_paths,
    pointer_token,
    pointer_tokens,
    value_commitment,
)
from app.models import Character


class _Committer:
    def __init__(self) -> None:
        self.disclosures: list[dict[str, Any]] = []

    def commit(self, value: Any, path: str) -> dict[str, str]:
        salt = secrets.token_bytes(SALT_BYTES)
        self.disclosures.append({"path": path, "salt": salt.hex(), "value": value})
        return {COMMIT: value_commitment(salt, canonical_json(value))}


def commit_npc_values(
    session: Session,
    campaign_id: uuid.UUID,
    request: dict[str, Any],
    result: dict[str, Any],
    effects: list[dict[str, Any]],
    npc_values: Sequence[CharacterValue] = (),
) -> list[dict[str, Any]]:
    """FAIR-18: in place, every NPC the request or result describes (a sheet the rules read,
    an initiative row) keeps its identity and has every other value committed, and so do
    the values the kind's result shows from an NPC's sheet (`npc_values`) and the rules'
    changes to NPCs. Returns the disclosures (path, salt, value) that open them.
    """
    committer = _Committer()
    for path in npc_value_paths(request, result, npc_values):
        document, inner = (
            (request, path.removeprefix("/request/"))
            if path.startswith("/request/")
            else (result, path.removeprefix("/result/"))
        )
        *parents, leaf = pointer_tokens(f"/{inner}")
        node: Any = document
        for token in parents:
            node = node[int(token)] if isinstance(node, list) else node[token]
        key: Any = int(leaf) if isinstance(node, list) else leaf
        node[key] = committer.commit(node[key], path)
    npcs: set[str] = set()
    stack: list[tuple[Any, str]] = []
    if may_describe_npc(request, result):
        stack = [(request, "/request"), (result, "/result")]
    while stack:
        node, path = stack.pop()
        if isinstance(node, dict):
            npc_id = node.get("id", node.get("character_id"))
            if node.get("kind") == "npc" and isinstance(npc_id, str):
                npcs.add(npc_id)
                for key in [key for key in node if key not in NPC_IDENTITY]:
                    node[key] = committer.commit(node[key], f"{path}/{pointer_token(key)}")
                continue
            stack.extend((child, f"{path}/{pointer_token(key)}") for key, child in node.items())
        elif isinstance(node, list):
            stack.extend((child, f"{path}/{index}") for index, child in enumerate(node))
    for index, change in enumerate(effects):
        if is_npc(session, campaign_id, str(change["character_id"]), npcs):
            for side in ("before", "after"):
                change[side] = committer.commit(change[side], f"/effects/{index}/{side}")
    # In path order: one entry's disclosures read the same whichever walk made them.
    committer.disclosures.sort(key=lambda disclosure: disclosure["path"])
    return committer.disclosures


# How orjson writes an object's `kind` when it is "npc".
_NPC_KIND = b'"kind":"npc"'


def may_describe_npc(*documents: Any) -> bool:
    """Whether some object in `documents` may be an NPC's (`kind: "npc"`): most rolls
    describe none, and one search of their JSON spares them the walk that builds a pointer
    for every value."""
    return json_may_contain(documents, _NPC_KIND)


def is_npc(
    session: Session, campaign_id: uuid.UUID, character_id: str, known: set[str] | None = None
) -> bool:
    """Whether the campaign's character is an NPC, whose sheet only the GM reads."""
    known = known if known is not None else set()
    if character_id in known:
        return True
    try:
        character = session.get(Character, (campaign_id, uuid.UUID(character_id)))
    except ValueError:
        return False
    if character is not None and character.kind == "npc":
        known.add(character_id)
        return True
    return False
