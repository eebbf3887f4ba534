"""Small HTTP helpers shared by the ruleset API tests: calls, sheets, the log, refusals."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import event
from sqlmodel import Session

from tests.conftest import API, assert_problem

# Entry kinds that change state without rules to replay: verify counts everything else.
STRUCTURAL = {
    "epoch_opened",
    "epoch_closed",
    "client_seed_set",
    "sheet_edit",
    "sheet_override",
    "options_changed",
    "roll_requested",
    "roll_request_cancelled",
}


@contextmanager
def statements_reading(session: Session, table: str) -> Iterator[list[str]]:
    """The statements sent on the session's connection while the block runs that read
    `table` (its name after FROM or JOIN): how many queries a request or a batch makes of
    it."""
    found: list[str] = []

    def executed(_conn: Any, _cursor: Any, statement: str, *_rest: Any) -> None:
        if re.search(rf"\b(FROM|JOIN) {table}\b", statement):
            found.append(statement)

    connection = session.connection()
    event.listen(connection, "before_cursor_execute", executed)
    try:
        yield found
    finally:
        event.remove(connection, "before_cursor_execute", executed)


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


def get_entry(client, campaign, caller, seq: int) -> dict[str, Any]:
    """One roll entry as the caller sees it."""
    response = client.get(url(campaign, f"/rolls/{seq}"), headers=caller.headers)
    assert response.status_code == 200, response.text
    return response.json()


def committed(value: Any) -> bool:
    """FAIR-18: a value hidden from the caller, hashed as {"$commit": hex}."""
    return isinstance(value, dict) and set(value) == {"$commit"}


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


def clock(client, campaign, gm, what: str, *, night: bool = False, facts=()) -> dict[str, Any]:
    """Start a session or a scene (`what`: sessions | scenes) with the GM's facts."""
    response = client.post(
        url(campaign, f"/{what}"),
        json={"night_passed": night, "characters": list(facts)},
        headers=gm.headers,
    )
    assert response.status_code == 201, response.text
    return response.json()


def new_session(client, campaign, gm, **kwargs: Any) -> dict[str, Any]:
    return clock(client, campaign, gm, "sessions", **kwargs)


def new_scene(client, campaign, gm, **kwargs: Any) -> dict[str, Any]:
    return clock(client, campaign, gm, "scenes", **kwargs)


def assert_verified(client, campaign, gm) -> dict[str, Any]:
    """GET /log/verify passes and replays every entry that is not structural."""
    report = client.get(url(campaign, "/log/verify"), headers=gm.headers).json()
    assert report["ok"] is True and report["first_failure"] is None, report
    rules = [e for e in log_entries(client, campaign, gm) if e["kind"] not in STRUCTURAL]
    assert report["replayed"] == len(rules), report
    return report


def verified_offline(client, campaign, gm, tmp_path) -> str:
    """The GM's export holds the whole log in seq order and nocturne-verify passes it:
    its summary line."""
    seqs = [e["seq"] for e in log_entries(client, campaign, gm)]
    response = client.get(url(campaign, "/log/export"), headers=gm.headers)
    assert response.status_code == 200, response.text
    assert [json.loads(line)["seq"] for line in response.text.splitlines()] == seqs
    export = tmp_path / f"{campaign['id']}.ndjson"
    export.write_bytes(response.content)
    checked = subprocess.run(
        [sys.executable, "-m", "app.verify", str(export)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    return checked.stdout
