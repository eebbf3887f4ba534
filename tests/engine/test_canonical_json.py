"""FAIR-11: the fast canonical JSON path is byte-for-byte the RFC 8785 reference."""

import datetime

import orjson
import pytest
import rfc8785
from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine import canonical
from app.engine.canonical import (
    NonFinite,
    canonical_json,
    decode_json,
    decoded_canonical_json,
    find_float,
)

JSON_SCALARS = (
    st.none() | st.booleans() | st.integers(min_value=-(2**60), max_value=2**60) | st.text()
)


def json_trees(leaves: st.SearchStrategy[object]) -> st.SearchStrategy[object]:
    return st.recursive(
        leaves,
        lambda children: (
            st.lists(children, max_size=5)
            | st.dictionaries(st.text(max_size=8), children, max_size=5)
        ),
        max_leaves=30,
    )


json_values = json_trees(JSON_SCALARS)


@settings(max_examples=500, deadline=None)
@given(json_values)
def test_FAIR_11_canonical_json_matches_the_reference(value):
    try:
        expected = rfc8785.dumps(value)
    except rfc8785.CanonicalizationError:
        # Out of the scheme's domain (a lone surrogate, an unsafe integer): both refuse.
        try:
            canonical_json(value)
        except rfc8785.CanonicalizationError:
            return
        raise AssertionError(f"fast path accepted what RFC 8785 refuses: {value!r}") from None
    assert canonical_json(value) == expected


def test_FAIR_11_keys_outside_ascii_sort_by_utf16_code_units():
    # U+1F600 is the surrogate pair D83D DE00 in UTF-16, so it sorts before U+E000 there,
    # though after it in code points (Python's sort_keys): the reference order must win.
    value = {"\ue000": 2, "\U0001f600": 1, "a": 3}
    text = canonical_json(value)
    assert text == rfc8785.dumps(value)
    assert text.index("\U0001f600".encode()) < text.index("\ue000".encode())


def test_FAIR_10_floats_are_found_even_behind_values_the_fast_path_skips():
    assert find_float({"big": 2**60, "nested": [{"x": 0.5}]})
    assert find_float([1, "a", {"é": 1.0}])
    assert not find_float({"a": [1, True, None, "x", {"b": 2**60}]})


def test_FAIR_11_every_code_point_escapes_as_the_reference_does():
    # The fast path (orjson) on plain values, checked on every code point but the lone
    # surrogates, in values and in keys, against RFC 8785's reference.
    surrogates = range(0xD800, 0xE000)
    points = [chr(c) for c in range(0x110000) if c not in surrogates]
    for start in range(0, len(points), 4096):
        chunk = points[start : start + 4096]
        value = {"text": "".join(chunk), "list": chunk[:64], **{c: 1 for c in chunk[:32]}}
        assert canonical_json(value) == rfc8785.dumps(value), hex(ord(chunk[0]))


def test_FAIR_11_what_the_fast_path_cannot_write_goes_to_the_exact_paths():
    # A lone surrogate has no canonical form; nesting deeper than orjson writes does.
    with pytest.raises(rfc8785.CanonicalizationError):
        canonical_json({"a": "\ud800"})
    deep: object = "x"
    for _ in range(600):
        deep = [deep]
    assert canonical_json({"deep": deep}) == rfc8785.dumps({"deep": deep})
    edges = {"max": 2**53 - 1, "min": -(2**53 - 1), "t": (1, "\x7f", "\u2028"), "e": {}}
    assert canonical_json(edges) == rfc8785.dumps(edges)


# --- verification's path on values decoded from JSON text ----------------------------------


class Tag(str):
    """A str subclass: no JSON text decodes to one."""


# What JSON text decodes to, floats included, and strings that look like a float's marks.
decoded_values = json_trees(
    JSON_SCALARS
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from(["1.5", "a,1.5]", ":3e+7,", "e-", "E", "\\", '"', "\U0001f600", "é"])
)


@settings(max_examples=1000, deadline=None)
@given(decoded_values)
def test_FAIR_11_the_decoded_path_writes_the_reference_or_steps_aside(value):
    """Where it answers, its bytes are RFC 8785's; it never answers for a value holding a
    float (FAIR-10), which the full walk then reports."""
    body = decoded_canonical_json(value)
    if body is None:
        return
    assert not find_float(value)
    assert body == rfc8785.dumps(value)


