"""The normative vectors of FAIR-16..18 (fairness.md, "Hidden rolls and secret inputs"),
from fairness_vectors."""

from __future__ import annotations

import hashlib

import pytest

from app.engine.canonical import canonical_json
from app.engine.dice import HmacDiceStream
from app.engine.errors import DiceError
from app.engine.hidden import (
    SPAN,
    KeyTree,
    check_key,
    entry_key,
    leaf_hash,
    node_hash,
    value_commitment,
)
from tests.engine import fairness_vectors as v

CAMPAIGN = v.CAMPAIGN
HIDDEN_SEED = v.HIDDEN_SEED
ROOT = v.ROOT
PROOF_9 = v.PROOF_9
KEY_9 = v.KEY_9


@pytest.fixture(scope="module")
def tree() -> KeyTree:
    return KeyTree.build(HIDDEN_SEED, CAMPAIGN, epoch=1, first_seq=1)


def test_FAIR_16_hidden_seed_digest_vector():
    assert HIDDEN_SEED.hex() == v.HIDDEN_SEED_HEX
    assert hashlib.sha256(HIDDEN_SEED).hexdigest() == v.HIDDEN_SEED_SHA256


def test_FAIR_16_entry_key_vector():
    assert entry_key(HIDDEN_SEED, CAMPAIGN, 1, 9).hex() == KEY_9


def test_FAIR_16_hidden_root_vector(tree: KeyTree):
    assert tree.root == ROOT


def test_FAIR_17_proof_vector(tree: KeyTree):
    assert tree.key(9).hex() == KEY_9
    assert tree.proof(9) == PROOF_9


def test_FAIR_17_every_key_and_proof_match_the_whole_tree_built_level_by_level(tree: KeyTree):
    """The tree keeps only its upper levels and rebuilds a proof's subtree: brute force
    against every level of the tree as FAIR-16/17 define it, for every seq of the span."""
    keys = [entry_key(HIDDEN_SEED, CAMPAIGN, 1, seq) for seq in range(1, SPAN + 1)]
    levels = [[leaf_hash(key) for key in keys]]
    while len(levels[-1]) > 1:
        below = levels[-1]
        levels.append([node_hash(below[i], below[i + 1]) for i in range(0, len(below), 2)])
    assert tree.root == levels[-1][0].hex() == ROOT
    for index, key in enumerate(keys):
        proof, at = [], index
        for level in levels[:-1]:
            proof.append(level[at ^ 1].hex())
            at //= 2
        assert tree.key(index + 1) == key
        assert tree.proof(index + 1) == proof
        assert check_key(key.hex(), proof, index, ROOT) == key


def test_FAIR_17_a_later_epochs_keys_and_proofs_match_its_whole_tree():
    """The same brute force for an epoch opened at seq 4097, at each subtree's edges."""
    later = KeyTree.build(HIDDEN_SEED, CAMPAIGN, epoch=2, first_seq=4097)
    keys = [entry_key(HIDDEN_SEED, CAMPAIGN, 2, seq) for seq in range(4097, 4097 + SPAN)]
    levels = [[leaf_hash(key) for key in keys]]
    while len(levels[-1]) > 1:
        below = levels[-1]
        levels.append([node_hash(below[i], below[i + 1]) for i in range(0, len(below), 2)])
    assert later.root == levels[-1][0].hex()
    for index in (0, 1, 30, 31, 32, 33, 2047, 2048, 4062, 4095):
        proof, at = [], index
        for level in levels[:-1]:
            proof.append(level[at ^ 1].hex())
            at //= 2
        assert later.key(4097 + index) == keys[index]
        assert later.proof(4097 + index) == proof
    assert HIDDEN_SEED.hex() not in repr(later)  # the epoch's secret stays out of logs


def test_a_key_tree_keeps_255_hashes_so_a_worker_keeps_many(tree: KeyTree):
    """Issue 23: the levels above the 32-key subtrees (8 KB), not the 12,287 hashes and keys
    of every level (0.9 MB), which limited a worker to 16 trees: past 16 campaigns making
    hidden rolls, it rebuilt one (4096 HMACs) for every hidden roll."""
    assert sum(len(level) for level in tree.upper) == 255 * 32


def test_FAIR_17_proof_checks_against_the_root():
    assert check_key(KEY_9, PROOF_9, 9 - 1, ROOT).hex() == KEY_9


def test_FAIR_17_a_wrong_key_or_position_does_not_reach_the_root():
    other = entry_key(HIDDEN_SEED, CAMPAIGN, 1, 10).hex()
    with pytest.raises(DiceError, match="FAIR-17"):
        check_key(other, PROOF_9, 8, ROOT)
    with pytest.raises(DiceError, match="FAIR-17"):
        check_key(KEY_9, PROOF_9, 9, ROOT)  # the leaf of seq 10, not 9
    with pytest.raises(DiceError, match="12 hashes"):
        check_key(KEY_9, PROOF_9[:-1], 8, ROOT)
    with pytest.raises(DiceError, match="hex"):
        check_key("zz", PROOF_9, 8, ROOT)


def test_FAIR_17_hidden_entry_dice_vector():
    stream = HmacDiceStream(bytes.fromhex(KEY_9), CAMPAIGN, 1, v.CLIENT_SEED, v.HIDDEN_SEQ)
    for sides, faces in v.HIDDEN_DICE:
        assert [stream.roll(sides) for _ in faces] == faces
    assert [face for _, faces in v.HIDDEN_DICE for face in faces] == [6, 5, 3, 6, 2, 1, 10]


def test_FAIR_16_seqs_outside_the_span_have_no_key(tree: KeyTree):
    assert tree.covers(4096) and not tree.covers(4097) and not tree.covers(0)
    with pytest.raises(DiceError, match="FAIR-16"):
        tree.key(4097)


def test_FAIR_18_value_commitment_vector():
    assert v.SALT.hex() == v.SALT_HEX
    assert value_commitment(v.SALT, canonical_json(v.COMMITTED_VALUE)) == v.VALUE_COMMITMENT
