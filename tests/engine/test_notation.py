"""Generic dice notation (roll kind `dice`): parse, evaluate, format.

The keep-highest / keep-lowest rule is checked exhaustively (every face combination of small
pools, no sampling) against a brute force over every K-subset of the dice.
"""

from __future__ import annotations

import itertools

import pytest
from pydantic import ValidationError

from app.engine.dice import HmacDiceStream, ReplayDice
from app.engine.errors import DiceError, InvalidInput
from app.engine.notation import (
    ConstantTerm,
    DiceTerm,
    canonical,
    evaluate,
    parse,
)
from tests.engine.rules import resolve


def evaluated(terms, dice):
    """evaluate's result as the log stores it."""
    return evaluate(terms, dice).dump()


def replay(*draws: tuple[int, int]) -> ReplayDice:
    """A replay source from (sides, face) pairs."""
    return ReplayDice([{"sides": sides, "face": face} for sides, face in draws])


# --- parse and canonical form ------------------------------------------------------------


@pytest.mark.parametrize(
    ("notation", "terms", "text"),
    [
        ("2d6+3", [DiceTerm(1, 2, 6), ConstantTerm(1, 3)], "2d6+3"),
        ("3d6kh2", [DiceTerm(1, 3, 6, "h", 2)], "3d6kh2"),
        ("1d12", [DiceTerm(1, 1, 12)], "1d12"),
        ("4d10-1", [DiceTerm(1, 4, 10), ConstantTerm(-1, 1)], "4d10-1"),
        ("3d6kl1", [DiceTerm(1, 3, 6, "l", 1)], "3d6kl1"),
        ("1d1", [DiceTerm(1, 1, 1)], "1d1"),
        ("7", [ConstantTerm(1, 7)], "7"),
        ("0", [ConstantTerm(1, 0)], "0"),
        (" 2 d 6 + 3 ", [DiceTerm(1, 2, 6), ConstantTerm(1, 3)], "2d6+3"),
        ("3D6KH2", [DiceTerm(1, 3, 6, "h", 2)], "3d6kh2"),
        ("2D8 - 1D4 + 2", [DiceTerm(1, 2, 8), DiceTerm(-1, 1, 4), ConstantTerm(1, 2)], "2d8-1d4+2"),
        ("-1d6+2", [DiceTerm(-1, 1, 6), ConstantTerm(1, 2)], "-1d6+2"),
        ("-3", [ConstantTerm(-1, 3)], "-3"),
        ("+1d6", [DiceTerm(1, 1, 6)], "1d6"),
        ("02d006kh01", [DiceTerm(1, 2, 6, "h", 1)], "2d6kh1"),
        ("100d1000", [DiceTerm(1, 100, 1000)], "100d1000"),
        ("50d6+50d6", [DiceTerm(1, 50, 6), DiceTerm(1, 50, 6)], "50d6+50d6"),
        ("10000", [ConstantTerm(1, 10000)], "10000"),
        ("4d6kh4", [DiceTerm(1, 4, 6, "h", 4)], "4d6kh4"),
        ("+".join(["1"] * 20), [ConstantTerm(1, 1)] * 20, "+".join(["1"] * 20)),
    ],
)
def test_valid_notation_parses_to_its_terms_and_canonical_form(notation, terms, text):
    parsed = parse(notation)
    assert parsed == terms
    assert canonical(parsed) == text
    # The canonical form is a fixed point.
    assert canonical(parse(text)) == text


def test_notation_of_exactly_100_characters_is_accepted():
    notation = "1000+" * 19 + "10000"  # 20 terms: 95 + 5 = 100 characters
    assert len(notation) == 100
    assert len(parse(notation)) == 20


def test_length_is_counted_with_spaces():
    # The limit bounds the work a request may ask for, so it counts what was sent.
    notation = "1000+" * 19 + " 10000 "
    assert len(notation) == 102
    with pytest.raises(InvalidInput, match="longer than 100"):
        parse(notation)
    assert canonical(parse(notation.replace(" ", ""))) == "1000+" * 19 + "10000"


def test_only_ascii_digits_count():
    with pytest.raises(InvalidInput):
        parse("２d６")


# --- refusals ----------------------------------------------------------------------------

TOO_LONG = "1+" * 50 + "1"  # 101 characters
TWENTY_ONE_TERMS = "+".join(["1"] * 21)


