"""The normative test vectors of fairness.md (FAIR-1, FAIR-6, FAIR-7), from fairness_vectors."""

import hashlib
import hmac

from app.engine.dice import HmacDiceStream, commitment, stream_message
from tests.engine import fairness_vectors as v


def test_FAIR_1_commitment_vector():
    assert v.SEED.hex() == v.SEED_HEX
    assert commitment(v.SEED) == v.COMMITMENT


def test_FAIR_6_first_block_and_its_words():
    message = stream_message(v.CAMPAIGN, v.EPOCH, v.CLIENT_SEED, v.NONCE, 0)
    block = hmac.new(v.SEED, message, hashlib.sha256).digest()
    assert block.hex() == v.BLOCK_0
    assert [int.from_bytes(block[i : i + 4], "big") for i in range(0, 32, 4)] == v.WORDS_0


def test_FAIR_7_dice_in_order_from_one_stream():
    client_seed, nonce, dice = v.STREAMS[0]
    stream = HmacDiceStream(v.SEED, v.CAMPAIGN, v.EPOCH, client_seed, nonce)
    for sides, faces in dice:
        assert [stream.roll(sides) for _ in faces] == faces
    assert len(stream.draws) == 18
    assert stream.draws[0] == {"sides": 6, "face": 1}
    assert stream.draws[-1] == {"sides": 3, "face": 3}


def test_FAIR_7_empty_client_seed_nonce_1():
    client_seed, nonce, [(sides, faces)] = v.STREAMS[1]
    assert (client_seed, nonce, sides) == ("", 1, 6)
    stream = HmacDiceStream(v.SEED, v.CAMPAIGN, v.EPOCH, client_seed, nonce)
    assert [stream.roll(sides) for _ in faces] == faces == [1, 4, 6, 1]


def test_FAIR_7_rejection_sampling_crosses_into_the_next_block():
    client_seed, nonce, [(sides, faces)] = v.STREAMS[2]
    assert sides == 2**31 + 1
    stream = HmacDiceStream(v.SEED, v.CAMPAIGN, v.EPOCH, client_seed, nonce)
    assert [stream.roll(sides) for _ in faces] == faces
