"""The OpenAPI document, problem+json errors, request logs and CORS."""

import json
import logging
from decimal import Decimal
from typing import Any

import pytest
from fastapi.testclient import TestClient
from openapi_spec_validator import validate

from app.core.logging import JsonFormatter
from app.core.settings import get_settings
from app.main import create_app
from tests.conftest import API, assert_problem

HTTP_METHODS = {"get", "post", "put", "patch", "delete"}


def operations(document):
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if method in HTTP_METHODS:
                yield path, method, operation


def test_openapi_document_is_valid_openapi_3_1(client):
    document = client.get("/openapi.json").json()
    assert document["openapi"].startswith("3.1")
    validate(document)


def test_the_docs_list_resources_in_reading_order_whatever_the_matching_order(client):
    document = client.get("/openapi.json").json()
    tags = [tag["name"] for tag in document["tags"]]
    assert tags == [
        "health",
        "users",
        "systems",
        "campaigns",
        "members",
        "invitations",
        "characters",
        "roll-requests",
        "rolls",
        "log",
        "fairness",
        "encounters",
        "events",
        "webhooks",
    ]
    assert all(tag["description"] for tag in document["tags"])
    used = {tag for _, _, operation in operations(document) for tag in operation["tags"]}
    assert used == set(tags)


def test_rolls_are_matched_right_after_the_health_check():
    """FastAPI tries routers in order: the hot path must not wait behind the others."""
    prefixes = [
        route.original_router.prefix
        for route in create_app().router.routes
        if hasattr(route, "original_router")
    ]
    assert prefixes[:3] == ["", "/campaigns/{campaign_id}/rolls", "/campaigns/{campaign_id}/log"]


def test_every_operation_is_documented_for_integrators(client):
    document = client.get("/openapi.json").json()
    ids = []
    for path, method, operation in operations(document):
        where = f"{method.upper()} {path}"
        assert operation.get("operationId"), where
        assert operation.get("summary"), where
        assert operation.get("description"), f"{where} needs a one-line docstring"
        errors = [code for code in operation["responses"] if code.startswith(("4", "5"))]
        assert errors, f"{where} documents no error response"
        for code in errors:
            content = operation["responses"][code]["content"]
            assert "application/problem+json" in content, (where, code)
        ids.append(operation["operationId"])
    assert len(ids) == len(set(ids)), "operationIds must be unique"
    assert "campaigns-create" in ids


def test_unknown_route_is_problem_json(client):
    assert_problem(client.get(f"{API}/nowhere"), 404, "/docs")


def test_wrong_method_is_problem_json(client):
    assert_problem(client.put(f"{API}/health"), 405)


def test_malformed_json_is_422_with_fields(client):
    response = client.post(
        f"{API}/users", content=b"{not json", headers={"Content-Type": "application/json"}
    )
    body = assert_problem(response, 422)
    assert body["errors"]


def test_validation_problem_lists_offending_fields(client, gm):
    response = client.post(
        f"{API}/campaigns", json={"name": "", "system": "vampire"}, headers=gm.headers
    )
    body = assert_problem(response, 422, "body.name")
    assert body["errors"][0]["loc"] == ["body", "name"]


def test_request_id_is_echoed_and_generated(client):
    response = client.get(f"{API}/health", headers={"X-Request-ID": "abc-123"})
    assert response.headers["x-request-id"] == "abc-123"
    generated = client.get(f"{API}/health").headers["x-request-id"]
    assert len(generated) == 32


def test_request_log_has_the_fields_and_no_secret(client, gm, caplog):
    service_logger = logging.getLogger("nocturne")  # does not propagate to the root logger
    service_logger.addHandler(caplog.handler)
    try:
        client.get(f"{API}/users/me", headers=gm.headers)
    finally:
        service_logger.removeHandler(caplog.handler)
    records = [r for r in caplog.records if r.name == "nocturne.request"]
    assert records
    fields = records[-1].fields
    assert fields["method"] == "GET" and fields["path"] == f"{API}/users/me"
    assert fields["status"] == 200 and fields["duration_ms"] >= 0 and fields["request_id"]
    assert gm.api_key not in caplog.text


def test_cors_is_off_by_default(client):
    response = client.options(
        f"{API}/health",
        headers={"Origin": "https://vtt.example", "Access-Control-Request-Method": "GET"},
    )
    assert "access-control-allow-origin" not in response.headers


def test_cors_allows_configured_origins(monkeypatch):
    monkeypatch.setattr(get_settings(), "cors_origins", ["https://vtt.example"])
    with TestClient(create_app()) as cors_client:
        allowed = cors_client.options(
            f"{API}/health",
            headers={"Origin": "https://vtt.example", "Access-Control-Request-Method": "GET"},
        )
        refused = cors_client.options(
            f"{API}/health",
            headers={"Origin": "https://evil.example", "Access-Control-Request-Method": "GET"},
        )
    assert allowed.headers["access-control-allow-origin"] == "https://vtt.example"
    assert "access-control-allow-origin" not in refused.headers


def test_nul_characters_are_refused_before_storage(client, gm):
    # PostgreSQL cannot store U+0000 in text or JSONB: a clear 422, never a 500.
    assert_problem(client.post(f"{API}/users", json={"name": "a\x00b"}), 422, "NUL")
    response = client.post(
        f"{API}/campaigns",
        json={"name": "ok", "system": "vampire", "options": {"k\x00": 1}},
        headers=gm.headers,
    )
    assert_problem(response, 422, "NUL")
    assert client.post(f"{API}/users", json={"name": "back\\u0000slash"}).status_code == 201


def _log_line(fields: dict[Any, Any]) -> Any:
    record = logging.LogRecord("nocturne.request", logging.INFO, __file__, 1, "", None, None)
    record.fields = fields
    line = JsonFormatter().format(record)
    assert "\n" not in line
    return json.loads(line)


def test_request_log_line_is_one_json_object_as_written_by_the_formatter():
    """Issue 23: the formatter writes with orjson; a value JSON lacks is written as text."""
    fields = {"event": "request", "path": "/api/v1/campagne/é", "cost": Decimal("1.5"), 7: "x"}
    assert _log_line(fields) == {
        "level": "INFO",
        "logger": "nocturne.request",
        "event": "request",
        "path": "/api/v1/campagne/é",
        "cost": "1.5",
        "7": "x",
    }


@pytest.mark.parametrize("value", ["unknown talent '\ud800'", 2**70])
def test_request_log_line_keeps_what_orjson_refuses(value):
    """A lone surrogate (which a request's JSON may carry) or an integer past 64 bits: the
    line is written by json.dumps, not lost."""
    assert _log_line({"detail": value})["detail"] == value
