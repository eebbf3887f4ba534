"""Hidden rolls and secret inputs (FAIR-16..18): per-entry keys under a Merkle root, and
salted commitments of values some member may not see.

An epoch's `hidden_seed` gives every seq of its span a key; the `epoch_opened` entry
publishes the root of the tree of those keys. A hidden entry draws its dice keyed with its
own key, so revealing the epoch's seed tells nothing about them, while whoever receives the
key and its proof checks it was fixed when the epoch opened and re-derives the dice.
"""

from __future__ import annotations

import copy
import hashlib
import hmac
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from app.engine.canonical import json_may_contain
from app.engine.errors import DiceError

SPAN = 4096  # FAIR-16: seqs an epoch can key, [first_seq, first_seq + SPAN)
LEVELS = 12  # log2(SPAN)
FAIRNESS_VERSION = (
    2  # recorded as `"fairness": 2` in the hashed content of entries made under FAIR-16..21
)
COMMIT = "$commit"  # FAIR-18: the key of a value replaced by its commitment
SALT_BYTES = 16
# What stays readable of an NPC in an entry: who it is and where it stands in an order.
NPC_IDENTITY = frozenset({"id", "character_id", "name", "kind", "rank"})


def entry_key(hidden_seed: bytes, campaign_id: str, epoch: int, seq: int) -> bytes:
    """FAIR-16: HMAC-SHA256(hidden_seed, "hidden:{campaign_id}:{epoch}:{n}")."""
    if len(hidden_seed) != 32:
        raise DiceError("a hidden seed is 32 bytes")
    return hmac.new(
        hidden_seed, f"hidden:{campaign_id}:{epoch}:{seq}".encode(), hashlib.sha256
    ).digest()


def leaf_hash(key: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + key).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


# A proof's first siblings are recomputed from the 2**SUBTREE_LEVELS keys around its leaf; the
# tree keeps only the levels above (255 hashes, 8 KB, where every level as bytes objects
# took 0.9 MB), so a worker keeps the trees of many campaigns (app/services/keys.py).
SUBTREE_LEVELS = 5
_HASH_BYTES = 32


def _levels_up(level: list[bytes], top: int) -> list[list[bytes]]:
    """`level` and the levels above it, up to `top` nodes."""
    levels = [level]
    while len(level) > top:
        level = [node_hash(level[i], level[i + 1]) for i in range(0, len(level), 2)]
        levels.append(level)
    return levels


@dataclass(frozen=True)
class KeyTree:
    """The Merkle tree of one epoch's entry keys (FAIR-16), kept for keys and proofs."""

    hidden_seed: bytes = field(repr=False)  # the epoch's secret: in no log line
    campaign_id: str
    epoch: int
    first_seq: int
    # Levels SUBTREE_LEVELS to LEVELS (the root's), each its hashes joined, left to right.
    upper: tuple[bytes, ...]

    @classmethod
    def build(cls, hidden_seed: bytes, campaign_id: str, epoch: int, first_seq: int) -> KeyTree:
        leaves = [
            leaf_hash(entry_key(hidden_seed, campaign_id, epoch, seq))
            for seq in range(first_seq, first_seq + SPAN)
        ]
        levels = _levels_up(leaves, 1)
        upper = tuple(b"".join(level) for level in levels[SUBTREE_LEVELS:])
        return cls(hidden_seed, campaign_id, epoch, first_seq, upper)

    @property
    def root(self) -> str:
        return self.upper[-1].hex()

    def covers(self, seq: int) -> bool:
        return self.first_seq <= seq < self.first_seq + SPAN

    def key(self, seq: int) -> bytes:
        self._index(seq)
        return entry_key(self.hidden_seed, self.campaign_id, self.epoch, seq)

    def proof(self, seq: int) -> list[str]:
        """FAIR-17: the 12 sibling hashes from the leaf up, lowercase hex."""
        index = self._index(seq)
        width = 1 << SUBTREE_LEVELS
        start = index - index % width  # the subtree holding the leaf, rebuilt
        leaves = [
            leaf_hash(entry_key(self.hidden_seed, self.campaign_id, self.epoch, at))
            for at in range(self.first_seq + start, self.first_seq + start + width)
        ]
        siblings = [
            nodes[((index - start) >> depth) ^ 1].hex()
            for depth, nodes in enumerate(_levels_up(leaves, 2))
        ]
        for depth, joined in enumerate(self.upper[:-1], SUBTREE_LEVELS):
            at = ((index >> depth) ^ 1) * _HASH_BYTES
            siblings.append(joined[at : at + _HASH_BYTES].hex())
        return siblings

    def _index(self, seq: int) -> int:
        if not self.covers(seq):
            raise DiceError(
                f"FAIR-16: seq {seq} is outside epoch {self.epoch}'s span "
                f"[{self.first_seq}, {self.first_seq + SPAN})"
            )
        return seq - self.first_seq


def proof_root(key: bytes, index: int, proof: Sequence[bytes]) -> bytes:
    """The root a key and its proof lead to, for the leaf at `index` of the span."""
    node = leaf_hash(key)
    for sibling in proof:
        node = node_hash(node, sibling) if index % 2 == 0 else node_hash(sibling, node)
        index //= 2
    return node


