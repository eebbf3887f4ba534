"""FAIR-14/FAIR-15: the exports frozen on commit 0fdf88b verify, forever.

tests/fixtures/frozen/ holds one GM export per ruleset, produced by the code before rules
versions existed (tests/fixtures/README.md). Every later rules change must keep them
verifying with the very counts recorded in manifest.json: every draw re-derived from its
revealed seed, every rule entry replayed to the same result.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from pydantic import TypeAdapter

from app.engine.audit import verify_log
from app.engine.registry import DEFAULT_REGISTRY
from app.models.typed import api_models
from app.services.views import describe
from app.verify import parse_head

ROOT = Path(__file__).resolve().parents[2]
FROZEN = ROOT / "tests" / "fixtures" / "frozen"
MANIFEST: dict[str, Any] = json.loads((FROZEN / "manifest.json").read_text(encoding="utf-8"))
FILES = sorted(MANIFEST["files"])


def head_of(name: str) -> str:
    return (FROZEN / name).with_suffix(".head").read_text(encoding="utf-8").strip()


def entries_of(name: str) -> list[dict[str, Any]]:
    lines = (FROZEN / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line]


def test_every_ruleset_has_a_frozen_export() -> None:
    systems = {MANIFEST["files"][name]["system"] for name in FILES}
    assert systems == {"jdr-express-dracula", "jdr-express-cthulhu", "fabulae-tenebris", "vampire"}


@pytest.mark.parametrize("name", FILES)
def test_FAIR14_a_frozen_export_verifies_with_its_recorded_counts(name: str) -> None:
    expected = MANIFEST["files"][name]
    entries = entries_of(name)
    report = verify_log(entries, registry=DEFAULT_REGISTRY, head=parse_head(head_of(name)))
    assert report.ok and report.first_failure is None, report.first_failure
    counts = {
        "entries_checked": report.entries_checked,
        "rederived": report.rederived,
        "replayed": report.replayed,
    }
    assert counts == expected["verify"]
    assert len(entries) == expected["entries"]
    # Every epoch was closed: each entry that drew dice was re-derived from its seed.
    assert report.rederived == sum(1 for entry in entries if entry["draws"])
    assert sorted({entry["kind"] for entry in entries}) == expected["kinds"]


@pytest.mark.parametrize("name", FILES)
def test_FAIR15_nocturne_verify_passes_a_frozen_export_offline(name: str) -> None:
    checked = subprocess.run(
        [sys.executable, "-m", "app.verify", str(FROZEN / name), "--head", head_of(name)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.startswith("OK: "), checked.stdout


@pytest.fixture(scope="module")
def log_page_schema() -> Draft202012Validator:
    """The OpenAPI document's schema of a GET /log page, as a client would check it."""
    from app.main import app

    document = app.openapi()
    schema = {"$ref": "#/components/schemas/EntriesPublic", "components": document["components"]}
    return Draft202012Validator(schema)


@pytest.mark.parametrize("name", FILES)
@pytest.mark.parametrize("language", ["en", "fr"])
def test_every_frozen_entry_reads_through_the_typed_api(
    name: str, language: str, log_page_schema: Draft202012Validator
) -> None:
    """Old entries fit today's typed entry models and the published JSON Schema, and have a
    summary a person can read."""
    view = TypeAdapter(api_models(DEFAULT_REGISTRY).entry)
    shown = []
    for entry in entries_of(name):
        summary, outcome = describe(entry, DEFAULT_REGISTRY, language)
        assert summary and summary != entry["kind"], entry["seq"]
        page = {**entry, "follows": entry.get("follows"), "follow_ups": [], "triggered": []}
        shown.append({**page, "summary": summary, "outcome": outcome})
        view.validate_python(shown[-1])
    errors = list(log_page_schema.iter_errors({"data": shown, "next_after_seq": None}))
    assert not errors, [(list(e.absolute_path)[:3], e.message[:200]) for e in errors[:3]]
