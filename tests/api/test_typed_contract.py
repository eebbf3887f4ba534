"""The typed API (issue: a typed contract for every roll kind): every entry kind is its
own schema discriminated by `kind`, the redacted entry is its own schema, every sheet is a
named component whose rule-managed fields are readOnly, and nothing a client renders is
published as an untyped object."""

from __future__ import annotations

import re
from typing import Any

import pytest

from app.engine.registry import DEFAULT_REGISTRY, STRUCTURAL_KINDS
from app.engine.sheets import enum_of

ENTRY_KINDS = {kind.name for _, kind in DEFAULT_REGISTRY.kinds()} | STRUCTURAL_KINDS


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    from app.main import app

    return app.openapi()


def component(document: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """The schema a $ref names, or the schema itself."""
    while "$ref" in schema:
        schema = document["components"]["schemas"][schema["$ref"].rsplit("/", 1)[-1]]
    return schema


def assert_typed_object(document: dict[str, Any], schema: dict[str, Any], where: str) -> None:
    """An object with declared properties, closed to others: not a bag of anything."""
    schema = component(document, schema)
    assert schema.get("type") == "object", where
    assert "properties" in schema, f"{where} is an untyped object"
    assert schema.get("additionalProperties") is False, f"{where} accepts any key"


def entry_mapping(document: dict[str, Any], schema: dict[str, Any]) -> dict[str, str]:
    """The kind → schema mapping of an entry view (the visible entries' discriminator)."""
    (visible,) = [
        typed for typed in shown(document, schema) if "discriminator" in component(document, typed)
    ]
    return component(document, visible)["discriminator"]["mapping"]


def shown(document: dict[str, Any], schema: dict[str, Any]) -> list[dict[str, Any]]:
    """An entry view's two members (the entry in full, or redacted), each with its last
    resort: the entry as stored, marked unfit (changed outside the service)."""
    members = []
    for member in schema["oneOf"]:
        typed, unfit = component(document, member)["anyOf"]
        assert unfit["$ref"].endswith("/UnfitEntryPublic")
        members.append(typed)
    return members


def entry_view_of(document: dict[str, Any], path: str, method: str, status: str) -> Any:
    response = document["paths"][path][method]["responses"][status]
    return component(document, response["content"]["application/json"]["schema"])


def test_every_entry_kind_has_its_own_schema_with_typed_request_result_and_effects(document):
    page = entry_view_of(document, "/api/v1/campaigns/{campaign_id}/log", "get", "200")
    view = page["properties"]["data"]["items"]
    mapping = entry_mapping(document, view)
    assert set(mapping) == ENTRY_KINDS
    for kind, ref in mapping.items():
        entry = component(document, {"$ref": ref})
        assert entry["properties"]["kind"]["const"] == kind
        for part in ("request", "result"):
            schema = entry["properties"][part]
            if kind in STRUCTURAL_KINDS:
                assert_typed_object(document, schema, f"{kind} {part}")
            else:
                # FAIR-18: the kind's typed shape, or as hashed when it holds commitments.
                typed, committed = schema["anyOf"]
                assert_typed_object(document, typed, f"{kind} {part}")
                assert committed["$ref"].endswith(f"/Committed{part.title()}")
        effects = entry["properties"]["effects"]
        assert effects["type"] == "array"
        assert_typed_object(document, effects["items"], f"{kind} effects")


def test_the_redacted_entry_is_its_own_schema(document):
    page = entry_view_of(document, "/api/v1/campaigns/{campaign_id}/log", "get", "200")
    members = [component(document, m) for m in shown(document, page["properties"]["data"]["items"])]
    (redacted,) = [m for m in members if "redacted" in m.get("properties", {})]
    assert redacted["properties"]["redacted"]["const"] is True
    assert "request" not in redacted["properties"] and "result" not in redacted["properties"]


@pytest.mark.parametrize(
    ("path", "method", "status"),
    [
        ("/api/v1/campaigns/{campaign_id}/rolls", "post", "201"),
        ("/api/v1/campaigns/{campaign_id}/rolls/{seq}", "get", "200"),
    ],
)
def test_roll_responses_answer_the_entry_union(document, path, method, status):
    view = entry_view_of(document, path, method, status)
    assert set(entry_mapping(document, view)) == ENTRY_KINDS


def test_rolls_list_and_encounter_actions_answer_the_entry_union(document):
    page = entry_view_of(document, "/api/v1/campaigns/{campaign_id}/rolls", "get", "200")
    assert set(entry_mapping(document, page["properties"]["data"]["items"])) == ENTRY_KINDS
    action = entry_view_of(document, "/api/v1/encounters/{encounter_id}/actions", "post", "201")
    assert set(entry_mapping(document, action["properties"]["entry"])) == ENTRY_KINDS


def test_every_postable_kind_is_a_typed_roll_body(document):
    body = document["paths"]["/api/v1/campaigns/{campaign_id}/rolls"]["post"]["requestBody"]
    schema = body["content"]["application/json"]["schema"]
    mapping = schema["discriminator"]["mapping"]
    assert set(mapping) == {kind.name for kind in DEFAULT_REGISTRY.postable_kinds()}
    for kind, ref in mapping.items():
        assert_typed_object(document, {"$ref": ref}, f"{kind} body")


def test_encounter_actions_are_typed_bodies_with_the_actor(document):
    operation = document["paths"]["/api/v1/encounters/{encounter_id}/actions"]["post"]
    schema = operation["requestBody"]["content"]["application/json"]["schema"]
    for kind, ref in schema["discriminator"]["mapping"].items():
        action = component(document, {"$ref": ref})
        assert_typed_object(document, action, f"{kind} action")
        assert {"actor_id", "kind"} <= set(action["required"])


@pytest.mark.parametrize("ruleset_system", DEFAULT_REGISTRY.systems, ids=lambda rs: rs[1].id)
def test_each_sheet_is_a_named_component_with_rule_managed_fields_read_only(
    document, ruleset_system
):
    _, system = ruleset_system
    sheet = document["components"]["schemas"][system.sheet.__name__]
    assert_typed_object(document, sheet, system.id)
    read_only = {name for name, field in sheet["properties"].items() if field.get("readOnly")}
    assert read_only == system.protected_fields
    for name, field in sheet["properties"].items():
        description = field.get("description") or component(document, field).get("description")
        assert description, f"{system.id}.{name} needs a description in plain words"
        assert not re.match(r"[A-Z]+-\d", description), f"{system.id}.{name}: words first"
        if enum_of(field):
            labelled = field if "x-enum-labels" in field else field.get("items", {})
            assert "x-enum-labels" in labelled, f"{system.id}.{name}: its values need labels"


def test_characters_are_told_apart_by_system_with_their_sheet(document):
    operation = document["paths"]["/api/v1/characters/{character_id}"]["get"]
    schema = operation["responses"]["200"]["content"]["application/json"]["schema"]
    mapping = schema["discriminator"]["mapping"]
    assert set(mapping) == {system.id for _, system in DEFAULT_REGISTRY.systems}
    for system_id, ref in mapping.items():
        character = component(document, {"$ref": ref})
        sheets = [
            component(document, s)["title"] for s in character["properties"]["sheet"]["anyOf"]
        ]
        system = DEFAULT_REGISTRY.system(system_id)[1]
        assert sheets == ["HiddenSheet", system.sheet.__name__]


def test_enum_values_carry_labels_in_order(document):
    """Wherever a labelled enum is published, its labels follow its values one for one."""
    labelled = 0
    for name, schema in document["components"]["schemas"].items():
        for field, prop in schema.get("properties", {}).items():
            if "x-enum-labels" in prop:
                labelled += 1
                values = enum_of(prop) or enum_of(component(document, prop))
                assert [label["value"] for label in prop["x-enum-labels"]] == values, name
                assert len(prop["x-enum-descriptions"]) == len(values), f"{name}.{field}"
    assert labelled


def test_component_names_are_unique_and_plain(document):
    """Two models of the same name would be published under their module path."""
    for name in document["components"]["schemas"]:
        assert "__" not in name, name