@pytest.mark.parametrize(
    ("notation", "reason"),
    [
        ("", "it is empty"),
        ("   ", "it is empty"),
        (TOO_LONG, "it is longer than 100 characters"),
        ("101d6", "101 dice asked, at most 100 per roll"),
        ("60d6+41d6", "101 dice asked, at most 100 per roll"),
        ("50d6+50d4+1d8", "101 dice asked, at most 100 per roll"),
        ("100d6-1d6", "101 dice asked, at most 100 per roll"),
        ("1d1001", "d1001: dice have 1..1000 sides"),
        ("2d0", "d0: dice have 1..1000 sides"),
        ("0d6", "a dice term rolls at least one die"),
        ("0d6+1d6", "a dice term rolls at least one die"),
        ("3d6kh0", "keep 0 of 3 dice: keep 1..3"),
        ("3d6kl0", "keep 0 of 3 dice: keep 1..3"),
        ("3d6kh4", "keep 4 of 3 dice: keep 1..3"),
        ("1d6kl2", "keep 2 of 1 dice: keep 1..1"),
        ("2d6+", "expected a term at position 5, found the end"),
        ("2d6-", "expected a term at position 5, found the end"),
        ("-", "expected a term at position 2, found the end"),
        ("2d6*3", "expected + or - at position 4"),
        ("*", "expected a term at position 1, found '*'"),
        ("2d6+*3", "expected a term at position 5, found '*'"),
        ("d6", "expected a term at position 1, found 'd'"),
        ("2d6+d6", "expected a term at position 5, found 'd'"),
        ("2d", "expected + or - at position 2"),
        ("3d6kh", "expected + or - at position 4"),
        ("3d6kx2", "expected + or - at position 4"),
        ("2d6++3", "expected a term at position 5, found '+'"),
        ("--1", "expected a term at position 2, found '-'"),
        ("1d6.5", "expected + or - at position 4"),
        ("1d6x", "expected + or - at position 4"),
        ("10001", "constant 10001 is above 10000"),
        ("1d6+10001", "constant 10001 is above 10000"),
        (TWENTY_ONE_TERMS, "more than 20 terms"),
    ],
)
def test_invalid_notation_says_what_is_wrong(notation, reason):
    with pytest.raises(InvalidInput) as caught:
        parse(notation)
    error = caught.value
    assert error.detail.startswith(f"invalid dice notation '{notation}': {reason}. ")
    assert "e.g. 3d6kh2+1" in error.detail
    assert error.errors[0]["loc"] == ["body", "notation"]
    assert error.errors[0]["msg"] == reason
    assert error.errors[0]["type"] == "dice_notation"


def test_a_dice_request_without_a_string_notation_is_refused():
    with pytest.raises(ValidationError, match="notation"):
        resolve("dice", {}, replay())
    with pytest.raises(ValidationError, match="notation"):
        resolve("dice", {"notation": 6}, replay())


# --- evaluate with chosen faces ----------------------------------------------------------


def test_evaluate_shows_every_term_and_the_total():
    dice = replay((6, 4), (6, 2))
    assert evaluated(parse("2d6+3"), dice) == {
        "notation": "2d6+3",
        "terms": [
            {"term": "2d6", "sign": 1, "dice": [4, 2], "kept": [True, True], "value": 6},
            {"term": "3", "sign": 1, "value": 3},
        ],
        "total": 9,
    }
    dice.assert_consumed()


def test_evaluate_keep_highest_marks_the_dropped_die():
    dice = replay((6, 2), (6, 5), (6, 3))
    assert evaluated(parse("3d6kh2"), dice) == {
        "notation": "3d6kh2",
        "terms": [
            {
                "term": "3d6kh2",
                "sign": 1,
                "dice": [2, 5, 3],
                "kept": [False, True, True],
                "value": 8,
            }
        ],
        "total": 8,
    }
    dice.assert_consumed()


def test_evaluate_keep_lowest_and_ties_keep_the_earlier_die():
    dice = replay((6, 4), (6, 1), (6, 1))
    result = evaluated(parse("3d6kl1"), dice)
    assert result["terms"] == [
        {"term": "3d6kl1", "sign": 1, "dice": [4, 1, 1], "kept": [False, True, False], "value": 1}
    ]
    assert result["total"] == 1
    dice = replay((6, 5), (6, 5), (6, 5))
    result = evaluated(parse("3d6kh2"), dice)
    assert result["terms"][0]["kept"] == [True, True, False]
    assert result["total"] == 10


def test_evaluate_negative_terms_and_constants_carry_their_sign():
    dice = replay((10, 7), (10, 1), (10, 10), (10, 3), (4, 3))
    assert evaluated(parse("-2 + 4D10 - 1d4 - 1"), dice) == {
        "notation": "-2+4d10-1d4-1",
        "terms": [
            {"term": "2", "sign": -1, "value": 2},
            {
                "term": "4d10",
                "sign": 1,
                "dice": [7, 1, 10, 3],
                "kept": [True, True, True, True],
                "value": 21,
            },
            {"term": "1d4", "sign": -1, "dice": [3], "kept": [True], "value": 3},
            {"term": "1", "sign": -1, "value": 1},
        ],
        "total": -2 + 21 - 3 - 1,
    }
    dice.assert_consumed()


def test_evaluate_a_negative_keep_term_subtracts_the_kept_dice_only():
    dice = replay((20, 3), (20, 17))
    result = evaluated(parse("10-2d20kh1"), dice)
    assert result["terms"][1] == {
        "term": "2d20kh1",
        "sign": -1,
        "dice": [3, 17],
        "kept": [False, True],
        "value": 17,
    }
    assert result["total"] == -7


