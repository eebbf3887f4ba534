"""The rules ship with the project: docs/rules/ in the project's own words, served by the
API, linked from every problem that cites a rule, and the only reference the code names."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.engine.registry import DEFAULT_REGISTRY
from tests.conftest import API, SHEETS, assert_problem

ROOT = Path(__file__).resolve().parents[2]
RULE_ID = re.compile(r"\b(?:JDR|FAB|VAM|FAIR)-\d+[a-z]?\b")
OUTSIDE = "../" + "shared"  # the rules' source folder, outside the repository
ANCHOR = re.compile(r'<a id="([A-Z]+-\d+[a-z]?)"></a>')


def anchors() -> set[str]:
    found: set[str] = set()
    for document in (ROOT / "docs" / "rules").glob("*.md"):
        found |= set(ANCHOR.findall(document.read_text(encoding="utf-8")))
    return found


@pytest.mark.parametrize("system_id", [system.id for _, system in DEFAULT_REGISTRY.systems])
def test_each_system_serves_its_rules_reference_as_markdown(client, system_id):
    response = client.get(f"{API}/systems/{system_id}/rules")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/markdown")
    prefix = DEFAULT_REGISTRY.system(system_id)[0].rule_prefixes[0]
    assert f'<a id="{prefix}-1"></a>' in response.text
    assert OUTSIDE not in response.text


def test_the_fairness_reference_is_served_too(client):
    response = client.get(f"{API}/rules/fairness")
    assert response.status_code == 200
    assert '<a id="FAIR-14"></a>' in response.text


def test_an_unknown_reference_is_404(client):
    assert_problem(client.get(f"{API}/rules/d20"), 404, "fairness")
    assert_problem(client.get(f"{API}/systems/d20/rules"), 404, "d20")


def test_a_refusal_links_to_its_rule_in_the_reference(
    client, gm, player, make_campaign, make_character
):
    campaign = make_campaign("vampire", players=(player,))
    character = make_character(campaign, player, sheet=SHEETS["vampire"])
    client.patch(
        f"{API}/characters/{character['id']}",
        json={"sheet": {"willpower": {"current": 0}}},
        headers=gm.headers,
    )
    refused = client.post(
        f"{API}/campaigns/{campaign['id']}/rolls",
        json={
            "kind": "vampire.action",
            "character_id": character["id"],
            "attribute": "force",
            "willpower": True,
        },
        headers=player.headers,
    )
    body = assert_problem(refused, 409, "VAM-21")
    assert body["rule_url"] == f"{API}/rules/vampire#VAM-21"
    path, anchor = body["rule_url"].split("#")
    assert f'<a id="{anchor}"></a>' in client.get(path).text


def test_a_fairness_refusal_links_to_the_fairness_reference(client, gm, make_campaign):
    campaign = make_campaign("vampire")
    base = f"{API}/campaigns/{campaign['id']}"
    client.post(f"{base}/rolls", json={"kind": "dice", "notation": "1d6"}, headers=gm.headers)
    refused = client.put(
        f"{base}/fairness/client-seed", json={"client_seed": "late"}, headers=gm.headers
    )
    body = assert_problem(refused, 409, "frozen")
    assert body["rule"] == "FAIR-3"
    assert body["rule_url"] == f"{API}/rules/fairness#FAIR-3"


def test_every_rule_id_the_code_cites_is_anchored_in_the_reference():
    """A newcomer finds any rule the code or an error names by its id."""
    cited: dict[str, str] = {}
    for source in (ROOT / "app").rglob("*.py"):
        for rule in RULE_ID.findall(source.read_text(encoding="utf-8")):
            cited.setdefault(rule, str(source.relative_to(ROOT)))
    missing = {rule: where for rule, where in cited.items() if rule not in anchors()}
    assert not missing, missing


def test_nothing_in_the_repository_points_outside_it_for_the_rules():
    offenders = [
        str(path.relative_to(ROOT))
        for folder in ("app", "docs", "tests", "bench", "alembic")
        for path in (ROOT / folder).rglob("*")
        if path.is_file()
        and path.suffix in {".py", ".md", ".txt", ".toml", ".ini"}
        and OUTSIDE in path.read_text(encoding="utf-8", errors="replace")
    ]
    for top in ("README.md", "BENCHMARKS.md", "Makefile", "pyproject.toml"):
        if OUTSIDE in (ROOT / top).read_text(encoding="utf-8"):
            offenders.append(top)
    assert not offenders, offenders
