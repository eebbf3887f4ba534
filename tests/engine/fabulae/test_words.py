"""What a player reads of Fabulae entries: summaries true to the entry in English and
French, checked on the frozen export of a whole campaign (every kind, real dice)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from app.engine.registry import DEFAULT_REGISTRY
from app.engine.rulesets.fabulae.labels import LABELS
from app.services.views import describe

FROZEN = Path(__file__).resolve().parents[2] / "fixtures" / "frozen" / "fabulae-tenebris.ndjson"
ENTRIES: list[dict[str, Any]] = [
    json.loads(line) for line in FROZEN.read_text(encoding="utf-8").splitlines() if line
]


def of(kind: str) -> list[dict[str, Any]]:
    found = [entry for entry in ENTRIES if entry["kind"] == kind]
    assert found, kind
    return found


def read(entry: dict[str, Any], language: str) -> tuple[str, dict[str, str] | None]:
    return describe(entry, DEFAULT_REGISTRY, language)  # type: ignore[arg-type]


def test_every_label_speaks_english_and_french() -> None:
    for group in LABELS.values():
        for label in group.values():
            assert label.en and label.fr


@pytest.mark.parametrize("language", ["en", "fr"])
def test_FAB_11_a_success_names_its_prouesses(language: str) -> None:
    word = "Prouesse" if language == "fr" else "feat"
    checked = 0
    for entry in of("fabulae.action"):
        result = entry["result"]
        summary, _ = read(entry, language)
        if result["outcome"] == "success" and result["feats"]:
            assert f"{result['feats']} {word}" in summary, summary
            checked += 1
        else:
            assert word not in summary, summary
    assert checked


@pytest.mark.parametrize("language", ["en", "fr"])
def test_FAB_80_82_a_recovery_says_what_it_cleared(language: str) -> None:
    verb = "guérit" if language == "fr" else "clears"
    for entry in of("fabulae.recover"):
        summary, _ = read(entry, language)
        cleared = [
            LABELS["state"][state].text(language) for state in entry["result"].get("cleared") or []
        ]
        if cleared:
            assert f"{verb} {', '.join(cleared)}" in summary, summary
        else:
            assert verb not in summary, summary
    care = [e for e in of("fabulae.recover") if e["request"]["mode"] == "care"]
    assert care and all("Care" in read(e, "en")[0] for e in care)  # the skill, in English


def test_FAB_44_a_panic_reads_its_modifier_with_its_sign() -> None:
    for entry in of("fabulae.panic"):
        for language in ("en", "fr"):
            summary, _ = read(entry, language)
            assert "+ -" not in summary, summary
            assert str(entry["result"]["score"]) in summary, summary


def test_FAB_50_55_a_sequela_duration_reads_in_french() -> None:
    for entry in of("fabulae.sequela"):
        summary, _ = read(entry, "fr")
        for english in ("days", "until", "if untreated", "mortal", "final"):
            assert english not in summary, summary


def test_FAB_100_a_power_reads_how_its_roll_went_not_that_it_applied() -> None:
    for entry in of("fabulae.power"):
        roll = entry["result"].get("roll")
        summary, outcome = read(entry, "en")
        assert outcome is not None
        if roll is not None:
            side = roll.get("active", roll)
            assert outcome["code"] == side["outcome"], (entry["seq"], outcome)
            assert summary.endswith(LABELS["outcome"][side["outcome"]].en), summary


def test_FAB_73_a_danger_reads_the_states_it_checked_and_the_sequelae() -> None:
    checked = 0
    for entry in of("fabulae.danger"):
        summary, _ = read(entry, "en")
        for landed in entry["result"].get("states_checked") or []:
            if landed.get("state"):
                assert LABELS["state"][landed["state"]].en in summary, summary
            if landed.get("broken"):
                sequela = LABELS["sequela"][landed["sequela"]["code"]].en
                assert f"Broken ({sequela})" in summary, summary
            checked += 1
    assert checked
