"""Dice sources: uniformity (exhaustive and statistical) and the replay source (FAIR-7, FAIR-8)."""

import hmac
from collections import Counter

import pytest

from app.engine.dice import HmacDiceStream, HmacSha256, ReplayDice, face_from_word, stream_gives
from app.engine.errors import DiceError

# Critical values of the chi-square distribution at p = 0.001 (standard tables).
CHI2_CRITICAL_P001 = {5: 20.515, 9: 27.877}


@pytest.mark.parametrize("sides", range(2, 21))
def test_FAIR_7_rejection_rule_is_exactly_uniform_on_16_bit_words(sides):
    # The same rule on a reduced word size, every word enumerated: each face gets exactly
    # the same number of words, and only the tail that would bias the result is rejected.
    counts = Counter(face_from_word(word, sides, bits=16) for word in range(2**16))
    rejected = counts.pop(None, 0)
    assert rejected == 2**16 % sides
    assert set(counts) == set(range(1, sides + 1))
    assert len(set(counts.values())) == 1


@pytest.mark.parametrize("sides", [6, 10])
def test_FAIR_7_chi_square_over_a_million_draws(sides):
    stream = HmacDiceStream(bytes(range(32)), "chi-square", 1, "fixed", 1)
    draws = 1_000_000
    counts = Counter(stream.roll(sides) for _ in range(draws))
    expected = draws / sides
    statistic = sum((counts[face] - expected) ** 2 / expected for face in range(1, sides + 1))
    assert statistic < CHI2_CRITICAL_P001[sides - 1], statistic


def test_FAIR_8_replay_hands_back_recorded_faces():
    replay = ReplayDice([{"sides": 6, "face": 4}, {"sides": 10, "face": 10}])
    assert replay.roll(6) == 4
    assert replay.roll(10) == 10
    replay.assert_consumed()
    assert replay.draws == [{"sides": 6, "face": 4}, {"sides": 10, "face": 10}]


def test_FAIR_8_replay_fails_on_a_die_not_recorded():
    replay = ReplayDice([{"sides": 6, "face": 4}])
    replay.roll(6)
    with pytest.raises(DiceError, match="only 1 were recorded"):
        replay.roll(6)


def test_FAIR_8_replay_fails_on_other_sides():
    with pytest.raises(DiceError, match="asked for a d10, the record holds a d6"):
        ReplayDice([{"sides": 6, "face": 4}]).roll(10)


def test_FAIR_8_replay_fails_on_an_impossible_face():
    with pytest.raises(DiceError, match="impossible"):
        ReplayDice([{"sides": 6, "face": 7}]).roll(6)


def test_FAIR_8_replay_fails_when_dice_are_left_over():
    replay = ReplayDice([{"sides": 6, "face": 4}, {"sides": 6, "face": 2}])
    replay.roll(6)
    with pytest.raises(DiceError, match="2 dice were recorded but the rules used 1"):
        replay.assert_consumed()


def test_stream_records_every_draw_and_refuses_impossible_dice():
    stream = HmacDiceStream(bytes(32), "c", 1, "", 1)
    faces = [stream.roll(20) for _ in range(5)]
    assert [d["face"] for d in stream.draws] == faces
    with pytest.raises(DiceError):
        stream.roll(0)
    with pytest.raises(DiceError):
        HmacDiceStream(b"short", "c", 1, "", 1)


@pytest.mark.parametrize("key_length", [0, 1, 32, 63, 64, 65, 200])
def test_FAIR_6_hmac_with_its_pads_hashed_once_is_rfc_2104(key_length):
    key = bytes((7 * i + key_length) % 256 for i in range(key_length))
    signer = HmacSha256(key)
    for message in (b"", b"c0ffee:1::3:0", bytes(range(256)) * 3):
        assert signer.digest(message) == hmac.digest(key, message, "sha256")


@pytest.mark.parametrize(
    "sides",
    [
        [6, 6, 6],
        [20] * 9,  # past one block of eight words
        [2**32 - 1] * 12,  # rejects about half its words (FAIR-7)
        [3, 2**31 + 1, 1, 100, 2**32],
    ],
)
def test_FAIR_6_verification_rederives_the_streams_faces(sides):
    """Verification's lean re-derivation accepts the faces the service's stream drew, and
    no other face anywhere."""
    seed = bytes(range(32))
    stream = HmacDiceStream(seed, "c0ffee", 3, "table-42", 17)
    for s in sides:
        stream.roll(s)
    draws = stream.draws
    key = HmacSha256(seed)
    assert stream_gives(key, "c0ffee", 3, "table-42", 17, draws)
    assert not stream_gives(key, "c0ffee", 3, "table-42", 18, draws)  # another nonce
    for index, draw in enumerate(draws):
        if draw["sides"] > 1:
            changed = [*draws[:index], {**draw, "face": draw["face"] % draw["sides"] + 1}]
            assert not stream_gives(key, "c0ffee", 3, "table-42", 17, changed)


def test_FAIR_6_rederiving_refuses_impossible_dice_and_draws_without_faces():
    key = HmacSha256(bytes(32))
    with pytest.raises(DiceError, match=r"1\.\.2\^32 sides, got 0"):
        stream_gives(key, "c", 1, "", 1, [{"sides": 0, "face": 1}])
    with pytest.raises(KeyError):
        stream_gives(key, "c", 1, "", 1, [{"sides": 6}])
