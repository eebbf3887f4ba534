"""Issue 21, point 5: dice notation as dice-bot users write it, rolled with the campaign's
dice, every draw recorded and replayed, written out as the d20 library writes it."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine.dice import HmacDiceStream, ReplayDice
from app.engine.dicenotation.grammar import parse
from app.engine.errors import InvalidInput
from app.engine.registry import DEFAULT_REGISTRY
from tests.engine.rules import resolve

CURRENT = "dice@3"  # the rules version new rolls use


def replay(sides: int, *faces: int) -> ReplayDice:
    return ReplayDice([{"sides": sides, "face": face} for face in faces])


def roll(notation: str, sides: int, *faces: int, **request: str) -> dict:
    return resolve(
        "dice", {"notation": notation, **request}, replay(sides, *faces), rules=CURRENT
    ).result


# --- what the issue names, each with the faces it draws -----------------------------------


@pytest.mark.parametrize(
    ("notation", "sides", "faces", "total", "rendered"),
    [
        ("d20", 20, [15], 15, "1d20 (15) = 15"),
        ("4d6dl1", 6, [5, 3, 6, 1], 14, "4d6dl1 (5, 3, 6, ~~1~~) = 14"),
        ("4d6kh3", 6, [5, 3, 6, 1], 14, "4d6kh3 (5, 3, 6, ~~1~~) = 14"),
        ("4d6dh1", 6, [5, 3, 6, 1], 9, "4d6dh1 (5, 3, ~~6~~, 1) = 9"),
        ("2d20kl1", 20, [17, 4], 4, "2d20kl1 (~~17~~, 4) = 4"),
        ("3d6!", 6, [6, 2, 3, 6, 1], 18, "3d6! (6!, 2, 3, 6!, 1) = 18"),
        ("2d6!>5", 6, [5, 1, 4], 10, "2d6!>5 (5!, 1, 4) = 10"),
        ("1d6e6", 6, [6, 6, 2], 14, "1d6e6 (6!, 6!, 2) = 14"),
        ("5d10>6", 10, [6, 2, 10, 5, 7], 3, "5d10>6 (**6**, 2, **10**, 5, **7**) = 3"),
        ("3d6<2", 6, [1, 2, 3], 2, "3d6<2 (**1**, **2**, 3) = 2"),
        ("3d6=6", 6, [6, 2, 6], 2, "3d6=6 (**6**, 2, **6**) = 2"),
        ("1d%", 100, [42], 42, "1d% (42) = 42"),
        ("3d6*2", 6, [1, 2, 3], 12, "3d6 (1, 2, 3) * 2 = 12"),
        ("(1d6+4)/3", 6, [3], 2, "(1d6 (3) + 4) / 3 = 2"),
        ("-1d6/4", 6, [1], 0, "-1d6 (1) / 4 = 0"),  # toward zero, as d20 (version 2 floored)
        ("2d6rr1", 6, [1, 4, 1, 1, 5], 9, "2d6rr1 (~~1~~, 4, ~~1~~, ~~1~~, 5) = 9"),
        ("2d6ro<3", 6, [1, 4, 2], 6, "2d6ro<3 (~~1~~, 4, 2) = 6"),
        ("2d6ra6", 6, [6, 3, 6], 15, "2d6ra6 (6!, 3, 6) = 15"),
        ("3d6mi3", 6, [1, 5, 2], 11, "3d6mi3 (3, 5, 3) = 11"),
        ("3d6ma4", 6, [1, 5, 6], 9, "3d6ma4 (1, 4, 4) = 9"),
        ("4d6k>3", 6, [1, 5, 4, 3], 9, "4d6k>3 (~~1~~, 5, 4, ~~3~~) = 9"),
        ("4d6p6", 6, [6, 5, 6, 1], 6, "4d6p6 (~~6~~, 5, ~~6~~, 1) = 6"),
        ("3D6 KH2 + 1", 6, [4, 6, 2], 11, "3d6kh2 (4, 6, ~~2~~) + 1 = 11"),
    ],
)
def test_each_notation_rolls_and_renders_as_d20_does(notation, sides, faces, total, rendered):
    result = roll(notation, sides, *faces)
    assert result["total"] == total
    assert result["rendered"] == rendered
    drawn = [die["face"] for group in result["groups"] for die in group["rolls"]]
    assert drawn == faces  # every die drawn is shown, in draw order


def test_fudge_dice_are_a_d3_read_as_minus_one_zero_plus_one():
    result = roll("4dF+1", 3, 1, 2, 3, 3)
    assert [d["face"] for d in result["groups"][0]["rolls"]] == [-1, 0, 1, 1]
    assert result["total"] == 2
    assert result["rendered"] == "4dF (-1, 0, 1, 1) + 1 = 2"


def test_success_counts_are_summed_and_the_successes_stored():
    result = roll("3d10>8+2d10>8", 10, 9, 1, 10, 8, 2)
    assert result["successes"] == 3 and result["total"] == 3
    assert "successes" not in roll("2d6", 6, 1, 2)


def test_the_comment_labels_the_roll_and_the_label_field_wins():
    assert roll("1d20+5 # attack", 20, 12)["label"] == "attack"
    labelled = roll("1d20+5 # attack", 20, 12, label="Sword")
    assert labelled["label"] == "Sword" and labelled["total"] == 17
    kind = DEFAULT_REGISTRY.for_entry({"kind": "dice", "rules": CURRENT}).kind
    request = kind.parse_request({"notation": "1d20+5 # attack"})
    assert kind.summary(request, kind.parse_result(labelled), "en") == "Sword: 1d20 (12) + 5 = 17"


@pytest.mark.parametrize("label", ["", "x" * 101, "bad\nlabel", "tab\there"])
def test_a_label_is_1_to_100_characters_without_control_characters(label):
    kind = DEFAULT_REGISTRY.for_entry({"kind": "dice", "rules": CURRENT}).kind
    with pytest.raises(ValueError):
        kind.body.model_validate({"kind": "dice", "notation": "1d6", "label": label})
    with pytest.raises(ValueError):
        kind.parse_request({"notation": "1d6", "label": label})


def test_a_request_without_a_label_is_stored_without_one():
    kind = DEFAULT_REGISTRY.for_entry({"kind": "dice", "rules": CURRENT}).kind
    assert kind.parse_request({"notation": "1d6"}).dump() == {"notation": "1d6"}


# --- versions ------------------------------------------------------------------------------


def test_the_dice_ruleset_is_at_version_3_and_replays_version_1_as_it_was():
    assert DEFAULT_REGISTRY.for_entry({"kind": "dice", "rules": "dice@3"}).version == 3
    assert DEFAULT_REGISTRY.for_entry({"kind": "dice", "rules": "dice@2"}).version == 2
    assert DEFAULT_REGISTRY.for_entry({"kind": "dice", "rules": "dice@1"}).version == 1
    assert DEFAULT_REGISTRY.for_entry({"kind": "dice", "request": {}}).version == 1
    old = resolve("dice", {"notation": "3d6kh2+1"}, replay(6, 4, 6, 2), rules="dice@1")
    assert old.result == {
        "notation": "3d6kh2+1",
        "terms": [
            {
                "term": "3d6kh2",
                "sign": 1,
                "value": 10,
                "dice": [4, 6, 2],
                "kept": [True, True, False],
            },
            {"term": "1", "sign": 1, "value": 1},
        ],
        "total": 11,
    }
    new = resolve("dice", {"notation": "3d6kh2+1"}, replay(6, 4, 6, 2), rules="dice@2")
    assert new.result["total"] == 11 and "terms" not in new.result


@pytest.mark.parametrize(
    "notation", ["2d6+3", "3d6kh2", "1d12", "4d10-1", "3d6kl1", "-1d6+2", "2D8 - 1D4 + 2", "7"]
)
def test_version_1_notations_keep_their_meaning(notation):
    # The same faces, each within the die asked for.
    faces = [3, 1, 4, 1, 5, 2, 6]
    v1 = resolve("dice", {"notation": notation}, _Any(faces), rules="dice@1").result
    v2 = resolve("dice", {"notation": notation}, _Any(faces), rules="dice@2").result
    v3 = resolve("dice", {"notation": notation}, _Any(faces), rules="dice@3").result
    assert v1["total"] == v2["total"] == v3["total"]


def test_the_canonical_form_writes_numbers_plainly():
    assert parse("02d006KH01 + 03").text() == "2d6kh1+3"
    assert parse("d20!>05").text() == "1d20!>5"


class _Any:
    """Hands back the given faces, each within the die asked for."""

    def __init__(self, faces: list[int]) -> None:
        self.faces = list(faces)

    def roll(self, sides: int) -> int:
        return min(self.faces.pop(0), sides)


# --- caps: parse, evaluate, say what was too much ------------------------------------------


@pytest.mark.parametrize(
    ("notation", "fragment"),
    [
        ("101d6", "101 dice asked, at most 100"),
        ("60d6+41d4", "101 dice asked, at most 100"),
        ("1d1001", "1..1000 sides"),
        ("1d0", "1..1000 sides"),
        ("0d6", "at least one die"),
        ("10001", "above 10000"),
        ("1d6" + "+1" * 49, "longer than 100"),
        ("(" * 11 + "1" + ")" * 11, "nest deeper than 10"),
        ("1d6rr<7", "never end"),
        ("1d6!<7", "never end"),
        ("1d6e>0", "never end"),
        ("4d6rrh1", "takes N, >N or <N"),
        ("4d6mi>2", "takes a number"),
        ("1d6!>", "needs a number after '>'"),
        ("1d6/(1d2-1)", "the divisor '(1d2-1)' can come to 0"),
        ("1d6/0", "the divisor '0' can come to 0"),
        ("1d6/4d6k>3", "can come to 0"),
        ("1d6/5d10>6", "can come to 0"),
        ("10000*10000*10000*10000", "could pass ±2^53"),
        ("2d6 +", "it ends too soon"),
        ("(1d6", "it ends too soon"),
        ("1d6kh", "an operation takes its number"),
        ("2d6x", "unexpected 'x'"),
        ("", "empty"),
        ("# only a comment", "empty"),
        ("1d6 # a\x01b", "control character"),
    ],
)
def test_a_notation_past_a_cap_or_unreadable_says_what(notation, fragment):
    with pytest.raises(InvalidInput) as error:
        parse(notation)
    assert fragment in str(error.value)


def test_explosions_stop_at_100_dice_in_all_and_the_group_says_so():
    # Nothing is refused once dice are drawn: a refusal would show them unpaid.
    result = roll("90d6!", 6, *([6] * 100))
    (group,) = result["groups"]
    assert len(group["rolls"]) == 100 and result["total"] == 600
    assert group["stopped"] == ["!: no more than 100 dice in all"]


def test_a_die_explodes_at_most_20_times():
    result = roll("1d6!", 6, *([6] * 21))
    assert result["total"] == 126 and len(result["groups"][0]["rolls"]) == 21
    assert result["groups"][0]["stopped"] == ["!: a die explodes at most 20 times"]
    assert [d.get("exploded", False) for d in result["groups"][0]["rolls"]] == [True] * 20 + [False]


def test_a_die_rerolls_at_most_20_times_and_keeps_the_last():
    result = roll("1d6rr1", 6, *([1] * 21))
    assert result["total"] == 1 and len(result["groups"][0]["rolls"]) == 21
    assert result["groups"][0]["stopped"] == ["rr1: a die rerolls at most 20 times"]


def test_a_group_that_no_cap_stopped_says_nothing_of_caps():
    assert "stopped" not in roll("1d6!", 6, 6, 2)["groups"][0]


def test_the_real_stream_draws_every_die_and_replays_them():
    stream = HmacDiceStream(bytes(range(32)), "notation", 1, "seed", 7)
    notation = {"notation": "10d6!rr1kh8+4dF-1d%/3"}
    first = resolve("dice", notation, stream, rules=CURRENT).result
    again = ReplayDice(stream.draws)
    assert resolve("dice", notation, again, rules=CURRENT).result == first


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="0123456789dDfFkhlpreoima!<>=%+-*/() #x", max_size=40))
def test_no_notation_raises_anything_but_invalid_input(text):
    try:
        notation = parse(text)
    except InvalidInput as error:
        assert "invalid dice notation" in str(error)
        return
    # The canonical form reads back to the same tree.
    assert parse(notation.text()).expr == notation.expr
    # Nothing is refused once a die is drawn: a notation that parses always rolls.
    stream = HmacDiceStream(bytes(32), "fuzz", 1, "", 1)
    result = resolve("dice", {"notation": text}, stream, rules=CURRENT).result
    assert result["rendered"].endswith(f"= {result['total']}")


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=120))
def test_no_string_raises_anything_but_invalid_input(text):
    try:
        notation = parse(text)
    except InvalidInput as error:
        assert "invalid dice notation" in str(error)
        return
    assert parse(notation.text()).expr == notation.expr
