"""Small HTTP helpers shared by the ruleset API tests: calls, sheets, the log, refusals."""

from __future__ import annotations

from typing import Any

from tests.conftest import API, assert_problem


def url(campaign: dict[str, Any], tail: str = "") -> str:
    return f"{API}/campaigns/{campaign['id']}{tail}"


def post_roll(client, campaign, caller, body: dict[str, Any]):
    return client.post(url(campaign, "/rolls"), json=body, headers=caller.headers)


def rolled(client, campaign, caller, body: dict[str, Any]) -> dict[str, Any]:
    """POST /rolls that must succeed: the entry."""
    response = post_roll(client, campaign, caller, body)
    assert response.status_code == 201, response.text
    return response.json()


def sheet_of(client, caller, character) -> dict[str, Any]:
    response = client.get(f"{API}/characters/{character['id']}", headers=caller.headers)
    assert response.status_code == 200, response.text
    return response.json()["sheet"]


def gm_patch(client, gm, character, sheet: dict[str, Any]) -> dict[str, Any]:
    """The GM's merge patch of a sheet (an audited override): the sheet after it."""
    response = client.patch(
        f"{API}/characters/{character['id']}", json={"sheet": sheet}, headers=gm.headers
    )
    assert response.status_code == 200, response.text
    return response.json()["sheet"]


def log_entries(client, campaign, gm) -> list[dict[str, Any]]:
    """The whole log as the GM sees it, page after page."""
    entries: list[dict[str, Any]] = []
    after = 0
    while True:
        page = client.get(
            url(campaign, f"/log?limit=200&after_seq={after}"), headers=gm.headers
        ).json()
        entries.extend(page["data"])
        if page["next_after_seq"] is None:
            return entries
        after = page["next_after_seq"]


def last_seq(client, campaign, gm) -> int:
    entries = log_entries(client, campaign, gm)
    return entries[-1]["seq"] if entries else 0


def assert_refused(response, rule: str, status: int = 409) -> dict[str, Any]:
    """A rule's refusal: its id in `rule` and at the start of `detail`."""
    body = assert_problem(response, status)
    assert body["rule"] == rule, body
    assert body["detail"].startswith(rule), body["detail"]
    return body


def effect(character, field: str, before: Any, after: Any, rule: str) -> dict[str, Any]:
    """One sheet change as an entry records it."""
    return {
        "character_id": character["id"],
        "field": field,
        "before": before,
        "after": after,
        "rule": rule,
    }
