"""Issue 21, point 5, rules version 3 of generic dice (`dice@3`): Roll20's `!!` compounding
and d20's bare trailing label, and version 2 entries replaying exactly as they were logged."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine.dice import ReplayDice
from app.engine.dicenotation.ast import Binary, Dice, Neg, Node, Op, Paren
from app.engine.dicenotation.grammar import parse
from app.engine.errors import InvalidInput
from app.engine.registry import DEFAULT_REGISTRY
from tests.engine.rules import resolve

CURRENT, V2 = "dice@3", "dice@2"


def replay(sides: int, *faces: int) -> ReplayDice:
    return ReplayDice([{"sides": sides, "face": face} for face in faces])


def roll(notation: str, sides: int, *faces: int, rules: str = CURRENT, **request: str) -> dict:
    return resolve(
        "dice", {"notation": notation, **request}, replay(sides, *faces), rules=rules
    ).result


# --- !! compounds: one die, one value, every draw listed ------------------------------------


@pytest.mark.parametrize(
    ("notation", "sides", "faces", "total", "rendered"),
    [
        ("3d6!!", 6, [4, 6, 2, 3], 15, "3d6!! (4, 9!!, 2) = 15"),
        ("3d6!!", 6, [6, 1, 6, 6, 2, 6, 6, 1], 34, "3d6!! (14!!, 1, 19!!) = 34"),
        ("2d6!!>5", 6, [5, 1, 5, 3], 14, "2d6!!>5 (13!!, 1) = 14"),
        ("2d6!!5", 6, [6, 5, 2], 13, "2d6!!5 (6, 7!!) = 13"),
        ("2d6!!<2", 6, [1, 4, 2, 5], 12, "2d6!!<2 (8!!, 4) = 12"),
        ("3d6!!kh2", 6, [6, 5, 2, 1], 12, "3d6!!kh2 (7!!, 5, ~~2~~) = 12"),
        ("4d10!!>8>8", 10, [9, 3, 8, 1, 2, 10, 4], 2, "4d10!!>8>8 (**11!!**, 3, **22!!**, 1) = 2"),
        ("2dF!!", 3, [3, 2, 3, 1], 1, "2dF!! (1!!, 0) = 1"),  # +1 +1 -1: still 1
    ],
)
def test_compounding_adds_each_new_draw_into_its_die_as_roll20_does(
    notation, sides, faces, total, rendered
):
    result = roll(notation, sides, *faces)
    assert result["total"] == total
    assert result["rendered"] == rendered
    rolls = result["groups"][0]["rolls"]
    # Every draw is kept: the group's dice first, then what each compounded, die by die.
    drawn = [d["face"] for d in rolls] + [a for d in rolls for a in d.get("added", [])]
    assert drawn == [f - 2 if "dF" in notation else f for f in faces]


def test_a_compounded_die_stores_its_face_its_value_and_what_it_added():
    (group,) = roll("3d6!!", 6, 4, 6, 2, 3)["groups"]
    assert group["rolls"] == [{"face": 4}, {"face": 6, "value": 9, "added": [3]}, {"face": 2}]


def test_a_die_compounds_at_most_20_times():
    result = roll("1d6!!", 6, *([6] * 21))
    (group,) = result["groups"]
    assert result["total"] == 126 and group["rolls"][0]["added"] == [6] * 20
    assert group["stopped"] == ["!!: a die compounds at most 20 times"]


def test_compounding_stops_at_100_dice_in_all_and_the_group_says_so():
    result = roll("90d6!!", 6, *([6] * 100))
    (group,) = result["groups"]
    assert len(group["rolls"]) == 90 and group["rolls"][0]["added"] == [6] * 10
    assert result["total"] == 600
    assert group["stopped"] == ["!!: no more than 100 dice in all"]


@pytest.mark.parametrize(
    ("notation", "fragment"), [("1d6!!<7", "never end"), ("1d6!!>", "needs a number")]
)
def test_compounding_that_cannot_end_or_lacks_its_number_is_refused(notation, fragment):
    with pytest.raises(InvalidInput, match=fragment):
        parse(notation)


# --- version 2 read !! as two explosions, and its entries replay so -------------------------

# What version 2's code (commit aca64f6) logged for these faces, kept verbatim.
LOGGED_UNDER_V2 = [
    (
        [6, 2, 3, 6, 1, 4, 2],
        "3d6!!",
        {
            "notation": "3d6!!",
            "total": 24,
            "groups": [
                {
                    "dice": "3d6!!",
                    "rolls": [
                        {"face": 6, "exploded": True},
                        {"face": 2},
                        {"face": 3},
                        {"face": 6, "exploded": True},
                        {"face": 1},
                        {"face": 4},
                        {"face": 2},
                    ],
                    "value": 24,
                }
            ],
            "rendered": "3d6!! (6!, 2, 3, 6!, 1, 4, 2) = 24",
        },
    ),
    (
        [2, 3, 10, 3, 10, 3, 9, 1, 4, 6],
        "5d10!!>8",
        {
            "notation": "5d10!!>8",
            "total": 51,
            "groups": [
                {
                    "dice": "5d10!!>8",
                    "rolls": [
                        {"face": 2},
                        {"face": 3},
                        {"face": 10, "exploded": True},
                        {"face": 3},
                        {"face": 10, "exploded": True},
                        {"face": 3},
                        {"face": 9, "exploded": True},
                        {"face": 1},
                        {"face": 4},
                        {"face": 6},
                    ],
                    "value": 51,
                }
            ],
            "rendered": "5d10!!>8 (2, 3, 10!, 3, 10!, 3, 9!, 1, 4, 6) = 51",
        },
    ),
]


@pytest.mark.parametrize(("faces", "notation", "logged"), LOGGED_UNDER_V2)
def test_version_2_entries_replay_exactly_as_they_were_logged(faces, notation, logged):
    sides = int(notation.split("d")[1].split("!")[0])
    assert roll(notation, sides, *faces, rules=V2) == logged
    assert roll(notation, sides, *faces, rules=CURRENT) != logged  # !! compounds now


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="0123456789dDfFkhlpreoima!<>=%+-*/() #x", max_size=30))
def test_version_3_reads_what_version_2_accepted_the_same_but_for_double_bang(text):
    try:
        old = parse(text, 2)
    except InvalidInput:
        return  # version 3 may read it (a trailing label) or refuse it too
    if "!!" in "".join(text.partition("#")[0].split()):
        return
    try:
        new = parse(text, 3)
    except InvalidInput as error:
        # Only operations that version 3 joins can refuse together what each allowed.
        assert "together match every face" in str(error)
        return
    assert new.text() == old.text() and new.comment == old.comment
    assert new.expr == _as_d20(old.expr)  # d20's readings: joined ops, ra, `/`


def _as_d20(node: Node) -> Node:
    """A version 2 tree read as d20 reads it (test_dicenotation_d20.py): consecutive
    operations of one name but mi/ma join their selectors, ra adds one die at most, and `/`
    rounds toward zero."""
    if isinstance(node, Dice):
        ops: list[Op] = []
        for op in node.ops:
            one = replace(op, max_targets=1) if op.name == "ra" else op
            if ops and ops[-1].name == op.name and op.name not in ("mi", "ma"):
                last = ops.pop()
                one = replace(
                    last, selectors=last.selectors + op.selectors, written=last.written + op.written
                )
            ops.append(one)
        return replace(node, ops=tuple(ops))
    if isinstance(node, Neg):
        return Neg(_as_d20(node.operand))
    if isinstance(node, Paren):
        return Paren(_as_d20(node.inner))
    if isinstance(node, Binary):
        truncates = node.op == "/"
        return Binary(node.op, _as_d20(node.left), _as_d20(node.right), truncates)
    return node


# --- d20's bare trailing label --------------------------------------------------------------


@pytest.mark.parametrize(
    ("notation", "canonical", "label"),
    [
        ("1d20+5 Attack the guard", "1d20+5", "Attack the guard"),
        ("4d6 kh3", "4d6kh3", None),  # spaces never split the notation, as in version 2
        ("4d6 kh3 to hit", "4d6kh3", "to hit"),
        ("3D6 KH2 + 1 Fireball", "3d6kh2+1", "Fireball"),
        ("1d20 dragon # breath", "1d20", "dragon # breath"),
        ("d20 Été", "1d20", "Été"),
        ("1d6 + 1d4 mine", "1d6+1d4", "mine"),
        ("1d20+5 # attack", "1d20+5", "attack"),
    ],
)
def test_trailing_words_label_the_roll_as_d20_reads_them(notation, canonical, label):
    parsed = parse(notation)
    assert parsed.text() == canonical and parsed.comment == label


@pytest.mark.parametrize(
    ("notation", "fragment"),
    [
        ("4d6 kh", "'kh' reads as notation, not as a label"),
        ("4d6 kh3x", "'kh3x' reads as notation"),
        ("1d20 d6 fire", "'d6' reads as notation"),
        ("1d20 Ma attaque", "'Ma' reads as notation"),  # '# Ma attaque' says it is a label
        ("1d20 + attack", "it ends too soon"),
        ("101d6 attack", "101 dice asked"),
        ("1d20+5 2nd attack", "unexpected 'n'"),
        ("attack", "unexpected 'a'"),
        ("1d20 (attack)", "unexpected"),
        ("1d20 attack\x01", "control character"),
    ],
)
def test_trailing_words_that_may_be_a_mistake_are_refused_saying_why(notation, fragment):
    with pytest.raises(InvalidInput) as error:
        parse(notation)
    assert fragment in str(error.value)


def test_version_2_refused_trailing_words():
    with pytest.raises(InvalidInput, match="unexpected 'a'"):
        parse("1d20+5 Attack the guard", 2)


def test_the_trailing_label_labels_the_roll_and_the_label_field_wins():
    result = roll("1d20+5 Attack the guard", 20, 12)
    assert result["label"] == "Attack the guard" and result["rendered"] == "1d20 (12) + 5 = 17"
    assert roll("1d20+5 Attack the guard", 20, 12, label="Sword")["label"] == "Sword"
    kind = DEFAULT_REGISTRY.for_entry({"kind": "dice", "rules": CURRENT}).kind
    request = kind.parse_request({"notation": "1d20+5 Attack the guard"})
    summary = kind.summary(request, kind.parse_result(result), "en")
    assert summary == "Attack the guard: 1d20 (12) + 5 = 17"


@pytest.mark.parametrize("hidden", ["\u202e", "\u200b", "\u2028"])
def test_version_3_a_comment_is_a_visible_label_on_one_line(hidden):
    """As every roll's label (issue 21): nothing that reorders or hides what follows."""
    with pytest.raises(InvalidInput, match="the comment"):
        parse(f"1d20 # evil{hidden}text", 3)
    with pytest.raises(InvalidInput, match="the comment") as refused:
        parse(f"1d20 Attack{hidden}now", 3)
    # The refusal quotes the notation back escaped: a relayed error reads as it was sent.
    assert hidden not in refused.value.detail
    assert hidden.encode("unicode_escape").decode() in refused.value.detail
