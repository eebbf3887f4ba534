"""The normative vectors of FAIR-16..18 (fairness.md, "Hidden rolls and secret inputs")."""

from __future__ import annotations

import hashlib

import pytest

from app.engine.audit import canonical_json
from app.engine.dice import HmacDiceStream
from app.engine.errors import DiceError
from app.engine.hidden import KeyTree, check_key, entry_key, value_commitment

CAMPAIGN = "c0ffee00-0000-4000-8000-000000000001"
HIDDEN_SEED = bytes(range(0x20, 0x40))
ROOT = "b97097a6e446cabd1ff896ca74ce3c36a803c43993b991e31b30ef4f7f0f8045"
PROOF_9 = [
    "08c97a294e8126ca353c8d9b08f004e611e561c05783743c663b12c3e49c4dfe",
    "ccbc7c1963574e2c38671ab3df9e63507a9fc5e1bfdbe3b90b15fccf4ef03d9e",
    "e5ae6891b1ad0ee91048b3b41732fed65d68a49f422f5f846697b0d2a30a6211",
    "0eacb2ac22c3121bebbbeb1e969db01546a0c36afa4508cd4176d31fdefab42c",
    "30a6e19133d5a09b908475c9e30de071eeae93decc1986451d20f5d563d49686",
    "a4d6a75f8a35b6bf4e711182e957e678148ebbc778ef89b8872efb759894ace7",
    "edd9a76f3638a96a395e5e000ec71c89f7ca9340ea146e735d72cc8104efe460",
    "38421de6fc73d3c8eadfb60b13f3f975310fae6818c2a3065697bad8433ceaa7",
    "29a05754b55722f4b5d19243e37a8d2bd3acb546d2503c393e063e859e04d0af",
    "1f0acbb237bbab182734ebc360607b4d4a7a725e4c75d2afc1ccaad699908d1b",
    "591434cc95a1b38a8596a29ea4ab3f117ac3d179b0b89a8559805cd635275cbe",
    "1bf40817c42108e7f87bf13164e97528cc80fb1096550ba9043de81d2629203c",
]
KEY_9 = "a7f515c78016572b41f19722cbd031f2db53bbfc4e87ca97d1b4872171c847db"


@pytest.fixture(scope="module")
def tree() -> KeyTree:
    return KeyTree.build(HIDDEN_SEED, CAMPAIGN, epoch=1, first_seq=1)


def test_FAIR_16_hidden_seed_digest_vector():
    assert (
        hashlib.sha256(HIDDEN_SEED).hexdigest()
        == "72dbb7336c76780023f83da4c355f2eeea85733b13d3477697917790c1229084"
    )


def test_FAIR_16_entry_key_vector():
    assert entry_key(HIDDEN_SEED, CAMPAIGN, 1, 9).hex() == KEY_9


def test_FAIR_16_hidden_root_vector(tree: KeyTree):
    assert tree.root == ROOT


def test_FAIR_17_proof_vector(tree: KeyTree):
    assert tree.key(9).hex() == KEY_9
    assert tree.proof(9) == PROOF_9


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
    stream = HmacDiceStream(bytes.fromhex(KEY_9), CAMPAIGN, 1, "table-42", 9)
    assert [stream.roll(6) for _ in range(6)] == [6, 5, 3, 6, 2, 1]
    assert stream.roll(20) == 10


def test_FAIR_16_seqs_outside_the_span_have_no_key(tree: KeyTree):
    assert tree.covers(4096) and not tree.covers(4097) and not tree.covers(0)
    with pytest.raises(DiceError, match="FAIR-16"):
        tree.key(4097)


def test_FAIR_18_value_commitment_vector():
    value = {"attributes": {"physique": 4}, "note": "secret: est le voïvode déguisé"}
    assert (
        value_commitment(bytes(range(16)), canonical_json(value))
        == "15d67fcc608546856520073d8388bde221be5b9e657df88002f8c1c069ca1f2c"
    )
