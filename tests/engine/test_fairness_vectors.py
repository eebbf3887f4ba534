"""The normative test vectors of fairness.md (FAIR-1, FAIR-6, FAIR-7, FAIR-11)."""

import hashlib
import hmac

from app.engine.dice import HmacDiceStream, commitment, stream_message

SEED = bytes(range(32))
CAMPAIGN = "c0ffee00-0000-4000-8000-000000000001"


def test_FAIR_1_commitment_vector():
    assert SEED.hex() == "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
    assert commitment(SEED) == "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"


def test_FAIR_6_first_block_and_its_words():
    block = hmac.new(SEED, stream_message(CAMPAIGN, 1, "table-42", 7, 0), hashlib.sha256).digest()
    assert block.hex() == "9ea2d744eb61f5e5b2c306be9ba78b126c1267aba5621155b8b4f1fa0b0a73e7"
    words = [int.from_bytes(block[i : i + 4], "big") for i in range(0, 32, 4)]
    assert words == [
        2661472068,
        3949065701,
        2999125694,
        2611448594,
        1813145515,
        2774667605,
        3098866170,
        185234407,
    ]


def test_FAIR_7_dice_in_order_from_one_stream():
    stream = HmacDiceStream(SEED, CAMPAIGN, 1, "table-42", 7)
    assert [stream.roll(6) for _ in range(10)] == [1, 6, 3, 3, 2, 6, 1, 2, 4, 5]
    assert [stream.roll(10) for _ in range(5)] == [10, 4, 6, 6, 8]
    assert stream.roll(12) == 3
    assert stream.roll(20) == 19
    assert stream.roll(3) == 3
    assert len(stream.draws) == 18
    assert stream.draws[0] == {"sides": 6, "face": 1}
    assert stream.draws[-1] == {"sides": 3, "face": 3}


def test_FAIR_7_empty_client_seed_nonce_1():
    stream = HmacDiceStream(SEED, CAMPAIGN, 1, "", 1)
    assert [stream.roll(6) for _ in range(4)] == [1, 4, 6, 1]


def test_FAIR_7_rejection_sampling_crosses_into_the_next_block():
    stream = HmacDiceStream(SEED, CAMPAIGN, 1, "table-42", 7)
    sides = 2**31 + 1
    assert [stream.roll(sides) for _ in range(3)] == [1813145516, 185234408, 1427382532]
