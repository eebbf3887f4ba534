"""Property-based run of the app's own OpenAPI document (bounded): no 5xx, responses conform."""

import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from app.main import app

schema = schemathesis.openapi.from_asgi("/openapi.json", app)

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    response_headers_conformance,
]


@schema.parametrize()
@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
def test_api_conforms_to_its_openapi_document(case, client, gm, make_campaign):
    # A real key so generated requests reach past authentication into the handlers.
    case.call_and_validate(headers=gm.headers, checks=CHECKS)