def check_key(key_hex: Any, proof_hex: Any, index: int, root_hex: str) -> bytes:
    """FAIR-17: the key, when it and its proof lead to the epoch's published root."""
    try:
        key = bytes.fromhex(key_hex)
        proof = [bytes.fromhex(sibling) for sibling in proof_hex]
    except (TypeError, ValueError):
        raise DiceError("an entry key and its proof are lowercase hex") from None
    if len(key) != 32 or len(proof) != LEVELS or any(len(s) != 32 for s in proof):
        raise DiceError(f"an entry key is 32 bytes and its proof {LEVELS} hashes of 32 bytes")
    if not 0 <= index < SPAN:
        raise DiceError(f"FAIR-16: the entry is outside its epoch's span of {SPAN} seqs")
    if proof_root(key, index, proof).hex() != root_hex:
        raise DiceError("FAIR-17: the entry key and proof do not lead to the epoch's hidden_root")
    return key


def value_commitment(salt: bytes, canonical_value: bytes) -> str:
    """FAIR-18: SHA-256(salt ‖ RFC 8785 JSON of the value), lowercase hex."""
    return hashlib.sha256(salt + canonical_value).hexdigest()


# --- FAIR-18: values committed in the hashed content ------------------------------------


def is_commitment(value: Any) -> bool:
    return isinstance(value, dict) and len(value) == 1 and isinstance(value.get(COMMIT), str)


# How orjson writes the key of a commitment.
COMMIT_KEY = f'"{COMMIT}":'.encode()


def has_commitment(value: Any) -> bool:
    """Whether a JSON value holds a `{"$commit": hex}` anywhere. Most hold no `"$commit":`
    key at all, which one search of their JSON shows; the others are walked."""
    if not json_may_contain(value, COMMIT_KEY):
        return False
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if is_commitment(item):
                return True
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def pointer_token(key: str) -> str:
    """RFC 6901: an object's key as one reference token of a JSON pointer."""
    return key.replace("~", "~0").replace("/", "~1")


def pointer_tokens(path: str) -> list[str]:
    """RFC 6901 JSON pointer → its reference tokens."""
    if not path.startswith("/"):
        raise DiceError(f"FAIR-18: a disclosure's path is a JSON pointer, got {path!r}")
    return [part.replace("~1", "/").replace("~0", "~") for part in path[1:].split("/")]


def open_commitments(
    entry: Mapping[str, Any],
    disclosures: Sequence[Mapping[str, Any]],
    canonical: Callable[[Any], bytes],
) -> dict[str, Any]:
    """The entry with every disclosed commitment replaced by its value (FAIR-18).

    Each disclosure names the commitment by its path in the entry; its salt and value must
    hash to that commitment. Values not disclosed stay committed.
    """
    opened = copy.deepcopy(dict(entry))
    for disclosure in disclosures:
        try:
            path, salt = str(disclosure["path"]), bytes.fromhex(disclosure["salt"])
            value = disclosure["value"]
        except (KeyError, TypeError, ValueError):
            raise DiceError("FAIR-18: a disclosure holds a path, a hex salt and a value") from None
        *parents, leaf = pointer_tokens(path)
        node: Any = opened
        try:
            for token in parents:
                node = node[int(token)] if isinstance(node, list) else node[token]
            key: Any = int(leaf) if isinstance(node, list) else leaf
            committed = node[key]
        except (KeyError, IndexError, ValueError, TypeError):
            raise DiceError(f"FAIR-18: the disclosure's path {path} leads nowhere") from None
        if not is_commitment(committed):
            raise DiceError(f"FAIR-18: nothing is committed at {path}")
        if value_commitment(salt, canonical(value)) != committed[COMMIT]:
            raise DiceError(f"FAIR-18: the value disclosed at {path} does not match its commitment")
        node[key] = value
    return opened


# A value a rule read from a character and shows in its result (a JDR Defense, a Fabulae
# pool's attribute): (pattern of the value in the result, pattern of that character in the
# request). Patterns are JSON pointers where `*` stands for any list index or object key
# (a result's targets keyed by character id).
CharacterValue = tuple[str, str]


REQUEST_PREFIX: Final = "/request/"  # an `npc_values` pattern that points into the request


def matches(document: Any, pattern: str) -> list[tuple[str, Any]]:
    """The (pointer, value) pairs a pattern reaches in a JSON document; absent or null
    values are not reached."""
    found: list[tuple[str, Any]] = [("", document)]
    for token in pattern.strip("/").split("/") if pattern.strip("/") else []:
        reached: list[tuple[str, Any]] = []
        for pointer, node in found:
            if token == "*" and isinstance(node, list):
                reached.extend((f"{pointer}/{i}", item) for i, item in enumerate(node))
            elif token == "*" and isinstance(node, Mapping):
                reached.extend((f"{pointer}/{pointer_token(key)}", node[key]) for key in node)
            elif isinstance(node, Mapping) and token in node:
                reached.append((f"{pointer}/{token}", node[token]))
        found = reached
    return [(pointer, value) for pointer, value in found if value is not None]


def npc_value_paths(
    request: Mapping[str, Any], result: Mapping[str, Any], declared: Sequence[CharacterValue]
) -> list[str]:
    """FAIR-18: the pointers (`/result/...`) of the values a kind declares it read from a
    character, where that character is an NPC; a pattern under `/request/` points into the
    request instead (a follow-up that carries the result it follows). Only identities are
    read (an NPC keeps its `kind` beside its committed sheet), so the service and every
    verifier agree."""
    paths: set[str] = set()
    for value_pattern, character_pattern in declared:
        characters = [value for _, value in matches(request, character_pattern)]
        if any(isinstance(c, Mapping) and c.get("kind") == "npc" for c in characters):
            if value_pattern.startswith(REQUEST_PREFIX):
                inner = value_pattern.removeprefix(REQUEST_PREFIX.rstrip("/"))
                paths.update(f"/request{pointer}" for pointer, _ in matches(request, inner))
            else:
                paths.update(f"/result{pointer}" for pointer, _ in matches(result, value_pattern))
    return sorted(paths)
