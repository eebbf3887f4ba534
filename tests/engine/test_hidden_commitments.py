"""FAIR-18: `has_commitment` answers as a walk of the whole value would, though it first
searches the value's JSON for a `"$commit":` key."""

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine.hidden import COMMIT, has_commitment, is_commitment

HEX = "ab" * 32
leaves = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**53), max_value=2**53)
    | st.text(max_size=10)
    | st.sampled_from([COMMIT, f'"{COMMIT}":"{HEX}"', HEX])
)
keys = st.text(max_size=6) | st.sampled_from([COMMIT, f'"{COMMIT}":'])
trees = st.recursive(
    leaves,
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(keys, children, max_size=3)
        | st.builds(lambda value: {COMMIT: value}, children)  # a commitment, or its look-alike
    ),
    max_leaves=25,
)


def walked(value: Any) -> bool:
    """By brute force: a `{"$commit": str}` object anywhere in lists and objects."""
    if is_commitment(value):
        return True
    if isinstance(value, dict):
        return any(walked(child) for child in value.values())
    if isinstance(value, list):
        return any(walked(child) for child in value)
    return False


@settings(max_examples=2000, deadline=None)
@given(trees)
def test_FAIR_18_has_commitment_answers_as_the_walk(value):
    assert has_commitment(value) == walked(value)


def test_FAIR_18_text_of_a_commitment_in_a_string_or_key_is_none():
    assert not has_commitment({"label": f'{{"{COMMIT}":"{HEX}"}}', f'"{COMMIT}":': 1})
    assert not has_commitment({COMMIT: 3})  # the key, but not a commitment's value
    assert has_commitment({"sides": [{"defense": {COMMIT: HEX}}]})


def test_FAIR_18_a_value_that_is_not_plain_json_is_walked():
    assert has_commitment({1: {COMMIT: HEX}})  # a key orjson will not write
    assert not has_commitment({1: [{"a": 1}]})
