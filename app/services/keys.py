"""The entry keys of each epoch (FAIR-16/17), built once per process and kept for proofs."""

from __future__ import annotations

from functools import lru_cache

from app.engine.hidden import KeyTree


@lru_cache(maxsize=16)
def key_tree(hidden_seed: str, campaign_id: str, epoch: int, first_seq: int) -> KeyTree:
    """The Merkle tree of an epoch's entry keys: 4096 HMACs, so built once and cached."""
    return KeyTree.build(bytes.fromhex(hidden_seed), campaign_id, epoch, first_seq)
