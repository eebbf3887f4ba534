"""FAIR-18: the search that spares most rolls the walk for NPCs never misses one."""

import uuid
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from app.services.commitments import commit_npc_values, may_describe_npc

NPC_TEXT = '"kind":"npc"'
leaves = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**53), max_value=2**53)
    | st.text(max_size=12)
    | st.sampled_from(["npc", "kind", NPC_TEXT, '{"kind": "npc"}', "\\"])
)
keys = st.text(max_size=6) | st.sampled_from(["kind", "id", "name", NPC_TEXT])
trees = st.recursive(
    leaves,
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(keys, children, max_size=4)
        # an object of kind "npc" among others, wherever the tree puts it
        | st.builds(lambda rest: {**rest, "kind": "npc"}, st.dictionaries(keys, children))
    ),
    max_leaves=25,
)


def holds_npc_object(value: Any) -> bool:
    """By brute force: an object whose `kind` is "npc", anywhere in lists and objects."""
    if isinstance(value, dict):
        return value.get("kind") == "npc" or any(holds_npc_object(v) for v in value.values())
    if isinstance(value, list):
        return any(holds_npc_object(v) for v in value)
    return False


@settings(max_examples=1500, deadline=None)
@given(trees, trees)
def test_FAIR_18_the_search_finds_every_object_of_kind_npc(request, result):
    if holds_npc_object(request) or holds_npc_object(result):
        assert may_describe_npc(request, result)


def test_FAIR_18_text_that_looks_like_an_npc_is_no_npc():
    """The text inside a string or a key has its quotes escaped: no walk for it."""
    assert not may_describe_npc({"label": NPC_TEXT, NPC_TEXT: 1}, {"total": 3})
    assert may_describe_npc({"target": {"name": "x", "kind": "npc"}}, {})


def test_FAIR_18_a_value_orjson_will_not_write_is_walked():
    assert may_describe_npc({1: "a key that is no string"}, {})


def test_FAIR_18_an_npc_deep_in_a_request_is_committed_and_the_rest_left_alone():
    npc = str(uuid.uuid4())
    request: dict[str, Any] = {
        "notation": "1d20",
        "label": f"against {NPC_TEXT}",
        "sides": [{"characters": [{"id": npc, "kind": "npc", "name": "Le comte", "defense": 13}]}],
    }
    result: dict[str, Any] = {"total": 12}
    disclosures = commit_npc_values(None, uuid.uuid4(), request, result, [])  # type: ignore[arg-type]
    committed = request["sides"][0]["characters"][0]
    assert committed["name"] == "Le comte" and set(committed["defense"]) == {"$commit"}
    assert [d["path"] for d in disclosures] == ["/request/sides/0/characters/0/defense"]
    assert request["label"] == f"against {NPC_TEXT}" and result == {"total": 12}


def test_FAIR_18_a_roll_describing_no_npc_commits_nothing():
    request: dict[str, Any] = {"notation": "3d6kh2", "label": NPC_TEXT}
    result: dict[str, Any] = {"total": 11, "groups": [{"rolls": [{"face": 5}, {"face": 6}]}]}
    before = (repr(request), repr(result))
    assert commit_npc_values(None, uuid.uuid4(), request, result, []) == []  # type: ignore[arg-type]
    assert (repr(request), repr(result)) == before