def test_evaluate_a_constant_only_notation_draws_nothing():
    dice = replay()
    assert evaluated(parse("5-2"), dice) == {
        "notation": "5-2",
        "terms": [
            {"term": "5", "sign": 1, "value": 5},
            {"term": "2", "sign": -1, "value": 2},
        ],
        "total": 3,
    }
    assert dice.draws == []
    dice.assert_consumed()


def test_draws_recorded_are_the_faces_consumed_in_order():
    faces = [(8, 8), (8, 1), (6, 6), (6, 2), (6, 4), (12, 11)]
    dice = replay(*faces)
    result = evaluated(parse("2d8+3d6kl2-1d12"), dice)
    dice.assert_consumed()
    assert dice.draws == [{"sides": s, "face": f} for s, f in faces]
    shown = [face for term in result["terms"] for face in term.get("dice", [])]
    assert shown == [f for _, f in faces]
    assert result["total"] == 9 + 6 - 11


def test_replay_of_too_few_or_other_dice_fails():
    with pytest.raises(DiceError, match="only 1 were recorded"):
        evaluated(parse("2d6"), replay((6, 3)))
    with pytest.raises(DiceError, match="asked for a d6, the record holds a d8"):
        evaluated(parse("1d6"), replay((8, 3)))
    dice = replay((6, 3), (6, 4))
    evaluated(parse("1d6"), dice)
    with pytest.raises(DiceError, match="2 dice were recorded but the rules used 1"):
        dice.assert_consumed()


def test_dice_kind_on_the_normative_stream():
    # fairness.md vectors: client seed table-42, nonce 7: ten d6, five d10, d12, d20, d3.
    stream = HmacDiceStream(
        bytes(range(32)), "c0ffee00-0000-4000-8000-000000000001", 1, "table-42", 7
    )
    resolution = resolve("dice", {"notation": "10d6kh3+5d10kl2-1d12+1d20+1d3"}, stream)
    assert resolution.effects == []
    terms = resolution.result["terms"]
    assert terms[0]["dice"] == [1, 6, 3, 3, 2, 6, 1, 2, 4, 5]
    assert terms[0]["kept"] == [False, True, False, False, False, True, False, False, False, True]
    assert terms[0]["value"] == 17
    assert terms[1]["dice"] == [10, 4, 6, 6, 8]
    assert terms[1]["kept"] == [False, True, True, False, False]
    assert terms[1]["value"] == 10
    assert [t["dice"] for t in terms[2:]] == [[3], [19], [3]]
    assert resolution.result["total"] == 17 + 10 - 3 + 19 + 3
    assert [d["face"] for d in stream.draws] == [
        1,
        6,
        3,
        3,
        2,
        6,
        1,
        2,
        4,
        5,
        10,
        4,
        6,
        6,
        8,
        3,
        19,
        3,
    ]
    assert [d["sides"] for d in stream.draws] == [6] * 10 + [10] * 5 + [12, 20, 3]


# --- exhaustive keep-highest / keep-lowest -----------------------------------------------


def brute_force_kept(faces: tuple[int, ...], keep: str, kept: int) -> tuple[int, ...]:
    """The indices kept: of all K-subsets, the first (lexicographic) with the best sum.

    `combinations` yields subsets in lexicographic order, and max/min return the first best
    one, which is the subset preferring earlier dice among tied faces.
    """
    subsets = itertools.combinations(range(len(faces)), kept)
    pick = max if keep == "h" else min
    return pick(subsets, key=lambda subset: sum(faces[i] for i in subset))


POOLS = [(count, sides) for count in range(1, 5) for sides in (2, 3, 4, 6)]


@pytest.mark.parametrize("keep", ["h", "l"])
@pytest.mark.parametrize(("count", "sides"), POOLS)
def test_keep_is_exact_for_every_face_combination(keep, count, sides):
    checked = 0
    for kept in range(1, count + 1):
        terms = parse(f"{count}d{sides}k{keep}{kept}")
        for faces in itertools.product(range(1, sides + 1), repeat=count):
            dice = ReplayDice([{"sides": sides, "face": face} for face in faces])
            result = evaluated(terms, dice)
            dice.assert_consumed()
            assert dice.draws == [{"sides": sides, "face": face} for face in faces]

            (term,) = result["terms"]
            flags = term["kept"]
            assert term["dice"] == list(faces)
            assert sum(flags) == kept
            ranked = sorted(faces, reverse=keep == "h")
            assert term["value"] == sum(ranked[:kept])
            assert term["value"] == sum(f for f, k in zip(faces, flags, strict=True) if k)
            assert result["total"] == term["value"]
            expected = brute_force_kept(faces, keep, kept)
            assert tuple(i for i, k in enumerate(flags) if k) == expected, faces
            checked += 1
    assert checked == count * sides**count