def test_FAIR_11_the_decoded_path_answers_for_an_entry_as_the_service_writes_it():
    entry = {
        "seq": 3,
        "created_at": "2026-11-29T12:00:03.000003Z",
        "kind": "dice",
        "character_id": None,
        "request": {"notation": "3d6kh2", "label": "Théologie, 2.5 fois"},
        "result": {"total": 11, "rendered": "3d6kh2 (~~2~~, 5, 6) = 11", "big": 2**53 - 1},
    }
    assert decoded_canonical_json(entry) == rfc8785.dumps(entry)


def test_FAIR_11_the_decoded_path_answers_when_a_float_mark_is_inside_a_string():
    """`.`, `+` and `e-` inside strings (a time, a notation, an id) are no float."""
    entry = {
        "created_at": "2026-11-29T12:00:03.000003Z",
        "request": {"notation": "2d6+3"},
        "actor_id": "771cb1b2-396e-4b48-b477-0b3b146041c4",
        "result": {"critical": True, "failed": False, "total": -2},
    }
    assert decoded_canonical_json(entry) == rfc8785.dumps(entry)


@pytest.mark.parametrize(
    "value",
    [
        {"a": 1.0},
        {"a": [1, 2, -0.5]},
        {"a": 1e16},
        {"a": 1e-7},  # no `.`: its exponent's sign shows it
        {"a": 5e-324},
        {"a": 1e300},
        {"at": "12:00:03.5", "b": 2e-5},  # a `.` inside a string before the float
        {"a": "2d6+3", "b": 1e20},  # a `+` inside a string before `1e+20`
        {"a": "96e-4b", "b": True, "c": 3e-9},  # an `e-` inside a string, then `true`
        {"a": "1.5", "b": "2d6+3", "c": "4e-b", "d": 7, "e": [1, 2.5]},  # marks, then a float
        {"a": 2**53},
        {"a": -(2**53)},
        {"\U0001f600": 1, "\ue000": 2},
        {"a": "\ud800"},
        {"a": "line\nbreak"},
        {"a": datetime.date(2026, 12, 1)},
        {"a": Tag("left")},
    ],
)
def test_FAIR_11_the_decoded_path_steps_aside_for_what_the_full_walk_decides(value):
    assert decoded_canonical_json(value) is None


def test_FAIR_10_where_orjson_writes_a_float_with_no_mark_the_full_walk_decides(monkeypatch):
    """orjson before 3.11.7 wrote 1e16 as `1e16`: with such an orjson the decoded path
    answers for nothing, and verification walks every entry."""
    monkeypatch.setattr(canonical, "_MARKS_HOLD", False)
    assert decoded_canonical_json({"a": 1, "b": "x"}) is None


@settings(max_examples=2000, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_FAIR_10_orjson_writes_every_float_with_a_dot_or_a_signed_exponent(number):
    """What the decoded path's float search relies on: orjson's marks, never a bare `E`."""
    written = orjson.dumps(number)
    assert b"." in written or b"e+" in written or b"e-" in written
    assert b"E" not in written


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": [1, "x", null]}', {"a": [1, "x", None]}),
        ("1.5", 1.5),
        ('"\\ud800"', "\ud800"),  # orjson refuses a lone surrogate; the standard parser reads it
        # Past 64 bits orjson reads a float: the entry then fails FAIR-10 at its seq.
        ("18446744073709551616", 18446744073709551616.0),
    ],
)
def test_decode_json_reads_what_json_holds(text, expected):
    assert decode_json(text) == expected


@pytest.mark.parametrize("text", ["NaN", "[Infinity]", '{"a": -Infinity}', "[1e400]"])
def test_FAIR_10_decode_json_turns_a_non_finite_number_into_no_json_value(text):
    """orjson writes NaN as null: a non-finite number read as a float would pass for null."""
    decoded = decode_json(text)
    found = (
        [decoded]
        if not isinstance(decoded, list | dict)
        else list(decoded.values() if isinstance(decoded, dict) else decoded)
    )
    assert any(isinstance(item, NonFinite) for item in found)
    with pytest.raises((rfc8785.CanonicalizationError, TypeError)):
        canonical_json(decoded)
