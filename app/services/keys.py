"""The entry keys of each epoch (FAIR-16/17), built once per process and kept for proofs."""

from __future__ import annotations

from functools import lru_cache

from app.engine.hidden import KeyTree

# Trees kept per process: the epochs of that many campaigns making hidden rolls. A tree takes
# 4096 HMACs to build (about 11 ms) and 8 KB to keep (hidden.KeyTree); with too few kept,
# a worker serving more campaigns than that rebuilt one for every hidden roll (issue 23).
KEPT_TREES = 1024


@lru_cache(maxsize=KEPT_TREES)
def key_tree(hidden_seed: str, campaign_id: str, epoch: int, first_seq: int) -> KeyTree:
    """The Merkle tree of an epoch's entry keys: 4096 HMACs, so built once and cached."""
    return KeyTree.build(bytes.fromhex(hidden_seed), campaign_id, epoch, first_seq)
